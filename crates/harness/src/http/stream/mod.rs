//! A reply as its API's stream of server-sent events, and a stream read back into the reply: what
//! `serve` sends for `"stream": true`, and what [`super::HttpModel`] reads with `--stream`. Both
//! sides work on the unstreamed reply (the JSON [`super::shapes::reply`] makes), so a streamed call
//! carries exactly what the same call unstreamed does.
//!
//! The sequences, as each reference gives them (read 2026-12-05):
//! - OpenAI chat completions
//!   (<https://platform.openai.com/docs/api-reference/chat-streaming/streaming>): `data:` lines
//!   of `chat.completion.chunk` objects; the first delta names the role, text comes in `content`
//!   deltas, each tool call first with its `index`, `id`, `type` and name, then its `arguments` in
//!   pieces; the last chunk with choices carries `finish_reason`; with
//!   `stream_options.include_usage` every chunk has `"usage": null` and one more chunk, with no
//!   choices, the usage; then `data: [DONE]`. An error mid-stream is a `data:` line
//!   `{"error": {...}}` (what the official client raises on).
//! - Anthropic Messages (<https://docs.anthropic.com/en/api/messages-streaming>): `message_start`
//!   (the message with empty `content`, the input's usage), `ping`, per block
//!   `content_block_start` / `content_block_delta` (`text_delta`, `input_json_delta` with
//!   `partial_json`, `thinking_delta`, `signature_delta`) / `content_block_stop`, then
//!   `message_delta` (`stop_reason`, cumulative `usage`) and `message_stop`; an error mid-stream is
//!   an `error` event with `{"type": "error", "error": {"type", "message"}}`.
//! - OpenAI Responses
//!   (<https://platform.openai.com/docs/api-reference/responses-streaming>): events with `type`
//!   and an increasing `sequence_number`: `response.created`, `response.in_progress`, per output
//!   item `response.output_item.added`, for a message `response.content_part.added`,
//!   `response.output_text.delta`, `response.output_text.done`, `response.content_part.done`, for
//!   a call `response.function_call_arguments.delta` and `.done`, then
//!   `response.output_item.done`; last `response.completed` with the whole response and its usage.
//!   A failure mid-stream is `response.failed`, its response's `error` saying why.

use ctxbench_compact::wire::Format;
use serde_json::{Map, Value, json};

use super::sse::Event;

mod assemble;
#[cfg(test)]
mod tests;

pub use assemble::{Failed, assemble};

/// How a reply's events spread over its call's simulated time: what comes before the first token
/// is sent at once, the first token is due at `first_s` (the overhead and prefill), the rest at
/// the decode rate, and the end at `last_s` (the call's latency).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pace {
    /// When the first token is due.
    pub first_s: f64,
    /// When the last is.
    pub last_s: f64,
}

impl Pace {
    /// No waiting at all.
    pub const NOW: Pace = Pace {
        first_s: 0.0,
        last_s: 0.0,
    };
}

/// The characters of text or arguments one delta carries at most (a few tokens).
const PIECE: usize = 16;

/// `text` in pieces of at most [`PIECE`] bytes, cut at character boundaries.
fn pieces(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + PIECE).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(&text[start..end]);
        start = end;
    }
    out
}

/// Where an event stands in the reply's time.
#[derive(Clone, Copy)]
enum When {
    /// Before the first token: sent at once.
    Head,
    /// A delta of this many characters, or a frame between deltas (0).
    Body(usize),
    /// After the last token.
    Tail,
}

/// The events of one reply, collected in order and timed at the end.
#[derive(Default)]
struct Builder {
    events: Vec<(When, Option<String>, String)>,
    /// Responses' `sequence_number`.
    sequence: u64,
}

impl Builder {
    fn push(&mut self, when: When, name: Option<&str>, data: String) {
        self.events.push((when, name.map(str::to_owned), data));
    }

    /// A chat chunk (no event name).
    fn chunk(&mut self, when: When, data: &Value) {
        self.push(when, None, data.to_string());
    }

    /// An Anthropic event: its `type` is its name.
    fn named(&mut self, when: When, data: Value) {
        let name = data.get("type").and_then(Value::as_str).map(str::to_owned);
        self.push(when, name.as_deref(), data.to_string());
    }

    /// A Responses event: `type`, then its `sequence_number`, then `fields`.
    fn numbered(&mut self, when: When, kind: &str, fields: Value) {
        let mut data = Map::new();
        data.insert("type".into(), json!(kind));
        data.insert("sequence_number".into(), json!(self.sequence));
        if let Value::Object(fields) = fields {
            data.extend(fields);
        }
        self.sequence += 1;
        self.push(when, Some(kind), Value::Object(data).to_string());
    }

    fn timed(self, pace: Pace) -> Vec<Event> {
        let total: usize = self
            .events
            .iter()
            .map(|(w, ..)| if let When::Body(n) = w { *n } else { 0 })
            .sum();
        let span = (pace.last_s - pace.first_s).max(0.0);
        let mut done = 0;
        self.events
            .into_iter()
            .map(|(when, name, data)| {
                let at_s = match when {
                    When::Head => 0.0,
                    When::Tail => pace.last_s,
                    When::Body(n) => {
                        let at = pace.first_s
                            + if total == 0 {
                                0.0
                            } else {
                                span * done as f64 / total as f64
                            };
                        done += n;
                        at
                    }
                };
                Event { at_s, name, data }
            })
            .collect()
    }
}

/// `value` with `key` set to `to`, in its place (or added last).
fn with(value: &Value, key: &str, to: Value) -> Value {
    let mut value = value.clone();
    if let Some(object) = value.as_object_mut() {
        object.insert(key.into(), to);
    }
    value
}

fn text_of<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

fn list(value: &Value, key: &str) -> Vec<Value> {
    value.get(key).and_then(Value::as_array).cloned().unwrap_or_default()
}

/// The events of an unstreamed `reply` in `format`; `usage_chunk`: chat's
/// `stream_options.include_usage`.
pub fn events(format: Format, reply: &Value, usage_chunk: bool, pace: Pace) -> Vec<Event> {
    let mut b = Builder::default();
    match format {
        Format::Chat => chat(&mut b, reply, usage_chunk),
        Format::Anthropic => anthropic(&mut b, reply),
        Format::Responses => responses(&mut b, reply),
    }
    b.timed(pace)
}

/// The stream of a call that failed once under way: the head of `empty` (an empty reply, for its
/// ids), then the failure with `message`, as each API sends one.
pub fn failure(format: Format, empty: &Value, message: &str, usage_chunk: bool) -> Vec<Event> {
    let mut b = Builder::default();
    match format {
        Format::Chat => {
            chat_head(&mut b, empty, usage_chunk);
            let error = crate::http::error_body(message, "server_error", None, None);
            b.chunk(When::Tail, &error);
        }
        Format::Anthropic => {
            anthropic_head(&mut b, empty);
            b.named(
                When::Tail,
                json!({"type": "error", "error": {"type": "api_error", "message": message}}),
            );
        }
        Format::Responses => {
            responses_head(&mut b, empty);
            let failed = with(
                &with(empty, "status", json!("failed")),
                "error",
                json!({"code": "server_error", "message": message}),
            );
            b.numbered(
                When::Tail,
                "response.failed",
                json!({ "response": with(&failed, "usage", Value::Null) }),
            );
        }
    }
    b.timed(Pace::NOW)
}

fn chat_chunk(reply: &Value, delta: Value, finish: Value, usage_chunk: bool) -> Value {
    let mut chunk = json!({
        "id": reply["id"], "object": "chat.completion.chunk", "created": reply["created"], "model": reply["model"],
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
    });
    if usage_chunk {
        chunk["usage"] = Value::Null;
    }
    chunk
}

/// The first chunk: the role, `content` empty (or null where the message has none), and any
/// other field of the message.
fn chat_head(b: &mut Builder, reply: &Value, usage_chunk: bool) {
    let message = reply.pointer("/choices/0/message").cloned().unwrap_or(json!({}));
    let mut delta = Map::new();
    for (key, value) in message.as_object().into_iter().flatten() {
        match key.as_str() {
            "content" => {
                delta.insert(key.clone(), if value.is_string() { json!("") } else { value.clone() });
            }
            "tool_calls" => {}
            _ => {
                delta.insert(key.clone(), value.clone());
            }
        }
    }
    b.chunk(
        When::Head,
        &chat_chunk(reply, Value::Object(delta), Value::Null, usage_chunk),
    );
}

fn chat(b: &mut Builder, reply: &Value, usage_chunk: bool) {
    chat_head(b, reply, usage_chunk);
    let message = reply.pointer("/choices/0/message").cloned().unwrap_or(json!({}));
    for piece in pieces(text_of(&message, "content")) {
        b.chunk(
            When::Body(piece.len()),
            &chat_chunk(reply, json!({ "content": piece }), Value::Null, usage_chunk),
        );
    }
    for (i, call) in list(&message, "tool_calls").iter().enumerate() {
        let function = &call["function"];
        let opening = json!({"tool_calls": [{"index": i, "id": call["id"], "type": call["type"],
                             "function": {"name": function["name"], "arguments": ""}}]});
        b.chunk(When::Body(0), &chat_chunk(reply, opening, Value::Null, usage_chunk));
        for piece in pieces(text_of(function, "arguments")) {
            let delta = json!({"tool_calls": [{"index": i, "function": {"arguments": piece}}]});
            b.chunk(
                When::Body(piece.len()),
                &chat_chunk(reply, delta, Value::Null, usage_chunk),
            );
        }
    }
    let finish = reply
        .pointer("/choices/0/finish_reason")
        .cloned()
        .unwrap_or(Value::Null);
    b.chunk(When::Tail, &chat_chunk(reply, json!({}), finish, usage_chunk));
    if usage_chunk {
        let mut last = chat_chunk(reply, json!({}), Value::Null, true);
        last["choices"] = json!([]);
        last["usage"] = reply.get("usage").cloned().unwrap_or(Value::Null);
        b.chunk(When::Tail, &last);
    }
    b.push(When::Tail, None, "[DONE]".into());
}

/// `message_start` (the message without content or stop, its usage but for the output, which
/// `message_delta` gives; ctxbench's own figures in both, since a client that keeps the start's
/// usage may update only the fields it knows from the delta) and a `ping`.
fn anthropic_head(b: &mut Builder, reply: &Value) {
    let start_usage = with(
        &reply.get("usage").cloned().unwrap_or(json!({})),
        "output_tokens",
        json!(0),
    );
    let mut message = with(reply, "content", json!([]));
    message = with(&message, "stop_reason", Value::Null);
    message = with(&message, "stop_sequence", Value::Null);
    message = with(&message, "usage", start_usage);
    b.named(When::Head, json!({"type": "message_start", "message": message}));
    b.named(When::Head, json!({"type": "ping"}));
}

fn anthropic(b: &mut Builder, reply: &Value) {
    anthropic_head(b, reply);
    for (index, block) in list(reply, "content").iter().enumerate() {
        let delta = |b: &mut Builder, delta: Value, n: usize| {
            b.named(
                When::Body(n),
                json!({"type": "content_block_delta", "index": index, "delta": delta}),
            );
        };
        let (opening, deltas): (Value, Vec<(Value, usize)>) = match text_of(block, "type") {
            "text" => (
                with(block, "text", json!("")),
                pieces(text_of(block, "text"))
                    .into_iter()
                    .map(|p| (json!({"type": "text_delta", "text": p}), p.len()))
                    .collect(),
            ),
            "tool_use" => {
                let input = block.get("input").map(Value::to_string).unwrap_or_default();
                (
                    with(block, "input", json!({})),
                    pieces(&input)
                        .into_iter()
                        .map(|p| (json!({"type": "input_json_delta", "partial_json": p}), p.len()))
                        .collect(),
                )
            }
            "compaction" => (
                json!({"type": "compaction", "content": null, "encrypted_content": null}),
                vec![(
                    json!({"type": "compaction_delta", "content": block.get("content").cloned().unwrap_or(Value::Null),
                           "encrypted_content": block.get("encrypted_content").cloned().unwrap_or(Value::Null)}),
                    0,
                )],
            ),
            "thinking" => {
                let mut opening = with(block, "thinking", json!(""));
                if let Some(o) = opening.as_object_mut() {
                    o.remove("signature");
                }
                let mut deltas: Vec<(Value, usize)> = pieces(text_of(block, "thinking"))
                    .into_iter()
                    .map(|p| (json!({"type": "thinking_delta", "thinking": p}), p.len()))
                    .collect();
                if let Some(signature) = block.get("signature") {
                    deltas.push((json!({"type": "signature_delta", "signature": signature}), 0));
                }
                (opening, deltas)
            }
            _ => (block.clone(), Vec::new()),
        };
        b.named(
            When::Body(0),
            json!({"type": "content_block_start", "index": index, "content_block": opening}),
        );
        for (d, n) in deltas {
            delta(b, d, n);
        }
        b.named(When::Body(0), json!({"type": "content_block_stop", "index": index}));
    }
    let mut tail = json!({"type": "message_delta",
               "delta": {"stop_reason": reply["stop_reason"], "stop_sequence": reply["stop_sequence"]},
               "usage": reply.get("usage").cloned().unwrap_or(json!({}))});
    if let Some(cm) = reply.get("context_management") {
        tail["context_management"] = cm.clone();
    }
    b.named(When::Tail, tail);
    b.named(When::Tail, json!({"type": "message_stop"}));
}

/// `response.created` and `response.in_progress`, the response without output or usage.
fn responses_head(b: &mut Builder, reply: &Value) {
    let shell = with(
        &with(&with(reply, "status", json!("in_progress")), "output", json!([])),
        "usage",
        Value::Null,
    );
    b.numbered(When::Head, "response.created", json!({ "response": shell }));
    b.numbered(When::Head, "response.in_progress", json!({ "response": shell }));
}

fn responses(b: &mut Builder, reply: &Value) {
    responses_head(b, reply);
    for (output_index, item) in list(reply, "output").iter().enumerate() {
        let id = item.get("id").cloned().unwrap_or(Value::Null);
        let in_progress = |item: &Value| {
            if item.get("status").is_some() {
                with(item, "status", json!("in_progress"))
            } else {
                item.clone()
            }
        };
        match text_of(item, "type") {
            "message" => {
                b.numbered(
                    When::Body(0),
                    "response.output_item.added",
                    json!({"output_index": output_index, "item": in_progress(&with(item, "content", json!([])))}),
                );
                for (content_index, part) in list(item, "content").iter().enumerate() {
                    let at = json!({"item_id": id, "output_index": output_index, "content_index": content_index});
                    let text = text_of(part, "text");
                    let opening = if part.get("text").is_some() {
                        with(part, "text", json!(""))
                    } else {
                        part.clone()
                    };
                    b.numbered(When::Body(0), "response.content_part.added", with(&at, "part", opening));
                    if text_of(part, "type") == "output_text" {
                        for piece in pieces(text) {
                            let delta = with(&with(&at, "delta", json!(piece)), "logprobs", json!([]));
                            b.numbered(When::Body(piece.len()), "response.output_text.delta", delta);
                        }
                        let done = with(&with(&at, "text", json!(text)), "logprobs", json!([]));
                        b.numbered(When::Body(0), "response.output_text.done", done);
                    }
                    b.numbered(
                        When::Body(0),
                        "response.content_part.done",
                        with(&at, "part", part.clone()),
                    );
                }
            }
            "function_call" => {
                b.numbered(
                    When::Body(0),
                    "response.output_item.added",
                    json!({"output_index": output_index, "item": in_progress(&with(item, "arguments", json!("")))}),
                );
                let at = json!({"item_id": id, "output_index": output_index});
                let arguments = text_of(item, "arguments");
                for piece in pieces(arguments) {
                    b.numbered(
                        When::Body(piece.len()),
                        "response.function_call_arguments.delta",
                        with(&at, "delta", json!(piece)),
                    );
                }
                b.numbered(
                    When::Body(0),
                    "response.function_call_arguments.done",
                    with(&at, "arguments", json!(arguments)),
                );
            }
            "compaction" => {
                b.numbered(
                    When::Body(0),
                    "response.output_item.added",
                    json!({"output_index": output_index, "item": in_progress(item)}),
                );
                b.numbered(
                    When::Body(0),
                    "response.compaction.compacting",
                    json!({"item_id": id, "output_index": output_index}),
                );
            }
            _ => b.numbered(
                When::Body(0),
                "response.output_item.added",
                json!({"output_index": output_index, "item": in_progress(item)}),
            ),
        }
        b.numbered(
            When::Body(0),
            "response.output_item.done",
            json!({"output_index": output_index, "item": item}),
        );
    }
    b.numbered(When::Tail, "response.completed", json!({ "response": reply }));
}
