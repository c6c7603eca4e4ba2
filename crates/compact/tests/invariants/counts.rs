//! Exact counts against OpenAI's tiktoken (`tests/fixtures/oracles/tiktoken-counts.jsonl`), with
//! the recipe of docs/counting.md.

use ctxbench_compact::{Conversation, CounterKind, Message};
use serde_json::Value;

use crate::fixtures::{fixture, jsonl};

#[test]
fn bpe_counts_equal_tiktoken() {
    let cases = jsonl(&fixture("oracles/tiktoken-counts.jsonl"));
    assert_eq!(cases.len(), 200);
    for (n, case) in cases.iter().enumerate() {
        let request = &case["request"];
        let messages: Vec<Message> = serde_json::from_value(request["messages"].clone()).expect("valid messages");
        let tools = request
            .get("tools")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let c = Conversation::from_messages(messages, tools);
        for (kind, field) in [(CounterKind::O200k, "o200k"), (CounterKind::Cl100k, "cl100k")] {
            let got = kind.counter().count(c.system.as_ref(), &c.messages, &c.tools);
            assert_eq!(Some(got), case[field].as_u64(), "counts.jsonl line {}: {field}", n + 1);
        }
    }
}
