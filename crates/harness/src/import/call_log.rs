//! Call logs, the shape LLM proxies write: JSON lines `{"request": <chat request body>,
//! "response": <chat completion as returned>}`, one per model call. A conversation is the last
//! request of its calls with that call's reply appended; lines whose first user message differs
//! are separate conversations. Each call's logged usage is kept.

use ctxbench_compact::Error;
use ctxbench_compact::wire::Format;
use serde_json::{Value, json};

use crate::usage::LoggedUsage;

/// One conversation of a call log.
#[derive(Clone, Debug)]
pub struct LoggedConversation {
    /// The lines it was read from, from 1.
    pub lines: Vec<usize>,
    /// Its request body: the last request's messages and the last reply, the last tools.
    pub body: String,
    /// Each call's usage, in call order.
    pub usage: Vec<LoggedUsage>,
    /// How many messages each call's request held (system prompt included).
    pub sent: Vec<usize>,
    /// The wire format of `body`: chat for a proxy's call log, the agent's own for a session log.
    pub format: Format,
}

/// Whether `text` is a call log: its first line is an object with `request` and `response`.
pub fn is_call_log(text: &str) -> bool {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .and_then(|l| serde_json::from_str::<Value>(l).ok())
        .is_some_and(|v| v.get("request").is_some() && v.get("response").is_some())
}

/// The conversations of a call log, in the order their first call appears.
pub fn conversations(text: &str, source_name: &str) -> Result<Vec<LoggedConversation>, Error> {
    // (first user message, lines, last request, last reply, usages, messages sent)
    struct Open {
        key: String,
        lines: Vec<usize>,
        request: Value,
        reply: Value,
        usage: Vec<LoggedUsage>,
        sent: Vec<usize>,
    }
    let mut open: Vec<Open> = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let line_no = n + 1;
        let bad = |msg: String| Error::Input {
            source_name: source_name.to_owned(),
            at: format!("line {line_no}"),
            msg,
        };
        let value: Value = serde_json::from_str(line)
            .map_err(|e| Error::json_line(source_name, &e, "not a call log line", line_no))?;
        let request = value
            .get("request")
            .filter(|r| r.get("messages").is_some_and(Value::is_array))
            .ok_or_else(|| bad("a call log line needs \"request\" with a \"messages\" array".into()))?;
        let reply = value
            .pointer("/response/choices/0/message")
            .ok_or_else(|| bad("a call log line needs \"response\" with \"choices\"[0].\"message\"".into()))?;
        let messages = request["messages"].as_array().map_or(&[][..], Vec::as_slice);
        let key = messages
            .iter()
            .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
            .map(|m| m.get("content").map(Value::to_string).unwrap_or_default())
            .ok_or_else(|| bad("the request has no user message".into()))?;
        let usage = LoggedUsage::of(value.pointer("/response/usage").unwrap_or(&Value::Null));
        let conversation = match open.iter_mut().find(|c| c.key == key) {
            Some(c) => c,
            None => {
                open.push(Open {
                    key,
                    lines: Vec::new(),
                    request: Value::Null,
                    reply: Value::Null,
                    usage: Vec::new(),
                    sent: Vec::new(),
                });
                open.last_mut().unwrap_or_else(|| unreachable!("just pushed"))
            }
        };
        conversation.lines.push(line_no);
        conversation.sent.push(messages.len());
        conversation.request = request.clone();
        conversation.reply = reply.clone();
        conversation.usage.push(usage);
    }
    Ok(open
        .into_iter()
        .map(|c| {
            let mut messages = c.request["messages"].as_array().cloned().unwrap_or_default();
            messages.push(c.reply);
            let mut body = json!({"messages": messages});
            if let Some(tools) = c.request.get("tools") {
                body["tools"] = tools.clone();
            }
            LoggedConversation {
                lines: c.lines,
                body: body.to_string(),
                usage: c.usage,
                sent: c.sent,
                format: Format::Chat,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_group_by_their_first_user_message() {
        let line = |user: &str, extra: &str, cached: u64| {
            format!(
                r#"{{"request": {{"messages": [{{"role": "system", "content": "s"}}, {{"role": "user", "content": "{user}"}}{extra}]}}, "response": {{"choices": [{{"message": {{"role": "assistant", "content": "ok"}}}}], "usage": {{"prompt_tokens": 100, "completion_tokens": 5, "prompt_tokens_details": {{"cached_tokens": {cached}}}}}}}}}"#
            )
        };
        let more = r#", {"role": "assistant", "content": "ok"}, {"role": "user", "content": "again"}"#;
        let text = [line("a", "", 0), line("b", "", 0), line("a", more, 64)].join("\n");
        assert!(is_call_log(&text));
        let found = conversations(&text, "log.jsonl").expect("a call log");
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].lines, [1, 3]);
        assert_eq!(found[0].sent, [2, 4]);
        assert_eq!(
            found[0].usage.iter().map(|u| u.cache_read_tokens).collect::<Vec<_>>(),
            [0, 64]
        );
        let body: Value = serde_json::from_str(&found[0].body).expect("JSON");
        assert_eq!(
            body["messages"].as_array().map(Vec::len),
            Some(5),
            "the last request and its reply"
        );
        let e = conversations("{\"request\": {}, \"response\": {}}", "log.jsonl").expect_err("no messages");
        assert!(e.to_string().contains("line 1"), "{e}");
        assert!(!is_call_log("{\"messages\": []}"));
    }
}
