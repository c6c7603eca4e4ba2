//! Reading a message: a JSON object (or its entries in order) checked against the wire format
//! ([`Message::from_value`]), and every way one is not a message said with its place
//! ([`MessageError`]); serde reads and writes a message so too.

use std::fmt;

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::fields::{self, Key, Slot};
use super::{Message, Role};
use crate::costs::Costs;

/// Why a JSON value is not a valid message; `path` is relative to the message (`tool_calls[0].id`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
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

pub(super) fn invalid(path: impl Into<String>, msg: impl Into<String>) -> MessageError {
    MessageError {
        path: path.into(),
        msg: msg.into(),
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
        Message::from_body(body)
    }

    /// A message from its fields in order, as a reader other than serde_json's finds them (the
    /// Python package reads dicts so): the same checks as [`Message::from_value`], without
    /// building a map of a few fields. A name given twice keeps its first value's checks. Names
    /// may be borrowed (`Cow::Borrowed("role")`): the known ones are never copied.
    pub fn from_entries<K: AsRef<str> + Into<String>>(entries: Vec<(K, Value)>) -> Result<Message, MessageError> {
        Message::from_body(entries)
    }

    fn from_body(body: impl Body) -> Result<Message, MessageError> {
        let role = match body.field("role") {
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
        match body.field("content") {
            None | Some(Value::Null | Value::String(_) | Value::Array(_)) => {}
            Some(other) => {
                return Err(invalid(
                    "content",
                    format!("expected a string, null or an array of parts, found {}", kind(other)),
                ));
            }
        }
        check_tool_calls(role, &body)?;
        if role == Role::Tool && !matches!(body.field("tool_call_id"), Some(Value::String(_))) {
            return Err(invalid("tool_call_id", "a tool result needs a string \"tool_call_id\""));
        }
        if let Some(name) = body.field("name") {
            if !name.is_string() {
                return Err(invalid("name", format!("expected a string, found {}", kind(name))));
            }
        }
        let fields = body
            .into_iter()
            .map(|(name, value)| {
                let key = Key::parse(name);
                let slot = match (&key, value) {
                    (Key::Role, _) => Slot::Role,
                    (Key::ToolCalls, Value::Array(list)) => match fields::canonical_calls(list) {
                        Ok(calls) => Slot::Calls(calls),
                        Err(list) => Slot::Json(Box::new(Value::Array(list))),
                    },
                    (_, value) => Slot::from_value(value),
                };
                (key, slot)
            })
            .collect();
        Ok(Message {
            role,
            fields,
            costs: Costs::new(),
            origin: None,
        })
    }
}

fn check_tool_calls(role: Role, body: &impl Body) -> Result<(), MessageError> {
    let list = match body.field("tool_calls") {
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

/// A message's fields as read: a JSON object, or its entries in order.
trait Body: IntoIterator<Item = (Self::Name, Value)> {
    /// A field's name as it comes.
    type Name: AsRef<str> + Into<String>;

    /// The value of field `name`.
    fn field(&self, name: &str) -> Option<&Value>;
}

impl Body for Map<String, Value> {
    type Name = String;

    fn field(&self, name: &str) -> Option<&Value> {
        self.get(name)
    }
}

impl<K: AsRef<str> + Into<String>> Body for Vec<(K, Value)> {
    type Name = K;

    fn field(&self, name: &str) -> Option<&Value> {
        self.iter().find(|(k, _)| k.as_ref() == name).map(|(_, v)| v)
    }
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
        let mut map = serializer.serialize_map(Some(self.fields.len()))?;
        for (key, value) in self.entries() {
            map.serialize_entry(key.as_str(), &value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Message::from_value(value).map_err(serde::de::Error::custom)
    }
}
