//! Scenario files: what loading accepts, and the errors that name the file, the request and the
//! step when it does not.

use ctxbench_compact::Message;
use ctxbench_compact::tokens::CounterKind;
use ctxbench_harness::agent::model::{Model, ModelError, ModelRequest};
use ctxbench_harness::billing::cache_mode::CacheMode;
use ctxbench_harness::scenario::parse_scenario;
use ctxbench_harness::sim::latency::Latency;
use ctxbench_harness::sim::provider::Overflow;
use ctxbench_harness::sim::provider::{Provider, Server};
use ctxbench_harness::sim::scripted::ScriptedModel;
use ctxbench_harness::trace::CallKind;
use serde_json::{Value, json};

fn base() -> Value {
    json!({
        "name": "t",
        "window": 1000,
        "tools": {"get": {"refetchable": true, "results": [{"args": {"id": 1}, "text": "the code is K-77"}]}},
        "facts": {"code": {"value": "K-77", "kind": "id"}},
        "requests": [
            {"user": "hi", "steps": [{"tool_calls": [{"name": "get", "args": {"id": 1}}]}, {"reply": "K-77", "needs": ["code"]}]}
        ]
    })
}

fn check(edit: impl FnOnce(&mut Value), expect: &str) {
    let mut v = base();
    edit(&mut v);
    let err = parse_scenario(&v.to_string(), "t.json", 0).expect_err("invalid");
    assert_eq!(err.to_string(), expect);
}

#[test]
fn the_base_scenario_loads() {
    let s = parse_scenario(&base().to_string(), "t.json", 0).expect("valid");
    assert_eq!(
        s.facts[0].refetch,
        Some(("get".into(), "{\"id\":1}".into())),
        "the fact's source can be fetched again"
    );
    assert_eq!(s.requests[0].max_turns, 3, "steps plus needs");
}

#[test]
fn errors_name_the_file_request_and_step() {
    check(
        |v| v["requests"][0]["steps"][0]["tool_calls"][0]["name"] = json!("nope"),
        "t.json: request 1, step 1: unknown tool \"nope\"; the scenario's tools: get",
    );
    check(
        |v| v["requests"][0]["steps"][0]["tool_calls"][0]["args"] = json!({"id": 2}),
        "t.json: request 1, step 1: no fixture result of \"get\" for arguments {\"id\":2}",
    );
    check(
        |v| v["requests"][0]["steps"][0]["needs"] = json!(["code"]),
        "t.json: request 1, step 1: needs fact \"code\" (\"K-77\") before it appears anywhere",
    );
    check(
        |v| v["requests"][0]["steps"][1]["needs"] = json!(["nothing"]),
        "t.json: request 1, step 2: needs unknown fact \"nothing\"; declare it under \"facts\"",
    );
    check(
        |v| v["requests"][0]["max_turns"] = json!(1),
        "t.json: request 1: 2 steps but max_turns is 1; raise max_turns or remove steps",
    );
    check(
        |v| v["requests"][0]["steps"][1] = json!({}),
        "t.json: request 1, step 2: a step needs \"tool_calls\", a \"reply\", or both",
    );
    check(
        |v| v["facts"]["again"] = json!({"value": "K-77", "kind": "id"}),
        "t.json: two facts have the value \"K-77\"; give each fact its own",
    );
    check(
        |v| v["facts"]["changed"] = json!({"value": "the cart module", "kind": "artifact"}),
        "t.json: fact \"changed\" is an artifact (a file the agent changed), but its value \"the cart module\" is not a path: a path is one word, without spaces or line breaks",
    );
    check(
        |v| v["facts"]["code"]["kind"] = json!("colour"),
        "t.json:1:166: not a scenario: `colour` is not one of id, number, decision, path, artifact, command or detail",
    );
    check(
        |v| v["requests"][0]["before"] = json!([{"role": "tool", "tool_call_id": "c", "content": "x"}]),
        "t.json: request 1: before[0]: tool calls and tool results belong in steps, not in \"before\"",
    );
    check(
        |v| v["requests"][0]["user"] = json!(7),
        "t.json: request 1: \"user\" must be a string, an array of content parts, or null",
    );
    check(
        |v| v["tools"]["get"]["results"][0]["text"] = json!(7),
        "t.json: tool \"get\", result 1: \"text\" must be a string or null",
    );
    check(
        |v| v["requests"][0]["idle_s"] = json!(-5),
        "t.json: request 1: idle_s must be a number of seconds, 0 or more; got -5",
    );
    check(
        |v| v["tools"]["get"]["results"][0]["latency_s"] = json!(-0.5),
        "t.json: tool \"get\", result 1: latency_s must be a number of seconds, 0 or more; got -0.5",
    );
    check(
        |v| v["requests"][0]["steps"][0]["logged_usage"] = json!({"prompt_tokens": 10, "cached_tokens": 20}),
        "t.json: request 1, step 1: logged_usage: cached_tokens (20) and cache_write_tokens (0) add up to more than prompt_tokens (10)",
    );
    check(
        |v| v["requests"][0]["steps"][0]["repl"] = json!("x"),
        "t.json:1:252: not a scenario: unknown field `repl`; did you mean `reply`? (the fields are: tool_calls, reply, reply_pad, needs, extra, logged_usage)",
    );
}

#[test]
fn the_provider_rejects_a_broken_history() {
    let s = parse_scenario(&base().to_string(), "t.json", 0).expect("valid");
    let mut server = Provider::new(
        ScriptedModel::new(&s, 0),
        CounterKind::O200k.counter(),
        Server {
            window: 1000,
            overflow: Overflow::Reject,
            cache: CacheMode::None,
            latency: Latency::default(),
        },
    );
    let orphan: Vec<Message> = serde_json::from_value(json!([
        {"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "call_9", "content": "a result nobody asked for"}
    ]))
    .expect("messages");
    let request = ModelRequest {
        kind: CallKind::Agent,
        system: None,
        messages: &orphan,
        tools: &ctxbench_compact::tool_schemas::NO_TOOLS,
        request: 0,
        summary: None,
        at_s: 0.0,
        marks: None,
    };
    let err = server.complete(request).expect_err("rejected");
    assert!(matches!(err, ModelError::Pairing(_)), "{err}");
    // And the scripted model checks it too, on its own.
    let mut model = ScriptedModel::new(&s, 0);
    assert!(matches!(model.complete(request), Err(ModelError::Pairing(_))));
}
