//! `compare`, `run` and `validate` as a user runs them.

use crate::cmd::{ctxbench, read, scratch};

#[test]
fn compare_is_deterministic_and_writes_reports() {
    let (a, b) = (scratch("compare-a"), scratch("compare-b"));
    for out in [&a, &b] {
        let output = ctxbench().args(["compare", "--out"]).arg(out).output().expect("runs");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let table = String::from_utf8(output.stdout).expect("UTF-8");
        assert!(table.contains("coding-agent") && table.contains("mask:m=10,trigger=threshold,style=ctxbench+drop"));
    }
    for file in ["results.csv", "results.json", "summary.md"] {
        assert_eq!(
            read(a.join(file)),
            read(b.join(file)),
            "{file} differs between two runs"
        );
    }
    assert!(
        !a.join("results.csv.partial").exists(),
        "the partial file is renamed away"
    );
    // A row per configuration (each standard strategy and its tuned variants) and seed: every
    // configuration on the first seed, the ranked ones on 20 where something can vary.
    let csv = String::from_utf8(read(a.join("results.csv"))).expect("UTF-8");
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let mut runs: std::collections::BTreeMap<(String, String, String), usize> = Default::default();
    for r in reader.records() {
        let r = r.expect("a row");
        *runs
            .entry((r[0].to_owned(), r[1].to_owned(), r[4].to_owned()))
            .or_default() += 1;
    }
    let scenarios: std::collections::BTreeSet<&String> = runs.keys().map(|k| &k.0).collect();
    assert_eq!(scenarios.len(), 12, "every scenario");
    for standard in [
        "none",
        "drop",
        "truncate:preview=150,trigger=threshold+drop",
        "window:n=4",
    ] {
        assert_eq!(
            runs.keys().filter(|k| k.1 == standard && k.2 == "0.8").count(),
            12,
            "{standard}"
        );
    }
    assert!(runs.values().all(|&n| n == 1 || n == 20), "{runs:?}");
    assert!(runs.values().any(|&n| n == 1) && runs.values().any(|&n| n == 20));
    assert!(csv.starts_with("scenario,strategy,window,threshold,target,keep_recent_turns,reply_reserve,estimator,tokenizer,overflow,on_overflow,retries_per_compaction,max_turns,price,cache,idle_s,latency,summarizer,model_profile,seed,"));
    let traces = std::fs::read_dir(a.join("traces")).expect("traces/").count();
    let configurations =
        ctxbench_harness::settings::STANDARD_STRATEGIES.len() + ctxbench_harness::settings::NATIVE_DEFAULTS.len();
    assert_eq!(traces, 12 * configurations, "one trace per scenario and strategy");
    let trace = read(a.join("traces/bike-shop-return--drop.jsonl"));
    let first: serde_json::Value =
        serde_json::from_slice(trace.split(|b| *b == b'\n').next().expect("a line")).expect("JSON");
    assert_eq!(first["schema_version"], 1);
}

#[test]
fn run_draws_each_call_and_writes_its_trace() {
    let dir = scratch("run");
    let trace = dir.join("bike.jsonl");
    let output = ctxbench()
        .args([
            "run",
            "scenarios/bike-shop-return.json",
            "--strategy",
            "drop",
            "--trace",
        ])
        .arg(&trace)
        .output()
        .expect("runs");
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    assert!(stdout.contains("window 6,000 · limit 4,800"), "{stdout}");
    assert!(
        stdout.contains("drop (3 dropped)"),
        "the compaction is named on its call:\n{stdout}"
    );
    let lines = String::from_utf8(read(&trace)).expect("UTF-8");
    assert_eq!(lines.lines().count(), 6, "one line per call");
}

#[test]
fn validate_names_what_is_wrong() {
    let output = ctxbench().args(["validate"]).output().expect("runs");
    assert!(output.status.success());
    assert_eq!(
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter(|l| l.starts_with("ok "))
            .count(),
        12
    );

    let dir = scratch("validate");
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        r#"{"name": "x", "requests": [{"user": "hi", "steps": [{"tool_calls": [{"name": "nope"}]}]}]}"#,
    )
    .expect("write");
    let output = ctxbench().arg("validate").arg(&bad).output().expect("runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("bad.json: request 1, step 1: unknown tool \"nope\""),
        "{stderr}"
    );
}

#[test]
fn a_scenario_without_a_window_needs_one() {
    let dir = scratch("window");
    let file = dir.join("nowindow.json");
    std::fs::write(
        &file,
        r#"{"name": "x", "requests": [{"user": "hi", "steps": [{"reply": "hello"}]}]}"#,
    )
    .expect("write");
    let output = ctxbench()
        .arg("compare")
        .arg(&file)
        .arg("--out")
        .arg(dir.join("out"))
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("sets no window; give one with --window"));
    let output = ctxbench()
        .arg("compare")
        .arg(&file)
        .args(["--window", "500", "--out"])
        .arg(dir.join("out"))
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}

#[test]
fn compare_formats() {
    let dir = scratch("formats");
    let args = [
        "compare",
        "scenarios/bike-shop-return.json",
        "scenarios/unfetchable-facts.json",
        "--strategies",
        "none,truncate,drop,summarize",
    ];
    let out = |format: &str| {
        let output = ctxbench()
            .args(args)
            .args(["--format", format, "--out"])
            .arg(dir.join(format))
            .output()
            .expect("runs");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).expect("UTF-8")
    };
    let table = out("table");
    insta::assert_snapshot!("compare_table", table);
    for line in table.lines() {
        assert!(line.chars().count() <= 120, "keeps to 120 columns: {line}");
    }
    assert!(
        table.contains("  → pick") && table.contains("recommendation: "),
        "each scenario has its verdict, the suite its recommendation"
    );
    insta::assert_snapshot!("compare_markdown", out("markdown"));
    let summary = std::fs::read_to_string(dir.join("table/summary.md")).expect("summary.md");
    let summary = summary.split("\n![").next().unwrap_or_default().to_owned();
    insta::assert_snapshot!("compare_summary", summary);
    let csv = out("csv");
    assert_eq!(
        csv.as_bytes(),
        read(dir.join("csv/results.csv")),
        "--format csv prints results.csv"
    );
    let json: serde_json::Value = serde_json::from_str(&out("json")).expect("JSON");
    assert!(
        json["results"].as_array().is_some_and(|r| r.len() > 8),
        "every seed's row"
    );
    // The head names the shipped profiles with their numbers: a decision at the published ratio.
    assert_eq!(json["profiles"]["summarizer"][0]["name"], "published");
    assert_eq!(json["profiles"]["summarizer"][0]["keep"]["decision"][0][1], 0.77);
}

#[test]
fn plot_draws_from_a_reports_folder() {
    let dir = scratch("plot");
    let output = ctxbench()
        .args([
            "compare",
            "scenarios/no-tools-chat.json",
            "--strategies",
            "none,drop",
            "--no-tune",
            "--out",
        ])
        .arg(dir.join("reports"))
        .output()
        .expect("runs");
    assert!(output.status.success());
    let output = ctxbench()
        .arg("plot")
        .arg(dir.join("reports"))
        .arg("--out")
        .arg(dir.join("charts"))
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let mut names: Vec<String> = std::fs::read_dir(dir.join("charts"))
        .expect("charts/")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    // `none` overflows here, so one run completed: one point is no frontier, and none is drawn.
    assert_eq!(
        names,
        [
            "bill-no-tools-chat.png",
            "bill-no-tools-chat.svg",
            "well-no-tools-chat.png",
            "well-no-tools-chat.svg"
        ]
    );
    let empty = dir.join("empty.csv");
    std::fs::write(&empty, "").expect("write");
    let output = ctxbench()
        .arg("plot")
        .arg(&empty)
        .arg("--out")
        .arg(dir.join("none"))
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("nothing to draw"));
}

#[test]
fn top_level_help_is_stable() {
    let output = ctxbench().arg("--help").output().expect("runs");
    assert!(output.status.success());
    insta::assert_snapshot!(String::from_utf8(output.stdout).expect("UTF-8"));
}

#[test]
fn prices_lists_the_table_with_the_default_marked() {
    let output = ctxbench().args(["prices", "--sources"]).output().expect("runs");
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    for price in ctxbench_harness::billing::price::Price::table() {
        let name = price.name.as_deref().expect("a named preset");
        assert!(stdout.lines().any(|l| l.starts_with(name)), "{name} in\n{stdout}");
    }
    assert!(stdout.contains("gpt-5.4-mini (default)"), "{stdout}");
    assert!(stdout.contains("    https://"), "sources are printed: {stdout}");
}
