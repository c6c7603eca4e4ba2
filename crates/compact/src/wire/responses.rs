//! OpenAI Responses: `input` items read into chat messages, written back from the items they
//! came from, and checked against the API's pairing rules.
//!
//! Item shapes from OpenAI's Responses API reference
//! (<https://platform.openai.com/docs/api-reference/responses/create>, checked 2026-12-03) and
//! the items Codex sends (`codex-rs/protocol/src/models.rs` of openai/codex): `message` (role,
//! content of `input_text` / `output_text` parts), `function_call` (`call_id`, `name`,
//! `arguments`), `function_call_output` (`call_id`, `output`), `custom_tool_call` (`input`),
//! `local_shell_call` (`action`), `reasoning` (`summary`, `encrypted_content`), `compaction`
//! (`encrypted_content`, <https://developers.openai.com/api/docs/guides/compaction>, checked
//! 2026-12-06). A reasoning item
//! must be followed by the item it reasoned toward, and a call's output names its `call_id`.

use serde_json::{Map, Value, json};

use super::{Builder, Piece, RuleError, Source, chat_tool, opaque, plain_message, string_field, text_of};
use crate::message::{Message, Role, kind};

/// What an item is, for grouping.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Item {
    /// A user, system or developer message: a message of its own.
    Message,
    /// A call's output, answering `call_id`: a tool result.
    Output,
    /// Anything the model produced (reasoning, assistant messages, calls, opaque items): grouped
    /// with its neighbours into one assistant message.
    Model,
}

fn item_type(item: &Value) -> &str {
    match item.get("type").and_then(Value::as_str) {
        Some(t) => t,
        None if item.get("role").is_some() => "message",
        None => "",
    }
}

fn classify(item: &Value) -> Item {
    match item_type(item) {
        "message" => match item.get("role").and_then(Value::as_str) {
            Some("assistant") => Item::Model,
            _ => Item::Message,
        },
        t if t.ends_with("_output") && item.get("call_id").is_some() => Item::Output,
        _ => Item::Model,
    }
}

/// Whether an item is a call: a `*_call` with a `call_id`.
fn is_call(item: &Value) -> bool {
    item_type(item).ends_with("_call") && item.get("call_id").is_some_and(Value::is_string)
}

/// Reads the items (the string `input` as one user message) and `instructions` and `tools`.
pub(super) fn read(
    rest: Option<&Map<String, Value>>,
    list: &[Value],
    input_string: bool,
) -> Result<(Builder, Vec<Value>), RuleError> {
    let mut out = Builder::new();
    match rest.and_then(|r| r.get("instructions")) {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => out.push(Message::new(Role::System, s.clone()), Piece::System),
        Some(other) => {
            return Err(RuleError::new(
                "instructions",
                format!("expected a string, found {}", kind(other)),
            ));
        }
    }
    if input_string {
        let text = list[0].as_str().unwrap_or_default().to_owned();
        out.push(Message::new(Role::User, text), Piece::Items { first: 0, count: 1 });
        return Ok((out, tools(rest)));
    }
    let mut i = 0;
    while i < list.len() {
        let at = format!("input[{i}]");
        let Value::Object(object) = &list[i] else {
            return Err(RuleError::new(
                at,
                format!("expected an input item object, found {}", kind(&list[i])),
            ));
        };
        if item_type(&list[i]).is_empty() {
            return Err(RuleError::new(
                at,
                "an input item needs a \"type\" (message, function_call, function_call_output, reasoning, …) or a \"role\"",
            ));
        }
        let one = Piece::Items {
            first: i as u32,
            count: 1,
        };
        match classify(&list[i]) {
            Item::Message => {
                let role = string_field(object, "role", &at, "a message item")?;
                if !matches!(role, "user" | "system" | "developer") {
                    return Err(RuleError::new(
                        format!("{at}.role"),
                        format!("a message's role is user, assistant, system or developer, not {role:?}"),
                    ));
                }
                let content = object.get("content").cloned().unwrap_or(Value::Null);
                if !matches!(content, Value::String(_) | Value::Array(_)) {
                    return Err(RuleError::new(
                        format!("{at}.content"),
                        format!(
                            "expected a string or an array of content parts, found {}",
                            kind(&content)
                        ),
                    ));
                }
                out.push_value(json!({"role": role, "content": content}), one);
                i += 1;
            }
            Item::Output => {
                let id = string_field(object, "call_id", &at, "a call's output")?;
                let mut message = Map::new();
                message.insert("role".into(), json!("tool"));
                message.insert("tool_call_id".into(), json!(id));
                if let Some(output @ (Value::String(_) | Value::Array(_))) = object.get("output") {
                    message.insert("content".into(), output.clone());
                }
                out.push_value(Value::Object(message), one);
                i += 1;
            }
            Item::Model => {
                // A run of model items, but a compaction item is a message of its own, so that the
                // history shows where the server starts reading.
                let compaction = |j: usize| item_type(&list[j]) == "compaction";
                let end = if compaction(i) {
                    i + 1
                } else {
                    (i..list.len())
                        .find(|&j| classify(&list[j]) != Item::Model || compaction(j))
                        .unwrap_or(list.len())
                };
                out.push_value(
                    model_turn(&list[i..end]),
                    Piece::Items {
                        first: i as u32,
                        count: (end - i) as u32,
                    },
                );
                i = end;
            }
        }
    }
    Ok((out, tools(rest)))
}

/// A run of model items as one assistant message: the text of its messages and reasoning
/// summaries, its calls (arguments: `arguments`, else `input`, else the compact JSON of `action`).
fn model_turn(items: &[Value]) -> Value {
    let mut text = String::new();
    let mut calls = Vec::new();
    let said = items.iter().any(|item| item_type(item) == "message");
    for item in items {
        match item_type(item) {
            "message" => match item.get("content") {
                Some(Value::String(s)) => text.push_str(s),
                Some(Value::Array(parts)) => text.push_str(&text_of(parts, &["text", "refusal"])),
                _ => {}
            },
            "compaction" => {
                let content = item
                    .get("encrypted_content")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                text.push_str(&opaque::message_text(&opaque::decrypt(content)));
            }
            "reasoning" => {
                for field in ["summary", "content"] {
                    if let Some(parts) = item.get(field).and_then(Value::as_array) {
                        text.push_str(&text_of(parts, &["text"]));
                    }
                }
            }
            t if is_call(item) => {
                let name = item
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or(t.trim_end_matches("_call"));
                let arguments = match (item.get("arguments"), item.get("input")) {
                    (Some(Value::String(a)), _) | (_, Some(Value::String(a))) => a.clone(),
                    _ => serde_json::to_string(item.get("action").unwrap_or(&json!({}))).expect("JSON writes"),
                };
                calls.push(json!({"id": item["call_id"], "type": "function", "function": {"name": name, "arguments": arguments}}));
            }
            _ => {}
        }
    }
    let mut message = Map::new();
    message.insert("role".into(), json!("assistant"));
    message.insert(
        "content".into(),
        if text.is_empty() && !said {
            Value::Null
        } else {
            Value::String(text)
        },
    );
    if !calls.is_empty() {
        message.insert("tool_calls".into(), Value::Array(calls));
    }
    Value::Object(message)
}

/// The function tools, in chat's shape.
fn tools(rest: Option<&Map<String, Value>>) -> Vec<Value> {
    let Some(tools) = rest.and_then(|r| r.get("tools")).and_then(Value::as_array) else {
        return Vec::new();
    };
    tools
        .iter()
        .filter(|t| t.get("type").and_then(Value::as_str) == Some("function"))
        .filter_map(|t| {
            Some(chat_tool(
                t.get("name")?.as_str()?,
                t.get("description"),
                t.get("parameters"),
            ))
        })
        .collect()
}

/// The input, written back: each message's items as read, a rewritten output with its new
/// `output`; a string when it was one and is still its one message.
pub(super) fn write<'m>(source: &Source, messages: impl Iterator<Item = &'m Message>) -> Value {
    let mut out = Vec::new();
    let mut only_the_string = true;
    for message in messages {
        match source.piece(message) {
            Some(Piece::System) => {}
            Some(Piece::Items { first, count }) => {
                let items = &source.items[first as usize..(first + count) as usize];
                if message.role() == Role::Tool {
                    out.push(output_item(&items[0], message));
                } else if let Value::String(s) = &items[0] {
                    out.push(json!({"role": "user", "content": s}));
                } else {
                    out.extend(items.iter().map(|item| emptied_arguments(item, message)));
                }
            }
            Some(_) => unreachable!("Anthropic pieces in a Responses body"),
            None => {
                only_the_string = false;
                let text = message.text();
                match opaque::summary_of(&text) {
                    Some(summary) if message.role() == Role::Assistant => {
                        out.push(opaque::responses_item(summary));
                    }
                    _ => out.push(plain_message(message)),
                }
            }
        }
    }
    if source.input_string && only_the_string && out.len() == 1 {
        return source.items[0].clone();
    }
    Value::Array(out)
}

/// A model item as read, but a call whose arguments a strategy emptied
/// (`clear-tool-uses:inputs`): its `arguments` written `{}`.
fn emptied_arguments(item: &Value, message: &Message) -> Value {
    let id = item.get("call_id").and_then(Value::as_str);
    let emptied = is_call(item)
        && item.get("arguments").is_some_and(|a| a != "{}")
        && id.is_some_and(|id| message.calls().any(|c| c.id == id && c.arguments == "{}"));
    if !emptied {
        return item.clone();
    }
    let mut written = item.clone();
    written["arguments"] = json!("{}");
    written
}

/// An output item as the message now holds it: unchanged, as read; rewritten, with its new
/// `output`.
fn output_item(item: &Value, message: &Message) -> Value {
    let now = message.content();
    if now.as_deref() == item.get("output") {
        return item.clone();
    }
    let mut written = item.as_object().cloned().unwrap_or_default();
    written.insert("output".into(), now.map_or(Value::Null, |c| c.into_owned()));
    Value::Object(written)
}

/// The pairing rules: an output answers, once, a call of the nearest run of model items before
/// it; every call is answered before the next message or run (but the last run's, pending); a
/// reasoning item is followed by a model item, the one it reasoned toward.
pub(super) fn check(list: &[Value]) -> Result<usize, RuleError> {
    // The open run's calls: index of the call, id, answered.
    let mut open: Vec<(usize, &str, bool)> = Vec::new();
    let mut previous = None;
    for (i, item) in list.iter().enumerate() {
        let class = classify(item);
        let at = format!("input[{i}]");
        if item_type(item) == "reasoning" && list.get(i + 1).is_none_or(|next| classify(next) != Item::Model) {
            return Err(RuleError::new(
                at,
                "a reasoning item without the item it led to after it; OpenAI rejects it (keep a reasoning item with the call or message that follows it)",
            ));
        }
        match class {
            Item::Output => {
                let id = item.get("call_id").and_then(Value::as_str).unwrap_or_default();
                match open.iter_mut().find(|(_, call, _)| *call == id) {
                    Some((_, _, true)) => {
                        return Err(RuleError::new(at, format!("a second output for call {id:?}")));
                    }
                    Some((_, _, done)) => *done = true,
                    None => {
                        return Err(RuleError::new(
                            at,
                            format!("output for {id:?} answers no call of the items just before it"),
                        ));
                    }
                }
            }
            _ if previous == Some(Item::Model) && class == Item::Model => {}
            _ => {
                if let Some((c, id, _)) = open.iter().find(|(_, _, done)| !done) {
                    return Err(RuleError::new(
                        format!("input[{c}]"),
                        format!(
                            "call {id:?} has no output before input[{i}]; every call's output comes before the next message or turn"
                        ),
                    ));
                }
                open.clear();
            }
        }
        if class == Item::Model && is_call(item) {
            open.push((i, item["call_id"].as_str().unwrap_or_default(), false));
        }
        previous = Some(class);
    }
    Ok(open.iter().filter(|(_, _, done)| !done).count())
}
