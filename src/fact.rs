//! Facts: the values a conversation's later steps depend on, by kind, and how likely a summary
//! is to keep each kind (DESIGN §6).

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

    /// The probability that a summary keeps a fact of this kind when not told to keep it.
    /// From a published study of 43 real compactions (decision, path, number, command);
    /// `id` and `detail` are assumed equal to `number`.
    pub fn kept_untold(self) -> f64 {
        match self {
            FactKind::Decision => 0.77,
            FactKind::Path => 0.098,
            FactKind::Number | FactKind::Id | FactKind::Detail => 0.019,
            FactKind::Command => 0.002,
        }
    }
}

/// The probability that a summary keeps a fact of a kind it was told to keep (a parameter of
/// the simulation, not a measurement).
pub const KEPT_WHEN_TOLD: f64 = 0.9;
