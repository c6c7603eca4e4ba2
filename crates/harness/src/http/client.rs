//! [`HttpModel`]: the [`Model`] trait over an OpenAI-compatible `POST {endpoint}/chat/completions`.
//!
//! Blocking (ureq), with a timeout per call, retries with exponential backoff on 429, 5xx and
//! transport errors (honouring `Retry-After`), context-length errors of the common servers
//! recognised as overflows, and `usage.prompt_tokens` read as the call's true count. The API key
//! is sent as a bearer token and nowhere else: not in `Debug`, not in errors (a server that
//! echoes it has it blanked).

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ctxbench_compact::compact::SummaryAsk;
use ctxbench_compact::message::Message;
use ctxbench_compact::pairing::check_pairing;
use ctxbench_compact::tokens::TokenCounter;
use serde_json::{Value, json};

use super::{KIND_HEADER, SUMMARY_HEADER, context_length_error};
use crate::agent::model::{FactReport, Model, ModelError, ModelReply, ModelRequest, Usage};
use crate::billing::logged::LoggedUsage;
use crate::sim::scripted::is_refetch;
use crate::trace::CallKind;

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
        format!("{}/chat/completions", self.config.endpoint.trim_end_matches('/'))
    }

    /// Blanks the key wherever a server echoed it.
    fn scrub(&self, text: &str) -> String {
        match &self.config.api_key {
            Some(key) if !key.is_empty() => text.replace(key.as_str(), "[redacted]"),
            _ => text.to_owned(),
        }
    }

    fn body(&self, req: &ModelRequest<'_>) -> Value {
        let messages: Vec<&Message> = req.system.into_iter().chain(req.messages).collect();
        let mut body = json!({"model": self.config.model, "messages": messages});
        if !req.tools.is_empty() {
            body["tools"] = Value::Array(req.tools.to_vec());
        }
        if let Some(user) = &self.config.user {
            body["user"] = user.clone().into();
        }
        body
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
        if let Some(key) = &self.config.api_key {
            call = call.header("Authorization", &format!("Bearer {key}"));
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
                let text = response
                    .body_mut()
                    .with_config()
                    .limit(256 * 1024 * 1024)
                    .read_to_string()
                    .unwrap_or_default();
                Attempt::Answer(status, text, wait)
            }
            Err(e) => Attempt::Transport(e.to_string()),
        }
    }

    fn reply(&self, req: &ModelRequest<'_>, text: &str, latency_s: f64) -> Result<ModelReply, ModelError> {
        let bad = |what: &str| ModelError::Other(format!("{}: the reply {what}", self.url()));
        let value: Value = serde_json::from_str(text).map_err(|_| bad("is not JSON"))?;
        let usage = value.get("usage").cloned().unwrap_or(Value::Null);
        if usage.get("ctxbench_script_ended").and_then(Value::as_bool) == Some(true) {
            return Err(ModelError::ScriptEnded);
        }
        let message = value
            .pointer("/choices/0/message")
            .cloned()
            .ok_or_else(|| bad("has no choices[0].message"))?;
        let message = Message::from_value(message).map_err(|e| bad(&format!("message is not a chat message: {e}")))?;
        let logged = LoggedUsage::of(&usage);
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
