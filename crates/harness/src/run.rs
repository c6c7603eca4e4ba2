//! One run: a scenario replayed through the agent loop with one configuration. The same path
//! serves tests, benches and every command.

use std::sync::Arc;

use ctxbench_compact::compact::Compactor;
use ctxbench_compact::conversation::Conversation;
use ctxbench_compact::tokens::TokenCounter;

use crate::agent::model::{Model, ModelError, ModelReply, ModelRequest};
use crate::agent::{Agent, Ask, LoopOptions};
use crate::metrics::{RunMetrics, metrics};
use crate::scenario::FixtureTools;
use crate::scenario::Scenario;
use crate::settings::{RunSettings, SettingsError};
use crate::sim::provider::{Provider, Server};
use crate::sim::scripted::ScriptedModel;
use crate::trace::CallKind;
use crate::trace::CallRecord;

/// A finished run.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// One record per model call.
    pub trace: Vec<CallRecord>,
    /// The figures.
    pub metrics: RunMetrics,
    /// Why the run stopped before its end, if it did (`context length exceeded: …`).
    pub stopped: Option<String>,
}

/// Replays `scenario` with `settings`; `on_call` sees each call as it happens. Deterministic:
/// the same inputs give the same trace. Fails only when the settings cannot run the scenario
/// ([`RunSettings::policy`]).
pub fn run_scenario(
    scenario: &Scenario,
    settings: &RunSettings,
    on_call: &mut dyn FnMut(&CallRecord),
) -> Result<RunResult, SettingsError> {
    let model =
        ScriptedModel::new(scenario, settings.seed).with_profiles(&settings.summarizer, &settings.model_profile);
    run_with_model(scenario, settings, model, on_call)
}

/// [`run_scenario`] with another model behind the simulated server: the scenario's tools and
/// requests, `model`'s answers.
pub fn run_with_model<M: Model>(
    scenario: &Scenario,
    settings: &RunSettings,
    model: M,
    on_call: &mut dyn FnMut(&CallRecord),
) -> Result<RunResult, SettingsError> {
    let server = Server {
        window: settings.policy(scenario)?.window,
        overflow: settings.overflow,
        cache: settings.cache.clone(),
        latency: settings.latency,
    };
    let counter = settings.tokenizer.counter();
    let server = Provider::new(model, counter.clone(), server);
    run_loop(scenario, settings, server, (0, Some(counter)), on_call)
}

/// A live model's default of agent and refetch calls per request.
pub const LIVE_MAX_TURNS: usize = 10;

/// [`run_scenario`] against a live model (an [`crate::http::HttpModel`]): no simulated server in
/// front, since the real one enforces its window and reports its counts; the scenario's tools
/// answer the calls; `max_turns` defaults to [`LIVE_MAX_TURNS`], or the scenario's when larger.
/// A model that reports no facts has them judged in what it answers ([`LiveFacts`]).
pub fn run_live<M: Model>(
    scenario: &Scenario,
    settings: &RunSettings,
    model: M,
    on_call: &mut dyn FnMut(&CallRecord),
) -> Result<RunResult, SettingsError> {
    let model = LiveFacts::new(scenario, model);
    run_loop(scenario, settings, model, (LIVE_MAX_TURNS, None), on_call)
}

/// The loop of a run: `min_turns` agent calls a request at least, and the simulated server's
/// counter (`None` live), which triggers on the request's input tokens read as the server counts.
fn run_loop<M: Model>(
    scenario: &Scenario,
    settings: &RunSettings,
    model: M,
    (min_turns, server): (usize, Option<Arc<dyn TokenCounter>>),
    on_call: &mut dyn FnMut(&CallRecord),
) -> Result<RunResult, SettingsError> {
    let policy = settings.policy(scenario)?;
    let mut compactor = Compactor::new((*settings.strategy).clone(), policy, settings.estimator.counter())
        .with_retries(settings.retries());
    if let Some(counter) = server {
        compactor = compactor.with_server_counter(counter);
    }
    let conversation = Conversation {
        system: scenario.system.clone(),
        system_index: 0,
        messages: scenario.preamble.clone(),
        tools: scenario.tool_schemas.clone(),
    };
    let options = LoopOptions {
        true_counter: settings.tokenizer.counter(),
        on_overflow: settings.on_overflow,
        price: settings.billed_price(),
        cache_ttl_s: settings.cache.ttl_s(),
    };
    let tools = FixtureTools::new(&scenario.tools).named(scenario.tool_result_name);
    let mut agent = Agent::new(model, tools, compactor, conversation, options);
    let mut completed = true;
    let mut stopped = None;
    for (r, request) in scenario.requests.iter().enumerate() {
        if request.steps.is_empty() {
            // A request with no steps ends the run there.
            break;
        }
        if r > 0 {
            agent.wait(settings.idle_s.unwrap_or(request.idle_s));
        }
        agent.conversation.messages.extend(request.before.iter().cloned());
        let max_turns = settings.max_turns.unwrap_or(request.max_turns.max(min_turns));
        if let Ask::Stopped(reason) = agent.ask(r, request.user.clone(), max_turns, on_call) {
            completed = false;
            stopped = Some(reason);
            break;
        }
    }
    let unread = agent.model.unread_cache_writes();
    let mut trace = agent.into_trace();
    note_unread(&mut trace, unread);
    let strategy = settings.strategy.to_string();
    for record in &mut trace {
        record.scenario.clone_from(&scenario.name);
        record.strategy.clone_from(&strategy);
    }
    let metrics = metrics(scenario, &trace, completed);
    Ok(RunResult {
        trace,
        metrics,
        stopped,
    })
}

/// Puts in each call that wrote to the prompt cache what of its write no later call read:
/// `unread`, the server's writes in order ([`Model::unread_cache_writes`]), which are the calls'
/// non-zero `cache_write_tokens` in the same order.
pub(crate) fn note_unread(trace: &mut [CallRecord], unread: Vec<u64>) {
    let writers = trace.iter_mut().filter(|r| r.cache_write_tokens > 0);
    for (record, unread) in writers.zip(unread) {
        record.cache_write_unread_tokens = unread;
    }
}

/// Judges a live model's facts, when it reports none: when it answers a request, each fact the
/// scenario's steps for that request need is *needed*, and *lost* when none of the model's
/// outputs in that request (contents and call arguments) holds its value.
pub struct LiveFacts<'a, M> {
    inner: M,
    scenario: &'a Scenario,
    request: usize,
    outputs: Vec<String>,
}

impl<'a, M: Model> LiveFacts<'a, M> {
    /// Wraps `inner`.
    pub fn new(scenario: &'a Scenario, inner: M) -> LiveFacts<'a, M> {
        LiveFacts {
            inner,
            scenario,
            request: usize::MAX,
            outputs: Vec::new(),
        }
    }
}

impl<M: Model> Model for LiveFacts<'_, M> {
    fn complete(&mut self, req: ModelRequest<'_>) -> Result<ModelReply, ModelError> {
        let mut reply = self.inner.complete(req)?;
        let reports = reply.facts.step.is_some() || !reply.facts.needed.is_empty();
        if req.kind == CallKind::Summary || reports {
            return Ok(reply);
        }
        if req.request != self.request {
            self.request = req.request;
            self.outputs.clear();
        }
        self.outputs.push(reply.message.text().into_owned());
        self.outputs
            .extend(reply.message.calls().map(|c| c.arguments.to_owned()));
        if !reply.message.has_calls() {
            let mut needs: Vec<usize> = Vec::new();
            for step in self
                .scenario
                .requests
                .get(req.request)
                .map_or(&[][..], |r| &r.steps[..])
            {
                for &f in &step.needs {
                    if !needs.contains(&f) {
                        needs.push(f);
                    }
                }
            }
            for f in needs {
                let fact = &self.scenario.facts[f];
                reply.facts.needed.push(fact.name.clone());
                if !self.outputs.iter().any(|o| o.contains(&fact.value)) {
                    reply.facts.lost.push(fact.name.clone());
                }
            }
        }
        Ok(reply)
    }
}
