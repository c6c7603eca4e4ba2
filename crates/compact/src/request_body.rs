//! An OpenAI chat request body as `ctxbench compact` reads and writes it.
//!
//! Accepts `{"messages": [...], "tools": [...], ...}` or a bare message array. Every other
//! top-level field is kept and written back unchanged, so a compacted body can be sent as is.

use serde_json::{Map, Value};

use crate::conversation::Conversation;
use crate::error::Error;
use crate::message::{Message, kind};
use crate::pairing::check_pairing;

/// A parsed request body and the shape to write it back in.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestBody {
    /// The conversation, system prompt held apart.
    pub conversation: Conversation,
    /// The top-level object (its `messages` emptied), or `None` for a bare message array.
    rest: Option<Map<String, Value>>,
}

impl RequestBody {
    /// Parses a body; `source_name` names the input in errors.
    pub fn parse(text: &str, source_name: &str) -> Result<RequestBody, Error> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| Error::json(source_name, &e, "not a request body"))?;
        let input = |at: &str, msg: String| Error::Input {
            source_name: source_name.to_owned(),
            at: at.to_owned(),
            msg,
        };
        let (list, rest) = match value {
            Value::Array(list) => (list, None),
            Value::Object(mut map) => match map.get_mut("messages") {
                // Taken out, leaving `[]` in its place so that it is written back where it was.
                Some(Value::Array(list)) => (std::mem::take(list), Some(map)),
                Some(other) => {
                    return Err(input("messages", format!("expected an array, found {}", kind(other))));
                }
                None => {
                    return Err(input(
                        "top level",
                        "no \"messages\" array; expected a chat request body or a bare array of messages".into(),
                    ));
                }
            },
            other => {
                return Err(input(
                    "top level",
                    format!(
                        "expected a request body object or a message array, found {}",
                        kind(&other)
                    ),
                ));
            }
        };
        let tools = match rest.as_ref().and_then(|map| map.get("tools")) {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(tools)) => tools.clone(),
            Some(other) => {
                return Err(input("tools", format!("expected an array, found {}", kind(other))));
            }
        };
        let messages = list
            .into_iter()
            .enumerate()
            .map(|(i, v)| {
                Message::from_value(v).map_err(|e| {
                    let at = if e.path.is_empty() {
                        format!("messages[{i}]")
                    } else {
                        format!("messages[{i}].{}", e.path)
                    };
                    input(&at, e.msg)
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        check_pairing(&messages).map_err(|broken| Error::Pairing {
            source_name: source_name.to_owned(),
            broken,
        })?;
        Ok(RequestBody {
            conversation: Conversation::from_messages(messages, tools),
            rest,
        })
    }

    /// The body as JSON, in the shape it was read, with the conversation as it is now.
    pub fn into_value(self) -> Value {
        let messages = Value::Array(
            self.conversation
                .into_messages()
                .into_iter()
                .map(Message::into_value)
                .collect(),
        );
        match self.rest {
            None => messages,
            Some(mut rest) => {
                rest.insert("messages".into(), messages);
                Value::Object(rest)
            }
        }
    }
}
