//! The library's one error type: input that cannot be compacted. Each variant says what happened
//! and where; the messages end with what to do when that is not obvious.

use crate::compact::StrategyError;
use crate::pairing::PairingError;
use crate::policy::PolicyError;

/// Everything the library can fail with: a body, a message, a policy or a strategy that does
/// not parse or breaks a rule.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input is not JSON, or not JSON of the expected shape, at a known place.
    #[error("{source_name}:{line}:{column}: {msg}")]
    Json {
        /// The file (or `<stdin>`).
        source_name: String,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// What is wrong (`invalid JSON: …`, or what the format expected).
        msg: String,
    },
    /// The input is JSON but not of the expected shape.
    #[error("{source_name}: {at}: {msg}")]
    Input {
        /// The file (or `<stdin>`).
        source_name: String,
        /// Where in the document (`messages[3].role`).
        at: String,
        /// What is wrong.
        msg: String,
    },
    /// A history breaks the pairing rule between tool calls and results.
    #[error(
        "{source_name}: {broken}; every tool result must answer a call of the assistant message just before it, \
         and every call needs its result before the next message"
    )]
    Pairing {
        /// The file (or `<stdin>`).
        source_name: String,
        /// Where and how the rule is broken.
        broken: PairingError,
    },
    /// A policy value out of range.
    #[error(transparent)]
    Policy(#[from] PolicyError),
    /// A strategy name that does not parse.
    #[error(transparent)]
    Strategy(#[from] StrategyError),
}

impl Error {
    /// An error of serde_json at its line and column: `invalid JSON` for syntax, `what` for
    /// JSON that is well formed but not of the expected shape.
    pub fn json(source_name: &str, e: &serde_json::Error, what: &str) -> Error {
        let text = e.to_string();
        let bare = text.rsplit_once(" at line ").map_or(text.as_str(), |(m, _)| m);
        let msg = match e.classify() {
            serde_json::error::Category::Data => format!("{what}: {bare}"),
            _ => format!("invalid JSON: {bare}"),
        };
        Error::Json {
            source_name: source_name.to_owned(),
            line: e.line(),
            column: e.column(),
            msg,
        }
    }
}
