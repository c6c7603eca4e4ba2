//! `serve` in Anthropic's and OpenAI Responses' wire formats: `run --endpoint --api` through them
//! gives the run in process, call by call, and answers and errors take each API's shapes.

use std::process::Command;

use serde_json::{Value, json};

use crate::cmd::{ctxbench, read, scratch};
use crate::serve::{Served, get, post};

const SCENARIO: &str = "scenarios/bike-shop-return.json";
const FIRST: &str = "Hi! My order #4471 came with a bent front wheel. Can you help?";

#[test]
fn runs_in_each_format_equal_the_run_in_process() {
    let dir = scratch("serve-formats");
    let served = Served::start(SCENARIO, &dir.join("serve"), &["--cache", "breakpoints"]);
    for api in ["anthropic", "responses"] {
        for strategy in ["none", "truncate+drop", "summarize"] {
            let local = dir.join("local.jsonl");
            let live = dir.join(format!("live-{api}.jsonl"));
            ctxbench()
                .args([
                    "run",
                    SCENARIO,
                    "--cache",
                    "breakpoints",
                    "--strategy",
                    strategy,
                    "--trace",
                ])
                .arg(&local)
                .assert()
                .success();
            ctxbench()
                .args(["run", SCENARIO, "--cache", "breakpoints", "--strategy", strategy])
                .args(["--model", "scripted", "--api", api, "--trace"])
                .arg(&live)
                .arg("--endpoint")
                .arg(format!("{}/v1", served.url))
                .assert()
                .success();
            // Which cache writes no later call read is the simulated server's to know, once the
            // run ends; a live client is told what each call read and wrote, and no more.
            let local = String::from_utf8_lossy(&read(&local)).into_owned();
            let unread = local.contains("\"cache_write_unread_tokens\"");
            let local: Vec<Value> = local
                .lines()
                .map(|l| {
                    let mut record: Value = serde_json::from_str(l).unwrap();
                    record.as_object_mut().unwrap().remove("cache_write_unread_tokens");
                    record
                })
                .collect();
            let live: Vec<Value> = String::from_utf8_lossy(&read(&live))
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            assert_eq!(live, local, "{api} {strategy}: the same trace, call by call");
            assert!(unread, "a breakpoint cache's last write is never read");
        }
    }
    // The Anthropic requests carried their own cache_control marks, and the cache read them.
    let trace = String::from_utf8_lossy(&read(dir.join("live-anthropic.jsonl"))).into_owned();
    let reads: u64 = trace
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["cache_read_tokens"]
                .as_u64()
                .unwrap()
        })
        .sum();
    assert!(reads > 0, "{trace}");
    let said = served.stop();
    // Each run says the format it was served in, and an Anthropic run's counts are o200k's
    // approximation, said.
    let results: Value = serde_json::from_slice(&read(dir.join("serve/results.json"))).expect("JSON");
    let formats: Vec<&str> = results["results"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r["format"].as_str().unwrap_or("none"))
        .collect();
    assert_eq!(
        formats,
        ["anthropic"; 3].into_iter().chain(["responses"; 3]).collect::<Vec<_>>()
    );
    let csv = String::from_utf8_lossy(&read(dir.join("serve/results.csv"))).into_owned();
    // The loop's own columns, then the run's label and its format: a row `gate` and `merge` read.
    assert!(csv.starts_with("scenario,strategy,window,"), "{csv}");
    assert!(
        csv.lines().next().unwrap_or("").contains(",seed,run,format,requests,"),
        "{csv}"
    );
    assert!(
        said.contains("note: the token figures of runs in Anthropic Messages are o200k's approximation"),
        "{said}"
    );
}

#[test]
fn answers_and_errors_take_each_apis_shapes() {
    let dir = scratch("serve-format-shapes");
    let served = Served::start(
        SCENARIO,
        &dir.join("serve"),
        &["--window", "300", "--max-body-mib", "1"],
    );
    let messages = format!("{}/v1/messages", served.url);
    let responses = format!("{}/v1/responses", served.url);
    let user = |text: &str| json!({"role": "user", "content": [{"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}]});

    // Anthropic: a message of blocks, its usage in Anthropic's three parts.
    let body = json!({"model": "m", "max_tokens": 100, "system": [{"type": "text", "text": "be brief"}], "messages": [user(FIRST)]});
    let (status, reply) = post(&messages, &body.to_string(), &[]);
    assert_eq!((status, reply["type"].as_str()), (200, Some("message")), "{reply}");
    assert_eq!(reply["stop_reason"], "tool_use");
    let call = reply["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["type"] == "tool_use")
        .expect("a tool_use block");
    assert!(call["input"].is_object() && call["id"].is_string(), "{call}");
    let usage = &reply["usage"];
    for key in [
        "input_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
        "output_tokens",
    ] {
        assert!(usage[key].is_u64(), "{key} in {usage}");
    }

    // The answer echoed, a result that answers it, and the reply after.
    let result = json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": call["id"], "content": "Order #4471: one road bike, delivered."}]});
    let turn = json!({"role": "assistant", "content": reply["content"]});
    let next = json!({"model": "m", "max_tokens": 100, "messages": [user(FIRST), turn, result]});
    let (status, reply) = post(&messages, &next.to_string(), &[]);
    assert_eq!(status, 200, "{reply}");

    // Over the window: Anthropic's words, which the client side reads back.
    let long = json!({"model": "m", "max_tokens": 100, "messages": [user(FIRST), {"role": "assistant", "content": "x ".repeat(400)}, user(FIRST)]});
    let (status, error) = post(&messages, &long.to_string(), &[]);
    assert_eq!((status, error["type"].as_str()), (400, Some("error")), "{error}");
    assert_eq!(error["error"]["type"], "invalid_request_error");
    let said = error["error"]["message"].as_str().unwrap();
    assert!(
        said.starts_with("prompt is too long: ") && said.ends_with(" tokens > 300 maximum"),
        "{said}"
    );

    // A result that answers no call of the turn before is refused at its place.
    let stray = json!({"messages": [user(FIRST), {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_nope", "content": "?"}]}]});
    let (status, error) = post(&messages, &stray.to_string(), &[]);
    assert_eq!(
        (status, error["error"]["type"].as_str()),
        (400, Some("invalid_request_error"))
    );
    assert!(
        error["error"]["message"].as_str().unwrap().contains("messages[1]"),
        "{error}"
    );
    for garbage in [
        "",
        "{\"messages\": 7}",
        "{\"model\": \"m\"}",
        "{\"messages\": [], \"stream\": true}",
    ] {
        let (status, error) = post(&messages, garbage, &[]);
        assert_eq!(
            (status, error["type"].as_str()),
            (400, Some("error")),
            "{garbage:?}: {error}"
        );
    }
    let huge = format!("{{\"messages\": [], \"pad\": \"{}\"}}", "x".repeat(1_100_000));
    let (status, error) = post(&messages, &huge, &[]);
    assert_eq!(
        (status, error["error"]["type"].as_str()),
        (413, Some("request_too_large"))
    );
    assert_eq!(get(&messages).0, 405);

    // Responses: a response whose output holds the call, usage in input and output tokens.
    let body = json!({"model": "m", "input": FIRST, "user": "responses"});
    let (status, reply) = post(&responses, &body.to_string(), &[]);
    assert_eq!((status, reply["object"].as_str()), (200, Some("response")), "{reply}");
    let output = reply["output"].as_array().unwrap();
    let call = output
        .iter()
        .find(|i| i["type"] == "function_call")
        .expect("a function_call item");
    assert!(call["call_id"].is_string() && call["arguments"].is_string() && call["id"].is_string());
    assert!(
        reply["usage"]["input_tokens"].is_u64() && reply["usage"]["input_tokens_details"]["cached_tokens"].is_u64()
    );
    let long = json!({"input": [{"role": "user", "content": FIRST}, {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "x ".repeat(400)}]}, {"role": "user", "content": FIRST}]});
    let (status, error) = post(&responses, &long.to_string(), &[]);
    assert_eq!(
        (status, error["error"]["code"].as_str()),
        (400, Some("context_length_exceeded")),
        "{error}"
    );
    let orphan = json!({"input": [{"role": "user", "content": FIRST}, {"type": "function_call_output", "call_id": "call_nope", "output": "?"}]});
    let (status, error) = post(&responses, &orphan.to_string(), &[]);
    assert_eq!(
        (status, error["error"]["type"].as_str()),
        (400, Some("invalid_request_error")),
        "{error}"
    );

    let (_, report) = get(&format!("{}/ctxbench/report", served.url));
    assert!(
        report["runs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["run"] == "responses"),
        "{report}"
    );
    served.stop();
}

/// A Python with `package` importable (`CTXBENCH_PYTHON`, else `python3`), or `None`, said.
pub fn python_with(package: &str) -> Option<String> {
    let python = std::env::var("CTXBENCH_PYTHON").unwrap_or_else(|_| "python3".into());
    let has = Command::new(&python)
        .args(["-c", &format!("import {package}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has {
        eprintln!(
            "skipped: {python} has no `{package}` package (pip install {package}, or set CTXBENCH_PYTHON to a Python that has it)"
        );
    }
    has.then_some(python)
}

/// Runs `python ARGS` from the repository; its stdout, once it exited 0 (else the test fails,
/// with what it said).
pub fn run_python(python: &str, args: &[&str], what: &str) -> String {
    let out = Command::new(python)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{what}: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The Python loop of `examples/agent.py` over chat and over Responses (official `openai`
/// package), and `examples/agent_anthropic.py` (official `anthropic` package), against one
/// `serve` with Anthropic's cache: the same compaction in each format, and the same figures.
#[test]
fn the_official_clients_measure_alike_in_every_format() {
    let (Some(python), Some(_)) = (python_with("openai"), python_with("anthropic")) else {
        return;
    };
    let dir = scratch("serve-python-formats");
    // Anthropic's cache with a 64-token minimum, so that this small scenario's prompts are cached.
    let served = Served::start(SCENARIO, &dir.join("serve"), &["--cache", "breakpoints:min=64"]);
    let base = format!("{}/v1", served.url);
    let runs: [(&str, &[&str]); 3] = [
        ("chat", &["examples/agent.py", SCENARIO, "--base-url", &base]),
        (
            "responses",
            &["examples/agent.py", SCENARIO, "--api", "responses", "--base-url", &base],
        ),
        (
            "anthropic",
            &["examples/agent_anthropic.py", SCENARIO, "--base-url", &served.url],
        ),
    ];
    for (user, args) in runs {
        let args: Vec<&str> = args
            .iter()
            .copied()
            .chain(["--budget", "150", "--user", user])
            .collect();
        let stdout = run_python(&python, &args, user);
        assert!(stdout.contains("tool: create_return"), "{user}: {stdout}");
    }
    let (_, report) = get(&format!("{}/ctxbench/report", served.url));
    let runs = report["runs"].as_array().expect("runs");
    let figures = |user: &str| runs.iter().find(|r| r["run"] == user).map(|r| r["figures"].clone());
    let chat = figures("chat").expect("the chat run");
    assert_eq!(chat["completed"], true, "{chat}");
    assert!(chat["prefix_breaks"].as_u64() > Some(0), "the loop compacted: {chat}");
    assert!(
        chat["cache_read_tokens"].as_u64() > Some(0),
        "the cache was read: {chat}"
    );
    assert_eq!(figures("responses"), Some(chat.clone()), "Responses, the same figures");
    assert_eq!(
        figures("anthropic"),
        Some(chat),
        "Anthropic, its own marks read, the same figures"
    );
    served.stop();
}
