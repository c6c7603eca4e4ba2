//! [`HttpModel`]: the [`Model`] trait over `POST {endpoint}/chat/completions` (OpenAI-compatible
//! servers), `/messages` (Anthropic Messages) or `/responses` (OpenAI Responses).
//!
//! Anthropic requests carry `max_tokens` (the API requires it) and mark the system prompt and the
//! last message with `cache_control`, where ctxbench's `breakpoints` cache puts its marks, so
//! that a real provider caches what the simulation does.
//!
//! Blocking (ureq), with a timeout per call, retries with exponential backoff on 429, 5xx and
//! transport errors (honouring `Retry-After`), context-length errors of the common servers
//! recognised as overflows, and `usage.prompt_tokens` read as the call's true count. The API key
//! is sent as a bearer token (Anthropic's `x-api-key`) and nowhere else: not in `Debug`, not in errors (a server that
//! echoes it has it blanked).

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ctxbench_compact::compact::SummaryAsk;
use ctxbench_compact::message::{Message, Role};
use ctxbench_compact::pairing::check_pairing;
use ctxbench_compact::request_body::RequestBody;
use ctxbench_compact::tokens::TokenCounter;
use ctxbench_compact::wire::{Format, body_from_chat};
use serde_json::{Value, json};

use super::transport::transport_words;
use super::{KIND_HEADER, SUMMARY_HEADER, context_length_error, stream};
use crate::agent::model::{FactReport, Model, ModelError, ModelReply, ModelRequest, Usage};
use crate::sim::scripted::is_refetch;
use crate::trace::CallKind;
use crate::usage::LoggedUsage;

/// Where and how to call.
#[derive(Clone)]
pub struct HttpConfig {
    /// The API's base URL, up to and including `/v1` (`http://127.0.0.1:8080/v1`).
    pub endpoint: String,
    /// The `model` field of every request.
    pub model: String,
    /// Sent as `Authorization: Bearer …` when set.
    pub api_key: Option<String>,
    /// The `user` field of every request, when set (`serve` keeps one run per user).
    pub user: Option<String>,
    /// A whole call's time limit.
    pub timeout: Duration,
    /// Retries after a 429, a 5xx or a transport error.
    pub retries: u32,
    /// The wait before the first retry; it doubles each time (a `Retry-After` header wins).
    pub backoff: Duration,
    /// The wire format the endpoint speaks.
    pub api: Format,
    /// Ask for server-sent events (`"stream": true`, chat's usage chunk included) and read the
    /// reply back from them.
    pub stream: bool,
}

impl HttpConfig {
    /// Defaults: 120 s per call, 3 retries from 1 s.
    pub fn new(endpoint: impl Into<String>, model: impl Into<String>) -> HttpConfig {
        HttpConfig {
            endpoint: endpoint.into(),
            model: model.into(),
            api_key: None,
            user: None,
            timeout: Duration::from_secs(120),
            retries: 3,
            backoff: Duration::from_secs(1),
            api: Format::Chat,
            stream: false,
        }
    }
}

impl fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpConfig")
            .field("endpoint", &self.endpoint)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "[set]"))
            .field("user", &self.user)
            .field("timeout", &self.timeout)
            .field("retries", &self.retries)
            .field("backoff", &self.backoff)
            .field("api", &self.api)
            .field("stream", &self.stream)
            .finish()
    }
}

/// A live model behind an OpenAI-compatible endpoint.
pub struct HttpModel {
    config: HttpConfig,
    agent: ureq::Agent,
    /// Counts what the server does not report.
    counter: Arc<dyn TokenCounter>,
    retried: u32,
}

impl fmt::Debug for HttpModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpModel")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// One attempt's outcome.
enum Attempt {
    Answer(u16, String, Option<Duration>),
    Transport(String),
}

impl HttpModel {
    /// A model calling `config.endpoint`; `counter` counts what the server's `usage` leaves out.
    pub fn new(config: HttpConfig, counter: Arc<dyn TokenCounter>) -> HttpModel {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(config.timeout))
            .http_status_as_error(false)
            .build()
            .into();
        HttpModel {
            config,
            agent,
            counter,
            retried: 0,
        }
    }

    /// Retries made so far (after 429s, 5xx and transport errors).
    pub fn retried(&self) -> u32 {
        self.retried
    }

    fn url(&self) -> String {
        let path = match self.config.api {
            Format::Chat => "chat/completions",
            Format::Anthropic => "messages",
            Format::Responses => "responses",
        };
        format!("{}/{path}", self.config.endpoint.trim_end_matches('/'))
    }

    /// Blanks the key wherever a server echoed it.
    fn scrub(&self, text: &str) -> String {
        match &self.config.api_key {
            Some(key) if !key.is_empty() => text.replace(key.as_str(), "[redacted]"),
            _ => text.to_owned(),
        }
    }

    fn body(&self, req: &ModelRequest<'_>) -> Value {
        let mut body = match self.config.api {
            Format::Chat => {
                let messages: Vec<&Message> = req.system.into_iter().chain(req.messages).collect();
                let mut body = json!({"model": self.config.model, "messages": messages});
                if !req.tools.is_empty() {
                    body["tools"] = Value::Array(req.tools.to_vec());
                }
                body
            }
            format => {
                let mut body = body_from_chat(format, req.system, req.messages, req.tools);
                body["model"] = self.config.model.clone().into();
                if format == Format::Anthropic {
                    body["max_tokens"] = ANTHROPIC_MAX_TOKENS.into();
                    mark_for_cache(&mut body);
                } else {
                    body["store"] = false.into();
                }
                body
            }
        };
        if self.config.stream {
            body["stream"] = true.into();
            if self.config.api == Format::Chat {
                body["stream_options"] = json!({"include_usage": true});
            }
        }
        if let Some(user) = &self.config.user {
            match self.config.api {
                Format::Anthropic => body["metadata"] = json!({ "user_id": user }),
                Format::Chat | Format::Responses => body["user"] = user.clone().into(),
            }
        }
        body
    }

    /// The assistant message of a reply in the endpoint's format.
    fn message_of(&self, value: &Value) -> Result<Message, ReplyError> {
        match self.config.api {
            Format::Chat => {
                let message = value
                    .pointer("/choices/0/message")
                    .cloned()
                    .ok_or(ReplyError::NoChoice)?;
                Message::from_value(message).map_err(ReplyError::NotChat)
            }
            format => {
                // The reply's blocks or items, read as the next turn of a history would be.
                let (key, list) = match format {
                    Format::Anthropic => (
                        "messages",
                        json!([{"role": "assistant", "content": value.get("content")}]),
                    ),
                    _ => ("input", value.get("output").cloned().unwrap_or_else(|| json!([]))),
                };
                let body = json!({ key: list }).to_string();
                let read = RequestBody::parse_as(&body, "the reply", Some(format)).map_err(ReplyError::Unread)?;
                let mut messages = read.conversation.into_messages();
                match (messages.pop(), messages.is_empty()) {
                    (Some(message), true) if message.role() == Role::Assistant => Ok(message),
                    _ => Err(ReplyError::NotOneTurn),
                }
            }
        }
    }

    fn attempt(&self, body: &str, req: &ModelRequest<'_>) -> Attempt {
        let mut call = self
            .agent
            .post(&self.url())
            .header("Content-Type", "application/json")
            .header(
                KIND_HEADER,
                if req.kind == CallKind::Summary {
                    "summary"
                } else {
                    "agent"
                },
            );
        match (&self.config.api_key, self.config.api) {
            (Some(key), Format::Anthropic) => call = call.header("x-api-key", key),
            (Some(key), _) => call = call.header("Authorization", &format!("Bearer {key}")),
            (None, _) => {}
        }
        if self.config.api == Format::Anthropic {
            // The API version every Anthropic request names (docs.claude.com/en/api/versioning,
            // checked 2026-12-04).
            call = call.header("anthropic-version", "2023-06-01");
        }
        if let Some(ask) = req.summary {
            call = call.header(SUMMARY_HEADER, &summary_header(ask));
        }
        match call.send(body) {
            Ok(mut response) => {
                let status = response.status().as_u16();
                let wait = response
                    .headers()
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse::<u64>().ok())
                    .map(Duration::from_secs);
                let events = response
                    .headers()
                    .get("content-type")
                    .and_then(|v| v.to_str().ok())
                    .is_some_and(|v| v.starts_with("text/event-stream"));
                let text = response
                    .body_mut()
                    .with_config()
                    .limit(256 * 1024 * 1024)
                    .read_to_string()
                    .unwrap_or_default();
                if !(events && status == 200) {
                    return Attempt::Answer(status, text, wait);
                }
                // A stream stands for the reply it carries, or for the error it ended in.
                match stream::assemble(self.config.api, &text) {
                    Ok(reply) => Attempt::Answer(status, reply.to_string(), wait),
                    Err(failed) => Attempt::Answer(failed.status, failed.body.to_string(), None),
                }
            }
            Err(e) => Attempt::Transport(transport_words(&e, &self.url(), self.config.timeout)),
        }
    }

    fn reply(&self, req: &ModelRequest<'_>, text: &str, latency_s: f64) -> Result<ModelReply, ModelError> {
        let bad = |what: &str| ModelError::Other(format!("{}: the reply {what}", self.url()));
        let value: Value = serde_json::from_str(text).map_err(|_| bad("is not JSON"))?;
        let usage = value.get("usage").cloned().unwrap_or(Value::Null);
        if usage.get("ctxbench_script_ended").and_then(Value::as_bool) == Some(true) {
            return Err(ModelError::ScriptEnded);
        }
        let message = self.message_of(&value).map_err(|e| bad(&e.to_string()))?;
        let logged = LoggedUsage::in_format(&usage, self.config.api);
        let prompt_tokens = logged
            .prompt_tokens
            .unwrap_or_else(|| self.counter.count(req.system, req.messages, req.tools));
        let completion_tokens = logged
            .completion_tokens
            .unwrap_or_else(|| self.counter.reply_tokens(&message));
        let names = |key: &str| -> Vec<String> {
            usage
                .get(key)
                .and_then(Value::as_array)
                .map(|list| list.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
                .unwrap_or_default()
        };
        let step = usage
            .get("ctxbench_step")
            .and_then(Value::as_array)
            .and_then(|s| Some((s.first()?.as_u64()? as usize, s.get(1)?.as_u64()? as usize)))
            .filter(|(r, s)| *r > 0 && *s > 0)
            .map(|(r, s)| (r - 1, s - 1));
        let kind = match req.kind {
            CallKind::Summary => CallKind::Summary,
            _ if is_refetch(&message) => CallKind::Refetch,
            _ => CallKind::Agent,
        };
        Ok(ModelReply {
            message,
            kind,
            usage: Usage {
                prompt_tokens,
                cache_read_tokens: logged.cache_read_tokens.min(prompt_tokens),
                cache_write_tokens: logged.cache_write_tokens,
                completion_tokens,
                truncated: false,
                // ctxbench's own endpoint says how long the call took on its simulated clock.
                latency_s: usage
                    .get("ctxbench_latency_s")
                    .and_then(Value::as_f64)
                    .unwrap_or(latency_s),
            },
            facts: FactReport {
                step,
                needed: names("ctxbench_facts_needed"),
                lost: names("ctxbench_facts_lost"),
                wrong: names("ctxbench_facts_wrong"),
                stale: names("ctxbench_facts_stale"),
                summary: usage
                    .get("ctxbench_summary")
                    .and_then(|v| serde_json::from_value(v.clone()).ok()),
                refetched: names("ctxbench_facts_refetched"),
            },
        })
    }

    fn rejection(&self, req: &ModelRequest<'_>, status: u16, text: &str) -> ModelError {
        if let Some((needed, window)) = context_length_error(status, text) {
            return ModelError::ContextWindowExceeded {
                needed: needed.unwrap_or_else(|| self.counter.count(req.system, req.messages, req.tools)),
                limit: window.unwrap_or(0),
            };
        }
        if status == 400 {
            if let Err(broken) = check_pairing(req.messages) {
                return ModelError::Pairing(broken);
            }
        }
        let message = serde_json::from_str::<Value>(text)
            .ok()
            .and_then(|v| v.pointer("/error/message").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_else(|| text.chars().take(300).collect());
        ModelError::Other(format!("{}: HTTP {status}: {}", self.url(), self.scrub(&message)))
    }
}

/// The `max_tokens` of an Anthropic request (required by the API; ctxbench's replies are short).
const ANTHROPIC_MAX_TOKENS: u64 = 4096;

/// Marks an Anthropic body for the prompt cache where ctxbench's `breakpoints` cache marks: the
/// system prompt (made a text block to carry the mark), else the last tool, and the last block of
/// the last message (a string content made a text block).
fn mark_for_cache(body: &mut Value) {
    let mark = || json!({"type": "ephemeral"});
    if let Some(system) = body.get("system").and_then(Value::as_str).map(str::to_owned) {
        body["system"] = json!([{"type": "text", "text": system, "cache_control": mark()}]);
    } else if let Some(tool) = body
        .get_mut("tools")
        .and_then(Value::as_array_mut)
        .and_then(|t| t.last_mut())
    {
        tool["cache_control"] = mark();
    }
    let Some(last) = body
        .get_mut("messages")
        .and_then(Value::as_array_mut)
        .and_then(|m| m.last_mut())
    else {
        return;
    };
    if let Some(text) = last.get("content").and_then(Value::as_str).map(str::to_owned) {
        if text.is_empty() {
            return;
        }
        last["content"] = json!([{"type": "text", "text": text}]);
    }
    if let Some(block) = last
        .get_mut("content")
        .and_then(Value::as_array_mut)
        .and_then(|b| b.last_mut())
    {
        block["cache_control"] = mark();
    }
}

/// `ratio=0.1;keep=id,number`, and `;span=2..9` when the summary covers only those messages.
pub(crate) fn summary_header(ask: &SummaryAsk) -> String {
    let keep: Vec<&str> = ask.keep.iter().map(|k| k.as_str()).collect();
    let mut header = format!("ratio={};keep={}", ask.ratio, keep.join(","));
    if let Some(span) = &ask.span {
        header.push_str(&format!(";span={}..{}", span.start, span.end));
    }
    header
}

impl Model for HttpModel {
    fn complete(&mut self, req: ModelRequest<'_>) -> Result<ModelReply, ModelError> {
        let body = self.body(&req).to_string();
        let started = Instant::now();
        let mut wait = self.config.backoff;
        for attempt in 0..=self.config.retries {
            let last = attempt == self.config.retries;
            match self.attempt(&body, &req) {
                Attempt::Answer(200..=299, text, _) => {
                    return self.reply(&req, &text, started.elapsed().as_secs_f64());
                }
                Attempt::Answer(429 | 500..=599, _, after) if !last => {
                    std::thread::sleep(after.unwrap_or(wait).min(Duration::from_secs(60)));
                }
                Attempt::Answer(status, text, _) => return Err(self.rejection(&req, status, &text)),
                Attempt::Transport(_) if !last => std::thread::sleep(wait),
                Attempt::Transport(e) => {
                    return Err(ModelError::Other(format!("{}: {}", self.url(), self.scrub(&e))));
                }
            }
            self.retried += 1;
            wait *= 2;
        }
        Err(ModelError::Other(format!("{}: no answer", self.url())))
    }
}

/// Why a reply holds no assistant message; said after "the reply".
#[derive(Debug, thiserror::Error)]
enum ReplyError {
    #[error("has no choices[0].message")]
    NoChoice,
    #[error("message is not a chat message: {0}")]
    NotChat(ctxbench_compact::message::MessageError),
    #[error("{0}")]
    Unread(ctxbench_compact::Error),
    #[error("is not one assistant turn")]
    NotOneTurn,
}
