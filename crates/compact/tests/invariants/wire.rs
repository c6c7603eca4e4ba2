//! The three wire formats: real bodies read and written back byte for byte, the same decisions
//! whatever the format, block structure kept by every rewrite, and errors at the user's places.

use ctxbench_compact::wire::{self, Format, body_from_chat};
use ctxbench_compact::{Compaction, Compactor, CounterKind, Error, Message, Policy, RequestBody, Role, Strategy};
use serde_json::{Value, json};

use crate::fixtures;

const ANTHROPIC: &str = "wire/anthropic-claude-code.json";
const RESPONSES: &str = "wire/responses-codex.json";

fn read(name: &str) -> String {
    std::fs::read_to_string(fixtures::fixture(name)).expect("fixture reads")
}

fn pretty(body: &RequestBody) -> String {
    let mut out = Vec::new();
    body.write_pretty(&mut out).expect("writes");
    String::from_utf8(out).expect("UTF-8")
}

fn compact(body: &mut RequestBody, strategy: &str, window: u64, estimator: CounterKind) -> Compaction {
    let strategy: Strategy = strategy.parse().expect("strategy parses");
    Compactor::new(strategy, Policy::new(window), estimator.counter()).compact(&mut body.conversation)
}

/// The messages or items of a written body.
fn list(body: &Value) -> &[Value] {
    body.get("messages")
        .or_else(|| body.get("input"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .expect("a list")
}

#[test]
fn real_bodies_read_and_write_back_byte_for_byte() {
    for (name, format) in [
        (ANTHROPIC, Format::Anthropic),
        (RESPONSES, Format::Responses),
        ("support-chat.json", Format::Chat),
        ("coding-agent.json", Format::Chat),
    ] {
        let text = read(name);
        let body = RequestBody::parse(&text, name).expect("parses");
        assert_eq!(body.format(), format, "{name}");
        assert_eq!(
            body.format(),
            Format::detect(&serde_json::from_str(&text).expect("JSON")),
            "{name}"
        );
        if format != Format::Chat {
            assert_eq!(pretty(&body), text.trim_end(), "{name} written back");
        }
        let original: Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(
            serde_json::to_string(&body.into_value()).expect("JSON"),
            serde_json::to_string(&original).expect("JSON"),
            "{name}"
        );
    }
}

#[test]
fn each_format_reads_into_the_history_it_holds() {
    let body = RequestBody::parse(&read(ANTHROPIC), ANTHROPIC).expect("parses");
    let c = &body.conversation;
    assert!(
        c.system
            .as_ref()
            .expect("system")
            .text()
            .starts_with("You are Claude Code")
    );
    let roles: Vec<Role> = c.messages.iter().map(Message::role).collect();
    use Role::{Assistant as A, Tool as T, User as U};
    // The reminder after two results is a message of its own.
    assert_eq!(roles, [U, A, T, A, T, T, U, A, T, A, U]);
    let ids: Vec<&str> = c.messages[3].calls().map(|call| call.id).collect();
    assert_eq!(
        ids,
        ["toolu_01Bq7dNmr8fXn2yW8gkRkN5b", "toolu_01CkPz4wYh3TqL9vU2sXe6Ma"]
    );
    assert_eq!(
        c.messages[1].calls().next().expect("a call").arguments,
        r#"{"command":"python -m pytest tests/test_math.py -q","timeout":120000}"#
    );
    // Thinking is counted with its turn; a result of text blocks reads as their text.
    assert!(c.messages[3].text().starts_with("test_mean fails"));
    assert!(
        c.messages[5]
            .content_str()
            .expect("joined")
            .starts_with("     1→util.py")
    );
    assert_eq!(c.tools.as_slice().len(), 2);

    let body = RequestBody::parse(&read(RESPONSES), RESPONSES).expect("parses");
    let c = &body.conversation;
    assert!(
        c.system
            .as_ref()
            .expect("instructions")
            .text()
            .starts_with("You are Codex")
    );
    let roles: Vec<Role> = c.messages.iter().map(Message::role).collect();
    // Reasoning, an assistant message and a custom call are one turn.
    assert_eq!(roles, [U, U, A, T, A, T, T, A, T, A, T, A, U]);
    let calls: Vec<&str> = c.messages[7].calls().map(|call| call.name).collect();
    assert_eq!(calls, ["apply_patch"]);
    assert!(c.messages[7].text().contains("I'll patch it"));
    assert_eq!(
        c.tools.as_slice().len(),
        1,
        "only function tools are counted as schemas"
    );
}

/// One conversation, three formats: the same history inside, so the same decisions.
#[test]
fn the_three_formats_of_one_conversation_compact_alike() {
    let chat = RequestBody::parse(&read("support-chat.json"), "support-chat.json").expect("parses");
    let c = &chat.conversation;
    let tools = c.tools.as_slice();
    let anthropic = body_from_chat(Format::Anthropic, c.system.as_ref(), &c.messages, tools);
    let anthropic = RequestBody::parse(&anthropic.to_string(), "a").expect("the Anthropic body parses");
    assert_eq!(anthropic.format(), Format::Anthropic);
    // Read from Anthropic, the history is in the canonical shape; state it in the other two.
    let a = &anthropic.conversation;
    let bodies: Vec<RequestBody> = Format::ALL
        .into_iter()
        .map(|format| {
            let body = body_from_chat(format, a.system.as_ref(), &a.messages, a.tools.as_slice());
            let body = RequestBody::parse(&body.to_string(), format.as_str()).expect("parses");
            assert_eq!(body.format(), format);
            assert_eq!(body.conversation.messages, a.messages, "{format}: the same history");
            body
        })
        .collect();
    for strategy in [
        "truncate",
        "drop",
        "mask:m=2",
        "clear-tool-uses",
        "truncate+drop",
        "reference",
    ] {
        for estimator in [CounterKind::Chars4, CounterKind::O200k] {
            let done: Vec<(Compaction, Vec<Message>)> = bodies
                .iter()
                .map(|body| {
                    let mut body = body.clone();
                    let done = compact(&mut body, strategy, 700, estimator);
                    (done, body.conversation.messages)
                })
                .collect();
            assert!(done[0].0.changed(), "{strategy}: the window makes it compact");
            for (format, d) in Format::ALL.iter().zip(&done) {
                assert_eq!(d, &done[0], "{strategy}, {estimator:?}: {format} decides as chat does");
            }
        }
    }
}

#[test]
fn rewrites_keep_the_blocks_and_drops_take_thinking_with_their_turn() {
    let text = read(ANTHROPIC);
    let original: Value = serde_json::from_str(&text).expect("JSON");
    let mut body = RequestBody::parse(&text, ANTHROPIC).expect("parses");
    let done = compact(&mut body, "truncate", 1500, CounterKind::O200k);
    assert!(done.counts.truncated >= 2, "{done:?}");
    let out = body.into_value();
    let (before, after) = (list(&original), list(&out));
    assert_eq!(before.len(), after.len());
    for (b, a) in before.iter().zip(after) {
        if b["role"] == "assistant" {
            assert_eq!(a, b, "assistant turns, thinking signatures included, are kept verbatim");
        }
    }
    // The result of text blocks is still text blocks; the string one a string; every other field kept.
    let blocks = after[4]["content"].as_array().expect("blocks");
    assert!(
        blocks[0]["content"].as_str().expect("string").starts_with("[Truncated"),
        "{}",
        blocks[0]
    );
    assert_eq!(blocks[1]["content"][0]["type"], "text");
    assert!(
        blocks[1]["content"][0]["text"]
            .as_str()
            .expect("text")
            .starts_with("[Truncated")
    );
    assert_eq!(
        blocks[2], before[4]["content"][2],
        "the reminder stays after the results"
    );
    assert_eq!(after[2]["content"][0]["is_error"], true);
    assert_eq!(wire::check(Format::Anthropic, after), Ok(0));

    // Dropping the first request's exchanges takes their thinking, redacted thinking included.
    let mut body = RequestBody::parse(&text, ANTHROPIC).expect("parses");
    let done = compact(&mut body, "drop", 3000, CounterKind::O200k);
    assert!(done.counts.dropped > 0, "{done:?}");
    let out = body.into_value();
    let after = list(&out);
    assert_eq!(wire::check(Format::Anthropic, after), Ok(0));
    assert_eq!(after.last(), before.last());
    assert_eq!(out["system"], original["system"]);
    assert_eq!(out["tools"], original["tools"]);

    // Responses: a masked output keeps its item; each reasoning item still precedes its call.
    let text = read(RESPONSES);
    let original: Value = serde_json::from_str(&text).expect("JSON");
    let mut body = RequestBody::parse(&text, RESPONSES).expect("parses");
    let done = compact(&mut body, "mask:m=1", 1500, CounterKind::O200k);
    assert!(done.counts.masked >= 2, "{done:?}");
    let out = body.into_value();
    let (before, after) = (list(&original), list(&out));
    assert_eq!(before.len(), after.len());
    for (b, a) in before.iter().zip(after) {
        if a["output"] != b["output"] {
            let tool = if a["type"] == "custom_tool_call_output" {
                "apply_patch"
            } else {
                "shell"
            };
            let output = a["output"].as_str().expect("string");
            assert!(output.starts_with(&format!("[Output of {tool} omitted")), "{a}");
            assert_eq!(a["call_id"], b["call_id"]);
        } else {
            assert_eq!(a, b);
        }
    }
    assert_eq!(wire::check(Format::Responses, after), Ok(0));
}

#[test]
fn a_body_that_breaks_its_formats_rules_is_refused_at_its_place() {
    let cases = [
        (
            json!({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "thinking", "thinking": "…", "signature": "s"}]}]}),
            "messages[1].content: an assistant message holds only thinking",
        ),
        (
            json!({"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"}]}]}),
            "messages[0].content[0]: tool_result for \"toolu_1\" answers no tool_use",
        ),
        (
            json!({"system": "s", "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]}, {"role": "user", "content": [{"type": "text", "text": "and?"}]}]}),
            "messages[1]: tool_use \"t\" has no tool_result in the next message (messages[2])",
        ),
        (
            json!({"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": [{"type": "image", "source": {}}]}]}),
            "messages[0].role: Anthropic messages are \"user\" or \"assistant\"",
        ),
        (
            json!({"input": [{"type": "message", "role": "user", "content": "q"}, {"type": "reasoning", "summary": []}, {"type": "message", "role": "user", "content": "q"}]}),
            "input[1]: a reasoning item without the item it led to after it",
        ),
        (
            json!({"input": [{"role": "user", "content": "q"}, {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}, {"role": "user", "content": "q"}]}),
            "input[1]: call \"c\" has no output before input[2]",
        ),
        (
            json!({"input": [{"role": "user", "content": "q"}, {"type": "function_call_output", "call_id": "c", "output": "x"}]}),
            "input[1]: output for \"c\" answers no call",
        ),
        (
            json!({"input": 3}),
            "input: expected a string or an array of items, found a number",
        ),
    ];
    for (body, expected) in cases {
        let error = RequestBody::parse(&body.to_string(), "body.json").expect_err("refused");
        assert!(matches!(error, Error::Input { .. }), "{error:?}");
        let text = error.to_string();
        assert!(
            text.starts_with(&format!("body.json: {expected}")),
            "{text}\nexpected: {expected}"
        );
    }
}

#[test]
fn a_format_can_be_named_and_a_string_input_stays_a_string() {
    let body = json!({"model": "gpt-5", "input": "What is 2+2?", "store": false});
    let read = RequestBody::parse_as(&body.to_string(), "b", Some(Format::Responses)).expect("parses");
    assert_eq!(read.conversation.messages[0].text(), "What is 2+2?");
    assert_eq!(read.into_value(), body);
    // A bare list of plain messages is chat unless named: the same text reads either way.
    let plain = json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]);
    for format in Format::ALL {
        let read = RequestBody::parse_as(&plain.to_string(), "b", Some(format)).expect("parses");
        assert_eq!(read.format(), format);
        assert_eq!(read.conversation.messages.len(), 2);
        assert_eq!(read.into_value(), plain, "{format}");
    }
    let error = RequestBody::parse_as(&body.to_string(), "b", Some(Format::Chat)).expect_err("not chat");
    assert!(error.to_string().contains("--format responses"), "{error}");
}

/// A provider's compaction (Anthropic's `compaction` block, OpenAI's `compaction` item) reads as
/// a message of its own that shows the summary, and writes back byte for byte; one ctxbench
/// writes (a preset's) becomes the format's block or item, OpenAI's encrypted.
#[test]
fn a_providers_compaction_reads_as_its_own_message_and_writes_back() {
    let anthropic = json!({"system": "s", "messages": [
        {"role": "user", "content": "Where is order 4471?"},
        {"role": "assistant", "content": [
            {"type": "compaction", "content": "The user asked about order 4471.", "encrypted_content": "e1"},
            {"type": "text", "text": "Looking it up."},
            {"type": "tool_use", "id": "t1", "name": "get_order", "input": {"order": 4471}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "shipped"}]}]});
    let responses = json!({"instructions": "s", "input": [
        {"role": "user", "content": "Where is order 4471?"},
        {"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAA-opaque"},
        {"type": "function_call", "call_id": "c1", "name": "get_order", "arguments": "{\"order\":4471}"},
        {"type": "function_call_output", "call_id": "c1", "output": "shipped"}]});
    for (body, format, summary) in [
        (
            anthropic,
            Format::Anthropic,
            "[Compaction]\nThe user asked about order 4471.",
        ),
        (responses, Format::Responses, "[Compaction]\ngAAAA-opaque"),
    ] {
        let text = body.to_string();
        let read = RequestBody::parse(&text, "body").expect("parses");
        let roles: Vec<Role> = read.conversation.messages.iter().map(Message::role).collect();
        assert_eq!(
            roles,
            [Role::User, Role::Assistant, Role::Assistant, Role::Tool],
            "{format}"
        );
        assert_eq!(read.conversation.messages[1].text(), summary, "{format}");
        assert!(read.conversation.messages[2].has_calls(), "{format}");
        assert_eq!(read.into_value(), body, "{format} written back");
    }

    // What a preset writes: `[Compaction]` then the summary, as the format's own block or item.
    let history = vec![
        Message::new(Role::Assistant, "[Compaction]\nKey facts: order 4471."),
        Message::new(Role::User, "And now?"),
    ];
    let anthropic = body_from_chat(Format::Anthropic, None, &history, &[]);
    let written = RequestBody::parse(&anthropic.to_string(), "a")
        .expect("parses")
        .into_value();
    assert_eq!(
        list(&written)[0],
        json!({"role": "assistant", "content": [{"type": "compaction", "content": "Key facts: order 4471.",
            "encrypted_content": "ctxb1.S2V5IGZhY3RzOiBvcmRlciA0NDcxLg"}]})
    );
    let responses = body_from_chat(Format::Responses, None, &history, &[]);
    let written = RequestBody::parse(&responses.to_string(), "r").expect("parses");
    let item = &list(&written.clone().into_value())[0].clone();
    assert_eq!(item["type"], "compaction");
    assert!(
        item["encrypted_content"].as_str().is_some_and(|e| !e.contains("4471")),
        "{item}"
    );
    // Read back, ctxbench's own item shows the summary it holds.
    assert_eq!(
        written.conversation.messages[0].text(),
        "[Compaction]\nKey facts: order 4471."
    );
}
