//! What a new user's bad inputs met, each once, with the exit code and the words a user needs
//! (the place, the fix): files that are not what they seem, flags out of range or misspelled, a
//! grid too fine, a gate pointed wrong, padding no run could use. (`rough_edges.rs` holds the
//! earlier ones.)

use std::path::Path;

use crate::cmd::{ctxbench, read, scratch};

const SCENARIO: &str = "scenarios/bike-shop-return.json";

/// Exit code, stdout and stderr of `ctxbench ARGS` run in `dir` (the repository when `None`).
fn said_in(dir: Option<&Path>, args: &[&str]) -> (i32, String, String) {
    let mut command = ctxbench();
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let output = command.args(args).output().expect("runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Exit code and stderr of `ctxbench ARGS`.
pub(crate) fn said(args: &[&str]) -> (i32, String) {
    let (code, _, err) = said_in(None, args);
    (code, err)
}

#[track_caller]
fn refused(args: &[&str], words: &[&str]) {
    let (code, err) = said(args);
    assert_eq!(code, 2, "{args:?}: {err}");
    for w in words {
        assert!(err.contains(w), "{args:?} should say {w:?}: {err}");
    }
    assert!(!err.contains("expected u64") && !err.contains("panicked"), "{err}");
}

#[test]
fn files_that_are_not_what_they_seem_are_said_before_their_json() {
    let dir = scratch("new-user-files");
    let file = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let empty = file("empty.json", b"");
    refused(&["validate", &empty], &["empty.json: is empty"]);
    let latin1 = file("latin1.json", b"{\n  \"name\": \"caf\xE9\"}");
    refused(
        &["validate", &latin1],
        &["latin1.json:2:15: not UTF-8 text (the byte 0xE9); save the file as UTF-8"],
    );
    let array = file("array.json", b"  [1, 2]");
    refused(
        &["validate", &array],
        &["array.json:1:3: not a scenario: the file holds an array; a scenario is one JSON object"],
    );
    // A byte-order mark is read past: the file is judged on what it holds.
    let scenario = String::from_utf8(read(SCENARIO)).unwrap();
    let bom = file("bom.json", format!("\u{feff}{scenario}").as_bytes());
    let (code, err) = said(&["validate", &bom]);
    assert_eq!(code, 0, "{err}");
    std::fs::create_dir_all(dir.join("folder")).unwrap();
    let folder = dir.join("folder");
    refused(
        &["compact", "--window", "100", folder.to_str().unwrap()],
        &["folder: is a folder; give a file"],
    );
    refused(&["compact", "--window", "100", &empty], &["empty.json: is empty"]);
    let body = file(
        "bom-body.json",
        "\u{feff}{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}".as_bytes(),
    );
    let (code, err) = said(&["compact", "--window", "100", &body]);
    assert_eq!(code, 0, "a body with a byte-order mark compacts: {err}");
    // A call log broken on its second line: that line, in the file's numbering, in words.
    let first = String::from_utf8(read("tests/fixtures/calls/support.calls.jsonl")).unwrap();
    let log = file(
        "broken.calls.jsonl",
        format!(
            "{}\n{{\"request\": {{\"messages\": [}}\n",
            first.lines().next().unwrap()
        )
        .as_bytes(),
    );
    let out = dir.join("imported");
    refused(
        &["import", &log, "-o", out.to_str().unwrap()],
        &["broken.calls.jsonl:2:27: invalid JSON: expected value"],
    );
    let (_, err) = said(&["import", &log, "-o", out.to_str().unwrap()]);
    assert!(
        !err.contains("at line 1 column"),
        "serde's own place is not repeated: {err}"
    );
}

#[test]
fn flags_out_of_range_or_misspelled_say_what_they_take() {
    refused(
        &["run", SCENARIO, "--threshold", "-0.5"],
        &["the threshold must be in (0, 1]", "got -0.5"],
    );
    refused(
        &["gate", "--baseline", "reports/baseline.csv", "--tolerance", "-5%"],
        &["--tolerance \"-5%\"", "0 or more"],
    );
    refused(
        &["run", SCENARIO, "--window", "99999999999999999999"],
        &["`99999999999999999999` is too large"],
    );
    refused(
        &["run", SCENARIO, "--price", "input=3;output=15"],
        &["separate the prices with commas, not \";\" (input=3,output=15)"],
    );
    refused(
        &["run", SCENARIO, "--price", "claude-sonet-4-6"],
        &["did you mean claude-sonnet-4-6?"],
    );
    refused(
        &["run", SCENARIO, "--strategy", "truncat"],
        &["did you mean `truncate`?"],
    );
    refused(
        &["compare", SCENARIO, "--strategies", "none,truncat"],
        &["did you mean `truncate`?"],
    );
    refused(
        &["run", SCENARIO, "--cache", "prefix:block=0"],
        &["cache block must be at least 1 token"],
    );
    let dir = scratch("new-user-flags");
    let prices = dir.join("mine.toml");
    std::fs::write(&prices, "input = 3\noutput = 15\n").unwrap();
    let (code, err) = said(&["run", SCENARIO, "--price", prices.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("mine.toml:1:1: unknown field `input`") && err.contains("[[model]] entries"),
        "the place and the layout: {err}"
    );
    // The offending line shown on its own line, as a compiler shows it, not squashed onto the
    // message's.
    assert!(
        err.lines().any(|l| l == "1 | input = 3")
            && !err
                .lines()
                .any(|l| l.contains("unknown field") && l.contains("input = 3")),
        "no TOML squashed onto one line: {err}"
    );
    refused(
        &[
            "import",
            "tests/fixtures/calls/support.calls.jsonl",
            "-o",
            dir.join("i").to_str().unwrap(),
            "--refetchable",
            "[",
        ],
        &["`[` is not a tool name or a glob", "use * for any run of characters"],
    );
    let (code, err) = said(&[
        "import",
        "tests/fixtures/calls/support.calls.jsonl",
        "-o",
        dir.join("i").to_str().unwrap(),
        "--refetchable",
        "get_ordr*",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning: --refetchable get_ordr* matches no tool of what was imported (its tools: get_order)"),
        "{err}"
    );
}

#[test]
fn a_sweeps_ranges_say_what_is_wrong_with_them() {
    refused(
        &["sweep", SCENARIO, "--threshold", "0.9:0.5:0.1"],
        &["the range runs down, from 0.9 to 0.5; write it from the smaller end (0.5:0.9:0.1)"],
    );
    refused(
        &["sweep", SCENARIO, "--threshold", "0.5:0.9:0"],
        &["the step 0 must be above 0"],
    );
    refused(
        &["sweep", SCENARIO, "--keep", "5..1"],
        &["the range runs down, from 5 to 1; write it from the smaller end (1..5)"],
    );
}

#[test]
fn a_grid_too_fine_is_counted_and_refused_before_it_is_laid_out() {
    let dir = scratch("new-user-grid");
    let out = dir.join("out");
    let out = out.to_str().unwrap();
    // Four hundred billion values: refused at once, in constant memory.
    refused(
        &[
            "sweep",
            SCENARIO,
            "--strategies",
            "drop",
            "--threshold",
            "0.5:0.9:0.000000000001",
            "-o",
            out,
        ],
        &["holds 400000000001 values", "take a coarser step"],
    );
    // Four million configurations: counted and said, then refused without --yes.
    refused(
        &[
            "sweep",
            SCENARIO,
            "--strategies",
            "drop",
            "--threshold",
            "0.5:0.9:0.0000001",
            "-o",
            out,
        ],
        &[
            "sweep: 4,000,001 settings × 1 scenario = 4,000,001 configurations (up to 80,000,020 runs with 20 seeds)",
            "pass --yes to run it all, or take a coarser step",
        ],
    );
    // A fine grid that runs: its count first, and its whole time at the end.
    let (code, err) = said(&[
        "sweep",
        SCENARIO,
        "--strategies",
        "drop",
        "--threshold",
        "0.5:0.9:0.0001",
        "--seeds",
        "1",
        "--no-plots",
        "-o",
        out,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.starts_with("sweep: 4,001 settings × 1 scenario = 4,001 configurations"),
        "{err}"
    );
    assert!(
        err.contains(" s of runs on ") && err.contains(" s in all; wrote "),
        "{err}"
    );
}

#[test]
fn the_gate_pointed_wrong_says_where_and_prints_its_summary_once() {
    let dir = scratch("new-user-gate");
    let csv = dir.join("no-scenario.csv");
    std::fs::write(&csv, "name,strategy\nx,none\n").unwrap();
    refused(
        &["gate", "--baseline", csv.to_str().unwrap()],
        &["line 1 (the header): the column `scenario` is missing"],
    );
    refused(
        &["gate", "--baseline", "reports/baseline.csv", "--update", "--exact"],
        &["'--update' cannot be used with '--exact'"],
    );
    let baseline = Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/baseline.csv");
    let (code, _, err) = said_in(Some(&dir), &["gate", "--baseline", baseline.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--scenarios scenarios: no such file or folder") && err.contains("point --scenarios at them"),
        "{err}"
    );
    // An unwritable report fails before any "passed" is printed.
    let (code, out, err) = said_in(
        None,
        &[
            "gate",
            "--baseline",
            "reports/baseline.csv",
            "--junit",
            "/dev/null/x.xml",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--junit /dev/null/x.xml: cannot write the report there"),
        "{err}"
    );
    assert!(!out.contains("passed") && !err.contains("passed"), "{out}{err}");
    let (code, out, err) = said_in(None, &["gate", "--baseline", "reports/baseline.csv"]);
    assert_eq!(code, 0, "{err}");
    let summary = |text: &str| text.lines().filter(|l| l.contains("gate passed")).count();
    assert_eq!((summary(&out), summary(&err)), (1, 0), "the summary once: {out}{err}");
}

#[test]
fn padding_no_run_could_use_is_refused_at_once() {
    let dir = scratch("new-user-pad");
    let mut scenario: serde_json::Value = serde_json::from_slice(&read(SCENARIO)).unwrap();
    scenario["tools"]["get_order"]["results"][0]["pad"]["tokens"] = 1_000_000_000_000u64.into();
    let with_window = dir.join("huge-pad.json");
    std::fs::write(&with_window, scenario.to_string()).unwrap();
    refused(
        &["validate", with_window.to_str().unwrap()],
        &[
            "tool \"get_order\", result 1: a pad of 1000000000000 tokens is over ten times the scenario's window of 6000",
            "give at most 60000",
        ],
    );
    scenario.as_object_mut().unwrap().remove("window");
    let without = dir.join("huge-pad-no-window.json");
    std::fs::write(&without, scenario.to_string()).unwrap();
    refused(
        &["validate", without.to_str().unwrap()],
        &["more than any model's window", "give at most 2000000"],
    );
}

#[test]
fn a_verdict_with_no_pick_points_where_the_reasons_are() {
    let dir = scratch("new-user-no-pick");
    let out = dir.join("out");
    let (code, err) = said(&[
        "compare",
        SCENARIO,
        "--window",
        "200",
        "--strategies",
        "none,truncate",
        "--no-plots",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let page = String::from_utf8(read(out.join("index.html"))).unwrap();
    assert!(
        page.contains("no strategy qualifies") && page.contains("are in the table"),
        "the page says where"
    );
    assert!(!page.contains("see why above"), "the reasons are not above it");
}

/// Issue 46: seeds past the largest one panicked or ran fewer seeds than asked; a lost fact
/// priced below nothing, or into an objective without cost, was taken; each is refused with
/// the fix.
#[test]
fn seeds_and_fact_costs_out_of_range_are_refused_with_the_fix() {
    let max = u64::MAX.to_string();
    refused(
        &["compare", SCENARIO, "--seed", &max, "--seeds", "3"],
        &[
            "--seed 18446744073709551615 leaves room for 1 seed above it, not 3",
            "at most 18446744073709551613",
        ],
    );
    refused(&["compare", SCENARIO, "--seed", &max], &["not 20"]);
    refused(
        &["sweep", SCENARIO, "--seed", &max, "--seeds", "3"],
        &["leaves room for 1 seed"],
    );
    refused(&["compare", SCENARIO, "--seeds", "5..2"], &["runs down: write 2..5"]);
    refused(&["compare", SCENARIO, "--seeds", "1000000"], &["more than the 100,000"]);
    refused(&["compare", SCENARIO, "--seeds", "0"], &["at least one seed"]);
    refused(
        &["compare", SCENARIO, "--fact-cost", "-5"],
        &["--fact-cost -5", "0 or more"],
    );
    refused(
        &["compare", SCENARIO, "--fact-cost", "0.5", "--objective", "facts,tokens"],
        &["has no cost key", "--objective facts,cost"],
    );
    let (code, err) = said(&["compare", SCENARIO, "--fact-cost", "0.5", "--price", "none"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("drop --price none") && !err.contains("--objective cost"),
        "{err}"
    );
}

/// Issue 46: `validate` passed two files of one scenario name that `compare` then refused.
#[test]
fn validate_refuses_two_scenarios_of_one_name_as_compare_does() {
    let dir = scratch("new-user-same-name");
    let text = std::fs::read_to_string(SCENARIO).unwrap();
    let copy = dir.join("copy.json");
    std::fs::write(&copy, &text).unwrap();
    let copy = copy.to_str().unwrap();
    refused(
        &["validate", SCENARIO, copy],
        &[
            "copy.json: the name \"bike-shop-return\" is already taken by scenarios/bike-shop-return.json",
            "must be unique",
        ],
    );
    refused(
        &["compare", SCENARIO, copy, "--out", dir.join("out").to_str().unwrap()],
        &["is already taken by"],
    );
}

/// Issue 46: a fact (or a tool) named twice kept the last silently and `validate` said ok.
#[test]
fn a_name_given_twice_in_facts_or_tools_is_refused_at_its_place() {
    let dir = scratch("new-user-twice");
    let text = std::fs::read_to_string(SCENARIO).unwrap();
    let at = text.find("\"facts\": {").expect("facts") + "\"facts\": {".len();
    let twice = format!(
        "{}\n    \"order\": {{\"value\": \"1\", \"kind\": \"id\"}},{}",
        &text[..at],
        &text[at..]
    );
    let file = dir.join("twice.json");
    std::fs::write(&file, twice).unwrap();
    refused(
        &["validate", file.to_str().unwrap()],
        &["twice.json:", "the name \"order\" is given twice here; give each once"],
    );
}

/// Issue 46: a summarizer profile with `length = { scale = 1e300 }` was taken and grew until the
/// kernel killed it; every profile number is bounded.
#[test]
fn a_profile_number_out_of_range_is_refused() {
    let dir = scratch("new-user-profile-scale");
    let file = crate::behaviour::profile_file(&dir, "huge", 0.5, 0.0, "");
    let text = std::fs::read_to_string(&file)
        .unwrap()
        .replace("scale = 1.0", "scale = 1e300");
    std::fs::write(&file, text).unwrap();
    let profile = format!("{}#huge", file.display());
    refused(
        &[
            "compare",
            SCENARIO,
            "--strategies",
            "summarize",
            "--summarizer",
            &profile,
            "--out",
            dir.join("out").to_str().unwrap(),
        ],
        &["length.scale = 1e300: must be above 0 and at most 10"],
    );
}
