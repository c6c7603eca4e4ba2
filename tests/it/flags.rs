//! The flags that `compare`, `run`, `sweep` and `serve` share (issue 44): their help, and what
//! each command does with a list or range of values, which only `sweep` runs.

use crate::cmd::{ctxbench, read, scratch};

/// `ctxbench <command> --help`'s text.
fn help(command: &str) -> String {
    let output = ctxbench().args([command, "--help"]).output().expect("runs");
    assert!(output.status.success(), "{command} --help");
    String::from_utf8(output.stdout).expect("UTF-8")
}

#[test]
fn compare_help_is_stable() {
    insta::assert_snapshot!(help("compare"));
}

#[test]
fn run_help_is_stable() {
    insta::assert_snapshot!(help("run"));
}

#[test]
fn sweep_help_is_stable() {
    insta::assert_snapshot!(help("sweep"));
}

#[test]
fn serve_help_is_stable() {
    insta::assert_snapshot!(help("serve"));
}

/// A list or range given to a command that runs one configuration is refused with exit 2, in
/// words that name the command, the flag and what was given, and send it to `sweep`; nothing is
/// written.
#[test]
fn a_list_is_refused_by_the_commands_that_run_one_configuration() {
    let dir = scratch("flags-one");
    let out = dir.join("out").display().to_string();
    let scenario = "scenarios/lunch-break.json";
    for (args, said) in [
        (
            &["compare", scenario, "--threshold", "0.5,0.7", "--out", &out][..],
            "error: compare takes one --threshold, not `0.5,0.7`; `ctxbench sweep` runs lists and ranges such as \
             --threshold 0.5:0.95:0.05",
        ),
        (
            &["compare", scenario, "--estimator", "chars4,o200k", "--out", &out][..],
            "error: compare takes one --estimator, not `chars4,o200k`; `ctxbench sweep` runs lists such as \
             --estimator chars4,o200k",
        ),
        (
            &["run", scenario, "--keep", "1..4"][..],
            "error: run takes one --keep, not `1..4`; `ctxbench sweep` runs lists and ranges such as --keep 1..4",
        ),
        (
            &["run", scenario, "--target", "0.4:0.6:0.1"][..],
            "error: run takes one --target, not `0.4:0.6:0.1`;",
        ),
        (
            &["compare", scenario, "--reply-reserve", "0,500", "--out", &out][..],
            "error: compare takes one --reply-reserve, not `0,500`;",
        ),
        (
            &["serve", scenario, "--window", "4000,8000", "--port", "0", "--out", &out][..],
            "error: serve takes one --window, not `4000,8000`; `ctxbench sweep` runs lists and ranges such as \
             --window 4000,8000,32000",
        ),
    ] {
        let output = ctxbench().args(args).output().expect("runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.starts_with(said), "{args:?}: {stderr}");
    }
    assert!(!dir.join("out").exists(), "nothing written");
}

/// `sweep` still runs every combination of the lists and ranges the same flags take.
#[test]
fn sweep_runs_the_lists_and_ranges() {
    let dir = scratch("flags-sweep");
    let output = ctxbench()
        .args([
            "sweep",
            "scenarios/lunch-break.json",
            "--strategies",
            "drop",
            "--seeds",
            "1",
        ])
        .args(["--threshold", "0.5:0.7:0.1", "--keep", "1..2", "--window", "4000,6000"])
        .args(["--estimator", "chars4, o200k", "--no-plots", "--out"])
        .arg(&*dir)
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let csv = String::from_utf8(read(dir.join("results.csv"))).expect("UTF-8");
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let at = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let mut seen: Vec<String> = lines
        .map(|line| {
            let row: Vec<&str> = line.split(',').collect();
            ["window", "threshold", "keep_recent_turns", "estimator"]
                .map(|c| row[at(c)])
                .join(" ")
        })
        .collect();
    seen.sort();
    let mut want = Vec::new();
    for window in ["4000", "6000"] {
        for threshold in ["0.5", "0.6", "0.7"] {
            for keep in ["1", "2"] {
                for estimator in ["chars4", "o200k"] {
                    want.push(format!("{window} {threshold} {keep} {estimator}"));
                }
            }
        }
    }
    want.sort();
    assert_eq!(seen, want);
}
