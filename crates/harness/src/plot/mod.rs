//! Pictures of results: the well (request size per call, with the window and the
//! threshold), the bill (each call's cost stacked by part, per strategy, beside the cumulative
//! cost), tokens sent against cost, sweep curves, and the frontier of tokens sent against facts
//! lost. [`chart`] builds them as data; [`draw`] renders SVG and PNG.

pub mod chart;
pub mod draw;
mod error;
pub mod kinds;
mod layout;
mod panels;
mod sweep_charts;
mod verdict_chart;
mod waste_chart;

pub use chart::{Chart, bill, by_scenario, tokens_and_cost, well};
pub use draw::{layout, png, svg};
pub use error::{DrawError, PlotError};
pub use kinds::{KINDS, Kind, Missing, kind_of};
pub use layout::{Layout, Rect};
pub use sweep_charts::{Point, frontier, pareto, points, sweep_curves};
pub use verdict_chart::verdict_chart;
pub use waste_chart::waste_chart;

use crate::report::ResultRow;
use crate::trace::CallRecord;
use crate::verdict::Config;

/// Every chart that traces and result rows give: well and bill per scenario (traces, priced by
/// their rows, their titles naming the seed when the rows have several: a trace is the first
/// seed's run), tokens sent against cost per scenario, sweep curves per scenario and strategy
/// with several thresholds, and a frontier per scenario; a configuration run over several seeds
/// (its rows one after another) is one point, at its means.
pub fn charts(traces: &[Vec<CallRecord>], rows: &[ResultRow]) -> Vec<Chart> {
    charts_and_missing(traces, &configs(rows)).0
}

/// The configurations of `rows` (each one's seeds one after another), scenario by scenario.
pub fn configs(rows: &[ResultRow]) -> Vec<Config<'_>> {
    crate::verdict::configs(rows)
        .into_iter()
        .flat_map(|(_, configs)| configs)
        .collect()
}

/// [`charts`] of `configs` (the configurations the traces ran, each over its seeds), and each
/// chart of tokens sent against cost and each frontier a scenario's runs do not allow, with why.
pub fn charts_and_missing(traces: &[Vec<CallRecord>], configs: &[Config<'_>]) -> (Vec<Chart>, Vec<Missing>) {
    let mut out = Vec::new();
    let mut missing = Vec::new();
    for (scenario, traces) in by_scenario(traces) {
        let price_of = |strategy: &str| {
            let config = configs
                .iter()
                .find(|c| c.scenario() == scenario && c.settings().strategy.to_string() == strategy)?;
            config.settings().billed_price()
        };
        let mut pair = [well(&scenario, &traces), bill(&scenario, &traces, &price_of)];
        // A trace is one run: where the table's figures are means over seeds, say whose.
        let seeds = configs
            .iter()
            .filter(|c| c.scenario() == scenario)
            .map(Config::seed_span)
            .reduce(|(a, b), (c, d)| (a.min(c), b.max(d)));
        if let Some((first, _)) = seeds.filter(|(low, high)| low != high) {
            for chart in &mut pair {
                chart.title.push_str(&format!(" (one run each, seed {first})"));
            }
        }
        out.extend(pair);
    }
    // One point a configuration, its seeds' means.
    let refs = points(configs);
    let mut scenarios: Vec<&str> = configs.iter().map(Config::scenario).collect();
    scenarios.sort_unstable();
    scenarios.dedup();
    for scenario in scenarios {
        let mut strategies: Vec<String> = configs
            .iter()
            .filter(|c| c.scenario() == scenario)
            .map(|c| c.settings().strategy.to_string())
            .collect();
        strategies.sort_unstable();
        strategies.dedup();
        for strategy in strategies {
            if let Some(pair) = sweep_curves(scenario, &strategy, &refs) {
                out.extend(pair);
            }
        }
        for chart in [tokens_and_cost(scenario, &refs), frontier(scenario, &refs)] {
            match chart {
                Ok(chart) => out.push(chart),
                Err(why) => missing.push(why),
            }
        }
    }
    (out, missing)
}
