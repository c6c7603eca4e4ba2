//! The reference listings' own `compact()` outputs (TypeScript under Node, and its Python listing) against
//! `reference`, and against `truncate+drop` with the `chars4` estimator: byte for byte.

use ctxbench_compact::{Compactor, Conversation, CounterKind, Message, Policy, Role, Strategy};
use serde_json::Value;

use crate::fixtures::{fixture, jsonl};

/// Compacts one oracle case and returns the history as compact JSON, one message a line.
fn compact_case(case: &Value, strategy: &str, estimator: CounterKind) -> String {
    let messages: Vec<Message> = serde_json::from_value(case["messages"].clone()).expect("valid messages");
    let system = case["system"].as_str().expect("system is a string");
    let mut conversation = Conversation {
        system: Some(Message::new(Role::System, system)),
        system_index: 0,
        messages,
        tools: Default::default(),
    };
    let policy = Policy {
        window: case["window"].as_u64().expect("window"),
        threshold: case["threshold"].as_f64().expect("threshold"),
        target: None,
        keep_recent_turns: case["keep"].as_u64().expect("keep") as usize,
        reply_reserve: 0,
    };
    let strategy: Strategy = strategy.parse().expect("valid strategy");
    Compactor::new(strategy, policy, estimator.counter()).compact(&mut conversation);
    render(
        conversation
            .messages
            .iter()
            .map(|m| serde_json::to_string(m).expect("serializes")),
    )
}

fn render(lines: impl Iterator<Item = String>) -> String {
    lines.collect::<Vec<_>>().join("\n")
}

fn expected(case: &Value) -> String {
    let list = case["expected"].as_array().expect("expected is an array");
    render(list.iter().map(|m| serde_json::to_string(m).expect("serializes")))
}

fn check_listing(file: &str, strategies: &[(&str, CounterKind)]) {
    let cases = jsonl(&fixture(&format!("oracles/{file}")));
    assert_eq!(cases.len(), 120, "{file}");
    let mut changed = 0;
    for (n, case) in cases.iter().enumerate() {
        let expect = expected(case);
        if expect != render(case["messages"].as_array().into_iter().flatten().map(|m| m.to_string())) {
            changed += 1;
        }
        for (strategy, estimator) in strategies {
            let got = compact_case(case, strategy, *estimator);
            pretty_assertions::assert_eq!(got, expect, "{file} line {}: {strategy} with {estimator}", n + 1);
        }
    }
    // The oracle must exercise compaction, not only histories that already fit.
    assert!(
        changed * 2 > cases.len(),
        "{file}: only {changed} cases compact anything"
    );
}

#[test]
fn reference_is_the_typescript_listing() {
    check_listing(
        "reference-compact-ts.jsonl",
        &[
            ("reference", CounterKind::O200k),
            ("truncate+drop", CounterKind::Chars4),
        ],
    );
}

#[test]
fn reference_py_is_the_python_listing() {
    check_listing(
        "reference-compact-py.jsonl",
        &[("reference:flavor=py", CounterKind::O200k)],
    );
}
