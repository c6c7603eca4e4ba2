//! Agents' own session logs, read into the request body each model call had, with the usage each
//! call logged: Claude Code's session JSONL (an Anthropic Messages conversation) and Codex's
//! rollout JSONL (an OpenAI Responses one). Where each field's meaning comes from is cited in
//! `docs/import.md`.
//!
//! - **Claude Code** (`~/.claude/projects/<project>/<session>.jsonl`): lines of `type` `user` and
//!   `assistant` hold an Anthropic message in `message`; one reply is written as one line per
//!   content block, each with the same `message.id` (and tool results may come between them), so
//!   lines of one `message.id` are one assistant turn, and consecutive user lines one user turn,
//!   as Claude Code sends them. `isSidechain` lines are a subagent's; `isApiErrorMessage` lines
//!   were never a model's; `summary`, `file-history-snapshot`, `queue-operation` and `system`
//!   lines are not sent, but a `compact_boundary` starts the conversation over. The log holds
//!   neither the system prompt nor the tool schemas.
//! - **Codex** (`~/.codex/sessions/YYYY/MM/DD/rollout-….jsonl`): lines `{timestamp, type,
//!   payload}`; `response_item` payloads are the Responses items sent and received, in order;
//!   `session_meta` may carry the base instructions; `compacted` replaces the history with its
//!   `replacement_history`; an `event_msg` of type `token_count` reports the last call's usage
//!   (`last_token_usage`: `input_tokens` with `cached_input_tokens` among them, `output_tokens`).

use std::collections::BTreeMap;

use ctxbench_compact::Error;
use ctxbench_compact::message::Role;
use ctxbench_compact::request_body::RequestBody;
use ctxbench_compact::wire::Format;
use serde_json::{Map, Value, json};

use super::call_log::LoggedConversation;
use crate::usage::LoggedUsage;

/// Whose session log a file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionLog {
    /// Claude Code's session JSONL.
    ClaudeCode,
    /// Codex's rollout JSONL.
    Codex,
}

impl SessionLog {
    /// The agent's name, as people say it.
    pub fn name(self) -> &'static str {
        match self {
            SessionLog::ClaudeCode => "Claude Code session",
            SessionLog::Codex => "Codex rollout",
        }
    }
}

/// Whether `text` is an agent's session log: Codex's lines are `{timestamp, type, payload}` from
/// the first; Claude Code's carry `sessionId` and `uuid` (its first lines may be a `summary` or a
/// `file-history-snapshot` without them, so the first twenty are looked at).
pub fn session_log(text: &str) -> Option<SessionLog> {
    let mut lines = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(20)
        .map(|l| serde_json::from_str::<Value>(l).ok());
    let first = lines.next()??;
    first.get("type").and_then(Value::as_str)?;
    if first.get("payload").is_some() && first.get("timestamp").is_some() {
        return Some(SessionLog::Codex);
    }
    let claude = |v: &Value| v.get("sessionId").is_some() && v.get("uuid").is_some();
    (claude(&first) || lines.flatten().any(|v| claude(&v))).then_some(SessionLog::ClaudeCode)
}

/// The conversation of a session log: its body (in the agent's own format), each model call's
/// logged usage and where it stands, and what was taken along the way.
pub fn read_session(
    text: &str,
    source_name: &str,
    log: SessionLog,
) -> Result<(LoggedConversation, Vec<String>), Error> {
    let mut lines = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let value: Value = serde_json::from_str(line)
            .map_err(|e| Error::json_line(source_name, &e, "not a session log line", n + 1))?;
        lines.push((n + 1, value));
    }
    let read = match log {
        SessionLog::ClaudeCode => claude_code(&lines),
        SessionLog::Codex => codex(&lines),
    };
    let (format, body) = match log {
        SessionLog::ClaudeCode => (Format::Anthropic, json!({"messages": read.items})),
        SessionLog::Codex => {
            let mut body = Map::new();
            if let Some(instructions) = read.instructions {
                body.insert("instructions".into(), instructions.into());
            }
            body.insert("input".into(), Value::Array(read.items));
            (Format::Responses, Value::Object(body))
        }
    };
    let text = body.to_string();
    let parsed = RequestBody::parse_as(&text, source_name, Some(format))?;
    // Each model call: the history message its reply became, and the usage logged for it.
    let mut sent = Vec::new();
    let mut usage = Vec::new();
    let mut at_lines = Vec::new();
    for (k, message) in parsed.conversation.clone().into_messages().iter().enumerate() {
        let Some(items) = parsed.wire_items(message).filter(|_| message.role() == Role::Assistant) else {
            continue;
        };
        let logged = items.clone().rev().find_map(|i| read.usage.get(&i));
        sent.push(k);
        usage.push(logged.map_or_else(LoggedUsage::default, |(_, u)| *u));
        at_lines.push(
            logged
                .map(|(line, _)| *line)
                .or_else(|| read.lines.get(items.start).copied())
                .unwrap_or(0),
        );
    }
    let conversation = LoggedConversation {
        lines: at_lines,
        body: text,
        usage,
        sent,
        format,
    };
    Ok((conversation, read.notes))
}

/// A session log read into a list of items.
#[derive(Default)]
struct Read {
    /// Anthropic messages or Responses items, as sent.
    items: Vec<Value>,
    /// The line each item was first read from.
    lines: Vec<usize>,
    /// Responses' `instructions`.
    instructions: Option<String>,
    /// The usage logged for the model call whose reply item (the last one, for a run of
    /// Responses items) is the key, with its line.
    usage: BTreeMap<usize, (usize, LoggedUsage)>,
    notes: Vec<String>,
}

impl Read {
    /// Starts the conversation over (the agent compacted it), noting the line.
    fn restart(&mut self, line: usize, with: Vec<Value>) {
        self.notes.push(format!(
            "line {line}: the agent compacted its history here; the conversation is imported from there"
        ));
        self.lines = vec![line; with.len()];
        self.items = with;
        self.usage.clear();
    }
}

/// A string content as a list of one text block, a list as it is.
fn blocks(content: &Value) -> Vec<Value> {
    match content {
        Value::String(text) => vec![json!({"type": "text", "text": text})],
        Value::Array(list) => list.clone(),
        _ => Vec::new(),
    }
}

fn claude_code(lines: &[(usize, Value)]) -> Read {
    let mut read = Read::default();
    let (mut sidechain, mut synthetic) = (0, 0);
    // The `message.id` of the last assistant turn, and its item.
    let mut last_reply: Option<(String, usize)> = None;
    for (line, value) in lines {
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
        if kind == "system" && value.get("subtype").and_then(Value::as_str) == Some("compact_boundary") {
            read.restart(*line, Vec::new());
            last_reply = None;
            continue;
        }
        if kind != "user" && kind != "assistant" {
            continue;
        }
        if value.get("isSidechain").and_then(Value::as_bool) == Some(true) {
            sidechain += 1;
            continue;
        }
        if value.get("isApiErrorMessage").and_then(Value::as_bool) == Some(true) {
            synthetic += 1;
            continue;
        }
        let Some(message) = value.get("message") else { continue };
        let content = message.get("content").unwrap_or(&Value::Null);
        if kind == "assistant" {
            let id = message.get("id").and_then(Value::as_str).unwrap_or("").to_owned();
            let at = match &last_reply {
                // Another block of the same reply: it joins its turn.
                Some((last, at)) if !id.is_empty() && *last == id => *at,
                _ => {
                    read.items.push(json!({"role": "assistant", "content": []}));
                    read.lines.push(*line);
                    read.items.len() - 1
                }
            };
            if let Some(list) = read.items[at]["content"].as_array_mut() {
                list.extend(blocks(content));
            }
            if let Some(usage) = message.get("usage") {
                read.usage
                    .insert(at, (*line, LoggedUsage::in_format(usage, Format::Anthropic)));
            }
            last_reply = Some((id, at));
            continue;
        }
        // A user line: it joins the user turn it follows.
        match read.items.last_mut() {
            Some(last) if last["role"] == "user" => {
                let more = blocks(content);
                let mut joined = blocks(&last["content"]);
                joined.extend(more);
                last["content"] = Value::Array(joined);
            }
            _ => {
                read.items.push(json!({"role": "user", "content": content}));
                read.lines.push(*line);
            }
        }
    }
    if sidechain > 0 {
        read.notes.push(format!(
            "{sidechain} lines of a subagent (isSidechain) left out: a subagent is a conversation of its own"
        ));
    }
    if synthetic > 0 {
        read.notes.push(format!(
            "{synthetic} API error lines left out: Claude Code wrote them, no model did"
        ));
    }
    read.notes.push(
        "a Claude Code session does not log its system prompt or tool schemas: the scenario has none, the schemas are inferred".into(),
    );
    read
}

/// Responses items a model writes (the rest are inputs: messages of the user, system or
/// developer, and call outputs).
fn model_item(item: &Value) -> bool {
    match item.get("type").and_then(Value::as_str) {
        Some("message") => item.get("role").and_then(Value::as_str) == Some("assistant"),
        Some(kind) => !kind.ends_with("_output"),
        None => false,
    }
}

fn codex(lines: &[(usize, Value)]) -> Read {
    let mut read = Read::default();
    for (line, value) in lines {
        let payload = value.get("payload").unwrap_or(&Value::Null);
        match value.get("type").and_then(Value::as_str) {
            Some("session_meta") => {
                if let Some(text) = payload.pointer("/base_instructions/text").and_then(Value::as_str) {
                    read.instructions = Some(text.to_owned());
                }
            }
            Some("response_item") => {
                // Codex's own snapshots of the work tree are never sent.
                if payload.get("type").and_then(Value::as_str) == Some("ghost_snapshot") {
                    continue;
                }
                read.items.push(payload.clone());
                read.lines.push(*line);
            }
            Some("compacted") => {
                let with = payload
                    .get("replacement_history")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                read.restart(*line, with);
            }
            Some("event_msg") if payload.get("type").and_then(Value::as_str) == Some("token_count") => {
                let Some(last) = payload.pointer("/info/last_token_usage") else {
                    continue;
                };
                let Some(at) = read.items.iter().rposition(model_item) else {
                    continue;
                };
                let count = |key: &str| last.get(key).and_then(Value::as_u64);
                let usage = LoggedUsage {
                    prompt_tokens: count("input_tokens"),
                    cache_read_tokens: count("cached_input_tokens").unwrap_or(0),
                    cache_write_tokens: 0,
                    completion_tokens: count("output_tokens"),
                };
                read.usage.insert(at, (*line, usage));
            }
            _ => {}
        }
    }
    if read.instructions.is_none() {
        read.notes
            .push("the rollout does not hold Codex's base instructions: the scenario has no system prompt".into());
    }
    read
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claude(kind: &str, message: Value, extra: Value) -> String {
        let mut line = json!({"type": kind, "sessionId": "s", "uuid": "u", "message": message});
        if let (Some(line), Some(extra)) = (line.as_object_mut(), extra.as_object()) {
            line.extend(extra.clone());
        }
        line.to_string()
    }

    fn body(conversation: &LoggedConversation) -> Value {
        serde_json::from_str(&conversation.body).expect("JSON")
    }

    #[test]
    fn claude_codes_lines_become_the_turns_it_sent() {
        let call = |id: &str, tool: &str| json!({"role": "assistant", "id": id, "content": [{"type": "tool_use", "id": tool, "name": "Read", "input": {"file_path": tool}}], "usage": {"input_tokens": 5, "cache_read_input_tokens": 100, "output_tokens": 9}});
        let result = |tool: &str| json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool, "content": "text"}]});
        let lines = [
            json!({"type": "summary", "summary": "a title", "leafUuid": "u"}).to_string(),
            claude("user", json!({"role": "user", "content": "read a and b"}), json!({})),
            // One reply in two lines, a result between them (as Claude Code writes parallel calls).
            claude("assistant", call("msg_1", "a"), json!({})),
            claude("user", result("a"), json!({})),
            claude("assistant", call("msg_1", "b"), json!({})),
            claude("user", result("b"), json!({})),
            // A subagent's line and an API error Claude Code wrote: neither was sent.
            claude("assistant", call("msg_9", "z"), json!({"isSidechain": true})),
            claude(
                "assistant",
                json!({"role": "assistant", "id": "e", "content": [{"type": "text", "text": "API Error"}]}),
                json!({"isApiErrorMessage": true}),
            ),
            claude(
                "assistant",
                json!({"role": "assistant", "id": "msg_2", "content": [{"type": "text", "text": "done"}]}),
                json!({}),
            ),
        ]
        .join("\n");
        assert_eq!(session_log(&lines), Some(SessionLog::ClaudeCode));
        let (read, notes) = read_session(&lines, "s.jsonl", SessionLog::ClaudeCode).expect("a session");
        let messages = body(&read)["messages"].clone();
        assert_eq!(messages.as_array().map(Vec::len), Some(4), "{messages}");
        assert_eq!(
            messages[1]["content"].as_array().map(Vec::len),
            Some(2),
            "both calls in one turn"
        );
        assert_eq!(
            messages[2]["content"].as_array().map(Vec::len),
            Some(2),
            "both results in one turn"
        );
        // The two model calls, where their replies stand in the history (user, assistant,
        // result, result, assistant), and the usage the first logged.
        assert_eq!(read.sent, [1, 4]);
        assert_eq!(read.usage[0].prompt_tokens, Some(105));
        assert_eq!(read.usage[1].prompt_tokens, None, "the second logged none");
        assert!(notes.iter().any(|n| n.contains("1 lines of a subagent")), "{notes:?}");
        assert!(notes.iter().any(|n| n.contains("1 API error lines")), "{notes:?}");
    }

    #[test]
    fn a_compaction_starts_the_conversation_over() {
        let lines = [
            claude("user", json!({"role": "user", "content": "first"}), json!({})),
            claude(
                "assistant",
                json!({"role": "assistant", "id": "m1", "content": [{"type": "text", "text": "ok"}]}),
                json!({}),
            ),
            json!({"type": "system", "subtype": "compact_boundary", "sessionId": "s", "uuid": "b"}).to_string(),
            claude(
                "user",
                json!({"role": "user", "content": "This session is being continued; the summary: …"}),
                json!({"isCompactSummary": true}),
            ),
            claude(
                "assistant",
                json!({"role": "assistant", "id": "m2", "content": [{"type": "text", "text": "go on"}]}),
                json!({}),
            ),
        ]
        .join("\n");
        let (read, notes) = read_session(&lines, "s.jsonl", SessionLog::ClaudeCode).expect("a session");
        assert_eq!(body(&read)["messages"].as_array().map(Vec::len), Some(2));
        assert!(notes[0].starts_with("line 3: the agent compacted"), "{notes:?}");

        let codex =
            |kind: &str, payload: Value| json!({"timestamp": "t", "type": kind, "payload": payload}).to_string();
        let user =
            |text: &str| json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]});
        let said = |text: &str| json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]});
        let usage = |input: u64, cached: u64| json!({"type": "token_count", "info": {"last_token_usage": {"input_tokens": input, "cached_input_tokens": cached, "output_tokens": 3}}});
        let lines = [
            codex(
                "session_meta",
                json!({"id": "s", "base_instructions": {"text": "Be Codex."}}),
            ),
            codex("response_item", user("first")),
            codex("response_item", said("ok")),
            codex("event_msg", usage(50, 0)),
            codex(
                "compacted",
                json!({"message": "summary", "replacement_history": [user("first"), said("summary")]}),
            ),
            codex("response_item", user("next")),
            codex("response_item", json!({"type": "ghost_snapshot", "ghost_commit": {}})),
            codex("response_item", said("done")),
            codex("event_msg", usage(80, 64)),
        ]
        .join("\n");
        assert_eq!(session_log(&lines), Some(SessionLog::Codex));
        let (read, notes) = read_session(&lines, "r.jsonl", SessionLog::Codex).expect("a rollout");
        let sent = body(&read);
        assert_eq!(sent["instructions"], "Be Codex.");
        assert_eq!(
            sent["input"].as_array().map(Vec::len),
            Some(4),
            "the replacement, then what followed: {sent}"
        );
        assert!(notes[0].starts_with("line 5: the agent compacted"), "{notes:?}");
        // The model calls after the compaction: the replacement's summary (no usage) and `done`.
        assert_eq!(read.sent, [2, 4]);
        assert_eq!(
            (read.usage[1].prompt_tokens, read.usage[1].cache_read_tokens),
            (Some(80), 64)
        );
        assert_eq!(read.usage[0].prompt_tokens, None);
    }
}
