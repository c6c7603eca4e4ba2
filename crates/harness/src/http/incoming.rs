//! What `serve` reads from a request: the body in its route's format (chat, Anthropic Messages,
//! Responses) as one history, the client's name for the conversation, `"stream"`, and a summary
//! call's ask from its header. What cannot be read is told back with the parameter at fault.

use ctxbench_compact::compact::SummaryAsk;
use ctxbench_compact::conversation::Conversation;
use ctxbench_compact::fact::FactKind;
use ctxbench_compact::message::Message;
use ctxbench_compact::request_body::RequestBody;
use ctxbench_compact::wire::{CacheMarks, Format};
use serde_json::Value;

use super::Unreadable;

/// A model call as read from its body, in any format.
pub(super) struct Incoming {
    pub(super) conversation: Conversation,
    /// The body's own cache breakpoints (Anthropic's `cache_control`).
    pub(super) marks: Option<CacheMarks>,
    /// The client's name for the conversation: `user` (chat, Responses) or `metadata.user_id`
    /// (Anthropic).
    pub(super) user: Option<String>,
    pub(super) model: Option<String>,
    /// `"stream": true`, with whether chat's `stream_options.include_usage` asks for the usage
    /// chunk (Anthropic and Responses streams always carry usage).
    pub(super) stream: Option<bool>,
    /// The server-side context management it asks for (`context_management`), if any.
    pub(super) edits: Option<Vec<super::context::Edit>>,
}

/// The format whose shapes the answers on `path` (without `/v1`) take.
pub(super) fn route_format(path: &str) -> Format {
    match path {
        "/messages" => Format::Anthropic,
        "/responses" => Format::Responses,
        _ => Format::Chat,
    }
}

/// `"stream"`: absent, null or false, or true (with chat's `stream_options.include_usage`).
fn stream_of(format: Format, value: &Value) -> Result<Option<bool>, Unreadable> {
    match value.get("stream") {
        None | Some(Value::Null | Value::Bool(false)) => Ok(None),
        Some(Value::Bool(true)) => {
            let usage = match value.pointer("/stream_options/include_usage") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(_) => {
                    return Err((
                        "\"stream_options.include_usage\" must be true or false.".into(),
                        Some("stream_options.include_usage".into()),
                    ));
                }
            };
            Ok(Some(format != Format::Chat || usage))
        }
        Some(_) => Err(("\"stream\" must be true or false.".into(), Some("stream".into()))),
    }
}

pub(super) fn parse_json(body: &[u8]) -> Result<Value, Unreadable> {
    serde_json::from_slice(body).map_err(|e| (format!("We could not parse the JSON body of your request: {e}."), None))
}

/// A chat-completions body: `messages`, `tools`, `user`, `model`.
pub(super) fn read_chat(body: &[u8]) -> Result<Incoming, Unreadable> {
    let value = parse_json(body)?;
    let Some(list) = value.get("messages").and_then(Value::as_array) else {
        return Err((
            "\"messages\" must be an array of messages.".into(),
            Some("messages".into()),
        ));
    };
    let stream = stream_of(Format::Chat, &value)?;
    let mut messages = Vec::with_capacity(list.len());
    for (i, m) in list.iter().enumerate() {
        let message = Message::from_value(m.clone())
            .map_err(|e| (format!("messages[{i}]: {e}"), Some(format!("messages[{i}]"))))?;
        messages.push(message);
    }
    let tools = match value.get("tools") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(t)) => t.clone(),
        Some(_) => return Err(("\"tools\" must be an array.".into(), Some("tools".into()))),
    };
    if value.get("context_management").is_some() {
        return Err((
            "Unrecognized request argument supplied: context_management (server-side compaction is the Responses API's, POST /v1/responses, and Anthropic's, POST /v1/messages)".into(),
            Some("context_management".into()),
        ));
    }
    Ok(Incoming {
        conversation: Conversation::from_messages(messages, tools),
        marks: None,
        user: value.get("user").and_then(Value::as_str).map(str::to_owned),
        model: value.get("model").and_then(Value::as_str).map(str::to_owned),
        stream,
        edits: None,
    })
}

/// An Anthropic Messages or OpenAI Responses body, read by the library into the one history, its
/// own rules checked (`wire::check`), and the context management it asks for (an Anthropic
/// request's with the `anthropic-beta` header's `betas`).
pub(super) fn read_wire(format: Format, body: &[u8], betas: &[&str]) -> Result<Incoming, Unreadable> {
    let value = parse_json(body)?;
    let stream = stream_of(format, &value)?;
    let edits = match format {
        Format::Anthropic => super::context::anthropic(&value, betas)?,
        _ => super::context::responses(&value)?,
    };
    let key = format.list_key();
    if value.get(key).is_none() {
        return Err((format!("{key}: Field required"), Some(key.into())));
    }
    let user = match format {
        Format::Anthropic => value.pointer("/metadata/user_id"),
        _ => value.get("user"),
    }
    .and_then(Value::as_str)
    .map(str::to_owned);
    let model = value.get("model").and_then(Value::as_str).map(str::to_owned);
    let text = String::from_utf8_lossy(body);
    let parsed = RequestBody::parse_as(&text, "request", Some(format)).map_err(|e| {
        let message = e.to_string();
        let message = message.strip_prefix("request: ").unwrap_or(&message).to_owned();
        let param = match &e {
            ctxbench_compact::Error::Input { at, .. } => Some(at.clone()),
            _ => Some(key.to_owned()),
        };
        (message, param)
    })?;
    Ok(Incoming {
        marks: parsed.cache_marks(),
        conversation: parsed.conversation,
        user,
        model,
        stream,
        edits,
    })
}

/// `ratio=0.1;keep=id,number`; what is missing or does not parse takes the default (0.1, none).
pub(super) fn summary_ask(header: &str) -> SummaryAsk {
    let mut ask = SummaryAsk {
        keep: Vec::new(),
        ratio: 0.1,
        span: None,
    };
    for part in header.split(';') {
        match part.trim().split_once('=') {
            Some(("ratio", r)) => {
                if let Ok(r) = r.trim().parse::<f64>() {
                    if r > 0.0 && r <= 1.0 {
                        ask.ratio = r;
                    }
                }
            }
            Some(("keep", kinds)) => ask.keep = kinds.split(',').filter_map(|k| FactKind::parse(k.trim())).collect(),
            Some(("span", span)) => {
                ask.span = span
                    .trim()
                    .split_once("..")
                    .and_then(|(a, b)| Some(a.parse::<usize>().ok()?..b.parse::<usize>().ok()?))
                    .filter(|r| r.start < r.end);
            }
            _ => {}
        }
    }
    ask
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::client::summary_header;

    #[test]
    fn a_summary_ask_travels_in_its_header() {
        let ask = SummaryAsk {
            keep: vec![FactKind::Id, FactKind::Number],
            ratio: 0.25,
            span: None,
        };
        assert_eq!(summary_header(&ask), "ratio=0.25;keep=id,number");
        assert_eq!(summary_ask(&summary_header(&ask)), ask);
        let aligned = SummaryAsk {
            span: Some(2..9),
            ..ask.clone()
        };
        assert_eq!(summary_header(&aligned), "ratio=0.25;keep=id,number;span=2..9");
        assert_eq!(summary_ask(&summary_header(&aligned)), aligned);
        assert_eq!(
            summary_ask("ratio=7;keep=bogus"),
            SummaryAsk {
                keep: vec![],
                ratio: 0.1,
                span: None,
            }
        );
    }

    #[test]
    fn stream_flags_are_booleans() {
        let read = |body: serde_json::Value| stream_of(Format::Chat, &body);
        assert_eq!(read(serde_json::json!({"stream": true})), Ok(Some(false)));
        let usage = serde_json::json!({"stream": true, "stream_options": {"include_usage": true}});
        assert_eq!(read(usage), Ok(Some(true)));
        // Issue 46: "maybe" was taken as no.
        let maybe = serde_json::json!({"stream": true, "stream_options": {"include_usage": "maybe"}});
        let (said, at) = read(maybe).expect_err("refused");
        assert!(said.contains("include_usage\" must be true or false"), "{said}");
        assert_eq!(at.as_deref(), Some("stream_options.include_usage"));
        assert!(read(serde_json::json!({"stream": "yes"})).is_err());
    }
}
