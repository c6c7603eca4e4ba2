//! proptest generators: histories with the quirks real data has (assistant greetings before the
//! first request, parallel calls, ids reused across the conversation, results out of call order,
//! null and array contents, tiny and huge results, CJK, emoji and control characters, later
//! system messages, pending calls at the end), policies and strategies.

use ctxbench_compact::compact::{PRESETS, STAGES, StageInfo};
use ctxbench_compact::{Conversation, Message, Policy, Role};
use proptest::prelude::*;
use serde_json::{Value, json};

/// Text of very different sizes and scripts.
pub fn text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => "[a-z ]{0,12}",
        1 => Just("订单号码是".to_owned()),
        1 => Just("🚲 👍".to_owned()),
        1 => Just("\"\\\n\t\u{1}\u{7f}/".to_owned()),
        1 => "[0-9]{1,6}",
        1 => Just("[Truncated".to_owned()),
    ];
    let repeat = prop_oneof![6 => Just(1usize), 2 => 2usize..20, 1 => 100usize..800];
    (prop::collection::vec(piece, 0..6), repeat).prop_map(|(pieces, repeat)| pieces.concat().repeat(repeat))
}

/// A `content` field: mostly a string, sometimes null, sometimes an array of parts.
fn content() -> impl Strategy<Value = Value> {
    prop_oneof![
        8 => text().prop_map(Value::String),
        1 => Just(Value::Null),
        1 => (text(), text()).prop_map(|(a, b)| json!([{"type": "text", "text": a}, {"type": "text", "text": b}])),
    ]
}

fn message(value: Value) -> Message {
    Message::from_value(value).expect("the generator writes valid messages")
}

const TOOLS: [&str; 4] = ["get_order", "search_parts", "read_file", "get_receipt"];

/// One model step: parallel calls with their results (maybe out of order), or a reply.
#[derive(Clone, Debug)]
enum Step {
    Calls {
        tools: Vec<usize>,
        results: Vec<Value>,
        reversed: bool,
        reply_text: Option<String>,
    },
    Reply(Value),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (prop::collection::vec((0..TOOLS.len(), content()), 1..4), any::<bool>(), prop::option::weighted(0.2, text()))
            .prop_map(|(calls, reversed, reply_text)| {
                let (tools, results) = calls.into_iter().unzip();
                Step::Calls { tools, results, reversed, reply_text }
            }),
        1 => content().prop_map(Step::Reply),
    ]
}

fn push_step(out: &mut Vec<Message>, step: &Step, answered: bool) {
    match step {
        // Replies of an even length think aloud (a chat message's `reasoning_content`).
        Step::Reply(content) if content.as_str().is_some_and(|c| c.len() % 2 == 0) => out.push(message(
            json!({"role": "assistant", "content": content, "reasoning_content": "Let me think."}),
        )),
        Step::Reply(content) => out.push(message(json!({"role": "assistant", "content": content}))),
        Step::Calls {
            tools,
            results,
            reversed,
            reply_text,
        } => {
            // Ids restart at call_0 in every message: reused across the conversation, as tau-bench does.
            let calls: Vec<Value> = tools
                .iter()
                .enumerate()
                .map(|(k, &t)| {
                    json!({"id": format!("call_{k}"), "type": "function",
                           "function": {"name": TOOLS[t], "arguments": format!("{{\"k\":{k}}}")}})
                })
                .collect();
            let content = reply_text.as_ref().map_or(Value::Null, |t| Value::String(t.clone()));
            out.push(message(
                json!({"role": "assistant", "content": content, "tool_calls": calls}),
            ));
            if !answered {
                return;
            }
            let mut order: Vec<usize> = (0..tools.len()).collect();
            if *reversed {
                order.reverse();
            }
            for k in order {
                out.push(message(json!({"role": "tool", "tool_call_id": format!("call_{k}"),
                                        "name": TOOLS[tools[k]], "content": results[k]})));
            }
        }
    }
}

/// A whole conversation: system prompt, optional preamble, requests, maybe pending calls.
pub fn conversation() -> impl Strategy<Value = Conversation> {
    let request = (
        content(),
        prop::collection::vec(step(), 0..5),
        prop::bool::weighted(0.1),
    );
    (
        prop::option::weighted(0.9, text()),
        prop::option::weighted(0.25, (text(), prop::option::weighted(0.3, step()))),
        prop::collection::vec(request, 0..8),
        prop::option::weighted(0.15, step()),
    )
        .prop_map(|(system, preamble, requests, pending)| {
            let mut messages = Vec::new();
            if let Some((greeting, step)) = preamble {
                messages.push(Message::new(Role::Assistant, greeting));
                if let Some(step) = step {
                    push_step(&mut messages, &step, true);
                }
            }
            for (user, steps, system_after) in requests {
                messages.push(message(json!({"role": "user", "content": user})));
                for step in &steps {
                    push_step(&mut messages, step, true);
                }
                if system_after {
                    messages.push(Message::new(Role::System, "Reminder: be brief."));
                }
            }
            if let Some(step @ Step::Calls { .. }) = pending {
                push_step(&mut messages, &step, false);
            }
            Conversation {
                system: system.map(|s| Message::new(Role::System, s)),
                system_index: 0,
                messages,
                tools: Default::default(),
            }
        })
}

/// A valid policy; windows from tiny to roomy so that every strategy gets to work.
pub fn policy() -> impl Strategy<Value = Policy> {
    (20u64..30_000, 1u32..=20, 0u32..=20, 1usize..5, 0u64..4).prop_map(|(window, twentieths, low, keep, reserve)| {
        Policy {
            window,
            threshold: f64::from(twentieths) / 20.0,
            // Half the time a low watermark at or below the threshold.
            target: (low > 0 && low <= twentieths).then(|| f64::from(low) / 20.0),
            keep_recent_turns: keep,
            reply_reserve: window * reserve / 10,
        }
    })
}

/// One stage with random parameters, drawn from the stages the library declares, each
/// parameter from the examples its type gives (`ParamInfo::examples`): a new stage or parameter
/// is drawn without a list to keep here. No `none` or `reference`, which stand alone, and no
/// `summarize`, which needs a model: the wire properties run it with one.
pub fn stage() -> impl Strategy<Value = String> {
    let stages: Vec<&'static StageInfo> = STAGES.iter().filter(|s| !s.alone && s.name != "summarize").collect();
    prop::sample::select(stages).prop_flat_map(drawn)
}

/// `info`'s stage with every parameter drawn from its examples.
fn drawn(info: &'static StageInfo) -> impl Strategy<Value = String> {
    let values: Vec<_> = info.params.iter().map(|p| prop::sample::select(p.examples)).collect();
    values.prop_map(move |values| {
        let params: Vec<String> = info
            .params
            .iter()
            .zip(values)
            .map(|(p, v)| format!("{}={v}", p.key))
            .collect();
        if params.is_empty() {
            info.name.to_owned()
        } else {
            format!("{}:{}", info.name, params.join(","))
        }
    })
}

/// A preset with one parameter drawn from its examples (or none), those its vendor refuses left
/// out (Anthropic's trigger under 50,000); its token amounts scale to the drawn window, so it
/// compacts on these short histories.
pub fn preset() -> impl Strategy<Value = String> {
    let presets: Vec<&'static ctxbench_compact::compact::PresetInfo> = PRESETS.iter().collect();
    prop::sample::select(presets).prop_flat_map(|info| {
        let params: Vec<(&'static str, &'static str)> = info
            .params
            .iter()
            .flat_map(|p| p.examples.iter().map(move |e| (p.key, *e)))
            .filter(|(key, value)| {
                format!("{}:{key}={value}", info.name)
                    .parse::<ctxbench_compact::Strategy>()
                    .is_ok()
            })
            .collect();
        prop::option::weighted(0.5, prop::sample::select(params)).prop_map(move |param| match param {
            Some((key, value)) => format!("{}:{key}={value}", info.name),
            None => info.name.to_owned(),
        })
    })
}

/// `summarize` with every parameter drawn from its examples.
pub fn summary_stage() -> impl Strategy<Value = String> {
    let info = STAGES
        .iter()
        .find(|s| s.name == "summarize")
        .expect("summarize is declared");
    drawn(info)
}

/// Any strategy: a stage alone, a pipeline of up to three, `none`, or `reference`.
pub fn strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => stage(),
        4 => prop::collection::vec(stage(), 2..4).prop_map(|stages| stages.join("+")),
        1 => Just("none".to_owned()),
        1 => prop_oneof![Just("reference".to_owned()), Just("reference:flavor=py".to_owned())],
    ]
}
