//! A Python list of messages read into the library's conversation, and the compacted conversation
//! written back as a Python list; `count_tokens` and `check_pairing` over the same reading.
//!
//! Chat messages are read one by one and marked with their index ([`Message::with_mark`]), so
//! that a kept message the compaction did not rewrite comes back as the caller's own dict (the
//! same object, as `trim_messages` returns LangChain's), one whose content alone was rewritten as
//! a copy of it with its new content, one rewritten otherwise (its thinking cleared, its calls'
//! arguments emptied) as the library wrote it, and a summary as a new dict: nothing is lost, and
//! the input is never changed.
//! Anthropic and Responses lists go through the library's reader of their format, which keeps
//! every block and item it does not touch.

use ctxbench_compact::compact::{AsRead, Rewritten};
use ctxbench_compact::named::Named;
use ctxbench_compact::tokens::CounterKind;
use ctxbench_compact::wire::{self, Format};
use ctxbench_compact::{Conversation, Message, RequestBody};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use serde_json::{Map, Value};

use crate::PairingError;
use crate::args::{self, Arg};
use crate::convert::{to_entries, to_python, to_value};

/// For each message written back, the index of the input message it came from (None: new).
pub type Sources = Vec<Option<usize>>;

/// A list of messages as the library holds it, and what writes it back.
pub enum Read<'py> {
    /// Chat: the conversation, the caller's dicts, and each one as read, to tell a rewritten
    /// message from one left alone.
    Chat {
        conversation: Box<Conversation>,
        items: Vec<Bound<'py, PyAny>>,
        contents: Vec<AsRead>,
    },
    /// A body of another format, written back by the library.
    Foreign(Box<RequestBody>),
}

/// The items of a list, tuple or other sequence of messages.
fn items<'py>(messages: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    const TAKES: &str = "a list of messages (dicts)";
    if messages.cast::<PyString>().is_ok() || messages.cast::<PyDict>().is_ok() {
        return Err(args::wrong_type("messages", TAKES, messages));
    }
    messages
        .try_iter()
        .map_err(|_| args::wrong_type("messages", TAKES, messages))?
        .collect()
}

/// Chat message `i` of the list, checked as the library checks one.
fn chat_message(item: &Bound<'_, PyAny>, i: usize) -> PyResult<Message> {
    let (entries, calls) = to_entries(item).map_err(|bad| bad.into_err(&format!("messages[{i}]")))?;
    let wrong = |e: ctxbench_compact::message::MessageError| {
        let path = if e.path.is_empty() {
            String::new()
        } else {
            format!(".{}", e.path)
        };
        PyValueError::new_err(format!("messages[{i}]{path}: {}", e.msg))
    };
    let mut message = Message::from_entries(entries).map_err(wrong)?;
    if let Some(calls) = calls {
        message.set_tool_calls(calls).map_err(wrong)?;
    }
    Ok(message)
}

/// The items of a list of another format, as JSON.
fn list_values(items: &[Bound<'_, PyAny>], format: Format) -> PyResult<Vec<Value>> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| to_value(item).map_err(|bad| bad.into_err(&format!("{}[{i}]", format.list_key()))))
        .collect()
}

/// A list of tool schemas (`tools=`), as JSON.
fn tool_values(tools: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<Value>> {
    let Some(tools) = tools.filter(|t| !t.is_none()) else {
        return Ok(Vec::new());
    };
    match to_value(tools).map_err(|bad| bad.into_err("tools"))? {
        Value::Array(list) => Ok(list),
        _ => Err(args::wrong_type(
            "tools",
            "a list of tool schemas (dicts), or None",
            tools,
        )),
    }
}

/// Reads `messages` in `format`. `system` is Anthropic's top-level `system` or Responses'
/// `instructions` (in chat, the system prompt is the first message); `tools` the request's
/// tool schemas, which exact counters count.
pub fn read<'py>(
    messages: &Bound<'py, PyAny>,
    format: Format,
    system: Option<&Bound<'py, PyAny>>,
    tools: Option<&Bound<'py, PyAny>>,
) -> PyResult<Read<'py>> {
    let items = items(messages)?;
    let tools = tool_values(tools)?;
    let system = system.filter(|s| !s.is_none());
    if format == Format::Chat {
        if system.is_some() {
            return Err(PyValueError::new_err(
                "system: in chat the system prompt is the first message; give system= with format=\"anthropic\" or \"responses\"",
            ));
        }
        let mut list = Vec::with_capacity(items.len());
        let mut contents = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let message = chat_message(item, i)?;
            let mark = u32::try_from(i).map_err(|_| PyValueError::new_err("more than 2^32 messages"))?;
            let message = message.with_mark(mark);
            contents.push(AsRead::of(&message));
            list.push(message);
        }
        return Ok(Read::Chat {
            conversation: Box::new(Conversation::from_messages(list, tools)),
            items,
            contents,
        });
    }
    let list = list_values(&items, format)?;
    let mut body = Map::new();
    if let Some(system) = system {
        let key = if format == Format::Anthropic {
            "system"
        } else {
            "instructions"
        };
        body.insert(key.into(), to_value(system).map_err(|bad| bad.into_err("system"))?);
    }
    body.insert(format.list_key().into(), Value::Array(list));
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    let text = Value::Object(body).to_string();
    let parsed = RequestBody::parse_as(&text, format.list_key(), Some(format)).map_err(|e| match e {
        ctxbench_compact::Error::Input { at, msg, .. } => PyValueError::new_err(format!("{at}: {msg}")),
        ctxbench_compact::Error::Pairing { broken, .. } => PairingError::new_err(broken.to_string()),
        other => PyValueError::new_err(other.to_string()),
    })?;
    Ok(Read::Foreign(Box::new(parsed)))
}

impl<'py> Read<'py> {
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

    /// The conversation, written back as a list in the form it was read in, and for chat the
    /// index of the input message each one came from (None for a summary).
    pub fn write(self, py: Python<'py>) -> PyResult<(Bound<'py, PyList>, Option<Sources>)> {
        match self {
            Read::Chat {
                conversation,
                items,
                contents,
            } => {
                let out = PyList::empty(py);
                let mut sources = Vec::with_capacity(conversation.messages.len() + 1);
                for message in in_order(&conversation) {
                    let source = message.mark().map(|m| m as usize);
                    sources.push(source);
                    match (
                        source,
                        source.and_then(|i| contents.get(i)).map(|r| r.rewritten(message)),
                    ) {
                        (Some(i), Some(Rewritten::Not)) => out.append(&items[i])?,
                        (Some(i), Some(Rewritten::Content)) => {
                            let copy = items[i].call_method0("copy")?;
                            let content = match message.content_str() {
                                Some(text) => PyString::new(py, text).into_any(),
                                None => to_python(py, &message.content().map_or(Value::Null, |c| c.into_owned()))?,
                            };
                            copy.set_item("content", content)?;
                            out.append(copy)?;
                        }
                        _ => out.append(to_python(py, &message.clone().into_value())?)?,
                    }
                }
                let_go(conversation);
                Ok((out, Some(sources)))
            }
            Read::Foreign(body) => {
                let value = body.write_with(in_order(&body.conversation));
                let list = value
                    .get(body.format().list_key())
                    .cloned()
                    .unwrap_or(Value::Array(Vec::new()));
                match to_python(py, &list)?.cast_into::<PyList>() {
                    Ok(list) => Ok((list, None)),
                    Err(_) => Err(PyValueError::new_err("the compacted body has no list")),
                }
            }
        }
    }
}

/// Frees a long conversation on a thread of its own: the caller has its list back while the
/// messages are freed (a tenth of the time of a 100,000-message compaction).
fn let_go(conversation: Box<Conversation>) {
    if conversation.messages.len() >= 10_000 {
        std::thread::spawn(move || drop(conversation));
    }
}

/// The conversation's messages in order, the system prompt in its place.
fn in_order(c: &Conversation) -> impl Iterator<Item = &Message> {
    let at = c.system.as_ref().map_or(0, |_| c.system_index.min(c.messages.len()));
    c.messages[..at].iter().chain(c.system.iter()).chain(&c.messages[at..])
}

/// The `format` argument (default `chat`), or what names there are.
pub fn format_arg(format: Arg<'_>) -> PyResult<Format> {
    let name = format.read("chat".to_owned(), |value| {
        args::text(value, "format", &format!("a format's name ({})", Format::names()))
    })?;
    Format::parse(&name)
        .ok_or_else(|| PyValueError::new_err(format!("format: {}", ctxbench_compact::named::unknown::<Format>(&name))))
}

/// The `tokenizer` argument (default `o200k`), or what names there are.
fn tokenizer_arg(tokenizer: Arg<'_>) -> PyResult<CounterKind> {
    let name = tokenizer.read("o200k".to_owned(), |value| {
        args::text(
            value,
            "tokenizer",
            &format!("a tokenizer's name ({})", CounterKind::names()),
        )
    })?;
    CounterKind::parse(&name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "tokenizer: {}",
            ctxbench_compact::named::unknown::<CounterKind>(&name)
        ))
    })
}

/// The tokens a request of these messages costs, counted as the library counts it:
/// `o200k` and `cl100k` exactly (OpenAI's framing; Anthropic's counts are o200k's approximation),
/// `chars4` and `chars4-py` as the reference listing estimates.
#[pyfunction]
#[pyo3(
    signature = (messages, tokenizer = Arg::Absent, format = Arg::Absent, *, tools = None, system = None),
    text_signature = "(messages, tokenizer='o200k', format='chat', *, tools=None, system=None)"
)]
pub fn count_tokens(
    messages: &Bound<'_, PyAny>,
    tokenizer: Arg<'_>,
    format: Arg<'_>,
    tools: Option<&Bound<'_, PyAny>>,
    system: Option<&Bound<'_, PyAny>>,
) -> PyResult<u64> {
    let counter = tokenizer_arg(tokenizer)?.single_pass_counter();
    let read = read(messages, format_arg(format)?, system, tools)?;
    let c = read.conversation();
    Ok(counter.count(c.system.as_ref(), &c.messages, &c.tools))
}

/// `PairingError` for a broken pairing, with the rule it breaks.
pub fn pairing_error(broken: ctxbench_compact::PairingError) -> PyErr {
    PairingError::new_err(format!(
        "{broken}; every tool result must answer a call of the assistant message just before it, \
         and every call needs its result before the next message"
    ))
}

/// Checks the pairing rule (every tool result answers a call of the assistant message before it,
/// once; every call is answered before the next message), and each format's own rules; raises
/// `PairingError` naming the message. Returns the number of calls of a final assistant message
/// still waiting for their results.
#[pyfunction]
#[pyo3(signature = (messages, format = Arg::Absent), text_signature = "(messages, format='chat')")]
pub fn check_pairing(messages: &Bound<'_, PyAny>, format: Arg<'_>) -> PyResult<usize> {
    let format = format_arg(format)?;
    let items = items(messages)?;
    if format == Format::Chat {
        let list = items
            .iter()
            .enumerate()
            .map(|(i, item)| chat_message(item, i))
            .collect::<PyResult<Vec<Message>>>()?;
        return ctxbench_compact::check_pairing(&list)
            .map(|pairing| pairing.pending_calls)
            .map_err(pairing_error);
    }
    let list = list_values(&items, format)?;
    wire::check(format, &list).map_err(|e| PairingError::new_err(format!("{}: {}", e.at, e.msg)))
}
