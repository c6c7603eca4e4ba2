//! The pairing rule real APIs enforce between tool calls and their results.
//!
//! Every `tool` message answers, once, an id of the nearest preceding assistant message's
//! `tool_calls`; every id of an assistant's `tool_calls` is answered before the next non-tool
//! message. The calls of the last assistant message that are still open when the history ends
//! are *pending*: allowed, and counted. Ids may be reused across the conversation, since only
//! the nearest assistant message matters. This is the one check the whole crate uses.

use std::fmt;

use crate::message::{Message, Role};

/// A valid history's pairing figures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pairing {
    /// Calls of the final assistant message that have no result yet.
    pub pending_calls: usize,
}

/// How a history breaks the pairing rule; indices count from 0 in the checked slice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PairingError {
    /// A tool result whose id is not among the calls of the nearest preceding assistant message.
    OrphanResult {
        /// Index of the tool message.
        index: usize,
        /// The id it claims to answer.
        id: String,
    },
    /// A second result for a call that was already answered.
    DuplicateResult {
        /// Index of the second tool message.
        index: usize,
        /// The id answered twice.
        id: String,
    },
    /// A call left without a result when a non-tool message came.
    UnansweredCall {
        /// Index of the assistant message that made the call.
        index: usize,
        /// The id of the call.
        id: String,
        /// Index of the message that came before the result.
        interrupted_by: usize,
    },
}

impl fmt::Display for PairingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PairingError::OrphanResult { index, id } => write!(
                f,
                "messages[{index}]: tool result for {id:?} answers no call of the assistant message before it"
            ),
            PairingError::DuplicateResult { index, id } => {
                write!(f, "messages[{index}]: a second tool result for call {id:?}")
            }
            PairingError::UnansweredCall {
                index,
                id,
                interrupted_by,
            } => write!(
                f,
                "messages[{index}]: tool call {id:?} has no result before messages[{interrupted_by}]"
            ),
        }
    }
}

impl std::error::Error for PairingError {}

/// The calls of the nearest assistant message that made some, still waiting for results. One
/// buffer for the whole check: a history of many exchanges allocates once.
struct Open<'a> {
    /// Index of the assistant message, `None` when no calls are open.
    index: Option<usize>,
    /// `(id, answered)`; a list, as parallel calls are few and ids may repeat.
    calls: Vec<(&'a str, bool)>,
}

/// Checks the pairing rule over a history (system prompt excluded or not: it is not a tool
/// message, so it changes nothing). Linear in the number of messages and calls.
pub fn check_pairing(messages: &[Message]) -> Result<Pairing, PairingError> {
    let mut open = Open {
        index: None,
        calls: Vec::new(),
    };
    for (index, message) in messages.iter().enumerate() {
        if message.role() == Role::Tool {
            let id = message.tool_call_id().unwrap_or_default();
            let error = if open.index.is_none() {
                PairingError::OrphanResult {
                    index,
                    id: id.to_owned(),
                }
            } else if let Some(slot) = open.calls.iter_mut().find(|(call, answered)| *call == id && !answered) {
                slot.1 = true;
                continue;
            } else if open.calls.iter().any(|(call, _)| *call == id) {
                PairingError::DuplicateResult {
                    index,
                    id: id.to_owned(),
                }
            } else {
                PairingError::OrphanResult {
                    index,
                    id: id.to_owned(),
                }
            };
            return Err(error);
        }
        if let Some(at) = open.index.take() {
            if let Some((id, _)) = open.calls.iter().find(|(_, answered)| !answered) {
                return Err(PairingError::UnansweredCall {
                    index: at,
                    id: (*id).to_owned(),
                    interrupted_by: index,
                });
            }
        }
        if message.role() == Role::Assistant && message.has_calls() {
            open.index = Some(index);
            open.calls.clear();
            open.calls.extend(message.calls().map(|c| (c.id, false)));
        }
    }
    let pending_calls = match open.index {
        Some(_) => open.calls.iter().filter(|(_, answered)| !answered).count(),
        None => 0,
    };
    Ok(Pairing { pending_calls })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;

    fn call(id: &str) -> ToolCall<'_> {
        ToolCall {
            id,
            name: "f",
            arguments: "{}",
        }
    }
    fn user() -> Message {
        Message::new(Role::User, "u")
    }
    fn calls(ids: &[&str]) -> Message {
        Message::assistant_calls(ids.iter().map(|id| call(id)))
    }
    fn result(id: &str) -> Message {
        Message::tool_result(id, "r")
    }

    fn check(history: Vec<Message>, expect: Result<Pairing, PairingError>) {
        assert_eq!(check_pairing(&history), expect);
    }

    #[test]
    fn cases() {
        let ok = |pending_calls| Ok(Pairing { pending_calls });
        check(
            vec![user(), calls(&["a", "b"]), result("b"), result("a"), user()],
            ok(0),
        );
        // Reused ids across the conversation, as tau-bench logs have them.
        check(
            vec![user(), calls(&["a"]), result("a"), calls(&["a"]), result("a")],
            ok(0),
        );
        // A final assistant message whose calls have no results yet.
        check(vec![user(), calls(&["a", "b"])], ok(2));
        check(vec![user(), calls(&["a", "b"]), result("a")], ok(1));
        check(
            vec![user(), result("a")],
            Err(PairingError::OrphanResult {
                index: 1,
                id: "a".into(),
            }),
        );
        check(
            vec![user(), calls(&["a"]), result("a"), result("a")],
            Err(PairingError::DuplicateResult {
                index: 3,
                id: "a".into(),
            }),
        );
        check(
            vec![user(), calls(&["a", "b"]), result("a"), user()],
            Err(PairingError::UnansweredCall {
                index: 1,
                id: "b".into(),
                interrupted_by: 3,
            }),
        );
        // A result after a user message answers nothing, even with a matching id before.
        check(
            vec![calls(&["a"]), result("a"), user(), result("a")],
            Err(PairingError::OrphanResult {
                index: 3,
                id: "a".into(),
            }),
        );
    }
}
