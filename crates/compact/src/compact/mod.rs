//! The compactor: runs a strategy's stages, left to right, before every model call.
//!
//! *When* a stage runs is decided here (its trigger, the limit, loop guards); *what* each stage
//! is, is declared in `stages.rs`, and *how* it compacts is its own file. A stage runs only while
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
use crate::message::{Message, Role};
use crate::policy::Policy;
use crate::tokens::TokenCounter;
use readings::{Readings, Reported};
use retries::Breaker;
use stage_info::Fresh;
use stages::When;
use work::{StageContext, Work};

/// The settings of one compaction pass.
struct Pass<'a> {
    /// The estimate that starts the stages.
    limit: u64,
    /// The estimate they work down to (the target), at most the limit.
    goal: u64,
    /// The counter to decide with; the compactor's estimator when `None`.
    counter: Option<&'a dyn TokenCounter>,
    /// What writes summaries; `summarize` stages are skipped without one.
    summarizer: Option<&'a mut dyn Summarizer>,
    /// Stages with their own triggers run whatever they read (after an overflow, or to see how
    /// far a strategy can go).
    force: bool,
}

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

    fn pass(&mut self, conversation: &mut Conversation, pass: Pass<'_>) -> Compaction {
        self.undo_edits(conversation);
        self.release_guards(conversation);
        let result = if let [StageSpec::Reference { flavor }] = self.strategy.stages.as_slice() {
            let seed = reference::seed_estimator(*flavor);
            let counter = pass.counter.unwrap_or(&seed);
            let limit = pass.limit;
            let messages_before = conversation.messages.len();
            let keep = self.policy.keep_recent_turns;
            let prefix = reference::seed_prefix(counter, conversation.system.as_ref());
            let mut work = Work::new(&mut conversation.messages, prefix, counter, limit, keep);
            let (counts, before, after) = reference::reference(&mut work, *flavor);
            drop(work);
            let run = StageRun {
                stage: self.name.clone(),
                ran: before > limit,
                guarded: false,
                tokens_before: before,
                tokens_after: after,
            };
            Compaction {
                limit,
                tokens_before: before,
                tokens_after: after,
                messages_before,
                messages_after: conversation.messages.len(),
                counts,
                cannot_fit: after > limit,
                stages: vec![run],
                failed: false,
                resting: false,
            }
        } else {
            self.run_pipeline(conversation, pass)
        };
        self.seen = conversation.messages.len();
        result
    }

    fn run_pipeline(&mut self, conversation: &mut Conversation, pass: Pass<'_>) -> Compaction {
        let (limit, goal) = (pass.limit, pass.goal.min(pass.limit));
        let counter = pass.counter.unwrap_or(self.estimator.as_ref());
        crate::tokens::count_ahead(counter, &conversation.messages, self.count_threads);
        let prefix = counter.prefix_units(conversation.system.as_ref(), &conversation.tools);
        let keep = self.policy.keep_recent_turns;
        let messages_before = conversation.messages.len();
        let readings = Readings {
            reported: &self.reported,
            server: self.server.as_deref(),
            system: conversation.system.as_ref(),
            tools: &conversation.tools,
            window: self.policy.window,
        };
        // While the breaker is open, no summary is asked for (a pass with no summarizer asks
        // for none and does not count down).
        let resting = pass.summarizer.is_some() && !self.breaker.allows();
        let mut cx = StageContext {
            limit,
            summarizer: pass.summarizer.filter(|_| !resting).map(|s| s as &mut dyn Summarizer),
            retries: self.retries.retries,
            failures: 0,
            summarized: 0,
            estimator: self.estimator.as_ref(),
            window: self.policy.window,
            system: conversation.system.as_ref(),
            tools: &conversation.tools,
            cold_run: false,
            over: false,
            stash: Vec::new(),
        };
        let mut work = Work::new(&mut conversation.messages, prefix, counter, goal, keep);
        let tokens_before = work.estimate();
        // Threshold-triggered stages start once the estimate passes the limit, and work down to
        // the goal.
        let triggered = tokens_before > limit;
        let mut stages = Vec::with_capacity(self.strategy.stages.len());
        let mut edits = Vec::new();
        for (k, stage) in self.strategy.stages.iter().enumerate() {
            let before = work.estimate();
            let over = triggered && work.over();
            let when = stage.when();
            let cold_run = when == When::OverLimitOrCold && self.cold && !over;
            let wanted = match when {
                When::OverLimit => over,
                When::OverLimitOrCold => over || cold_run,
                When::Always | When::OwnTrigger => true,
                When::Own => pass.force || stage.fire().is_some_and(|fire| readings.fires(fire, &work)),
            };
            // A stage's own trigger is its rule: no loop guard holds it back.
            let guarded = wanted && self.guarded[k] && !cold_run && when != When::Own;
            // A stage that runs whatever the estimate goes as far as its means allow.
            work.goal = if cold_run || when == When::Always || pass.force {
                0
            } else {
                goal
            };
            cx.cold_run = cold_run;
            cx.over = over;
            cx.stash = std::mem::take(&mut self.stashes[k]);
            let stateless = stage.stateless();
            if stateless {
                work.start_log();
            }
            let failures = cx.failures;
            let ran = wanted && !guarded && stage.run(&mut work, &mut cx);
            let failed = cx.failures > failures;
            if stateless {
                for (i, original) in work.take_log() {
                    let made = work.messages()[i].fingerprint();
                    edits.push((i, original, made));
                }
            }
            self.stashes[k] = std::mem::take(&mut cx.stash);
            work.goal = goal;
            // Freed less than 10% of the excess: not worth its cost until something new comes.
            // A failed summary freed nothing for want of a reply, not of something to free.
            let after = work.estimate();
            if ran
                && !failed
                && !cold_run
                && when != When::Own
                && before > goal
                && (before - after.min(before)) * 10 < before - goal
            {
                self.guarded[k] = true;
            }
            stages.push(StageRun {
                stage: self.stage_names[k].clone(),
                ran,
                guarded,
                tokens_before: before,
                tokens_after: after,
            });
        }
        let tokens_after = work.estimate();
        let counts = work.counts;
        let cannot_fit = tokens_after > limit;
        let failed = cx.failures > 0;
        if cx.failures + cx.summarized > 0 {
            self.breaker.after(failed, &self.retries);
        }
        drop(work);
        // What stateless stages made of each message they changed, where a later stage left it,
        // to know it again next time.
        self.edits = edits
            .into_iter()
            .filter(|(i, original, made)| {
                conversation
                    .messages
                    .get(*i)
                    .is_some_and(|now| now.fingerprint() == *made && now != original)
            })
            .collect();
        Compaction {
            limit,
            tokens_before,
            tokens_after,
            messages_before,
            messages_after: conversation.messages.len(),
            counts,
            cannot_fit,
            stages,
            failed,
            resting,
        }
    }

    /// Puts back what stateless stages changed on the last call, where the message is still
    /// what they made of it: they work from the history as the client keeps it.
    fn undo_edits(&mut self, conversation: &mut Conversation) {
        for (i, original, made) in std::mem::take(&mut self.edits) {
            if let Some(message) = conversation.messages.get_mut(i) {
                if message.fingerprint() == made {
                    *message = original;
                }
            }
        }
    }

    /// Lifts the guards of stages for which something new arrived since the last call.
    fn release_guards(&mut self, conversation: &Conversation) {
        let messages = &conversation.messages;
        if messages.len() < self.seen {
            // The caller rewrote the history: start afresh.
            self.guarded.iter_mut().for_each(|g| *g = false);
            return;
        }
        let new = &messages[self.seen..];
        let new_request = new.iter().any(Message::is_request);
        let new_result = new.iter().any(|m| m.role() == Role::Tool);
        for (guard, stage) in self.guarded.iter_mut().zip(&self.strategy.stages) {
            let fresh = match stage.info().fresh {
                Fresh::Request => new_request,
                Fresh::RequestOrResult => new_request || new_result,
                Fresh::ToolResult => new_result,
            };
            if fresh {
                *guard = false;
            }
        }
    }
}

#[cfg(test)]
mod tests;
