//! A call's trace line from its outcome: the one place that maps what the server did to tokens,
//! billing and the running total, for the agent loop and for `serve` alike, so a call reads the
//! same in either trace.

use ctxbench_compact::tokens::TokenCounter;

use crate::agent::model::{ModelError, ModelReply, ModelRequest};
use crate::trace::CallKind;
use crate::trace::{CallRecord, CompactionRecord, Outcome, SCHEMA_VERSION};

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
}

/// The record of one call: `place`, the request sent (`request`, counted with the server's
/// `counter` where the outcome does not say), what came back, and the running total of billed
/// tokens before it (`tokens_sent`).
///
/// An accepted call bills its true count; its `prefix_tokens` are the system prompt and tool
/// schemas of an agent request (a summary call's prompt is the compactor's cost, not the
/// agent's prefix: 0). A rejected call bills nothing: an overflow records the count the server
/// gave, a pairing error the request's true count. Whether the call ends the run is the loop's
/// decision, not the call's: `stops_run` is left `false`.
pub fn call_record(
    place: CallPlace,
    request: &ModelRequest<'_>,
    counter: &dyn TokenCounter,
    outcome: &Result<ModelReply, ModelError>,
    tokens_sent: u64,
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
        prefix_tokens: 0,
        completion_tokens: 0,
        limit: place.limit,
        window: place.window,
        compaction: place.compaction,
        outcome: Outcome::Ok,
        retry: place.retry,
        reply_calls: 0,
        stops_run: false,
        tokens_sent,
        step: None,
        needed: Vec::new(),
        lost: Vec::new(),
        refetched: Vec::new(),
    };
    match outcome {
        Ok(reply) => {
            record.kind = reply.kind;
            record.true_tokens = reply.usage.prompt_tokens;
            record.billed_tokens = reply.usage.prompt_tokens;
            if request.kind != CallKind::Summary {
                record.prefix_tokens = counter.tokens(counter.prefix_units(request.system, request.tools));
            }
            record.completion_tokens = reply.usage.completion_tokens;
            record.outcome = if reply.usage.truncated {
                Outcome::Truncated
            } else {
                Outcome::Ok
            };
            record.reply_calls = reply.message.calls().count();
            record.step = reply.facts.step.map(|(r, s)| [r + 1, s + 1]);
            record.needed.clone_from(&reply.facts.needed);
            record.lost.clone_from(&reply.facts.lost);
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
    record.tokens_sent = tokens_sent + record.billed_tokens;
    record
}
