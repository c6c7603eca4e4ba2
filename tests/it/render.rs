//! A one-line-per-message picture of a history, for the snapshot tests: role, calls, the id a
//! result answers, its size, and the start of its text.

use ctxbench_compact::{Conversation, Message, Role};
use ctxbench_harness::human::thousands;

/// How many characters of text each line shows.
const PREVIEW: usize = 60;

/// The conversation, system prompt first, one line a message.
pub fn render(conversation: &Conversation) -> String {
    let mut out = String::new();
    if let Some(system) = &conversation.system {
        out.push_str(&line(system));
        out.push('\n');
    }
    for message in &conversation.messages {
        out.push_str(&line(message));
        out.push('\n');
    }
    out
}

/// One message as one line.
pub fn line(message: &Message) -> String {
    let mut parts = vec![format!("{:<9}", message.role().as_str())];
    let text = message.text();
    match message.role() {
        Role::Tool => {
            let id = message.tool_call_id().unwrap_or_default();
            parts.push(format!("← {id} ({} chars)", thousands(text.chars().count() as u64)));
        }
        _ if message.content_is_null() => parts.push("(null)".into()),
        _ => {}
    }
    if !text.is_empty() {
        parts.push(preview(&text));
    }
    for call in message.calls() {
        parts.push(format!("→ {}({}) [{}]", call.name, preview(call.arguments), call.id));
    }
    parts.join(" ").trim_end().to_owned()
}

fn preview(text: &str) -> String {
    let flat: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    match flat.char_indices().nth(PREVIEW) {
        Some((cut, _)) => format!("{}…", &flat[..cut]),
        None => flat,
    }
}
