//! What `serve` answers in each wire format: a reply and an error, shaped as the API it stands in
//! for.
//!
//! - OpenAI chat completions: `chat.completion` (`choices[0].message`, `finish_reason`), usage in
//!   `prompt_tokens` with `prompt_tokens_details.cached_tokens`; errors
//!   `{"error": {"message", "type", "param", "code"}}`.
//! - Anthropic Messages (<https://docs.claude.com/en/api/messages>, errors at
//!   <https://docs.claude.com/en/api/errors>, both read 2026-12-04): a `message` with `content`
//!   blocks and `stop_reason` `tool_use` or `end_turn`; `usage.input_tokens` are the tokens neither
//!   read from the cache nor written to it, beside `cache_read_input_tokens` and
//!   `cache_creation_input_tokens`; errors `{"type": "error", "error": {"type", "message"}}`, the
//!   type following the status (`invalid_request_error`, `not_found_error`, `request_too_large`,
//!   `api_error`), and a request over the window says `prompt is too long: N tokens > M maximum`.
//! - OpenAI Responses (<https://platform.openai.com/docs/api-reference/responses/object>, read
//!   2026-12-04): a `response` whose `output` holds a `message` item (`output_text`) and a
//!   `function_call` item per call; usage in `input_tokens` with
//!   `input_tokens_details.cached_tokens`; errors in OpenAI's shape.
//!
//! ctxbench's own figures (`ctxbench_step`, `ctxbench_facts_*`, `ctxbench_latency_s`) ride in
//! `usage` in every format.

use ctxbench_compact::message::Message;
use ctxbench_compact::summaries::COMPACTION;
use ctxbench_compact::wire::{Format, body_from_chat};
use serde_json::{Map, Value, json};

use super::context::ServerView;
use super::error_body;
use crate::trace::CallRecord;

/// The body of an error with `status`, in `format`'s shape.
pub fn error(format: Format, status: u16, message: &str, param: Option<&str>, code: Option<&str>) -> Value {
    match format {
        Format::Anthropic => {
            let kind = match status {
                404 => "not_found_error",
                413 => "request_too_large",
                500.. => "api_error",
                _ => "invalid_request_error",
            };
            json!({"type": "error", "error": {"type": kind, "message": message}})
        }
        Format::Chat | Format::Responses => {
            let kind = if status >= 500 {
                "server_error"
            } else {
                "invalid_request_error"
            };
            error_body(message, kind, param, code)
        }
    }
}

/// What a request over the window is told, in `format`'s words.
pub fn too_long(format: Format, needed: u64, window: u64) -> String {
    match format {
        Format::Anthropic => format!("prompt is too long: {needed} tokens > {window} maximum"),
        Format::Chat | Format::Responses => super::context_length_message(needed, window),
    }
}

/// ctxbench's figures of a call, added to the usage of every format.
fn ctxbench_usage(usage: &mut Map<String, Value>, record: &CallRecord) {
    usage.insert("ctxbench_latency_s".into(), json!(record.latency_s));
    usage.insert("ctxbench_step".into(), json!(record.step));
    usage.insert("ctxbench_facts_needed".into(), json!(record.needed));
    usage.insert("ctxbench_facts_lost".into(), json!(record.lost));
    if !record.wrong.is_empty() {
        usage.insert("ctxbench_facts_wrong".into(), json!(record.wrong));
    }
    if !record.stale.is_empty() {
        usage.insert("ctxbench_facts_stale".into(), json!(record.stale));
    }
    if let Some(cycle) = &record.summary {
        usage.insert("ctxbench_summary".into(), json!(cycle));
    }
    usage.insert("ctxbench_facts_refetched".into(), json!(record.refetched));
}

/// The answer to an accepted call: `message` is the model's reply, `record` the call's trace line.
pub fn reply(format: Format, model: &str, message: Message, record: &CallRecord) -> Value {
    let n = record.call;
    let calls = record.reply_calls > 0;
    match format {
        Format::Chat => {
            let mut usage = Map::new();
            usage.insert("prompt_tokens".into(), json!(record.true_tokens));
            usage.insert("completion_tokens".into(), json!(record.completion_tokens));
            usage.insert(
                "total_tokens".into(),
                json!(record.true_tokens + record.completion_tokens),
            );
            usage.insert(
                "prompt_tokens_details".into(),
                json!({"cached_tokens": record.cache_read_tokens}),
            );
            usage.insert("cache_creation_input_tokens".into(), json!(record.cache_write_tokens));
            ctxbench_usage(&mut usage, record);
            json!({
                "id": format!("chatcmpl-ctxbench-{n}"), "object": "chat.completion", "created": 0, "model": model,
                "choices": [{"index": 0, "message": message.into_value(),
                             "finish_reason": if calls { "tool_calls" } else { "stop" }}],
                "usage": usage,
            })
        }
        Format::Anthropic => {
            let mut usage = Map::new();
            usage.insert("input_tokens".into(), json!(record.uncached_tokens));
            usage.insert("cache_creation_input_tokens".into(), json!(record.cache_write_tokens));
            usage.insert("cache_read_input_tokens".into(), json!(record.cache_read_tokens));
            usage.insert("output_tokens".into(), json!(record.completion_tokens));
            ctxbench_usage(&mut usage, record);
            json!({
                "id": format!("msg_ctxbench_{n}"), "type": "message", "role": "assistant", "model": model,
                "content": anthropic_blocks(&message),
                "stop_reason": if calls { "tool_use" } else { "end_turn" }, "stop_sequence": null,
                "usage": usage,
            })
        }
        Format::Responses => {
            let mut usage = Map::new();
            usage.insert("input_tokens".into(), json!(record.billed_tokens));
            usage.insert(
                "input_tokens_details".into(),
                json!({"cached_tokens": record.cache_read_tokens}),
            );
            usage.insert("output_tokens".into(), json!(record.completion_tokens));
            usage.insert("output_tokens_details".into(), json!({"reasoning_tokens": 0}));
            usage.insert(
                "total_tokens".into(),
                json!(record.billed_tokens + record.completion_tokens),
            );
            usage.insert("cache_creation_input_tokens".into(), json!(record.cache_write_tokens));
            ctxbench_usage(&mut usage, record);
            response(n, model, responses_output(n, &message), Value::Object(usage))
        }
    }
}

/// The answer once the scenario's script has ended: an empty reply, `ctxbench_script_ended` in
/// its usage.
pub fn script_ended(format: Format, n: usize, model: &str) -> Value {
    match format {
        Format::Chat => json!({
            "id": format!("chatcmpl-ctxbench-{n}"), "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": ""}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0, "ctxbench_script_ended": true}
        }),
        Format::Anthropic => json!({
            "id": format!("msg_ctxbench_{n}"), "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": "end_turn", "stop_sequence": null,
            "usage": {"input_tokens": 0, "output_tokens": 0, "ctxbench_script_ended": true}
        }),
        Format::Responses => response(
            n,
            model,
            Vec::new(),
            json!({"input_tokens": 0, "output_tokens": 0, "total_tokens": 0, "ctxbench_script_ended": true}),
        ),
    }
}

/// A reply's content as Anthropic blocks: its text (when it has any), then a `tool_use` per call.
fn anthropic_blocks(message: &Message) -> Value {
    let body = body_from_chat(Format::Anthropic, None, std::slice::from_ref(message), &[]);
    match body.pointer("/messages/0/content") {
        Some(Value::Array(blocks)) => Value::Array(blocks.clone()),
        Some(Value::String(text)) if !text.is_empty() => json!([{"type": "text", "text": text}]),
        _ => json!([]),
    }
}

/// A reply as Responses output items, each with its id and status: a `message` with its text
/// (`output_text` parts carry `annotations`), then a `function_call` per call.
fn responses_output(n: usize, message: &Message) -> Vec<Value> {
    let body = body_from_chat(Format::Responses, None, std::slice::from_ref(message), &[]);
    let items = body.get("input").and_then(Value::as_array).cloned().unwrap_or_default();
    items
        .into_iter()
        .enumerate()
        .map(|(i, mut item)| {
            let Some(object) = item.as_object_mut() else {
                return item;
            };
            let id = match object.get("type").and_then(Value::as_str) {
                Some("function_call") => format!("fc_ctxbench_{n}_{i}"),
                _ => {
                    if let Some(parts) = object.get_mut("content").and_then(Value::as_array_mut) {
                        for part in parts.iter_mut().filter_map(Value::as_object_mut) {
                            part.insert("annotations".into(), json!([]));
                        }
                    }
                    format!("msg_ctxbench_{n}_{i}")
                }
            };
            let mut shaped = Map::new();
            shaped.insert("id".into(), json!(id));
            shaped.extend(std::mem::take(object));
            shaped.insert("status".into(), json!("completed"));
            Value::Object(shaped)
        })
        .collect()
}

/// A `response` object around `output` and `usage`.
fn response(n: usize, model: &str, output: Vec<Value>, usage: Value) -> Value {
    json!({
        "id": format!("resp_ctxbench_{n}"), "object": "response", "created_at": 0, "status": "completed",
        "model": model, "output": output, "usage": usage,
        "error": null, "incomplete_details": null, "instructions": null, "metadata": {},
        "parallel_tool_calls": true, "temperature": null, "tool_choice": "auto", "tools": [], "top_p": null,
    })
}

/// Anthropic's usage of one sampling iteration of a call (`usage.iterations`).
fn iteration(kind: &str, record: &CallRecord) -> Value {
    json!({
        "type": kind,
        "input_tokens": record.uncached_tokens,
        "cache_read_input_tokens": record.cache_read_tokens,
        "cache_creation_input_tokens": record.cache_write_tokens,
        "output_tokens": record.completion_tokens,
    })
}

/// OpenAI's usage of a call (`response.usage`, `CompactedResponse.usage`).
fn responses_usage(record: &CallRecord) -> Value {
    json!({
        "input_tokens": record.billed_tokens,
        "input_tokens_details": {"cached_tokens": record.cache_read_tokens},
        "output_tokens": record.completion_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": record.billed_tokens + record.completion_tokens,
    })
}

/// A compaction as its format's element: Anthropic's `compaction` block, OpenAI's
/// `compaction` item (its summary encrypted, as the API's is).
fn compaction_element(format: Format, summary: &str, n: usize) -> Value {
    let message = Message::new(ctxbench_compact::Role::Assistant, format!("{COMPACTION}\n{summary}"));
    let body = body_from_chat(format, None, std::slice::from_ref(&message), &[]);
    match format {
        Format::Anthropic => body
            .pointer("/messages/0/content/0")
            .cloned()
            .unwrap_or_else(|| json!({"type": "compaction", "content": summary})),
        _ => {
            let mut item = body
                .pointer("/input/0")
                .cloned()
                .unwrap_or_else(|| json!({"type": "compaction"}));
            if let Some(object) = item.as_object_mut() {
                let mut shaped = Map::new();
                shaped.insert("id".into(), json!(format!("cmp_ctxbench_{n}")));
                shaped.extend(std::mem::take(object));
                *object = shaped;
            }
            item
        }
    }
}

/// What the server's context management adds to an answer: the compaction first (its usage in
/// Anthropic's `usage.iterations`, or ctxbench's `usage.ctxbench_compaction` for OpenAI, which
/// documents none), and Anthropic's `context_management.applied_edits`.
pub(crate) fn server_side(format: Format, body: &mut Value, view: &ServerView, trace: &[CallRecord]) {
    let compaction = view.compaction.as_ref().and_then(|(s, at)| Some((s, trace.get(*at)?)));
    match format {
        Format::Anthropic => {
            if let Some((summary, record)) = compaction {
                let block = compaction_element(format, summary, record.call);
                if let Some(content) = body.get_mut("content").and_then(Value::as_array_mut) {
                    content.insert(0, block);
                }
                let message = body.get("usage").cloned().unwrap_or_default();
                let message_iteration = json!({
                    "type": "message",
                    "input_tokens": message["input_tokens"],
                    "cache_read_input_tokens": message["cache_read_input_tokens"],
                    "cache_creation_input_tokens": message["cache_creation_input_tokens"],
                    "output_tokens": message["output_tokens"],
                });
                body["usage"]["iterations"] = json!([iteration("compaction", record), message_iteration]);
            }
            body["context_management"] = json!({"applied_edits": view.applied});
        }
        Format::Responses => {
            if let Some((summary, record)) = compaction {
                let item = compaction_element(format, summary, record.call);
                if let Some(output) = body.get_mut("output").and_then(Value::as_array_mut) {
                    output.insert(0, item);
                }
                body["usage"]["ctxbench_compaction"] = responses_usage(record);
            }
        }
        Format::Chat => {}
    }
}

/// Anthropic's answer under `pause_after_compaction`: the compaction block alone, `stop_reason`
/// `compaction`; its iteration the only usage (a compaction's tokens are not in the top level).
pub(crate) fn paused(format: Format, model: &str, view: &ServerView, trace: &[CallRecord]) -> Value {
    let Some((summary, record)) = view.compaction.as_ref().and_then(|(s, at)| Some((s, trace.get(*at)?))) else {
        return script_ended(format, trace.len() + 1, model);
    };
    json!({
        "id": format!("msg_ctxbench_{}", record.call), "type": "message", "role": "assistant", "model": model,
        "content": [compaction_element(format, summary, record.call)],
        "stop_reason": "compaction", "stop_sequence": null,
        "usage": {"input_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 0,
                  "iterations": [iteration("compaction", record)]},
        "context_management": {"applied_edits": view.applied},
    })
}

/// `POST /v1/responses/compact`'s answer (`CompactedResponse`): the compacted history (the
/// user's messages, then the compaction item) and the compaction pass's usage.
pub(crate) fn compacted(model: &str, messages: &[Message], record: &CallRecord) -> Value {
    let body = body_from_chat(Format::Responses, None, messages, &[]);
    let output: Vec<Value> = body
        .get("input")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(i, mut item)| {
            let id = if item["type"] == "compaction" {
                format!("cmp_ctxbench_{}", record.call)
            } else {
                format!("msg_ctxbench_{}_{i}", record.call)
            };
            if let Some(object) = item.as_object_mut() {
                let mut shaped = Map::new();
                shaped.insert("id".into(), json!(id));
                shaped.extend(std::mem::take(object));
                if shaped.get("type").and_then(Value::as_str) == Some("message") {
                    shaped.insert("status".into(), json!("completed"));
                }
                *object = shaped;
            }
            item
        })
        .collect();
    json!({
        "id": format!("resp_ctxbench_compact_{}", record.call), "object": "response.compaction", "created_at": 0,
        "model": model, "output": output, "usage": responses_usage(record),
    })
}
