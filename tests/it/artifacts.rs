//! The artifact probe (`scenarios/probes/changed-files.json`): a coding agent changes four files
//! early and is asked at the end which ones. `compare` counts, per strategy, the changed files
//! its last answer went without (`facts_lost`): none keeps every one; a summary loses some, by
//! the summarizer profile's `keep.artifact` when its summarizer reads the calls that name them
//! (`reads=transcript`, Anthropic's compaction), and all of them when it reads the messages' texts only (`summarize`'s
//! default `reads=span`).

use std::collections::BTreeMap;

use crate::cmd::{ctxbench, read, scratch};

/// `compare` of the probe over `seeds` seeds: each strategy's facts lost, summed over the seeds,
/// and its number of runs.
fn lost_by_strategy(strategies: &str, seeds: u32) -> BTreeMap<String, (u64, u32)> {
    let dir = scratch("artifact-probe");
    let output = ctxbench()
        .args([
            "compare",
            "scenarios/probes/changed-files.json",
            "--strategies",
            strategies,
        ])
        .args(["--seeds", &seeds.to_string(), "--no-tune", "--no-plots", "--out"])
        .arg(&*dir)
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let bytes = read(dir.join("results.csv"));
    let mut rows = csv::Reader::from_reader(bytes.as_slice());
    let header = rows.headers().expect("a header").clone();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("{name}: {header:?}"))
    };
    let (strategy, lost) = (column("strategy"), column("facts_lost"));
    let mut by = BTreeMap::new();
    for row in rows.records() {
        let row = row.expect("a row");
        let name = row[strategy].to_owned();
        let entry: &mut (u64, u32) = by.entry(name).or_default();
        entry.0 += row[lost].parse::<u64>().expect("a count");
        entry.1 += 1;
    }
    by
}

#[test]
fn a_summary_loses_changed_files_that_none_keeps() {
    let by = lost_by_strategy("none,summarize,summarize:reads=transcript,anthropic-compact", 10);
    // A strategy's canonical spelling: its name, then its parameters.
    let find = |name: &str, holds: &str| {
        by.iter()
            .find(|(strategy, _)| strategy.starts_with(name) && strategy.contains(holds))
            .map(|(_, lost)| *lost)
            .unwrap_or_else(|| panic!("{name} with {holds}: {by:?}"))
    };
    let none = find("none", "");
    let texts = find("summarize:", "reads=span");
    let calls = find("summarize:", "reads=transcript");
    assert!(none.1 >= 1 && texts.1 >= 1 && calls.1 >= 1, "{by:?}");
    assert_eq!(none.0, 0, "none keeps every changed file: {by:?}");
    assert!(calls.0 > none.0, "a summary that reads the calls loses some: {by:?}");
    assert!(
        calls.0 < 4 * u64::from(calls.1),
        "and keeps some, by keep.artifact: {by:?}"
    );
    // Anthropic's compaction summarizes the agent's own request, calls included.
    let aligned = find("anthropic-compact", "");
    assert!(
        aligned.0 > 0 && aligned.0 < 4 * u64::from(aligned.1),
        "a summary of the agent's request keeps some: {by:?}"
    );
    assert_eq!(
        texts.0,
        4 * u64::from(texts.1),
        "one that reads texts only never sees the files: {by:?}"
    );
}
