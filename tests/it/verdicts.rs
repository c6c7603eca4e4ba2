//! `compare` ends with a verdict: on the bundled suite, no run that stopped is ranked, each
//! scenario has its pick, and the suite its leaderboard (`reports/verdict.json`).

use crate::cmd::{ctxbench, scratch};

#[test]
fn the_bundled_suite_ends_with_verdicts_and_a_leaderboard() {
    let dir = scratch("verdicts");
    let output = ctxbench()
        .args(["compare", "scenarios", "--out"])
        .arg(&dir)
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let verdict: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("verdict.json")).expect("verdict.json")).expect("JSON");
    assert_eq!(verdict["objective"], serde_json::json!(["facts_lost", "cost_usd"]));
    let scenarios = verdict["scenarios"].as_array().expect("scenarios");
    assert!(scenarios.len() >= 10, "every bundled scenario");
    let mut stopped = 0;
    for s in scenarios {
        for entry in s["ranked"].as_array().expect("ranked") {
            assert_eq!(entry["completed"], true, "a ranked run completed: {s}");
            assert!(entry.get("why").is_none());
        }
        for entry in s["disqualified"].as_array().expect("disqualified") {
            stopped += usize::from(entry["completed"] == false);
            assert!(entry["why"].as_str().is_some_and(|w| !w.is_empty()), "{entry}");
        }
        // The pick is the first ranked run, or none when nothing qualified.
        assert_eq!(s["pick"], s["ranked"][0]["strategy"]);
        let name = s["scenario"].as_str().expect("a name");
        assert!(stdout.contains(&format!("{name} · ")), "a section for {name}");
    }
    assert!(
        stopped > 0,
        "the bundled suite has runs that stop, so the rule is exercised"
    );
    assert_eq!(
        stdout.matches("  → ").count(),
        scenarios.len(),
        "one verdict line per scenario"
    );
    let suite = &verdict["suite"];
    let board = suite["leaderboard"].as_array().expect("a leaderboard");
    assert_eq!(board.len(), 10, "every standard strategy");
    assert_eq!(suite["pick"], board[0]["strategy"]);
    let most = board.iter().filter_map(|s| s["qualified"].as_u64()).max();
    assert_eq!(
        board[0]["qualified"].as_u64(),
        most,
        "the pick qualifies on the most scenarios"
    );
    assert!(stdout.contains("recommendation: "));
}
