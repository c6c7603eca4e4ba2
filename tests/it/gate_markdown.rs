//! `ctxbench gate --markdown FILE`: the report a CI job shows in its summary and posts on a pull
//! request. It says passed or failed first, each changed figure over its seeds with the
//! interval of its change, the verdict in `compare`'s own words, and the fragile picks; a place
//! it cannot write to stops the gate before it runs.

use std::path::{Path, PathBuf};

use crate::cmd::{ctxbench, scratch};

/// Results of two scenarios and `strategies` over `seeds` seeds, and the folder they are in.
fn results(dir: &Path, strategies: &str, seeds: &str) -> PathBuf {
    let out = dir.join(format!("seeds-{seeds}"));
    let output = ctxbench()
        .args([
            "compare",
            "scenarios/parallel-calls.json",
            "scenarios/bike-shop-return.json",
            "--strategies",
            strategies,
            "--seeds",
            seeds,
            "--no-tune",
            "--no-plots",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    out
}

/// The gate with `--markdown`: its exit code, stdout, stderr.
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

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `12345` → `12,345`, as people read it.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn a_pass_says_so_first_and_gives_the_verdict_compare_gives() {
    let dir = scratch("gate-md-pass");
    // summarize draws at random: on one seed, its scenarios' picks rest on one draw.
    let out = results(&dir, "none,drop,truncate,summarize", "1");
    let baseline = out.join("results.csv");
    let report = dir.join("reports/gate.md");
    // The baseline's configurations run again, and again under the other prices and profiles.
    let (code, stdout, stderr) = gate(&["--baseline", path(&baseline), "--markdown", path(&report)]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    // The terminal's report is what it was.
    assert!(
        stdout.starts_with("### ctxbench gate\n\ngate passed: 8 rows compared"),
        "{stdout}"
    );
    let text = read(&report);
    let first = text.lines().next().unwrap_or_default();
    assert_eq!(
        first, "**ctxbench gate passed**: 8 rows compared, 0 regressed, 0 improved, 8 unchanged",
        "{text}"
    );
    assert!(
        text.contains("Nothing: every figure of the 8 rows equals the baseline."),
        "{text}"
    );
    // Each scenario's verdict in the words compare's summary.md uses, checked under the same
    // prices and profiles.
    let summary = read(&out.join("summary.md"));
    let lines: Vec<&str> = summary
        .lines()
        .filter_map(|l| l.strip_prefix("**Verdict:** "))
        .collect();
    assert_eq!(lines.len(), 2, "{summary}");
    for line in &lines {
        assert!(text.contains(line), "{line}\nnot in\n{text}");
    }
    // The suite's recommendation, and the fragile picks: every pick that rests on one draw.
    assert!(text.contains("**Recommendation: "), "{text}");
    let fragile = text.split("## Fragile picks").nth(1).expect("a fragile picks section");
    assert!(summary.contains("rests on one draw"), "{summary}");
    for scenario in ["parallel-calls", "bike-shop-return"] {
        let one_draw = summary
            .split("### ")
            .any(|s| s.starts_with(scenario) && s.contains("rests on one draw"));
        assert_eq!(
            fragile.contains(&format!("- **{scenario}**: pick ")),
            one_draw,
            "{scenario}:\n{fragile}"
        );
    }
    // No temporary file is left beside it; the lines stay readable in a comment.
    assert!(!dir.join("reports/gate.md.tmp").exists());
    assert!(text.len() < 65_536);
}

#[test]
fn a_changed_figure_is_said_with_its_interval_over_seeds() {
    let dir = scratch("gate-md-changed");
    let current = results(&dir, "none,drop,truncate", "3").join("results.csv");
    // The baseline: the same rows with parallel-calls · drop sending 100, 200 and 300 fewer
    // tokens on its three seeds, so that now it sends more.
    let mut reader = csv::Reader::from_path(&current).expect("results");
    let headers = reader.headers().expect("header").clone();
    let at = |name: &str| headers.iter().position(|h| h == name).expect(name);
    let (sent, scenario, strategy) = (at("tokens_sent"), at("scenario"), at("strategy"));
    let mut records: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("a row")).collect();
    let mut now = Vec::new();
    for record in &mut records {
        if &record[scenario] == "parallel-calls" && &record[strategy] == "drop" {
            let value: u64 = record[sent].parse().expect("a number");
            now.push(value);
            let less = (value - 100 * now.len() as u64).to_string();
            *record = record
                .iter()
                .enumerate()
                .map(|(i, cell)| if i == sent { less.as_str() } else { cell })
                .collect();
        }
    }
    assert_eq!(now.len(), 3, "three seeds of parallel-calls · drop");
    let baseline = dir.join("baseline.csv");
    let mut writer = csv::Writer::from_path(&baseline).expect("write");
    writer.write_record(&headers).expect("write");
    for record in &records {
        writer.write_record(record).expect("write");
    }
    writer.flush().expect("write");

    let report = dir.join("gate.md");
    let (code, stdout, stderr) = gate(&[
        "--baseline",
        path(&baseline),
        "--current",
        path(&current),
        "--markdown",
        path(&report),
    ]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("gate FAILED"), "{stdout}");
    let text = read(&report);
    assert!(
        text.starts_with("**ctxbench gate FAILED**: 18 rows compared, 3 regressed, 0 improved, 15 unchanged\n"),
        "{text}"
    );
    // One line for the configuration, over its seeds: the means, the change with its interval.
    let line = text
        .lines()
        .find(|l| l.starts_with("| parallel-calls | drop | tokens_sent | "))
        .unwrap_or_else(|| panic!("no line for the changed figure in\n{text}"));
    let mean_now = now.iter().sum::<u64>() / 3;
    let cells: Vec<&str> = line.split(" | ").collect();
    // The current figures are alike over the seeds; the baseline's differ by 100 (± its interval).
    assert!(cells[3].starts_with(&thousands(mean_now - 200)), "{line}");
    assert!(cells[3].contains(" ±"), "{line}");
    assert_eq!(cells[4], thousands(mean_now), "{line}");
    assert!(cells[5].starts_with("+200 ("), "{line}");
    assert!(
        cells[5].contains("95% interval ") && cells[5].ends_with(" over 3 seeds"),
        "{line}"
    );
    assert_eq!(cells[6], "3 of 3", "{line}");
    assert!(line.ends_with("| regressed |"), "{line}");
    // Given --current, nothing runs again: the prices with another cache are named as left out.
    assert!(
        text.contains("(another cache: the gate ran nothing again, as with --current)"),
        "{text}"
    );
    assert_eq!(
        text.lines().filter(|l| l.contains("| tokens_sent |")).count(),
        1,
        "one line per configuration, not per seed:\n{text}"
    );
}

#[test]
fn a_place_it_cannot_write_stops_it_before_it_runs() {
    let dir = scratch("gate-md-bad");
    let file = dir.join("a-file");
    std::fs::write(&file, "x").expect("write");
    for (place, says) in [
        (dir.to_path_buf(), "it is a folder"),
        (file.join("gate.md"), "cannot create the folder"),
    ] {
        // The scenarios do not exist either: the report's place is checked first.
        let (code, stdout, stderr) = gate(&[
            "--baseline",
            "reports/baseline.csv",
            "--scenarios",
            path(&dir.join("no-such-scenarios")),
            "--markdown",
            path(&place),
        ]);
        assert_eq!(code, 2, "{stdout}{stderr}");
        assert!(
            stderr.contains(&format!(
                "--markdown {}: cannot write the report there",
                place.display()
            )),
            "{stderr}"
        );
        assert!(stderr.contains(says), "{stderr}");
        assert!(stdout.is_empty(), "{stdout}");
    }
}
