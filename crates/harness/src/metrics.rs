//! The figures of one run (`docs/figures.md`), as a pure function of its trace and its scenario.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::scenario::Scenario;
use crate::trace::CallKind;
use crate::trace::{CallRecord, Outcome};

/// What a run cost and what it broke.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunMetrics {
    /// Requests in the scenario.
    pub requests: usize,
    /// Requests that ended with a reply.
    pub requests_answered: usize,
    /// Every call, rejected ones included: `agent_calls + refetch_calls + summarizer_calls`.
    pub model_calls: usize,
    /// Agent turns.
    pub agent_calls: usize,
    /// Turns spent fetching lost facts again.
    pub refetch_calls: usize,
    /// Summary calls made by `summarize`.
    pub summarizer_calls: usize,
    /// Σ true input tokens of accepted calls, summaries included: the bill.
    pub tokens_sent: u64,
    /// The part of `tokens_sent` that is system prompt and tool schemas.
    pub prefix_tokens: u64,
    /// Σ true tokens of replies.
    pub tokens_received: u64,
    /// The largest accepted call.
    pub peak_request_tokens: u64,
    /// Calls rejected as over the window.
    pub overflows: usize,
    /// Calls the server accepted after cutting their oldest messages.
    pub silent_truncations: usize,
    /// Calls rejected for a broken tool-call pairing.
    pub pairing_errors: usize,
    /// Calls before which the history changed.
    pub compactions: usize,
    /// Tool results truncated.
    pub messages_truncated: usize,
    /// Tool results masked or cleared.
    pub messages_masked: usize,
    /// Messages dropped (by `drop`, `window`, or a summary's span).
    pub messages_dropped: usize,
    /// Needs of steps that ran.
    pub facts_needed: usize,
    /// Of those, lost.
    pub facts_lost: usize,
    /// Needs of steps never run.
    pub facts_unreached: usize,
    /// Needs fetched again.
    pub refetches: usize,
    /// Answered requests whose final reply followed a lost need.
    pub answers_wrong: usize,
    /// Requests in which the pipeline could not get under the limit.
    pub cannot_fit: usize,
    /// The run reached the end of its last request.
    pub completed: bool,
}

/// The figures of a run. `completed` says whether the loop went through every request.
pub fn metrics(scenario: &Scenario, trace: &[CallRecord], completed: bool) -> RunMetrics {
    let mut m = RunMetrics {
        requests: scenario.requests.len(),
        completed,
        ..RunMetrics::default()
    };
    let mut cannot_fit = BTreeSet::new();
    let mut lost_in = BTreeSet::new();
    for r in trace {
        m.model_calls += 1;
        match r.kind {
            CallKind::Agent => m.agent_calls += 1,
            CallKind::Refetch => m.refetch_calls += 1,
            CallKind::Summary => m.summarizer_calls += 1,
        }
        match r.outcome {
            Outcome::Overflow => m.overflows += 1,
            Outcome::PairingError => m.pairing_errors += 1,
            Outcome::Truncated => m.silent_truncations += 1,
            Outcome::Ok | Outcome::Error => {}
        }
        if matches!(r.outcome, Outcome::Ok | Outcome::Truncated) {
            m.tokens_sent += r.billed_tokens;
            m.prefix_tokens += r.prefix_tokens;
            m.tokens_received += r.completion_tokens;
            m.peak_request_tokens = m.peak_request_tokens.max(r.billed_tokens);
        }
        if let Some(c) = &r.compaction {
            if c.truncated + c.masked + c.dropped > 0 {
                m.compactions += 1;
            }
            m.messages_truncated += c.truncated;
            m.messages_masked += c.masked;
            m.messages_dropped += c.dropped;
            if c.cannot_fit {
                cannot_fit.insert(r.request);
            }
        }
        m.facts_needed += r.needed.len();
        m.facts_lost += r.lost.len();
        m.refetches += r.refetched.len();
        if !r.lost.is_empty() {
            lost_in.insert(r.request);
        }
    }
    let total_needs: usize = scenario
        .requests
        .iter()
        .flat_map(|q| &q.steps)
        .map(|s| s.needs.len())
        .sum();
    m.facts_unreached = total_needs - m.facts_needed.min(total_needs);
    m.cannot_fit = cannot_fit.len();
    // A request is answered when its last accepted agent call replied without tool calls.
    for request in 1..=scenario.requests.len() {
        let last = trace
            .iter()
            .filter(|r| r.request == request && r.kind != CallKind::Summary)
            .rfind(|r| matches!(r.outcome, Outcome::Ok | Outcome::Truncated));
        if last.is_some_and(|r| r.reply_calls == 0) {
            m.requests_answered += 1;
            if lost_in.contains(&request) {
                m.answers_wrong += 1;
            }
        }
    }
    m
}
