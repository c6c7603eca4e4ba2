//! One chat message in OpenAI's chat-completions wire format.
//!
//! A [`Message`] keeps the JSON object it was read from, key order included, so that unknown
//! fields, `null` versus absent, and the raw `arguments` string survive a round trip verbatim.
//! It stores it compactly (`message/fields.rs`): the role parsed, known names without heap
//! strings, tool calls in the canonical shape as plain strings. How one is read and checked is
//! `message/read.rs`.
//!
//! Invariant: every `Message` has passed [`Message::from_value`]'s checks, so the accessors
//! never meet a malformed `tool_calls` entry or a tool result without a `tool_call_id`.

use std::borrow::Cow;

use serde_json::{Map, Value};

mod fields;
mod read;

use fields::Slot;
pub(crate) use fields::{Call, FieldValue, Key};
pub use read::MessageError;
use read::invalid;
pub(crate) use read::kind;

use crate::costs::{Costs, FINGERPRINT, TEXT_CODE_POINTS, TEXT_UTF16};
use crate::json_len::{code_points, utf16_len};

/// What a ctxbench summary message starts with; such a user message is not a request (nor are
/// the summaries of the compactors people run, [`crate::summaries`]).
pub const SUMMARY_PREFIX: &str = crate::summaries::CTXBENCH;

crate::named! {
    /// Who wrote a message (its wire name).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Role {
        /// Instructions from the application; the first one is the system prompt.
        System = "system",
        /// OpenAI's newer name for system instructions; treated as `system`.
        Developer = "developer",
        /// The person; each user message opens a request.
        User = "user",
        /// The model: text, tool calls, or both.
        Assistant = "assistant",
        /// A tool's result, answering one tool call by its id.
        Tool = "tool",
    }
}

impl Role {
    /// `system` or `developer`: instructions, never removed or rewritten by a strategy.
    pub fn is_instruction(self) -> bool {
        matches!(self, Role::System | Role::Developer)
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
    fields: Vec<(Key, Slot)>,
    costs: Costs,
    /// A mark that stays with the message through compaction ([`Message::mark`]): where a
    /// message read from another wire format came from (an index into its body's pieces,
    /// `wire/`), or an embedding program's own number for a chat message.
    origin: Option<u32>,
}

/// Two messages are equal when they have the same fields, whatever their order (inside a field,
/// order counts, as in the JSON text).
impl PartialEq for Message {
    fn eq(&self, other: &Message) -> bool {
        self.role == other.role
            && self.fields.len() == other.fields.len()
            && self.fields.iter().all(|(k, v)| other.slot(k) == Some(v))
    }
}

impl Message {
    fn with_fields(role: Role, fields: Vec<(Key, Slot)>) -> Message {
        Message {
            role,
            fields,
            costs: Costs::new(),
            origin: None,
        }
    }

    /// A message with a role and a string content.
    pub fn new(role: Role, content: impl Into<String>) -> Message {
        Message::with_fields(
            role,
            vec![(Key::Role, Slot::Role), (Key::Content, Slot::Str(content.into()))],
        )
    }

    /// A tool result answering `tool_call_id`.
    pub fn tool_result(tool_call_id: impl Into<String>, content: impl Into<String>) -> Message {
        Message::tool_result_as(tool_call_id, None, Some(content.into()))
    }

    /// A tool result, written `{"role":"tool","tool_call_id":…,"name":…,"content":…}` with the
    /// tool's `name` when given (as some agents send it) and `content: null` for `None`.
    pub fn tool_result_as(tool_call_id: impl Into<String>, name: Option<&str>, content: Option<String>) -> Message {
        let mut fields = Vec::with_capacity(4);
        fields.push((Key::Role, Slot::Role));
        fields.push((Key::ToolCallId, Slot::Str(tool_call_id.into())));
        if let Some(name) = name {
            fields.push((Key::Name, Slot::Str(name.into())));
        }
        fields.push((
            Key::Content,
            content.map_or(Slot::Json(Box::new(Value::Null)), Slot::Str),
        ));
        Message::with_fields(Role::Tool, fields)
    }

    /// An assistant message with `content: null` and the given calls (`id`, `name`, `arguments`).
    pub fn assistant_calls<'a>(calls: impl IntoIterator<Item = ToolCall<'a>>) -> Message {
        let calls: Vec<Call> = calls
            .into_iter()
            .map(|c| Call {
                id: c.id.to_owned(),
                name: c.name.to_owned(),
                arguments: c.arguments.to_owned(),
            })
            .collect();
        let calls = if calls.is_empty() {
            Slot::Json(Box::new(Value::Array(Vec::new())))
        } else {
            Slot::Calls(calls)
        };
        Message::with_fields(
            Role::Assistant,
            vec![
                (Key::Role, Slot::Role),
                (Key::Content, Slot::Json(Box::new(Value::Null))),
                (Key::ToolCalls, calls),
            ],
        )
    }

    /// A field's stored value.
    fn slot(&self, key: &Key) -> Option<&Slot> {
        self.fields.iter().find_map(|(k, v)| (k == key).then_some(v))
    }

    /// A field's value when it is a string.
    fn str_field(&self, key: Key) -> Option<&str> {
        match self.slot(&key)? {
            Slot::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Sets `content` in its place (at the end when absent), returning what it held.
    fn put_content(&mut self, content: Slot) -> Option<Value> {
        match self.fields.iter_mut().find(|(k, _)| *k == Key::Content) {
            Some((_, slot)) => std::mem::replace(slot, content).into_value(),
            None => {
                self.fields.push((Key::Content, content));
                None
            }
        }
    }

    /// An assistant message's `tool_calls`, set to these calls (each its id, function name and
    /// arguments) written canonically, `{"id", "type": "function", "function": {"name",
    /// "arguments"}}`, in the field's place (after the others when absent): the message is then
    /// the one [`Message::from_value`] makes of the same fields. For a reader that has a call's
    /// three strings before any JSON of it (the Python package). No calls: an empty array.
    pub fn set_tool_calls(
        &mut self,
        calls: impl IntoIterator<Item = (String, String, String)>,
    ) -> Result<(), MessageError> {
        let calls: Vec<Call> = calls
            .into_iter()
            .map(|(id, name, arguments)| Call { id, name, arguments })
            .collect();
        if self.role != Role::Assistant && !calls.is_empty() {
            return Err(invalid(
                "tool_calls",
                format!("only assistant messages make tool calls, not {}", self.role),
            ));
        }
        let slot = if calls.is_empty() {
            Slot::Json(Box::new(Value::Array(Vec::new())))
        } else {
            Slot::Calls(calls)
        };
        self.costs.forget();
        match self.fields.iter_mut().find(|(k, _)| *k == Key::ToolCalls) {
            Some((_, old)) => *old = slot,
            None => self.fields.push((Key::ToolCalls, slot)),
        }
        Ok(())
    }

    /// Whether the message has a field of this name.
    pub fn has_field(&self, name: &str) -> bool {
        self.fields.iter().any(|(k, _)| k.as_str() == name)
    }

    /// Removes the field of this name (never `role`); says whether there was one. What the
    /// message cost is forgotten.
    pub fn remove_field(&mut self, name: &str) -> bool {
        let before = self.fields.len();
        self.fields.retain(|(k, _)| *k == Key::Role || k.as_str() != name);
        let removed = self.fields.len() < before;
        if removed {
            self.costs.forget();
        }
        removed
    }

    /// The fields in order, as a JSON writer or a length reads them.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (&Key, FieldValue<'_>)> {
        self.fields.iter().map(|(k, v)| {
            let value = match v {
                Slot::Role => FieldValue::Name(self.role.as_str()),
                Slot::Str(s) => FieldValue::Str(s),
                Slot::Calls(calls) => FieldValue::Calls(calls),
                Slot::Json(value) => FieldValue::Json(value),
            };
            (k, value)
        })
    }

    /// Where the message came from in a body of another wire format (`wire/`).
    pub(crate) fn origin(&self) -> Option<u32> {
        self.origin
    }

    /// The message as a new one, its mark gone: written as itself, not as what it came from.
    pub(crate) fn detached(mut self) -> Message {
        self.origin = None;
        self
    }

    /// The message, marked as coming from piece `origin` of a body of another wire format.
    pub(crate) fn with_origin(mut self, origin: u32) -> Message {
        self.origin = Some(origin);
        self
    }

    /// The mark given with [`Message::with_mark`]: it stays with the message through compaction
    /// (a rewrite keeps it, a drop takes it away with the message, a summary has none), so a
    /// program finds each kept message's source again (the Python package returns the caller's
    /// own objects this way). Never counted, compared or written.
    pub fn mark(&self) -> Option<u32> {
        self.origin
    }

    /// The chat message, marked with `mark` ([`Message::mark`]). A message of a body read from
    /// another wire format carries the body's own marks: mark only messages you built.
    pub fn with_mark(self, mark: u32) -> Message {
        self.with_origin(mark)
    }

    /// The role.
    pub fn role(&self) -> Role {
        self.role
    }

    /// The `content` field as written: `None` when absent, `Some(Value::Null)` when `null`.
    /// A string is copied into a `Value` (see [`Message::content_str`] to borrow it).
    pub fn content(&self) -> Option<Cow<'_, Value>> {
        match self.slot(&Key::Content)? {
            Slot::Str(s) => Some(Cow::Owned(Value::String(s.clone()))),
            Slot::Json(value) => Some(Cow::Borrowed(value)),
            Slot::Role | Slot::Calls(_) => None,
        }
    }

    /// Whether the content is absent or `null`; [`Message::content`] without the copy.
    pub fn content_is_null(&self) -> bool {
        match self.slot(&Key::Content) {
            None => true,
            Some(Slot::Json(value)) => value.is_null(),
            Some(_) => false,
        }
    }

    /// Whether two messages have the same `content`; [`Message::content`] without the copies.
    /// A string is always stored as `Slot::Str`, so equal contents are equal slots.
    pub fn same_content(&self, other: &Message) -> bool {
        self.slot(&Key::Content) == other.slot(&Key::Content)
    }

    /// Whether this message opens a request: a user message that is not a summary, nor what a
    /// compaction brought back with one ([`crate::summaries::not_the_users`]).
    pub fn is_request(&self) -> bool {
        self.role == Role::User && !self.content_str().is_some_and(crate::summaries::not_the_users)
    }

    /// The content when it is a plain string.
    pub fn content_str(&self) -> Option<&str> {
        self.str_field(Key::Content)
    }

    /// The content's text: the string, the concatenated `text` of its parts, or `""`.
    pub fn text(&self) -> Cow<'_, str> {
        match self.slot(&Key::Content) {
            Some(Slot::Str(s)) => Cow::Borrowed(s),
            Some(Slot::Json(value)) => match value.as_array() {
                Some(parts) => Cow::Owned(
                    parts
                        .iter()
                        .filter_map(|part| part.get("text").and_then(Value::as_str))
                        .collect(),
                ),
                None => Cow::Borrowed(""),
            },
            _ => Cow::Borrowed(""),
        }
    }

    /// Replaces the content by a string, keeping the field's place among the others.
    pub fn set_content(&mut self, content: String) {
        self.costs.forget();
        self.put_content(Slot::Str(content));
    }

    /// The cost a counter found for this message (in its `slot`), computing it the first time.
    pub(crate) fn cost(&self, slot: usize, compute: impl FnOnce() -> u64) -> u64 {
        self.costs.get(slot, compute)
    }

    /// The cost a counter found in its `slot`, if it counted the message since it last changed.
    pub(crate) fn known_cost(&self, slot: usize) -> Option<u64> {
        self.costs.known(slot)
    }

    /// A 64-bit hash of the message's canonical JSON (its fields in their order, written
    /// compactly): equal messages have equal fingerprints. Computed once, and again after the
    /// content changes; what a prefix cache keys a message on.
    pub fn fingerprint(&self) -> u64 {
        self.costs.get_wide(FINGERPRINT, || crate::costs::fingerprint_of(self))
    }

    /// The length of [`Message::text`] in UTF-16 units, remembered like a cost; `chars4` notes it
    /// while counting the message, so a note's `N chars` does not read the text again.
    pub(crate) fn text_utf16_len(&self) -> u64 {
        self.cost(TEXT_UTF16, || utf16_len(&self.text()))
    }

    /// The length of [`Message::text`] in code points, as [`Message::text_utf16_len`].
    pub(crate) fn text_code_points(&self) -> u64 {
        self.cost(TEXT_CODE_POINTS, || code_points(&self.text()))
    }

    /// Sets the content, returning the field as it was (`None` when absent), for
    /// [`Message::restore_content`].
    pub fn replace_content(&mut self, content: Value) -> Option<Value> {
        self.costs.forget();
        self.put_content(Slot::from_value(content))
    }

    /// Puts back what [`Message::replace_content`] returned, absent included.
    pub fn restore_content(&mut self, old: Option<Value>) {
        self.costs.forget();
        match old {
            Some(value) => {
                self.put_content(Slot::from_value(value));
            }
            None => self.fields.retain(|(k, _)| *k != Key::Content),
        }
    }

    /// The tool calls of an assistant message, in order; empty when there are none.
    pub fn calls(&self) -> impl Iterator<Item = ToolCall<'_>> {
        let (canonical, other): (&[Call], &[Value]) = match self.slot(&Key::ToolCalls) {
            Some(Slot::Calls(calls)) => (calls, &[]),
            Some(Slot::Json(value)) => (&[], value.as_array().map_or(&[][..], Vec::as_slice)),
            _ => (&[], &[]),
        };
        canonical.iter().map(Call::view).chain(other.iter().filter_map(|call| {
            let call = call.as_object()?;
            let function = member(call, "function")?.as_object()?;
            Some(ToolCall {
                id: member(call, "id")?.as_str()?,
                name: member(function, "name")?.as_str()?,
                arguments: member(function, "arguments")?.as_str()?,
            })
        }))
    }

    /// Whether this is an assistant message with at least one tool call.
    pub fn has_calls(&self) -> bool {
        self.calls().next().is_some()
    }

    /// The id a tool result answers.
    pub fn tool_call_id(&self) -> Option<&str> {
        self.str_field(Key::ToolCallId)
    }

    /// The optional `name` field (a tool result's tool, or a participant's name).
    pub fn name(&self) -> Option<&str> {
        self.str_field(Key::Name)
    }

    /// The whole JSON object, as it will be written (a copy).
    pub fn to_map(&self) -> Map<String, Value> {
        self.entries()
            .map(|(k, v)| (k.as_str().to_owned(), v.to_value()))
            .collect()
    }

    /// The JSON object.
    pub fn into_value(self) -> Value {
        Value::Object(self.to_map())
    }
}

/// A member of a JSON object, found by walking its few fields: cheaper than hashing the key.
fn member<'v>(object: &'v Map<String, Value>, key: &str) -> Option<&'v Value> {
    object.iter().find_map(|(k, v)| (k == key).then_some(v))
}

#[cfg(test)]
pub(crate) mod tests;
