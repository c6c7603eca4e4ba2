//! The conversations `serve` holds: each its own run (found by its first user message and the
//! body's `user` field, or made on its first call), with its trace, its clock and the scenario's
//! tools as it has called them; and what they come to: a row and a trace each, and the report.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use ctxbench_compact::conversation::Conversation;
use ctxbench_compact::tool_schemas::ToolSchemas;
use ctxbench_compact::wire::Format;
use serde_json::{Value, json};

use super::{Endpoint, Response, lock};
use crate::agent::model::Model;
use crate::billing::segments::PrefixTracker;
use crate::http::incoming::parse_json;
use crate::metrics::metrics;
use crate::report::ResultRow;
use crate::scenario::FixtureTools;
use crate::settings::RunSettings;
use crate::sim::provider::{Provider, Server};
use crate::sim::scripted::ScriptedModel;
use crate::trace::{CallRecord, Outcome};

/// What a request asks, for finding its run.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Asking {
    /// A model call: the run of its conversation (first user message and `user`), made anew.
    Model,
    /// A summary call (`X-Ctxbench-Kind: summary`): the `user`'s last run, or the last of all.
    Summary,
    /// A standalone compaction (`/responses/compact`, which names no user): the last run that
    /// began with the same request, else a new one.
    Compaction,
}

/// One conversation a client holds with the endpoint.
pub(super) struct Run<'a> {
    /// `user` field, or `conversation-N`.
    pub(super) label: String,
    /// The wire format of its first call's route.
    pub(super) format: Format,
    pub(super) server: Provider<ScriptedModel<'a>>,
    pub(super) trace: Vec<CallRecord>,
    pub(super) tokens_sent: u64,
    /// The tool schemas of the last request, kept (with their counts) while requests repeat them.
    pub(super) tools: ToolSchemas,
    /// The request the last agent call was placed in.
    pub(super) request: usize,
    pub(super) played: BTreeSet<(usize, usize)>,
    /// The conversation's simulated clock: each call's latency, and the scenario's idle time
    /// before each new request.
    pub(super) clock_s: f64,
    /// How each agent request stands to the one before it.
    pub(super) prefix: PrefixTracker,
    /// The scenario's tools as this run has called them through `POST /ctxbench/tool`.
    pub(super) fixtures: FixtureTools<'a>,
    /// The server-side preset its requests asked for (the first), which names its row.
    pub(super) managed: Option<ctxbench_compact::compact::Strategy>,
    /// What the server's edits did before an answer paused after its compaction: the next
    /// agent call's, as the loop records a compaction with the call it came before.
    pub(super) paused: Option<crate::trace::CompactionRecord>,
    /// The seconds the tools called since the last model call took (they run at once: the
    /// longest), which pass on the clock before the next call, as in a run in process.
    pub(super) tool_s: f64,
}

#[derive(Default)]
pub(super) struct Runs<'a> {
    list: Vec<Arc<Mutex<Run<'a>>>>,
    by_key: BTreeMap<(String, Option<String>), usize>,
    /// The last run of each `user`, and the last run of all, for summary calls.
    by_user: BTreeMap<String, usize>,
    last: Option<usize>,
}

impl<'a> Endpoint<'a> {
    /// The run a call belongs to, made on its first call (in `format`).
    pub(super) fn run(
        &self,
        c: &Conversation,
        user: Option<String>,
        call: Asking,
        format: Format,
    ) -> Option<Arc<Mutex<Run<'a>>>> {
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

    /// `POST /ctxbench/tool` `{"name", "arguments", "user"}`: what the scenario's tool answers to
    /// that call in that run (the `user`'s, else the last to call), exactly as in a run in
    /// process, padding included: `{"output": TEXT}`; the time it took passes on the run's clock
    /// before its next call. For an agent whose tools are its own.
    pub(super) fn tool(&self, body: &[u8]) -> Response {
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
