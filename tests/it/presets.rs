//! The presets as a user meets them: `ctxbench presets` lists each with its sources; each runs
//! on every bundled scenario with every request writable in all three wire formats under their
//! rules; a compaction call is billed as its own line and figures; the verdict names the native
//! defaults; bad parameters are refused in words.

use std::path::Path;

use ctxbench_compact::compact::PRESETS;
use ctxbench_compact::wire::{self, Format, body_from_chat};
use ctxbench_harness::agent::model::{Model, ModelError, ModelReply, ModelRequest};
use ctxbench_harness::run::run_with_model;
use ctxbench_harness::scenario::{files_in, load_scenario};
use ctxbench_harness::settings::{NATIVE_DEFAULTS, RunSettings};
use ctxbench_harness::sim::scripted::ScriptedModel;
use ctxbench_harness::trace::{CallKind, Outcome};
use serde_json::Value;

use crate::cmd::{ctxbench, read, scratch};

fn bundled() -> Vec<std::path::PathBuf> {
    files_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios")).expect("the bundled scenarios")
}

#[test]
fn presets_lists_every_preset_with_its_sources_and_assumptions() {
    let output = ctxbench().arg("presets").output().expect("runs");
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    for info in PRESETS {
        assert!(text.contains(&format!("\n{}\n", info.name)), "{}", info.name);
        for p in info.params {
            assert!(
                text.contains(&format!("{}={}", p.key, (p.default)())),
                "{}.{}",
                info.name,
                p.key
            );
        }
    }
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(
        words.matches("checked 2026-12-06)").count(),
        PRESETS.iter().map(|p| p.sources.len()).sum::<usize>(),
        "every source with its date"
    );
    assert!(text.contains("secondary") && text.contains("primary"));
    assert_eq!(
        text.matches("assumptions (ctxbench's choices where the sources are silent):")
            .count(),
        PRESETS.len()
    );
    // One, with what it runs as.
    let output = ctxbench().args(["presets", "claude-code"]).output().expect("runs");
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    assert!(text.contains("runs as: summarize:keep=id/number/decision/path,ratio=0.1,trigger=reported>=167000/200000"));
    let output = ctxbench().args(["presets", "claude"]).output().expect("runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no preset `claude`; did you mean `claude-code`?"));
}

/// The scripted model, with every request it receives written in Anthropic's and OpenAI
/// Responses' form and checked against that API's rules.
struct EveryFormat<'a>(ScriptedModel<'a>);

impl Model for EveryFormat<'_> {
    fn complete(&mut self, request: ModelRequest<'_>) -> Result<ModelReply, ModelError> {
        for format in [Format::Anthropic, Format::Responses] {
            let body = body_from_chat(format, request.system, request.messages, &[]);
            let list = body
                .get(format.list_key())
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            if let Err(e) = wire::check(format, &list) {
                return Err(ModelError::Other(format!("{format}: {e:?}")));
            }
        }
        self.0.complete(request)
    }
}

#[test]
fn every_preset_runs_on_every_bundled_scenario_in_every_format() {
    let files = bundled();
    assert!(files.len() >= 11);
    for file in &files {
        let scenario = load_scenario(file, 0).unwrap_or_else(|e| panic!("{e}"));
        for info in PRESETS {
            let settings = RunSettings::new(info.name.parse().expect("a preset"));
            let model = EveryFormat(ScriptedModel::new(&scenario, 0));
            let run = run_with_model(&scenario, &settings, model, &mut |_| {}).expect("runs");
            let broken: Vec<&str> = run
                .trace
                .iter()
                .filter(|r| matches!(r.outcome, Outcome::PairingError | Outcome::Error))
                .map(|_| run.stopped.as_deref().unwrap_or(""))
                .collect();
            assert!(broken.is_empty(), "{} on {}: {broken:?}", info.name, scenario.name);
            assert_eq!(run.metrics.pairing_errors, 0, "{} on {}", info.name, scenario.name);
        }
    }
}

#[test]
fn a_compaction_call_is_a_line_of_its_own_and_billed_as_its_figures() {
    let scenario = load_scenario(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/long-support-chat.json"),
        0,
    )
    .expect("loads");
    let mut read_the_cache = Vec::new();
    for preset in [
        "claude-code",
        "codex",
        "anthropic-compact",
        "langchain-summarization",
        "summarize",
    ] {
        let settings = RunSettings::new(preset.parse().expect("a strategy"));
        let run = ctxbench_harness::run::run_scenario(&scenario, &settings, &mut |_| {}).expect("runs");
        let summaries: Vec<_> = run.trace.iter().filter(|r| r.kind == CallKind::Summary).collect();
        assert!(!summaries.is_empty(), "{preset} compacts on the long chat");
        assert!(
            summaries.iter().all(|r| r.turn == 0 && r.compaction.is_none()),
            "{preset}"
        );
        let m = &run.metrics;
        let ok: Vec<_> = summaries.iter().filter(|r| r.outcome == Outcome::Ok).collect();
        assert_eq!(m.compaction_calls, ok.len(), "{preset}");
        assert_eq!(
            m.compaction_input_tokens,
            ok.iter().map(|r| r.billed_tokens).sum::<u64>(),
            "{preset}"
        );
        assert_eq!(
            m.compaction_output_tokens,
            ok.iter().map(|r| r.completion_tokens).sum::<u64>()
        );
        assert_eq!(
            m.compaction_cache_read_tokens,
            ok.iter().map(|r| r.cache_read_tokens).sum::<u64>()
        );
        // Inside the bill: every call's cost, summaries too.
        let cost: f64 = run.trace.iter().filter_map(|r| r.cost_usd).sum();
        assert!((m.cost_usd.expect("priced") - cost).abs() < 1e-9, "{preset}");
        assert!(ok.iter().all(|r| r.cost_usd.is_some_and(|c| c > 0.0)), "{preset}");
        read_the_cache.push((preset, m.compaction_cache_read_tokens));
    }
    // A summarizer that reads the agent's own request reads its cached prefix (Claude Code's,
    // Anthropic's); one with a prompt of its own reads none (LangChain's, ctxbench's); Codex's
    // sends no tools, so misses the prefix the tools begin.
    let reads = |p: &str| {
        read_the_cache
            .iter()
            .find(|(q, _)| *q == p)
            .map(|(_, n)| *n)
            .unwrap_or(0)
    };
    assert!(
        reads("claude-code") > 0 && reads("anthropic-compact") > 0,
        "{read_the_cache:?}"
    );
    assert_eq!(reads("langchain-summarization"), 0);
    assert_eq!(reads("summarize"), 0);
    assert_eq!(reads("codex"), 0);
}

#[test]
fn the_bundled_verdicts_name_the_native_defaults() {
    let dir = scratch("presets-verdicts");
    let output = ctxbench()
        .args(["compare", "--no-plots", "--out"])
        .arg(&dir)
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let verdict: Value = serde_json::from_slice(&read(dir.join("verdict.json"))).expect("JSON");
    let lines: Vec<&str> = verdict["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .filter_map(|s| s["verdict"].as_str())
        .collect();
    for native in ["claude-code", "codex", "anthropic-compact"] {
        assert!(
            lines
                .iter()
                .any(|l| l.contains("against the native defaults") && l.contains(native)),
            "{native} named in a verdict line"
        );
    }
    // With the pick's saving or loss against each: `N% cheaper than claude-code, …`.
    assert!(
        lines
            .iter()
            .any(|l| l.contains("cheaper than claude-code") || l.contains("dearer than claude-code")),
        "{lines:?}"
    );
    // verdict.json says the same for machines.
    let scenarios = verdict["scenarios"].as_array().expect("scenarios");
    let natives: Vec<&Value> = scenarios
        .iter()
        .filter_map(|s| s["natives"].as_array())
        .flatten()
        .collect();
    assert!(
        natives
            .iter()
            .any(|n| n["spend_change"].is_number() && n["facts_lost_change"].is_number())
    );
    for native in NATIVE_DEFAULTS {
        assert!(stdout.contains(native), "{native} ran");
    }
    assert!(stdout.contains("recommendation:") && stdout.contains("against the native defaults"));
    // The settings say the presets ran untuned (in summary.md: the terminal's line names only
    // what differs from the defaults).
    let summary = String::from_utf8(read(dir.join("summary.md"))).expect("UTF-8");
    assert!(summary.contains("each preset as its vendor sets it"), "{summary}");
}

#[test]
fn bad_preset_parameters_are_refused_in_words() {
    let cases: [(&[&str], &str); 4] = [
        (
            &[
                "run",
                "scenarios/bike-shop-return.json",
                "--strategy",
                "claude-code:reserve=5",
            ],
            "preset `claude-code` has no parameter `reserve`; its parameters: max_output, native, files, file_tokens, pct",
        ),
        (
            &[
                "run",
                "scenarios/bike-shop-return.json",
                "--strategy",
                "anthropic-compact:trigger=20000",
            ],
            "anthropic-compact.trigger must be at least 50000 (Anthropic's minimum for compact_20260112), not 20000",
        ),
        (
            &[
                "compare",
                "scenarios/bike-shop-return.json",
                "--strategies",
                "codex+drop",
            ],
            "`codex` is a preset (a compactor as its vendor runs it); it cannot be part of a pipeline",
        ),
        (
            &["serve", "scenarios/bike-shop-return.json", "--strategy", "claude-code"],
            "claude-code compacts in the client, not on the server",
        ),
    ];
    for (args, words) in cases {
        let output = ctxbench().args(args).output().expect("runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(words), "{args:?}: {stderr}");
    }
}
