//! What a summary brings along: the span's user messages carried over under a token budget
//! (Codex keeps the user's own words, newest first, up to 20,000 tokens) and the files it read,
//! read again (Claude Code brings back the last five files, each up to 5,000 tokens).
//!
//! Both as their sources do (checked 2026-12-06): Codex's `build_compacted_history_with_limit`
//! (`codex-rs/core/src/compact.rs`) counts a message as its bytes over four, rounded up, keeps
//! the newest that fit, and cuts the first that does not in its middle with
//! `…N tokens truncated…` (`truncate_middle_with_token_budget`, as shipped in `@openai/codex`
//! 0.171.0); Claude Code writes a file read again as two user messages, the Read call and its
//! result, and a file too large as a note (strings of `@anthropic-ai/claude-code` 2.1.332).

use serde_json::Value;

use super::notes::is_placeholder;
use crate::message::{Message, Role};
use crate::summaries::{REREAD_CALL, REREAD_NOTE, REREAD_RESULT};
use crate::tokens::TokenCounter;

/// Codex's estimate of a text: its bytes over four, rounded up.
fn approx_tokens(text: &str) -> u64 {
    (text.len() as u64).div_ceil(4)
}

/// The span's requests, newest first while the budget lasts, the oldest of them cut in its
/// middle to what is left of it; in their order.
pub(crate) fn carried(span: &[Message], budget: u64) -> Vec<Message> {
    let mut left = budget;
    let mut out = Vec::new();
    for message in span.iter().rev().filter(|m| m.is_request()) {
        if left == 0 {
            break;
        }
        let text = message.text();
        let tokens = approx_tokens(&text);
        if tokens <= left {
            left -= tokens;
            out.push(message.clone());
            continue;
        }
        // A new message now, written as itself.
        let mut cut = message.clone().detached();
        cut.set_content(middle_cut(&text, left));
        out.push(cut);
        break;
    }
    out.reverse();
    out
}

/// `text` within `tokens` (four bytes a token): half the bytes from its head, half from its
/// tail, on character boundaries, and `…N tokens truncated…` between them.
fn middle_cut(text: &str, tokens: u64) -> String {
    let budget = (tokens as usize).saturating_mul(4);
    if text.len() <= budget {
        return text.to_owned();
    }
    let removed = ((text.len() - budget) as u64).div_ceil(4);
    let mut head = budget / 2;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - (budget - budget / 2);
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    format!("{}…{removed} tokens truncated…{}", &text[..head], &text[tail..])
}

/// The path a tool call read, when its arguments name one (`file_path`, `path`, `file`,
/// `filename`).
fn path_of(arguments: &str) -> Option<String> {
    let args: Value = serde_json::from_str(arguments).ok()?;
    ["file_path", "path", "file", "filename"]
        .iter()
        .find_map(|key| args.get(*key)?.as_str().map(str::to_owned))
}

/// The span's last `files` files read, newest first by their last read, each as Claude Code
/// brings it back (the Read call and its result, when within `tokens`; else a note naming it);
/// in the order they were read.
pub(crate) fn reread(span: &[Message], files: usize, tokens: u64, counter: &dyn TokenCounter) -> Vec<Message> {
    let mut found: Vec<(String, Option<String>)> = Vec::new();
    let mut assistant = None;
    let mut reads: Vec<(String, &Message)> = Vec::new();
    for message in span {
        match message.role() {
            Role::Assistant => assistant = Some(message),
            Role::Tool => {
                let id = message.tool_call_id();
                let call = assistant.and_then(|a| a.calls().find(|c| Some(c.id) == id));
                if let Some(path) = call.and_then(|c| path_of(c.arguments)) {
                    reads.push((path, message));
                }
            }
            _ => {}
        }
    }
    for (path, result) in reads.into_iter().rev() {
        if found.len() == files {
            break;
        }
        if found.iter().any(|(p, _)| *p == path) {
            continue;
        }
        let content = result
            .content_str()
            .filter(|c| !is_placeholder(c))
            .filter(|c| counter.text_tokens(c) <= tokens)
            .map(str::to_owned);
        found.push((path, content));
    }
    let mut out = Vec::new();
    for (path, content) in found.into_iter().rev() {
        match content {
            Some(content) => {
                let input = serde_json::json!({"file_path": path});
                out.push(Message::new(Role::User, format!("{REREAD_CALL}{input}")));
                out.push(Message::new(Role::User, format!("{REREAD_RESULT}\n{content}")));
            }
            None => out.push(Message::new(Role::User, format!("Note: {path}{REREAD_NOTE}"))),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;
    use crate::tokens::CounterKind;

    #[test]
    fn the_newest_requests_are_carried_the_oldest_of_them_cut_in_its_middle() {
        let span = vec![
            Message::new(Role::User, format!("{}{}", "a".repeat(200), "z".repeat(200))),
            Message::new(Role::Assistant, "ok"),
            Message::new(Role::User, "b".repeat(80)),
            Message::new(Role::User, "[Summary of earlier conversation]\nold"),
        ];
        assert_eq!(carried(&span, 10_000), vec![span[0].clone(), span[2].clone()]);
        // 80 bytes are 20 tokens; 30 are left for the first request (400 bytes): 60 from its
        // head, 60 from its tail, 280 bytes (70 tokens) left out.
        let some = carried(&span, 50);
        assert_eq!(some.len(), 2);
        assert_eq!(
            some[0].text(),
            format!("{}…70 tokens truncated…{}", "a".repeat(60), "z".repeat(60))
        );
        assert_eq!(some[1], span[2]);
        assert!(carried(&span, 0).is_empty());
        assert_eq!(middle_cut("héllo wörld", 1), "h…3 tokens truncated…ld");
    }

    #[test]
    fn the_last_files_read_come_back_as_claude_code_brings_them() {
        let counter = CounterKind::Chars4.counter();
        let read = |id: &'static str, args: &'static str| {
            Message::assistant_calls([ToolCall {
                id,
                name: "Read",
                arguments: args,
            }])
        };
        let span = vec![
            Message::new(Role::User, "look at the files"),
            read("1", r#"{"file_path":"a.rs"}"#),
            Message::tool_result("1", "fn a() {}"),
            read("2", r#"{"file_path":"b.rs"}"#),
            Message::tool_result("2", "x".repeat(4000)),
            read("3", r#"{"file_path":"a.rs"}"#),
            Message::tool_result("3", "fn a() { new }"),
            read("4", r#"{"command":"ls"}"#),
            Message::tool_result("4", "a.rs b.rs"),
        ];
        let back = reread(&span, 5, 100, counter.as_ref());
        let texts: Vec<String> = back.iter().map(|m| m.text().into_owned()).collect();
        assert_eq!(
            texts,
            [
                format!("Note: b.rs{REREAD_NOTE}"),
                format!("{REREAD_CALL}{{\"file_path\":\"a.rs\"}}"),
                format!("{REREAD_RESULT}\nfn a() {{ new }}"),
            ]
        );
        assert!(back.iter().all(|m| !m.is_request()));
        assert_eq!(reread(&span, 1, 100, counter.as_ref()).len(), 2);
    }
}
