//! Issue 46, the inputs refused rightly but in words that did not help: each refused with exit 2
//! and what a user needs (what is wrong, where, what to do), never Rust's or the OS's own words;
//! and a stdout its reader closed, which ends every command quietly.

use std::io::Read as _;
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command as Process, Stdio};

use ctxbench_harness::human::thousands;
use ctxbench_harness::sim::profile::Length;
use ctxbench_harness::verdict::Objective;

use crate::behaviour::profile_file;
use crate::cmd::{ctxbench, read, scratch};
use crate::new_user::said;

const SCENARIO: &str = "scenarios/bike-shop-return.json";

/// Words that mean nothing to a user: Rust's, serde's, the OS's.
const JARGON: [&str; 7] = [
    "panicked",
    "os error",
    "No such file or directory",
    "expected f64",
    "expected u64",
    "invalid type",
    "TOML parse error",
];

/// Runs `ctxbench ARGS`, asserts exit 2, each of `words` and no jargon; returns stderr.
#[track_caller]
fn refused(args: &[&str], words: &[&str]) -> String {
    let (code, err) = said(args);
    assert_eq!(code, 2, "{args:?}: {err}");
    for w in words {
        assert!(err.contains(w), "{args:?} should say {w:?}: {err}");
    }
    for j in JARGON {
        assert!(!err.contains(j), "{args:?} says {j:?}: {err}");
    }
    err
}

fn text(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// The place as a compiler shows it: `FILE:LINE:COLUMN: MESSAGE`, then the line and a caret
/// under the column, `width` wide, each on its own line.
fn placed(file: &Path, line: usize, shown: &str, column: usize, width: usize, message: &str) -> String {
    let gutter = " ".repeat(line.to_string().len());
    format!(
        "{}:{line}:{column}: {message}\n{gutter} |\n{line} | {shown}\n{gutter} | {}{}\n",
        file.display(),
        " ".repeat(column - 1),
        "^".repeat(width)
    )
}

#[test]
fn a_profile_that_does_not_parse_shows_its_line_and_a_caret_under_the_place() {
    let dir = scratch("said-profile-syntax");
    let file = profile_file(&dir, "broken", 0.5, 0.0, "");
    let good = std::fs::read_to_string(&file).unwrap();
    let bad = good.replace("fail = 0", "fail = = 0");
    std::fs::write(&file, &bad).unwrap();
    let (n, shown) = bad.lines().enumerate().find(|(_, l)| l.contains("= =")).unwrap();
    let column = shown.find("= =").unwrap() + 3;
    let want = placed(&file, n + 1, shown, column, 1, "extra `=`");
    for flag in ["--summarizer", "--model-profile"] {
        refused(&["run", SCENARIO, flag, text(&file)], &[&want]);
    }
}

#[test]
fn a_profile_number_of_the_wrong_kind_says_its_name_and_bounds_at_its_place() {
    let dir = scratch("said-profile-types");
    let file = profile_file(&dir, "wordy", 0.5, 0.0, "");
    let good = std::fs::read_to_string(&file).unwrap();
    let check = |from: &str, to: &str, value: &str, message: &str| {
        let bad = good.replace(from, to);
        std::fs::write(&file, &bad).unwrap();
        let (n, shown) = bad
            .lines()
            .enumerate()
            .find(|(_, l)| l.contains(to.trim_end()))
            .unwrap();
        let column = shown.find(value).unwrap() + 1;
        let want = placed(&file, n + 1, shown, column, value.chars().count(), message);
        refused(&["run", SCENARIO, "--summarizer", text(&file)], &[&want]);
    };
    check(
        "distort = 0\n",
        "distort = \"high\"\n",
        "\"high\"",
        "distort must be a number between 0 and 1, not the text \"high\"",
    );
    check(
        "scale = 1.0",
        "scale = \"big\"",
        "\"big\"",
        &format!(
            "length.scale must be a number above 0 and at most {} (the summary's size over the size asked for), not the text \"big\"",
            Length::MOST_SCALE
        ),
    );
    check(
        "distort = 0\n",
        "distort = 1.5\n",
        "1.5",
        "distort = 1.5: must be between 0 and 1",
    );
}

#[test]
fn a_price_table_given_for_a_profile_is_said_to_be_one_and_the_other_way_round() {
    for flag in ["--summarizer", "--model-profile"] {
        refused(
            &["run", SCENARIO, flag, "crates/harness/prices.toml"],
            &[
                "crates/harness/prices.toml is a price table ([[model]] entries): give it to --price",
                "--summarizer and --model-profile take behaviour profiles, [summarizer.NAME] and [model.NAME] tables",
            ],
        );
    }
    refused(
        &["run", SCENARIO, "--price", "crates/harness/profiles.toml"],
        &[
            "crates/harness/profiles.toml holds behaviour profiles",
            "give it to --summarizer or --model-profile",
            "--price takes a price table",
        ],
    );
}

#[test]
fn files_that_are_not_there_and_servers_that_are_not_there_are_said_in_words() {
    let dir = scratch("said-os");
    let missing = dir.join("missing.csv");
    refused(
        &["plot", text(&missing)],
        &[&format!("{}: no such file or folder", missing.display())],
    );
    let toml = dir.join("missing.toml");
    for flag in ["--price", "--summarizer", "--model-profile"] {
        refused(
            &["run", SCENARIO, flag, text(&toml)],
            &[&format!("{}: no such file or folder", toml.display())],
        );
    }
    // A port nothing listens on: bound, then let go.
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = closed.local_addr().unwrap();
    drop(closed);
    let url = format!("http://{address}/v1");
    refused(
        &["run", SCENARIO, "--model", "m", "--retries", "0", "--endpoint", &url],
        &[&format!("nothing answers at {address}: is the server running?")],
    );
    // A port another program holds.
    let held = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = held.local_addr().unwrap().port().to_string();
    let out = dir.join("served");
    refused(
        &["serve", SCENARIO, "--port", &port, "--out", text(&out)],
        &[&format!(
            "cannot listen on 127.0.0.1:{port}: the address is in use: another program listens there; give another --port"
        )],
    );
}

#[test]
fn a_fact_cost_too_large_to_be_a_number_says_the_range() {
    let range = format!(
        "a lost fact's price in dollars, 0 or more and at most {}",
        thousands(Objective::MOST_FACT_COST as u64)
    );
    let past = format!("{}", Objective::MOST_FACT_COST * 2.0);
    for command in ["compare", "sweep"] {
        for given in ["1e309", past.as_str()] {
            let err = refused(
                &[command, SCENARIO, "--fact-cost", given],
                &[&format!("`{given}` is too large: {range}")],
            );
            assert!(!err.contains("not a number"), "{err}");
        }
    }
}

#[test]
fn merge_of_a_folder_that_is_not_there_says_so_first() {
    let dir = scratch("said-merge-missing");
    let missing = dir.join("nonexistent").join("folder");
    let err = refused(
        &["merge", text(&missing)],
        &[&format!(
            "{}: no such file or folder; give a sweep's folder",
            missing.display()
        )],
    );
    assert!(!err.contains("where to write"), "the missing folder comes first: {err}");
}

#[test]
fn merge_into_a_folder_that_exists_writes_results_csv_in_it() {
    let dir = scratch("said-merge-into-folder");
    let one = dir.join("one");
    let done = ctxbench()
        .args([
            "compare",
            SCENARIO,
            "--strategies",
            "drop",
            "--seeds",
            "1",
            "--no-plots",
            "--out",
            text(&one),
        ])
        .output()
        .unwrap();
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    let into = dir.join("merged");
    std::fs::create_dir(&into).unwrap();
    let (code, err) = said(&["merge", text(&one.join("results.csv")), "-o", text(&into)]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains(".tmp"), "no temporary name is shown: {err}");
    // The same file as merged into a file named outright.
    let named = dir.join("named.csv");
    assert_eq!(
        said(&["merge", text(&one.join("results.csv")), "-o", text(&named)]).0,
        0
    );
    assert_eq!(
        std::fs::read_to_string(into.join("results.csv")).unwrap(),
        std::fs::read_to_string(named).unwrap()
    );
}

#[test]
fn a_compare_that_cannot_load_its_scenarios_writes_nothing() {
    let dir = scratch("said-compare-nothing");
    let out = dir.join("out");
    let broken = dir.join("broken.json");
    std::fs::write(&broken, "{\"name\": ").unwrap();
    for file in [dir.join("missing.json"), broken] {
        refused(
            &["compare", text(&file), "--out", text(&out)],
            &[&file.display().to_string()],
        );
        assert!(!out.exists(), "{} left {}", file.display(), out.display());
    }
}

#[test]
fn a_window_past_the_largest_says_the_largest_at_its_place() {
    let dir = scratch("said-window");
    let scenario = String::from_utf8(read(SCENARIO)).unwrap();
    let check = |value: &str, message: &str| {
        let text_of = scenario.replacen("\"window\": 6000", &format!("\"window\": {value}"), 1);
        assert_ne!(text_of, scenario, "the scenario sets a window of 6000");
        let file = dir.join("window.json");
        std::fs::write(&file, &text_of).unwrap();
        let (n, line) = text_of
            .lines()
            .enumerate()
            .find(|(_, l)| l.contains("\"window\""))
            .unwrap();
        // serde_json places an error at the value's last character.
        let column = line.find(value).unwrap() + value.len();
        refused(
            &["validate", text(&file)],
            &[&format!(
                "{}:{}:{column}: not a scenario: {message}",
                file.display(),
                n + 1
            )],
        );
    };
    check(
        "1e20",
        &format!(
            "the window 1e20 is over the largest accepted, {} tokens",
            thousands(u64::MAX)
        ),
    );
    check("2e5", "write the window as a whole number of tokens: 200000");
}

#[test]
fn a_tool_given_twice_is_refused_at_its_place_not_at_run_time() {
    let dir = scratch("said-tool-twice");
    let scenario = String::from_utf8(read(SCENARIO)).unwrap();
    let at = scenario.find("\"tools\": {").expect("tools") + "\"tools\": {".len();
    let twice = format!(
        "{}\n    \"get_order\": {{\"description\": \"again\", \"parameters\": {{\"type\": \"object\"}}, \"results\": []}},{}",
        &scenario[..at],
        &scenario[at..]
    );
    let file = dir.join("twice.json");
    std::fs::write(&file, twice).unwrap();
    for command in ["validate", "run"] {
        let err = refused(
            &[command, text(&file)],
            &[
                &format!("{}:", file.display()),
                "the name \"get_order\" is given twice here; give each once",
            ],
        );
        assert!(!err.contains("no fixture result"), "{err}");
    }
}

/// The files in `dir`, by name.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_trace_into_a_folder_goes_inside_it_and_a_place_that_cannot_be_is_refused_before_the_run() {
    let dir = scratch("said-trace");
    let folder = dir.join("traces");
    std::fs::create_dir_all(&folder).unwrap();
    let out = ctxbench()
        .args(["run", SCENARIO, "--strategy", "truncate+drop", "--trace", text(&folder)])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let inside = names(&folder);
    assert_eq!(inside.len(), 1, "{inside:?}");
    assert!(
        inside[0].starts_with("bike-shop-return--") && inside[0].ends_with(".jsonl"),
        "{inside:?}"
    );
    let calls = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .count();
    assert_eq!(
        String::from_utf8(read(folder.join(&inside[0])))
            .unwrap()
            .lines()
            .count(),
        calls
    );
    assert_eq!(names(&dir), ["traces"], "nothing beside the folder, no traces.tmp");

    // A file where a folder must be: refused before anything runs, nothing left behind.
    let file = dir.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let under = file.join("trace.jsonl");
    let out = ctxbench()
        .args(["run", SCENARIO, "--trace", text(&under)])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "--trace {}: {} is a file, not a folder",
            under.display(),
            file.display()
        )),
        "{err}"
    );
    assert!(
        out.stdout.is_empty(),
        "nothing ran: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(names(&dir), ["a-file", "traces"]);

    let help = ctxbench().args(["run", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        help.contains("given a folder (one that exists, or a name ending in /), into it as SCENARIO--STRATEGY.jsonl"),
        "{help}"
    );
}

#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    let dir = scratch("said-closed-pipe");
    let calls = dir.join("calls.json");
    std::fs::write(
        &calls,
        r#"{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}"#,
    )
    .unwrap();
    let compared = dir.join("compared");
    let swept = dir.join("swept");
    // Results for gate, written with stdout open.
    let baseline = dir.join("baseline");
    let done = ctxbench()
        .args([
            "compare",
            SCENARIO,
            "--strategies",
            "truncate,drop",
            "--seeds",
            "1",
            "--out",
            text(&baseline),
        ])
        .output()
        .unwrap();
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    let results = baseline.join("results.csv");
    let commands: [&[&str]; 11] = [
        &["presets"],
        &["strategies"],
        &["prices"],
        &["profiles"],
        &["validate", SCENARIO],
        &["run", SCENARIO],
        &["compact", "--window", "100", text(&calls)],
        &[
            "compare",
            SCENARIO,
            "--strategies",
            "truncate,drop",
            "--seeds",
            "2",
            "--out",
            text(&compared),
        ],
        &["gate", "--baseline", text(&results), "--current", text(&results)],
        &[
            "sweep",
            SCENARIO,
            "--strategies",
            "drop",
            "--threshold",
            "0.8",
            "--seeds",
            "1",
            "--out",
            text(&swept),
        ],
        &["--help"],
    ];
    for args in commands {
        let mut child = Process::new(assert_cmd::cargo::cargo_bin("ctxbench"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starts");
        // The reader goes before the command writes a line.
        drop(child.stdout.take());
        let mut stderr = String::new();
        child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "{args:?}: {stderr}");
        assert!(
            !stderr.contains("panicked") && !stderr.contains("error"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn a_closed_stderr_loses_its_lines_not_the_run() {
    let dir = scratch("said-closed-stderr");
    let compared = dir.join("compared");
    // (the command, the exit it must give): compare writes its settings, progress and notes to
    // stderr; a file that does not exist is an error said there.
    let commands: [(&[&str], i32); 3] = [
        (
            &[
                "compare",
                SCENARIO,
                "--strategies",
                "truncate,drop",
                "--seeds",
                "2",
                "--out",
                text(&compared),
            ],
            0,
        ),
        (&["validate", SCENARIO], 0),
        (&["validate", "no-such-scenario.json"], 2),
    ];
    for (args, code) in commands {
        let mut child = Process::new(assert_cmd::cargo::cargo_bin("ctxbench"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starts");
        // The reader of stderr goes first (`2>/dev/full`, or a closed `2>&1 | head`).
        drop(child.stderr.take());
        let mut stdout = String::new();
        child.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(code), "{args:?}: {stdout}");
    }
    assert!(compared.join("results.csv").exists(), "compare finished its results");
}
