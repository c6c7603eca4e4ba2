//! A stream read back into the reply it carries.

use ctxbench_compact::wire::Format;
use serde_json::{Map, Value, json};

use super::text_of;
use crate::http::sse;

/// A stream that did not end in a reply: the status it stands for and the error body, as an
/// unstreamed call would have had them.
#[derive(Clone, Debug, PartialEq)]
pub struct Failed {
    /// 500 for a server error (529 for Anthropic's `overloaded_error`), 400 otherwise.
    pub status: u16,
    /// The error in the API's unstreamed error shape.
    pub body: Value,
}

/// A stream read back into the unstreamed reply it carries, or the failure it ended in.
pub fn assemble(format: Format, text: &str) -> Result<Value, Failed> {
    let events = sse::parse(text);
    let mut values = Vec::with_capacity(events.len());
    for (name, data) in &events {
        if data == "[DONE]" {
            break;
        }
        let value: Value = serde_json::from_str(data).map_err(|_| broken(format!("an event is not JSON: {data}")))?;
        values.push((name.as_deref(), value));
    }
    match format {
        Format::Chat => assemble_chat(&values),
        Format::Anthropic => assemble_anthropic(&values),
        Format::Responses => assemble_responses(&values),
    }
}

/// A stream that cannot be read: a server error, as a reply that is not JSON would be.
fn broken(why: String) -> Failed {
    Failed {
        status: 502,
        body: crate::http::error_body(&format!("the stream {why}"), "server_error", None, None),
    }
}

fn assemble_chat(values: &[(Option<&str>, Value)]) -> Result<Value, Failed> {
    let mut reply: Option<Value> = None;
    let mut message = Map::new();
    let mut content: Option<String> = None;
    let mut calls: Vec<Value> = Vec::new();
    let mut finish = Value::Null;
    let mut usage = None;
    for (_, chunk) in values {
        if let Some(error) = chunk.get("error") {
            return Err(Failed {
                status: 500,
                body: json!({ "error": error }),
            });
        }
        if reply.is_none() {
            reply = Some(chunk.clone());
        }
        if let Some(u) = chunk.get("usage").filter(|u| !u.is_null()) {
            usage = Some(u.clone());
        }
        let Some(choice) = chunk.pointer("/choices/0") else {
            continue;
        };
        if let Some(f) = choice.get("finish_reason").filter(|f| !f.is_null()) {
            finish = f.clone();
        }
        for (key, value) in choice.get("delta").and_then(Value::as_object).into_iter().flatten() {
            match (key.as_str(), value) {
                ("content", piece) => {
                    // Its place among the message's fields is where it first came; null until text does.
                    message.entry("content").or_insert(Value::Null);
                    if let Value::String(piece) = piece {
                        content.get_or_insert_with(String::new).push_str(piece);
                    }
                }
                ("tool_calls", Value::Array(deltas)) => {
                    for d in deltas {
                        let i = d.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
                        if i >= calls.len() {
                            calls.resize(i + 1, json!({}));
                        }
                        let call = &mut calls[i];
                        for key in ["id", "type"] {
                            if let Some(v) = d.get(key) {
                                call[key] = v.clone();
                            }
                        }
                        if let Some(f) = d.get("function") {
                            if let Some(name) = f.get("name") {
                                call["function"]["name"] = name.clone();
                            }
                            let piece = text_of(f, "arguments");
                            let so_far = text_of(&call["function"], "arguments").to_owned();
                            call["function"]["arguments"] = json!(so_far + piece);
                        }
                    }
                }
                _ => {
                    message.insert(key.clone(), value.clone());
                }
            }
        }
    }
    let Some(head) = reply else {
        return Err(broken("has no chunk".into()));
    };
    if let Some(text) = content {
        message.insert("content".into(), json!(text));
    }
    if !calls.is_empty() {
        message.insert("tool_calls".into(), Value::Array(calls));
    }
    let mut out = json!({
        "id": head["id"], "object": "chat.completion", "created": head["created"], "model": head["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    });
    if let Some(usage) = usage {
        out["usage"] = usage;
    }
    Ok(out)
}

fn assemble_anthropic(values: &[(Option<&str>, Value)]) -> Result<Value, Failed> {
    let mut message: Option<Value> = None;
    let mut blocks: Vec<Value> = Vec::new();
    let mut partial_json: Vec<String> = Vec::new();
    for (_, event) in values {
        let index = event.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
        match text_of(event, "type") {
            "error" => {
                let status = match event.pointer("/error/type").and_then(Value::as_str) {
                    Some("overloaded_error") => 529,
                    Some("api_error") => 500,
                    _ => 400,
                };
                return Err(Failed {
                    status,
                    body: event.clone(),
                });
            }
            "message_start" => message = event.get("message").cloned(),
            "content_block_start" => {
                if index >= blocks.len() {
                    blocks.resize(index + 1, Value::Null);
                    partial_json.resize(index + 1, String::new());
                }
                blocks[index] = event.get("content_block").cloned().unwrap_or(Value::Null);
            }
            "content_block_delta" => {
                let Some(block) = blocks.get_mut(index) else {
                    return Err(broken(format!("has a delta for block {index} before its start")));
                };
                let delta = &event["delta"];
                match text_of(delta, "type") {
                    "text_delta" => block["text"] = json!(text_of(block, "text").to_owned() + text_of(delta, "text")),
                    "thinking_delta" => {
                        block["thinking"] = json!(text_of(block, "thinking").to_owned() + text_of(delta, "thinking"));
                    }
                    "signature_delta" => block["signature"] = delta["signature"].clone(),
                    "input_json_delta" => partial_json[index].push_str(text_of(delta, "partial_json")),
                    "compaction_delta" => {
                        block["content"] = delta["content"].clone();
                        block["encrypted_content"] = delta["encrypted_content"].clone();
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                if let (Some(block), Some(json)) = (blocks.get_mut(index), partial_json.get(index)) {
                    if text_of(block, "type") == "tool_use" && !json.is_empty() {
                        block["input"] = serde_json::from_str(json)
                            .map_err(|_| broken(format!("has tool input that is not JSON: {json}")))?;
                    }
                }
            }
            "message_delta" => {
                let Some(m) = message.as_mut() else {
                    return Err(broken("has a message_delta before message_start".into()));
                };
                for (key, value) in event.get("delta").and_then(Value::as_object).into_iter().flatten() {
                    m[key] = value.clone();
                }
                if let (Some(usage), Some(Value::Object(delta))) = (m.get_mut("usage"), event.get("usage")) {
                    for (key, value) in delta {
                        usage[key] = value.clone();
                    }
                }
                if let Some(cm) = event.get("context_management") {
                    m["context_management"] = cm.clone();
                }
            }
            _ => {}
        }
    }
    let mut message = message.ok_or_else(|| broken("has no message_start".into()))?;
    message["content"] = Value::Array(blocks);
    Ok(message)
}

fn assemble_responses(values: &[(Option<&str>, Value)]) -> Result<Value, Failed> {
    let mut items: Vec<Value> = Vec::new();
    for (_, event) in values {
        let i = event.get("output_index").and_then(Value::as_u64).unwrap_or(0) as usize;
        let part = event.get("content_index").and_then(Value::as_u64).unwrap_or(0) as usize;
        match text_of(event, "type") {
            "response.output_item.added" => {
                if i >= items.len() {
                    items.resize(i + 1, Value::Null);
                }
                items[i] = event["item"].clone();
            }
            "response.content_part.added" => {
                if let Some(Value::Array(parts)) = items.get_mut(i).and_then(|item| item.get_mut("content")) {
                    parts.push(event["part"].clone());
                }
            }
            "response.output_text.delta" => {
                if let Some(p) = items
                    .get_mut(i)
                    .and_then(|item| item.pointer_mut(&format!("/content/{part}")))
                {
                    p["text"] = json!(text_of(p, "text").to_owned() + text_of(event, "delta"));
                }
            }
            "response.function_call_arguments.delta" => {
                if let Some(item) = items.get_mut(i) {
                    item["arguments"] = json!(text_of(item, "arguments").to_owned() + text_of(event, "delta"));
                }
            }
            "response.output_item.done" => {
                if let (Some(item), Some(status)) = (items.get_mut(i), event.pointer("/item/status")) {
                    item["status"] = status.clone();
                }
            }
            "response.failed" | "error" => {
                let error = event
                    .pointer("/response/error")
                    .cloned()
                    .unwrap_or_else(|| json!({"code": event["code"], "message": event["message"]}));
                return Err(Failed {
                    status: 500,
                    body: json!({ "error": error }),
                });
            }
            "response.completed" => {
                let response = event["response"].clone();
                if response.get("output") != Some(&Value::Array(items)) {
                    return Err(broken(
                        "gives output in its deltas that its response.completed does not hold".into(),
                    ));
                }
                return Ok(response);
            }
            _ => {}
        }
    }
    Err(broken("ended before response.completed".into()))
}
