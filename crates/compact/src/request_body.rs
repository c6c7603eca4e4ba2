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
    /// Parses a body; `source_name` names the input in errors. Messages are read one at a time
    /// (no tree of the whole body is built), so a large history costs about its own size.
    pub fn parse(text: &str, source_name: &str) -> Result<RequestBody, Error> {
        RequestBody::parse_from(serde_json::Deserializer::from_str(text), source_name)
    }

    /// Parses a body as [`RequestBody::parse`] does, read from `reader` as it goes: the text is
    /// never held whole, so a large body costs about its parsed size alone (the same errors, at
    /// the same places). Give it a buffered reader.
    pub fn parse_reader<R: std::io::Read>(reader: R, source_name: &str) -> Result<RequestBody, Error> {
        RequestBody::parse_from(serde_json::Deserializer::from_reader(reader), source_name)
    }

    fn parse_from<'de, R: serde_json::de::Read<'de>>(
        mut de: serde_json::Deserializer<R>,
        source_name: &str,
    ) -> Result<RequestBody, Error> {
        let input = |at: &str, msg: String| Error::Input {
            source_name: source_name.to_owned(),
            at: at.to_owned(),
            msg,
        };
        let read = serde::de::DeserializeSeed::deserialize(BodySeed, &mut de)
            .and_then(|read| de.end().map(|()| read))
            .map_err(|e| Error::json(source_name, &e, "not a request body"))?;
        let (messages, rest) = match read {
            Read::Body { messages, rest } => (messages, rest),
            Read::Shape(at, msg) => return Err(input(&at, msg)),
            Read::Message(i, e) => {
                let at = if e.path.is_empty() {
                    format!("messages[{i}]")
                } else {
                    format!("messages[{i}].{}", e.path)
                };
                return Err(input(&at, e.msg));
            }
        };
        let tools = match rest.as_ref().and_then(|map| map.get("tools")) {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(tools)) => tools.clone(),
            Some(other) => {
                return Err(input("tools", format!("expected an array, found {}", kind(other))));
            }
        };
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

    /// Writes the body as [`RequestBody::into_value`] would give it, pretty-printed, straight to
    /// `out`: no copy of the body is built on the way.
    pub fn write_pretty<W: std::io::Write>(&self, out: W) -> Result<(), serde_json::Error> {
        serde_json::to_writer_pretty(out, self)
    }
}

impl serde::Serialize for RequestBody {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        /// The messages in order, the system prompt in its place.
        struct Messages<'a>(&'a Conversation);
        impl serde::Serialize for Messages<'_> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let c = self.0;
                let at = c.system.as_ref().map(|_| c.system_index.min(c.messages.len()));
                serializer.collect_seq(
                    c.messages[..at.unwrap_or(0)]
                        .iter()
                        .chain(c.system.iter())
                        .chain(&c.messages[at.unwrap_or(0)..]),
                )
            }
        }
        let messages = Messages(&self.conversation);
        match &self.rest {
            None => messages.serialize(serializer),
            Some(rest) => {
                let mut map = serializer.serialize_map(Some(rest.len()))?;
                for (key, value) in rest {
                    if key == "messages" {
                        map.serialize_entry(key, &messages)?;
                    } else {
                        map.serialize_entry(key, value)?;
                    }
                }
                map.end()
            }
        }
    }
}

/// What reading a body found: the body, or the first thing wrong with its shape.
enum Read {
    Body {
        messages: Vec<Message>,
        rest: Option<Map<String, Value>>,
    },
    /// Where, and what is wrong.
    Shape(String, String),
    /// A message that is not one: its index and why.
    Message(usize, crate::message::MessageError),
}

/// Reads a body: a message array, or an object whose `messages` are read one at a time.
struct BodySeed;

impl<'de> serde::de::DeserializeSeed<'de> for BodySeed {
    type Value = Read;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Read, D::Error> {
        deserializer.deserialize_any(BodyVisitor)
    }
}

struct BodyVisitor;

impl<'de> serde::de::Visitor<'de> for BodyVisitor {
    type Value = Read;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a request body object or a message array")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Read, A::Error> {
        Ok(match MessagesVisitor.visit_seq(seq)? {
            Ok(messages) => Read::Body { messages, rest: None },
            Err(bad) => bad,
        })
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Read, A::Error> {
        let mut rest = Map::new();
        let mut messages = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "messages" && messages.is_none() {
                match map.next_value_seed(MessagesSeed)? {
                    Ok(list) => messages = Some(list),
                    Err(bad) => {
                        // The rest is not read: the first problem is the one reported.
                        while map
                            .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                            .is_some()
                        {}
                        return Ok(bad);
                    }
                }
                // Left as `[]` so that it is written back where it was.
                rest.insert(key, Value::Array(Vec::new()));
            } else {
                rest.insert(key, map.next_value()?);
            }
        }
        Ok(match messages {
            Some(messages) => Read::Body {
                messages,
                rest: Some(rest),
            },
            None => Read::Shape(
                "top level".into(),
                "no \"messages\" array; expected a chat request body or a bare array of messages".into(),
            ),
        })
    }

    fn visit_bool<E>(self, _: bool) -> Result<Read, E> {
        Ok(top_level("a boolean"))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Read, E> {
        Ok(top_level("a number"))
    }
    fn visit_u64<E>(self, _: u64) -> Result<Read, E> {
        Ok(top_level("a number"))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Read, E> {
        Ok(top_level("a number"))
    }
    fn visit_str<E>(self, _: &str) -> Result<Read, E> {
        Ok(top_level("a string"))
    }
    fn visit_unit<E>(self) -> Result<Read, E> {
        Ok(top_level("null"))
    }
}

fn top_level(found: &str) -> Read {
    Read::Shape(
        "top level".into(),
        format!("expected a request body object or a message array, found {found}"),
    )
}

/// Reads `messages`: an array, each element made a [`Message`] as soon as it is read.
struct MessagesSeed;

impl<'de> serde::de::DeserializeSeed<'de> for MessagesSeed {
    type Value = Result<Vec<Message>, Read>;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(MessagesVisitor)
    }
}

struct MessagesVisitor;

impl<'de> serde::de::Visitor<'de> for MessagesVisitor {
    type Value = Result<Vec<Message>, Read>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array of messages")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut messages = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(value) = seq.next_element::<Value>()? {
            match Message::from_value(value) {
                Ok(m) => messages.push(m),
                Err(e) => {
                    let at = messages.len();
                    while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                    return Ok(Err(Read::Message(at, e)));
                }
            }
        }
        Ok(Ok(messages))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map
            .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
            .is_some()
        {}
        Ok(Err(not_an_array("an object")))
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Err(not_an_array("a boolean")))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Err(not_an_array("a number")))
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Err(not_an_array("a number")))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Err(not_an_array("a number")))
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Err(not_an_array("a string")))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Err(not_an_array("null")))
    }
}

fn not_an_array(found: &str) -> Read {
    Read::Shape("messages".into(), format!("expected an array, found {found}"))
}
