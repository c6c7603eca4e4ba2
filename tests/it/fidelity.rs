//! Fidelity (DESIGN §23): a failed summary never ends a run by itself, compaction loops are
//! counted and named, and a summary placed before content that did not change throws away
//! cache that one placed after it keeps.

use std::path::Path;

use ctxbench_harness::agent::model::{Model, ModelError, ModelReply, ModelRequest};
use ctxbench_harness::metrics::RunMetrics;
use ctxbench_harness::run::{run_scenario, run_with_model};
use ctxbench_harness::scenario::{Scenario, load_scenario};
use ctxbench_harness::settings::RunSettings;
use ctxbench_harness::sim::profile::Summarizer;
use ctxbench_harness::sim::scripted::ScriptedModel;
use ctxbench_harness::trace::CallKind;

use crate::cmd::{ctxbench, scratch};

fn scenario(path: &str, seed: u64) -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    load_scenario(&path, seed).unwrap_or_else(|e| panic!("{e}"))
}

fn settings(strategy: &str) -> RunSettings {
    RunSettings::new(strategy.parse().unwrap_or_else(|e| panic!("{strategy}: {e}")))
}

fn run(s: &Scenario, settings: &RunSettings) -> RunMetrics {
    run_scenario(s, settings, &mut |_| {}).expect("a window").metrics
}

const SEEDS: u64 = 40;

/// Each summary of everything but the last two requests, as Claude Code and LangChain summarize.
const SUMMARIZE: &str = "summarize:tail=requests:2";

/// The claim-reference probe under a summarizer profile, `summarize` over the seeds.
fn claim_runs(profile: &str) -> Vec<RunMetrics> {
    (0..SEEDS)
        .map(|seed| {
            let s = scenario("scenarios/probes/claim-reference.json", seed);
            let settings = RunSettings {
                seed,
                summarizer: profile.parse::<Summarizer>().expect("a shipped profile"),
                ..settings(SUMMARIZE)
            };
            run(&s, &settings)
        })
        .collect()
}

#[test]
fn about_twenty_summaries_and_failed_calls_never_end_a_run() {
    let published = claim_runs("published");
    let summaries: usize = published.iter().map(|m| m.compaction_calls).sum();
    let mean = summaries as f64 / SEEDS as f64;
    println!("summaries a run (published): {mean:.1}");
    assert!(
        (15.0..=30.0).contains(&mean),
        "about twenty summaries a run, not {mean}"
    );
    // Some summary calls failed (fail 0.01 a call), and were retried...
    let failures: usize = published.iter().map(|m| m.compaction_failures).sum();
    let retries: usize = published.iter().map(|m| m.compaction_retries).sum();
    println!("failed summary calls: {failures}, retries: {retries}");
    assert!(
        failures > 0 && retries > 0,
        "the probe must draw failures to show anything"
    );
    // ...and every seed reached the last request and the need in it.
    for (seed, m) in published.iter().enumerate() {
        assert!(m.completed, "seed {seed} stopped early");
        assert_eq!(m.needs_unreached, 0, "seed {seed} never reached the need");
    }
}

#[test]
fn a_pessimistic_summarizer_loses_at_least_as_many_facts_as_an_optimistic_one() {
    let lost = |runs: &[RunMetrics]| runs.iter().map(RunMetrics::facts_missed).sum::<usize>();
    let (optimistic, pessimistic) = (claim_runs("optimistic"), claim_runs("pessimistic"));
    println!(
        "claim lost: optimistic {} of {SEEDS} seeds, pessimistic {} of {SEEDS}",
        lost(&optimistic),
        lost(&pessimistic)
    );
    assert!(pessimistic.iter().all(|m| m.completed && m.needs_unreached == 0));
    assert!(pessimistic.iter().map(|m| m.compaction_failures).sum::<usize>() > 0);
    assert!(lost(&pessimistic) >= lost(&optimistic));
}

/// A model whose summary calls fail, the first `n` of them (`usize::MAX`: all).
struct FailingFirst<M> {
    inner: M,
    left: usize,
}

impl<M: Model> Model for FailingFirst<M> {
    fn complete(&mut self, request: ModelRequest<'_>) -> Result<ModelReply, ModelError> {
        if request.kind == CallKind::Summary && self.left > 0 {
            self.left -= 1;
            return Err(ModelError::Other("the summarizer is down".into()));
        }
        self.inner.complete(request)
    }
}

/// The claim-reference probe with its first `fail` summary calls failing, under `settings`.
fn failing_first(settings: &RunSettings, fail: usize) -> ctxbench_harness::run::RunResult {
    let s = scenario("scenarios/probes/claim-reference.json", 0);
    let model = FailingFirst {
        inner: ScriptedModel::new(&s, settings.seed),
        left: fail,
    };
    run_with_model(&s, settings, model, &mut |_| {}).expect("a window")
}

#[test]
fn a_failed_summary_call_is_retried_and_the_run_goes_on() {
    let settings = settings(SUMMARIZE);
    let m = failing_first(&settings, 1).metrics;
    assert_eq!((m.compaction_failures, m.compaction_retries), (1, 1));
    assert!(m.completed && m.compaction_calls > 10);
    // Without retries the failure is a failed compaction, which leaves the history as it was;
    // the next call's compaction tries again, and the run still goes on.
    let no_retries = RunSettings {
        retries_per_compaction: 0,
        ..settings
    };
    let m = failing_first(&no_retries, 1).metrics;
    assert_eq!((m.compaction_failures, m.compaction_retries), (1, 0));
    assert!(m.completed);
}

#[test]
fn after_three_failed_compactions_the_breaker_rests_ten_calls() {
    let trace = failing_first(&settings(SUMMARIZE), usize::MAX).trace;
    // Three compactions of three calls each (one and two retries), then ten that ask for none.
    let summaries: Vec<usize> = trace
        .iter()
        .enumerate()
        .filter(|(_, r)| r.kind == CallKind::Summary)
        .map(|(i, _)| i)
        .collect();
    assert!(summaries.len() >= 9, "{} summary calls", summaries.len());
    let resting = trace
        .iter()
        .filter(|r| r.compaction.as_ref().is_some_and(|c| c.resting))
        .count();
    let failed = trace
        .iter()
        .filter(|r| r.compaction.as_ref().is_some_and(|c| c.failed))
        .count();
    println!(
        "{} summary calls, {failed} failed compactions, {resting} resting",
        summaries.len()
    );
    assert!(failed >= 3);
    assert!(resting >= 1 && resting <= 10 * failed.div_ceil(3));
    // The first rest comes right after the third failed compaction.
    let first_rest = trace
        .iter()
        .position(|r| r.compaction.as_ref().is_some_and(|c| c.resting));
    let third_failure = trace
        .iter()
        .enumerate()
        .filter(|(_, r)| r.compaction.as_ref().is_some_and(|c| c.failed))
        .nth(2)
        .map(|(i, _)| i);
    assert!(first_rest > third_failure);
}

#[test]
fn the_compaction_loop_is_counted_for_the_runs_that_loop_and_not_for_one_that_does_not() {
    let s = scenario("scenarios/compaction-loop.json", 0);
    let thrash = |strategy: &str, target: Option<f64>| {
        let m = run(
            &s,
            &RunSettings {
                target,
                ..settings(strategy)
            },
        );
        assert!(m.completed, "{strategy}");
        m.thrash
    };
    for looping in ["summarize", "mask", "truncate"] {
        let n = thrash(looping, None);
        println!("{looping}: thrash {n}");
        assert!(n > 0, "{looping} loops at the threshold");
    }
    // A target frees enough at once, where the strategy can reach it (`mask` keeps its last ten
    // results whole, and cannot).
    for freed in ["summarize", "truncate"] {
        assert_eq!(thrash(freed, Some(0.4)), 0, "{freed} with a target");
    }
    // Dropping whole exchanges frees more than a tenth of the limit each time, and not on
    // consecutive calls.
    assert_eq!(thrash("drop", None), 0);
}

/// `compare` on the compaction-loop scenario, untuned, with `more` flags: what it printed.
fn compare_loop(dir: &std::path::Path, more: &[&str]) -> String {
    let out = ctxbench()
        .args([
            "compare",
            "scenarios/compaction-loop.json",
            "--no-tune",
            "--no-plots",
            "-o",
        ])
        .arg(dir)
        .args(more)
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}");
    stdout
}

#[test]
fn the_verdict_names_the_runs_that_loop_and_the_floor_where_a_run_cannot_fit() {
    let dir = scratch("fidelity-loops");
    let stdout = compare_loop(&dir, &["--strategies", "drop,summarize", "--seeds", "2"]);
    let loops: String = stdout
        .split('↻')
        .nth(1)
        .map(|s| s.split("\n\n").next().unwrap_or_default().to_owned())
        .unwrap_or_else(|| panic!("no loops line in:\n{stdout}"));
    assert!(loops.contains("summarize"), "{loops}");
    assert!(!loops.contains("drop"), "{loops}");
    // In a window the kept tail outgrows, each run says what no compaction removes.
    let stdout = compare_loop(&dir, &["--strategies", "drop", "--seeds", "1", "--window", "1800"]);
    let words = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("cannot fit: what no compaction removes") && words.contains("tokens, over the limit in"),
        "{stdout}"
    );
}

#[test]
fn a_summary_placed_first_throws_away_cache_that_one_placed_after_the_stable_head_keeps() {
    let s = scenario("tests/fixtures/scenarios/stable-head.json", 0);
    let cached = |strategy: &str| {
        let settings = RunSettings {
            price: Some(
                ctxbench_harness::billing::price::Price::named("claude-sonnet-4-6")
                    .cloned()
                    .expect("in the table")
                    .into(),
            ),
            cache: ctxbench_harness::billing::cache_mode::CacheMode::BREAKPOINTS,
            ..settings(strategy)
        };
        run(&s, &settings)
    };
    let first = cached("summarize:place=first");
    let after = cached("summarize:place=after:2");
    println!(
        "placed first: {} invalidated, {} written unread; after the head: {} and {}",
        first.invalidated_tokens,
        first.cache_write_unread_tokens,
        after.invalidated_tokens,
        after.cache_write_unread_tokens
    );
    assert!(first.completed && after.completed && first.compactions > 0);
    assert!(first.invalidated_tokens > after.invalidated_tokens);
    assert!(first.cache_write_unread_tokens > after.cache_write_unread_tokens);
}
