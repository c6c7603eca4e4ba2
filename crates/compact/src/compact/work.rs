//! The compaction workspace: the history, one estimator cost per message and their running
//! total, so that every stage knows the estimate after each change in O(1).
//!
//! Invariants: `total == prefix + Σ units`; `units[i]` is the estimator's cost of `messages[i]`
//! as it is now. Removals are collected and applied once per stage ([`Work::apply_removals`]),
//! so dropping many exchanges costs one pass over the history, not one per exchange.

use super::summarizer::Summarizer;
use crate::message::Message;
use crate::tokens::TokenCounter;
use crate::tool_schemas::ToolSchemas;

/// What a stage may need besides the history: the limit that started the pass, who writes
/// summaries, and what a summary request is fitted with.
pub(crate) struct StageContext<'a> {
    /// The limit the estimate passed, which started this pass (`clear-tool-uses` triggers on it).
    pub limit: u64,
    /// What writes summaries; `summarize` does not run without one.
    pub summarizer: Option<&'a mut dyn Summarizer>,
    /// Summary calls made again after a failed one ([`super::Retries::retries`]).
    pub retries: u32,
    /// Summaries that failed, every retry included, in this pass.
    pub failures: u32,
    /// Summaries written in this pass.
    pub summarized: u32,
    /// The compactor's estimator, which a summary request is fitted with.
    pub estimator: &'a dyn TokenCounter,
    /// The context window, which a summary request must fit.
    pub window: u64,
    /// The system prompt and tool schemas, which an aligned summary request sends.
    pub system: Option<&'a Message>,
    /// See [`StageContext::system`].
    pub tools: &'a ToolSchemas,
    /// The stage runs because the provider's cache went cold, not because the estimate is over
    /// the limit (`trigger=cold`): it goes as far as its means allow.
    pub cold_run: bool,
    /// The estimate is over the limit (else the stage runs for its trigger alone: `always`, or a
    /// cold cache), so a rewrite may cost more than what it replaces (`truncate`'s notes).
    pub over: bool,
    /// What the running stage kept from its last run for its next (a summary's last requests,
    /// which the next one reads again).
    pub stash: Vec<Message>,
}

/// What a compaction did to the history, message by message.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Tool results replaced by a truncation note.
    pub truncated: usize,
    /// Tool results replaced by a placeholder (`mask`, `clear-tool-uses`).
    pub masked: usize,
    /// Messages removed.
    pub dropped: usize,
}

impl Counts {
    /// Whether anything changed.
    pub fn any(&self) -> bool {
        self.truncated + self.masked + self.dropped > 0
    }
}

/// The history being compacted, with its accounting.
pub(crate) struct Work<'a> {
    messages: &'a mut Vec<Message>,
    units: Vec<u64>,
    removed: Vec<bool>,
    pending_removals: bool,
    total: u64,
    prefix: u64,
    counter: &'a dyn TokenCounter,
    /// The estimate the stages work down to: the policy's target (the limit, unless a lower
    /// target is set), or 0 when a stage is to go as far as it can.
    pub goal: u64,
    /// The policy's `keep_recent_turns`.
    pub keep: usize,
    /// What was done so far.
    pub counts: Counts,
    /// While set, each message changed in place is logged once, as it was before
    /// ([`Work::start_log`]), so that a stateless stage's edits can be undone on the next call.
    log: Option<Vec<(usize, Message)>>,
}

impl<'a> Work<'a> {
    pub(crate) fn new(
        messages: &'a mut Vec<Message>,
        prefix_units: u64,
        counter: &'a dyn TokenCounter,
        goal: u64,
        keep: usize,
    ) -> Work<'a> {
        let units: Vec<u64> = messages.iter().map(|m| counter.message_units(m)).collect();
        let total = prefix_units + units.iter().sum::<u64>();
        let removed = vec![false; messages.len()];
        Work {
            messages,
            units,
            removed,
            pending_removals: false,
            total,
            prefix: prefix_units,
            counter,
            goal,
            keep,
            counts: Counts::default(),
            log: None,
        }
    }

    /// Starts logging the messages changed in place, each once as it was.
    pub(crate) fn start_log(&mut self) {
        self.log = Some(Vec::new());
    }

    /// Stops logging; the messages changed since [`Work::start_log`], as they were, by index.
    pub(crate) fn take_log(&mut self) -> Vec<(usize, Message)> {
        self.log.take().unwrap_or_default()
    }

    /// Logs message `i` as it is, before a change, if logging and not logged yet.
    fn remember(&mut self, i: usize) {
        if let Some(log) = self.log.as_mut() {
            if !log.iter().any(|(j, _)| *j == i) {
                log.push((i, self.messages[i].clone()));
            }
        }
    }

    /// The history as it is (removals of the running stage not applied yet).
    pub(crate) fn messages(&self) -> &[Message] {
        self.messages
    }

    /// The estimator's cost of message `i`, in units.
    pub(crate) fn units(&self, i: usize) -> u64 {
        self.units[i]
    }

    /// The estimator's cost of a message that is not in the history.
    pub(crate) fn message_units(&self, message: &Message) -> u64 {
        self.counter.message_units(message)
    }

    /// Inserts a message (removals must have been applied).
    pub(crate) fn insert(&mut self, i: usize, message: Message) {
        debug_assert!(!self.pending_removals);
        let units = self.counter.message_units(&message);
        self.messages.insert(i, message);
        self.units.insert(i, units);
        self.removed.insert(i, false);
        self.total += units;
    }

    /// The current estimate of the whole request.
    pub(crate) fn estimate(&self) -> u64 {
        self.counter.tokens(self.total)
    }

    /// Whether the estimate is strictly over the goal.
    pub(crate) fn over(&self) -> bool {
        self.estimate() > self.goal
    }

    /// The estimate if `units` fewer were sent.
    pub(crate) fn estimate_without(&self, units: u64) -> u64 {
        self.counter.tokens(self.total.saturating_sub(units))
    }

    /// Replaces message `i`'s content, whatever it costs (the reference listing's truncation does so).
    pub(crate) fn rewrite(&mut self, i: usize, content: String) {
        let units = self.counter.units_with_content(&self.messages[i], &content);
        self.set(i, content, units);
    }

    /// Replaces message `i`'s content only if that lowers its cost; says whether it did.
    pub(crate) fn rewrite_if_smaller(&mut self, i: usize, content: String) -> bool {
        let units = self.counter.units_with_content(&self.messages[i], &content);
        if units >= self.units[i] {
            return false;
        }
        self.set(i, content, units);
        true
    }

    /// Replaces message `i`'s content by one [`Work::saving`] found saves `saved` units.
    pub(crate) fn rewrite_saving(&mut self, i: usize, content: String, saved: u64) {
        self.set(i, content, self.units[i] - saved);
    }

    /// How many units rewriting message `i` to `content` would save (0 if none).
    pub(crate) fn saving(&self, i: usize, content: &str) -> u64 {
        self.units[i].saturating_sub(self.counter.units_with_content(&self.messages[i], content))
    }

    /// Changes message `i` otherwise than its content (a call's arguments, a field removed),
    /// and counts it again.
    pub(crate) fn edit(&mut self, i: usize, change: impl FnOnce(&mut Message)) {
        self.remember(i);
        change(&mut self.messages[i]);
        let units = self.counter.message_units(&self.messages[i]);
        self.total = self.total - self.units[i] + units;
        self.units[i] = units;
    }

    /// The estimate of the messages alone, without the system prompt and tool schemas.
    pub(crate) fn history_estimate(&self) -> u64 {
        self.counter.tokens(self.total - self.prefix)
    }

    /// The counter's tokens for `units` of it.
    pub(crate) fn tokens_of(&self, units: u64) -> u64 {
        self.counter.tokens(units)
    }

    /// Sets message `i`'s content, which costs `units`.
    fn set(&mut self, i: usize, content: String, units: u64) {
        self.remember(i);
        self.messages[i].set_content(content);
        self.total = self.total - self.units[i] + units;
        self.units[i] = units;
    }

    /// Marks `range` for removal, except instructions (system and developer messages, which
    /// no strategy removes). The estimate reflects it at once; the history at the stage's end.
    pub(crate) fn remove(&mut self, range: std::ops::Range<usize>) {
        for i in range {
            if !self.removed[i] && !self.messages[i].role().is_instruction() {
                self.removed[i] = true;
                self.total -= self.units[i];
                self.counts.dropped += 1;
                self.pending_removals = true;
            }
        }
    }

    /// Removes the marked messages in one pass.
    pub(crate) fn apply_removals(&mut self) {
        if !std::mem::take(&mut self.pending_removals) {
            return;
        }
        let mut keep = self.removed.iter().map(|r| !r);
        self.messages.retain(|_| keep.next().unwrap_or(true));
        let mut keep = self.removed.iter().map(|r| !r);
        self.units.retain(|_| keep.next().unwrap_or(true));
        self.removed = vec![false; self.messages.len()];
    }
}
