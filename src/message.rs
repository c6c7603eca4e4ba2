//! One chat message in OpenAI's chat-completions wire format (DESIGN §3).
//!
//! A [`Message`] keeps the JSON object it was read from, key order included, so that unknown
//! fields, `null` versus absent, and the raw `arguments` string survive a round trip verbatim.
//! The role is parsed once and cached; everything else is read from the object on demand.
//!
//! Invariant: every `Message` has passed [`Message::from_value`]'s checks, so the accessors
//! never meet a malformed `tool_calls` entry or a tool result without a `tool_call_id`.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::tokens::costs::Costs;

/// What a ctxbench summary message starts with; such a user message is not a request.
pub const SUMMARY_PREFIX: &str = "[Summary of earlier conversation]";

/// Who wrote a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Instructions from the application; the first one is the system prompt.
    System,
    /// OpenAI's newer name for system instructions; treated as `system`.
    Developer,
    /// The person; each user message opens a request.
    User,
    /// The model: text, tool calls, or both.
    Assistant,
    /// A tool's result, answering one tool call by its id.
    Tool,
}

impl Role {
    /// The wire name of the role.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::Developer => "developer",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }

    /// Parses a wire name.
    pub fn parse(name: &str) -> Option<Role> {
        Some(match name {
            "system" => Role::System,
            "developer" => Role::Developer,
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            _ => return None,
        })
    }

    /// `system` or `developer`: instructions, never removed or rewritten by a strategy.
    pub fn is_instruction(self) -> bool {
        matches!(self, Role::System | Role::Developer)
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a JSON value is not a valid message; `path` is relative to the message (`tool_calls[0].id`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageError {
    /// Where in the message, empty for the message itself.
    pub path: String,
    /// What is wrong, and what was expected.
    pub msg: String,
}

impl fmt::Display for MessageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.msg)
        } else {
            write!(f, "{}: {}", self.path, self.msg)
        }
    }
}

fn invalid(path: impl Into<String>, msg: impl Into<String>) -> MessageError {
    MessageError {
        path: path.into(),
        msg: msg.into(),
    }
}

/// One tool call of an assistant message, borrowed from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolCall<'a> {
    /// The call's id, which its result's `tool_call_id` repeats.
    pub id: &'a str,
    /// The function's name.
    pub name: &'a str,
    /// The arguments, a JSON text kept exactly as the model wrote it.
    pub arguments: &'a str,
}

/// A chat message: its role, and the JSON object it is, kept verbatim.
///
/// It also remembers what each counter found it costs, so that a history is counted once per
/// run, not once per call; changing the content forgets those costs.
#[derive(Clone, Debug)]
pub struct Message {
    role: Role,
    body: Map<String, Value>,
    costs: Costs,
}

impl PartialEq for Message {
    fn eq(&self, other: &Message) -> bool {
        self.role == other.role && self.body == other.body
    }
}

impl Message {
    /// Checks a JSON value against the wire format and wraps it. Accepts `content` as a string,
    /// `null`, absent, or an array of parts; `tool_calls` as absent, `null` or an array of
    /// `{id, function: {name, arguments}}` with `arguments` a string.
    pub fn from_value(value: Value) -> Result<Message, MessageError> {
        let Value::Object(body) = value else {
            return Err(invalid("", format!("expected a JSON object, found {}", kind(&value))));
        };
        let role = match body.get("role") {
            Some(Value::String(name)) => Role::parse(name).ok_or_else(|| {
                invalid(
                    "role",
                    format!("unknown role {name:?}; expected system, developer, user, assistant or tool"),
                )
            })?,
            Some(other) => {
                return Err(invalid("role", format!("expected a string, found {}", kind(other))));
            }
            None => return Err(invalid("", "missing \"role\"")),
        };
        match body.get("content") {
            None | Some(Value::Null | Value::String(_) | Value::Array(_)) => {}
            Some(other) => {
                return Err(invalid(
                    "content",
                    format!("expected a string, null or an array of parts, found {}", kind(other)),
                ));
            }
        }
        check_tool_calls(role, &body)?;
        if role == Role::Tool && !matches!(body.get("tool_call_id"), Some(Value::String(_))) {
            return Err(invalid("tool_call_id", "a tool result needs a string \"tool_call_id\""));
        }
        if let Some(name) = body.get("name") {
            if !name.is_string() {
                return Err(invalid("name", format!("expected a string, found {}", kind(name))));
            }
        }
        Ok(Message {
            role,
            body,
            costs: Costs::new(),
        })
    }

    /// A message with a role and a string content.
    pub fn new(role: Role, content: impl Into<String>) -> Message {
        let mut body = Map::new();
        body.insert("role".into(), Value::String(role.as_str().into()));
        body.insert("content".into(), Value::String(content.into()));
        Message {
            role,
            body,
            costs: Costs::new(),
        }
    }

    /// A tool result answering `tool_call_id`.
    pub fn tool_result(tool_call_id: impl Into<String>, content: impl Into<String>) -> Message {
        Message::tool_result_as(tool_call_id, None, Some(content.into()))
    }

    /// A tool result, written `{"role":"tool","tool_call_id":…,"name":…,"content":…}` with the
    /// tool's `name` when given (as some agents send it) and `content: null` for `None`.
    pub fn tool_result_as(tool_call_id: impl Into<String>, name: Option<&str>, content: Option<String>) -> Message {
        let mut body = Map::new();
        body.insert("role".into(), Value::String("tool".into()));
        body.insert("tool_call_id".into(), Value::String(tool_call_id.into()));
        if let Some(name) = name {
            body.insert("name".into(), Value::String(name.into()));
        }
        body.insert("content".into(), content.map_or(Value::Null, Value::String));
        Message {
            role: Role::Tool,
            body,
            costs: Costs::new(),
        }
    }

    /// An assistant message with `content: null` and the given calls (`id`, `name`, `arguments`).
    pub fn assistant_calls<'a>(calls: impl IntoIterator<Item = ToolCall<'a>>) -> Message {
        let calls: Vec<Value> = calls
            .into_iter()
            .map(|c| {
                serde_json::json!({
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                })
            })
            .collect();
        let mut body = Map::new();
        body.insert("role".into(), Value::String("assistant".into()));
        body.insert("content".into(), Value::Null);
        body.insert("tool_calls".into(), Value::Array(calls));
        Message {
            role: Role::Assistant,
            body,
            costs: Costs::new(),
        }
    }

    /// A field of the message (see [`member`]).
    fn field(&self, key: &str) -> Option<&Value> {
        member(&self.body, key)
    }

    /// Sets `content` in its place (at the end when absent), returning what it held.
    fn put_content(&mut self, content: Value) -> Option<Value> {
        match self.body.iter_mut().find(|(k, _)| *k == "content") {
            Some((_, slot)) => Some(std::mem::replace(slot, content)),
            None => self.body.insert("content".into(), content),
        }
    }

    /// The role.
    pub fn role(&self) -> Role {
        self.role
    }

    /// The `content` field as written: `None` when absent, `Some(Value::Null)` when `null`.
    pub fn content(&self) -> Option<&Value> {
        self.field("content")
    }

    /// Whether this message opens a request: a user message that is not a ctxbench summary.
    pub fn is_request(&self) -> bool {
        self.role == Role::User && !self.content_str().is_some_and(|c| c.starts_with(SUMMARY_PREFIX))
    }

    /// The content when it is a plain string.
    pub fn content_str(&self) -> Option<&str> {
        self.field("content").and_then(Value::as_str)
    }

    /// The content's text: the string, the concatenated `text` of its parts, or `""`.
    pub fn text(&self) -> Cow<'_, str> {
        match self.field("content") {
            Some(Value::String(s)) => Cow::Borrowed(s),
            Some(Value::Array(parts)) => {
                let mut text = String::new();
                for part in parts {
                    if let Some(t) = part.get("text").and_then(Value::as_str) {
                        text.push_str(t);
                    }
                }
                Cow::Owned(text)
            }
            _ => Cow::Borrowed(""),
        }
    }

    /// Replaces the content by a string, keeping the field's place among the others.
    pub fn set_content(&mut self, content: String) {
        self.costs.forget();
        self.put_content(Value::String(content));
    }

    /// The cost a counter found for this message (in its `slot`), computing it the first time.
    pub(crate) fn cost(&self, slot: usize, compute: impl FnOnce() -> u64) -> u64 {
        self.costs.get(slot, compute)
    }

    /// Sets the content, returning the field as it was (`None` when absent), for
    /// [`Message::restore_content`].
    pub fn replace_content(&mut self, content: Value) -> Option<Value> {
        self.costs.forget();
        self.put_content(content)
    }

    /// Puts back what [`Message::replace_content`] returned, absent included.
    pub fn restore_content(&mut self, old: Option<Value>) {
        self.costs.forget();
        match old {
            Some(value) => {
                self.put_content(value);
            }
            None => {
                self.body.shift_remove("content");
            }
        }
    }

    /// The tool calls of an assistant message, in order; empty when there are none.
    pub fn calls(&self) -> impl Iterator<Item = ToolCall<'_>> {
        let list = match self.field("tool_calls") {
            Some(Value::Array(list)) => list.as_slice(),
            _ => &[],
        };
        list.iter().filter_map(|call| {
            let call = call.as_object()?;
            let function = member(call, "function")?.as_object()?;
            Some(ToolCall {
                id: member(call, "id")?.as_str()?,
                name: member(function, "name")?.as_str()?,
                arguments: member(function, "arguments")?.as_str()?,
            })
        })
    }

    /// Whether this is an assistant message with at least one tool call.
    pub fn has_calls(&self) -> bool {
        self.calls().next().is_some()
    }

    /// The id a tool result answers.
    pub fn tool_call_id(&self) -> Option<&str> {
        self.field("tool_call_id").and_then(Value::as_str)
    }

    /// The optional `name` field (a tool result's tool, or a participant's name).
    pub fn name(&self) -> Option<&str> {
        self.field("name").and_then(Value::as_str)
    }

    /// The whole JSON object, as it will be written.
    pub fn as_map(&self) -> &Map<String, Value> {
        &self.body
    }

    /// Unwraps the JSON object.
    pub fn into_value(self) -> Value {
        Value::Object(self.body)
    }
}

/// A member of a JSON object, found by walking its few fields: cheaper than hashing the key,
/// and it touches one allocation, not two (it matters in histories of 100,000 messages).
fn member<'v>(object: &'v Map<String, Value>, key: &str) -> Option<&'v Value> {
    object.iter().find_map(|(k, v)| (k == key).then_some(v))
}

fn check_tool_calls(role: Role, body: &Map<String, Value>) -> Result<(), MessageError> {
    let list = match body.get("tool_calls") {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(list)) => list,
        Some(other) => {
            return Err(invalid(
                "tool_calls",
                format!("expected an array, found {}", kind(other)),
            ));
        }
    };
    if role != Role::Assistant && !list.is_empty() {
        return Err(invalid(
            "tool_calls",
            format!("only assistant messages make tool calls, not {role}"),
        ));
    }
    for (k, call) in list.iter().enumerate() {
        let field = |name: &str, v: Option<&Value>| -> Result<(), MessageError> {
            match v {
                Some(Value::String(_)) => Ok(()),
                Some(other) => Err(invalid(
                    format!("tool_calls[{k}].{name}"),
                    format!("expected a string, found {}", kind(other)),
                )),
                None => Err(invalid(format!("tool_calls[{k}]"), format!("missing \"{name}\""))),
            }
        };
        field("id", call.get("id"))?;
        let Some(function) = call.get("function").filter(|f| f.is_object()) else {
            return Err(invalid(format!("tool_calls[{k}]"), "missing the \"function\" object"));
        };
        field("function.name", function.get("name"))?;
        field("function.arguments", function.get("arguments"))?;
    }
    Ok(())
}

/// The JSON type of a value, for error messages.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.body.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Message::from_value(value).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip(text: &str) -> String {
        let m: Message = serde_json::from_str(text).expect("valid message");
        serde_json::to_string(&m).expect("serializes")
    }

    #[test]
    fn round_trip_is_verbatim() {
        for text in [
            r#"{"content":"hi","role":"user","x-extra":{"a":[1,2]}}"#,
            r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{ \"a\" : 1 }"}}]}"#,
            r#"{"role":"assistant","tool_calls":null}"#,
            r#"{"role":"tool","tool_call_id":"c1","name":"f","content":""}"#,
            r#"{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url"}]}"#,
        ] {
            assert_eq!(round_trip(text), text);
        }
    }

    #[test]
    fn text_of_parts_is_their_concatenation() {
        let m = Message::from_value(json!({"role": "user", "content": [
            {"type": "text", "text": "ab"}, {"type": "image_url", "image_url": {}}, {"type": "text", "text": "c"}
        ]}))
        .expect("valid");
        assert_eq!(m.text(), "abc");
    }

    #[test]
    fn rejects_what_no_api_accepts() {
        let check = |value: Value, expect: &str| {
            let err = Message::from_value(value).expect_err("invalid");
            assert_eq!(err.to_string(), expect);
        };
        check(
            json!({"role": "robot"}),
            "role: unknown role \"robot\"; expected system, developer, user, assistant or tool",
        );
        check(json!({"content": "x"}), "missing \"role\"");
        check(
            json!({"role": "tool", "content": "x"}),
            "tool_call_id: a tool result needs a string \"tool_call_id\"",
        );
        check(
            json!({"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": "f", "arguments": {}}}]}),
            "tool_calls[0].function.arguments: expected a string, found an object",
        );
        check(
            json!({"role": "user", "content": 3}),
            "content: expected a string, null or an array of parts, found a number",
        );
        check(json!([1]), "expected a JSON object, found an array");
    }
}
