//! `serve` managing the context as Anthropic's and OpenAI's servers do, driven by the official
//! `anthropic` and `openai` Python packages (`examples/server_compaction.py`): every reply
//! parsed by them, streamed or not, and the served run's figures equal to the run in process
//! with the preset that simulates the same edit. Refusals in each API's shape.

use std::path::Path;

use ctxbench_harness::report::read_csv;
use ctxbench_harness::run::run_scenario;
use ctxbench_harness::scenario::load_scenario;
use ctxbench_harness::settings::RunSettings;
use serde_json::{Value, json};

use crate::cmd::{ctxbench, read, scratch};
use crate::serve::{Served, post};
use crate::serve_formats::{python_with, run_python};

/// The figures of the run in process of `scenario` with `preset`, as `results.csv` writes them.
fn in_process(scenario: &str, preset: &str) -> Value {
    let s = load_scenario(&Path::new(env!("CARGO_MANIFEST_DIR")).join(scenario), 0).expect("loads");
    let run = run_scenario(&s, &RunSettings::new(preset.parse().expect("a preset")), &mut |_| {}).expect("runs");
    serde_json::to_value(run.metrics).expect("JSON")
}

#[test]
fn the_official_clients_have_the_server_compact_as_the_loop_does() {
    let Some(python) = python_with("anthropic").and(python_with("openai")) else {
        return;
    };
    let cases: [(&str, &str, &[&str], &str); 7] = [
        (
            "scenarios/long-support-chat.json",
            "anthropic compact",
            &["--api", "anthropic", "--edit", "compact"],
            "anthropic-compact",
        ),
        (
            "scenarios/long-support-chat.json",
            "anthropic compact streamed",
            &["--api", "anthropic", "--edit", "compact", "--stream"],
            "anthropic-compact",
        ),
        (
            "scenarios/long-support-chat.json",
            "anthropic compact paused",
            &["--api", "anthropic", "--edit", "compact", "--pause"],
            "anthropic-compact",
        ),
        (
            "scenarios/long-support-chat.json",
            "responses compact",
            &["--api", "responses", "--edit", "compact"],
            "openai-compact",
        ),
        (
            "scenarios/long-support-chat.json",
            "responses compact streamed",
            &["--api", "responses", "--edit", "compact", "--stream"],
            "openai-compact",
        ),
        (
            "scenarios/parallel-calls.json",
            "anthropic clear",
            &["--api", "anthropic", "--edit", "clear"],
            "anthropic-clear",
        ),
        (
            "scenarios/parallel-calls.json",
            "anthropic clear streamed",
            &["--api", "anthropic", "--edit", "clear", "--stream"],
            "anthropic-clear",
        ),
    ];
    for scenario in ["scenarios/long-support-chat.json", "scenarios/parallel-calls.json"] {
        let dir = scratch(&format!("serve-context-{}", scenario.len()));
        let served = Served::start(scenario, &dir, &[]);
        let mine: Vec<_> = cases.iter().filter(|c| c.0 == scenario).collect();
        for (_, label, args, _) in &mine {
            let mut argv = vec![
                "examples/server_compaction.py",
                scenario,
                "--base-url",
                &served.url,
                "--user",
                label,
            ];
            argv.extend_from_slice(args);
            let stdout = run_python(&python, &argv, label);
            assert!(!stdout.contains("rejected"), "{label}: {stdout}");
            if label.contains("compact") {
                assert!(
                    stdout.contains("done: 1 compactions by the server"),
                    "{label}: {stdout}"
                );
            }
            if label.contains("paused") {
                assert!(stdout.contains("paused after the compaction"), "{label}: {stdout}");
            }
            if label.contains("clear") {
                assert!(
                    stdout.contains("'type': 'clear_tool_uses_20250919'"),
                    "{label}: {stdout}"
                );
            }
        }
        served.stop();
        let text = String::from_utf8(read(dir.join("results.csv"))).expect("UTF-8");
        let rows = read_csv(&text).expect("reads");
        for (_, label, _, preset) in &mine {
            let row = rows
                .iter()
                .find(|r| r.settings.run.as_deref() == Some(label))
                .unwrap_or_else(|| panic!("{label} has a row"));
            assert_eq!(
                row.settings.strategy.to_string().split(':').next(),
                Some(*preset),
                "{label}"
            );
            let served = serde_json::to_value(&row.metrics).expect("JSON");
            assert_eq!(
                served,
                in_process(scenario, preset),
                "{label}: the served figures are the loop's"
            );
        }
    }
}

#[test]
fn responses_compact_answers_as_the_api_does() {
    let Some(python) = python_with("openai") else {
        return;
    };
    let dir = scratch("serve-responses-compact");
    let served = Served::start("scenarios/long-support-chat.json", &dir, &[]);
    let stdout = run_python(
        &python,
        &[
            "examples/server_compaction.py",
            "scenarios/long-support-chat.json",
            "--base-url",
            &served.url,
            "--api",
            "responses",
            "--compact-endpoint",
        ],
        "/responses/compact",
    );
    // The user's messages, then one compaction item, as OpenAI's `CompactedResponse` holds them.
    let line = stdout
        .lines()
        .find(|l| l.starts_with("/responses/compact:"))
        .expect("its line");
    assert!(
        line.starts_with("/responses/compact: response.compaction, output ['message', "),
        "{line}"
    );
    assert!(line.contains("'message', 'compaction'], usage "), "{line}");
    served.stop();
    // Its summary call is billed in the conversation's run.
    let rows = read_csv(&String::from_utf8(read(dir.join("results.csv"))).expect("UTF-8")).expect("reads");
    assert_eq!(rows.len(), 1);
    assert_eq!(
        rows[0].metrics.compaction_calls, 2,
        "the server's compaction, then the one asked for"
    );
}

#[test]
fn context_management_the_api_would_refuse_is_refused_in_its_shape() {
    let dir = scratch("serve-context-errors");
    let served = Served::start(
        "scenarios/bike-shop-return.json",
        &dir,
        &["--strategy", "anthropic-compact"],
    );
    let messages =
        json!([{"role": "user", "content": "Hi! My order #4471 came with a bent front wheel. Can you help?"}]);
    let anthropic = |edits: Value, beta: &str| {
        let body =
            json!({"model": "m", "max_tokens": 100, "messages": messages, "context_management": {"edits": edits}});
        post(
            &format!("{}/v1/messages", served.url),
            &body.to_string(),
            &[("anthropic-beta", beta)],
        )
    };
    let both = "compact-2026-01-12,context-management-2025-06-27";
    let cases = [
        (
            anthropic(
                json!([{"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 1000}}]),
                both,
            ),
            "context_management.edits.0.trigger.value: the value must be at least 50000",
        ),
        (
            anthropic(json!([{"type": "compact_20260112"}]), "context-management-2025-06-27"),
            "requires the beta header `anthropic-beta: compact-2026-01-12`",
        ),
        (
            anthropic(
                json!([{"type": "clear_tool_uses_20250919", "keep": {"type": "turns", "value": 2}}]),
                both,
            ),
            "context_management.edits.0.keep.type: \"turns\"; expected \"tool_uses\"",
        ),
        (
            anthropic(json!([{"type": "summarize_20990101"}]), both),
            "unknown edit \"summarize_20990101\"",
        ),
    ];
    for ((status, body), words) in cases {
        assert_eq!(status, 400, "{body}");
        assert_eq!(body["type"], "error", "Anthropic's shape: {body}");
        assert_eq!(body["error"]["type"], "invalid_request_error");
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(words), "{message}");
    }
    // OpenAI's shape, on the routes of its APIs.
    let (status, body) = post(
        &format!("{}/v1/responses", served.url),
        &json!({"model": "m", "input": "Hi! My order #4471 came with a bent front wheel. Can you help?",
                "context_management": [{"type": "compaction", "compact_threshold": -5}]})
        .to_string(),
        &[],
    );
    assert_eq!(status, 400);
    assert_eq!(
        body["error"]["param"], "context_management[0].compact_threshold",
        "{body}"
    );
    // `serve --strategy anthropic-compact` is Anthropic's: a Responses request without its own
    // context management is told so.
    let (status, body) = post(
        &format!("{}/v1/responses", served.url),
        &json!({"model": "m", "input": "Hi! My order #4471 came with a bent front wheel. Can you help?"}).to_string(),
        &[],
    );
    assert_eq!(status, 400);
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("anthropic-compact is the Anthropic Messages API's"),
        "{message}"
    );
    let (status, body) = post(
        &format!("{}/v1/chat/completions", served.url),
        &json!({"model": "m", "messages": messages, "context_management": [{"type": "compaction"}]}).to_string(),
        &[],
    );
    assert_eq!(status, 400);
    assert_eq!(body["error"]["param"], "context_management", "{body}");
    served.stop();
    // The CLI refuses a preset no server makes before it listens.
    let output = ctxbench()
        .args(["serve", "scenarios/bike-shop-return.json", "--strategy", "codex"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("codex compacts in the client, not on the server"));
}
