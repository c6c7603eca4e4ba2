//! `ctxbench gate` as CI runs it: exit codes, the rows it names, and an update that can be
//! killed at any moment without leaving a half-written baseline.

use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};
use std::time::Duration;

use crate::cmd::{ctxbench, scratch};

/// Results of two scenarios and three strategies, with extra flags.
fn results(dir: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let out = dir.join(name);
    let status = ctxbench()
        .args([
            "compare",
            "scenarios/parallel-calls.json",
            "scenarios/bike-shop-return.json",
            "--strategies",
            "none,drop,truncate",
            "--seeds",
            "1",
            "--no-tune",
        ])
        .args(extra)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("runs");
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    out.join("results.csv")
}

fn gate(args: &[&str]) -> (i32, String, String) {
    let output = ctxbench().arg("gate").args(args).output().expect("runs");
    let text = |b: Vec<u8>| String::from_utf8(b).expect("UTF-8");
    (
        output.status.code().unwrap_or(-1),
        text(output.stdout),
        text(output.stderr),
    )
}

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

#[test]
fn identical_results_pass() {
    let dir = scratch("same");
    let baseline = results(&dir, "a", &[]);
    // Against a results file, and by running the baseline's configurations again.
    let (code, stdout, stderr) = gate(&["--baseline", path(&baseline), "--current", path(&baseline)]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("gate passed: 6 rows compared, 0 regressed, 0 improved, 6 unchanged"),
        "{stdout}"
    );
    let (code, _, stderr) = gate(&["--baseline", path(&baseline), "--exact"]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn a_worse_threshold_regresses_and_a_better_one_improves() {
    let dir = scratch("threshold");
    // Unpriced and uncached, the bill is the tokens sent.
    let good = results(&dir, "good", &["--price", "none"]);
    let worse = results(&dir, "worse", &["--threshold", "0.95", "--price", "none"]);
    let (code, stdout, stderr) = gate(&[
        "--baseline",
        path(&good),
        "--current",
        path(&worse),
        "--junit",
        path(&dir.join("junit.xml")),
    ]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stdout.contains("| parallel-calls · drop (threshold 0.8 → 0.95, target 0.8 → 0.95) | tokens_sent | 18,821 | 23,274 | +4453 (+23.7%) | regressed |"),
        "{stdout}"
    );
    let junit = std::fs::read_to_string(dir.join("junit.xml")).expect("junit written");
    assert!(
        junit.contains("<testsuite name=\"ctxbench gate\" tests=\"6\""),
        "{junit}"
    );
    assert!(
        junit.contains("<failure message=\"tokens_sent 18,821 → 23,274"),
        "{junit}"
    );

    let (code, stdout, stderr) = gate(&["--baseline", path(&worse), "--current", path(&good)]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("| tokens_sent | 23,274 | 18,821 | -4453 (-19.1%) | improved |"),
        "{stdout}"
    );
    // Within a tolerance, the growth is not a regression; --exact fails on the improvement.
    assert_eq!(
        gate(&["--baseline", path(&worse), "--current", path(&good), "--exact"]).0,
        1
    );

    // Priced, with the cache: compacting earlier sends fewer tokens and costs less, but breaks
    // the cached prefix more often, and the gate says so.
    let good = results(&dir, "good-priced", &[]);
    let worse = results(&dir, "worse-priced", &["--threshold", "0.95"]);
    let (code, stdout, stderr) = gate(&["--baseline", path(&worse), "--current", path(&good)]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let line = |figure: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with("| parallel-calls · drop ") && l.contains(&format!(" | {figure} | ")))
            .unwrap_or_else(|| panic!("{figure} in\n{stdout}"))
            .to_owned()
    };
    assert!(line("tokens_sent").ends_with("| improved |"), "{stdout}");
    assert!(line("cost_usd").ends_with("| improved |"), "{stdout}");
    assert!(line("cache_hit_rate").ends_with("| regressed |"), "{stdout}");
}

#[test]
fn tolerances_and_overrides() {
    let dir = scratch("tolerance");
    let good = results(&dir, "good", &[]);
    // The same results with the first row's tokens_sent 3% higher.
    let text = std::fs::read_to_string(&good).expect("results");
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader.headers().expect("header").clone();
    let column = headers.iter().position(|h| h == "tokens_sent").expect("tokens_sent");
    let mut records: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("a row")).collect();
    let sent: u64 = records[0][column].parse().expect("a number");
    let grown_sent = (sent * 103 / 100).to_string();
    records[0] = records[0]
        .iter()
        .enumerate()
        .map(|(i, cell)| if i == column { grown_sent.as_str() } else { cell })
        .collect();
    let grown = dir.join("grown.csv");
    let mut writer = csv::Writer::from_path(&grown).expect("write");
    writer.write_record(&headers).expect("write");
    for record in &records {
        writer.write_record(record).expect("write");
    }
    writer.flush().expect("write");

    let check = |extra: &[&str], expect: i32| {
        let mut args = vec!["--baseline", path(&good), "--current", path(&grown)];
        args.extend_from_slice(extra);
        let (code, stdout, stderr) = gate(&args);
        assert_eq!(code, expect, "{extra:?}\n{stdout}{stderr}");
    };
    check(&[], 1);
    check(&["--tolerance", "5%"], 0);
    check(&["--tolerance", "2%"], 1);
    check(&["--tolerance", "5%", "--allow", "tokens_sent=+1%"], 1);
    check(&["--allow", &format!("tokens_sent=+{}", sent / 10)], 0);

    let (code, _, stderr) = gate(&[
        "--baseline",
        path(&good),
        "--current",
        path(&grown),
        "--allow",
        "speed=5%",
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("\"speed\" is not a figure of results.csv"), "{stderr}");
}

#[test]
fn unusable_input_exits_2() {
    let dir = scratch("gate-bad");
    let (code, _, stderr) = gate(&["--baseline", path(&dir.join("nope.csv"))]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains(
            "nope.csv does not exist; create it with `ctxbench compare --out reports && cp reports/results.csv"
        ),
        "{stderr}"
    );

    let corrupt = dir.join("corrupt.csv");
    std::fs::write(&corrupt, "scenario,strategy\nx,none,surplus\n").expect("write");
    let (code, _, stderr) = gate(&["--baseline", path(&corrupt)]);
    assert_eq!(code, 2);
    assert!(stderr.contains("corrupt.csv: not a results file"), "{stderr}");

    // Rows on one side only: listed, an error unless --allow-new.
    let both = results(&dir, "both", &[]);
    let out = dir.join("one");
    let status = ctxbench()
        .args([
            "compare",
            "scenarios/bike-shop-return.json",
            "--strategies",
            "none,drop,truncate",
            "--seeds",
            "1",
            "--no-tune",
            "--out",
        ])
        .arg(&out)
        .output()
        .expect("runs");
    assert!(status.status.success());
    let one = out.join("results.csv");
    let (code, stdout, stderr) = gate(&["--baseline", path(&both), "--current", path(&one)]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stdout.contains("Rows only in the baseline:\n- parallel-calls · none · window=5000"),
        "{stdout}"
    );
    // The report says it once: the gate could not decide (it did not pass).
    assert!(
        stdout.contains("gate cannot decide, 3 rows on one side only (--allow-new accepts them)"),
        "{stdout}"
    );
    assert!(!stderr.contains("gate cannot decide"), "said once: {stderr}");
    assert!(!stdout.contains("gate passed") && !stderr.contains("gate passed"));
    assert_eq!(
        gate(&["--baseline", path(&both), "--current", path(&one), "--allow-new"]).0,
        0
    );
}

#[test]
fn the_summary_goes_to_github() {
    let dir = scratch("github");
    let good = results(&dir, "good", &[]);
    let worse = results(&dir, "worse", &["--threshold", "0.95"]);
    let summary = dir.join("summary.md");
    std::fs::write(&summary, "earlier steps\n").expect("write");
    let output = ctxbench()
        .args(["gate", "--baseline", path(&good), "--current", path(&worse)])
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1));
    let text = std::fs::read_to_string(&summary).expect("summary");
    assert!(
        text.starts_with("earlier steps\n### ctxbench gate\n\ngate FAILED"),
        "appended: {text}"
    );
}

#[test]
fn update_is_atomic_even_when_killed() {
    let dir = scratch("update");
    let fresh = std::fs::read_to_string(results(&dir, "fresh", &[])).expect("results");
    // A stale baseline: the same rows with other figures, so that an update changes it.
    let stale: String = fresh
        .lines()
        .enumerate()
        .map(|(i, line)| {
            if i == 0 {
                format!("{line}\n")
            } else {
                format!("{}\n", line.replacen(",6,", ",7,", 1))
            }
        })
        .collect();
    assert_ne!(stale, fresh);
    let baseline = dir.join("baseline.csv");
    let binary = assert_cmd::cargo::cargo_bin("ctxbench");
    // Kill the update at moments spread over its run (about half a second in a debug build);
    // the baseline is always one whole file or the other.
    let mut interrupted = 0;
    for k in 0..16u64 {
        std::fs::write(&baseline, &stale).expect("write");
        let mut child = Process::new(&binary)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["gate", "--update", "--baseline", path(&baseline)])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawns");
        std::thread::sleep(Duration::from_millis(k * 40));
        let _ = child.kill();
        let _ = child.wait();
        let now = std::fs::read_to_string(&baseline).expect("the baseline is still there");
        assert!(
            now == stale || now == fresh,
            "killed after {} ms: a half-written baseline",
            k * 40
        );
        interrupted += usize::from(now == stale);
    }
    assert!(interrupted > 0, "at least one kill landed before the update finished");
    // Left alone, it finishes and says what changed.
    std::fs::write(&baseline, &stale).expect("write");
    let (code, stdout, _) = gate(&["--update", "--baseline", path(&baseline)]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("| model_calls | 7 | 6 | -1 (-14.3%) | improved |"),
        "{stdout}"
    );
    assert_eq!(std::fs::read_to_string(&baseline).expect("baseline"), fresh);
}
