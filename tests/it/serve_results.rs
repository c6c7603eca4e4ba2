//! `serve`'s results are results like any other: the same row, so `gate` holds one session of an
//! outside agent against another and `merge` joins the sessions of several servers.

use std::path::Path;

use crate::cmd::{ctxbench, read, scratch};
use crate::serve::Served;

const SCENARIO: &str = "scenarios/bike-shop-return.json";

/// Serves the scenario to one client run per `(user, strategy)`, then stops; returns the results
/// file it wrote.
fn session(dir: &Path, clients: &[(&str, &str)]) -> std::path::PathBuf {
    let served = Served::start(SCENARIO, dir, &[]);
    for (user, strategy) in clients {
        ctxbench()
            .env("CTXBENCH_API_KEY", "x")
            .args([
                "run",
                SCENARIO,
                "--strategy",
                strategy,
                "--model",
                "scripted",
                "--user",
                user,
            ])
            .arg("--endpoint")
            .arg(format!("{}/v1", served.url))
            .assert()
            .success();
    }
    let log = served.stop();
    assert!(log.contains("wrote"), "{log}");
    dir.join("results.csv")
}

fn text(output: &[u8]) -> String {
    String::from_utf8_lossy(output).into_owned()
}

/// `ctxbench merge FILES -o OUT`: its exit code and what it said on stderr.
fn merge(files: &[&Path], out: &Path) -> (i32, String) {
    let output = ctxbench()
        .arg("merge")
        .args(files)
        .arg("-o")
        .arg(out)
        .output()
        .expect("merge runs");
    (output.status.code().unwrap_or(-1), text(&output.stderr))
}

#[test]
fn serves_results_go_through_gate_and_merge() {
    let dir = scratch("serve-results");
    let monday = session(&dir.join("monday"), &[("alice", "none"), ("bob", "truncate+drop")]);
    let tuesday = session(&dir.join("tuesday"), &[("alice", "none"), ("bob", "truncate+drop")]);
    let rows = text(&read(&monday));
    assert!(rows.contains(",alice,chat,") && rows.contains(",bob,chat,"), "{rows}");

    // The same agent twice: the gate passes, exactly.
    let same = ctxbench()
        .args(["gate", "--exact", "--baseline"])
        .arg(&monday)
        .arg("--current")
        .arg(&tuesday)
        .assert()
        .code(0);
    let said = text(&same.get_output().stdout);
    assert!(said.contains("passed") && said.contains("2 rows"), "{said}");

    // Bob's client compacting worse: the gate fails and names the run by its label.
    let worse = session(&dir.join("wednesday"), &[("alice", "none"), ("bob", "none")]);
    let gated = ctxbench()
        .args(["gate", "--baseline"])
        .arg(&monday)
        .arg("--current")
        .arg(&worse)
        .assert()
        .code(1);
    let said = text(&gated.get_output().stdout);
    assert!(said.contains("bike-shop-return · bob"), "{said}");
    assert!(
        !said.contains("bike-shop-return · alice"),
        "alice did not change: {said}"
    );

    // A served baseline cannot be run again in process: said, with what to do.
    let rerun = ctxbench().args(["gate", "--baseline"]).arg(&monday).assert().code(2);
    let said = text(&rerun.get_output().stderr);
    assert!(said.contains("outside agent") && said.contains("--current"), "{said}");

    // Two servers' sessions merge into one file, in the rows' order; the same session twice
    // is refused, naming the run.
    let other = session(&dir.join("other"), &[("carol", "drop")]);
    let merged = dir.join("merged.csv");
    assert_eq!(merge(&[&monday, &other], &merged).0, 0);
    let rows = text(&read(&merged));
    let labels: Vec<&str> = rows
        .lines()
        .skip(1)
        .map(|l| {
            if l.contains(",alice,") {
                "alice"
            } else if l.contains(",bob,") {
                "bob"
            } else {
                "carol"
            }
        })
        .collect();
    assert_eq!(labels, ["alice", "bob", "carol"], "{rows}");
    let (code, said) = merge(&[&monday, &monday], &dir.join("twice.csv"));
    assert_eq!(code, 2, "{said}");
    assert!(said.contains("bike-shop-return · alice appears twice"), "{said}");
    assert!(!dir.join("twice.csv").exists(), "nothing half-written");

    // serve's rows cannot be mixed into a results file of the loop's own runs.
    let compared = dir.join("compare");
    ctxbench()
        .args([
            "compare",
            SCENARIO,
            "--strategies",
            "none",
            "--no-tune",
            "--seeds",
            "1",
            "--no-plots",
            "--out",
        ])
        .arg(&compared)
        .assert()
        .success();
    let (code, said) = merge(&[&compared.join("results.csv"), &monday], &dir.join("mixed.csv"));
    assert_eq!(code, 2, "{said}");
    assert!(said.contains("cannot share a results file"), "{said}");
}
