//! The behaviour profiles (docs/behaviour.md): a summary's size buys facts, a garbled value is a wrong
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

/// A file holding `[summarizer.NAME]` with one flat survival `keep` for every kind, `distort`
/// and no failure, and the `tail` given (another table).
pub fn profile_file(dir: &Path, name: &str, keep: f64, distort: f64, tail: &str) -> std::path::PathBuf {
    std::fs::create_dir_all(dir).expect("mkdir");
    let file = dir.join(format!("{name}.toml"));
    let kinds = [
        "told", "decision", "path", "artifact", "number", "id", "detail", "command",
    ]
    .map(|k| format!("{k} = [[0.0, {keep}]]"))
    .join(", ");
    std::fs::write(
        &file,
        format!(
            "[summarizer.{name}]\nabout = \"flat\"\ndistort = {distort}\nfail = 0.0\nlength = {{ scale = 1.0, carry = 0.5 }}\nkeep = {{ {kinds} }}\n{tail}"
        ),
    )
    .expect("writes");
    file
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
    let file = profile_file(
        &dir,
        "garbles",
        1.0,
        1.0,
        "[model.guesser]\nabout = \"never notices, always guesses\"\nnotice = 0.0\nguess = 1.0\n",
    );
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
    let file = profile_file(&dir, "perfect", 1.0, 0.0, "");
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

/// A pick that rests on a summary is checked under the other shipped summarizer profiles: on
/// unfetchable-facts, `summarize` wins under the published profile and loses to `truncate` under
/// the pessimistic one, and the verdict says so.
#[test]
fn a_pick_that_depends_on_the_summarizer_profile_says_so() {
    let dir = scratch("profile-sensitivity");
    let output = ctxbench()
        .args([
            "compare",
            "scenarios/unfetchable-facts.json",
            "--strategies",
            "summarize,truncate,drop",
        ])
        .args(["--no-tune", "--no-plots", "--out"])
        .arg(&dir)
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    assert!(stdout.contains("other summarizer profiles"), "{stdout}");
    let verdict: serde_json::Value = serde_json::from_slice(&read(dir.join("verdict.json"))).expect("JSON");
    let s = &verdict["scenarios"][0];
    assert_eq!(
        s["pick"],
        "summarize:keep=id/number/decision,ratio=0.1,trigger=limit,place=span,tail=fit,reads=span,carry=0,reread=0,resummarize=true,overlap=0,style=ctxbench"
    );
    let profiles = s["sensitivity"]["summarizer_profiles"].as_array().expect("profiles");
    let names: Vec<&str> = profiles.iter().filter_map(|p| p[0].as_str()).collect();
    assert_eq!(names, ["summarizer optimistic", "summarizer pessimistic"]);
    let pessimistic = &profiles[1][1];
    assert!(
        pessimistic.as_str().is_some_and(|p| !p.starts_with("summarize")),
        "the pessimistic profile flips the pick: {pessimistic}"
    );
    assert_eq!(s["sensitivity"]["fragile"], true);
    assert!(
        stdout.contains("under summarizer pessimistic (with its summaries the pick loses "),
        "{stdout}"
    );
}

/// A sweep over the summary's ratio finds a trade: the frontier of cost against facts lost has
/// more than one point on its front, a larger summary costing more and losing less.
#[test]
fn a_sweep_over_the_ratio_draws_a_frontier_of_cost_against_facts_lost() {
    let dir = scratch("ratio-sweep");
    let output = ctxbench()
        .args(["sweep", "scenarios/unfetchable-facts.json", "--strategies", "summarize"])
        .args(["--param", "summarize.ratio=0.05,0.1,0.2,0.3", "--out"])
        .arg(&dir)
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let csv = String::from_utf8(read(dir.join("results.csv"))).expect("UTF-8");
    let rows = ctxbench_harness::report::read_csv(&csv).expect("rows");
    let chart = ctxbench_harness::plot::frontier(
        "unfetchable-facts",
        &ctxbench_harness::plot::points(&ctxbench_harness::plot::configs(&rows)),
    )
    .expect("a frontier");
    assert_eq!(chart.title, "unfetchable-facts: cost against facts lost");
    assert_eq!(
        chart.series[0].points.len(),
        4,
        "one point a ratio, at its means over 20 seeds"
    );
    let front = &chart.series[1].points;
    assert!(front.len() >= 2, "a trade, not one winner: {front:?}");
    for pair in front.windows(2) {
        assert!(
            pair[1].0 > pair[0].0 && pair[1].1 < pair[0].1,
            "dearer loses less: {front:?}"
        );
    }
    assert!(dir.join("plots/frontier-unfetchable-facts.svg").exists());
}
