//! The invariants every strategy keeps (`docs/strategies.md`), over generated histories, random policies and every strategy and
//! pipeline: at least 1,000 cases per property (`PROPTEST_CASES` raises it).

use ctxbench_compact::compact::{Compaction, StageSpec, THINKING_FIELDS, Until, is_summary};
use ctxbench_compact::conversation::{first_user, keep_from};
use ctxbench_compact::{Compactor, Conversation, CounterKind, Message, Policy, Role, Strategy, check_pairing};
use proptest::prelude::*;

use crate::generate::{conversation, policy, preset, strategy, summary_stage};

pub(crate) fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(1000)
        .max(1000);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn estimator() -> impl proptest::strategy::Strategy<Value = CounterKind> {
    prop_oneof![3 => Just(CounterKind::Chars4), 1 => Just(CounterKind::Chars4Py), 1 => Just(CounterKind::O200k)]
}

fn compactor(strategy: &str, policy: &Policy, estimator: CounterKind) -> Compactor {
    let strategy: Strategy = strategy.parse().expect("generated strategies parse");
    Compactor::new(strategy, policy.clone(), estimator.counter())
}

fn compact(c: &Conversation, strategy: &str, policy: &Policy, estimator: CounterKind) -> (Conversation, Compaction) {
    let mut out = c.clone();
    let done = compactor(strategy, policy, estimator).compact(&mut out);
    (out, done)
}

fn estimate(c: &Conversation, strategy: &str, estimator: CounterKind) -> u64 {
    let counter = if strategy.starts_with("reference:flavor=py") {
        CounterKind::Chars4Py.counter()
    } else if strategy.starts_with("reference") {
        CounterKind::Chars4.counter()
    } else {
        estimator.counter()
    };
    counter.count(c.system.as_ref(), &c.messages, &c.tools)
}

/// Strategies that protect the last requests (all but `mask`, `clear-tool-uses` and
/// `clear-thinking`).
fn protects_requests(strategy: &str) -> bool {
    !strategy.contains("mask") && !strategy.contains("clear-tool-uses") && !strategy.contains("clear-thinking")
}

/// Strategies that may raise the estimate: `truncate`'s notes and the reference listing where
/// they cannot fit anyway, SWE-agent's placeholder on results shorter than it.
fn may_grow(strategy: &str) -> bool {
    strategy.contains("truncate") || strategy.starts_with("reference") || strategy.contains("style=swe-agent")
}

/// The messages without their thinking, which `clear-thinking` removes from any assistant turn.
fn unthought(messages: &[Message], strategy: &str) -> Vec<Message> {
    let mut out = messages.to_vec();
    if strategy.contains("clear-thinking") {
        for m in &mut out {
            for field in THINKING_FIELDS {
                m.remove_field(field);
            }
        }
    }
    out
}

/// For a strategy of `mask` and `clear-tool-uses` stages only: how many recent results it protects.
fn protected_results(strategy: &str) -> Option<usize> {
    let strategy: Strategy = strategy.parse().ok()?;
    strategy
        .stages
        .iter()
        .map(|stage| match stage {
            StageSpec::Mask { m, .. } => Some(*m),
            StageSpec::ClearToolUses { keep, .. } => Some(*keep),
            _ => None,
        })
        .collect::<Option<Vec<usize>>>()?
        .into_iter()
        .min()
}

fn instructions(messages: &[Message]) -> Vec<&Message> {
    messages.iter().filter(|m| m.role().is_instruction()).collect()
}

proptest! {
    #![proptest_config(config())]

    /// Pairing, the untouchable parts, the estimate, and idempotence, for every strategy.
    #[test]
    fn every_strategy_keeps_the_invariants(
        c in conversation(), policy in policy(), strategy in strategy(), estimator in estimator()
    ) {
        let (after, done) = compact(&c, &strategy, &policy, estimator);

        // Pairing is never broken, and pending calls stay pending.
        let pairing = check_pairing(&c.messages).expect("generated histories keep the pairing rule");
        prop_assert_eq!(check_pairing(&after.messages), Ok(pairing));

        // The system prompt, the preamble and the first request message are untouched (but for
        // their thinking, which `clear-thinking` takes from any turn).
        prop_assert_eq!(&after.system, &c.system);
        let head = first_user(&c.messages).map_or(c.messages.len(), |i| i + 1);
        prop_assert_eq!(unthought(&after.messages[..head], &strategy), unthought(&c.messages[..head], &strategy));
        // Later system messages all stay, in order.
        prop_assert_eq!(instructions(&after.messages), instructions(&c.messages));

        // The protected tail is byte-identical.
        if protects_requests(&strategy) {
            let tail = keep_from(&c.messages, policy.keep_recent_turns);
            let kept = c.messages.len() - tail.max(head);
            prop_assert_eq!(&after.messages[after.messages.len() - kept..], &c.messages[c.messages.len() - kept..]);
        }

        // `mask` and `clear-tool-uses` protect the last results instead.
        if let Some(protected) = protected_results(&strategy) {
            let results = |m: &[Message]| -> Vec<Message> {
                let all: Vec<Message> = m.iter().filter(|m| m.role() == Role::Tool).cloned().collect();
                all[all.len().saturating_sub(protected)..].to_vec()
            };
            prop_assert_eq!(results(&after.messages), results(&c.messages));
        }

        // The reported estimates are true counts of the histories; the estimate never grows,
        // except through truncation notes when the strategy cannot fit anyway.
        prop_assert_eq!(done.tokens_before, estimate(&c, &strategy, estimator));
        prop_assert_eq!(done.tokens_after, estimate(&after, &strategy, estimator));
        if strategy.contains("style=swe-agent") {
            // SWE-agent replaces every old result, the short ones too.
        } else if may_grow(&strategy) {
            prop_assert!(done.tokens_after <= done.tokens_before || done.cannot_fit);
        } else {
            prop_assert!(done.tokens_after <= done.tokens_before);
        }
        prop_assert_eq!(done.cannot_fit, done.tokens_after > done.limit);

        // Compacting twice equals compacting once, but where a clearing stops once it freed a
        // given amount (`until=all` with `clear_at_least`): in place, the next call clears as
        // much again (a stateless stage clears from the original history each time instead).
        let clears_an_amount = strategy.parse::<Strategy>().is_ok_and(|s| {
            s.stages.iter().any(|stage| {
                matches!(stage, StageSpec::ClearToolUses { until: Until::All, clear_at_least, .. } if !clear_at_least.is_zero())
            })
        });
        if !clears_an_amount {
            let (again, _) = compact(&after, &strategy, &policy, estimator);
            prop_assert_eq!(again, after);
        }
    }

    /// The result fits whenever the strategy's means allow it: if doing all it can (a limit of
    /// 0 makes every stage go to the end) fits, the strategy fits.
    #[test]
    fn fits_whenever_the_means_allow(
        c in conversation(), policy in policy(), strategy in strategy(), estimator in estimator()
    ) {
        // Stages with their own conditions run when those hold, whatever the limit.
        if strategy.contains('>') {
            return Ok(());
        }
        let mut most = c.clone();
        let all_it_can = compactor(&strategy, &policy, estimator).compact_to(&mut most, 0);
        let (_, done) = compact(&c, &strategy, &policy, estimator);
        if all_it_can.tokens_after <= policy.limit() {
            prop_assert!(!done.cannot_fit, "{} reached {} at most, but stopped at {} > {}",
                strategy, all_it_can.tokens_after, done.tokens_after, done.limit);
        }
    }

    /// `truncate+drop` with the `chars4` estimator gives exactly the history `reference` gives.
    #[test]
    fn truncate_drop_is_reference(c in conversation(), policy in policy()) {
        // The reference stops as soon as it fits: it has no low watermark.
        let policy = Policy { target: None, ..policy };
        let (pipeline, _) = compact(&c, "truncate+drop", &policy, CounterKind::Chars4);
        let (reference, _) = compact(&c, "reference", &policy, CounterKind::O200k);
        prop_assert_eq!(pipeline, reference);
    }

    /// Threshold-triggered stages stop as soon as they reach their goal (the target, or the limit
    /// without one): undoing their last action would not reach it.
    #[test]
    fn stops_as_soon_as_it_fits(
        c in conversation(),
        policy in policy(),
        stage in prop_oneof![
            Just("truncate"), Just("mask"), Just("mask:m=0"), Just("clear-tool-uses:keep=0"),
            Just("drop"), Just("window:n=1"),
        ],
        estimator in estimator(),
    ) {
        let (after, done) = compact(&c, stage, &policy, estimator);
        if done.cannot_fit || !done.changed() {
            return Ok(());
        }
        let undone = if done.counts.dropped > 0 {
            let keep = if stage == "window:n=1" { policy.keep_recent_turns.max(1) } else { policy.keep_recent_turns };
            undo_last_drop(&c.messages, &after.messages, keep)
        } else {
            undo_last_rewrite(&c.messages, &after.messages)
        };
        let undone = Conversation { messages: undone, ..after.clone() };
        prop_assert!(estimate(&undone, stage, estimator) > policy.goal(), "{} could have stopped one step earlier", stage);
    }
}

/// A summarizer that answers with a short fixed text, as a model would.
struct Fixed;

impl ctxbench_compact::compact::Summarizer for Fixed {
    fn summarize(&mut self, request: &ctxbench_compact::compact::SummaryRequest) -> Option<String> {
        Some(format!("{} characters about orders.", request.messages[0].text().len()))
    }
}

proptest! {
    #![proptest_config(config())]

    /// `summarize` (alone or after other stages) keeps pairing and the untouchable parts, and its
    /// summary message is never taken for a request.
    #[test]
    fn summarize_keeps_the_invariants(
        c in conversation(), policy in policy(), first in prop_oneof![Just(""), Just("truncate+"), Just("mask:m=2+")],
    ) {
        let strategy = format!("{first}summarize:ratio=0.2");
        let mut after = c.clone();
        let mut compactor = compactor(&strategy, &policy, CounterKind::Chars4);
        let done = compactor.compact_with(&mut after, &mut Fixed);
        let pairing = check_pairing(&c.messages).expect("generated histories keep the pairing rule");
        prop_assert_eq!(check_pairing(&after.messages), Ok(pairing));
        let head = first_user(&c.messages).map_or(c.messages.len(), |i| i + 1);
        prop_assert_eq!(&after.messages[..head], &c.messages[..head]);
        prop_assert_eq!(instructions(&after.messages), instructions(&c.messages));
        // The summary is no request: the protected tail starts where it did.
        prop_assert_eq!(
            ctxbench_compact::conversation::request_count(&after.messages).min(policy.keep_recent_turns),
            ctxbench_compact::conversation::request_count(&c.messages).min(policy.keep_recent_turns)
        );
        if first.is_empty() {
            let tail = keep_from(&c.messages, policy.keep_recent_turns);
            let kept = c.messages.len() - tail.max(head);
            prop_assert_eq!(&after.messages[after.messages.len() - kept..], &c.messages[c.messages.len() - kept..]);
            prop_assert!(done.tokens_after <= done.tokens_before);
        }
    }
}

proptest! {
    #![proptest_config(config())]

    /// `summarize` with any of its parameters, and every preset, keep pairing and every
    /// instruction, never raise the estimate (but SWE-agent's placeholders), never take a
    /// summary for a request, and keep the head where their span starts after it. A stateless
    /// preset compacts twice as once.
    #[test]
    fn every_summary_and_preset_keeps_the_invariants(
        c in conversation(),
        policy in policy(),
        strategy in prop_oneof![summary_stage(), preset()],
        estimator in estimator(),
    ) {
        let mut after = c.clone();
        let mut compactor = compactor(&strategy, &policy, estimator);
        let done = compactor.compact_with(&mut after, &mut Fixed);
        let pairing = check_pairing(&c.messages).expect("generated histories keep the pairing rule");
        prop_assert_eq!(check_pairing(&after.messages), Ok(pairing), "{}", strategy);
        prop_assert_eq!(&after.system, &c.system);
        prop_assert_eq!(instructions(&after.messages), instructions(&c.messages));
        prop_assert_eq!(done.tokens_after, estimate(&after, &strategy, estimator));
        if !may_grow(&strategy) && !strategy.starts_with("swe-agent") {
            prop_assert!(done.tokens_after <= done.tokens_before, "{} grew", strategy);
        }
        prop_assert_eq!(done.cannot_fit, done.tokens_after > done.limit);
        // A summary, whoever writes it, opens no request.
        for m in after.messages.iter().filter(|m| is_summary(m)) {
            prop_assert!(!m.is_request(), "{}: {:?}", strategy, m.text());
        }
        // Where the span starts after the head, the head is untouched.
        let parsed: Strategy = strategy.parse().expect("generated strategies parse");
        for stage in &parsed.stages {
            let kept = match stage {
                StageSpec::Summarize { place: ctxbench_compact::compact::Place::Span, .. } => {
                    first_user(&c.messages).map_or(0, |i| i + 1)
                }
                StageSpec::Summarize { place: ctxbench_compact::compact::Place::After(k), .. } => {
                    (*k).min(c.messages.len())
                }
                _ => 0,
            };
            if parsed.stages.len() == 1 {
                prop_assert_eq!(&after.messages[..kept], &c.messages[..kept], "{}", strategy);
            }
        }
        if parsed.stages.iter().all(|s| matches!(s, StageSpec::ClearToolUses { stateless: true, .. })) {
            let mut again = after.clone();
            compactor.compact_with(&mut again, &mut Fixed);
            prop_assert_eq!(again, after, "{} compacts again what it compacted", strategy);
        }
    }
}

/// The history with the last rewritten message (the newest changed one) restored.
fn undo_last_rewrite(before: &[Message], after: &[Message]) -> Vec<Message> {
    let mut undone = after.to_vec();
    if let Some(i) = (0..after.len()).rev().find(|&i| after[i] != before[i]) {
        undone[i] = before[i].clone();
    }
    undone
}

/// `before` with the exchanges up to one user boundary removed, as `drop` does.
fn dropped_until(before: &[Message], first: usize, boundary: usize) -> Vec<Message> {
    let mut out = before[..=first].to_vec();
    out.extend(
        before[first + 1..boundary]
            .iter()
            .filter(|m| m.role().is_instruction())
            .cloned(),
    );
    out.extend(before[boundary..].iter().cloned());
    out
}

/// The history `drop` would have left one exchange earlier.
fn undo_last_drop(before: &[Message], after: &[Message], keep: usize) -> Vec<Message> {
    let first = first_user(before).expect("something was dropped, so there is a request");
    let tail = keep_from(before, keep);
    let boundaries: Vec<usize> = (first + 2..=tail)
        .filter(|&i| before.get(i).is_some_and(|m| m.role() == Role::User))
        .collect();
    let reached = boundaries
        .iter()
        .position(|&b| dropped_until(before, first, b) == after)
        .expect("the result is the history with its oldest exchanges dropped");
    match reached {
        0 => before.to_vec(),
        k => dropped_until(before, first, boundaries[k - 1]),
    }
}

proptest! {
    #![proptest_config(config())]

    /// What a counter says a rewrite would cost is what the rewritten message costs, for every
    /// counter and every kind of message (contents null, absent, parts, escapes, CJK, emoji).
    #[test]
    fn a_rewrites_cost_is_known_before_it_is_made(c in conversation(), text in crate::generate::text()) {
        for kind in [CounterKind::Chars4, CounterKind::Chars4Py, CounterKind::O200k, CounterKind::Cl100k] {
            let counter = kind.counter();
            for m in c.messages.iter().take(6) {
                let mut rewritten = m.clone();
                rewritten.set_content(text.clone());
                prop_assert_eq!(counter.units_with_content(m, &text), counter.message_units(&rewritten), "{:?}", kind);
            }
        }
    }
}

/// The examples the generator draws stages from are values of their parameters: each parses,
/// and its stage's canonical name spells it back.
#[test]
fn every_parameters_examples_parse() {
    for stage in ctxbench_compact::compact::STAGES {
        for param in stage.params {
            assert!(
                !param.examples.is_empty(),
                "{}.{} has no examples",
                stage.name,
                param.key
            );
            for example in param.examples {
                let name = format!("{}:{}={example}", stage.name, param.key);
                let parsed: Strategy = name
                    .parse()
                    .unwrap_or_else(|e| panic!("{name}: an example that does not parse: {e}"));
                let canonical = parsed.to_string();
                assert!(
                    canonical.contains(&format!("{}={example}", param.key)),
                    "{name} reads back as {canonical}"
                );
            }
        }
    }
}
