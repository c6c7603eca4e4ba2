//! `compare` ends with a verdict: on the bundled suite, no run that stopped is ranked, each
//! scenario has its pick, and the suite its leaderboard (`reports/verdict.json`).

use crate::cmd::{ctxbench, read, scratch};

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
        // The pick is the first ranked run, or none when nothing qualified; with it, the lines
        // that construct it (what the Python and Node packages and the Rust library take).
        assert_eq!(s["pick"], s["ranked"][0]["strategy"]);
        if let Some(pick) = s["pick"].as_str() {
            let brief = pick.parse::<ctxbench_compact::Strategy>().expect("a strategy").brief();
            let python = s["use"]["python"].as_str().expect("a Python line");
            assert!(python.starts_with(&format!("Compactor({brief:?}, window=")), "{python}");
            let node = s["use"]["node"].as_str().expect("a Node line");
            assert!(
                node.starts_with(&format!("new Compactor({brief:?}, {{ window: ")),
                "{node}"
            );
            let rust = s["use"]["rust"].as_str().expect("a Rust line");
            assert!(
                rust.starts_with(&format!("Compactor::new({brief:?}.parse()?, Policy")),
                "{rust}"
            );
        } else {
            assert!(s["use"].is_null());
        }
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
    assert_eq!(
        board.len(),
        ctxbench_harness::settings::STANDARD_STRATEGIES.len() + ctxbench_harness::settings::NATIVE_DEFAULTS.len(),
        "every standard strategy and native default"
    );
    assert_eq!(suite["pick"], board[0]["strategy"]);
    let most = board.iter().filter_map(|s| s["qualified"].as_u64()).max();
    assert_eq!(
        board[0]["qualified"].as_u64(),
        most,
        "the pick qualifies on the most scenarios"
    );
    assert!(stdout.contains("recommendation: "));
}

/// `compare` on one scenario with extra flags: its stdout and `verdict.json`.
pub(crate) fn compare(name: &str, args: &[&str]) -> (String, serde_json::Value) {
    let dir = scratch(name);
    let output = ctxbench()
        .arg("compare")
        .args(args)
        .args(["--no-plots", "--out"])
        .arg(&dir)
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let verdict =
        serde_json::from_slice(&std::fs::read(dir.join("verdict.json")).expect("verdict.json")).expect("JSON");
    (String::from_utf8(output.stdout).expect("UTF-8"), verdict)
}

/// The mean of a figure of a ranked entry of `verdict.json`.
fn mean(entry: &serde_json::Value, figure: &str) -> f64 {
    entry[figure]["mean"]
        .as_f64()
        .unwrap_or_else(|| panic!("{figure} in {entry}"))
}

#[test]
fn facts_come_before_cents_and_the_trade_is_said() {
    // The standard strategies: the figures and words below are theirs.
    let (stdout, v) = compare(
        "facts-first",
        &["scenarios/unfetchable-facts.json", "--strategies", "standard"],
    );
    let s = &v["scenarios"][0];
    let ranked = s["ranked"].as_array().expect("ranked");
    let least = ranked
        .iter()
        .map(|e| mean(e, "facts_lost"))
        .fold(f64::INFINITY, f64::min);
    assert_eq!(
        mean(&ranked[0], "facts_lost"),
        least,
        "the pick loses no more than any qualifying run"
    );
    assert!(s["pick"].as_str().is_some_and(|p| p.starts_with("summarize")), "{s}");
    // The cheapest run on the front, what it saves and what it loses.
    assert_eq!(
        s["trade"],
        "drop is 18% cheaper and loses 3 of 4 facts in 20 of 20 seeds"
    );
    assert!(
        stdout.contains("→ pick summarize: 0.40 of 4 facts lost in 7 of 20 seeds"),
        "{stdout}"
    );

    let (_, v) = compare(
        "cost-only",
        &[
            "scenarios/unfetchable-facts.json",
            "--objective",
            "cost",
            "--strategies",
            "standard",
        ],
    );
    let s = &v["scenarios"][0];
    let ranked = s["ranked"].as_array().expect("ranked");
    let cheapest = ranked.iter().map(|e| mean(e, "cost_usd")).fold(f64::INFINITY, f64::min);
    assert_eq!(
        mean(&ranked[0], "cost_usd"),
        cheapest,
        "--objective cost picks the cheapest qualifying run"
    );
    assert_eq!(s["pick"], "drop");
    // It names the run that keeps more, with its premium.
    assert_eq!(
        s["trade"],
        "summarize:keep=id/number/decision,ratio=0.1,trigger=limit,place=span,tail=fit,reads=span,carry=0,reread=0,resummarize=true,overlap=0,style=ctxbench loses 0.40 of 4 facts for 21% dearer"
    );
}

#[test]
fn compare_and_sweep_name_the_same_winner_on_the_same_grid() {
    let strategies = "none,truncate,drop,summarize,mask+drop";
    let (_, v) = compare(
        "same-winner",
        &[
            "scenarios/unfetchable-facts.json",
            "--strategies",
            strategies,
            "--seeds",
            "0..4",
        ],
    );
    let dir = scratch("same-winner-sweep");
    let output = ctxbench()
        .args([
            "sweep",
            "scenarios/unfetchable-facts.json",
            "--strategies",
            strategies,
            "--seeds",
            "0..4",
        ])
        .args(["--no-plots", "--out"])
        .arg(&dir)
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let pick = v["scenarios"][0]["pick"].as_str().expect("a pick");
    assert!(
        stdout.contains(&format!("unfetchable-facts: {pick} · ")),
        "compare picks {pick}; sweep says {stdout}"
    );
}

#[test]
fn a_pick_another_price_flips_is_marked_fragile() {
    // lunch-break's user idles past the cache's life: a cold trigger compacts for free then
    // under OpenAI's cache, while under a cache that never holds its requests (a minimum of
    // 4,096 tokens) or under none, other runs win.
    let (stdout, v) = compare("fragile", &["scenarios/lunch-break.json"]);
    let s = &v["scenarios"][0]["sensitivity"];
    assert_eq!(v["scenarios"][0]["pick"], "truncate:preview=150,trigger=cold", "{s}");
    assert_eq!(s["fragile"], true, "{s}");
    assert!(s["holds"].as_u64() < s["of"].as_u64(), "{s}");
    let flips = s["flips"].as_array().expect("flips");
    let flip = |price: &str| {
        flips
            .iter()
            .find(|f| f["price"] == price)
            .unwrap_or_else(|| panic!("{price}: {s}"))
    };
    // Causes are found from the runs: with no cache, the reads the pick relied on are billed in
    // full; under an hour's cache at Anthropic's 4,096-token minimum the cache holds the requests
    // of none (21-29% read) and the pick's compactions are what break it, not the minimum.
    assert!(
        flip("cache none")["cause"]
            .as_str()
            .is_some_and(|c| c.starts_with("with no cache the ") && c.contains("billed in full")),
        "{s}"
    );
    assert!(
        flip("claude-haiku-4-5-1h")["cause"]
            .as_str()
            .is_some_and(|c| c.contains("compactions break the cached prefix")),
        "{s}"
    );
    assert!(
        flip("claude-haiku-4-5")["cause"]
            .as_str()
            .is_some_and(|c| c.contains("4,096")),
        "{s}"
    );
    // The same verdict under the table's own price of the run is no flip.
    assert!(flips.iter().all(|f| f["price"] != "gpt-5.4-mini"), "{s}");
    assert!(stdout.contains("  1* "), "the table marks the pick: {stdout}");
    assert!(stdout.contains("* fragile: flips to"), "{stdout}");
    // A strategy's name is quoted: "flips to none" read as "flips to nothing" (issue 46).
    let words = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("flips to \"none\" under claude-opus-4-6"), "{words}");
    // Every verdict says whether it holds.
    let (stdout, _) = compare(
        "holds",
        &["scenarios/bike-shop-return.json", "scenarios/lunch-break.json"],
    );
    assert_eq!(stdout.matches("holds under ").count(), 2, "{stdout}");
}

#[test]
fn the_same_seeds_give_the_same_bytes_whatever_the_threads() {
    let run = |jobs: &str| {
        let dir = scratch(&format!("threads-{jobs}"));
        let output = ctxbench()
            .args([
                "compare",
                "scenarios/unfetchable-facts.json",
                "scenarios/bike-shop-return.json",
            ])
            .args(["--seeds", "6", "--no-plots", "--jobs", jobs, "--out"])
            .arg(&dir)
            .output()
            .expect("runs");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        dir
    };
    let (one, two) = (run("1"), run("2"));
    for file in ["results.csv", "verdict.json", "summary.md", "index.html"] {
        assert_eq!(
            read(one.join(file)),
            read(two.join(file)),
            "{file} differs with 1 and 2 threads"
        );
    }
}

#[test]
fn the_page_decides() {
    let dir = scratch("page-decides");
    let output = ctxbench()
        .args([
            "compare",
            "scenarios/lunch-break.json",
            "scenarios/unfetchable-facts.json",
            "--strategies",
            "standard",
            "--out",
        ])
        .arg(&dir)
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let page = String::from_utf8(read(dir.join("index.html"))).expect("UTF-8");
    // Cost against facts lost where facts lost differ, its files linked; where no run that
    // qualifies loses one, a line instead; the frontier of one seed gone.
    let name = "unfetchable-facts";
    assert!(
        page.contains(&format!(
            "<a href=\"plots/verdict-{name}.png\">PNG</a> · <a href=\"plots/verdict-{name}.svg\">SVG</a>"
        )),
        "{name}"
    );
    assert!(dir.join(format!("plots/verdict-{name}.png")).exists());
    assert!(page.contains(
        "On lunch-break, no configuration that qualifies loses a fact: no chart of cost against facts lost."
    ));
    assert!(!dir.join("plots/verdict-lunch-break.png").exists());
    assert!(
        !page.contains("frontier-"),
        "no frontier of one seed beside the verdict's chart"
    );
    // Which pick under which price, the flips marked, and the win rate over seeds.
    assert_eq!(page.matches("The pick under each price").count(), 2);
    assert!(
        page.contains("<span class=\"cell flips\" title=\"flips\"><b>cache none</b>"),
        "lunch-break flips without a cache"
    );
    assert!(page.contains("The pick wins in 13 of 20 seeds on each seed's runs alone; it is fragile"));
    // The leaderboard by regret.
    assert!(page.contains("median regret") && page.contains("worst regret"));
    // How to use each pick, in Python, Node and Rust.
    assert!(
        page.contains(
            "<p class=\"use\">Use it. Python: <code>Compactor(&quot;truncate:trigger=cold&quot;, window=6000)</code><br>\
             Node: <code>new Compactor(&quot;truncate:trigger=cold&quot;, { window: 6000 })</code><br>Rust: "
        ),
        "lunch-break's pick as the lines that construct it"
    );
    assert_eq!(page.matches("<p class=\"use\">").count(), 2);
}
