//! Lengths of a message's JSON object, read from its stored fields: what `chars4` counts, and
//! what a rewrite of the content would make it, without writing the object out.

use crate::json_len::{Dialect, JS, PY, len, plain_len};
use crate::message::{Call, FieldValue, Key, Message};

/// [`crate::json_len::js_len`] of a message's JSON object, read from its stored fields.
#[cfg(test)]
pub(crate) fn js_message_len(message: &Message) -> u64 {
    message_len(message, None, &JS).0
}

/// [`crate::json_len::py_len`] of a message's JSON object.
#[cfg(test)]
pub(crate) fn py_message_len(message: &Message) -> u64 {
    message_len(message, None, &PY).0
}

/// A string content's part of a message's length, found while measuring the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ContentLen {
    /// The string's JSON length, quotes and escapes included.
    pub json: u64,
    /// The text's length in the dialect's characters (UTF-16 units, code points).
    pub chars: u64,
}

/// [`js_message_len`], and the content's part of it when the content is a string (its
/// [`crate::json_len::utf16_len`] as `chars`), found on the way.
pub(crate) fn js_message_len_and_content(message: &Message) -> (u64, Option<ContentLen>) {
    message_len(message, None, &JS)
}

/// [`py_message_len`], and the content's part of it when a string (its [`crate::json_len::code_points`]).
pub(crate) fn py_message_len_and_content(message: &Message) -> (u64, Option<ContentLen>) {
    message_len(message, None, &PY)
}

/// [`js_message_len`] of the message with its `content` set to the string `content` (added at
/// the end when absent), computed from its other fields: the old content is never read.
pub(crate) fn js_message_len_with_content(message: &Message, content: &str) -> u64 {
    message_len(message, Some(content), &JS).0
}

/// [`py_message_len`] of the message with its `content` set to the string `content`.
pub(crate) fn py_message_len_with_content(message: &Message, content: &str) -> u64 {
    message_len(message, Some(content), &PY).0
}

/// The length of the message's object with `content` in place of its own when given; and its
/// own content's part, when that is a string it measured.
fn message_len(message: &Message, content: Option<&str>, d: &Dialect) -> (u64, Option<ContentLen>) {
    let (mut fields, mut inner, mut replaced, mut own) = (0u64, 0u64, false, None);
    for (key, value) in message.entries() {
        let value = match (content, value) {
            (Some(content), _) if *key == Key::Content => {
                replaced = true;
                (d.string)(content)
            }
            (None, FieldValue::Str(text)) if *key == Key::Content => {
                let (json, chars) = (d.string_and_chars)(text);
                own = Some(ContentLen { json, chars });
                json
            }
            (_, value) => field_len(value, d),
        };
        fields += 1;
        let key_len = match key {
            Key::Other(name) => (d.string)(name),
            known => plain_len(known.as_str()),
        };
        inner += key_len + d.key_sep + value;
    }
    if let (Some(content), false) = (content, replaced) {
        fields += 1;
        inner += plain_len("content") + d.key_sep + (d.string)(content);
    }
    (2 + inner + d.item_sep * fields.saturating_sub(1), own)
}

fn field_len(value: FieldValue<'_>, d: &Dialect) -> u64 {
    match value {
        FieldValue::Name(s) => plain_len(s),
        FieldValue::Str(s) => (d.string)(s),
        FieldValue::Json(v) => len(v, d),
        FieldValue::Calls(calls) => {
            let inner: u64 = calls.iter().map(|c| call_len(c, d)).sum();
            2 + inner + d.item_sep * (calls.len().saturating_sub(1) as u64)
        }
    }
}

/// `{"id": …, "type": "function", "function": {"name": …, "arguments": …}}`.
fn call_len(call: &Call, d: &Dialect) -> u64 {
    let entry = |key: &str, value: u64| plain_len(key) + d.key_sep + value;
    let function =
        2 + entry("name", (d.string)(&call.name)) + d.item_sep + entry("arguments", (d.string)(&call.arguments));
    2 + entry("id", (d.string)(&call.id))
        + d.item_sep
        + entry("type", plain_len("function"))
        + d.item_sep
        + entry("function", function)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_len::{js_object_len, py_object_len};

    #[test]
    fn message_lengths_are_those_of_the_written_object() {
        for text in crate::message::tests::SHAPES {
            let m: Message = serde_json::from_str(text).expect("valid");
            let written = serde_json::to_string(&m).expect("serialises");
            assert_eq!(js_message_len(&m), written.encode_utf16().count() as u64, "{text}");
            let object = m.to_map();
            assert_eq!(js_message_len(&m), js_object_len(&object), "{text}");
            assert_eq!(py_message_len(&m), py_object_len(&object), "{text}");
            for content in ["", "new \"text\" é😀"] {
                let mut rewritten = m.clone();
                rewritten.set_content(content.to_owned());
                assert_eq!(
                    js_message_len_with_content(&m, content),
                    js_message_len(&rewritten),
                    "{text}"
                );
                assert_eq!(
                    py_message_len_with_content(&m, content),
                    py_message_len(&rewritten),
                    "{text}"
                );
            }
        }
    }
}
