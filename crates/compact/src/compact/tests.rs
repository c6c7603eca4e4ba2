//! The compactor's own rules, by example: loop guards, retries and the breaker.

use super::*;
use crate::message::{Message, Role, ToolCall};
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

/// A summarizer that is down: it counts the calls and answers none.
struct Down(usize);

impl Summarizer for Down {
    fn summarize(&mut self, _: &SummaryRequest) -> Option<String> {
        self.0 += 1;
        None
    }
}

#[test]
fn a_failed_summary_is_retried_and_three_failed_compactions_rest_the_summarizer_ten_calls() {
    let mut c = Conversation::from_messages(exchange("a", &"x".repeat(4000)), vec![]);
    for k in 0..3 {
        c.messages.extend(exchange(&format!("q{k}"), &"y".repeat(4000)));
    }
    let policy = Policy {
        keep_recent_turns: 1,
        ..Policy::new(2000)
    };
    let mut compactor = Compactor::new(
        "summarize".parse().expect("valid"),
        policy,
        CounterKind::Chars4.counter(),
    );
    let mut calls = Vec::new();
    let mut down = Down(0);
    for _ in 0..15 {
        let before = down.0;
        let done = compactor.compact_with(&mut c, &mut down);
        calls.push((down.0 - before, done.failed, done.resting));
        // A failed compaction leaves the history as it was.
        assert!(!done.changed());
    }
    let tried = (3, true, false);
    let rest = (0, false, true);
    let mut expected = vec![tried; 3];
    expected.extend([rest; 10]);
    expected.extend([tried; 2]);
    assert_eq!(calls, expected);
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
