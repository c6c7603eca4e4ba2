//! A list of messages, as JSON text, read into the library's conversation, and the compacted
//! conversation written back as JSON; `countTokens` and `checkPairing` over the same reading.
//!
//! Chat messages are read one by one and marked with their index ([`Message::with_mark`]), so
//! that the package can return a kept message the compaction did not rewrite as the caller's own
//! object (`{"s": 3}`), one whose content was rewritten as a copy of it with its new content
//! (`{"s": 3, "c": …}`), one rewritten otherwise (its thinking cleared, its calls' arguments
//! emptied) whole (`{"s": 3, "m": …}`), and a summary as a new object (`{"m": …}`): nothing is
//! lost, and the input is never changed.
//! Anthropic and Responses lists go through the library's reader of their format, which keeps
//! every block and item it does not touch, and are written back whole by its writer.

use ctxbench_compact::compact::{AsRead, Rewritten};
use ctxbench_compact::tokens::CounterKind;
use ctxbench_compact::wire::{self, Format};
use ctxbench_compact::{Conversation, Message, RequestBody};
use napi_derive::napi;
use serde_json::{Map, Value, json};

use crate::errors::{Refusal, Refused};

/// For each message written back, the index of the input message it came from (None: new).
pub type Sources = Vec<Option<usize>>;

/// A list of messages as the library holds it, and what writes it back.
pub enum Read {
    /// Chat: the conversation, and each message's content as read (its address and length) and
    /// shape, to tell a rewritten message from one left alone.
    Chat {
        conversation: Box<Conversation>,
        contents: Vec<AsRead>,
    },
    /// A body of another format, written back by the library.
    Foreign(Box<RequestBody>),
}

/// JSON text the package wrote (`JSON.stringify` of values it checked), read back.
fn parse(text: &str, name: &str) -> Refused<Value> {
    serde_json::from_str(text).map_err(|e| Refusal::plain(format!("{name}: {e}")))
}

/// The items of the messages' JSON text (an array: the package checks it is one).
fn items(text: &str) -> Refused<Vec<Value>> {
    match parse(text, "messages")? {
        Value::Array(items) => Ok(items),
        _ => Err(Refusal::type_error("messages must be an array of messages (objects)")),
    }
}

/// Chat message `i` of the list, checked as the library checks one.
fn chat_message(item: Value, i: usize) -> Refused<Message> {
    Message::from_value(item).map_err(|e| {
        let path = if e.path.is_empty() {
            String::new()
        } else {
            format!(".{}", e.path)
        };
        Refusal::plain(format!("messages[{i}]{path}: {}", e.msg))
    })
}

/// The tool schemas' JSON text (`tools`), as values; none without it.
fn tool_values(tools: Option<&str>) -> Refused<Vec<Value>> {
    match tools.map(|t| parse(t, "tools")).transpose()? {
        None => Ok(Vec::new()),
        Some(Value::Array(list)) => Ok(list),
        Some(_) => Err(Refusal::type_error(
            "tools must be an array of tool schemas (objects), or undefined",
        )),
    }
}

/// Reads `messages` (JSON text of an array) in `format`. `system` is the JSON text of
/// Anthropic's top-level `system` or Responses' `instructions` (in chat, the system prompt is the
/// first message); `tools` of the request's tool schemas, which exact counters count.
pub fn read(messages: &str, format: Format, system: Option<&str>, tools: Option<&str>) -> Refused<Read> {
    let items = items(messages)?;
    let tools = tool_values(tools)?;
    if format == Format::Chat {
        if system.is_some() {
            return Err(Refusal::plain(
                "system: in chat the system prompt is the first message; give system with format \"anthropic\" or \"responses\"",
            ));
        }
        let mut list = Vec::with_capacity(items.len());
        let mut contents = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            let mark = u32::try_from(i).map_err(|_| Refusal::plain("more than 2^32 messages"))?;
            let message = chat_message(item, i)?.with_mark(mark);
            contents.push(AsRead::of(&message));
            list.push(message);
        }
        return Ok(Read::Chat {
            conversation: Box::new(Conversation::from_messages(list, tools)),
            contents,
        });
    }
    let mut body = Map::new();
    if let Some(system) = system {
        let key = if format == Format::Anthropic {
            "system"
        } else {
            "instructions"
        };
        body.insert(key.into(), parse(system, "system")?);
    }
    body.insert(format.list_key().into(), Value::Array(items));
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    let text = Value::Object(body).to_string();
    let parsed = RequestBody::parse_as(&text, format.list_key(), Some(format)).map_err(|e| match e {
        ctxbench_compact::Error::Input { at, msg, .. } => Refusal::plain(format!("{at}: {msg}")),
        ctxbench_compact::Error::Pairing { broken, .. } => Refusal::pairing(broken.to_string()),
        other => Refusal::plain(other.to_string()),
    })?;
    Ok(Read::Foreign(Box::new(parsed)))
}

impl Read {
    /// The conversation read.
    pub fn conversation(&self) -> &Conversation {
        match self {
            Read::Chat { conversation, .. } => conversation,
            Read::Foreign(body) => &body.conversation,
        }
    }

    /// The conversation read, to compact.
    pub fn conversation_mut(&mut self) -> &mut Conversation {
        match self {
            Read::Chat { conversation, .. } => conversation,
            Read::Foreign(body) => &mut body.conversation,
        }
    }

    /// The conversation written back: for chat, each message as the package rebuilds it
    /// (`{"s": i}` the caller's own, `{"s": i, "c": content}` a copy with new content, `{"m":
    /// message}` a new one) and the index of the input message each came from; for the other
    /// formats the list as the library's writer writes it, and no sources.
    pub fn write(self) -> (Value, Option<Sources>) {
        match self {
            Read::Chat { conversation, contents } => {
                let mut out = Vec::with_capacity(conversation.messages.len() + 1);
                let mut sources = Vec::with_capacity(conversation.messages.len() + 1);
                for message in in_order(&conversation) {
                    let source = message.mark().map(|m| m as usize);
                    sources.push(source);
                    let read = source.and_then(|i| contents.get(i));
                    out.push(match (source, read.map(|r| r.rewritten(message))) {
                        (Some(i), Some(Rewritten::Not)) => json!({ "s": i }),
                        (Some(i), Some(Rewritten::Content)) => {
                            let content = message.content().map_or(Value::Null, |c| c.into_owned());
                            json!({ "s": i, "c": content })
                        }
                        (Some(i), _) => json!({ "s": i, "m": message.clone().into_value() }),
                        (None, _) => json!({ "m": message.clone().into_value() }),
                    });
                }
                (Value::Array(out), Some(sources))
            }
            Read::Foreign(body) => {
                let value = body.write_with(in_order(&body.conversation));
                let list = value
                    .get(body.format().list_key())
                    .cloned()
                    .unwrap_or(Value::Array(Vec::new()));
                (list, None)
            }
        }
    }
}

/// The conversation's messages in order, the system prompt in its place.
fn in_order(c: &Conversation) -> impl Iterator<Item = &Message> {
    let at = c.system.as_ref().map_or(0, |_| c.system_index.min(c.messages.len()));
    c.messages[..at].iter().chain(c.system.iter()).chain(&c.messages[at..])
}

/// A format's name (the package checks it is a string), or what names there are.
pub fn format_of(name: &str) -> Refused<Format> {
    Format::parse(name)
        .ok_or_else(|| Refusal::plain(format!("format: {}", ctxbench_compact::named::unknown::<Format>(name))))
}

/// The tokens a request of these messages costs, counted as the library counts it: `o200k` and
/// `cl100k` exactly (OpenAI's framing; Anthropic's counts are o200k's approximation), `chars4`
/// and `chars4-py` as the reference listing estimates. Arguments as JSON text.
#[napi(js_name = "countTokens", catch_unwind)]
pub fn count_tokens(
    messages: String,
    tokenizer: String,
    format: String,
    tools: Option<String>,
    system: Option<String>,
) -> napi::Result<f64> {
    let kind = CounterKind::parse(&tokenizer).ok_or_else(|| {
        Refusal::plain(format!(
            "tokenizer: {}",
            ctxbench_compact::named::unknown::<CounterKind>(&tokenizer)
        ))
    })?;
    let read = read(&messages, format_of(&format)?, system.as_deref(), tools.as_deref())?;
    let c = read.conversation();
    let tokens = kind
        .single_pass_counter()
        .count(c.system.as_ref(), &c.messages, &c.tools);
    Ok(tokens as f64)
}

/// `PairingError` for a broken pairing, with the rule it breaks.
pub fn pairing_error(broken: ctxbench_compact::PairingError) -> Refusal {
    Refusal::pairing(format!(
        "{broken}; every tool result must answer a call of the assistant message just before it, \
         and every call needs its result before the next message"
    ))
}

/// Checks the pairing rule (every tool result answers a call of the assistant message before it,
/// once; every call is answered before the next message), and each format's own rules; throws a
/// `PairingError` naming the message. Returns the number of calls of a final assistant message
/// still waiting for their results.
#[napi(js_name = "checkPairing", catch_unwind)]
pub fn check_pairing(messages: String, format: String) -> napi::Result<u32> {
    let format = format_of(&format)?;
    let items = items(&messages)?;
    let pending = if format == Format::Chat {
        let list = items
            .into_iter()
            .enumerate()
            .map(|(i, item)| chat_message(item, i))
            .collect::<Refused<Vec<Message>>>()?;
        ctxbench_compact::check_pairing(&list)
            .map(|pairing| pairing.pending_calls)
            .map_err(pairing_error)?
    } else {
        wire::check(format, &items).map_err(|e| Refusal::pairing(format!("{}: {}", e.at, e.msg)))?
    };
    Ok(u32::try_from(pending).unwrap_or(u32::MAX))
}
