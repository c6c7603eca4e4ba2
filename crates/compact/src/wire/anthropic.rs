//! Anthropic Messages: read into chat messages, written back from the blocks they came from,
//! and checked against the API's pairing rules.
//!
//! Field names and rules from Anthropic's Messages API reference and its tool-use guide
//! (<https://docs.anthropic.com/en/api/messages>,
//! <https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use>, checked
//! 2026-12-03): `tool_result` blocks come first in the user message that follows the
//! `tool_use`, each answering one `tool_use_id`; thinking blocks are sent back unchanged with
//! their signatures.

use serde_json::{Map, Value, json};

use super::{Builder, Piece, RuleError, Source, chat_tool, opaque, plain_message, string_field, text_of};
use crate::message::{Message, Role, kind};

/// The blocks of a message's content: an array, or none for a string.
fn blocks(message: &Value) -> &[Value] {
    message
        .get("content")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn block_type(block: &Value) -> &str {
    block.get("type").and_then(Value::as_str).unwrap_or("")
}

/// Reads the messages and the top-level `system` and `tools`.
pub(super) fn read(rest: Option<&Map<String, Value>>, list: &[Value]) -> Result<(Builder, Vec<Value>), RuleError> {
    let mut out = Builder::new();
    match rest.and_then(|r| r.get("system")) {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => out.push(Message::new(Role::System, s.clone()), Piece::System),
        Some(Value::Array(blocks)) => {
            out.push(Message::new(Role::System, text_of(blocks, &["text"])), Piece::System);
        }
        Some(other) => {
            return Err(RuleError::new(
                "system",
                format!("expected a string or an array of text blocks, found {}", kind(other)),
            ));
        }
    }
    for (i, message) in list.iter().enumerate() {
        let at = format!("messages[{i}]");
        let item = i as u32;
        let Value::Object(object) = message else {
            return Err(RuleError::new(
                at,
                format!("expected a message object, found {}", kind(message)),
            ));
        };
        let role = string_field(object, "role", &at, "a message")?;
        let assistant = match role {
            "user" => false,
            "assistant" => true,
            other => {
                return Err(RuleError::new(
                    format!("{at}.role"),
                    format!(
                        "Anthropic messages are \"user\" or \"assistant\", not {other:?}; the system prompt goes in the top-level \"system\""
                    ),
                ));
            }
        };
        match object.get("content") {
            Some(Value::String(s)) => out.push(Message::new(role_of(assistant), s.clone()), Piece::Whole { item }),
            Some(Value::Array(blocks)) => {
                for (j, block) in blocks.iter().enumerate() {
                    if !block.get("type").is_some_and(Value::is_string) {
                        return Err(RuleError::new(
                            format!("{at}.content[{j}]"),
                            "a content block needs a string \"type\" (text, image, tool_use, tool_result, thinking, …)",
                        ));
                    }
                }
                let compaction = blocks.iter().position(|b| block_type(b) == "compaction");
                match compaction {
                    // A provider's compaction is a message of its own, what came before and after
                    // it others, so that the history shows where the server starts reading.
                    Some(c) if assistant => {
                        let parts = [(0, c), (c, c + 1), (c + 1, blocks.len())];
                        for (first, end) in parts.into_iter().filter(|(f, e)| e > f) {
                            out.push_value(
                                assistant_message(&blocks[first..end], &at)?,
                                Piece::Blocks {
                                    item,
                                    first: first as u32,
                                    count: (end - first) as u32,
                                    joined: false,
                                },
                            );
                        }
                    }
                    _ if assistant => out.push_value(assistant_message(blocks, &at)?, Piece::Whole { item }),
                    _ if blocks.is_empty() => {
                        out.push_value(json!({"role": "user", "content": []}), Piece::Whole { item });
                    }
                    _ => user_blocks(&mut out, blocks, item, &at)?,
                }
            }
            other => {
                return Err(RuleError::new(
                    format!("{at}.content"),
                    format!(
                        "expected a string or an array of content blocks, found {}",
                        other.map_or("nothing", kind)
                    ),
                ));
            }
        }
    }
    let tools = rest
        .and_then(|r| r.get("tools"))
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| {
                    let name = t.get("name")?.as_str()?;
                    Some(chat_tool(name, t.get("description"), Some(t.get("input_schema")?)))
                })
                .collect()
        })
        .unwrap_or_default();
    Ok((out, tools))
}

fn role_of(assistant: bool) -> Role {
    if assistant { Role::Assistant } else { Role::User }
}

/// An assistant message's blocks as one chat message: the text of its `text` and `thinking`
/// blocks, its `tool_use` blocks as calls.
fn assistant_message(blocks: &[Value], at: &str) -> Result<Value, RuleError> {
    let mut calls = Vec::new();
    for (j, block) in blocks.iter().enumerate() {
        if block_type(block) == "tool_use" {
            let at = format!("{at}.content[{j}]");
            let object = block.as_object().expect("checked: a block is an object with a type");
            let id = string_field(object, "id", &at, "a tool_use block")?;
            let name = string_field(object, "name", &at, "a tool_use block")?;
            let arguments = serde_json::to_string(object.get("input").unwrap_or(&json!({}))).expect("JSON writes");
            calls.push(json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}));
        }
    }
    let has_text = blocks
        .iter()
        .any(|b| matches!(block_type(b), "text" | "thinking" | "compaction"));
    let mut message = Map::new();
    message.insert("role".into(), json!("assistant"));
    message.insert(
        "content".into(),
        if has_text {
            // A compaction block reads as ctxbench's compaction message.
            match blocks.iter().find(|b| block_type(b) == "compaction") {
                // A compaction without content failed: the server treats it as nothing.
                Some(b) => Value::String(match b.get("content").and_then(Value::as_str) {
                    Some(summary) => opaque::message_text(summary),
                    None => "[Compaction failed]".to_owned(),
                }),
                None => Value::String(text_of(blocks, &["text", "thinking"])),
            }
        } else {
            Value::Null
        },
    );
    if !calls.is_empty() {
        message.insert("tool_calls".into(), Value::Array(calls));
    }
    Ok(Value::Object(message))
}

/// A user message's blocks: each `tool_result` a tool result, each run of other blocks a user
/// message of those blocks.
fn user_blocks(out: &mut Builder, blocks: &[Value], item: u32, at: &str) -> Result<(), RuleError> {
    let mut run: Option<usize> = None;
    let flush = |out: &mut Builder, run: &mut Option<usize>, end: usize| {
        if let Some(first) = run.take() {
            // A run of text blocks alone reads as its text (as a string content would), so that
            // a `cache_control` mark on a request changes neither its count nor its identity.
            let span = &blocks[first..end];
            let joined = span.iter().all(|b| block_type(b) == "text");
            let content = if joined {
                Value::String(text_of(span, &["text"]))
            } else {
                Value::Array(span.to_vec())
            };
            out.push_value(
                json!({"role": "user", "content": content}),
                Piece::Blocks {
                    item,
                    first: first as u32,
                    count: (end - first) as u32,
                    joined,
                },
            );
        }
    };
    for (j, block) in blocks.iter().enumerate() {
        if block_type(block) != "tool_result" {
            run.get_or_insert(j);
            continue;
        }
        flush(out, &mut run, j);
        let at = format!("{at}.content[{j}]");
        let object = block.as_object().expect("checked: a block is an object with a type");
        let id = string_field(object, "tool_use_id", &at, "a tool_result block")?;
        let (content, joined) = match object.get("content") {
            Some(Value::Array(parts)) if parts.iter().all(|p| block_type(p) == "text") => {
                (Some(Value::String(text_of(parts, &["text"]))), true)
            }
            other => (other.cloned(), false),
        };
        let mut message = Map::new();
        message.insert("role".into(), json!("tool"));
        message.insert("tool_call_id".into(), json!(id));
        if let Some(content) = content {
            message.insert("content".into(), content);
        }
        out.push_value(
            Value::Object(message),
            Piece::Blocks {
                item,
                first: j as u32,
                count: 1,
                joined,
            },
        );
    }
    flush(out, &mut run, blocks.len());
    Ok(())
}

/// The messages, written back: each from its message's blocks that are left, a rewritten
/// result in its own block (its content replaced, every other field kept).
pub(super) fn write<'m>(source: &Source, messages: impl Iterator<Item = &'m Message>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    // The item the last written message was built from, while more of its blocks may follow.
    let mut open: Option<u32> = None;
    for message in messages {
        match source.piece(message) {
            Some(Piece::System) => {}
            Some(Piece::Whole { item }) => {
                out.push(emptied_inputs(&source.items[item as usize], message));
                open = None;
            }
            Some(Piece::Blocks {
                item,
                first,
                count,
                joined,
            }) => {
                let original = &source.items[item as usize];
                let span = &blocks(original)[first as usize..(first + count) as usize];
                let new: Vec<Value> = if message.role() == Role::Tool {
                    vec![result_block(&span[0], message, joined)]
                } else if message.role() == Role::Assistant {
                    span.iter().map(|b| emptied_input(b, message)).collect()
                } else {
                    span.to_vec()
                };
                match out.last_mut().and_then(Value::as_object_mut) {
                    Some(last) if open == Some(item) => {
                        if let Some(Value::Array(content)) = last.get_mut("content") {
                            content.extend(new);
                        }
                    }
                    _ => {
                        let mut written = original.as_object().cloned().unwrap_or_default();
                        written.insert("content".into(), Value::Array(new));
                        out.push(Value::Object(written));
                    }
                }
                open = Some(item);
            }
            Some(Piece::Items { .. }) => unreachable!("Responses pieces in an Anthropic body"),
            None => {
                let text = message.text();
                match opaque::summary_of(&text) {
                    Some(summary) if message.role() == Role::Assistant => {
                        out.push(json!({"role": "assistant", "content": [opaque::anthropic_block(summary)]}))
                    }
                    _ => out.push(plain_message(message)),
                }
                open = None;
            }
        }
    }
    out
}

/// An assistant message as read, but for the `tool_use` inputs a strategy emptied
/// (`clear-tool-uses:inputs`): those written `{}`. Every other message as read.
fn emptied_inputs(original: &Value, message: &Message) -> Value {
    if message.role() != Role::Assistant || !message.calls().any(|c| c.arguments == "{}") {
        return original.clone();
    }
    let mut written = original.clone();
    if let Some(Value::Array(blocks)) = written.get_mut("content") {
        for block in blocks.iter_mut() {
            *block = emptied_input(block, message);
        }
    }
    written
}

/// A block as read, but a `tool_use` whose call the message now holds with `{}`: its input `{}`.
fn emptied_input(block: &Value, message: &Message) -> Value {
    let id = block.get("id").and_then(Value::as_str);
    let emptied = block_type(block) == "tool_use"
        && block
            .get("input")
            .is_some_and(|i| i.as_object().is_none_or(|o| !o.is_empty()))
        && id.is_some_and(|id| message.calls().any(|c| c.id == id && c.arguments == "{}"));
    if !emptied {
        return block.clone();
    }
    let mut written = block.clone();
    written["input"] = json!({});
    written
}

/// A `tool_result` block as the message now holds it: unchanged, the block as read; rewritten,
/// the block with its new content (a text block, when the content was an array of them).
fn result_block(block: &Value, message: &Message, joined: bool) -> Value {
    let original = block.get("content");
    let now = message.content();
    let unchanged = match (joined, original) {
        (true, Some(Value::Array(parts))) => message.content_str() == Some(text_of(parts, &["text"]).as_str()),
        _ => now.as_deref() == original,
    };
    if unchanged {
        return block.clone();
    }
    let mut written = block.as_object().cloned().unwrap_or_default();
    match now {
        Some(content) if joined => {
            let text = content.as_str().unwrap_or_default().to_owned();
            written.insert("content".into(), json!([{"type": "text", "text": text}]));
        }
        Some(content) => {
            written.insert("content".into(), content.into_owned());
        }
        None => {
            written.remove("content");
        }
    }
    Value::Object(written)
}

/// The pairing rules: each `tool_use` id is answered by a `tool_result` of the next message,
/// which is a user message whose results come first, once; no assistant message holds only
/// thinking.
pub(super) fn check(list: &[Value]) -> Result<usize, RuleError> {
    // The assistant message whose calls wait, and their ids with whether each is answered.
    let mut open: Option<(usize, Vec<(&str, bool)>)> = None;
    for (i, message) in list.iter().enumerate() {
        let assistant = message.get("role").and_then(Value::as_str) == Some("assistant");
        let blocks = blocks(message);
        let answered = open.take();
        if assistant {
            if let Some((a, ids)) = answered {
                if let Some((id, _)) = ids.iter().find(|(_, done)| !done) {
                    return Err(unanswered(a, id, i));
                }
            }
            if !blocks.is_empty()
                && blocks
                    .iter()
                    .all(|b| matches!(block_type(b), "thinking" | "redacted_thinking"))
            {
                return Err(RuleError::new(
                    format!("messages[{i}].content"),
                    "an assistant message holds only thinking, which Anthropic rejects; a thinking block goes with its turn's text or tool_use",
                ));
            }
            let ids: Vec<(&str, bool)> = blocks
                .iter()
                .filter(|b| block_type(b) == "tool_use")
                .filter_map(|b| b.get("id").and_then(Value::as_str))
                .map(|id| (id, false))
                .collect();
            if !ids.is_empty() {
                open = Some((i, ids));
            }
            continue;
        }
        let mut ids = answered;
        let mut text_before = None;
        for (j, block) in blocks.iter().enumerate() {
            if block_type(block) != "tool_result" {
                text_before.get_or_insert(j);
                continue;
            }
            let at = format!("messages[{i}].content[{j}]");
            let id = block.get("tool_use_id").and_then(Value::as_str).unwrap_or_default();
            if text_before.is_some() {
                return Err(RuleError::new(
                    at,
                    "a tool_result block after other content; Anthropic wants the results first in the user message",
                ));
            }
            let slot = ids
                .as_mut()
                .and_then(|(_, ids)| ids.iter_mut().find(|(call, _)| *call == id));
            match slot {
                Some((_, done)) if *done => {
                    return Err(RuleError::new(at, format!("a second tool_result for tool_use {id:?}")));
                }
                Some((_, done)) => *done = true,
                None => {
                    return Err(RuleError::new(
                        at,
                        format!("tool_result for {id:?} answers no tool_use of the assistant message just before it"),
                    ));
                }
            }
        }
        if let Some((a, ids)) = ids {
            if let Some((id, _)) = ids.iter().find(|(_, done)| !done) {
                return Err(unanswered(a, id, i));
            }
        }
    }
    Ok(open.map_or(0, |(_, ids)| ids.len()))
}

fn unanswered(assistant: usize, id: &str, next: usize) -> RuleError {
    RuleError::new(
        format!("messages[{assistant}]"),
        format!(
            "tool_use {id:?} has no tool_result in the next message (messages[{next}]); every tool_use is answered in the user message that follows it"
        ),
    )
}
