//! Agents' own session logs (Claude Code's session JSONL, Codex's rollout JSONL) imported as
//! scenarios: each replays the logged model calls byte for byte, keeps each call's logged usage,
//! and every standard strategy runs on it.

use ctxbench_compact::wire::Format;
use ctxbench_harness::import::{ImportOptions, SessionLog, import_logged, read_session, session_log};
use serde_json::Value;

use crate::cmd::{ctxbench, read, scratch};
use crate::fixtures::fixture;

/// The session log of `name` in `tests/fixtures/sessions/`, read as `log`.
fn session(name: &str, log: SessionLog) -> (ctxbench_harness::import::LoggedConversation, Vec<String>) {
    let text = std::fs::read_to_string(fixture(&format!("sessions/{name}"))).expect("the fixture");
    assert_eq!(session_log(&text), Some(log), "{name} is recognised");
    read_session(&text, name, log).expect("a session log")
}

fn steps(scenario: &Value) -> Vec<Value> {
    scenario["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .flat_map(|r| r["steps"].as_array().cloned().unwrap_or_default())
        .collect()
}

#[test]
fn a_claude_code_session_replays_with_each_calls_usage() {
    let (conversation, notes) = session("claude-code.jsonl", SessionLog::ClaudeCode);
    assert_eq!(conversation.format, Format::Anthropic);
    assert!(
        notes.iter().any(|n| n.contains("1 API error lines left out")),
        "{notes:?}"
    );
    let done = import_logged(
        &conversation,
        "claude-code.jsonl",
        "claude-code",
        &ImportOptions::default(),
    )
    .expect("imports");
    // Nine replies (the API error line is none of them), replayed byte for byte.
    assert_eq!(done.fidelity.as_ref().map_err(ToString::to_string), Ok(&9));
    // The scenario says where it came from, and that its counts are an approximation.
    assert!(
        done.scenario["description"].as_str().is_some_and(|d| d.starts_with(
            "Imported from claude-code.jsonl (Anthropic Messages; its token counts are o200k's approximation of Anthropic's tokenizer): "
        )),
        "{}",
        done.scenario["description"]
    );
    assert_eq!(done.scenario["requests"].as_array().map(Vec::len), Some(2));
    let steps = steps(&done.scenario);
    // The reply Claude Code wrote as two lines with a result between them is one turn of two calls.
    let names = |s: &Value| {
        s["tool_calls"]
            .as_array()
            .map(|c| c.iter().map(|c| c["name"].clone()).collect::<Vec<_>>())
    };
    assert_eq!(names(&steps[1]), Some(vec!["Grep".into(), "Read".into()]));
    // Each call's usage, Anthropic's spelling (input_tokens leave the cache out): the fixture's
    // first reply logged 3 + 2,114 written + 13,820 read.
    let cache = done.cache.expect("the logged cache beside the simulated one");
    assert_eq!(cache.calls.len(), 9);
    assert_eq!(
        (
            cache.calls[0].0.prompt_tokens,
            cache.calls[0].0.cache_read_tokens,
            cache.calls[0].0.cache_write_tokens
        ),
        (Some(15_937), 13_820, 2_114)
    );
    assert_eq!(steps[0]["logged_usage"]["prompt_tokens"], 15_937);
}

#[test]
fn a_codex_rollout_replays_with_each_calls_usage() {
    let (conversation, _) = session("codex-rollout.jsonl", SessionLog::Codex);
    assert_eq!(conversation.format, Format::Responses);
    let done = import_logged(
        &conversation,
        "codex-rollout.jsonl",
        "codex-rollout",
        &ImportOptions::default(),
    )
    .expect("imports");
    assert_eq!(done.fidelity.as_ref().map_err(ToString::to_string), Ok(&8));
    // The base instructions are the system prompt; a free-form tool's input is its fixture's key.
    assert!(
        done.scenario["system"]
            .as_str()
            .is_some_and(|s| s.starts_with("You are Codex"))
    );
    let patches = done.scenario["tools"]["apply_patch"]["results"]
        .as_array()
        .expect("apply_patch's results");
    assert!(
        patches
            .iter()
            .all(|r| r["args"].as_str().is_some_and(|a| a.starts_with("*** Begin Patch")))
    );
    // Responses' spelling: input_tokens hold the cached ones (the second call: 6,016 of 6,950).
    let cache = done.cache.expect("the logged cache beside the simulated one");
    assert_eq!(cache.calls.len(), 8);
    assert_eq!(
        (cache.calls[1].0.prompt_tokens, cache.calls[1].0.cache_read_tokens),
        (Some(6_950), 6_016)
    );
}

#[test]
fn imported_sessions_run_every_strategy() {
    let dir = scratch("import-sessions");
    let out = dir.join("imported");
    let assert = ctxbench()
        .args([
            "import",
            "tests/fixtures/sessions/claude-code.jsonl",
            "tests/fixtures/sessions/codex-rollout.jsonl",
            "-o",
        ])
        .arg(&out)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    assert!(
        stdout.contains("claude-code.json: 2 requests, 9 model turns, 8 tool calls"),
        "{stdout}"
    );
    assert!(
        stdout.contains("codex-rollout.json: 2 requests, 8 model turns, 7 tool calls"),
        "{stdout}"
    );
    // Byte for byte as chat messages, and written in each agent's own format.
    assert!(
        stdout.contains("replays byte for byte (9 calls, as Anthropic Messages)")
            && stdout.contains("replays byte for byte (8 calls, as OpenAI Responses)"),
        "{stdout}"
    );
    // The replay's counts of the Claude Code session are o200k's approximation of Anthropic's.
    let lines: Vec<&str> = stdout.lines().filter(|l| l.contains("  cache hit rate: ")).collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(
        lines[0].ends_with("counted with o200k (≈ Anthropic's tokenizer)"),
        "{stdout}"
    );
    assert!(lines[1].ends_with("counted with o200k"), "{stdout}");
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(
        stderr.contains("read as a Claude Code session") && stderr.contains("read as a Codex rollout"),
        "{stderr}"
    );
    ctxbench().arg("validate").arg(&out).assert().success();
    let results = dir.join("results");
    // A window that binds: the Codex run reaches 8,656 tokens.
    ctxbench()
        .arg("compare")
        .arg(&out)
        .args(["--window", "6000", "--no-tune", "--seeds", "1", "-o"])
        .arg(&results)
        .assert()
        .success();
    let csv = String::from_utf8_lossy(&read(results.join("results.csv"))).into_owned();
    assert_eq!(
        csv.lines().count() - 1,
        2 * (ctxbench_harness::settings::STANDARD_STRATEGIES.len() + ctxbench_harness::settings::NATIVE_DEFAULTS.len()),
        "every standard strategy and native default on both"
    );
}

#[test]
fn anthropic_bodies_and_responses_inputs_import_too() {
    for (name, calls) in [("wire/anthropic-claude-code.json", 4), ("wire/responses-codex.json", 5)] {
        let text = std::fs::read_to_string(fixture(name)).expect("the fixture");
        let done = ctxbench_harness::import::import(&text, name, "body", &ImportOptions::default()).expect("imports");
        assert_eq!(
            done.fidelity.as_ref().map_err(ToString::to_string),
            Ok(&calls),
            "{name}"
        );
        assert_ne!(done.format, ctxbench_compact::wire::Format::Chat, "{name}");
    }
}

#[test]
fn format_names_what_a_body_does_not_say_and_must_agree_with_a_session_log() {
    let dir = scratch("import-format");
    // Plain strings: chat by their fields, Anthropic when named.
    let body = dir.join("plain.json");
    std::fs::write(
        &body,
        r#"[{"role":"user","content":"Where is order 12345?"},{"role":"assistant","content":"Order 12345 shipped."}]"#,
    )
    .expect("writes");
    let import = |format: Option<&str>| {
        let mut cmd = ctxbench();
        cmd.arg("import").arg(&body).arg("-o").arg(dir.join("out"));
        if let Some(format) = format {
            cmd.args(["--format", format]);
        }
        let output = cmd.output().expect("runs");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    assert!(import(None).contains("replays byte for byte (1 call)\n"));
    assert!(import(Some("anthropic")).contains("replays byte for byte (1 call, as Anthropic Messages)"));
    // A session log has its own format: another one named is said, and nothing is written.
    let out = dir.join("session-out");
    let output = ctxbench()
        .args([
            "import",
            "tests/fixtures/sessions/claude-code.jsonl",
            "--format",
            "responses",
            "-o",
        ])
        .arg(&out)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            "claude-code.jsonl is a Claude Code session, whose bodies are Anthropic Messages, not OpenAI Responses; leave --format out for it"
        ),
        "{stderr}"
    );
    assert!(!out.exists(), "nothing is written");
}
