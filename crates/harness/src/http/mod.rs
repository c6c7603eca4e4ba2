//! Real endpoints both ways (`docs/serve.md`), in OpenAI's chat completions, Anthropic's Messages
//! or OpenAI's Responses: [`HttpModel`] sends the loop's requests to a server of any of them, and
//! [`serve`] is one that speaks all three (answers shaped by [`shapes`]), playing a scenario's
//! scripted model for any agent that calls it.
//!
//! What ctxbench adds to the wire, all optional: the call's kind in the header `X-Ctxbench-Kind:
//! agent|summary` (absent = agent), a summary's ask in `X-Ctxbench-Summary: ratio=0.1;keep=id,number`,
//! and in a reply's `usage` the scripted model's view of the facts: `ctxbench_step`,
//! `ctxbench_facts_needed`, `ctxbench_facts_lost`, `ctxbench_facts_refetched` (and, when they
//! happen, `ctxbench_facts_wrong`, `ctxbench_facts_stale`, and a summary's `ctxbench_summary`). A refetch call's
//! tool-call ids start with `refetch_`.

mod client;
pub mod context;
mod incoming;
mod preset_error;
pub mod serve;
pub mod shapes;
pub mod sse;
pub mod stream;
mod transport;

pub use client::{HttpConfig, HttpModel};
pub use preset_error::PresetError;

use serde_json::{Value, json};

/// The header that carries a call's kind.
pub const KIND_HEADER: &str = "X-Ctxbench-Kind";
/// The header that carries a summary call's ask.
pub const SUMMARY_HEADER: &str = "X-Ctxbench-Summary";

/// What a body that cannot be read is told: the message and the parameter at fault.
type Unreadable = (String, Option<String>);

/// OpenAI's error body: `{"error": {"message", "type", "param", "code"}}`.
pub fn error_body(message: &str, kind: &str, param: Option<&str>, code: Option<&str>) -> Value {
    json!({"error": {"message": message, "type": kind, "param": param, "code": code}})
}

/// The message OpenAI sends for a request over the window, with the two numbers that
/// [`context_length_error`] reads back.
pub fn context_length_message(needed: u64, window: u64) -> String {
    format!(
        "This model's maximum context length is {window} tokens. However, your messages resulted in {needed} \
         tokens. Please reduce the length of the messages."
    )
}

/// Whether an error body says the request was too long, as OpenAI (`context_length_exceeded`),
/// vLLM, Ollama, llama.cpp and LM Studio word it; with the numbers when it gives them:
/// `(needed, window)`.
pub fn context_length_error(status: u16, body: &str) -> Option<(Option<u64>, Option<u64>)> {
    if !(400..500).contains(&status) {
        return None;
    }
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let error = parsed.as_ref().and_then(|v| v.get("error"));
    let code = error.and_then(|e| e.get("code")).and_then(Value::as_str).unwrap_or("");
    let message = match error {
        Some(Value::String(s)) => s.clone(),
        Some(e) => e.get("message").and_then(Value::as_str).unwrap_or("").to_owned(),
        None => body.to_owned(),
    };
    let lower = message.to_lowercase();
    const SAYINGS: &[&str] = &[
        "maximum context length",               // OpenAI, vLLM
        "context length exceeded",              // generic
        "exceeds the context",                  // Ollama: "input length exceeds the context length"
        "exceed_context_size",                  // llama.cpp's error type
        "exceeds the available context size",   // llama.cpp
        "context window",                       // LM Studio and others
        "longer than the maximum model length", // newer vLLM
        "prompt is too long",                   // Anthropic-compatible servers
        "too many tokens",
    ];
    let said = code == "context_length_exceeded"
        || error
            .and_then(|e| e.get("type"))
            .and_then(Value::as_str)
            .is_some_and(|t| t == "exceed_context_size_error")
        || SAYINGS.iter().any(|s| lower.contains(s));
    said.then(|| {
        (
            number_after(&message, "resulted in ")
                .or_else(|| number_after(&message, "you requested "))
                .or_else(|| number_after(&message, "prompt is too long: ")),
            number_after(&message, "maximum context length is ").or_else(|| number_after(&message, " tokens > ")),
        )
    })
}

fn number_after(text: &str, prefix: &str) -> Option<u64> {
    let at = text.find(prefix)? + prefix.len();
    let digits: String = text[at..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_length_errors_of_real_servers_are_recognised() {
        let openai = error_body(
            &context_length_message(9000, 8192),
            "invalid_request_error",
            Some("messages"),
            Some("context_length_exceeded"),
        );
        assert_eq!(
            context_length_error(400, &openai.to_string()),
            Some((Some(9000), Some(8192)))
        );
        let vllm = r#"{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}"#;
        assert_eq!(context_length_error(400, vllm), Some((Some(5000), Some(4096))));
        let anthropic = r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 9000 tokens > 8192 maximum"}}"#;
        assert_eq!(context_length_error(400, anthropic), Some((Some(9000), Some(8192))));
        let ollama = r#"{"error":"the input length exceeds the context length"}"#;
        assert_eq!(context_length_error(400, ollama), Some((None, None)));
        let llama_cpp = r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}"#;
        assert!(context_length_error(400, llama_cpp).is_some());
        assert_eq!(
            context_length_error(400, r#"{"error":{"message":"invalid model"}}"#),
            None
        );
        assert_eq!(
            context_length_error(500, &openai.to_string()),
            None,
            "a server error is not a rejection"
        );
    }
}
