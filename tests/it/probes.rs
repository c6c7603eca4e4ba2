//! The probes of scenario files (docs/behaviour.md): a superseded value used stale, a binding decision
//! lost, and drift over many summaries at the rate the summarizer profile implies, cycle by cycle.

use std::path::Path;

use ctxbench_compact::fact::FactKind;
use ctxbench_harness::run::{RunResult, run_scenario};
use ctxbench_harness::scenario::load_scenario;
use ctxbench_harness::settings::RunSettings;
use ctxbench_harness::sim::profile::Summarizer;
use ctxbench_harness::verdict::Rate;

use crate::cmd::scratch;

fn run(scenario: &str, strategy: &str, seed: u64, summarizer: &Summarizer) -> RunResult {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios/probes")
        .join(scenario);
    let scenario = load_scenario(&path, seed).expect("loads");
    let settings = RunSettings {
        seed,
        summarizer: summarizer.clone(),
        ..RunSettings::new(strategy.parse().expect("valid"))
    };
    run_scenario(&scenario, &settings, &mut |_| {}).expect("runs")
}

/// A summarizer profile of one flat survival `p` for every kind, no distortion, no failure.
fn flat(name: &str, p: f64) -> Summarizer {
    let dir = scratch(&format!("probes-profile-{name}"));
    let file = crate::behaviour::profile_file(&dir, name, p, 0.0, "");
    file.display().to_string().parse().expect("valid")
}

#[test]
fn a_change_summarized_away_is_a_stale_value_and_kept_it_is_none() {
    let published = Summarizer::default();
    let kept = run("changed-address.json", "truncate", 0, &published).metrics;
    assert_eq!(
        (kept.facts_stale, kept.facts_lost),
        (0, 0),
        "truncate keeps the user's words"
    );
    let dropped = run("changed-address.json", "drop", 0, &published).metrics;
    assert_eq!(
        dropped.facts_stale, 1,
        "drop loses the change; the address on file is used"
    );
    assert_eq!(dropped.facts_lost, 0, "nothing looked missing to the model");
    // A summary that keeps nothing summarizes the update away: stale in every seed.
    let forgets = flat("forgets", 0.0);
    for seed in 0..3 {
        let m = run("changed-address.json", "summarize", seed, &forgets).metrics;
        assert_eq!(m.facts_stale, 1, "seed {seed}: {m:?}");
        assert!(m.answers_wrong >= 1);
    }
    let remembers = flat("remembers", 1.0);
    assert_eq!(
        run("changed-address.json", "summarize", 0, &remembers)
            .metrics
            .facts_stale,
        0
    );
}

#[test]
fn a_denied_refund_lost_by_a_summary_is_a_decision_lost() {
    let forgets = flat("forgets-decisions", 0.0);
    let m = run("denied-refund.json", "summarize", 0, &forgets).metrics;
    assert_eq!((m.decisions_lost, m.facts_lost), (1, 1), "{m:?}");
    let m = run("denied-refund.json", "truncate", 0, &Summarizer::default()).metrics;
    assert_eq!(m.decisions_lost, 0);
}

/// Over 40 seeds, the ticket given once is lost at the rate the profile implies: with a flat
/// survival p per summary, a run of C summaries keeps it with probability p^C; with the
/// published profile, the product over its cycles of the survival at each cycle's recorded ratio
/// times the chance that the summary does not alter it. The observed rate's 95% interval holds the implied one.
#[test]
fn drift_over_many_summaries_follows_the_profile_cycle_by_cycle() {
    for (summarizer, strategy) in [
        (flat("drift", 0.93), "truncate+summarize"),
        (Summarizer::default(), "truncate+summarize"),
    ] {
        let profile = summarizer.0.clone();
        let (mut missed, mut implied) = (0, 0.0);
        for seed in 0..40 {
            let result = run("long-session-drift.json", strategy, seed, &summarizer);
            let cycles: Vec<_> = result.trace.iter().filter_map(|r| r.summary.as_ref()).collect();
            assert!(cycles.len() >= 5, "seed {seed}: {} summaries", cycles.len());
            // Cycle by cycle: kept until one summary drops it, absent from every span after.
            let first_drop = cycles.iter().position(|c| c.dropped.iter().any(|f| f == "ticket"));
            for (k, c) in cycles.iter().enumerate() {
                let held = c.kept.iter().chain(&c.dropped).any(|f| f == "ticket");
                assert_eq!(held, first_drop.is_none_or(|d| k <= d), "seed {seed} cycle {}", c.cycle);
            }
            // The ticket ends right when every summary keeps it and none alters it. (After a
            // drop, the later cycles' ratios differ from those a kept ticket would have seen by
            // its few tokens.)
            let right: f64 = cycles
                .iter()
                .map(|c| profile.keeps(FactKind::Id, true, c.ratio) * (1.0 - profile.distort))
                .product();
            implied += 1.0 - right;
            missed += usize::from(result.metrics.facts_missed() > 0);
            assert_eq!(
                result.metrics.facts_missed() > 0,
                first_drop.is_some() || result.metrics.facts_wrong > 0
            );
        }
        let observed = Rate::new(missed, 40);
        let implied = implied / 40.0;
        assert!(
            observed.low <= implied && implied <= observed.high,
            "{}: lost in {missed} of 40 seeds ({:.2}..{:.2}); the profile implies {implied:.2}",
            profile.name,
            observed.low,
            observed.high
        );
    }
}

/// Probes are validated like the rest of a scenario: a binding fact that is not a decision, or a
/// supersedes that names no other fact, is named with what to do, exit 2.
#[test]
fn bad_probes_are_named() {
    let dir = scratch("bad-probes");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/probes/changed-address.json"))
            .expect("reads");
    for (from, to, expect) in [
        (
            r#""supersedes": "old_address""#,
            r#""supersedes": "address""#,
            r#"fact "new_address" supersedes "address", which is not another fact"#,
        ),
        (
            r#""supersedes": "old_address""#,
            r#""binding": true"#,
            r#"fact "new_address" is binding but of kind detail; only a decision can be binding"#,
        ),
    ] {
        let file = dir.join("bad.json");
        std::fs::write(&file, text.replace(from, to)).expect("writes");
        let output = crate::cmd::ctxbench()
            .arg("validate")
            .arg(&file)
            .output()
            .expect("runs");
        assert_eq!(output.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expect) && stderr.contains("bad.json"), "{stderr}");
    }
}
