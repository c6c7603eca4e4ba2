//! `ctxbench serve`'s endpoint, without the sockets: an OpenAI-compatible chat-completions API
//! that plays a scenario's scripted model against whatever history a client sends, enforces the
//! window with the true counter, and records every call.
//!
//! Each conversation (its first user message and the body's `user` field) is its own run, with
//! its own trace and figures. A call is placed in the script by its last user message and the
//! assistant turns after it
//! ([`ScriptedModel::place`](crate::sim::scripted::ScriptedModel::place)). Rejections are
//! shaped as OpenAI's: status, `error.type`, `error.code`.

mod call;
mod managed;
mod runs;

use std::sync::{Arc, Mutex, MutexGuard};

use ctxbench_compact::tokens::TokenCounter;
use ctxbench_compact::wire::Format;
use serde_json::{Value, json};

use self::runs::{Asking, Runs};
use super::incoming::{read_chat, read_wire, route_format, summary_ask};
use super::sse::Event;
use super::stream::{self, Pace};
use super::{SUMMARY_HEADER, shapes};
use crate::billing::price::Price;
use crate::scenario::Scenario;
use crate::settings::{RunSettings, SettingsError};

/// How the endpoint behaves.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// The server's settings: the window it enforces (`None`: the scenario's),
    /// what it counts and bills with, what it does with a request over the window, the price,
    /// the cache and the latency each conversation runs on its clock, the idle time before each
    /// request (else the scenario's), the behaviour profiles and the seed of the scripted
    /// model's draws. The client's side (strategy, policy, estimator) is the client's own; the
    /// rows name it `none`, with the run's label and format.
    pub settings: RunSettings,
    /// The largest request body it reads, in bytes.
    pub max_body: usize,
    /// A provider's context management applied to every request of its route that asks for
    /// none (`serve --strategy anthropic-compact`); `None`: only what requests ask.
    pub edits: Option<ctxbench_compact::compact::Strategy>,
}

/// An HTTP answer: status, body, and whether the server should stop after sending it.
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The body.
    pub body: Body,
    /// `POST /ctxbench/shutdown` was asked.
    pub shutdown: bool,
}

/// What an answer carries.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// One JSON value (`application/json`).
    Json(Value),
    /// Server-sent events (`text/event-stream`), each due at its time on the call's simulated
    /// clock.
    Events(Vec<Event>),
}

impl Response {
    fn json(status: u16, body: Value) -> Response {
        Response {
            status,
            body: Body::Json(body),
            shutdown: false,
        }
    }

    /// A reply `body`, as JSON or, when the request asked for a stream (`stream`: whether chat's
    /// usage chunk was asked for), as its events paced by `pace`.
    fn reply(format: Format, body: Value, stream: Option<bool>, pace: Pace) -> Response {
        match stream {
            Some(usage_chunk) => Response::events(stream::events(format, &body, usage_chunk, pace)),
            None => Response::json(200, body),
        }
    }

    fn events(events: Vec<Event>) -> Response {
        Response {
            status: 200,
            body: Body::Events(events),
            shutdown: false,
        }
    }

    fn error(format: Format, status: u16, message: &str, param: Option<&str>, code: Option<&str>) -> Response {
        Response::json(status, shapes::error(format, status, message, param, code))
    }
}

/// The endpoint: a scenario, its settings, and the runs so far.
pub struct Endpoint<'a> {
    scenario: &'a Scenario,
    config: ServeConfig,
    counter: Arc<dyn TokenCounter>,
    /// Each call's price, for the cache it runs.
    price: Option<Price>,
    /// The window it enforces.
    window: u64,
    runs: Mutex<Runs<'a>>,
}

/// Locks, carrying on after a panic elsewhere (the data stays consistent call by call).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl<'a> Endpoint<'a> {
    /// An endpoint playing `scenario`, its settings resolved against it (the window filled in
    /// and checked, as a run's are).
    pub fn new(scenario: &'a Scenario, config: ServeConfig) -> Result<Endpoint<'a>, SettingsError> {
        let window = config.settings.policy(scenario)?.window;
        let config = ServeConfig {
            settings: config.settings.resolved(scenario)?,
            ..config
        };
        Ok(Endpoint {
            scenario,
            window,
            counter: config.settings.tokenizer.counter(),
            price: config.settings.billed_price(),
            config,
            runs: Mutex::default(),
        })
    }

    /// The settings, resolved against the scenario.
    pub fn config(&self) -> &ServeConfig {
        &self.config
    }

    /// Answers one HTTP request. `path` may carry a query string; header names are matched
    /// without regard to case.
    pub fn handle(&self, method: &str, path: &str, headers: &[(String, String)], body: &[u8]) -> Response {
        let path = path.split('?').next().unwrap_or("");
        let path = path.strip_prefix("/v1").filter(|p| p.starts_with('/')).unwrap_or(path);
        match (method, path) {
            ("POST", "/chat/completions") => self.answer(Format::Chat, headers, body),
            ("POST", "/messages") => self.answer(Format::Anthropic, headers, body),
            ("POST", "/responses") => self.answer(Format::Responses, headers, body),
            ("POST", "/responses/compact") => self.compact_route(body),
            ("GET", "/models") => Response::json(
                200,
                json!({"object": "list", "data": [
                    {"id": self.scenario.name, "object": "model", "created": 0, "owned_by": "ctxbench"}
                ]}),
            ),
            ("GET", "/ctxbench/report") => Response::json(200, self.report()),
            ("POST", "/ctxbench/tool") => self.tool(body),
            ("POST", "/ctxbench/shutdown") => Response {
                shutdown: true,
                ..Response::json(200, json!({"shutdown": true}))
            },
            (
                _,
                "/chat/completions" | "/messages" | "/responses" | "/responses/compact" | "/models"
                | "/ctxbench/report" | "/ctxbench/shutdown" | "/ctxbench/tool",
            ) => Response::error(
                route_format(path),
                405,
                &format!("Method {method} is not allowed on {path}."),
                None,
                Some("method_not_allowed"),
            ),
            _ => Response::error(
                Format::Chat,
                404,
                &format!("Unknown request URL: {method} {path}."),
                None,
                Some("unknown_url"),
            ),
        }
    }

    /// The answer to a body over [`ServeConfig::max_body`] sent to `path`, in its format's shape.
    pub fn too_large(&self, path: &str) -> Response {
        let path = path.split('?').next().unwrap_or("");
        self.too_large_in(route_format(path.strip_prefix("/v1").unwrap_or(path)))
    }

    fn too_large_in(&self, format: Format) -> Response {
        Response::error(
            format,
            413,
            &format!("The request body is over {} bytes.", self.config.max_body),
            None,
            Some("request_too_large"),
        )
    }

    /// A model call in `format`: read, placed in its run, answered in the same format.
    fn answer(&self, format: Format, headers: &[(String, String)], body: &[u8]) -> Response {
        if body.len() > self.config.max_body {
            return self.too_large_in(format);
        }
        let header = |name: &str| {
            headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str())
        };
        let betas: Vec<&str> = header("anthropic-beta").map_or(Vec::new(), |b| b.split(',').collect());
        let incoming = match format {
            Format::Chat => read_chat(body),
            Format::Anthropic | Format::Responses => read_wire(format, body, &betas),
        };
        let mut incoming = match incoming {
            Ok(incoming) => incoming,
            Err((message, param)) => return Response::error(format, 400, &message, param.as_deref(), None),
        };
        if incoming.edits.is_none() {
            if let Some(strategy) = &self.config.edits {
                match super::context::of_preset(strategy, format) {
                    Ok(edits) => incoming.edits = Some(edits),
                    Err(why) => return Response::error(format, 400, &why.to_string(), Some("model"), None),
                }
            }
        }
        let summary = header(super::KIND_HEADER).is_some_and(|k| k.eq_ignore_ascii_case("summary"));
        let ask = summary.then(|| summary_ask(header(SUMMARY_HEADER).unwrap_or("")));
        let call = if summary { Asking::Summary } else { Asking::Model };
        let Some(run) = self.run(&incoming.conversation, incoming.user.clone(), call, format) else {
            return Response::error(
                format,
                400,
                "A summary call came before any conversation.",
                Some("messages"),
                Some("ctxbench_no_conversation"),
            );
        };
        let mut run = lock(&run);
        let model = incoming.model.clone().unwrap_or_else(|| self.scenario.name.clone());
        self.call(&mut run, &incoming, ask.as_ref(), &model, format)
    }
}
