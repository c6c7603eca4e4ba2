//! One result row: a scenario × configuration and its figures (DESIGN §8). Flat, so that CSV
//! can carry it; the key columns come first, the figures after.

use serde::{Deserialize, Serialize};

use crate::metrics::RunMetrics;
use crate::policy::Policy;
use crate::run::RunConfig;
use crate::scenario::Scenario;

/// A row of `results.csv`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResultRow {
    /// The scenario's name.
    pub scenario: String,
    /// The strategy's canonical name.
    pub strategy: String,
    /// Context window, tokens.
    pub window: u64,
    /// Threshold, a fraction of the window.
    pub threshold: f64,
    /// Requests protected at the end of the history.
    pub keep_recent_turns: usize,
    /// Tokens kept free for the reply.
    pub reply_reserve: u64,
    /// What the compactor decided with.
    pub estimator: String,
    /// What the provider counted and billed with.
    pub tokenizer: String,
    /// `reject` or `truncate`.
    pub overflow: String,
    /// `abort` or `compact-retry`.
    pub on_overflow: String,
    /// Agent and refetch calls per request; empty: the scenario's own.
    pub max_turns: Option<usize>,
    /// The seed.
    pub seed: u64,
    /// Requests in the scenario.
    pub requests: usize,
    /// Requests that ended with a reply.
    pub requests_answered: usize,
    /// Every call, rejected ones included.
    pub model_calls: usize,
    /// Agent turns.
    pub agent_calls: usize,
    /// Refetch turns.
    pub refetch_calls: usize,
    /// Summary calls.
    pub summarizer_calls: usize,
    /// Σ true input tokens of accepted calls: the bill.
    pub tokens_sent: u64,
    /// The part of `tokens_sent` no compactor can touch (system prompt, tool schemas).
    pub prefix_tokens: u64,
    /// Σ true tokens of replies.
    pub tokens_received: u64,
    /// The largest accepted call, tokens.
    pub peak_request_tokens: u64,
    /// Calls rejected as over the window.
    pub overflows: usize,
    /// Calls the server accepted after cutting old messages.
    pub silent_truncations: usize,
    /// Calls rejected for broken pairing.
    pub pairing_errors: usize,
    /// Calls before which the history changed.
    pub compactions: usize,
    /// Tool results truncated.
    pub messages_truncated: usize,
    /// Tool results masked or cleared.
    pub messages_masked: usize,
    /// Messages dropped or summarised away.
    pub messages_dropped: usize,
    /// Needs of steps that ran.
    pub facts_needed: usize,
    /// Needs lost.
    pub facts_lost: usize,
    /// Needs of steps never run.
    pub facts_unreached: usize,
    /// Needs fetched again.
    pub refetches: usize,
    /// Answered requests whose reply followed a lost need.
    pub answers_wrong: usize,
    /// Requests where the pipeline could not get under the limit.
    pub cannot_fit: usize,
    /// The run reached the end of its last request.
    pub completed: bool,
}

impl ResultRow {
    /// The row of one run.
    pub fn new(scenario: &Scenario, config: &RunConfig, policy: &Policy, m: &RunMetrics) -> ResultRow {
        ResultRow {
            scenario: scenario.name.clone(),
            strategy: config.strategy.to_string(),
            window: policy.window,
            threshold: policy.threshold,
            keep_recent_turns: policy.keep_recent_turns,
            reply_reserve: policy.reply_reserve,
            estimator: config.estimator.to_string(),
            tokenizer: config.tokenizer.to_string(),
            overflow: config.overflow.to_string(),
            on_overflow: config.on_overflow.as_str().to_owned(),
            max_turns: config.max_turns,
            seed: config.seed,
            requests: m.requests,
            requests_answered: m.requests_answered,
            model_calls: m.model_calls,
            agent_calls: m.agent_calls,
            refetch_calls: m.refetch_calls,
            summarizer_calls: m.summarizer_calls,
            tokens_sent: m.tokens_sent,
            prefix_tokens: m.prefix_tokens,
            tokens_received: m.tokens_received,
            peak_request_tokens: m.peak_request_tokens,
            overflows: m.overflows,
            silent_truncations: m.silent_truncations,
            pairing_errors: m.pairing_errors,
            compactions: m.compactions,
            messages_truncated: m.messages_truncated,
            messages_masked: m.messages_masked,
            messages_dropped: m.messages_dropped,
            facts_needed: m.facts_needed,
            facts_lost: m.facts_lost,
            facts_unreached: m.facts_unreached,
            refetches: m.refetches,
            answers_wrong: m.answers_wrong,
            cannot_fit: m.cannot_fit,
            completed: m.completed,
        }
    }
}
