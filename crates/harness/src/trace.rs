//! The trace: one JSON line per model call. It is the contract everything downstream reads
//! (metrics, reports, plots, the gate), so every field is documented here and versioned by
//! `schema_version`; `scenarios/README.md` documents it for users.

use serde::{Deserialize, Serialize};

/// One summary written: a cycle of compaction by summary, what its span held and what it kept.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SummaryCycle {
    /// The summary's number in the run, from 1.
    pub cycle: u64,
    /// Its size over its span's (tokens over tokens).
    pub ratio: f64,
    /// The span's tokens.
    pub span_tokens: u64,
    /// Facts of the span the summary kept (verbatim or altered).
    pub kept: Vec<String>,
    /// Facts of the span it left out.
    pub dropped: Vec<String>,
}

/// The trace format's version; bump it when a field changes meaning or goes away.
pub const SCHEMA_VERSION: u32 = 1;

ctxbench_compact::named! {
    /// Why a call was made (its name in the trace and over the wire).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum CallKind {
        /// A turn of the agent loop.
        Agent = "agent",
        /// A turn the model spent calling tools again for facts it no longer saw.
        Refetch = "refetch",
        /// A `summarize` stage asking for a summary of old exchanges.
        Summary = "summary",
    }
}

/// What happened to a call at the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Accepted and answered.
    Ok,
    /// Rejected: over the window (`--overflow reject`). Billed 0.
    Overflow,
    /// Rejected: the history broke the pairing rule. The run stops.
    PairingError,
    /// Accepted after the server cut its oldest messages (`--overflow truncate`).
    Truncated,
    /// The call failed otherwise (a live endpoint unreachable, or answering with an error after
    /// its retries). Billed 0. The run stops.
    Error,
}

/// What the compactor did before a call.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CompactionRecord {
    /// The estimate before compaction, in tokens.
    pub tokens_before: u64,
    /// The estimate after, in tokens.
    pub tokens_after: u64,
    /// Tool results replaced by a truncation note.
    pub truncated: usize,
    /// Tool results replaced by a placeholder.
    pub masked: usize,
    /// Messages removed (dropped, or summarised away).
    pub dropped: usize,
    /// The pipeline did all it could and is still over the limit.
    pub cannot_fit: bool,
    /// Canonical names of the stages that ran.
    pub stages: Vec<String>,
    /// A summary failed, every retry of it too: its stage left the history as it was.
    #[serde(default, skip_serializing_if = "is_false")]
    pub failed: bool,
    /// The breaker was open after failed compactions: no summary was asked for.
    #[serde(default, skip_serializing_if = "is_false")]
    pub resting: bool,
    /// When it changed the history: what is left below the limit after it, over the limit
    /// (`(limit − tokens_after) / limit`, negative when still over).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headroom: Option<f64>,
    /// When it changed the history or could not fit: what no compaction may remove (the system
    /// prompt, the tools, the history up to the first request, the protected tail), in the
    /// server's tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floor: Option<u64>,
    /// Server tokens of messages it left unchanged but put after new content (a summary placed
    /// before them): their cache is lost for nothing. 0 when the new content went after the
    /// last unchanged message of the prefix.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unchanged_moved_tokens: u64,
}

fn is_false(b: &bool) -> bool {
    !b
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl CompactionRecord {
    /// What a compactor's pass did, as the trace keeps it; `headroom`, `floor` and
    /// `unchanged_moved_tokens` are the loop's to fill.
    pub fn of(done: &ctxbench_compact::compact::Compaction) -> CompactionRecord {
        CompactionRecord {
            tokens_before: done.tokens_before,
            tokens_after: done.tokens_after,
            truncated: done.counts.truncated,
            masked: done.counts.masked,
            dropped: done.counts.dropped,
            cannot_fit: done.cannot_fit,
            stages: done.stages.iter().filter(|s| s.ran).map(|s| s.stage.clone()).collect(),
            failed: done.failed,
            resting: done.resting,
            headroom: None,
            floor: None,
            unchanged_moved_tokens: 0,
        }
    }

    /// Whether it changed the history.
    pub fn changed(&self) -> bool {
        self.truncated + self.masked + self.dropped > 0
    }

    /// Two passes before one call, as one: the first's estimate before, the second's after,
    /// what each changed.
    pub fn and(self, next: CompactionRecord) -> CompactionRecord {
        CompactionRecord {
            tokens_before: self.tokens_before,
            tokens_after: next.tokens_after,
            truncated: self.truncated + next.truncated,
            masked: self.masked + next.masked,
            dropped: self.dropped + next.dropped,
            cannot_fit: next.cannot_fit,
            stages: self.stages.into_iter().chain(next.stages).collect(),
            failed: self.failed || next.failed,
            resting: self.resting || next.resting,
            headroom: next.headroom.or(self.headroom),
            floor: next.floor.or(self.floor),
            unchanged_moved_tokens: self.unchanged_moved_tokens + next.unchanged_moved_tokens,
        }
    }
}

/// One model call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    /// Always [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The scenario's name (empty in a trace written by an embedding agent).
    #[serde(default)]
    pub scenario: String,
    /// The strategy's canonical name.
    #[serde(default)]
    pub strategy: String,
    /// The call's number in the run, from 1.
    pub call: usize,
    /// The request it belongs to, from 1.
    pub request: usize,
    /// The turn within the request, from 1 (0 for summary calls, which are not turns).
    pub turn: usize,
    /// `agent`, `refetch` or `summary`.
    pub kind: CallKind,
    /// The estimator's count of the request as sent, in tokens.
    pub estimated_tokens: u64,
    /// The true count of the request as sent, in tokens (what the server counted).
    pub true_tokens: u64,
    /// Tokens billed: the true count of what the server kept; 0 when rejected.
    pub billed_tokens: u64,
    /// Of `billed_tokens`, those neither read from the prompt cache nor written to it.
    #[serde(default)]
    pub uncached_tokens: u64,
    /// Of `billed_tokens`, those read from the prompt cache.
    #[serde(default)]
    pub cache_read_tokens: u64,
    /// Of `billed_tokens`, those written to the prompt cache, at its write price.
    #[serde(default)]
    pub cache_write_tokens: u64,
    /// The part of `billed_tokens` that is system prompt and tool schemas.
    pub prefix_tokens: u64,
    /// True tokens of the reply (content, call names, arguments).
    pub completion_tokens: u64,
    /// What the call cost, in US dollars: `uncached × input + cache_read × cache read +
    /// cache_write × cache write + completion × output`; `null` without a price.
    #[serde(default)]
    pub cost_usd: Option<f64>,
    /// When the call was made, in simulated seconds since the run began.
    #[serde(default)]
    pub at_s: f64,
    /// Seconds the call took (0 for a rejection).
    #[serde(default)]
    pub latency_s: f64,
    /// An accepted agent call whose request does not extend the previous accepted agent call's:
    /// something before that request's end changed (a compaction), so a cache of it is lost.
    #[serde(default)]
    pub prefix_break: bool,
    /// With `prefix_break`: the previous request's true tokens past what the two share.
    #[serde(default)]
    pub invalidated_tokens: u64,
    /// Of `cache_write_tokens`, those no later call read before they expired or the run ended
    /// (known once the run ends; absent from records seen as they happen).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_write_unread_tokens: u64,
    /// The compactor's limit for this call.
    pub limit: u64,
    /// The context window.
    pub window: u64,
    /// What the compactor did just before (none for summary calls).
    pub compaction: Option<CompactionRecord>,
    /// What the server did.
    pub outcome: Outcome,
    /// A resend after an overflow, with the history compacted again (`--on-overflow compact-retry`);
    /// for a summary call, a retry after a failed one (`--compaction-retries`).
    pub retry: bool,
    /// Tool calls in the reply (0 for a final answer).
    pub reply_calls: usize,
    /// The call ended the run (a rejection nothing recovered from).
    pub stops_run: bool,
    /// Σ `billed_tokens` of this call and every one before it.
    pub tokens_sent: u64,
    /// The scenario step the reply played, as `[request, step]` from 1.
    pub step: Option<[usize; 2]>,
    /// Facts the step needed.
    pub needed: Vec<String>,
    /// Of those, facts lost.
    pub lost: Vec<String>,
    /// Of those, facts used with a wrong value (altered by a summary, or guessed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wrong: Vec<String>,
    /// Of those, facts used with the value they superseded (the newer one was gone).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stale: Vec<String>,
    /// A summary call's cycle: its size ratio and which facts of its span it kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<SummaryCycle>,
    /// Facts this call fetched again.
    pub refetched: Vec<String>,
}
