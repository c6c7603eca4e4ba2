//! How a message stores its fields: in their order, the names ctxbench reads without a heap
//! string, the role as the parsed `Role`, and tool calls in OpenAI's canonical shape as three
//! strings each. A support agent's history is then about a third as many allocations as the
//! same JSON in `serde_json` maps (measured with DHAT), and reading a message touches far less
//! memory.
//!
//! Anything else (unknown fields, calls in another shape, parts) stays a `serde_json::Value`,
//! so every message still writes back exactly as it was read.

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use super::ToolCall;

/// A field's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Key {
    Role,
    Content,
    ToolCalls,
    ToolCallId,
    Name,
    Other(Box<str>),
}

impl Key {
    pub(crate) fn parse(name: impl AsRef<str> + Into<String>) -> Key {
        match name.as_ref() {
            "role" => Key::Role,
            "content" => Key::Content,
            "tool_calls" => Key::ToolCalls,
            "tool_call_id" => Key::ToolCallId,
            "name" => Key::Name,
            _ => Key::Other(name.into().into_boxed_str()),
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        match self {
            Key::Role => "role",
            Key::Content => "content",
            Key::ToolCalls => "tool_calls",
            Key::ToolCallId => "tool_call_id",
            Key::Name => "name",
            Key::Other(name) => name,
        }
    }
}

/// A field's value as stored.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Slot {
    /// The role's value: the message's [`Role`](super::Role).
    Role,
    /// A JSON string: most contents, ids and names. A third of a `Value`'s 72 bytes, and a
    /// message's fields are read in every pass over a history.
    Str(String),
    /// `tool_calls` in the canonical shape.
    Calls(Vec<Call>),
    /// Any other JSON value, verbatim (boxed, as it is rare).
    Json(Box<Value>),
}

impl Slot {
    /// A JSON value as stored: a string as [`Slot::Str`].
    pub(crate) fn from_value(value: Value) -> Slot {
        match value {
            Value::String(s) => Slot::Str(s),
            other => Slot::Json(Box::new(other)),
        }
    }

    /// The JSON value stored; `None` for the role and canonical calls, which are not.
    pub(crate) fn into_value(self) -> Option<Value> {
        match self {
            Slot::Str(s) => Some(Value::String(s)),
            Slot::Json(value) => Some(*value),
            Slot::Role | Slot::Calls(_) => None,
        }
    }
}

/// A tool call written `{"id": …, "type": "function", "function": {"name": …, "arguments": …}}`,
/// with these keys in this order and nothing else: the shape every API and agent writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Call {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) arguments: String,
}

impl Call {
    pub(crate) fn view(&self) -> ToolCall<'_> {
        ToolCall {
            id: &self.id,
            name: &self.name,
            arguments: &self.arguments,
        }
    }
}

/// A field's value as read: what a JSON writer or a length needs.
#[derive(Clone, Copy, Debug)]
pub(crate) enum FieldValue<'a> {
    /// A name written as a JSON string, plain ASCII with nothing to escape (the role).
    Name(&'static str),
    /// Any other string.
    Str(&'a str),
    /// Canonical tool calls.
    Calls(&'a [Call]),
    /// Any JSON value.
    Json(&'a Value),
}

/// The calls of a `tool_calls` array when every one is canonical (and the array is not empty),
/// their strings moved out of it; else the array, untouched.
pub(crate) fn canonical_calls(list: Vec<Value>) -> Result<Vec<Call>, Vec<Value>> {
    if list.is_empty() || !list.iter().all(|call| parts(call).is_some()) {
        return Err(list);
    }
    // Checked: each is canonical, so its strings move into the call, none copied.
    Ok(list.into_iter().filter_map(into_call).collect())
}

/// A canonical call's id, name and arguments; `None` when it is not canonical.
fn parts(call: &Value) -> Option<(&str, &str, &str)> {
    let call = call.as_object()?;
    let mut fields = call.iter();
    let (Some(("id", id)), Some(("type", kind)), Some(("function", function)), None) = (
        fields.next().map(|(k, v)| (k.as_str(), v)),
        fields.next().map(|(k, v)| (k.as_str(), v)),
        fields.next().map(|(k, v)| (k.as_str(), v)),
        fields.next(),
    ) else {
        return None;
    };
    let function = function.as_object()?;
    let mut inner = function.iter();
    let (Some(("name", name)), Some(("arguments", arguments)), None) = (
        inner.next().map(|(k, v)| (k.as_str(), v)),
        inner.next().map(|(k, v)| (k.as_str(), v)),
        inner.next(),
    ) else {
        return None;
    };
    (kind.as_str() == Some("function")).then_some(())?;
    Some((id.as_str()?, name.as_str()?, arguments.as_str()?))
}

/// A canonical call ([`parts`] says it is one) as a [`Call`], its strings moved.
fn into_call(call: Value) -> Option<Call> {
    let Value::Object(call) = call else {
        return None;
    };
    let mut fields = call.into_iter();
    let (Some((_, Value::String(id))), _, Some((_, Value::Object(function)))) =
        (fields.next(), fields.next(), fields.next())
    else {
        return None;
    };
    let mut inner = function.into_iter();
    let (Some((_, Value::String(name))), Some((_, Value::String(arguments)))) = (inner.next(), inner.next()) else {
        return None;
    };
    Some(Call { id, name, arguments })
}

/// Canonical calls as the JSON array they stand for.
fn calls_value(calls: &[Call]) -> Value {
    Value::Array(
        calls
            .iter()
            .map(|c| {
                let mut function = Map::new();
                function.insert("name".into(), Value::String(c.name.clone()));
                function.insert("arguments".into(), Value::String(c.arguments.clone()));
                let mut call = Map::new();
                call.insert("id".into(), Value::String(c.id.clone()));
                call.insert("type".into(), Value::String("function".into()));
                call.insert("function".into(), Value::Object(function));
                Value::Object(call)
            })
            .collect(),
    )
}

impl FieldValue<'_> {
    /// The value as a `serde_json::Value` (a copy).
    pub(crate) fn to_value(self) -> Value {
        match self {
            FieldValue::Name(s) | FieldValue::Str(s) => Value::String(s.to_owned()),
            FieldValue::Calls(calls) => calls_value(calls),
            FieldValue::Json(v) => v.clone(),
        }
    }
}

impl Serialize for FieldValue<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match *self {
            FieldValue::Name(s) | FieldValue::Str(s) => serializer.serialize_str(s),
            FieldValue::Json(v) => v.serialize(serializer),
            FieldValue::Calls(calls) => {
                let mut seq = serializer.serialize_seq(Some(calls.len()))?;
                for call in calls {
                    seq.serialize_element(&CallJson(call))?;
                }
                seq.end()
            }
        }
    }
}

struct CallJson<'a>(&'a Call);
struct FunctionJson<'a>(&'a Call);

impl Serialize for CallJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("id", &self.0.id)?;
        map.serialize_entry("type", "function")?;
        map.serialize_entry("function", &FunctionJson(self.0))?;
        map.end()
    }
}

impl Serialize for FunctionJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("name", &self.0.name)?;
        map.serialize_entry("arguments", &self.0.arguments)?;
        map.end()
    }
}
