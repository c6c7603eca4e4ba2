//! One run: a scenario replayed through the agent loop with one configuration. The same path
//! serves tests, benches and every command.

use crate::agent::{Agent, Ask, LoopOptions, OnOverflow};
use crate::compact::{Compactor, Strategy};
use crate::conversation::Conversation;
use crate::metrics::{RunMetrics, metrics};
use crate::model::{CallKind, Model, ModelError, ModelReply, ModelRequest};
use crate::policy::Policy;
use crate::provider::{Overflow, Provider};
use crate::scenario::Scenario;
use crate::scripted::ScriptedModel;
use crate::tokens::{CounterKind, Estimator};
use crate::tools::FixtureTools;
use crate::trace::CallRecord;

/// Everything a run depends on besides the scenario.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// The strategy.
    pub strategy: Strategy,
    /// The policy; `window: None` takes the scenario's.
    pub window: Option<u64>,
    /// Threshold (fraction of the window).
    pub threshold: f64,
    /// Requests protected at the end of the history.
    pub keep_recent_turns: usize,
    /// Tokens kept free for the reply.
    pub reply_reserve: u64,
    /// What the compactor decides with.
    pub estimator: Estimator,
    /// What the provider counts and bills with.
    pub tokenizer: CounterKind,
    /// What the server does with a request over the window.
    pub overflow: Overflow,
    /// What the loop does after a rejection.
    pub on_overflow: OnOverflow,
    /// Agent and refetch calls per request; `None` takes the scenario's.
    pub max_turns: Option<usize>,
    /// The seed of every random draw.
    pub seed: u64,
}

impl RunConfig {
    /// The defaults of DESIGN §4–§7 for a strategy.
    pub fn new(strategy: Strategy) -> RunConfig {
        RunConfig {
            strategy,
            window: None,
            threshold: 0.8,
            keep_recent_turns: 2,
            reply_reserve: 0,
            estimator: Estimator::Counter(CounterKind::Chars4),
            tokenizer: CounterKind::O200k,
            overflow: Overflow::Reject,
            on_overflow: OnOverflow::Abort,
            max_turns: None,
            seed: 0,
        }
    }

    /// The policy this configuration gives for a scenario; `None` when neither sets a window.
    pub fn policy(&self, scenario: &Scenario) -> Option<Policy> {
        Some(Policy {
            window: self.window.or(scenario.window)?,
            threshold: self.threshold,
            keep_recent_turns: self.keep_recent_turns,
            reply_reserve: self.reply_reserve,
        })
    }
}

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

/// Replays `scenario` with `config` (whose policy must be valid and have a window); `on_call`
/// sees each call as it happens. Deterministic: the same inputs give the same trace.
pub fn run_scenario(
    scenario: &Scenario,
    config: &RunConfig,
    policy: &Policy,
    on_call: &mut dyn FnMut(&CallRecord),
) -> RunResult {
    run_with_model(
        scenario,
        config,
        policy,
        ScriptedModel::new(scenario, config.seed),
        on_call,
    )
}

/// [`run_scenario`] with another model behind the simulated server: the scenario's tools and
/// requests, `model`'s answers.
pub fn run_with_model<M: Model>(
    scenario: &Scenario,
    config: &RunConfig,
    policy: &Policy,
    model: M,
    on_call: &mut dyn FnMut(&CallRecord),
) -> RunResult {
    let server = Provider::new(model, config.tokenizer.counter(), policy.window, config.overflow);
    run_loop(scenario, config, policy, server, 0, on_call)
}

/// A live model's default of agent and refetch calls per request (DESIGN §6).
pub const LIVE_MAX_TURNS: usize = 10;

/// [`run_scenario`] against a live model (an [`crate::http::HttpModel`]): no simulated server in
/// front, since the real one enforces its window and reports its counts; the scenario's tools
/// answer the calls; `max_turns` defaults to [`LIVE_MAX_TURNS`], or the scenario's when larger.
/// A model that reports no facts has them judged in what it answers ([`LiveFacts`]).
pub fn run_live<M: Model>(
    scenario: &Scenario,
    config: &RunConfig,
    policy: &Policy,
    model: M,
    on_call: &mut dyn FnMut(&CallRecord),
) -> RunResult {
    let model = LiveFacts::new(scenario, model);
    run_loop(scenario, config, policy, model, LIVE_MAX_TURNS, on_call)
}

fn run_loop<M: Model>(
    scenario: &Scenario,
    config: &RunConfig,
    policy: &Policy,
    model: M,
    min_turns: usize,
    on_call: &mut dyn FnMut(&CallRecord),
) -> RunResult {
    let compactor = Compactor::new(config.strategy.clone(), policy.clone(), config.estimator.counter());
    let conversation = Conversation {
        system: scenario.system.clone(),
        system_index: 0,
        messages: scenario.preamble.clone(),
        tools: scenario.tool_schemas.clone(),
    };
    let options = LoopOptions {
        true_counter: config.tokenizer.counter(),
        on_overflow: config.on_overflow,
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
        agent.conversation.messages.extend(request.before.iter().cloned());
        let max_turns = config.max_turns.unwrap_or(request.max_turns.max(min_turns));
        if let Ask::Stopped(reason) = agent.ask(r, request.user.clone(), max_turns, on_call) {
            completed = false;
            stopped = Some(reason);
            break;
        }
    }
    let mut trace = agent.into_trace();
    let strategy = config.strategy.to_string();
    for record in &mut trace {
        record.scenario.clone_from(&scenario.name);
        record.strategy.clone_from(&strategy);
    }
    let metrics = metrics(scenario, &trace, completed);
    RunResult {
        trace,
        metrics,
        stopped,
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
