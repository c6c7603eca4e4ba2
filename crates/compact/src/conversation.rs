//! A conversation as a compactor sees it: the system prompt held apart, the history, the tool
//! schemas, and its structure (preamble, requests, protected tail).
//!
//! The system prompt is the first `system` (or `developer`) message of the preamble, the
//! messages before the first user message. It is never compacted; [`Conversation::into_messages`]
//! puts it back where it stood, which stays valid because no strategy touches the preamble.

use serde_json::Value;

use crate::message::{Message, Role};
use crate::tool_schemas::ToolSchemas;

/// The system prompt, the history and the tool schemas of one request to the model.
#[derive(Clone, Debug, PartialEq)]
pub struct Conversation {
    /// The system prompt, if any.
    pub system: Option<Message>,
    /// Where the system prompt stood among the messages (0 in most conversations).
    pub system_index: usize,
    /// Every message but the system prompt, oldest first.
    pub messages: Vec<Message>,
    /// The request's `tools` array (OpenAI function schemas), verbatim.
    pub tools: ToolSchemas,
}

impl Conversation {
    /// Splits the system prompt off a full message list.
    pub fn from_messages(mut messages: Vec<Message>, tools: Vec<Value>) -> Conversation {
        let first_user = messages
            .iter()
            .position(|m| m.role() == Role::User)
            .unwrap_or(messages.len());
        let system_index = messages[..first_user].iter().position(|m| m.role().is_instruction());
        let system = system_index.map(|i| messages.remove(i));
        Conversation {
            system,
            system_index: system_index.unwrap_or(0),
            messages,
            tools: tools.into(),
        }
    }

    /// The full message list again, the system prompt in its place.
    pub fn into_messages(self) -> Vec<Message> {
        let mut messages = self.messages;
        if let Some(system) = self.system {
            messages.insert(self.system_index.min(messages.len()), system);
        }
        messages
    }
}

/// Index of the first request message: where the preamble ends and the first request begins.
pub fn first_user(messages: &[Message]) -> Option<usize> {
    messages.iter().position(Message::is_request)
}

/// Where the protected tail starts: the index of the `keep`-th user message from the end, or 0
/// when there are fewer requests than that (then everything is protected; the reference listing's `keepFrom`).
pub fn keep_from(messages: &[Message], keep: usize) -> usize {
    let mut seen = 0;
    for (i, m) in messages.iter().enumerate().rev() {
        if m.is_request() {
            seen += 1;
            if seen == keep {
                return i;
            }
        }
    }
    0
}

/// Number of requests (user messages, summaries excepted) in a history.
pub fn request_count(messages: &[Message]) -> usize {
    messages.iter().filter(|m| m.is_request()).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roles(spec: &str) -> Vec<Message> {
        spec.chars()
            .map(|c| match c {
                's' => Message::new(Role::System, "s"),
                'u' => Message::new(Role::User, "u"),
                _ => Message::new(Role::Assistant, "a"),
            })
            .collect()
    }

    #[test]
    fn keep_from_is_the_seeds_keep_from() {
        let h = roles("uauaua");
        assert_eq!(keep_from(&h, 1), 4);
        assert_eq!(keep_from(&h, 2), 2);
        assert_eq!(keep_from(&h, 3), 0);
        assert_eq!(keep_from(&h, 4), 0);
    }

    #[test]
    fn system_prompt_is_held_apart_and_put_back() {
        let all = roles("asuaus");
        let c = Conversation::from_messages(all.clone(), vec![]);
        assert_eq!(c.system_index, 1);
        assert_eq!(c.messages.len(), 5);
        assert_eq!(c.into_messages(), all);
        // A system message after the first request is history, not the prompt.
        let c = Conversation::from_messages(roles("uasu"), vec![]);
        assert_eq!(c.system, None);
    }
}
