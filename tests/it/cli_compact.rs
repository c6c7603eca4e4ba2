//! `ctxbench compact` as a user runs it: output shape, reports, and errors with exit code 2.

use serde_json::Value;

use crate::cmd::ctxbench;
use crate::fixtures;

fn fixture(name: &str) -> String {
    fixtures::fixture(name).display().to_string()
}

fn run(args: &[&str], stdin: &str) -> (i32, String, String) {
    let out = ctxbench().args(args).write_stdin(stdin).output().expect("runs");
    let text = |b: Vec<u8>| String::from_utf8(b).expect("UTF-8 output");
    (out.status.code().unwrap_or(-1), text(out.stdout), text(out.stderr))
}

#[test]
fn help_is_stable() {
    let (code, stdout, _) = run(&["compact", "--help"], "");
    assert_eq!(code, 0);
    insta::assert_snapshot!(stdout);
}

#[test]
fn compacts_a_request_body_in_its_own_shape() {
    let file = fixture("support-chat.json");
    let (code, stdout, stderr) = run(
        &[
            "compact",
            "--strategy",
            "truncate+drop",
            "--window",
            "1000",
            "--true-tokens",
            &file,
        ],
        "",
    );
    assert_eq!(code, 0, "{stderr}");
    // Without --true-tokens a chars4 run counts nothing exactly, and says so.
    let (_, _, quick) = run(
        &["compact", "--strategy", "truncate+drop", "--window", "1000", &file],
        "",
    );
    assert!(
        quick.contains("true tokens not counted (--true-tokens counts them with o200k)"),
        "{quick}"
    );
    let (_, _, json) = run(
        &[
            "compact",
            "--strategy",
            "truncate+drop",
            "--window",
            "1000",
            "--report",
            "json",
            &file,
        ],
        "",
    );
    let report: Value = serde_json::from_str(&json).expect("a JSON report");
    assert!(
        report["after"]["true"].is_null() && report["fits_window"].is_null(),
        "{report}"
    );
    let (_, _, exact) = run(
        &[
            "compact",
            "--strategy",
            "truncate+drop",
            "--window",
            "1000",
            "--estimator",
            "o200k",
            "--report",
            "json",
            &file,
        ],
        "",
    );
    let report: Value = serde_json::from_str(&exact).expect("a JSON report");
    assert_eq!(
        report["after"]["true"], report["after"]["estimated"],
        "free with an exact estimator"
    );
    let input: Value = serde_json::from_str(&std::fs::read_to_string(&file).expect("fixture")).expect("json");
    let output: Value = serde_json::from_str(&stdout).expect("stdout is JSON");
    let keys = |v: &Value| v.as_object().expect("object").keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&output), keys(&input), "same top-level fields, same order");
    for field in ["model", "temperature", "tools", "user"] {
        assert_eq!(output[field], input[field], "{field} copied unchanged");
    }
    let (before, after) = (
        input["messages"].as_array().unwrap().len(),
        output["messages"].as_array().unwrap().len(),
    );
    assert!(after < before, "{after} messages of {before}: something was dropped");
    insta::assert_snapshot!(stderr.replace(&file, "support-chat.json"));
}

#[test]
fn none_round_trips_verbatim() {
    for name in ["support-chat.json", "coding-agent.json"] {
        let file = fixture(name);
        let (code, stdout, stderr) = run(&["compact", "--strategy", "none", "--window", "100", &file], "");
        assert_eq!(code, 0, "{stderr}");
        let input: Value = serde_json::from_str(&std::fs::read_to_string(&file).expect("fixture")).expect("json");
        // Compact serialisations compare key order, nulls and raw argument strings too.
        assert_eq!(
            serde_json::from_str::<Value>(&stdout).expect("JSON").to_string(),
            input.to_string(),
            "{name}"
        );
    }
}

#[test]
fn json_report_has_every_field() {
    let stdin = std::fs::read_to_string(fixture("coding-agent.json")).expect("fixture");
    let (code, stdout, stderr) = run(
        &[
            "compact",
            "--strategy",
            "mask+drop",
            "--window",
            "8000",
            "--report",
            "json",
            "-",
        ],
        &stdin,
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.trim_start().starts_with('['), "a bare array stays a bare array");
    let report: Value = serde_json::from_str(stderr.trim()).expect("the report is one JSON object");
    let keys: Vec<&str> = report.as_object().expect("object").keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "format",
            "strategy",
            "estimator",
            "tokenizer",
            "true_tokens_approximate",
            "limit",
            "window",
            "threshold",
            "keep_recent_turns",
            "reply_reserve",
            "before",
            "after",
            "truncated",
            "dropped",
            "masked",
            "fits",
            "fits_window",
            "pairing_ok",
            "pending_calls",
        ]
    );
    assert_eq!(report["strategy"], "mask:m=10,trigger=threshold,style=ctxbench+drop");
    assert_eq!(report["limit"], 6400);
    assert_eq!(report["pending_calls"], 1, "the final pytest call has no result yet");
    assert_eq!(report["pairing_ok"], true);
    assert!(report["masked"].as_u64().expect("number") > 0);
    assert_eq!(
        report["fits"],
        report["after"]["estimated"].as_u64() <= report["limit"].as_u64()
    );
}

#[test]
fn bad_input_is_named_and_exits_2() {
    let calls = r#"{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]}"#;
    let cases: &[(&[&str], String, &str)] = &[
        (
            &["--window", "100"],
            "{\n  \"messages\": [\n    {\"role\": \"user\",}\n  ]\n}".into(),
            "error: <stdin>:3:21: invalid JSON: trailing comma",
        ),
        (
            &["--window", "100"],
            r#"[{"role":"robot","content":"x"}]"#.into(),
            "error: <stdin>: messages[0].role: unknown role \"robot\"",
        ),
        (
            &["--window", "100"],
            r#"[{"role":"user","content":"x"},{"role":"tool","tool_call_id":"a","content":"r"}]"#.into(),
            "error: <stdin>: messages[1]: tool result for \"a\" answers no call",
        ),
        (
            &["--window", "100"],
            format!(r#"[{{"role":"user","content":"x"}},{calls},{{"role":"user","content":"y"}}]"#),
            "error: <stdin>: messages[1]: tool call \"a\" has no result before messages[2]",
        ),
        (
            &["--window", "100"],
            r#"{"model":"x"}"#.into(),
            "error: <stdin>: top level: no \"messages\" or \"input\"",
        ),
        (
            &["--window", "100", "--strategy", "mask:q=1"],
            "[]".into(),
            "error: invalid --strategy: stage `mask` has no parameter `q`; its parameters: m, trigger",
        ),
        (
            &["--window", "100", "--threshold", "1.5"],
            "[]".into(),
            "error: invalid policy: the threshold must be in (0, 1]",
        ),
        (
            &["--window", "100", "--estimator", "usage"],
            "[]".into(),
            "error: --estimator usage reads the provider's count of an earlier call",
        ),
        (
            &["--window", "100", "--tokenizer", "chars4"],
            "[]".into(),
            "\"chars4\" is not a tokenizer; expected o200k or cl100k",
        ),
        (
            &["--window", "100", "no-such-file.json"],
            "".into(),
            "error: no-such-file.json: no such file or folder",
        ),
        (&[], "[]".into(), "--window <TOKENS>"),
    ];
    for (args, stdin, expect) in cases {
        let mut all = vec!["compact"];
        all.extend_from_slice(args);
        let (code, stdout, stderr) = run(&all, stdin);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(expect), "{args:?}: expected {expect:?} in\n{stderr}");
        assert!(stdout.is_empty(), "{args:?}: nothing half-written on stdout");
    }
}

#[test]
fn compacts_a_real_airline_conversation() {
    // The issue's own acceptance command.
    let file = fixture("traces/tau1-airline-gpt4o__task2__trial1.json");
    let (code, stdout, stderr) = run(
        &["compact", "--strategy", "truncate+drop", "--window", "8000", &file],
        "",
    );
    assert_eq!(code, 0, "{stderr}");
    let output: Value = serde_json::from_str(&stdout).expect("valid compacted JSON");
    assert!(output["messages"].as_array().is_some_and(|m| !m.is_empty()));
    for line in [
        "strategy  truncate:preview=150,trigger=threshold+drop",
        "before ",
        "after ",
        "pairing   ok",
    ] {
        assert!(stderr.contains(line), "{line:?} in\n{stderr}");
    }
}

#[test]
fn compacts_anthropic_and_responses_bodies_in_their_own_format() {
    for (name, format, key, wrong) in [
        ("wire/anthropic-claude-code.json", "anthropic", "messages", "responses"),
        ("wire/responses-codex.json", "responses", "input", "chat"),
    ] {
        let file = fixture(name);
        let args = [
            "compact",
            "--window",
            "3000",
            "--keep",
            "1",
            "--true-tokens",
            "--report",
            "json",
            &file,
        ];
        let (code, stdout, stderr) = run(&args, "");
        assert_eq!(code, 0, "{stderr}");
        let report: Value = serde_json::from_str(stderr.trim()).expect("a JSON report");
        assert_eq!(report["format"], format);
        assert_eq!(report["true_tokens_approximate"], format == "anthropic");
        assert!(report["truncated"].as_u64().expect("a count") > 0, "{report}");
        let out: Value = serde_json::from_str(&stdout).expect("the body");
        let original: Value = serde_json::from_str(&std::fs::read_to_string(&file).expect("reads")).expect("JSON");
        assert_eq!(
            out[key].as_array().map(Vec::len),
            original[key].as_array().map(Vec::len)
        );
        assert_eq!(out["tools"], original["tools"], "{name}: other fields unchanged");
        // Named, the same; named wrong, refused with the way out.
        let (code, named, _) = run(&[&args[..args.len() - 1], &["--format", format, &file]].concat(), "");
        assert_eq!((code, named), (0, stdout));
        let (code, _, stderr) = run(&["compact", "--window", "3000", "--format", wrong, &file], "");
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains("--format"), "{stderr}");
    }
    // The text report says the Anthropic count is o200k's approximation.
    let (code, _, stderr) = run(
        &[
            "compact",
            "--window",
            "3000",
            "--true-tokens",
            &fixture("wire/anthropic-claude-code.json"),
        ],
        "",
    );
    assert_eq!(code, 0);
    assert!(
        stderr.contains("format    anthropic") && stderr.contains("true (≈ o200k)"),
        "{stderr}"
    );
}

#[test]
fn a_summary_given_with_summary_puts_that_text_in_place_and_none_is_refused_with_the_flag_named() {
    let file = fixture("support-chat.json");
    let (code, _, err) = run(&["compact", "--strategy", "summarize", "--window", "400", &file], "");
    assert_eq!(code, 2);
    assert!(err.contains("give its text with --summary TEXT"), "{err}");
    let text = "Summary: order 4471 shipped; the customer wants a refund.";
    for strategy in ["summarize", "truncate+summarize", "claude-code"] {
        let (code, out, err) = run(
            &[
                "compact",
                "--strategy",
                strategy,
                "--window",
                "400",
                "--summary",
                text,
                &file,
            ],
            "",
        );
        assert_eq!(code, 0, "{strategy}: {err}");
        let body: Value = serde_json::from_str(&out).expect("a body");
        let messages = body["messages"].as_array().expect("messages");
        assert!(
            messages
                .iter()
                .any(|m| m["content"].as_str().is_some_and(|c| c.contains(text))),
            "{strategy}: the summary is in the history: {out}"
        );
    }
}
