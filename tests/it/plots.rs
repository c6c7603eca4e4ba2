//! Charts, checked for what they contain: series, reference lines, marks, labels, the Pareto
//! front; and that a chart draws to the same bytes every time.

use ctxbench_harness::plot::{bill, charts, frontier, pareto, png, points, svg, tokens_and_cost, well};
use ctxbench_harness::report::ResultRow;
use ctxbench_harness::run::run_scenario;
use ctxbench_harness::scenario::load_scenario;
use ctxbench_harness::settings::RunSettings;
use ctxbench_harness::trace::CallRecord;
use proptest::prelude::*;

fn bike_shop(strategies: &[&str]) -> (Vec<Vec<CallRecord>>, Vec<ResultRow>) {
    runs("bike-shop-return", strategies)
}

fn runs(scenario: &str, strategies: &[&str]) -> (Vec<Vec<CallRecord>>, Vec<ResultRow>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("scenarios/{scenario}.json"));
    let scenario = load_scenario(&path, 0).expect("loads");
    let mut traces = Vec::new();
    let mut rows = Vec::new();
    for strategy in strategies {
        let settings = RunSettings::new(strategy.parse().expect("valid"))
            .resolved(&scenario)
            .expect("window");
        let result = run_scenario(&scenario, &settings, &mut |_| {}).expect("runs");
        rows.push(ResultRow::new(&scenario.name, settings, result.metrics));
        traces.push(result.trace);
    }
    (traces, rows)
}

#[test]
fn the_well_shows_each_call_the_window_and_what_happened() {
    let (traces, rows) = bike_shop(&["none", "drop"]);
    let refs: Vec<&Vec<CallRecord>> = traces.iter().collect();
    let chart = well("bike-shop-return", &refs);
    assert_eq!(
        chart.series.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["none", "drop"]
    );
    assert_eq!(
        chart.series[1].points.len(),
        rows[1].metrics.model_calls,
        "one point per call"
    );
    let rules: Vec<f64> = chart.rules.iter().map(|r| r.y).collect();
    assert_eq!(rules, [6000.0, 4800.0], "the window and the threshold");
    use ctxbench_harness::plot::chart::MarkKind;
    assert_eq!(
        chart.marks.iter().filter(|m| m.kind == MarkKind::Overflow).count(),
        1,
        "none overflows once"
    );
    assert!(
        chart.marks.iter().any(|m| m.kind == MarkKind::Compaction),
        "drop compacts"
    );

    // Unpriced, the bill is in tokens: the cumulative line ends at the tokens sent.
    let bill_in_tokens = bill("bike-shop-return", &refs, &|_| None);
    for (series, row) in bill_in_tokens.series.iter().zip(&rows) {
        assert!(series.points.windows(2).all(|w| w[0].1 <= w[1].1), "cumulative");
        assert_eq!(series.points.last().map(|p| p.1), Some(row.metrics.tokens_sent as f64));
    }

    let text = svg(&chart).expect("draws");
    for expected in [
        "bike-shop-return: request size per model call",
        "model call (number)",
        "request size (true tokens)",
        "window (6000 tokens)",
        "threshold (4800 tokens)",
        "overflow: rejected by the server",
        "compaction before the call",
        "drop",
    ] {
        assert!(text.contains(expected), "the SVG shows {expected:?}");
    }
}

#[test]
fn lines_that_coincide_are_drawn_once_and_a_stopped_run_says_why() {
    // On the bike-shop chat, none, mask and window never compact: the same calls, the same sizes.
    let (traces, _) = bike_shop(&["none", "mask", "window", "drop"]);
    let refs: Vec<&Vec<CallRecord>> = traces.iter().collect();
    let chart = well("bike-shop-return", &refs);
    assert_eq!(
        chart.series.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["none, mask, window", "drop"]
    );
    let stopped: Vec<&str> = chart.labels.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(
        stopped,
        ["stopped: overflow"],
        "one label for the three runs that stopped together"
    );
    let bill = bill("bike-shop-return", &refs, &|_| None);
    assert_eq!(bill.panels.len(), 2, "identical panels folded too");
    assert!(
        bill.panels[0].title.starts_with("none, mask, window · "),
        "{}",
        bill.panels[0].title
    );
    // Each strategy keeps its colour whatever else is drawn beside it.
    use ctxbench_harness::report::colour::hex;
    let text = svg(&chart).expect("draws");
    assert!(text.contains(&hex("drop")) && text.contains(&hex("none")));
    assert_ne!(hex("drop"), hex("none"));
}

#[test]
fn pictures_are_the_same_every_time() {
    let (traces, rows) = runs("unfetchable-facts", &["none", "truncate+drop", "summarize"]);
    let all = charts(&traces, &rows);
    assert_eq!(
        all.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
        [
            "well-unfetchable-facts",
            "bill-unfetchable-facts",
            "cost-unfetchable-facts",
            "frontier-unfetchable-facts"
        ]
    );
    for chart in &all {
        let (a, b) = (png(chart).expect("draws"), png(chart).expect("draws"));
        assert!(a.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG");
        assert_eq!(a, b, "{}: byte-identical", chart.name);
        assert_eq!(svg(chart).expect("draws"), svg(chart).expect("draws"));
    }
}

#[test]
fn the_frontier_draws_and_labels_the_pareto_front() {
    // Where facts lost differ (on the bike-shop chat no run that completes loses one).
    let (_, rows) = runs(
        "unfetchable-facts",
        &["none", "drop", "truncate", "summarize", "mask+drop"],
    );
    let chart =
        frontier("unfetchable-facts", &points(&ctxbench_harness::plot::configs(&rows))).expect("facts lost differ");
    let completed = rows.iter().filter(|r| r.metrics.completed).count();
    assert_eq!(chart.series[0].points.len(), completed, "stopped runs are left out");
    let front = &chart.series[1].points;
    assert_eq!(front.len(), chart.labels.len(), "every front point is labelled");
    assert!(
        chart.labels.iter().all(|l| l.text.contains("threshold 0.8 · keep 2")),
        "{:?}",
        chart.labels
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() })]

    /// The front is exactly the non-dominated points: none on it is beaten, every one off it is.
    #[test]
    fn pareto_is_exactly_the_non_dominated(points in prop::collection::vec((0u32..50, 0u32..6), 0..40)) {
        let points: Vec<(f64, f64)> = points.into_iter().map(|(x, y)| (f64::from(x), f64::from(y))).collect();
        let front = pareto(&points);
        let beats = |q: (f64, f64), p: (f64, f64)| q.0 <= p.0 && q.1 <= p.1 && q != p;
        for &i in &front {
            prop_assert!(!points.iter().any(|&q| beats(q, points[i])));
        }
        for (i, &p) in points.iter().enumerate() {
            let on_front = front.iter().any(|&f| points[f] == p);
            prop_assert_eq!(on_front, !points.iter().any(|&q| beats(q, p)), "point {}", i);
        }
    }
}

#[test]
fn the_bill_stacks_each_calls_cost_and_the_flip_shows_against_tokens() {
    let strategies = ["none", "drop", "truncate+drop", "summarize"];
    let (traces, rows) = runs("lunch-break", &strategies);
    let refs: Vec<&Vec<CallRecord>> = traces.iter().collect();
    let price_of = |strategy: &str| {
        let row = rows.iter().find(|r| r.settings.strategy.to_string() == strategy)?;
        row.settings.billed_price()
    };
    let chart = bill("lunch-break", &refs, &price_of);
    assert_eq!(chart.title, "lunch-break: cost per call and so far");
    assert_eq!(chart.panels.len(), strategies.len(), "a panel per strategy");
    for ((panel, series), (trace, row)) in chart.panels.iter().zip(&chart.series).zip(traces.iter().zip(&rows)) {
        assert_eq!(panel.bars.len(), trace.len(), "a bar per call");
        for ((_, parts), record) in panel.bars.iter().zip(trace) {
            // The four parts add up to what the call cost.
            let sum: f64 = parts.iter().sum();
            assert!(
                (sum - record.cost_usd.expect("priced")).abs() < 1e-12,
                "{parts:?} vs {record:?}"
            );
        }
        let total = row.metrics.cost_usd.expect("priced");
        assert!((series.points.last().expect("calls").1 - total).abs() < 1e-9);
        assert!(
            panel.title.ends_with(&ctxbench_harness::human::dollars(total)),
            "{}",
            panel.title
        );
    }
    // After the break the cache is cold: the first call of request 12 reads nothing.
    let none = &chart.panels[0];
    let after = traces[0].iter().find(|r| r.request == 12).expect("request 12").call;
    assert_eq!(none.bars[after - 1].1[2], 0.0, "no cache read after the break");

    let flip = tokens_and_cost("lunch-break", &points(&ctxbench_harness::plot::configs(&rows))).expect("priced runs");
    let label = |what: &str| {
        flip.labels
            .iter()
            .find(|l| l.text.ends_with(what))
            .map(|l| l.text.clone())
    };
    assert_eq!(label("(cheapest)").as_deref(), Some("none (cheapest)"));
    assert_eq!(label("(fewest tokens)").as_deref(), Some("drop (fewest tokens)"));
    let text = svg(&chart).expect("draws");
    for expected in [
        "bars: uncached input",
        "bars: cache read",
        "cost of the call (US dollars)",
        "none · $",
    ] {
        assert!(text.contains(expected), "the SVG shows {expected:?}");
    }
}

/// A configuration run over several seeds is one point of the frontier, at its means (cost,
/// since the runs are priced).
#[test]
fn seeds_of_a_configuration_are_one_point_at_their_means() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/unfetchable-facts.json");
    let mut rows = Vec::new();
    for strategy in ["drop", "summarize"] {
        for seed in 0..6 {
            let scenario = load_scenario(&path, seed).expect("loads");
            let settings = RunSettings {
                seed,
                ..RunSettings::new(strategy.parse().expect("valid"))
                    .resolved(&scenario)
                    .expect("valid")
            };
            let result = run_scenario(&scenario, &settings, &mut |_| {}).expect("runs");
            rows.push(ResultRow::new(&scenario.name, settings, result.metrics));
        }
    }
    let chart =
        frontier("unfetchable-facts", &points(&ctxbench_harness::plot::configs(&rows))).expect("two configurations");
    assert_eq!(chart.series[0].points.len(), 2, "one point a configuration");
    for (k, strategy) in ["drop", "summarize"].iter().enumerate() {
        let runs = &rows[k * 6..(k + 1) * 6];
        let mean = |f: fn(&ResultRow) -> f64| runs.iter().map(f).sum::<f64>() / 6.0;
        // Priced runs: cost against facts lost.
        let at = (
            mean(|r| r.metrics.cost_usd.expect("priced")),
            mean(|r| r.metrics.facts_lost as f64),
        );
        assert!(
            chart.series[0]
                .points
                .iter()
                .any(|p| (p.0 - at.0).abs() < 1e-9 && (p.1 - at.1).abs() < 1e-9),
            "{strategy} at its means {at:?}: {:?}",
            chart.series[0].points
        );
    }
}
