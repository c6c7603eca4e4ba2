//! Every strategy on every wire format keeps that format's rules (docs/formats.md), thinking and
//! reasoning included: at least 1,000 generated histories, each compacted by every stage and
//! by the pipelines, in Anthropic and in Responses form. And every prefix of a history writes
//! as the prefix of its body, the request each model call had (what `import` checks).

use ctxbench_compact::compact::{PRESETS, STAGES, Summarizer, SummaryRequest};
use ctxbench_compact::wire::{self, Format, body_from_chat};
use ctxbench_compact::{Compactor, Conversation, CounterKind, Policy, RequestBody, Role, Strategy};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::generate::{conversation, policy};
use crate::properties::config;

/// One strategy per stage (its defaults), the reference, pipelines, and the shapes the presets
/// give `summarize` and the other stages (each preset's own defaults are tried as well).
const STRATEGIES: &[&str] = &[
    "none",
    "truncate",
    "drop",
    "window",
    "mask",
    "clear-tool-uses",
    "clear-tool-uses:trigger=tool_uses>1,inputs=true,until=all,stateless=true",
    "clear-thinking:keep=0",
    "mask:m=1,trigger=always,style=swe-agent",
    "summarize:ratio=0.3",
    "summarize:trigger=tokens>=1,place=first,tail=new,reads=history,carry=40,style=codex",
    "summarize:trigger=messages>=2,place=after:1,tail=turns:1,reads=transcript,style=swe-agent",
    "summarize:trigger=tokens>=1,place=first,tail=nothing,reads=agent,style=compaction",
    "summarize:trigger=tokens>=1,place=first,tail=messages:3,reads=last:50,reread=2:100,style=claude-code",
    "reference",
    "truncate+drop",
    "mask:m=1+summarize+drop",
];

struct Fixed;

impl Summarizer for Fixed {
    fn summarize(&mut self, request: &SummaryRequest) -> Option<String> {
        Some(format!("{} messages about orders.", request.messages.len()))
    }
}

fn list(body: &Value) -> &[Value] {
    body.get("messages")
        .or_else(|| body.get("input"))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn list_mut(body: &mut Value) -> &mut Vec<Value> {
    let key = if body.get("messages").is_some() {
        "messages"
    } else {
        "input"
    };
    body[key].as_array_mut().expect("a list")
}

/// The conversation in `format`, with what chat has no word for: thinking (and redacted
/// thinking) in every Anthropic assistant turn, a reasoning item before every Responses call.
fn decorated(c: &Conversation, format: Format) -> Value {
    let mut body = body_from_chat(format, c.system.as_ref(), &c.messages, &[]);
    let items = list_mut(&mut body);
    match format {
        Format::Anthropic => {
            for (k, message) in items.iter_mut().enumerate().filter(|(_, m)| m["role"] == "assistant") {
                let thinking = if k % 3 == 2 {
                    json!({"type": "redacted_thinking", "data": format!("redacted-{k}")})
                } else {
                    json!({"type": "thinking", "thinking": format!("step {k}"), "signature": format!("sig-{k}")})
                };
                let blocks = match message["content"].take() {
                    Value::Array(blocks) => blocks,
                    Value::String(s) if s.is_empty() => Vec::new(),
                    Value::String(s) => vec![json!({"type": "text", "text": s})],
                    _ => Vec::new(),
                };
                // A turn of thinking alone is what Anthropic rejects: give it a word.
                let blocks = if blocks.is_empty() {
                    vec![json!({"type": "text", "text": "…"})]
                } else {
                    blocks
                };
                message["content"] = Value::Array(std::iter::once(thinking).chain(blocks).collect());
            }
        }
        Format::Responses => {
            let mut out = Vec::new();
            for (k, item) in std::mem::take(items).into_iter().enumerate() {
                let first_call =
                    item["type"] == "function_call" && out.last().is_none_or(|p: &Value| p["type"] != "function_call");
                if first_call {
                    out.push(json!({"type": "reasoning", "id": format!("rs_{k}"), "summary": [{"type": "summary_text", "text": format!("plan {k}")}], "encrypted_content": format!("enc-{k}")}));
                }
                out.push(item);
            }
            *items = out;
        }
        Format::Chat => {}
    }
    body
}

/// A message or item with its calls' arguments left out (what `clear-tool-uses:inputs` empties).
fn without_inputs(value: &Value) -> Value {
    let mut value = value.clone();
    if let Some(blocks) = value.get_mut("content").and_then(Value::as_array_mut) {
        for block in blocks.iter_mut().filter(|b| b["type"] == "tool_use") {
            block["input"] = Value::Null;
        }
    }
    if value.get("type").and_then(Value::as_str) == Some("function_call") {
        value["arguments"] = Value::Null;
    }
    value
}

fn check_one(
    c: &Conversation,
    policy: &Policy,
    estimator: CounterKind,
    format: Format,
    strategy: &str,
) -> Result<(), TestCaseError> {
    let body = decorated(c, format);
    let pending = wire::check(format, list(&body)).expect("generated bodies keep their format's rules");
    // Named: a body of plain strings reads the same as chat, and is detected as chat.
    let mut read = RequestBody::parse_as(&body.to_string(), "generated", Some(format)).expect("generated bodies parse");
    prop_assert_eq!(read.format(), format);
    let strategy_parsed: Strategy = strategy.parse().expect("strategies parse");
    let mut compactor = Compactor::new(strategy_parsed, policy.clone(), estimator.counter());
    compactor.compact_with(&mut read.conversation, &mut Fixed);
    // The history as a list, the system prompt in its place: a system message a summary left
    // first reads back as the system prompt, the same list.
    let messages = read.conversation.clone().into_messages();
    let out = read.into_value();
    let (before, after) = (list(&body), list(&out));

    // The format's own rules, pending calls still pending.
    prop_assert_eq!(
        wire::check(format, after),
        Ok(pending),
        "{} on {}: {}",
        strategy,
        format,
        out
    );
    // What is written reads back as the history the strategy left (in Responses, but for an
    // assistant message written before another: its items join that turn's, as the API sees
    // them).
    let again = RequestBody::parse_as(&out.to_string(), "written", Some(format)).expect("written bodies parse");
    let joined = messages
        .windows(2)
        .any(|w| w[0].role() == Role::Assistant && w[1].role() == Role::Assistant);
    if !(format == Format::Responses && joined) {
        prop_assert_eq!(
            &again.conversation.into_messages(),
            &messages,
            "{} on {}",
            strategy,
            format
        );
    }
    match format {
        Format::Anthropic => {
            // Assistant turns are never rewritten but for inputs a clearing emptied: thinking stays
            // with its turn, signatures verbatim. A new one is a summary, without thinking.
            for message in after.iter().filter(|m| m["role"] == "assistant") {
                let kept = before.iter().any(|b| without_inputs(b) == without_inputs(message));
                let thinks = message["content"].as_array().is_some_and(|blocks| {
                    blocks
                        .iter()
                        .any(|b| b["type"] == "thinking" || b["type"] == "redacted_thinking")
                });
                prop_assert!(kept || !thinks, "{} rewrote an assistant turn: {}", strategy, message);
            }
        }
        _ => {
            // Each reasoning item is still followed by the item it led to.
            for (i, item) in after.iter().enumerate().filter(|(_, item)| item["type"] == "reasoning") {
                let at = before
                    .iter()
                    .position(|b| b == item)
                    .expect("reasoning items are kept verbatim");
                prop_assert_eq!(
                    after.get(i + 1).map(without_inputs),
                    before.get(at + 1).map(without_inputs),
                    "{} parted a reasoning item",
                    strategy
                );
            }
        }
    }
    Ok(())
}

#[test]
fn the_strategies_cover_every_stage() {
    for stage in STAGES {
        assert!(
            STRATEGIES
                .iter()
                .any(|s| s.split('+').any(|p| p.split(':').next() == Some(stage.name))),
            "{} is not tried on every format",
            stage.name
        );
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn every_strategy_keeps_every_formats_rules(
        c in conversation(),
        policy in policy(),
        estimator in prop_oneof![4 => Just(CounterKind::Chars4), 1 => Just(CounterKind::O200k)],
    ) {
        for format in [Format::Anthropic, Format::Responses] {
            for strategy in STRATEGIES.iter().copied().chain(PRESETS.iter().map(|p| p.name)) {
                check_one(&c, &policy, estimator, format, strategy)?;
            }
        }
    }
}

proptest! {
    #![proptest_config(config())]

    /// The history before each assistant turn, written in the body's format, is the body cut
    /// before that turn's items, byte for byte.
    #[test]
    fn each_prefix_writes_as_the_prefix_of_its_body(c in conversation()) {
        for format in [Format::Anthropic, Format::Responses] {
            let body = decorated(&c, format);
            let read = RequestBody::parse_as(&body.to_string(), "generated", Some(format)).expect("generated bodies parse");
            let history = read.conversation.clone().into_messages();
            for (p, reply) in history.iter().enumerate().filter(|(_, m)| m.role() == Role::Assistant) {
                let cut = read.wire_items(reply).expect("a turn comes from items").start;
                let mut want = body.clone();
                list_mut(&mut want).truncate(cut);
                prop_assert_eq!(read.write_with(&history[..p]).to_string(), want.to_string(), "{} before messages[{}]", format, p);
            }
        }
    }
}
