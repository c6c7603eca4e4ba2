//! `ctxbench sweep` and `merge`: the same file whatever the threads, and whether a grid ran whole
//! or in shards.

use crate::cmd::{ctxbench, read, scratch};

fn sweep(args: &[&str], out: &std::path::Path) -> (String, String) {
    let output = ctxbench()
        .arg("sweep")
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    (
        String::from_utf8(output.stdout).expect("UTF-8"),
        String::from_utf8(output.stderr).expect("UTF-8"),
    )
}

/// The files of two sweeps are byte-identical.
fn same_outputs(a: &std::path::Path, b: &std::path::Path) {
    for file in ["results.csv", "results.json", "summary.md"] {
        assert_eq!(read(a.join(file)), read(b.join(file)), "{file}");
    }
}

#[test]
fn a_thousand_configurations_whatever_the_threads() {
    // 12 scenarios × 2 strategies × 10 thresholds × 5 keeps, one seed each.
    let dir = scratch("threads");
    let grid = [
        "--seeds",
        "1",
        "--strategies",
        "truncate+drop,mask+drop",
        "--threshold",
        "0.5:0.95:0.05",
        "--keep",
        "1..5",
    ];
    let (stdout, stderr) = sweep(&[&grid[..], &["--jobs", "2"]].concat(), &dir.join("two"));
    assert!(
        stderr.contains("swept 1,200 configurations, 1,200 runs, in "),
        "the time it took is printed: {stderr}"
    );
    assert!(stdout.contains("best per scenario (fewest facts lost, then lowest cost;"));
    // Facts before cents: runs that lose facts are ranked (after those that lose fewer), not
    // left out, so this scenario has a best too.
    assert!(
        stdout.contains("unfetchable-facts: ") && !stdout.contains("unfetchable-facts: no configuration"),
        "{stdout}"
    );
    sweep(&[&grid[..], &["--jobs", "1"]].concat(), &dir.join("one"));
    same_outputs(&dir.join("two"), &dir.join("one"));
    let csv = String::from_utf8(read(dir.join("two/results.csv"))).expect("UTF-8");
    assert_eq!(csv.lines().count(), 1201);
    // Rows are written in their final order as they are measured: nothing is sorted at the
    // end, and the file is already in the order merge and the gate expect.
    let rows = ctxbench_harness::report::read_csv(&csv).expect("rows");
    for pair in rows.windows(2) {
        assert!(
            ctxbench_harness::sweep::row_order(&pair[0], &pair[1]).is_lt(),
            "{} · {} before {} · {}",
            pair[0].scenario,
            pair[0].settings.strategy,
            pair[1].scenario,
            pair[1].settings.strategy
        );
    }
    // results.json holds the same rows, read back from results.csv one at a time.
    let json: serde_json::Value = serde_json::from_slice(&read(dir.join("two/results.json"))).expect("JSON");
    assert_eq!(json["results"].as_array().map(Vec::len), Some(1200));
}

#[test]
fn shards_merge_into_the_whole() {
    let dir = scratch("shards");
    // Two seeds each: a configuration's seeds stay together in its shard.
    let grid = [
        "--seeds",
        "2",
        "--strategies",
        "drop,mask",
        "--threshold",
        "0.6,0.8",
        "--keep",
        "1..3",
        "--param",
        "mask.m=2,5",
    ];
    sweep(&grid, &dir.join("whole"));
    let fleet = dir.join("fleet");
    let mut merge = ctxbench();
    merge.arg("merge");
    for i in 1..=4 {
        let shard = format!("{i}/4");
        sweep(&[&grid[..], &["--shard", &shard]].concat(), &fleet);
        merge.arg(fleet.join(format!("shard-{i}-of-4/results.csv")));
    }
    // The files of the shards, joined by name.
    let merged = dir.join("merged.csv");
    let output = merge.arg("-o").arg(&merged).output().expect("runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let whole = read(dir.join("whole/results.csv"));
    assert_eq!(
        read(merged),
        whole,
        "merged shards are byte-identical to the whole sweep"
    );
    // The sweep's folder, its shards found there: the same file, and the sweep's reports.
    let output = ctxbench().arg("merge").arg(&fleet).output().expect("runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(read(fleet.join("results.csv")), whole);
    assert_eq!(read(fleet.join("results.json")), read(dir.join("whole/results.json")));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let (whole_out, _) = sweep(&grid, &dir.join("whole"));
    let best = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with("  "))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(
        best(&stdout),
        best(&whole_out),
        "the sweep's best per scenario, by the same rule"
    );
    // 12 scenarios × (drop + mask with m in {2, 5}) × 2 thresholds × 3 keeps × 2 seeds.
    assert_eq!(
        String::from_utf8(whole).expect("UTF-8").lines().count(),
        1 + 12 * 3 * 2 * 3 * 2
    );
    // The same shard twice is caught.
    let twice = ctxbench()
        .args(["merge"])
        .arg(fleet.join("shard-1-of-4/results.csv"))
        .arg(fleet.join("shard-1-of-4/results.csv"))
        .arg("-o")
        .arg(dir.join("bad.csv"))
        .output()
        .expect("runs");
    assert_eq!(twice.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&twice.stderr).contains("appears twice"));
}

#[test]
fn bad_grids_are_named() {
    let dir = scratch("sweep-bad");
    for (args, expect) in [
        (&["--threshold", "0.9:0.5:0.1"][..], "--threshold"),
        (&["--keep", "two"][..], "--keep"),
        (
            &["--strategies", "drop", "--param", "mask.m=5"][..],
            "no strategy in the sweep has a `mask` stage",
        ),
        (&["--shard", "5/4"][..], "expected i/n with 1 ≤ i ≤ n"),
        (&["--objective", "speed"][..], "expected facts, cost, tokens or calls"),
        (
            &["--seeds", "0"][..],
            "--seeds 0: at least one seed, such as --seeds 20",
        ),
        (
            &["--objective", "cost", "--price", "none"][..],
            "--objective cost needs a price",
        ),
        (
            &["--price", "gpt-9"][..],
            "is not a model of the price table; known: gpt-5.4, ",
        ),
        (
            &["--cache", "lru"][..],
            "is not a cache mode; expected none, prefix or breakpoints",
        ),
        (&["--target", "1.5"][..], "the target must be in (0, threshold]"),
        (
            &["--threshold", "0.5", "--target", "0.6,0.7"][..],
            "every --target is above every --threshold",
        ),
        // The largest reserve against the smallest window (real-support-shape's 3,500), before
        // a single run: not a million runs in.
        (
            &[
                "--threshold",
                "0.05:1.0:0.001",
                "--keep",
                "1..16",
                "--reply-reserve",
                "0:4000:100",
            ][..],
            "no-tools-chat.json: invalid policy: the reply reserve (4000) must be smaller than the window (4000)",
        ),
    ] {
        let output = ctxbench()
            .arg("sweep")
            .args(args)
            .arg("--out")
            .arg(&dir)
            .output()
            .expect("runs");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&output.stderr).contains(expect),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

#[test]
fn the_target_is_an_axis_and_cost_the_default_objective() {
    let dir = scratch("target");
    let grid = [
        "scenarios/lunch-break.json",
        "--seeds",
        "1",
        "--strategies",
        "truncate+drop",
        "--threshold",
        "0.7,0.8",
        "--target",
        "0.5,0.75",
    ];
    let (stdout, _) = sweep(&grid, &dir);
    let csv = String::from_utf8(read(dir.join("results.csv"))).expect("UTF-8");
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let headers = reader.headers().expect("header").clone();
    let column = |name: &str| headers.iter().position(|h| h == name).expect(name);
    let pairs: Vec<(String, String)> = reader
        .records()
        .map(|r| r.expect("a row"))
        .map(|r| (r[column("threshold")].to_owned(), r[column("target")].to_owned()))
        .collect();
    // 0.75 is above the threshold 0.7: that configuration is left out.
    assert_eq!(
        pairs,
        [("0.7", "0.5"), ("0.8", "0.5"), ("0.8", "0.75")].map(|(a, b)| (a.to_owned(), b.to_owned()))
    );
    assert!(
        stdout.contains("best per scenario (fewest facts lost, then lowest cost;"),
        "{stdout}"
    );
    assert!(
        stdout.contains("lunch-break: truncate:preview=150,trigger=threshold+drop · window 6,000 · threshold "),
        "{stdout}"
    );
    assert!(
        stdout.contains(" · target 0.5 · "),
        "the lowest target wins here: {stdout}"
    );
}

/// By default a configuration runs once when its first run drew nothing at random, and 20 seeds
/// when it did (a seeded scenario, or a summary written); the same bytes whatever the threads.
#[test]
fn seeds_auto_replicates_what_draws_whatever_the_threads() {
    let dir = scratch("auto");
    let grid = [
        "scenarios/heavy-prefix.json",
        "scenarios/lunch-break.json",
        "--strategies",
        "none,summarize,drop",
        "--threshold",
        "0.6,0.8",
        "--no-plots",
    ];
    let (stdout, stderr) = sweep(&[&grid[..], &["--jobs", "2"]].concat(), &dir.join("two"));
    sweep(&[&grid[..], &["--jobs", "1"]].concat(), &dir.join("one"));
    same_outputs(&dir.join("two"), &dir.join("one"));
    let csv = String::from_utf8(read(dir.join("two/results.csv"))).expect("UTF-8");
    let rows = ctxbench_harness::report::read_csv(&csv).expect("rows");
    let configurations = ctxbench_harness::verdict::configs(&rows);
    let mut once = 0;
    for (scenario, configs) in &configurations {
        for c in configs {
            let draws = *scenario == "lunch-break" || c.first().summarizer_calls > 0;
            let seeds: Vec<u64> = c.runs().map(|r| r.seed).collect();
            if draws {
                assert_eq!(seeds, (0..20).collect::<Vec<u64>>(), "{scenario} · {}", c.strategy());
            } else {
                assert_eq!(seeds, [0], "{scenario} · {}", c.strategy());
                once += 1;
            }
        }
    }
    assert!(once >= 4, "none and drop on heavy-prefix run once: {once}");
    assert!(
        stderr.contains(" drew at random and ran 20 seeds; the others, once"),
        "{stderr}"
    );
    assert!(
        stdout.contains("(20 seeds from 0)") && stdout.contains("(seed 0)"),
        "{stdout}"
    );
    let summary = String::from_utf8(read(dir.join("two/summary.md"))).expect("UTF-8");
    assert!(summary.contains("seeds auto: 20 from 0"), "{summary}");
}

/// A partial file cut inside a configuration's seeds (a killed process) resumes from the last
/// whole configuration, and the sweep ends with what a whole run writes.
#[test]
fn a_resume_drops_a_configuration_cut_short() {
    let dir = scratch("resume-cut");
    let grid = [
        "scenarios/lunch-break.json",
        "--strategies",
        "drop,truncate",
        "--threshold",
        "0.6,0.8",
        "--no-plots",
    ];
    sweep(&grid, &dir.join("whole"));
    let whole = String::from_utf8(read(dir.join("whole/results.csv"))).expect("UTF-8");
    // The header, one configuration's 20 seeds and 5 of the next.
    let cut: String = whole.split_inclusive('\n').take(1 + 20 + 5).collect();
    std::fs::create_dir_all(dir.join("cut")).expect("mkdir");
    std::fs::write(dir.join("cut/results.csv.partial"), cut).expect("writes");
    let (_, stderr) = sweep(&[&grid[..], &["--resume"]].concat(), &dir.join("cut"));
    assert!(
        stderr.contains("resuming: 1 of 4 configurations already in"),
        "{stderr}"
    );
    assert_eq!(read(dir.join("cut/results.csv")), whole.into_bytes());
}
