//! The compactor: runs a strategy's stages, left to right, before every model call (DESIGN §5).
//!
//! *When* a stage runs is decided here (threshold, trigger, loop guards); *how* it compacts is
//! each stage's own file. A stage runs only while the estimate is strictly over the limit, unless
//! its trigger says otherwise. Loop guards: a stage that freed less than 10% of the excess is
//! skipped on later calls until a new message enters what it may compact (a new request for
//! `drop`, `window` and `summarize`; a new request or tool result for `truncate`, whose reach
//! a new request extends; a new tool result for `mask` and `clear-tool-uses`). `reference` has
//! no guards.
//!
//! Invariants, checked by the property tests: pairing is never broken; the system prompt, the
//! preamble, the first request message, later system messages and the protected tail are never
//! touched; the estimate never grows (but through `truncate`'s notes); compacting twice equals
//! compacting once.

mod drop;
mod mask;
mod notes;
mod reference;
mod spec;
mod summarize;
mod truncate;
mod work;

use std::sync::Arc;

pub use notes::{CLEARED, MASKED, TRUNCATED, is_placeholder, mask_placeholder, truncation_note};
pub use spec::{Flavor, STAGE_NAMES, StageSpec, Strategy, StrategyError, Trigger, parse_strategy_list};
pub use summarize::{Summarizer, SummaryAsk};
pub use work::Counts;

use crate::conversation::Conversation;
use crate::message::{Message, Role};
use crate::policy::Policy;
use crate::tokens::TokenCounter;
use work::Work;

/// The strategies `compare` runs when none are named.
pub const STANDARD_STRATEGIES: [&str; 10] = [
    "none",
    "truncate",
    "drop",
    "truncate+drop",
    "summarize",
    "truncate+summarize",
    "mask",
    "mask+drop",
    "window",
    "clear-tool-uses",
];

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
}

impl Compaction {
    /// Whether the history changed.
    pub fn changed(&self) -> bool {
        self.counts.any()
    }
}

/// The settings of one compaction pass.
pub struct Pass<'a> {
    /// The estimate to get under.
    pub limit: u64,
    /// The counter to decide with; the compactor's estimator when `None`.
    pub counter: Option<&'a dyn TokenCounter>,
    /// What writes summaries; `summarize` stages are skipped without one.
    pub summarizer: Option<&'a mut dyn Summarizer>,
}

/// What makes a guarded stage worth trying again: something new entering what it may compact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fresh {
    /// Exchanges enter when a new request moves the protected tail.
    Request,
    /// Results enter `truncate`'s reach when a new request moves the tail, and arrive with
    /// every tool call.
    RequestOrResult,
    /// `mask` and `clear-tool-uses` protect the last results: a new result pushes one out.
    ToolResult,
}

fn fresh_kind(stage: &StageSpec) -> Fresh {
    match stage {
        StageSpec::Drop | StageSpec::Window { .. } | StageSpec::Summarize { .. } => Fresh::Request,
        StageSpec::Truncate { .. } => Fresh::RequestOrResult,
        _ => Fresh::ToolResult,
    }
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
}

impl Compactor {
    /// A compactor for one conversation. The policy must be valid ([`Policy::validate`]).
    /// `reference` ignores `estimator` and uses the seed's own estimate.
    pub fn new(strategy: Strategy, policy: Policy, estimator: Arc<dyn TokenCounter>) -> Compactor {
        let guarded = vec![false; strategy.stages.len()];
        Compactor {
            limit: policy.limit(),
            name: strategy.to_string(),
            stage_names: strategy.stages.iter().map(StageSpec::to_string).collect(),
            strategy,
            policy,
            estimator,
            guarded,
            seen: 0,
        }
    }

    /// The strategy.
    pub fn strategy(&self) -> &Strategy {
        &self.strategy
    }

    /// The policy.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The policy's limit ([`Policy::limit`]).
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// The strategy's canonical name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The name of the estimator the compactor decides with (`reference` has its own).
    pub fn estimator_name(&self) -> &'static str {
        match self.strategy.stages.as_slice() {
            [StageSpec::Reference { flavor }] => reference::seed_estimator(*flavor).name(),
            _ => self.estimator.name(),
        }
    }

    /// Compacts the conversation's history in place, to the policy's limit. A `summarize`
    /// stage needs a model: without one ([`Compactor::compact_with`]) it is skipped.
    pub fn compact(&mut self, conversation: &mut Conversation) -> Compaction {
        self.compact_to(conversation, self.limit)
    }

    /// Compacts to a given limit with every stage going as far as its means allow when the
    /// limit is 0.
    pub fn compact_to(&mut self, conversation: &mut Conversation, limit: u64) -> Compaction {
        self.compact_with(
            conversation,
            Pass {
                limit,
                counter: None,
                summarizer: None,
            },
        )
    }

    /// One compaction pass: the limit, the counter to decide with (the estimator when `None`;
    /// the true counter for a retry after an overflow, `reference` included), and the model
    /// that writes summaries.
    pub fn compact_with(&mut self, conversation: &mut Conversation, pass: Pass<'_>) -> Compaction {
        self.release_guards(conversation);
        let result = if let [StageSpec::Reference { flavor }] = self.strategy.stages.as_slice() {
            let seed = reference::seed_estimator(*flavor);
            let counter = pass.counter.unwrap_or(&seed);
            let limit = pass.limit;
            let messages_before = conversation.messages.len();
            let keep = self.policy.keep_recent_turns;
            let (counts, before, after) = reference::reference(
                &mut conversation.messages,
                conversation.system.as_ref(),
                counter,
                limit,
                keep,
                *flavor,
            );
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
            }
        } else {
            self.run_pipeline(conversation, pass)
        };
        self.seen = conversation.messages.len();
        result
    }

    fn run_pipeline(&mut self, conversation: &mut Conversation, mut pass: Pass<'_>) -> Compaction {
        let limit = pass.limit;
        let counter = pass.counter.unwrap_or(self.estimator.as_ref());
        let prefix = counter.prefix_units(conversation.system.as_ref(), &conversation.tools);
        let keep = self.policy.keep_recent_turns;
        let messages_before = conversation.messages.len();
        let mut work = Work::new(&mut conversation.messages, prefix, counter, limit, keep);
        let tokens_before = work.estimate();
        let mut stages = Vec::with_capacity(self.strategy.stages.len());
        for (k, stage) in self.strategy.stages.iter().enumerate() {
            let before = work.estimate();
            let always = matches!(
                stage,
                StageSpec::Mask {
                    trigger: Trigger::Always,
                    ..
                }
            );
            let wanted = always || work.over() || matches!(stage, StageSpec::ClearToolUses { trigger: Some(_), .. });
            let guarded = wanted && self.guarded[k];
            let runnable = !matches!(stage, StageSpec::Summarize { .. }) || pass.summarizer.is_some();
            if wanted && !guarded && runnable {
                let summarizer = pass.summarizer.as_mut().map(|s| &mut **s as &mut dyn Summarizer);
                run_stage(stage, &mut work, &self.policy, summarizer);
                // Freed less than 10% of the excess: not worth its cost until something new comes.
                let after = work.estimate();
                if before > limit && (before - after.min(before)) * 10 < before - limit {
                    self.guarded[k] = true;
                }
            }
            stages.push(StageRun {
                stage: self.stage_names[k].clone(),
                ran: wanted && !guarded && runnable,
                guarded,
                tokens_before: before,
                tokens_after: work.estimate(),
            });
        }
        let tokens_after = work.estimate();
        let counts = work.counts;
        let cannot_fit = work.over();
        drop(work);
        Compaction {
            limit,
            tokens_before,
            tokens_after,
            messages_before,
            messages_after: conversation.messages.len(),
            counts,
            cannot_fit,
            stages,
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
            let fresh = match fresh_kind(stage) {
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

fn run_stage(stage: &StageSpec, work: &mut Work<'_>, policy: &Policy, summarizer: Option<&mut dyn Summarizer>) {
    match stage {
        StageSpec::Summarize { keep, ratio } => {
            if let Some(summarizer) = summarizer {
                let ask = SummaryAsk {
                    keep: keep.clone(),
                    ratio: *ratio,
                };
                summarize::summarize(work, policy.keep_recent_turns, &ask, summarizer);
            }
        }
        StageSpec::None | StageSpec::Reference { .. } => {}
        StageSpec::Truncate { preview } => truncate::truncate(work, *preview, Flavor::Ts),
        StageSpec::Drop => drop::drop_exchanges(work, policy.keep_recent_turns),
        StageSpec::Window { n } => drop::drop_exchanges(work, (*n).max(policy.keep_recent_turns)),
        StageSpec::Mask { m, trigger } => mask::mask(work, *m, *trigger == Trigger::Always),
        StageSpec::ClearToolUses {
            trigger,
            keep,
            clear_at_least,
            exclude,
        } => {
            let trigger = trigger.unwrap_or(work.limit);
            mask::clear_tool_uses(
                work,
                &mask::Clear {
                    trigger,
                    keep: *keep,
                    clear_at_least: *clear_at_least,
                    exclude,
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Message, ToolCall};
    use crate::tokens::CounterKind;

    fn exchange(user: &str, result: &str) -> Vec<Message> {
        vec![
            Message::new(Role::User, user),
            Message::assistant_calls([ToolCall {
                id: "c",
                name: "read_file",
                arguments: "{}",
            }]),
            Message::tool_result("c", result),
            Message::new(Role::Assistant, "ok"),
        ]
    }

    fn run(compactor: &mut Compactor, c: &mut Conversation) -> (bool, bool) {
        let done = compactor.compact(c);
        (done.stages[0].ran, done.stages[0].guarded)
    }

    #[test]
    fn a_stage_that_frees_too_little_waits_for_something_new() {
        // The protected last request alone is over the limit; truncating the one old result
        // frees almost nothing.
        let mut c = Conversation::from_messages(exchange("a", &"x".repeat(200)), vec![]);
        c.messages.push(Message::new(Role::User, "y".repeat(8000)));
        let policy = Policy {
            keep_recent_turns: 1,
            ..Policy::new(1000)
        };
        let strategy: Strategy = "truncate".parse().expect("valid");
        let mut compactor = Compactor::new(strategy, policy, CounterKind::Chars4.counter());

        assert_eq!(run(&mut compactor, &mut c), (true, false), "first call: it tries");
        assert_eq!(run(&mut compactor, &mut c), (false, true), "nothing new: guarded");
        c.messages.push(Message::new(Role::Assistant, "still thinking"));
        assert_eq!(
            run(&mut compactor, &mut c),
            (false, true),
            "no new tool result: still guarded"
        );
        c.messages.extend(exchange("b", &"z".repeat(200)));
        assert_eq!(
            run(&mut compactor, &mut c),
            (true, false),
            "a new tool result: it tries again"
        );
    }

    #[test]
    fn reference_has_no_guards() {
        let mut c = Conversation::from_messages(exchange("a", "short"), vec![]);
        c.messages.push(Message::new(Role::User, "y".repeat(8000)));
        let policy = Policy {
            keep_recent_turns: 1,
            ..Policy::new(1000)
        };
        let mut compactor = Compactor::new(
            "reference".parse().expect("valid"),
            policy,
            CounterKind::Chars4.counter(),
        );
        for _ in 0..3 {
            let done = compactor.compact(&mut c);
            assert!(done.stages[0].ran && !done.stages[0].guarded && done.cannot_fit);
        }
    }
}
