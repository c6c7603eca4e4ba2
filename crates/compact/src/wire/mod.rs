//! The three wire formats a body may come in: OpenAI chat completions, Anthropic Messages and
//! OpenAI Responses. One model inside: a body of another format is read into chat [`Message`]s
//! (what every strategy and counter works on), each marked with the piece of the body it came
//! from, and written back from those pieces, so that what no stage touched is written exactly as
//! it was read (unknown fields, block order, `cache_control` marks, thinking signatures).
//!
//! How the formats map onto the one model:
//! - Anthropic (`anthropic.rs`): an assistant message is one assistant message, its `tool_use`
//!   blocks its calls (arguments: the compact JSON of `input`), the text of its `text` and
//!   `thinking` blocks its content; a user message is its `tool_result` blocks (one tool result
//!   each) and its runs of other blocks (one user message each); the top-level `system` is the
//!   system prompt.
//! - Responses (`responses.rs`): a user, system or developer message item is one message; a
//!   `*_call_output` item one tool result; every run of other items (reasoning, assistant
//!   messages, calls) one assistant message, so a reasoning item never leaves its call; the
//!   top-level `instructions` is the system prompt.
//!
//! Each format's own pairing rules are checked on the wire form ([`check`]), where the places in
//! errors are the user's (`messages[3].content[1]`).

mod anthropic;
mod convert;
mod marks;
mod opaque;
mod responses;

pub use convert::body_from_chat;
pub use marks::CacheMarks;

use serde_json::{Map, Value};

use crate::error::Error;
use crate::message::{Message, Role, kind};

crate::named! {
    /// A request body's wire format, by its name on the command line.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Format {
        /// OpenAI chat completions: `messages` with `tool_calls` and `tool` results.
        Chat = "chat",
        /// Anthropic Messages: `system`, `messages` of content blocks, `tool_use` / `tool_result`.
        Anthropic = "anthropic",
        /// OpenAI Responses: `instructions`, `input` items, `function_call` / `function_call_output`.
        Responses = "responses",
    }
}

impl Format {
    /// The format as its makers call it: "OpenAI chat completions", "Anthropic Messages",
    /// "OpenAI Responses".
    pub fn title(self) -> &'static str {
        match self {
            Format::Chat => "OpenAI chat completions",
            Format::Anthropic => "Anthropic Messages",
            Format::Responses => "OpenAI Responses",
        }
    }

    /// The top-level key of the body's list: `messages`, or Responses' `input`.
    pub fn list_key(self) -> &'static str {
        match self {
            Format::Chat | Format::Anthropic => "messages",
            Format::Responses => "input",
        }
    }

    /// Whether exact counts of this format are o200k's approximation (ctxbench has no
    /// Anthropic tokenizer): every place that shows them says so.
    pub fn counts_approximate(self) -> bool {
        self == Format::Anthropic
    }

    /// The format of a parsed body: Responses when its list is one (an `input` and no
    /// `messages`, or a bare list holding an item with a `type`); else Anthropic when it has a
    /// top-level `system` or content blocks only Anthropic has (`tool_use`, `tool_result`,
    /// `thinking`, `image`, …); else chat. The same rule reads a body a message at a time.
    pub fn detect(body: &Value) -> Format {
        let (list, top) = match body {
            Value::Object(map) => (map.get("messages").and_then(Value::as_array), Some(map)),
            Value::Array(items) => (Some(items), None),
            _ => (None, None),
        };
        Signs {
            responses: match top {
                Some(map) => !map.contains_key("messages") && map.contains_key("input"),
                None => list.is_some_and(|items| items.iter().any(looks_responses)),
            },
            system: top.is_some_and(|map| map.contains_key("system")),
            anthropic_blocks: list.is_some_and(|items| items.iter().any(looks_anthropic)),
        }
        .format()
    }
}

/// What a body shows of its format. The one rule of detection, whether the body was read whole
/// ([`Format::detect`]) or a message at a time ([`crate::RequestBody::parse`]).
pub(crate) struct Signs {
    /// A top-level `input` and no `messages`, or a bare list holding an item with a `type`
    /// (which no chat message has).
    pub responses: bool,
    /// A top-level `system`.
    pub system: bool,
    /// A message holding content blocks only Anthropic has (`tool_use`, `tool_result`,
    /// `thinking`, `image`, …).
    pub anthropic_blocks: bool,
}

impl Signs {
    /// Responses when its list is one; else Anthropic when it has a top-level `system` or
    /// Anthropic's blocks; else chat.
    pub fn format(&self) -> Format {
        if self.responses {
            Format::Responses
        } else if self.system || self.anthropic_blocks {
            Format::Anthropic
        } else {
            Format::Chat
        }
    }
}

/// Content block types that only Anthropic's messages have.
const ANTHROPIC_BLOCKS: [&str; 7] = [
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
    "image",
    "document",
    "server_tool_use",
];

/// Whether a message holds a content block only Anthropic has.
fn looks_anthropic(message: &Value) -> bool {
    message.get("content").is_some_and(anthropic_content)
}

/// Whether a message's content holds a block only Anthropic has.
pub(crate) fn anthropic_content(content: &Value) -> bool {
    content.as_array().is_some_and(|blocks| {
        blocks.iter().any(|b| {
            b.get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| ANTHROPIC_BLOCKS.contains(&t))
        })
    })
}

/// Whether a value is a Responses input item rather than a chat message: it has a `type`
/// (`message`, `function_call`, …), which chat messages do not.
pub(crate) fn looks_responses(item: &Value) -> bool {
    item.get("type").is_some_and(Value::is_string)
}

/// Where a body breaks its format's rules, in the user's terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleError {
    /// The place (`messages[3].content[1]`, `input[7]`).
    pub at: String,
    /// What is wrong, and the rule.
    pub msg: String,
}

impl RuleError {
    fn new(at: impl Into<String>, msg: impl Into<String>) -> RuleError {
        RuleError {
            at: at.into(),
            msg: msg.into(),
        }
    }
}

/// Checks a list of Anthropic messages or Responses items against the format's pairing rules
/// ([`docs/formats.md`](../../../docs/formats.md)); returns how many calls of the last turn wait for results. Chat messages are
/// checked by [`crate::check_pairing`].
pub fn check(format: Format, list: &[Value]) -> Result<usize, RuleError> {
    match format {
        Format::Chat => Ok(0),
        Format::Anthropic => anthropic::check(list),
        Format::Responses => responses::check(list),
    }
}

/// One piece of a body of another format, which one chat message stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Piece {
    /// The top-level system prompt (`system`, `instructions`), written back from the body.
    System,
    /// Item `item` whole (an Anthropic message with a string content or only assistant blocks).
    Whole { item: u32 },
    /// Blocks `first..first + count` of Anthropic message `item`; `joined` when the message
    /// holds their text: a `tool_result` whose content was an array of text blocks, or a run of
    /// user text blocks.
    Blocks {
        item: u32,
        first: u32,
        count: u32,
        joined: bool,
    },
    /// Responses items `first..first + count`.
    Items { first: u32, count: u32 },
}

/// What a body of another format needs to be written back: its top level and its list as read,
/// and the piece each message stands for.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Source {
    format: Format,
    /// The top-level object (the list's key holds `null`), `None` for a bare list.
    rest: Option<Map<String, Value>>,
    /// Anthropic's `messages` or Responses' `input` items, as read.
    items: Vec<Value>,
    pieces: Vec<Piece>,
    /// Responses' `input` was a string (its one message).
    input_string: bool,
}

/// A body of another format, read: the chat messages (system prompt first, when there is one),
/// the tools in chat's shape (for counting), and what writes it back.
pub(crate) struct Read {
    pub messages: Vec<Message>,
    pub tools: Vec<Value>,
    pub source: Source,
}

/// Builds chat messages, each marked with its piece.
struct Builder {
    messages: Vec<Message>,
    pieces: Vec<Piece>,
}

impl Builder {
    fn new() -> Builder {
        Builder {
            messages: Vec::new(),
            pieces: Vec::new(),
        }
    }

    fn push(&mut self, message: Message, piece: Piece) {
        let origin = u32::try_from(self.pieces.len()).expect("fewer than 2^32 pieces");
        self.pieces.push(piece);
        self.messages.push(message.with_origin(origin));
    }

    /// A chat message from JSON this module built (always valid).
    fn push_value(&mut self, value: Value, piece: Piece) {
        let message = Message::from_value(value).expect("a message built by the wire reader is valid");
        self.push(message, piece);
    }
}

/// Reads a body of another format: `rest` its top level (or `None` for a bare list), `list` its
/// messages or input items (Responses' string `input` as a one-element list of that string).
pub(crate) fn read(
    format: Format,
    rest: Option<Map<String, Value>>,
    list: Vec<Value>,
    input_string: bool,
    source_name: &str,
) -> Result<Read, Error> {
    let input = |e: RuleError| Error::Input {
        source_name: source_name.to_owned(),
        at: e.at,
        msg: e.msg,
    };
    let (builder, tools) = match format {
        Format::Anthropic => anthropic::read(rest.as_ref(), &list).map_err(input)?,
        Format::Responses => responses::read(rest.as_ref(), &list, input_string).map_err(input)?,
        Format::Chat => unreachable!("chat bodies are read by request_body"),
    };
    if !input_string {
        check(format, &list).map_err(input)?;
    }
    Ok(Read {
        messages: builder.messages,
        tools,
        source: Source {
            format,
            rest,
            items: list,
            pieces: builder.pieces,
            input_string,
        },
    })
}

impl Source {
    /// The format.
    pub(crate) fn format(&self) -> Format {
        self.format
    }

    /// The body with these messages (system prompt included, in order), in its own format.
    pub(crate) fn write<'m>(&self, messages: impl Iterator<Item = &'m Message>) -> Value {
        let list = match self.format {
            Format::Anthropic => Value::Array(anthropic::write(self, messages)),
            Format::Responses => responses::write(self, messages),
            Format::Chat => unreachable!("chat bodies are written by request_body"),
        };
        envelope(self.rest.clone(), self.format.list_key(), list)
    }

    fn piece(&self, message: &Message) -> Option<Piece> {
        message.origin().map(|o| self.pieces[o as usize])
    }

    /// The items of the body's list (Anthropic `messages`, Responses `input`) `message` came from.
    pub(crate) fn items_of(&self, message: &Message) -> Option<std::ops::Range<usize>> {
        match self.piece(message)? {
            Piece::System => None,
            Piece::Whole { item } | Piece::Blocks { item, .. } => Some(item as usize..item as usize + 1),
            Piece::Items { first, count } => Some(first as usize..(first + count) as usize),
        }
    }
}

/// A body: its top level (`None` for a bare list) with `list` under `key`, in the key's place.
pub(crate) fn envelope(rest: Option<Map<String, Value>>, key: &str, list: Value) -> Value {
    match rest {
        None => list,
        Some(mut rest) => {
            rest.insert(key.to_owned(), list);
            Value::Object(rest)
        }
    }
}

/// The text of a list of blocks or parts: each one's `field` (`text`, `thinking`), concatenated.
fn text_of(blocks: &[Value], fields: &[&str]) -> String {
    let mut text = String::new();
    for block in blocks {
        for field in fields {
            if let Some(t) = block.get(*field).and_then(Value::as_str) {
                text.push_str(t);
            }
        }
    }
    text
}

/// An object's string field, or a rule error naming it.
fn string_field<'v>(object: &'v Map<String, Value>, field: &str, at: &str, what: &str) -> Result<&'v str, RuleError> {
    match object.get(field) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(RuleError::new(
            format!("{at}.{field}"),
            format!("{what} needs a string \"{field}\", found {}", kind(other)),
        )),
        None => Err(RuleError::new(at, format!("{what} needs a string \"{field}\""))),
    }
}

/// A chat function tool from a name, description and JSON schema (for counting tool schemas).
fn chat_tool(name: &str, description: Option<&Value>, parameters: Option<&Value>) -> Value {
    let mut function = Map::new();
    function.insert("name".into(), Value::String(name.to_owned()));
    if let Some(d) = description {
        function.insert("description".into(), d.clone());
    }
    if let Some(p) = parameters {
        function.insert("parameters".into(), p.clone());
    }
    serde_json::json!({"type": "function", "function": function})
}

/// The chat message a message with no piece is written as (a summary): a user message with its
/// text, or an assistant one.
fn plain_message(message: &Message) -> Value {
    let role = match message.role() {
        Role::Assistant => "assistant",
        _ => "user",
    };
    serde_json::json!({"role": role, "content": message.text()})
}

#[cfg(test)]
mod tests;
