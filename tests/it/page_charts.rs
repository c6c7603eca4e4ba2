//! The page's charts as a new user reads them (issue 46): `plot --help` lists the charts that are
//! drawn, from the one list of kinds.

use ctxbench_harness::plot::{KINDS, charts, kind_of};
use ctxbench_harness::report::ResultRow;
use ctxbench_harness::run::run_scenario;
use ctxbench_harness::scenario::load_scenario;
use ctxbench_harness::settings::RunSettings;
use ctxbench_harness::trace::CallRecord;

use crate::cmd::{ctxbench, read, scratch};

/// `scenario` run with each of `strategies` at each of `thresholds`, on `seeds`: its traces (the
/// first seed's) and rows, each configuration's seeds one after another.
fn runs(
    scenario: &str,
    strategies: &[&str],
    thresholds: &[f64],
    seeds: std::ops::Range<u64>,
) -> (Vec<Vec<CallRecord>>, Vec<ResultRow>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("scenarios/{scenario}.json"));
    let mut traces = Vec::new();
    let mut rows = Vec::new();
    for strategy in strategies {
        for &threshold in thresholds {
            for seed in seeds.clone() {
                let scenario = load_scenario(&path, seed).expect("loads");
                let settings = RunSettings {
                    seed,
                    threshold,
                    ..RunSettings::new(strategy.parse().expect("valid"))
                }
                .resolved(&scenario)
                .expect("valid");
                let result = run_scenario(&scenario, &settings, &mut |_| {}).expect("runs");
                rows.push(ResultRow::new(&scenario.name, settings, result.metrics));
                if seed == seeds.start && threshold == thresholds[0] {
                    traces.push(result.trace);
                }
            }
        }
    }
    (traces, rows)
}

/// The stems a block of `plot --help` lists: its lines `  stem  what it shows`.
fn listed(block: &str) -> Vec<&str> {
    block
        .lines()
        .filter_map(|l| l.strip_prefix("  "))
        .filter(|l| !l.starts_with(' '))
        .filter_map(|l| l.split_whitespace().next())
        .collect()
}

/// The kinds of the charts named, deduplicated, in the list's order.
fn kinds_of<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<&'static str> {
    let names: Vec<&str> = names.into_iter().collect();
    for name in &names {
        assert!(kind_of(name).is_some(), "{name} is of no kind in the list");
    }
    KINDS
        .iter()
        .filter(|k| names.iter().any(|n| k.is(n)))
        .map(|k| k.stem)
        .collect()
}

#[test]
fn plot_help_lists_exactly_the_charts_plot_and_the_page_draw() {
    let output = ctxbench().args(["plot", "--help"]).output().expect("runs");
    assert!(output.status.success());
    let help = String::from_utf8(output.stdout).expect("UTF-8");
    let help = help.split("\nUsage:").next().unwrap_or_default();
    let (plot_block, page_block) = help.split_once("`compare`'s page").expect("a word on the page");
    let want = |f: fn(&ctxbench_harness::plot::Kind) -> bool| -> Vec<&str> {
        KINDS.iter().filter(|k| f(k)).map(|k| k.stem).collect()
    };
    assert_eq!(listed(plot_block), want(|k| k.plot), "{help}");
    assert_eq!(listed(page_block), want(|k| k.compare && !k.plot), "{help}");
    for kind in want(|k| k.plot && !k.compare) {
        assert!(page_block.contains(kind), "the page draws no {kind}: {help}");
    }

    // What plot draws, from traces and a sweep whose runs allow every chart: the kinds listed.
    let (traces, rows) = runs("unfetchable-facts", &["drop", "summarize"], &[0.6, 0.8], 0..1);
    let drawn = charts(&traces, &rows);
    assert_eq!(
        kinds_of(drawn.iter().map(|c| c.name.as_str())),
        want(|k| k.plot),
        "{:?}",
        drawn.iter().map(|c| &c.name).collect::<Vec<_>>()
    );

    // What compare's page draws: only kinds the list gives it, the verdict's chart among them.
    let dir = scratch("page-kinds");
    let output = ctxbench()
        .args([
            "compare",
            "scenarios/unfetchable-facts.json",
            "--strategies",
            "drop,summarize",
            "--seeds",
            "3",
            "--out",
        ])
        .arg(&dir)
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let page = String::from_utf8(read(dir.join("index.html"))).expect("UTF-8");
    let names: Vec<&str> = page
        .split("<a href=\"plots/")
        .skip(1)
        .filter_map(|s| s.split_once(".svg\">SVG</a>").map(|(n, _)| n))
        .collect();
    let on_page = kinds_of(names);
    assert!(on_page.contains(&"verdict"), "{on_page:?}");
    for stem in &on_page {
        assert!(want(|k| k.compare).contains(stem), "{stem} is on the page");
    }
}
