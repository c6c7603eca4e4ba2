//! The page's charts as a new user reads them (issue 46): `plot --help` lists the charts that are
//! drawn, from the one list of kinds; tokens sent against cost in a colour per strategy; charts
//! at the means the table prints; no chart against facts lost where the runs lose as many;
//! labels, titles and legends that fit, clear of each other and of the tick labels.

use ctxbench_harness::human::dollars;
use ctxbench_harness::plot::chart::{Label, Series, Style};
use ctxbench_harness::plot::{Chart, KINDS, charts, frontier, kind_of, layout, points, svg, tokens_and_cost};
use ctxbench_harness::report::colour::hex;
use ctxbench_harness::report::{ResultRow, read_csv};
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

/// Tokens sent against cost: a series a strategy, each in the colour it has in every chart, and
/// a legend naming them.
#[test]
fn the_scatter_gives_each_strategy_its_colour() {
    let strategies = ["none", "drop", "truncate", "summarize"];
    let (_, rows) = runs("lunch-break", &strategies, &[0.8], 0..2);
    let chart = tokens_and_cost("lunch-break", &points(&ctxbench_harness::plot::configs(&rows))).expect("priced runs");
    let names: Vec<&str> = chart.series.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, strategies, "a series a strategy");
    let text = svg(&chart).expect("draws");
    let mut fills: Vec<String> = Vec::new();
    for name in strategies {
        let colour = hex(name);
        // A marker is filled, or (a cross) stroked, in its strategy's colour.
        assert!(
            text.contains(&format!("fill=\"{colour}\"")) || text.contains(&format!("stroke=\"{colour}\"")),
            "{name}'s points in {colour}"
        );
        assert!(text.contains(&format!(">\n{name}\n</text>")), "{name} in the legend");
        fills.push(colour);
    }
    fills.sort();
    fills.dedup();
    assert_eq!(fills.len(), strategies.len(), "four colours");
}

/// What compare's page draws is what its table prints: each configuration at its means over the
/// seeds, the cost's interval as the table gives it; the traces' charts say whose run they are.
#[test]
fn the_page_draws_the_means_the_table_prints() {
    let dir = scratch("page-means");
    let output = ctxbench()
        .args([
            "compare",
            "scenarios/lunch-break.json",
            "--strategies",
            "drop,summarize",
            "--no-tune",
            "--seeds",
            "3",
            "--out",
        ])
        .arg(&dir)
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let csv = String::from_utf8(read(dir.join("results.csv"))).expect("UTF-8");
    let rows = read_csv(&csv).expect("rows");
    assert_eq!(rows.len(), 6, "two strategies, three seeds");

    // The means, from results.csv by hand.
    let chart = tokens_and_cost("lunch-break", &points(&ctxbench_harness::plot::configs(&rows))).expect("priced runs");
    for (k, strategy) in ["drop", "summarize"].iter().enumerate() {
        let runs: Vec<&ResultRow> = rows
            .iter()
            .filter(|r| r.settings.strategy.to_string().starts_with(strategy))
            .collect();
        let mean = |f: fn(&ResultRow) -> f64| runs.iter().map(|r| f(r)).sum::<f64>() / runs.len() as f64;
        let at = (
            mean(|r| r.metrics.tokens_sent as f64),
            mean(|r| r.metrics.cost_usd.expect("priced")),
        );
        let drawn = chart.series[k].points[0];
        assert!(
            (drawn.0 - at.0).abs() < 1e-9 && (drawn.1 - at.1).abs() < 1e-12,
            "{strategy} at its means {at:?}, drawn at {drawn:?}"
        );
    }
    // The chart compare drew is that one, to the byte.
    assert!(
        read(dir.join("plots/cost-lunch-break.svg")) == svg(&chart).expect("draws").into_bytes(),
        "compare drew tokens sent against cost at other figures than the means"
    );
    // Where the table shows the cost's interval, the chart draws it.
    let summary = String::from_utf8(read(dir.join("summary.md"))).expect("UTF-8");
    assert!(!chart.whiskers.is_empty(), "the seeds' costs differ");
    for w in &chart.whiskers {
        let said = format!("{} ±{:.4}", dollars(w.at.1), (w.y.1 - w.y.0) / 2.0);
        assert!(summary.contains(&said), "the table says {said}");
    }
    // A trace is one run: its charts say which.
    let page = String::from_utf8(read(dir.join("index.html"))).expect("UTF-8");
    for title in [
        "lunch-break: request size per model call (one run each, seed 0)",
        "lunch-break: cost per call and so far (one run each, seed 0)",
    ] {
        assert!(page.contains(title), "{title}");
    }
}

/// A chart of cost against facts lost is drawn only where facts lost differ between the runs;
/// elsewhere the page says so in one line, in its place.
#[test]
fn no_chart_against_facts_lost_where_every_run_loses_as_many() {
    // The frontier, for plot and a sweep's page.
    let (_, rows) = runs("bike-shop-return", &["drop", "truncate"], &[0.8], 0..1);
    assert!(rows.iter().all(|r| r.metrics.facts_lost == 0 && r.metrics.completed));
    let missing =
        frontier("bike-shop-return", &points(&ctxbench_harness::plot::configs(&rows))).expect_err("no frontier");
    assert_eq!(
        missing.why,
        "On bike-shop-return, no configuration that completed loses a fact: no chart of cost against facts lost."
    );
    let (_, rows) = runs("unfetchable-facts", &["drop", "summarize"], &[0.8], 0..1);
    assert!(
        frontier("unfetchable-facts", &points(&ctxbench_harness::plot::configs(&rows))).is_ok(),
        "facts lost differ"
    );

    // compare's page: the sentence where the verdict's chart would be, the chart where facts differ.
    let dir = scratch("page-no-facts");
    let output = ctxbench()
        .args([
            "compare",
            "scenarios/bike-shop-return.json",
            "scenarios/unfetchable-facts.json",
            "--strategies",
            "drop,summarize",
            "--seeds",
            "2",
            "--out",
        ])
        .arg(&dir)
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let page = String::from_utf8(read(dir.join("index.html"))).expect("UTF-8");
    let said =
        "On bike-shop-return, no configuration that qualifies loses a fact: no chart of cost against facts lost.";
    let section = |name: &str| {
        let start = page.find(&format!("<h2>{name}</h2>")).expect("a section");
        let end = start + page[start..].find("</section>").expect("its end");
        page[start..end].to_owned()
    };
    let bike = section("bike-shop-return");
    assert_eq!(bike.matches(said).count(), 1, "said once, in its section");
    assert!(!bike.contains("plots/verdict-"), "no empty chart");
    assert!(!dir.join("plots/verdict-bike-shop-return.svg").exists());
    assert!(section("unfetchable-facts").contains("plots/verdict-unfetchable-facts.svg"));
    let summary = String::from_utf8(read(dir.join("summary.md"))).expect("UTF-8");
    assert!(summary.contains(said), "and in summary.md");
}

/// Every text box of a chart's picture: inside the canvas; labels inside the plot, clear of the
/// tick labels, the title and each other; the legend's entries clear of each other.
fn assert_laid_out(chart: &Chart) {
    let layout = layout(chart).expect("draws");
    let name = &chart.name;
    let texts = layout
        .title
        .iter()
        .chain(&layout.labels)
        .chain(&layout.panel_titles)
        .chain(&layout.legend)
        .chain(&layout.ticks);
    for r in texts {
        assert!(
            r.inside(&layout.canvas),
            "{name}: {r:?} is cut by the canvas {:?}",
            layout.canvas
        );
    }
    assert_eq!(layout.labels.len(), chart.labels.len(), "{name}: every label placed");
    for (k, label) in layout.labels.iter().enumerate() {
        let text = &chart.labels[k].text;
        assert!(label.inside(&layout.plot), "{name}: {text:?} outside the plot");
        for tick in &layout.ticks {
            assert!(
                !label.overlaps(tick),
                "{name}: {text:?} {label:?} over a tick label {tick:?}"
            );
        }
        for other in layout.labels[..k].iter().chain(&layout.title) {
            assert!(!label.overlaps(other), "{name}: {text:?} {label:?} over {other:?}");
        }
    }
    for (k, entry) in layout.legend.iter().enumerate() {
        for other in &layout.legend[..k] {
            assert!(!entry.overlaps(other), "{name}: legend {entry:?} over {other:?}");
        }
    }
    assert!(!layout.ticks.is_empty(), "{name}: tick labels found");
}

/// Labels clear of the tick labels, titles inside the canvas, legends whole.
#[test]
fn labels_titles_and_legends_fit_without_collisions() {
    // As the issue saw it: two labels at facts lost 0 by the lowest cost, next to the x axis's
    // first tick labels, a long title, a long legend entry.
    let strategy = "truncate:preview=80+summarize:keep=id/number,ratio=0.2,place=first,tail=nothing";
    let chart = Chart {
        scenario: "bike-shop-return".into(),
        name: "verdict-bike-shop-return".into(),
        title: format!("bike-shop-return · {strategy}: cost against facts lost, by threshold and keep"),
        x_label: "cost of the run (US dollars, mean over seeds)".into(),
        y_label: "facts lost per run (mean over seeds)".into(),
        series: vec![Series {
            name: format!("none, mask, window, clear-tool-uses, langchain-summarization, swe-agent-mask, {strategy}"),
            points: vec![
                (0.0081, 0.0),
                (0.0082, 0.0),
                (0.0103, 0.3),
                (0.0105, 0.3),
                (0.0123, 0.0),
                (0.0128, 0.0),
            ],
            style: Style::Points,
        }],
        labels: [
            "drop (+1)",
            "truncate (+2)",
            "anthropic-compact (+1)",
            "claude-code",
            "summarize",
            "codex",
        ]
        .iter()
        .zip([
            (0.0081, 0.0),
            (0.0082, 0.0),
            (0.0103, 0.3),
            (0.0105, 0.3),
            (0.0123, 0.0),
            (0.0128, 0.0),
        ])
        .map(|(text, at)| Label {
            at,
            text: (*text).into(),
        })
        .collect(),
        rules: Vec::new(),
        marks: Vec::new(),
        whiskers: Vec::new(),
        panels: Vec::new(),
        panel_label: String::new(),
    };
    assert_laid_out(&chart);
    let text = svg(&chart).expect("draws");
    assert!(!text.contains('…'), "no name cut short");
    for word in ["swe-agent-mask,", "tail=nothing"] {
        assert!(text.contains(word), "the legend's name whole: {word}");
    }

    // The bill of the bike-shop chat: six strategies coincide in one panel, whose title is long.
    let (traces, rows) = runs(
        "bike-shop-return",
        &[
            "none",
            "mask",
            "window",
            "clear-tool-uses",
            "langchain-summarization",
            "swe-agent-mask",
            "drop",
            "summarize",
        ],
        &[0.8],
        0..1,
    );
    let drawn = charts(&traces, &rows);
    let bill = drawn.iter().find(|c| c.name.starts_with("bill-")).expect("a bill");
    assert!(
        bill.panels[0].title.starts_with("none, mask, window, clear-tool-uses"),
        "{}",
        bill.panels[0].title
    );
    for chart in &drawn {
        assert_laid_out(chart);
        assert!(
            !svg(chart).expect("draws").contains('…'),
            "{}: no name cut short",
            chart.name
        );
    }
    let layout = layout(bill).expect("draws");
    assert!(layout.panel_titles.len() > bill.panels.len(), "the long title wraps");
}
