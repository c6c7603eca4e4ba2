//! What a compaction did, as values the caller can report: each stage's part, and the whole.

use super::work::Counts;

/// What one stage did before one call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StageRun {
    /// The stage's canonical name.
    pub stage: String,
    /// Whether it ran; `false` when it fit already or a loop guard held it back.
    pub ran: bool,
    /// Whether a loop guard held it back.
    pub guarded: bool,
    /// The estimate before it, in tokens.
    pub tokens_before: u64,
    /// The estimate after it, in tokens.
    pub tokens_after: u64,
}

/// What a compaction did, as a value the caller can report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compaction {
    /// The limit the estimate was held to.
    pub limit: u64,
    /// The estimate before, in tokens.
    pub tokens_before: u64,
    /// The estimate after, in tokens.
    pub tokens_after: u64,
    /// History length before (system prompt excluded).
    pub messages_before: usize,
    /// History length after.
    pub messages_after: usize,
    /// What changed, message by message.
    pub counts: Counts,
    /// The pipeline did all it could and the estimate is still over the limit.
    pub cannot_fit: bool,
    /// Each stage's part.
    pub stages: Vec<StageRun>,
    /// A summary call failed, and every retry of it: that stage left the history as it was.
    pub failed: bool,
    /// The breaker was open ([`super::Retries`]): no summary was asked for.
    pub resting: bool,
}

impl Compaction {
    /// Whether the history changed.
    pub fn changed(&self) -> bool {
        self.counts.any()
    }
}
