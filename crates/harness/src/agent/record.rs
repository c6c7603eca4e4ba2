//! A call's trace line from its outcome: the one place that maps what the server did to tokens,
//! the cache, dollars, time and the running total, for the agent loop and for `serve` alike, so
//! a call reads the same in either trace.

use ctxbench_compact::tokens::TokenCounter;

use crate::agent::model::{ModelError, ModelReply, ModelRequest};
use crate::billing::price::{Billed, Price, dollars};
use crate::billing::segments::PrefixChange;
use crate::trace::{CallKind, CallRecord, CompactionRecord, Outcome, SCHEMA_VERSION};

/// Where a call stands and what the caller knows of it before its outcome.
#[derive(Clone, Debug)]
pub struct CallPlace {
    /// The call's number in the run, from 1.
    pub call: usize,
    /// The request it belongs to, from 1.
    pub request: usize,
    /// The turn within the request, from 1 (0 for summary calls).
    pub turn: usize,
    /// The context window.
    pub window: u64,
    /// The compactor's limit for this call.
    pub limit: u64,
    /// The estimator's count of the request as sent.
    pub estimated_tokens: u64,
    /// What the compactor did just before (none for summary calls).
    pub compaction: Option<CompactionRecord>,
    /// A resend after an overflow.
    pub retry: bool,
    /// Σ billed tokens of the calls before this one.
    pub tokens_sent: u64,
    /// How the request stands to the previous accepted agent call's (agent calls only).
    pub prefix: PrefixChange,
}

/// The record of one call: `place`, the request sent (`request`, counted with the server's
/// `counter` where the outcome does not say), what came back, and what tokens cost (`price`).
///
/// An accepted call bills its true count, split into what the cache read, what it wrote and the
/// rest; its `prefix_tokens` are the system prompt and tool schemas of an agent request (a
/// summary call's prompt is the compactor's cost, not the agent's prefix: 0), and its prefix
/// change is recorded when it is an agent call. A rejected call bills nothing and costs
/// nothing: an overflow records the count the server gave, a pairing error the request's true
/// count. Whether the call ends the run is the loop's decision, not the call's: `stops_run` is
/// left `false`.
pub fn call_record(
    place: CallPlace,
    request: &ModelRequest<'_>,
    counter: &dyn TokenCounter,
    outcome: &Result<ModelReply, ModelError>,
    price: Option<&Price>,
) -> CallRecord {
    let mut record = CallRecord {
        schema_version: SCHEMA_VERSION,
        scenario: String::new(),
        strategy: String::new(),
        call: place.call,
        request: place.request,
        turn: place.turn,
        kind: request.kind,
        estimated_tokens: place.estimated_tokens,
        true_tokens: 0,
        billed_tokens: 0,
        uncached_tokens: 0,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        prefix_tokens: 0,
        completion_tokens: 0,
        cost_usd: price.map(|_| 0.0),
        // To the microsecond: the clock's sums carry float noise below it.
        at_s: (request.at_s * 1e6).round() / 1e6,
        latency_s: 0.0,
        prefix_break: false,
        invalidated_tokens: 0,
        cache_write_unread_tokens: 0,
        limit: place.limit,
        window: place.window,
        compaction: place.compaction,
        outcome: Outcome::Ok,
        retry: place.retry,
        reply_calls: 0,
        stops_run: false,
        tokens_sent: place.tokens_sent,
        step: None,
        needed: Vec::new(),
        lost: Vec::new(),
        wrong: Vec::new(),
        stale: Vec::new(),
        summary: None,
        refetched: Vec::new(),
    };
    match outcome {
        Ok(reply) => {
            let usage = &reply.usage;
            record.kind = reply.kind;
            record.true_tokens = usage.prompt_tokens;
            record.billed_tokens = usage.prompt_tokens;
            record.cache_read_tokens = usage.cache_read_tokens.min(usage.prompt_tokens);
            record.cache_write_tokens = usage
                .cache_write_tokens
                .min(usage.prompt_tokens - record.cache_read_tokens);
            record.uncached_tokens = usage.prompt_tokens - record.cache_read_tokens - record.cache_write_tokens;
            if request.kind != CallKind::Summary {
                record.prefix_tokens = counter.tokens(counter.prefix_units(request.system, request.tools));
                record.prefix_break = place.prefix.broke;
                record.invalidated_tokens = place.prefix.invalidated_tokens;
            }
            record.completion_tokens = usage.completion_tokens;
            record.latency_s = usage.latency_s;
            record.cost_usd = price.map(|p| {
                dollars(p.cost(&Billed {
                    uncached: record.uncached_tokens,
                    cache_read: record.cache_read_tokens,
                    cache_write: record.cache_write_tokens,
                    completion: record.completion_tokens,
                }))
            });
            record.outcome = if usage.truncated {
                Outcome::Truncated
            } else {
                Outcome::Ok
            };
            record.reply_calls = reply.message.calls().count();
            record.step = reply.facts.step.map(|(r, s)| [r + 1, s + 1]);
            record.needed.clone_from(&reply.facts.needed);
            record.lost.clone_from(&reply.facts.lost);
            record.wrong.clone_from(&reply.facts.wrong);
            record.stale.clone_from(&reply.facts.stale);
            record.summary.clone_from(&reply.facts.summary);
            record.refetched.clone_from(&reply.facts.refetched);
        }
        Err(ModelError::ContextWindowExceeded { needed, .. }) => {
            record.true_tokens = *needed;
            record.outcome = Outcome::Overflow;
        }
        Err(ModelError::Pairing(_)) => {
            record.true_tokens = counter.count(request.system, request.messages, request.tools);
            record.outcome = Outcome::PairingError;
        }
        Err(ModelError::ScriptEnded | ModelError::Other(_)) => record.outcome = Outcome::Error,
    }
    record.tokens_sent = place.tokens_sent + record.billed_tokens;
    record
}
