//! One compaction pass: what a stateless stage changed last time put back, loop guards lifted
//! where something new arrived, then the stages run left to right (or `reference`, the pattern's
//! own code), each while the estimate is over the limit unless its trigger says otherwise.

use super::compaction::{Compaction, StageRun};
use super::params::Flavor;
use super::readings::Readings;
use super::stage_info::Fresh;
use super::stages::{StageSpec, When};
use super::summarizer::Summarizer;
use super::work::{StageContext, Work};
use super::{Compactor, reference};
use crate::conversation::Conversation;
use crate::message::{Message, Role};
use crate::tokens::TokenCounter;

/// The settings of one compaction pass.
pub(super) struct Pass<'a> {
    /// The estimate that starts the stages.
    pub(super) limit: u64,
    /// The estimate they work down to (the target), at most the limit.
    pub(super) goal: u64,
    /// The counter to decide with; the compactor's estimator when `None`.
    pub(super) counter: Option<&'a dyn TokenCounter>,
    /// What writes summaries; `summarize` stages are skipped without one.
    pub(super) summarizer: Option<&'a mut dyn Summarizer>,
    /// Stages with their own triggers run whatever they read (after an overflow, or to see how
    /// far a strategy can go).
    pub(super) force: bool,
}

impl Compactor {
    /// One pass: stateless stages' edits undone, guards lifted where something new arrived, then
    /// `reference` or the pipeline.
    pub(super) fn pass(&mut self, conversation: &mut Conversation, pass: Pass<'_>) -> Compaction {
        self.undo_edits(conversation);
        self.release_guards(conversation);
        let result = match self.strategy.stages.as_slice() {
            [StageSpec::Reference { flavor }] => self.reference_pass(conversation, pass, *flavor),
            _ => self.run_pipeline(conversation, pass),
        };
        self.seen = conversation.messages.len();
        result
    }

    /// The pass of `reference`: the pattern's own code, with its own estimate unless the pass
    /// decides with another counter.
    fn reference_pass(&mut self, conversation: &mut Conversation, pass: Pass<'_>, flavor: Flavor) -> Compaction {
        let seed = reference::seed_estimator(flavor);
        let counter = pass.counter.unwrap_or(&seed);
        let limit = pass.limit;
        let messages_before = conversation.messages.len();
        let keep = self.policy.keep_recent_turns;
        let prefix = reference::seed_prefix(counter, conversation.system.as_ref());
        let mut work = Work::new(&mut conversation.messages, prefix, counter, limit, keep);
        let (counts, before, after) = reference::reference(&mut work, flavor);
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
