//! Facts: the values a conversation's later steps depend on, by kind. A summary can be told which
//! kinds to keep (`summarize:keep=id/number/decision`).

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
        /// A shell command.
        Command = "command",
        /// Any other detail.
        Detail = "detail",
    }
}
