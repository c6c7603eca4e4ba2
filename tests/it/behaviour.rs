//! The behaviour profiles (DESIGN §17): a summary's size buys facts, a garbled value is a wrong
//! fact, a model that does not notice guesses or goes without, and a user's own profile changes
//! the figures and is named wherever they are read.

use std::path::Path;

use ctxbench_harness::metrics::RunMetrics;
use ctxbench_harness::run::run_scenario;
use ctxbench_harness::scenario::load_scenario;
use ctxbench_harness::settings::RunSettings;
use ctxbench_harness::sim::profile::{Behaviour, Summarizer};

use crate::cmd::{ctxbench, read, scratch};

fn runs(strategy: &str, seeds: u64, with: impl Fn(RunSettings) -> RunSettings) -> Vec<RunMetrics> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/unfetchable-facts.json");
    (0..seeds)
        .map(|seed| {
            let scenario = load_scenario(&path, seed).expect("loads");
            let settings = with(RunSettings {
                seed,
                ..RunSettings::new(strategy.parse().expect("valid"))
            });
            run_scenario(&scenario, &settings, &mut |_| {}).expect("runs").metrics
        })
        .collect()
}

fn mean(runs: &[RunMetrics], f: fn(&RunMetrics) -> usize) -> f64 {
    runs.iter().map(|m| f(m) as f64).sum::<f64>() / runs.len() as f64
}

/// Under the default profile a larger summary keeps more: retention follows the size ratio.
#[test]
fn a_larger_summary_keeps_more_facts_over_forty_seeds() {
    let small = runs("summarize:ratio=0.1", 40, |s| s);
    let large = runs("summarize:ratio=0.3", 40, |s| s);
    let (lost_small, lost_large) = (
        mean(&small, RunMetrics::facts_missed),
        mean(&large, RunMetrics::facts_missed),
    );
    assert!(
        lost_large < lost_small,
        "ratio 0.3 loses {lost_large} facts a run, ratio 0.1 {lost_small}"
    );
    // The larger summary costs more tokens in its summaries: the trade a sweep over ratio shows.
    assert!(mean(&large, |m| m.tokens_received as usize) > mean(&small, |m| m.tokens_received as usize));
}

/// A profile that keeps every value but alters each makes wrong facts, not lost ones; a model
/// that never notices a missing fact and always guesses makes every loss a wrong answer.
#[test]
fn garbled_values_and_guesses_are_wrong_facts() {
    let dir = scratch("profiles-wrong");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let file = dir.join("garbles.toml");
    let all = "[[0.0, 1.0]]";
    std::fs::write(
        &file,
        format!(
            "[summarizer.garbles]\nabout = \"keeps all, alters all\"\ndistort = 1.0\nfail = 0.0\nlength = {{ scale = 1.0, carry = 0.0 }}\n\
             keep = {{ told = {all}, decision = {all}, path = {all}, number = {all}, id = {all}, detail = {all}, command = {all} }}\n\
             [model.guesser]\nabout = \"never notices, always guesses\"\nnotice = 0.0\nguess = 1.0\n"
        ),
    )
    .expect("writes");
    let garbles: Summarizer = format!("{}#garbles", file.display()).parse().expect("valid");
    let summarized = runs("summarize", 3, |s| RunSettings {
        summarizer: garbles.clone(),
        ..s
    });
    for m in &summarized {
        assert!(m.facts_wrong > 0 && m.facts_lost == 0, "{m:?}");
        assert!(m.answers_wrong > 0);
    }
    let guesser: Behaviour = format!("{}#guesser", file.display()).parse().expect("valid");
    let attentive = runs("drop", 1, |s| s);
    let guessing = runs("drop", 1, |s| RunSettings {
        model_profile: guesser.clone(),
        ..s
    });
    assert!(attentive[0].refetches > 0 && attentive[0].facts_lost > 0);
    assert_eq!(
        guessing[0].refetches, 0,
        "a model that does not notice fetches nothing again"
    );
    assert_eq!(guessing[0].facts_lost, 0);
    assert!(guessing[0].facts_wrong >= attentive[0].facts_lost);
}

/// `ctxbench profiles` lists every profile with a source for its numbers; a user's file changes
/// the figures and is named on the settings line, in results.csv, verdict.json and the page.
#[test]
fn profiles_are_listed_with_sources_and_a_users_own_is_named_everywhere() {
    let output = ctxbench().arg("profiles").output().expect("runs");
    assert!(output.status.success());
    let listing = String::from_utf8(output.stdout).expect("UTF-8");
    for name in [
        "published (default)",
        "optimistic",
        "pessimistic",
        "attentive (default)",
        "distracted",
    ] {
        assert!(listing.contains(&format!("  {name}")), "{name}: {listing}");
    }
    assert!(
        listing.contains("https://github.com/vshulcz/deja-vu/issues/543"),
        "{listing}"
    );

    let dir = scratch("profiles-own");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let file = dir.join("mine.toml");
    let all = "[[0.0, 1.0]]";
    std::fs::write(
        &file,
        format!(
            "[summarizer.perfect]\nabout = \"keeps every fact\"\ndistort = 0.0\nfail = 0.0\nlength = {{ scale = 1.0, carry = 0.0 }}\n\
             keep = {{ told = {all}, decision = {all}, path = {all}, number = {all}, id = {all}, detail = {all}, command = {all} }}\n"
        ),
    )
    .expect("writes");
    let spec = file.display().to_string();
    let out = dir.join("out");
    let run = |summarizer: &str, out: &Path| {
        let output = ctxbench()
            .args([
                "compare",
                "scenarios/unfetchable-facts.json",
                "--strategies",
                "summarize",
            ])
            .args([
                "--seeds",
                "5",
                "--no-tune",
                "--no-plots",
                "--summarizer",
                summarizer,
                "--out",
            ])
            .arg(out)
            .output()
            .expect("runs");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        // The table on stdout, the settings line after it on stderr.
        String::from_utf8([output.stdout, output.stderr].concat()).expect("UTF-8")
    };
    let stdout = run(&spec, &out);
    let named = format!("{spec}#perfect");
    assert!(stdout.contains(&format!("summarizer {named} (")), "{stdout}");
    assert!(
        stdout.contains("0/4"),
        "a summary that keeps everything loses nothing: {stdout}"
    );
    let csv = String::from_utf8(read(out.join("results.csv"))).expect("UTF-8");
    assert!(
        csv.lines()
            .next()
            .expect("header")
            .contains(",summarizer,model_profile,seed")
    );
    assert!(csv.contains(&named));
    let verdict = String::from_utf8(read(out.join("verdict.json"))).expect("UTF-8");
    assert!(verdict.contains(&format!("\"name\": \"{}\"", named.replace('\\', "\\\\"))));
    let page = String::from_utf8(read(out.join("index.html"))).expect("UTF-8");
    assert!(page.contains("Assumptions") && page.contains("perfect"));
    // The default profile loses some over the same seeds.
    let default = run("published", &dir.join("default"));
    assert!(!default.contains(" 0/4 "), "{default}");
}
