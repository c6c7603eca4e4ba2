//! Facts: the values a conversation's later steps depend on, by kind. A summary can be told which
//! kinds to keep (`summarize:keep=id/number/decision`). A path the agent read is a `path`; one it
//! changed is an `artifact`, the kind every compactor measured keeps worst.

crate::named! {
    /// What kind of value a fact is; a summary keeps each kind with its own probability. Its name
    /// is used in files and parameters.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum FactKind {
        /// An identifier: order number, reservation code, user id.
        Id = "id",
        /// A number: an amount, a count, a date.
        Number = "number",
        /// A decision taken: "refund approved".
        Decision = "decision",
        /// A file path.
        Path = "path",
        /// A file the agent changed (wrote, edited, created): what a final "which files did you
        /// change?" asks for.
        Artifact = "artifact",
        /// A shell command.
        Command = "command",
        /// Any other detail.
        Detail = "detail",
    }
}
