//! What a new user reads in the terminal (issue 46): `compare` within 120 columns, a settings
//! line that says only what changed (every setting in summary.md and verdict.json), verdict.json
//! with its verdicts first, and help texts that say each thing once and rightly.

use ctxbench_compact::compact::Strategy;
use ctxbench_harness::settings::RunSettings;
use serde_json::Value;

use crate::cmd::{ctxbench, read, scratch};

/// The terminal's width that every line keeps to.
const WIDTH: usize = 120;

/// `compare` with `args`: its stdout, its stderr, summary.md and verdict.json.
fn compare(name: &str, args: &[&str]) -> (String, String, String, Value) {
    let dir = scratch(name);
    let output = ctxbench()
        .arg("compare")
        .args(args)
        .args(["--no-plots", "--out"])
        .arg(&dir)
        .output()
        .expect("runs");
    let stderr = String::from_utf8(output.stderr).expect("UTF-8");
    assert!(output.status.success(), "{stderr}");
    let summary = String::from_utf8(read(dir.join("summary.md"))).expect("UTF-8");
    let verdict = serde_json::from_slice(&read(dir.join("verdict.json"))).expect("JSON");
    (
        String::from_utf8(output.stdout).expect("UTF-8"),
        stderr,
        summary,
        verdict,
    )
}

/// The settings line of `compare`'s stderr, with its wrapped lines.
fn settings_line(stderr: &str) -> String {
    let mut lines = stderr.lines().skip_while(|l| !l.starts_with("settings:"));
    let first = lines.next().unwrap_or_else(|| panic!("a settings line in {stderr}"));
    std::iter::once(first)
        .chain(lines.take_while(|l| l.starts_with("  ")).map(str::trim_start))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every setting of the defaults is in summary.md and in verdict.json's `settings`.
fn holds_every_setting(summary: &str, verdict: &Value, settings: &RunSettings) {
    for (name, value) in settings.parts() {
        assert!(
            summary.contains(&format!("{name} {value}")),
            "{name} {value} in {summary}"
        );
    }
    let echoed = &verdict["settings"];
    let Value::Object(fields) = serde_json::to_value(settings).expect("serializes") else {
        panic!("the settings are an object");
    };
    for (field, value) in fields.iter().filter(|(f, _)| *f != "strategy") {
        assert_eq!(&echoed[field], value, "verdict.json's settings.{field}");
    }
    for field in ["seeds", "seeds_run", "tuned", "line"] {
        assert!(!echoed[field].is_null(), "verdict.json's settings.{field} in {echoed}");
    }
}

/// The default `compare` (every bundled scenario, every default strategy), run once for the
/// tests that read it.
fn default_compare() -> &'static (String, String, String, Value) {
    static RUN: std::sync::OnceLock<(String, String, String, Value)> = std::sync::OnceLock::new();
    RUN.get_or_init(|| compare("terminal-default", &[]))
}

/// No line of the default `compare` is wider than 120 columns, and every figure is still there.
#[test]
fn the_default_compare_fits_120_columns() {
    let (stdout, stderr, _, verdict) = default_compare();
    for line in stdout.lines().chain(stderr.lines()) {
        assert!(
            line.chars().count() <= WIDTH,
            "{} columns: {line}",
            line.chars().count()
        );
    }
    // Every figure kept: each scenario's table has a line of figures, cost among them, for every
    // group of runs, ranked (`1`, `1*`) or out (`—`).
    for s in verdict["scenarios"].as_array().expect("scenarios") {
        let name = s["scenario"].as_str().expect("a name");
        let groups = s["ranked"].as_array().expect("ranked").len() + s["disqualified"].as_array().expect("out").len();
        let rows: Vec<&str> = stdout
            .lines()
            .skip_while(|l| !l.starts_with(&format!("{name} · ")))
            .take_while(|l| !l.trim_start().starts_with('→'))
            .filter(|l| {
                let rank = l.split_whitespace().next().unwrap_or_default();
                rank == "—" || rank.trim_end_matches('*').parse::<usize>().is_ok()
            })
            .collect();
        assert_eq!(rows.len(), groups, "{name}: a line per group in\n{stdout}");
        for row in rows {
            assert!(
                row.contains('$') && row.ends_with(|c: char| c.is_ascii_digit()),
                "{row}"
            );
        }
    }
}

/// The default run's settings line says it ran the defaults and where they are; summary.md and
/// verdict.json hold every one.
#[test]
fn the_default_settings_line_is_short_and_says_where_the_rest_is() {
    let (_, stderr, summary, verdict) = default_compare();
    let line = settings_line(stderr);
    assert!(line.chars().count() <= WIDTH, "{line}");
    assert_eq!(
        line,
        "settings: the defaults (all of them in summary.md and verdict.json)"
    );
    holds_every_setting(summary, verdict, &RunSettings::new(Strategy::none()));
    assert!(summary.contains("seeds 0..19 (auto"), "{summary}");
    assert!(
        summary.contains("objective: fewest facts lost, then lowest cost"),
        "{summary}"
    );
}

/// verdict.json opens with the verdicts (each scenario's pick and verdict line), then the
/// suite's, then what they were measured with.
#[test]
fn verdict_json_opens_with_the_verdicts() {
    let (_, _, _, verdict) = default_compare();
    let keys = |v: &Value| -> Vec<String> {
        let Value::Object(map) = v else {
            panic!("an object: {v}")
        };
        map.keys().cloned().collect()
    };
    let top = keys(verdict);
    assert_eq!(top[..2], ["scenarios", "suite"], "{top:?}");
    assert_eq!(top.last().map(String::as_str), Some("profiles"), "{top:?}");
    let scenario = keys(&verdict["scenarios"][0]);
    assert_eq!(scenario[..3], ["scenario", "pick", "verdict"], "{scenario:?}");
    let suite = keys(&verdict["suite"]);
    assert_eq!(suite[..2], ["pick", "why"], "{suite:?}");
}

/// Settings given on the command line are all the settings line names; summary.md and
/// verdict.json hold them with the rest.
#[test]
fn the_settings_line_names_only_what_was_changed() {
    let given = ["--threshold", "0.7", "--price", "claude-sonnet-4-6"];
    let args = [
        &["scenarios/bike-shop-return.json", "--strategies", "drop", "--no-tune"][..],
        &given,
    ]
    .concat();
    let (_, stderr, summary, verdict) = compare("terminal-changed", &args);
    let line = settings_line(&stderr);
    assert_eq!(
        line,
        "settings: threshold 0.7 · price claude-sonnet-4-6 · strategies as given (--no-tune) (the rest the defaults; all \
         of them in summary.md and verdict.json)"
    );
    for text in stderr.lines() {
        assert!(text.chars().count() <= WIDTH, "{text}");
    }
    let price = ctxbench_harness::billing::price::Price::named("claude-sonnet-4-6").expect("a model of the table");
    let settings = RunSettings {
        threshold: 0.7,
        cache: price.cache.clone(),
        price: Some(price.clone().into()),
        ..RunSettings::new(Strategy::none())
    };
    holds_every_setting(&summary, &verdict, &settings);
    assert_eq!(verdict["settings"]["tuned"], false);
}

/// `ctxbench COMMAND --help` for every command, by name.
fn helps() -> Vec<(String, String)> {
    let top = ctxbench().arg("--help").output().expect("runs");
    let top = String::from_utf8(top.stdout).expect("UTF-8");
    let commands: Vec<String> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() > 10, "{top}");
    commands
        .into_iter()
        .map(|c| {
            let output = ctxbench().args([&c, "--help"]).output().expect("runs");
            assert!(output.status.success());
            let text = String::from_utf8(output.stdout).expect("UTF-8");
            (c, text)
        })
        .collect()
}

/// A flag's block in a help text: its line and its description, the lines indented under it.
fn flag_block(help: &str, flag: &str) -> String {
    let mut lines = help.lines().skip_while(|l| !l.trim_start().starts_with(flag));
    let head = lines.next().unwrap_or_else(|| panic!("{flag} in {help}"));
    std::iter::once(head)
        .chain(lines.take_while(|l| l.starts_with("          ")))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `text` names `--model` itself (not `--model-profile`).
fn names_model(text: &str) -> bool {
    text.match_indices("--model")
        .any(|(at, m)| !text[at + m.len()..].starts_with('-'))
}

/// `COMMAND --help`'s text.
fn help(helps: &[(String, String)], name: &str) -> String {
    helps
        .iter()
        .find(|(c, _)| c == name)
        .unwrap_or_else(|| panic!("{name} --help"))
        .1
        .clone()
}

/// `--seeds` is said in the same words wherever it is.
#[test]
fn seeds_are_said_once_for_compare_and_sweep() {
    let helps = helps();
    let seeds = flag_block(&help(&helps, "compare"), "--seeds");
    assert!(seeds.contains("--seeds <auto|N|A..B>"), "{seeds}");
    assert_eq!(seeds, flag_block(&help(&helps, "sweep"), "--seeds"));
}

/// `--model` is named only where there is one; run's `--model-profile` says which is which.
#[test]
fn model_is_named_only_where_there_is_one() {
    let helps = helps();
    for (command, text) in &helps {
        let has_model = text.lines().any(|l| l.trim_start().starts_with("--model "));
        assert_eq!(names_model(text), has_model, "{command} --help names --model: {text}");
    }
    assert!(names_model(&flag_block(&help(&helps, "run"), "--model-profile")));
}

/// The stage catalogue is in one place, `ctxbench strategies`; the commands that take strategies
/// point there in a line.
#[test]
fn the_stage_catalogue_is_in_one_place() {
    let helps = helps();
    let catalogue = ctxbench_compact::compact::stages_help();
    let entry = catalogue
        .lines()
        .find(|l| l.starts_with("  clear-thinking"))
        .expect("clear-thinking in the catalogue");
    let strategies = ctxbench().arg("strategies").output().expect("runs");
    let strategies = String::from_utf8(strategies.stdout).expect("UTF-8");
    assert_eq!(strategies.matches(entry).count(), 1, "{strategies}");
    for (command, text) in &helps {
        assert!(!text.contains(entry), "{command} --help repeats the catalogue");
    }
    for command in ["compare", "sweep", "run", "compact"] {
        assert!(
            help(&helps, command).contains("`ctxbench strategies`"),
            "{command} --help"
        );
    }
}

/// No help speaks of a listing it never explains.
#[test]
fn no_help_speaks_of_an_unexplained_listing() {
    let strategies = ctxbench().arg("strategies").output().expect("runs");
    let strategies = String::from_utf8(strategies.stdout).expect("UTF-8");
    for (command, text) in helps().iter().chain([&("strategies".to_owned(), strategies)]) {
        assert!(!text.contains("listing"), "{command}: {text}");
    }
}
