//! What a new user hit, each once: stale reports, Ctrl-C, closed pipes, settings that cannot
//! run, messages in Rust's words, no scenarios folder, flags and plurals, duplicated runs, a
//! grid that limits its best, and sweeps too large for one JSON document.

use std::io::Read as _;
use std::path::Path;
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

use crate::cmd::{ctxbench, read, scratch};

fn run(args: &[&str]) -> (i32, String, String) {
    let output = ctxbench().args(args).output().expect("runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn a_second_run_into_the_same_folder_leaves_nothing_of_the_first() {
    let dir = scratch("stale");
    let out = dir.join("reports");
    let (code, _, stderr) = run(&[
        "compare",
        "scenarios/lunch-break.json",
        "--strategies",
        "none,drop,mask",
        "--out",
        path(&out),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(files(&out.join("traces")).len(), 3);
    std::fs::write(out.join("notes.txt"), "mine").expect("writes");
    let (code, _, stderr) = run(&[
        "compare",
        "scenarios/lunch-break.json",
        "--strategies",
        "none",
        "--out",
        path(&out),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(files(&out.join("traces")), ["lunch-break--none.jsonl"]);
    assert!(
        stderr.contains("removed ") && stderr.contains("an earlier run left in"),
        "{stderr}"
    );
    assert!(out.join("notes.txt").exists(), "a file ctxbench did not write stays");
    // Plots of the first run are gone too: every chart file is one this run embeds.
    let summary = String::from_utf8(read(out.join("summary.md"))).expect("UTF-8");
    for name in files(&out.join("plots")) {
        let stem = name.rsplit_once('.').map_or(name.as_str(), |(s, _)| s);
        assert!(summary.contains(&format!("plots/{stem}.svg")), "{name} is stale");
    }
}

/// `ctxbench ARGS`, started with its stderr piped.
fn spawn(args: &[&str]) -> std::process::Child {
    Process::new(assert_cmd::cargo::cargo_bin("ctxbench"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts")
}

/// Presses Ctrl-C on `child` and waits for it: whether the signal was sent, its exit code and
/// its stderr.
fn ctrl_c(child: std::process::Child) -> (bool, i32, String) {
    signal(child, "-INT")
}

/// Sends `child` a signal (`-INT`, `-TERM`) and waits for it: whether the signal was sent, its
/// exit code and its stderr.
fn signal(mut child: std::process::Child, which: &str) -> (bool, i32, String) {
    let sent = Process::new("kill")
        .args([which, &child.id().to_string()])
        .status()
        .expect("kill runs")
        .success();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("piped")
        .read_to_string(&mut stderr)
        .expect("reads");
    (sent, child.wait().expect("ends").code().unwrap_or(-1), stderr)
}

/// Starts `ctxbench ARGS`, waits until `file` has more than `lines` lines, presses Ctrl-C.
fn interrupt(args: &[&str], file: &Path, lines: usize) -> (i32, String) {
    interrupt_with(args, file, lines, "-INT")
}

/// Starts `ctxbench ARGS`, waits until `file` has more than `lines` lines, sends the signal.
fn interrupt_with(args: &[&str], file: &Path, lines: usize, which: &str) -> (i32, String) {
    let child = spawn(args);
    let started = Instant::now();
    while std::fs::read_to_string(file).map_or(0, |t| t.lines().count()) <= lines {
        assert!(started.elapsed() < Duration::from_secs(120), "no row was written");
        std::thread::sleep(Duration::from_millis(10));
    }
    let (sent, code, stderr) = signal(child, which);
    assert!(sent);
    (code, stderr)
}

#[test]
fn ctrl_c_in_a_sweep_says_how_far_it_got_and_resume_finishes_it() {
    let dir = scratch("interrupt");
    let grid = [
        "sweep",
        "--bundled",
        "--strategies",
        "truncate+drop,mask+drop",
        "--threshold",
        "0.3:0.95:0.025",
        "--keep",
        "1..3",
        "--jobs",
        "2",
        "--no-plots",
        "--out",
    ];
    let out = dir.join("interrupted");
    let args: Vec<&str> = grid.iter().copied().chain([path(&out)]).collect();
    let (code, stderr) = interrupt(&args, &out.join("results.csv.partial"), 5);
    assert_eq!(code, 130, "interrupted (a grid this size takes seconds): {stderr}");
    assert!(
        stderr.contains("interrupted: ") && stderr.contains(" configurations in "),
        "{stderr}"
    );
    assert!(stderr.contains("--resume"), "{stderr}");
    assert!(out.join("results.csv.partial").exists() && !out.join("results.csv").exists());

    let resumed: Vec<&str> = args.iter().copied().chain(["--resume"]).collect();
    let (code, _, stderr) = run(&resumed);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("resuming: "), "{stderr}");
    let whole = dir.join("whole");
    let args: Vec<&str> = grid.iter().copied().chain([path(&whole)]).collect();
    assert_eq!(run(&args).0, 0);
    assert_eq!(
        read(out.join("results.csv")),
        read(whole.join("results.csv")),
        "resumed, the sweep writes what a whole run writes"
    );
    // A resume with other flags is refused: it would mix two grids.
    let (code, _, stderr) = run(&[
        "sweep",
        "--bundled",
        "--strategies",
        "drop",
        "--no-plots",
        "--resume",
        "--out",
        path(&out),
    ]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn ctrl_c_in_compare_says_how_far_it_got() {
    let dir = scratch("interrupt-compare");
    let args = ["compare", "--bundled", "--no-plots", "--out", path(&dir)];
    let (code, stderr) = interrupt(&args, &dir.join("results.csv.partial"), 3);
    assert_eq!(code, 130, "{stderr}");
    assert!(
        stderr.contains("interrupted: ") && stderr.contains(" runs in "),
        "{stderr}"
    );
    assert!(dir.join("results.csv.partial").exists() && !dir.join("results.csv").exists());
    assert_eq!(
        runs_said(&stderr),
        rows_in(&dir.join("results.csv.partial")),
        "{stderr}"
    );
}

/// A hundred thousand seeds start running at once, a block of seeds loaded at a time (they were
/// all loaded first: minutes of padding text, deaf to signals, gigabytes), and SIGTERM, as a
/// job scheduler sends, stops them as Ctrl-C does. The signal waits for rows past the first
/// seed's, which the old way wrote only once every seed was loaded.
#[cfg(unix)]
#[test]
fn a_hundred_thousand_seeds_stream_and_sigterm_stops_them() {
    let dir = scratch("many-seeds");
    let args = [
        "compare",
        "scenarios/bike-shop-return.json",
        "--seeds",
        "100000",
        "--no-plots",
        "--out",
        path(&dir),
    ];
    let (code, stderr) = interrupt_with(&args, &dir.join("results.csv.partial"), 500, "-TERM");
    assert_eq!(code, 130, "{stderr}");
    assert!(
        stderr.contains("interrupted: ") && stderr.contains(" runs in "),
        "{stderr}"
    );
    assert!(dir.join("results.csv.partial").exists() && !dir.join("results.csv").exists());
    // Stopped past the first seed: the runs said are the rows the file holds, the first seed's
    // among them (the phase's own count, said alone, left them out).
    assert_eq!(
        runs_said(&stderr),
        rows_in(&dir.join("results.csv.partial")),
        "{stderr}"
    );
}

/// The runs an interrupted `compare` says its partial file holds.
fn runs_said(stderr: &str) -> usize {
    stderr
        .split("interrupted: ")
        .nth(1)
        .and_then(|rest| rest.split(" runs in ").next())
        .map(|n| n.replace(',', ""))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count of runs: {stderr}"))
}

/// The rows of a results file, its header aside.
fn rows_in(file: &Path) -> usize {
    std::fs::read_to_string(file)
        .expect("the results file")
        .lines()
        .count()
        .saturating_sub(1)
}

/// Ctrl-C once the runs are done, while the reports are written: they are finished first and
/// whole, and the command still exits 130, as a shell expects of an interrupted command. The
/// signal is sent when `results.csv` is in place (its partial file gone) and the charts and the
/// page are still to come; a try whose signal came after the exit is tried again.
#[cfg(unix)]
#[test]
fn ctrl_c_after_the_runs_finishes_the_reports_then_exits_130() {
    let mut landed = 0;
    for attempt in 0..3 {
        let dir = scratch(&format!("interrupt-after-{attempt}"));
        let child = spawn(&["compare", "--bundled", "--out", path(&dir)]);
        let started = Instant::now();
        let partial = dir.join("results.csv.partial");
        while !dir.join("results.csv").exists() || partial.exists() {
            assert!(started.elapsed() < Duration::from_secs(300), "the runs never finished");
            std::thread::sleep(Duration::from_millis(2));
        }
        let (sent, code, stderr) = ctrl_c(child);
        if !sent || code == 0 {
            // The command had finished before the signal (or ignored it: then every try ends
            // here, and the test fails below).
            continue;
        }
        landed += 1;
        assert_eq!(code, 130, "{stderr}");
        assert!(
            stderr.contains("interrupted after the runs: the reports were finished first"),
            "{stderr}"
        );
        for file in [
            "results.csv",
            "results.json",
            "verdict.json",
            "summary.md",
            "index.html",
        ] {
            assert!(dir.join(file).exists(), "{file} was not written: {stderr}");
        }
        let page = String::from_utf8(read(dir.join("index.html"))).expect("UTF-8");
        assert!(page.trim_end().ends_with("</html>"), "the page is whole");
        break;
    }
    assert!(
        landed > 0,
        "3 tries exited 0: Ctrl-C while the reports were written was ignored (or always came too late)"
    );
}

#[test]
fn a_closed_pipe_ends_the_command_quietly() {
    let mut child = Process::new(assert_cmd::cargo::cargo_bin("ctxbench"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["strategies"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    drop(child.stdout.take());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("piped")
        .read_to_string(&mut stderr)
        .expect("reads");
    let status = child.wait().expect("ends");
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn settings_that_cannot_run_are_refused_where_they_are_given() {
    let (code, _, stderr) = run(&["compare", "scenarios/lunch-break.json", "--max-turns", "0"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--max-turns <N>': must be at least 1"), "{stderr}");

    let dir = scratch("window0");
    let mut scenario: serde_json::Value =
        serde_json::from_slice(&read("scenarios/bike-shop-return.json")).expect("JSON");
    scenario["window"] = 0.into();
    let file = dir.join("w0.json");
    std::fs::write(&file, scenario.to_string()).expect("writes");
    for command in ["validate", "compare"] {
        let (code, stdout, stderr) =
            run(&[command, path(&file), "--strategies", "none"][..if command == "validate" { 2 } else { 4 }]);
        assert_eq!(code, 2, "{command}: {stdout}{stderr}");
        assert!(stderr.contains("w0.json: window is 0;"), "{command}: {stderr}");
    }
}

#[test]
fn an_empty_conversation_is_not_imported() {
    let dir = scratch("import-empty");
    let file = dir.join("empty.json");
    std::fs::write(&file, r#"{"messages": [{"role": "system", "content": "hi"}]}"#).expect("writes");
    let out = dir.join("imported");
    let (code, _, stderr) = run(&["import", path(&file), "--out", path(&out)]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("nothing to import"), "{stderr}");
    assert!(!out.exists(), "nothing written");
}

#[test]
fn tool_call_arguments_that_are_not_json_get_a_warning() {
    let dir = scratch("bad-arguments");
    let file = dir.join("body.json");
    std::fs::write(
        &file,
        r#"{"messages": [{"role": "user", "content": "q"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{not json"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "r"}]}"#,
    )
    .expect("writes");
    let (code, stdout, stderr) = run(&["compact", path(&file), "--window", "1000", "--strategy", "drop"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("{not json"), "kept as it was");
    assert!(
        stderr.contains("messages[1]: the arguments of tool call \"c1\" (f) are not JSON"),
        "{stderr}"
    );
}

/// A CSV line's cells, quoted ones kept with their quotes (`"prefix:block=128,min=1024"` is one).
fn csv_cells(line: &str) -> Vec<String> {
    let mut cells = vec![String::new()];
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                cells.last_mut().expect("a cell").push(c);
            }
            ',' if !quoted => cells.push(String::new()),
            _ => cells.last_mut().expect("a cell").push(c),
        }
    }
    cells
}

#[test]
fn gate_update_says_what_it_changed_not_that_it_failed() {
    let dir = scratch("gate-update");
    let reports = dir.join("r");
    assert_eq!(
        run(&[
            "compare",
            "scenarios/lunch-break.json",
            "--strategies",
            "none,drop",
            "--seeds",
            "1",
            "--no-tune",
            "--no-plots",
            "--out",
            path(&reports)
        ])
        .0,
        0
    );
    let baseline = dir.join("baseline.csv");
    let text = String::from_utf8(read(reports.join("results.csv"))).expect("UTF-8");
    // An older, cheaper baseline: the current results are worse than it.
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let at = header.iter().position(|h| *h == "tokens_sent").expect("a column");
    let mut cells = csv_cells(&lines[1]);
    cells[at] = "1".into();
    lines[1] = cells.join(",");
    std::fs::write(&baseline, lines.join("\n") + "\n").expect("writes");
    let (code, stdout, stderr) = run(&[
        "gate",
        "--baseline",
        path(&baseline),
        "--current",
        path(&reports.join("results.csv")),
        "--update",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        !stdout.contains("FAILED") && !stderr.contains("FAILED"),
        "{stdout}{stderr}"
    );
    assert!(
        stdout.contains("baseline.csv (2 rows): 1 row changed (1 worse, 0 better)"),
        "{stdout}"
    );
    assert!(!stderr.contains("1 row changed"), "said once: {stderr}");
    assert_eq!(read(&baseline), read(reports.join("results.csv")));
}

#[test]
fn messages_are_in_the_users_words() {
    let (code, _, stderr) = run(&["compare", "scenarios/lunch-break.json", "--window", "abc"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("`abc` is not a whole number (like 6000)"), "{stderr}");
    assert!(!stderr.contains("invalid digit"), "{stderr}");

    let (code, _, stderr) = run(&["compare", "no-such-file.json"]);
    assert_eq!(code, 2);
    assert_eq!(stderr.trim(), "error: no-such-file.json: no such file or folder");

    let dir = scratch("words");
    let mut scenario: serde_json::Value =
        serde_json::from_slice(&read("scenarios/bike-shop-return.json")).expect("JSON");
    scenario["windw"] = 6000.into();
    let typo = dir.join("typo.json");
    std::fs::write(&typo, serde_json::to_string_pretty(&scenario).expect("JSON")).expect("writes");
    let (code, _, stderr) = run(&["validate", path(&typo)]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("unknown field `windw`; did you mean `window`?"),
        "{stderr}"
    );
    let _ = scenario.as_object_mut().map(|o| o.remove("windw"));
    scenario["window"] = (-5).into();
    std::fs::write(&typo, serde_json::to_string_pretty(&scenario).expect("JSON")).expect("writes");
    let (_, _, stderr) = run(&["validate", path(&typo)]);
    assert!(
        stderr.contains("the window -5 is below 0; give a whole number of tokens"),
        "{stderr}"
    );
    assert!(!stderr.contains("u64"), "{stderr}");

    let bad = dir.join("bad.csv");
    let text = String::from_utf8(read("reports/baseline.csv")).expect("UTF-8");
    std::fs::write(&bad, text.replacen(",0.8,", ",abc,", 1)).expect("writes");
    let (code, _, stderr) = run(&["gate", "--baseline", path(&bad), "--current", "reports/baseline.csv"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("line 2: column `threshold`: `abc` is not a number"),
        "{stderr}"
    );
    assert!(!stderr.contains("deserialize"), "{stderr}");
}

#[test]
fn the_bundled_scenarios_run_from_anywhere() {
    let dir = scratch("anywhere");
    let output = ctxbench().current_dir(&dir).args(["compare"]).output().expect("runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no scenarios/ folder here") && stderr.contains("--bundled"),
        "{stderr}"
    );
    let output = ctxbench()
        .current_dir(&dir)
        .args(["compare", "--bundled", "--strategies", "none,drop", "--no-plots"])
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    // The bundled files are the repository's scenarios/, every one of them.
    let on_disk = files(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios")))
        .into_iter()
        .filter(|f| f.ends_with(".json") && f != "schema.json")
        .count();
    assert_eq!(files(&dir.join("reports/traces")).len(), on_disk * 2);
}

#[test]
fn flags_help_and_plurals() {
    let dir = scratch("flags");
    let out = dir.join("r");
    let (code, _, stderr) = run(&[
        "compare",
        "scenarios/lunch-break.json",
        "--strategies",
        "drop,drop",
        "--seeds",
        "1",
        "--no-tune",
        "--no-plots",
        "--out",
        path(&out),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("note: --strategies drop was given more than once; it runs once"),
        "{stderr}"
    );
    // The line may wrap (at 120 columns) between the count and its noun.
    assert!(
        stderr.replace("\n  ", " ").contains(" and 1 trace ("),
        "a count of one is singular: {stderr}"
    );
    assert!(!out.join("plots").exists(), "--no-plots draws nothing");
    let merged = dir.join("merged.csv");
    let results = out.join("results.csv");
    let (code, _, stderr) = run(&["merge", path(&results), "--out", path(&merged)]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("merged 1 row from 1 file into"), "{stderr}");
    // A compare's rows are in the order they ran, not the order rows are kept: merge sorts them.
    let unsorted = dir.join("unsorted");
    let (code, _, stderr) = run(&[
        "compare",
        "scenarios/lunch-break.json",
        "--strategies",
        "truncate,drop",
        "--seeds",
        "1",
        "--no-tune",
        "--no-plots",
        "--out",
        path(&unsorted),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = run(&["merge", path(&unsorted.join("results.csv")), "--out", path(&merged)]);
    assert_eq!(code, 0, "{stderr}");
    let text = String::from_utf8(read(&merged)).expect("UTF-8");
    let strategies: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap_or(""))
        .collect();
    assert_eq!(strategies, ["drop", "\"truncate:preview=150"], "{text}");
    let (_, help, _) = run(&["compare", "--help"]);
    assert!(
        help.contains("index.html") && help.contains("plots/") && help.contains("verdict.json"),
        "{help}"
    );
    let (code, listing, _) = run(&["strategies"]);
    assert_eq!(code, 0);
    assert!(
        listing.contains("truncate+drop       truncate:preview=150,trigger=threshold+drop"),
        "{listing}"
    );
    assert!(listing.contains("preview=150"), "parameters with their defaults");
}

#[test]
fn a_sweep_says_when_its_best_is_at_the_edge_of_the_grid_and_runs_each_point_once() {
    let dir = scratch("edge");
    let (code, _, stderr) = run(&[
        "sweep",
        "scenarios/lunch-break.json",
        "--strategies",
        "drop",
        "--threshold",
        "0.5,0.6,0.7,0.7",
        "--no-plots",
        "--out",
        path(&dir),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("note: --threshold 0.7 was given more than once; it runs once"),
        "{stderr}"
    );
    assert!(stderr.contains("swept 3 configurations"), "{stderr}");
    assert!(
        stderr.contains("warning: lunch-break: the best --threshold 0.5 is the lowest swept"),
        "{stderr}"
    );
}

#[test]
fn a_large_sweep_writes_json_lines() {
    let dir = scratch("large");
    let (code, _, stderr) = run(&[
        "sweep",
        "scenarios/no-tools-chat.json",
        "--strategies",
        "drop,window",
        "--threshold",
        "0.1:0.99:0.001",
        "--keep",
        "1..6",
        "--no-plots",
        "--out",
        path(&dir),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!dir.join("results.json").exists());
    let text = String::from_utf8(read(dir.join("results.jsonl"))).expect("UTF-8");
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines[0]["schema_version"], 2);
    assert!(lines.len() > 10_001, "{} lines", lines.len());
    assert_eq!(lines[1]["scenario"], "no-tools-chat");
}
