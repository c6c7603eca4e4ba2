//! Facts: the values a conversation's later steps depend on, by kind. A summary can be told which
//! kinds to keep (`summarize:keep=id/number/decision`).

use serde::{Deserialize, Serialize};

/// What kind of value a fact is; a summary keeps each kind with its own probability.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FactKind {
    /// An identifier: order number, reservation code, user id.
    Id,
    /// A number: an amount, a count, a date.
    Number,
    /// A decision taken: "refund approved".
    Decision,
    /// A file path.
    Path,
    /// A shell command.
    Command,
    /// Any other detail.
    Detail,
}

impl FactKind {
    /// Every kind, in a fixed order.
    pub const ALL: [FactKind; 6] = [
        FactKind::Id,
        FactKind::Number,
        FactKind::Decision,
        FactKind::Path,
        FactKind::Command,
        FactKind::Detail,
    ];

    /// The name used in files and parameters.
    pub fn as_str(self) -> &'static str {
        match self {
            FactKind::Id => "id",
            FactKind::Number => "number",
            FactKind::Decision => "decision",
            FactKind::Path => "path",
            FactKind::Command => "command",
            FactKind::Detail => "detail",
        }
    }

    /// Parses a name.
    pub fn parse(name: &str) -> Option<FactKind> {
        FactKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}
