//! What each strategy does to a conversation, as people read it: the history before and after,
//! one line per message, snapshot-tested.

use ctxbench_compact::{Compactor, CounterKind, Policy, RequestBody, Strategy};

use crate::render::render;

fn before_and_after(strategy: &str, window: u64) -> String {
    let path = format!("{}/tests/fixtures/support-chat.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("fixture");
    let mut body = RequestBody::parse(&text, "support-chat.json").expect("valid fixture");
    let before = render(&body.conversation);
    let strategy: Strategy = strategy.parse().expect("valid strategy");
    let policy = Policy {
        keep_recent_turns: 1,
        ..Policy::new(window)
    };
    let done = Compactor::new(strategy.clone(), policy, CounterKind::Chars4.counter()).compact(&mut body.conversation);
    format!(
        "{strategy} at window {window}, keep 1: {} → {} tokens ({:?})\n\n--- before\n{before}\n--- after\n{}",
        done.tokens_before,
        done.tokens_after,
        done.counts,
        render(&body.conversation)
    )
}

#[test]
fn each_strategy_on_the_support_chat() {
    for (name, strategy, window) in [
        ("truncate_drop", "truncate+drop", 1_000),
        ("mask", "mask:m=1", 2_000),
        ("window", "window:n=1", 2_000),
        ("clear_tool_uses", "clear-tool-uses:keep=1,exclude=create_return", 2_000),
    ] {
        insta::assert_snapshot!(name, before_and_after(strategy, window));
    }
}
