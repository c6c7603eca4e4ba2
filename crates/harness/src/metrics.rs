//! The figures of one run (`docs/figures.md`), as a pure function of its trace and its scenario.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::billing::price::{dollars, picodollars};
use crate::scenario::Scenario;
use crate::trace::CallKind;
use crate::trace::{CallRecord, Outcome};

/// What a run cost and what it broke. The figures of the real bill read as 0 (and no cost) from a
/// results file written before them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
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
    /// Summary calls that failed (rejected or in error), retries included: a compaction whose
    /// every try failed left the history as it was.
    #[serde(default, alias = "summary_failures")]
    pub compaction_failures: usize,
    /// Summary calls made again after a failed one (`--compaction-retries`).
    #[serde(default)]
    pub compaction_retries: usize,
    /// Compaction calls the provider billed: summaries, whether a stage of the client asked for
    /// them or the server made them (Anthropic's compaction iteration).
    #[serde(default)]
    pub compaction_calls: usize,
    /// Their input tokens (inside `tokens_sent`).
    #[serde(default)]
    pub compaction_input_tokens: u64,
    /// Of those, read from the prompt cache (a summarizer reading the agent's own request).
    #[serde(default)]
    pub compaction_cache_read_tokens: u64,
    /// Their output tokens: the summaries (inside `tokens_received`).
    #[serde(default)]
    pub compaction_output_tokens: u64,
    /// Σ true input tokens of accepted calls, summaries included: the bill.
    pub tokens_sent: u64,
    /// The part of `tokens_sent` that is system prompt and tool schemas.
    pub prefix_tokens: u64,
    /// Σ true tokens of replies.
    pub tokens_received: u64,
    /// The part of `tokens_sent` neither read from the cache nor written to it.
    #[serde(default)]
    pub uncached_tokens: u64,
    /// The part of `tokens_sent` read from the provider's cache.
    #[serde(default)]
    pub cache_read_tokens: u64,
    /// The part of `tokens_sent` written to the cache (billed at the write price).
    #[serde(default)]
    pub cache_write_tokens: u64,
    /// `cache_read_tokens / tokens_sent` (0 when nothing was sent).
    #[serde(default)]
    pub cache_hit_rate: f64,
    /// Accepted agent calls whose request does not extend the previous one's.
    #[serde(default)]
    pub prefix_breaks: usize,
    /// Σ over those breaks of the previous request's tokens past what the two share.
    #[serde(default)]
    pub invalidated_tokens: u64,
    /// Cache writes no later call read before they expired or the run ended.
    #[serde(default)]
    pub cache_write_unread_tokens: u64,
    /// Tokens of unchanged messages compactions put behind new content (a summary placed
    /// first): cache lost for nothing.
    #[serde(default)]
    pub unchanged_moved_tokens: u64,
    /// What the run cost in US dollars, summaries included; empty with `--price none`.
    #[serde(default)]
    pub cost_usd: Option<f64>,
    /// When the run ended on the simulated clock, in seconds.
    #[serde(default)]
    pub elapsed_s: f64,
    /// The largest request made, rejected ones included (true tokens).
    pub peak_request_tokens: u64,
    /// The largest request the server accepted.
    #[serde(default)]
    pub peak_accepted_tokens: u64,
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
    /// Facts the scenario declares: the denominator of `facts_lost`.
    #[serde(default)]
    pub facts: usize,
    /// Distinct facts with at least one unmet need.
    pub facts_lost: usize,
    /// Distinct facts, not lost, that a step used with a wrong value: altered by a summary, or
    /// guessed by a model that did not notice it was gone (the behaviour profiles).
    #[serde(default)]
    pub facts_wrong: usize,
    /// Distinct facts, neither lost nor wrong, that a step used with the value they superseded
    /// (the newer one gone from the request, the older one still there).
    #[serde(default)]
    pub facts_stale: usize,
    /// Binding decisions (an approval, denial or correction the user gave) lost, used wrong or
    /// stale.
    #[serde(default)]
    pub decisions_lost: usize,
    /// The last summary's tokens over the first's (1 with one summary, 0 with none): how
    /// summaries of summaries grow over the cycles.
    #[serde(default)]
    pub summary_growth: f64,
    /// Needs (uses of a fact by a step) of steps that ran.
    #[serde(default)]
    pub needs: usize,
    /// Of those, unmet: the fact was gone from the request and could not be fetched again.
    #[serde(default)]
    pub needs_unmet: usize,
    /// Needs of steps never run.
    #[serde(default)]
    pub needs_unreached: usize,
    /// Needs fetched again.
    pub refetches: usize,
    /// Answered requests whose final reply followed a lost need, a wrong value or a stale one.
    pub answers_wrong: usize,
    /// Requests in which the pipeline could not get under the limit.
    pub cannot_fit: usize,
    /// Compactions that started over the limit and freed less than a tenth of it, or came on
    /// the call right after another such (a compaction loop); failed ones are not counted.
    #[serde(default)]
    pub thrash: usize,
    /// The most any compaction could not remove (system prompt, tools, the history up to the
    /// first request, the protected tail), in the server's tokens; 0 without a compaction.
    #[serde(default)]
    pub floor: u64,
    /// Requests in which that floor was over the compactor's limit: no strategy keeping that
    /// tail can fit them.
    #[serde(default)]
    pub floor_over_limit: usize,
    /// The run reached the end of its last request.
    pub completed: bool,
}

impl RunMetrics {
    /// Distinct facts lost, used wrong or stale: what the objective's `facts` counts.
    pub fn facts_missed(&self) -> usize {
        self.facts_lost + self.facts_wrong + self.facts_stale
    }
}

/// The figures of a run. `completed` says whether the loop went through every request.
pub fn metrics(scenario: &Scenario, trace: &[CallRecord], completed: bool) -> RunMetrics {
    let mut m = RunMetrics {
        requests: scenario.requests.len(),
        facts: scenario.facts.len(),
        completed,
        ..RunMetrics::default()
    };
    let mut cannot_fit = BTreeSet::new();
    let mut floor_over = BTreeSet::new();
    let mut lost_in = BTreeSet::new();
    let mut facts_lost: BTreeSet<&str> = BTreeSet::new();
    let mut facts_wrong: BTreeSet<&str> = BTreeSet::new();
    let mut facts_stale: BTreeSet<&str> = BTreeSet::new();
    let mut summaries: Vec<u64> = Vec::new();
    // Costs are summed exactly, in picodollars.
    let mut cost: Option<u128> = None;
    for r in trace {
        m.model_calls += 1;
        if let Some(dollars) = r.cost_usd {
            *cost.get_or_insert(0) += picodollars(dollars);
        }
        m.elapsed_s = m.elapsed_s.max(r.at_s + r.latency_s);
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
            m.peak_accepted_tokens = m.peak_accepted_tokens.max(r.billed_tokens);
            m.uncached_tokens += r.uncached_tokens;
            m.cache_read_tokens += r.cache_read_tokens;
            m.cache_write_tokens += r.cache_write_tokens;
            m.invalidated_tokens += r.invalidated_tokens;
            m.prefix_breaks += usize::from(r.prefix_break);
            if r.kind == CallKind::Summary {
                m.compaction_calls += 1;
                m.compaction_input_tokens += r.billed_tokens;
                m.compaction_cache_read_tokens += r.cache_read_tokens;
                m.compaction_output_tokens += r.completion_tokens;
            }
        } else if r.kind == CallKind::Summary {
            m.compaction_failures += 1;
        }
        if r.kind == CallKind::Summary && r.retry {
            m.compaction_retries += 1;
        }
        m.cache_write_unread_tokens += r.cache_write_unread_tokens;
        if let Some(c) = &r.compaction {
            if c.changed() {
                m.compactions += 1;
            }
            m.messages_truncated += c.truncated;
            m.messages_masked += c.masked;
            m.messages_dropped += c.dropped;
            if c.cannot_fit {
                cannot_fit.insert(r.request);
            }
            m.unchanged_moved_tokens += c.unchanged_moved_tokens;
            if let Some(floor) = c.floor {
                m.floor = m.floor.max(floor);
                if floor > r.limit {
                    floor_over.insert(r.request);
                }
            }
        }
        m.peak_request_tokens = m.peak_request_tokens.max(r.true_tokens.max(r.billed_tokens));
        m.needs += r.needed.len();
        m.needs_unmet += r.lost.len();
        facts_lost.extend(r.lost.iter().map(String::as_str));
        facts_wrong.extend(r.wrong.iter().map(String::as_str));
        facts_stale.extend(r.stale.iter().map(String::as_str));
        if r.summary.is_some() {
            summaries.push(r.completion_tokens);
        }
        m.refetches += r.refetched.len();
        if !r.lost.is_empty() || !r.wrong.is_empty() || !r.stale.is_empty() {
            lost_in.insert(r.request);
        }
    }
    let total_needs: usize = scenario
        .requests
        .iter()
        .flat_map(|q| &q.steps)
        .map(|s| s.needs.len())
        .sum();
    m.needs_unreached = total_needs - m.needs.min(total_needs);
    m.facts_lost = facts_lost.len();
    m.facts_wrong = facts_wrong.difference(&facts_lost).count();
    m.facts_stale = facts_stale
        .iter()
        .filter(|f| !facts_lost.contains(*f) && !facts_wrong.contains(*f))
        .count();
    m.decisions_lost = scenario
        .facts
        .iter()
        .filter(|f| f.binding)
        .filter(|f| {
            let name = f.name.as_str();
            facts_lost.contains(name) || facts_wrong.contains(name) || facts_stale.contains(name)
        })
        .count();
    m.summary_growth = match (summaries.first(), summaries.last()) {
        (Some(&first), Some(&last)) if first > 0 => (last as f64 / first as f64 * 1e6).round() / 1e6,
        _ => 0.0,
    };
    m.cost_usd = cost.map(dollars);
    // To the millisecond: what the clock's sums carry below it is float noise.
    m.elapsed_s = (m.elapsed_s * 1000.0).round() / 1000.0;
    m.cache_hit_rate = if m.tokens_sent == 0 {
        0.0
    } else {
        (m.cache_read_tokens as f64 / m.tokens_sent as f64 * 1e6).round() / 1e6
    };
    m.cannot_fit = cannot_fit.len();
    m.floor_over_limit = floor_over.len();
    m.thrash = thrash(trace);
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

/// Compactions of the loop's calls (summaries aside) that started over the limit, changed the
/// history and did not fail, and freed less than a tenth of the limit or came on the call right
/// after another such. One that runs under the limit by its own trigger (`trigger=always`) is
/// not a loop.
fn thrash(trace: &[CallRecord]) -> usize {
    let mut thrash = 0;
    let mut after_one = false;
    for r in trace.iter().filter(|r| r.kind != CallKind::Summary) {
        let compacted = r
            .compaction
            .as_ref()
            .filter(|c| c.changed() && !c.failed && c.tokens_before > r.limit);
        if let Some(c) = compacted {
            let freed = c.tokens_before.saturating_sub(c.tokens_after);
            if freed * 10 < r.limit || after_one {
                thrash += 1;
            }
        }
        after_one = compacted.is_some();
    }
    thrash
}
