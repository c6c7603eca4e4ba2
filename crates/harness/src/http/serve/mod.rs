//! `ctxbench serve`'s endpoint, without the sockets: an OpenAI-compatible chat-completions API
//! that plays a scenario's scripted model against whatever history a client sends, enforces the
//! window with the true counter, and records every call.
//!
//! Each conversation (its first user message and the body's `user` field) is its own run, with
//! its own trace and figures. A call is placed in the script by its last user message and the
//! assistant turns after it ([`ScriptedModel::place`]). Rejections are shaped as OpenAI's:
//! status, `error.type`, `error.code`.

mod managed;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard};

use ctxbench_compact::compact::{SummaryAsk, is_summary};
use ctxbench_compact::conversation::Conversation;
use ctxbench_compact::message::Message;
use ctxbench_compact::tokens::TokenCounter;
use ctxbench_compact::tool_schemas::ToolSchemas;
use ctxbench_compact::wire::Format;
use serde_json::{Value, json};

use super::incoming::{Incoming, parse_json, read_chat, read_wire, route_format, summary_ask};
use super::sse::Event;
use super::stream::{self, Pace};
use super::{SUMMARY_HEADER, shapes};
use crate::agent::model::{Model, ModelError, ModelRequest};
use crate::agent::record::{CallPlace, call_record};
use crate::billing::price::Price;
use crate::billing::segments::{PrefixChange, PrefixTracker, Segments};
use crate::metrics::metrics;
use crate::report::ResultRow;
use crate::scenario::{FixtureTools, Scenario};
use crate::settings::{RunSettings, SettingsError};
use crate::sim::provider::{Provider, Server};
use crate::sim::scripted::ScriptedModel;
use crate::trace::CallKind;
use crate::trace::{CallRecord, Outcome};

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

/// What a request asks, for finding its run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Asking {
    /// A model call: the run of its conversation (first user message and `user`), made anew.
    Model,
    /// A summary call (`X-Ctxbench-Kind: summary`): the `user`'s last run, or the last of all.
    Summary,
    /// A standalone compaction (`/responses/compact`, which names no user): the last run that
    /// began with the same request, else a new one.
    Compaction,
}

/// One conversation a client holds with the endpoint.
struct Run<'a> {
    /// `user` field, or `conversation-N`.
    label: String,
    /// The wire format of its first call's route.
    format: Format,
    server: Provider<ScriptedModel<'a>>,
    trace: Vec<CallRecord>,
    tokens_sent: u64,
    /// The tool schemas of the last request, kept (with their counts) while requests repeat them.
    tools: ToolSchemas,
    /// The request the last agent call was placed in.
    request: usize,
    played: BTreeSet<(usize, usize)>,
    /// The conversation's simulated clock: each call's latency, and the scenario's idle time
    /// before each new request.
    clock_s: f64,
    /// How each agent request stands to the one before it.
    prefix: PrefixTracker,
    /// The scenario's tools as this run has called them through `POST /ctxbench/tool`.
    fixtures: FixtureTools<'a>,
    /// The server-side preset its requests asked for (the first), which names its row.
    managed: Option<ctxbench_compact::compact::Strategy>,
    /// What the server's edits did before an answer paused after its compaction: the next
    /// agent call's, as the loop records a compaction with the call it came before.
    paused: Option<crate::trace::CompactionRecord>,
    /// The seconds the tools called since the last model call took (they run at once: the
    /// longest), which pass on the clock before the next call, as in a run in process.
    tool_s: f64,
}

#[derive(Default)]
struct Runs<'a> {
    list: Vec<Arc<Mutex<Run<'a>>>>,
    by_key: BTreeMap<(String, Option<String>), usize>,
    /// The last run of each `user`, and the last run of all, for summary calls.
    by_user: BTreeMap<String, usize>,
    last: Option<usize>,
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

    /// The run a call belongs to, made on its first call (in `format`).
    fn run(&self, c: &Conversation, user: Option<String>, call: Asking, format: Format) -> Option<Arc<Mutex<Run<'a>>>> {
        let settings = &self.config.settings;
        let mut runs = lock(&self.runs);
        if call == Asking::Summary {
            let i = match &user {
                Some(u) => runs.by_user.get(u).copied(),
                None => runs.last,
            }?;
            return Some(runs.list[i].clone());
        }
        let first = c
            .messages
            .iter()
            .find(|m| m.is_request())
            .map(|m| m.content().map(|c| c.to_string()).unwrap_or_default())
            .unwrap_or_default();
        // A standalone compaction (`/responses/compact`) names no user: it is the last
        // conversation that began with the same request.
        let known = match &user {
            None if call == Asking::Compaction => runs
                .by_key
                .iter()
                .filter(|((f, _), _)| *f == first)
                .map(|(_, &i)| i)
                .max(),
            _ => None,
        };
        let key = (first, user.clone());
        let i = match known.or_else(|| runs.by_key.get(&key).copied()) {
            Some(i) => i,
            None => {
                let i = runs.list.len();
                let label = user.clone().unwrap_or_else(|| format!("conversation-{}", i + 1));
                runs.list.push(Arc::new(Mutex::new(Run {
                    label,
                    format,
                    server: Provider::new(
                        ScriptedModel::new(self.scenario, settings.seed)
                            .with_profiles(&settings.summarizer, &settings.model_profile),
                        self.counter.clone(),
                        Server {
                            window: self.window,
                            overflow: settings.overflow,
                            cache: settings.cache.clone(),
                            latency: settings.latency,
                        },
                    ),
                    trace: Vec::new(),
                    tokens_sent: 0,
                    tools: ToolSchemas::default(),
                    request: 0,
                    played: BTreeSet::new(),
                    clock_s: 0.0,
                    prefix: PrefixTracker::default(),
                    fixtures: FixtureTools::new(&self.scenario.tools),
                    tool_s: 0.0,
                    managed: None,
                    paused: None,
                })));
                runs.by_key.insert(key, i);
                i
            }
        };
        if let Some(u) = user {
            runs.by_user.insert(u, i);
        }
        runs.last = Some(i);
        Some(runs.list[i].clone())
    }

    fn call(
        &self,
        run: &mut Run<'a>,
        incoming: &Incoming,
        ask: Option<&SummaryAsk>,
        model: &str,
        format: Format,
    ) -> Response {
        let c = &incoming.conversation;
        let kind = if ask.is_some() {
            CallKind::Summary
        } else {
            CallKind::Agent
        };
        let mut turn = 0;
        run.clock_s += std::mem::take(&mut run.tool_s);
        if kind == CallKind::Agent {
            let request = match run.server.inner_mut().place(&c.messages) {
                Ok(request) => request,
                Err(e) => {
                    return Response::error(
                        format,
                        400,
                        &e.to_string(),
                        Some("messages"),
                        Some("ctxbench_unknown_request"),
                    );
                }
            };
            let last_user = c.messages.iter().rposition(Message::is_request).unwrap_or(0);
            turn = 1 + c.messages[last_user..]
                .iter()
                .filter(|m| m.role() == ctxbench_compact::Role::Assistant && !is_summary(m))
                .count();
            if request == 0 && turn == 1 && !run.trace.is_empty() {
                // The conversation starts over: a cold cache and a clock from 0, as a run has.
                run.clock_s = 0.0;
                run.prefix = PrefixTracker::default();
                run.fixtures = FixtureTools::new(&self.scenario.tools);
                run.server.clear_cache();
            } else if request > run.request {
                run.clock_s += self
                    .config
                    .settings
                    .idle_s
                    .unwrap_or(self.scenario.requests[request].idle_s);
            }
            run.request = request;
        }
        if run.tools != c.tools {
            run.tools = c.tools.clone();
        }
        // What the server reads, as a provider's does: from the last compaction on, edited as
        // the request asks (cleared, compacted).
        let managed = match kind {
            CallKind::Agent => match self.manage(run, incoming) {
                Ok(managed) => managed,
                Err(response) => return response,
            },
            _ => None,
        };
        if let Some(view) = managed.as_ref().filter(|m| m.paused) {
            // `pause_after_compaction`: the compaction alone; the client sends again to go on.
            run.paused = view.record.clone();
            let body = shapes::paused(format, model, view, &run.trace);
            return Response::reply(format, body, incoming.stream, Pace::NOW);
        }
        let edited = managed.as_ref().and_then(|m| m.record.clone());
        let record = match (run.paused.take(), edited) {
            (Some(paused), Some(now)) => Some(paused.and(now)),
            (paused, now) => paused.or(now),
        };
        let (system, messages, marks) = match &managed {
            Some(view) => (view.seen.system.as_ref(), &view.seen.messages, view.marks.as_ref()),
            None => (c.system.as_ref(), &c.messages, incoming.marks.as_ref()),
        };
        let req = ModelRequest {
            kind,
            system,
            messages,
            tools: &run.tools,
            request: run.request,
            summary: ask,
            at_s: run.clock_s,
            marks,
        };
        let result = run.server.complete(req);
        if matches!(result, Err(ModelError::ScriptEnded)) {
            let ended = shapes::script_ended(format, run.trace.len() + 1, model);
            return Response::reply(format, ended, incoming.stream, Pace::NOW);
        }
        let window = self.window;
        let prefix = match (&result, kind) {
            (Ok(_), CallKind::Agent) => {
                run.prefix
                    .observe(Segments::of(self.counter.as_ref(), system, messages, &run.tools))
            }
            _ => PrefixChange::default(),
        };
        let place = CallPlace {
            call: run.trace.len() + 1,
            request: run.request + 1,
            turn,
            window,
            limit: managed.as_ref().map_or(window, |m| m.limit),
            estimated_tokens: 0,
            compaction: record,
            retry: false,
            tokens_sent: run.tokens_sent,
            prefix,
        };
        let record = CallRecord {
            scenario: self.scenario.name.clone(),
            strategy: run.label.clone(),
            ..call_record(place, &req, self.counter.as_ref(), &result, self.price.as_ref())
        };
        let response = match result {
            Ok(reply) => {
                if let (Some(step), CallKind::Agent) = (reply.facts.step, reply.kind) {
                    run.played.insert(step);
                }
                let mut body = shapes::reply(format, model, reply.message, &record);
                if let Some(view) = &managed {
                    shapes::server_side(format, &mut body, view, &run.trace);
                }
                Response::reply(format, body, incoming.stream, self.pace(&record))
            }
            Err(ModelError::ContextWindowExceeded { needed, limit }) => Response::error(
                format,
                400,
                &shapes::too_long(format, needed, limit),
                Some("messages"),
                Some("context_length_exceeded"),
            ),
            Err(ModelError::Pairing(broken)) => Response::error(
                format,
                400,
                &format!(
                    "Invalid parameter: messages with role 'tool' must be a response to a preceding message \
                     with 'tool_calls', and every call needs its result ({broken})."
                ),
                Some("messages"),
                None,
            ),
            // A failure once under way: a stream has begun, and says so in its own event.
            Err(e) => match incoming.stream {
                Some(usage_chunk) => Response::events(stream::failure(
                    format,
                    &shapes::script_ended(format, record.call, model),
                    &e.to_string(),
                    usage_chunk,
                )),
                None => Response::error(format, 500, &e.to_string(), None, None),
            },
        };
        run.tokens_sent = record.tokens_sent;
        run.clock_s += record.latency_s;
        run.trace.push(record);
        response
    }

    /// `POST /ctxbench/tool` `{"name", "arguments", "user"}`: what the scenario's tool answers to
    /// that call in that run (the `user`'s, else the last to call), exactly as in a run in
    /// process, padding included: `{"output": TEXT}`; the time it took passes on the run's clock
    /// before its next call. For an agent whose tools are its own.
    fn tool(&self, body: &[u8]) -> Response {
        let bad = |message: &str, param: &str| Response::error(Format::Chat, 400, message, Some(param), None);
        let value = match parse_json(body) {
            Ok(value) => value,
            Err((message, _)) => return bad(&message, "body"),
        };
        let Some(name) = value.get("name").and_then(Value::as_str) else {
            return bad("\"name\" must be the tool's name.", "name");
        };
        let arguments = match value.get("arguments") {
            Some(Value::String(text)) => text.clone(),
            None | Some(Value::Null) => "{}".to_owned(),
            Some(other) => other.to_string(),
        };
        let user = value.get("user").and_then(Value::as_str);
        let index = {
            let runs = lock(&self.runs);
            match user {
                Some(u) => runs.by_user.get(u).copied(),
                None => runs.last,
            }
            .map(|i| runs.list[i].clone())
        };
        let Some(run) = index else {
            return bad(
                "No conversation has called the model yet (with this \"user\"): call a tool after the model asks for it.",
                "user",
            );
        };
        let mut run = lock(&run);
        let (output, seconds) = run.fixtures.call_timed(name, &arguments);
        run.tool_s = run.tool_s.max(seconds);
        Response::json(200, json!({ "output": output }))
    }

    /// When a call's first token and its end are due: the first after the overhead and the
    /// prefill, the end at the call's latency (the reply written at the decode rate between).
    fn pace(&self, record: &CallRecord) -> Pace {
        let decode_s = record.completion_tokens as f64 / self.config.settings.latency.decode_tps;
        Pace {
            first_s: (record.latency_s - decode_s).max(0.0),
            last_s: record.latency_s,
        }
    }

    /// Every run so far, in the order they began: its row and its trace.
    pub fn runs(&self) -> Vec<(ResultRow, Vec<CallRecord>)> {
        let list: Vec<Arc<Mutex<Run<'a>>>> = lock(&self.runs).list.clone();
        let steps: usize = self.scenario.requests.iter().map(|r| r.steps.len()).sum();
        list.iter()
            .map(|run| {
                let run = lock(run);
                let stopped = run
                    .trace
                    .iter()
                    .any(|r| matches!(r.outcome, Outcome::Overflow | Outcome::PairingError | Outcome::Error));
                let completed = !stopped && run.played.len() == steps;
                // A run whose server managed its context is named by the preset it asked for.
                let strategy = run
                    .managed
                    .clone()
                    .map(std::sync::Arc::new)
                    .unwrap_or_else(|| self.config.settings.strategy.clone());
                let settings = RunSettings {
                    run: Some(run.label.clone()),
                    format: Some(run.format),
                    strategy,
                    ..self.config.settings.clone()
                };
                let mut trace = run.trace.clone();
                crate::run::note_unread(&mut trace, run.server.unread_cache_writes());
                let row = ResultRow::new(&self.scenario.name, settings, metrics(self.scenario, &trace, completed));
                (row, trace)
            })
            .collect()
    }

    /// `GET /ctxbench/report`: the settings and each run's figures so far.
    pub fn report(&self) -> Value {
        let runs: Vec<Value> = self
            .runs()
            .into_iter()
            .map(|(row, trace)| json!({"run": row.settings.run, "calls": trace.len(), "figures": row.metrics}))
            .collect();
        let settings = &self.config.settings;
        json!({
            "scenario": self.scenario.name,
            "window": self.window,
            "tokenizer": settings.tokenizer.as_str(),
            "overflow": settings.overflow.as_str(),
            "seed": settings.seed,
            "runs": runs,
        })
    }
}
