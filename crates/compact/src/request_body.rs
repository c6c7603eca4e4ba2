//! A request body as `ctxbench compact` reads and writes it, in any of the three wire formats
//! (`wire/`): OpenAI chat completions, Anthropic Messages or OpenAI Responses.
//!
//! Accepts `{"messages": [...], "tools": [...], ...}`, `{"input": [...], ...}` or a bare list.
//! Every other top-level field is kept and written back unchanged, so a compacted body can be
//! sent as is. A chat body is read a message at a time; a body of another format is read into
//! chat messages that remember the piece they came from.

use serde_json::{Map, Value};

use crate::conversation::Conversation;
use crate::error::Error;
use crate::message::{Message, kind};
use crate::pairing::check_pairing;
use crate::wire::{self, CacheMarks, Format, Source};

/// A parsed request body and the shape to write it back in.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestBody {
    /// The conversation, system prompt held apart.
    pub conversation: Conversation,
    /// The top-level object (its `messages` emptied), or `None` for a bare message array.
    rest: Option<Map<String, Value>>,
    /// A body of another format: what writes it back (`rest` is then unused).
    wire: Option<Box<Source>>,
}

impl RequestBody {
    /// Parses a body in the format it shows ([`Format::detect`]'s rules); `source_name` names
    /// the input in errors. Chat messages are read one at a time (no tree of the whole body is
    /// built), so a large history costs about its own size.
    pub fn parse(text: &str, source_name: &str) -> Result<RequestBody, Error> {
        RequestBody::parse_as(text, source_name, None)
    }

    /// Parses a body in `format`, or in the format it shows when `None`.
    pub fn parse_as(text: &str, source_name: &str, format: Option<Format>) -> Result<RequestBody, Error> {
        RequestBody::parse_from(serde_json::Deserializer::from_str(text), source_name, format)
    }

    /// Parses a body as [`RequestBody::parse`] does, read from `reader` as it goes: the text is
    /// never held whole, so a large body costs about its parsed size alone (the same errors, at
    /// the same places). Give it a buffered reader.
    pub fn parse_reader<R: std::io::Read>(reader: R, source_name: &str) -> Result<RequestBody, Error> {
        RequestBody::parse_reader_as(reader, source_name, None)
    }

    /// [`RequestBody::parse_reader`] in `format`, or in the format it shows when `None`.
    pub fn parse_reader_as<R: std::io::Read>(
        reader: R,
        source_name: &str,
        format: Option<Format>,
    ) -> Result<RequestBody, Error> {
        RequestBody::parse_from(serde_json::Deserializer::from_reader(reader), source_name, format)
    }

    /// The body's wire format.
    pub fn format(&self) -> Format {
        self.wire.as_ref().map_or(Format::Chat, |w| w.format())
    }

    fn parse_from<'de, R: serde_json::de::Read<'de>>(
        mut de: serde_json::Deserializer<R>,
        source_name: &str,
        format: Option<Format>,
    ) -> Result<RequestBody, Error> {
        let input = |at: &str, msg: String| Error::Input {
            source_name: source_name.to_owned(),
            at: at.to_owned(),
            msg,
        };
        let read = serde::de::DeserializeSeed::deserialize(BodySeed, &mut de)
            .and_then(|read| de.end().map(|()| read))
            .map_err(|e| Error::json(source_name, &e, "not a request body"))?;
        let (elements, rest) = match read {
            Read::Body { elements, rest } => (elements, rest),
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
        let format = format.unwrap_or_else(|| elements.format(rest.as_ref()));
        let messages = match (format, elements) {
            (Format::Chat, Elements::Messages(messages)) => messages,
            (Format::Chat, Elements::Items(items)) => return Err(not_chat(&items, source_name)),
            (Format::Chat, Elements::Input) => {
                return Err(input(
                    "top level",
                    "a Responses body (\"input\") read as chat; leave out --format chat, or give --format responses"
                        .into(),
                ));
            }
            (foreign, elements) => return RequestBody::read_foreign(foreign, elements, rest, source_name),
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
            wire: None,
        })
    }

    /// Reads an Anthropic or Responses body from what the chat reader found.
    fn read_foreign(
        format: Format,
        elements: Elements,
        mut rest: Option<Map<String, Value>>,
        source_name: &str,
    ) -> Result<RequestBody, Error> {
        let input = |at: &str, msg: String| Error::Input {
            source_name: source_name.to_owned(),
            at: at.to_owned(),
            msg,
        };
        let key = if format == Format::Anthropic {
            "messages"
        } else {
            "input"
        };
        let mut input_string = false;
        let list = match elements {
            Elements::Messages(messages) => {
                if rest.as_ref().is_some_and(|r| !r.contains_key(key)) {
                    return Err(input(
                        "top level",
                        format!("no \"{key}\" in a {format} body; give the --format the body is in, or leave it out"),
                    ));
                }
                messages.into_iter().map(Message::into_value).collect()
            }
            Elements::Items(items) => items,
            Elements::Input => match rest.as_mut().and_then(|r| r.get_mut(key)).map(Value::take) {
                Some(Value::Array(items)) => items,
                Some(text @ Value::String(_)) => {
                    input_string = true;
                    vec![text]
                }
                Some(other) => {
                    return Err(input(
                        "input",
                        format!("expected a string or an array of items, found {}", kind(&other)),
                    ));
                }
                None => {
                    return Err(input(
                        "top level",
                        "no \"messages\" in an Anthropic body; give the --format the body is in, or leave it out"
                            .into(),
                    ));
                }
            },
        };
        let read = wire::read(format, rest, list, input_string, source_name)?;
        check_pairing(&read.messages).map_err(|broken| Error::Pairing {
            source_name: source_name.to_owned(),
            broken,
        })?;
        Ok(RequestBody {
            conversation: Conversation::from_messages(read.messages, read.tools),
            rest: None,
            wire: Some(Box::new(read.source)),
        })
    }

    /// The cache breakpoints the body sets itself (Anthropic's `cache_control` marks), placed in
    /// the conversation as it is now: empty for an Anthropic body that sets none (nothing is
    /// cached), `None` for a body of another format (its provider caches by itself).
    pub fn cache_marks(&self) -> Option<CacheMarks> {
        self.wire.as_ref()?.cache_marks(&self.conversation.messages)
    }

    /// For a body of another wire format: the items of its list (Anthropic `messages`, Responses
    /// `input`) a message of the history came from (several for a Responses assistant turn:
    /// reasoning, text and calls); `None` for the system prompt and for a chat body.
    pub fn wire_items(&self, message: &Message) -> Option<std::ops::Range<usize>> {
        self.wire.as_ref()?.items_of(message)
    }

    /// The body as JSON, in the shape and format it was read, with `messages` (the system prompt
    /// among them, in its place) for its conversation: messages read from this body are written
    /// from the pieces they came from (a prefix of the conversation writes as the prefix of the
    /// body's list, byte for byte); any other is written plainly, as a summary is.
    pub fn write_with<'m>(&self, messages: impl IntoIterator<Item = &'m Message>) -> Value {
        if let Some(source) = &self.wire {
            return source.write(messages.into_iter());
        }
        let messages = Value::Array(messages.into_iter().map(|m| m.clone().into_value()).collect());
        wire::envelope(self.rest.clone(), "messages", messages)
    }

    /// The body as JSON, in the shape and format it was read, with the conversation as it is now.
    pub fn into_value(self) -> Value {
        if let Some(source) = &self.wire {
            return source.write(in_order(&self.conversation));
        }
        let messages = Value::Array(
            self.conversation
                .into_messages()
                .into_iter()
                .map(Message::into_value)
                .collect(),
        );
        wire::envelope(self.rest, "messages", messages)
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
                serializer.collect_seq(in_order(self.0))
            }
        }
        if let Some(source) = &self.wire {
            return source.write(in_order(&self.conversation)).serialize(serializer);
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

/// A conversation's messages in order, the system prompt in its place.
fn in_order(c: &Conversation) -> impl Iterator<Item = &Message> {
    let at = c.system.as_ref().map_or(0, |_| c.system_index.min(c.messages.len()));
    c.messages[..at].iter().chain(c.system.iter()).chain(&c.messages[at..])
}

/// What reading a body found: the body, or the first thing wrong with its shape.
enum Read {
    Body {
        elements: Elements,
        rest: Option<Map<String, Value>>,
    },
    /// Where, and what is wrong.
    Shape(String, String),
    /// A message that is not one: its index and why.
    Message(usize, crate::message::MessageError),
}

/// A body's list as read: chat messages (of a chat or Anthropic body), the items of a bare
/// Responses list, or an `input` left in the top level.
enum Elements {
    Messages(Vec<Message>),
    Items(Vec<Value>),
    Input,
}

impl Elements {
    /// The format the body shows ([`wire::Signs`], the rule [`Format::detect`] follows too).
    fn format(&self, rest: Option<&Map<String, Value>>) -> Format {
        let messages: &[Message] = match self {
            Elements::Messages(messages) => messages,
            Elements::Items(_) | Elements::Input => &[],
        };
        wire::Signs {
            responses: !matches!(self, Elements::Messages(_)),
            system: rest.is_some_and(|r| r.contains_key("system")),
            anthropic_blocks: messages
                .iter()
                .any(|m| m.content().is_some_and(|c| wire::anthropic_content(&c))),
        }
        .format()
    }
}

/// A bare list read as chat that is not: the first item that is no chat message, and why.
fn not_chat(items: &[Value], source_name: &str) -> Error {
    let (at, e) = items
        .iter()
        .enumerate()
        .find_map(|(i, item)| Message::from_value(item.clone()).err().map(|e| (i, e)))
        .unwrap_or((0, crate::message::MessageError::default()));
    Error::Input {
        source_name: source_name.to_owned(),
        at: if e.path.is_empty() {
            format!("messages[{at}]")
        } else {
            format!("messages[{at}].{}", e.path)
        },
        msg: format!("{} (this looks like a Responses input; leave out --format chat)", e.msg),
    }
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
        Ok(match (MessagesVisitor { bare: true }).visit_seq(seq)? {
            Ok(elements) => Read::Body { elements, rest: None },
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
            Some(elements) => Read::Body {
                elements,
                rest: Some(rest),
            },
            None if rest.contains_key("input") => Read::Body {
                elements: Elements::Input,
                rest: Some(rest),
            },
            None => Read::Shape(
                "top level".into(),
                "no \"messages\" or \"input\"; expected a chat or Anthropic body (\"messages\"), a Responses body (\"input\") or a bare list of messages".into(),
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
    type Value = Result<Elements, Read>;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(MessagesVisitor { bare: false })
    }
}

/// Reads a list of messages; a bare list (`bare`) turns into Responses items at the first
/// element that is one and no chat message.
struct MessagesVisitor {
    bare: bool,
}

impl<'de> serde::de::Visitor<'de> for MessagesVisitor {
    type Value = Result<Elements, Read>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array of messages")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut messages = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(value) = seq.next_element::<Value>()? {
            if self.bare && wire::looks_responses(&value) {
                let mut items: Vec<Value> = messages.into_iter().map(Message::into_value).collect();
                items.push(value);
                while let Some(value) = seq.next_element::<Value>()? {
                    items.push(value);
                }
                return Ok(Ok(Elements::Items(items)));
            }
            match Message::from_value(value) {
                Ok(m) => messages.push(m),
                Err(e) => {
                    let at = messages.len();
                    while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                    return Ok(Err(Read::Message(at, e)));
                }
            }
        }
        Ok(Ok(Elements::Messages(messages)))
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
