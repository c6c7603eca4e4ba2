//! The compactor: runs a strategy's stages, left to right, before every model call.
//!
//! *When* a stage runs is decided here and in `pass.rs` (its trigger, the limit, loop guards);
//! *what* each stage is, is declared in `stages.rs`, and *how* it compacts is its own file. A stage runs only while
//! the estimate is strictly over the limit, unless its trigger says otherwise. Loop guards: a
//! stage that freed less than 10% of the excess is skipped on later calls until a new message
//! enters what it may compact (a new request for `drop`, `window` and `summarize`; a new request
//! or tool result for `truncate`, whose reach a new request extends; a new tool result for
//! `mask` and `clear-tool-uses`). `reference` has no guards.
//!
//! Invariants, checked by the property tests: pairing is never broken; the system prompt, the
//! preamble, the first request message, later system messages and the protected tail are never
//! touched; the estimate never grows (but through `truncate`'s notes); compacting twice equals
//! compacting once.

mod amount;
mod as_read;
mod carry;
mod compaction;
mod drop;
mod fire;
mod mask;
mod notes;
mod params;
mod pass;
pub mod presets;
mod readings;
mod reference;
mod retries;
mod shape;
mod stage_info;
mod stage_macro;
mod stages;
mod strategy;
mod styles;
mod summarize;
mod summarizer;
mod tally;
mod thinking;
mod truncate;
mod work;

use std::sync::Arc;

pub use amount::Amount;
pub use as_read::{AsRead, Rewritten};
pub use compaction::{Compaction, StageRun};
pub use fire::{ClearTrigger, Cue, Fire, Measure};
pub use notes::{
    CLEARED, MASKED, OLD_OUTPUT, TRUNCATED, is_placeholder, is_summary, mask_placeholder, truncation_note,
};
pub use params::{ClearInputs, Flavor, MaskStyle, ThinkingKeep, Trigger, Until};
pub use presets::{PRESETS, Preset, PresetInfo};
pub use retries::Retries;
pub use shape::{Place, Reads, Reread, Tail};
pub use stage_info::{ParamInfo, StageInfo, StrategyError, hanging};
pub use stages::{STAGES, StageSpec, stage_names, stages_help};
pub use strategy::{Strategy, parse_strategy_list};
pub use styles::Style;
pub use summarizer::{SUMMARIZER_PROMPT, Summarizer, SummaryAsk, SummaryRequest};
pub use thinking::THINKING_FIELDS;
pub use work::Counts;

use crate::conversation::Conversation;
use crate::message::Message;
use crate::policy::Policy;
use crate::tokens::TokenCounter;
use pass::Pass;
use readings::Reported;
use retries::Breaker;

/// Runs one strategy before every model call of one conversation. Keeps the loop guards'
/// state between calls, so use one `Compactor` per conversation.
pub struct Compactor {
    strategy: Strategy,
    policy: Policy,
    estimator: Arc<dyn TokenCounter>,
    /// The policy's limit, the strategy's name and its stages' names: fixed, so computed once,
    /// not before every call.
    limit: u64,
    name: String,
    stage_names: Vec<String>,
    /// Per stage: held back by its loop guard.
    guarded: Vec<bool>,
    /// History length after the last call: what is past it is new.
    seen: usize,
    /// The provider's cache went cold since the last call (`trigger=cold` stages run).
    cold: bool,
    /// Threads that count the messages not counted yet (1: the caller's alone).
    count_threads: usize,
    /// The provider's reported usage, for triggers that read it.
    reported: Reported,
    /// The server's own counter, when known (`input` triggers are then exact).
    server: Option<Arc<dyn TokenCounter>>,
    /// Per stage: what it kept from its last run for the next (`summarize:overlap`).
    stashes: Vec<Vec<Message>>,
    /// What stateless stages changed on the last call, by index, as it was, with the
    /// fingerprint of what they made of it: put back before the next call, so that they work
    /// from the history as the client keeps it.
    edits: Vec<(usize, Message, u64)>,
    /// How failed summary calls are retried, and the breaker's numbers.
    retries: Retries,
    /// The breaker's state.
    breaker: Breaker,
}

impl Compactor {
    /// A compactor for one conversation. The policy must be valid ([`Policy::validate`]).
    /// `reference` ignores `estimator` and uses the reference listing's own estimate.
    pub fn new(strategy: Strategy, policy: Policy, estimator: Arc<dyn TokenCounter>) -> Compactor {
        let guarded = vec![false; strategy.stages.len()];
        Compactor {
            limit: strategy.limit(&policy),
            stashes: vec![Vec::new(); strategy.stages.len()],
            name: strategy.to_string(),
            stage_names: strategy.stages.iter().map(StageSpec::to_string).collect(),
            strategy,
            policy,
            estimator,
            guarded,
            seen: 0,
            cold: false,
            count_threads: 1,
            reported: Reported::default(),
            server: None,
            edits: Vec::new(),
            retries: Retries::DEFAULT,
            breaker: Breaker::default(),
        }
    }

    /// Retries failed summary calls and rests after failed compactions as `retries` says
    /// ([`Retries::DEFAULT`] unless told; at most [`Retries::MOST`] retries).
    pub fn with_retries(mut self, retries: Retries) -> Compactor {
        self.retries = Retries {
            retries: retries.retries.min(Retries::MOST),
            ..retries
        };
        self
    }

    /// How it retries failed summary calls.
    pub fn retries(&self) -> Retries {
        self.retries
    }

    /// Tells it the server's own counter, so that triggers on the request's input tokens
    /// (`input>=…`, as Anthropic's and OpenAI's servers count) read the exact count; without
    /// it they read the last reported usage plus an estimate of what came since.
    pub fn with_server_counter(mut self, counter: Arc<dyn TokenCounter>) -> Compactor {
        self.server = Some(counter);
        self
    }

    /// Counts the messages it has not counted yet on `threads` threads before each call (1, the
    /// default, counts on the caller's thread). Worth it for an exact estimator (`o200k`) on a
    /// long fresh history, where counting is most of the work; histories under 1,000 messages are
    /// counted on the caller's thread. The counts, and so every decision, are the same.
    pub fn with_count_threads(mut self, threads: usize) -> Compactor {
        self.count_threads = threads.max(1);
        self
    }

    /// The strategy.
    pub fn strategy(&self) -> &Strategy {
        &self.strategy
    }

    /// The policy.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The estimate it holds a request to: the policy's limit ([`Policy::limit`]), or a
    /// preset's own level ([`Strategy::limit`]).
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// The strategy's canonical name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The estimator it was given (which `reference` does not decide with).
    pub fn estimator(&self) -> &dyn TokenCounter {
        self.estimator.as_ref()
    }

    /// The name of the estimator the compactor decides with (`reference` has its own).
    pub fn estimator_name(&self) -> &'static str {
        match self.strategy.stages.as_slice() {
            [StageSpec::Reference { flavor }] => reference::seed_estimator(*flavor).name(),
            _ => self.estimator.name(),
        }
    }

    /// Compacts the conversation's history in place before a call: once the estimate passes the
    /// policy's limit, the stages work it down to the target. A `summarize` stage needs a model
    /// to write its summary: without one ([`Compactor::compact_with`]) it does not run.
    pub fn compact(&mut self, conversation: &mut Conversation) -> Compaction {
        self.pass(
            conversation,
            Pass {
                limit: self.limit,
                goal: self.policy.goal(),
                counter: None,
                summarizer: None,
                force: false,
            },
        )
    }

    /// [`Compactor::compact`], with `summarizer` writing the summaries of `summarize` stages.
    pub fn compact_with(&mut self, conversation: &mut Conversation, summarizer: &mut dyn Summarizer) -> Compaction {
        self.pass(
            conversation,
            Pass {
                limit: self.limit,
                goal: self.policy.goal(),
                counter: None,
                summarizer: Some(summarizer),
                force: false,
            },
        )
    }

    /// Says whether the provider's prompt cache has gone cold for this conversation (the time
    /// since its last call passed the cache's lifetime): until said otherwise, stages with
    /// `trigger=cold` then run before each call, as far as they can, since rewriting costs no
    /// cache a cold call would have read.
    pub fn set_cache_cold(&mut self, cold: bool) {
        self.cold = cold;
    }

    /// After the server rejected a request as longer than the window: compacts again, deciding
    /// with the server's own count (`true_counter`) down to [`Policy::hard_limit`], `reference`
    /// included.
    pub fn compact_after_overflow(
        &mut self,
        conversation: &mut Conversation,
        true_counter: &dyn TokenCounter,
        summarizer: Option<&mut dyn Summarizer>,
    ) -> Compaction {
        self.pass(
            conversation,
            Pass {
                limit: self.policy.hard_limit(),
                goal: self.policy.hard_limit(),
                counter: Some(true_counter),
                summarizer: summarizer.map(|s| s as &mut dyn Summarizer),
                force: true,
            },
        )
    }

    /// Compacts to a limit of the caller's: with 0, every stage goes as far as its means allow
    /// (stages with their own triggers run whatever they read).
    pub fn compact_to(&mut self, conversation: &mut Conversation, limit: u64) -> Compaction {
        self.pass(
            conversation,
            Pass {
                limit,
                goal: limit,
                counter: None,
                summarizer: None,
                force: limit == 0,
            },
        )
    }

    /// [`Compactor::compact_to`], with `summarizer` writing the summaries of `summarize` stages.
    pub fn compact_to_with(
        &mut self,
        conversation: &mut Conversation,
        limit: u64,
        summarizer: &mut dyn Summarizer,
    ) -> Compaction {
        self.pass(
            conversation,
            Pass {
                limit,
                goal: limit,
                counter: None,
                summarizer: Some(summarizer),
                force: limit == 0,
            },
        )
    }

    /// Tells the estimator what the server counted for the request just accepted, as it now
    /// stands in `conversation` (the `usage` estimator starts from it; others ignore it).
    pub fn observe(&self, conversation: &Conversation, true_tokens: u64) {
        let c = conversation;
        self.estimator
            .observe(true_tokens, c.system.as_ref(), &c.messages, &c.tools);
        self.reported
            .input(true_tokens, c.system.as_ref(), &c.messages, &c.tools);
    }

    /// Tells it what the server reported of the reply to the request just observed
    /// ([`Compactor::observe`]): `completion_tokens` for `reply`, which the history is about to
    /// hold. Triggers on reported usage count the last response's input and output (Codex's
    /// total tokens).
    pub fn observe_reply(&self, reply: &Message, completion_tokens: u64) {
        self.reported.output(completion_tokens, reply);
    }
}

#[cfg(test)]
mod tests;
