//! A chat conversation written as a new body of any format: what the harness sends to an
//! Anthropic or Responses endpoint, and how a test states one conversation in three formats.
//! Read back, such a body gives the chat messages it was written from (when they are in the
//! canonical shape: string contents, calls with JSON-object arguments).

use serde_json::{Map, Value, json};

use super::{Format, opaque};
use crate::message::{Message, Role};

/// The body of a request in `format`: the system prompt, the messages and the chat `tools`.
pub fn body_from_chat(format: Format, system: Option<&Message>, messages: &[Message], tools: &[Value]) -> Value {
    match format {
        Format::Chat => {
            let list: Vec<Value> = system
                .into_iter()
                .chain(messages)
                .map(|m| m.clone().into_value())
                .collect();
            let mut body = Map::new();
            body.insert("messages".into(), Value::Array(list));
            if !tools.is_empty() {
                body.insert("tools".into(), Value::Array(tools.to_vec()));
            }
            Value::Object(body)
        }
        Format::Anthropic => anthropic(system, messages, tools),
        Format::Responses => responses(system, messages, tools),
    }
}

/// A call's arguments as a JSON value: parsed when they are JSON, else the raw text in
/// `{"arguments": …}` (Anthropic's `input` is an object).
fn input_of(arguments: &str) -> Value {
    match serde_json::from_str::<Value>(arguments) {
        Ok(value @ Value::Object(_)) => value,
        _ => json!({ "arguments": arguments }),
    }
}

/// A message's content as it is: a string, or the parts' text.
fn content_of(message: &Message) -> Value {
    match message.content() {
        Some(c) if c.is_string() || c.is_array() => c.into_owned(),
        _ => Value::String(String::new()),
    }
}

fn anthropic(system: Option<&Message>, messages: &[Message], tools: &[Value]) -> Value {
    let mut list: Vec<Value> = Vec::new();
    // Consecutive results go in one user message, as the API wants.
    let mut results: Vec<Value> = Vec::new();
    let flush = |list: &mut Vec<Value>, results: &mut Vec<Value>| {
        if !results.is_empty() {
            list.push(json!({"role": "user", "content": std::mem::take(results)}));
        }
    };
    for message in messages {
        match message.role() {
            Role::Tool => {
                let mut block = Map::new();
                block.insert("type".into(), json!("tool_result"));
                block.insert("tool_use_id".into(), json!(message.tool_call_id().unwrap_or_default()));
                if let Some(content) = message.content().filter(|c| !c.is_null()) {
                    block.insert("content".into(), content.into_owned());
                }
                results.push(Value::Object(block));
            }
            Role::Assistant if opaque::summary_of(&message.text()).is_some() => {
                flush(&mut list, &mut results);
                let text = message.text();
                let summary = opaque::summary_of(&text).unwrap_or_default();
                list.push(json!({"role": "assistant", "content": [opaque::anthropic_block(summary)]}));
            }
            Role::Assistant => {
                flush(&mut list, &mut results);
                let mut blocks = Vec::new();
                let text = message.text();
                if !text.is_empty() {
                    blocks.push(json!({"type": "text", "text": text}));
                }
                for call in message.calls() {
                    blocks.push(json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input_of(call.arguments)}));
                }
                let content = if blocks.is_empty() {
                    json!("")
                } else {
                    Value::Array(blocks)
                };
                list.push(json!({"role": "assistant", "content": content}));
            }
            _ => {
                flush(&mut list, &mut results);
                list.push(json!({"role": "user", "content": content_of(message)}));
            }
        }
    }
    flush(&mut list, &mut results);
    let mut body = Map::new();
    if let Some(system) = system {
        body.insert("system".into(), json!(system.text()));
    }
    body.insert("messages".into(), Value::Array(list));
    let tools: Vec<Value> = tools
        .iter()
        .filter_map(|t| {
            let f = t.get("function")?;
            let mut tool = Map::new();
            tool.insert("name".into(), f.get("name")?.clone());
            if let Some(d) = f.get("description") {
                tool.insert("description".into(), d.clone());
            }
            tool.insert(
                "input_schema".into(),
                f.get("parameters")
                    .cloned()
                    .unwrap_or_else(|| json!({"type": "object"})),
            );
            Some(Value::Object(tool))
        })
        .collect();
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    Value::Object(body)
}

fn responses(system: Option<&Message>, messages: &[Message], tools: &[Value]) -> Value {
    let mut input = Vec::new();
    for message in messages {
        match message.role() {
            Role::Tool => input.push(json!({
                "type": "function_call_output",
                "call_id": message.tool_call_id().unwrap_or_default(),
                "output": content_of(message),
            })),
            Role::Assistant if opaque::summary_of(&message.text()).is_some() => {
                let text = message.text();
                let summary = opaque::summary_of(&text).unwrap_or_default();
                input.push(opaque::responses_item(summary));
            }
            Role::Assistant => {
                let text = message.text();
                if !text.is_empty() || !message.has_calls() {
                    input.push(json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}));
                }
                for call in message.calls() {
                    input.push(json!({"type": "function_call", "call_id": call.id, "name": call.name, "arguments": call.arguments}));
                }
            }
            role => input.push(json!({"type": "message", "role": role.as_str(), "content": content_of(message)})),
        }
    }
    let mut body = Map::new();
    if let Some(system) = system {
        body.insert("instructions".into(), json!(system.text()));
    }
    body.insert("input".into(), Value::Array(input));
    let tools: Vec<Value> = tools
        .iter()
        .filter_map(|t| {
            let f = t.get("function")?;
            let mut tool = Map::new();
            tool.insert("type".into(), json!("function"));
            for key in ["name", "description", "parameters"] {
                if let Some(v) = f.get(key) {
                    tool.insert(key.into(), v.clone());
                }
            }
            Some(Value::Object(tool))
        })
        .collect();
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    Value::Object(body)
}
