//! Charts as data: what each picture shows (series, lines, marks, labels), built from traces and
//! result rows. Drawing is `draw.rs`'s business; tests check the data.

use std::collections::BTreeMap;

use crate::billing::price::{Price, dollars};
use crate::trace::{CallRecord, Outcome};

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Points joined by a line, each marked.
    Line,
    /// Points only.
    Points,
}

/// One named series.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Its legend entry.
    pub name: String,
    /// `(x, y)` points, in x order for lines.
    pub points: Vec<(f64, f64)>,
    /// How it is drawn.
    pub style: Style,
}

/// A horizontal reference line (the window, the threshold).
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    /// Where.
    pub y: f64,
    /// Its legend entry.
    pub label: String,
}

/// What a mark on a series means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkKind {
    /// The history was compacted before this call.
    Compaction,
    /// The server rejected this call as over the window.
    Overflow,
}

/// A marked point.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    /// Where.
    pub at: (f64, f64),
    /// What happened there.
    pub kind: MarkKind,
}

/// A text label next to a point.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    /// Where.
    pub at: (f64, f64),
    /// What it says.
    pub text: String,
}

/// A point's 95% intervals, drawn as whiskers across it.
#[derive(Clone, Debug, PartialEq)]
pub struct Whisker {
    /// The point.
    pub at: (f64, f64),
    /// Its x interval.
    pub x: (f64, f64),
    /// Its y interval.
    pub y: (f64, f64),
}

/// The parts a call's bill stacks, bottom up: uncached input, cache writes, cache reads, and
/// the reply.
pub const BILL_PARTS: [&str; 4] = ["uncached input", "cache write", "cache read", "output"];

/// One small panel of stacked bars: a run's calls, each split into [`BILL_PARTS`].
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    /// The run, as its panel names it.
    pub title: String,
    /// `(call number, parts)`, bottom up.
    pub bars: Vec<(f64, [f64; 4])>,
}

/// One chart: title, axes with units, series and what is drawn over them; with panels, a figure
/// of small multiples beside it, on one shared scale.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    /// The scenario it shows.
    pub scenario: String,
    /// A file-name stem (`well-bike-shop-return`): its [`super::Kind`]'s, then the scenario's.
    pub name: String,
    /// The title.
    pub title: String,
    /// The x axis, with its unit.
    pub x_label: String,
    /// The y axis, with its unit.
    pub y_label: String,
    /// The data.
    pub series: Vec<Series>,
    /// Reference lines.
    pub rules: Vec<Rule>,
    /// Compactions and overflows.
    pub marks: Vec<Mark>,
    /// Labels next to points.
    pub labels: Vec<Label>,
    /// Intervals around points.
    pub whiskers: Vec<Whisker>,
    /// Small multiples drawn left of the chart, sharing one y axis (`panel_label`).
    pub panels: Vec<Panel>,
    /// The panels' y axis, with its unit.
    pub panel_label: String,
}

impl Chart {
    pub(super) fn new(scenario: &str, name: String, title: String, x_label: &str, y_label: &str) -> Chart {
        Chart {
            scenario: scenario.to_owned(),
            name,
            title,
            x_label: x_label.into(),
            y_label: y_label.into(),
            series: Vec::new(),
            rules: Vec::new(),
            marks: Vec::new(),
            labels: Vec::new(),
            whiskers: Vec::new(),
            panels: Vec::new(),
            panel_label: String::new(),
        }
    }

    /// The ranges that hold every point and rule: x from the data's own span, y from 0 (so
    /// heights compare honestly), with some room around.
    pub fn bounds(&self) -> (f64, f64, f64, f64) {
        let xs = || {
            self.series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.0))
                .chain(self.whiskers.iter().flat_map(|w| [w.x.0, w.x.1]))
        };
        let ys = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1))
            .chain(self.rules.iter().map(|r| r.y))
            .chain(self.whiskers.iter().map(|w| w.y.1));
        let (x_min, x_max) = (
            xs().fold(f64::INFINITY, f64::min),
            xs().fold(f64::NEG_INFINITY, f64::max),
        );
        let (x_min, x_max) = if x_min.is_finite() { (x_min, x_max) } else { (0.0, 1.0) };
        // Fitted to the data: 4% of the span around it, at least half a step around whole
        // numbers (calls).
        let whole = xs().all(|x| x.fract() == 0.0);
        let span = x_max - x_min;
        let pad = match (whole, span > 0.0) {
            (true, _) => (span * 0.04).max(0.5),
            (false, true) => span * 0.04,
            (false, false) => (x_max.abs() * 0.05).max(0.01),
        };
        let y_max = ys.fold(0.0f64, f64::max);
        let y_max = if y_max > 0.0 { y_max } else { 1.0 };
        (x_min - pad, x_max + pad, 0.0, y_max * 1.1)
    }
}

/// Traces grouped by scenario, then strategy (in the order first seen).
pub fn by_scenario(traces: &[Vec<CallRecord>]) -> BTreeMap<String, Vec<&Vec<CallRecord>>> {
    let mut out: BTreeMap<String, Vec<&Vec<CallRecord>>> = BTreeMap::new();
    for trace in traces.iter().filter(|t| !t.is_empty()) {
        out.entry(trace[0].scenario.clone()).or_default().push(trace);
    }
    out
}

/// A chart with one line per trace: `value` of each call, by call number.
fn per_call(
    kind: super::Kind,
    scenario: &str,
    title: &str,
    y_label: &str,
    traces: &[&Vec<CallRecord>],
    value: fn(&CallRecord) -> u64,
) -> Chart {
    let mut chart = Chart::new(
        scenario,
        kind.name(scenario, &[]),
        format!("{scenario}: {title}"),
        "model call (number)",
        y_label,
    );
    for trace in traces {
        let points = trace.iter().map(|r| (r.call as f64, value(r) as f64)).collect();
        chart.series.push(Series {
            name: short(&trace[0].strategy),
            points,
            style: Style::Line,
        });
    }
    chart
}

/// The well: the size of every request, per call, one line per strategy, with the window and
/// the threshold, compactions and overflows marked.
pub fn well(scenario: &str, traces: &[&Vec<CallRecord>]) -> Chart {
    let mut chart = per_call(
        super::kinds::WELL,
        scenario,
        "request size per model call",
        "request size (true tokens)",
        traces,
        |r| r.true_tokens,
    );
    for r in traces.iter().flat_map(|t| t.iter()) {
        let at = (r.call as f64, r.true_tokens as f64);
        if r.outcome == Outcome::Overflow {
            chart.marks.push(Mark {
                at,
                kind: MarkKind::Overflow,
            });
        } else if r
            .compaction
            .as_ref()
            .is_some_and(|c| c.truncated + c.masked + c.dropped > 0)
        {
            chart.marks.push(Mark {
                at,
                kind: MarkKind::Compaction,
            });
        }
    }
    // A run that stopped ends in a label saying why.
    for trace in traces {
        let Some(last) = trace.last() else { continue };
        let why = match last.outcome {
            Outcome::Overflow => "stopped: overflow",
            Outcome::PairingError => "stopped: pairing broken",
            Outcome::Error => "stopped: model error",
            Outcome::Ok | Outcome::Truncated => continue,
        };
        let label = Label {
            at: (last.call as f64, last.true_tokens as f64),
            text: why.into(),
        };
        if !chart.labels.contains(&label) {
            chart.labels.push(label);
        }
    }
    fold_coinciding(&mut chart);
    if let Some(first) = traces.first().and_then(|t| t.first()) {
        chart.rules.push(Rule {
            y: first.window as f64,
            label: format!("window ({} tokens)", first.window),
        });
        chart.rules.push(Rule {
            y: first.limit as f64,
            label: format!("threshold ({} tokens)", first.limit),
        });
    }
    chart
}

/// Series that coincide, point for point, drawn once under all their names (a line hidden
/// under another would read as a missing strategy); likewise panels of identical bars.
pub(super) fn fold_coinciding(chart: &mut Chart) {
    let mut series: Vec<Series> = Vec::with_capacity(chart.series.len());
    for s in chart.series.drain(..) {
        match series.iter_mut().find(|t| t.points == s.points && t.style == s.style) {
            Some(same) => same.name = format!("{}, {}", same.name, s.name),
            None => series.push(s),
        }
    }
    chart.series = series;
    let mut panels: Vec<Panel> = Vec::with_capacity(chart.panels.len());
    for p in chart.panels.drain(..) {
        match panels.iter_mut().find(|q| q.bars == p.bars) {
            Some(same) => {
                let (names, total) = same.title.rsplit_once(" · ").unwrap_or((&same.title, ""));
                let name = p.title.rsplit_once(" · ").map_or(p.title.as_str(), |(n, _)| n);
                same.title = format!("{names}, {name} · {total}");
            }
            None => panels.push(p),
        }
    }
    chart.panels = panels;
}

/// A strategy's name in a picture: its stages with the parameters that differ from their
/// defaults (the canonical name is in results.csv).
pub(super) fn short(strategy: &str) -> String {
    strategy
        .parse::<ctxbench_compact::compact::Strategy>()
        .map_or_else(|_| strategy.to_owned(), |s| s.brief())
}

/// The bill: one panel per strategy with the cost of each call stacked as uncached input, cache
/// write, cache read and output, beside the cumulative cost of every strategy. `price_of` gives a
/// strategy's prices (from its results row); runs without one (`--price none`, or traces drawn
/// without their results) are billed in tokens instead: the same parts, the reply left out.
pub fn bill(scenario: &str, traces: &[&Vec<CallRecord>], price_of: &dyn Fn(&str) -> Option<Price>) -> Chart {
    let prices: Vec<Option<Price>> = traces.iter().map(|t| price_of(&t[0].strategy)).collect();
    let priced = prices.iter().all(Option::is_some);
    let (title, y_label, panel_label) = if priced {
        (
            "cost per call and so far",
            "cost so far (US dollars)",
            "cost of the call (US dollars)",
        )
    } else {
        (
            "tokens per call and so far",
            "tokens sent so far (true tokens)",
            "tokens of the call (true tokens)",
        )
    };
    let mut chart = Chart::new(
        scenario,
        super::kinds::BILL.name(scenario, &[]),
        format!("{scenario}: {title}"),
        "model call (number)",
        y_label,
    );
    chart.panel_label = panel_label.into();
    for (trace, price) in traces.iter().zip(&prices) {
        let mut sum = 0.0;
        let mut points = Vec::with_capacity(trace.len());
        let mut bars = Vec::with_capacity(trace.len());
        for r in trace.iter() {
            let parts = match price.as_ref().filter(|_| priced) {
                Some(p) => [
                    (p.input, r.uncached_tokens),
                    (p.cache_write.unwrap_or(p.input), r.cache_write_tokens),
                    (p.cache_read, r.cache_read_tokens),
                    (p.output, r.completion_tokens),
                ]
                .map(|(rate, tokens)| dollars(rate.times(tokens))),
                None => [r.uncached_tokens, r.cache_write_tokens, r.cache_read_tokens, 0].map(|t| t as f64),
            };
            sum += parts.iter().sum::<f64>();
            points.push((r.call as f64, sum));
            bars.push((r.call as f64, parts));
        }
        let strategy = &trace[0].strategy;
        chart.series.push(Series {
            name: short(strategy),
            points,
            style: Style::Line,
        });
        let total = if priced {
            crate::human::dollars(sum)
        } else {
            format!("{} tokens", crate::human::thousands(sum as u64))
        };
        chart.panels.push(Panel {
            title: format!("{} · {total}", short(strategy)),
            bars,
        });
    }
    fold_coinciding(&mut chart);
    chart
}

/// Tokens sent against cost, one point per completed configuration at its means over the seeds
/// (the figures of the table), its cost's 95% interval drawn across it, one series (one colour)
/// per strategy: where fewer tokens do not mean a smaller bill, the points do not fall in the
/// same order on both axes. The run with the fewest tokens and the cheapest one are labelled
/// (every run, when there are a dozen or fewer). Not drawn (and why) with fewer than two
/// priced configurations that completed.
pub fn tokens_and_cost(scenario: &str, configurations: &[super::Point<'_>]) -> Result<Chart, super::Missing> {
    let rows: Vec<&super::Point<'_>> = configurations
        .iter()
        .filter(|p| p.row.scenario == scenario && p.completed && p.cost.is_some())
        .collect();
    if rows.len() < 2 {
        return Err(super::Missing::new(
            scenario,
            super::kinds::COST,
            format!(
                "On {scenario}, {} configuration with a price completed: no chart of tokens sent against cost.",
                if rows.is_empty() { "no" } else { "only one" }
            ),
        ));
    }
    let points: Vec<(f64, f64)> = rows.iter().map(|p| (p.tokens, p.cost.unwrap_or(0.0))).collect();
    let mut chart = Chart::new(
        scenario,
        super::kinds::COST.name(scenario, &[]),
        format!("{scenario}: tokens sent against cost"),
        "tokens sent (true tokens, mean over the seeds)",
        "cost (US dollars, mean over the seeds)",
    );
    for (r, &at) in rows.iter().zip(&points) {
        let name = short(&r.row.settings.strategy.to_string());
        match chart.series.iter_mut().find(|s| s.name == name) {
            Some(series) => series.points.push(at),
            None => chart.series.push(Series {
                name,
                points: vec![at],
                style: Style::Points,
            }),
        }
        if let Some(y) = r.cost_interval.filter(|(low, high)| high > low) {
            chart.whiskers.push(Whisker { at, x: (at.0, at.0), y });
        }
    }
    fold_coinciding(&mut chart);
    let lowest = |key: fn(&(f64, f64)) -> (f64, f64)| {
        (0..points.len())
            .min_by(|&a, &b| {
                key(&points[a])
                    .partial_cmp(&key(&points[b]))
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
            .unwrap_or(0)
    };
    let fewest = lowest(|p| (p.0, p.1));
    let cheapest = lowest(|p| (p.1, p.0));
    // Runs with the very same figures share one label that names them all.
    let mut labels: Vec<((f64, f64), Vec<String>)> = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        if points.len() > 12 && points[i] != points[fewest] && points[i] != points[cheapest] {
            continue;
        }
        let name = short(&r.row.settings.strategy.to_string());
        match labels.iter_mut().find(|(at, _)| *at == points[i]) {
            Some((_, names)) if names.contains(&name) => {}
            Some((_, names)) => names.push(name),
            None => labels.push((points[i], vec![name])),
        }
    }
    for (at, names) in labels {
        let mut text = names.join(", ");
        if at == points[fewest] {
            text.push_str(" (fewest tokens)");
        }
        if at == points[cheapest] {
            text.push_str(" (cheapest)");
        }
        chart.labels.push(Label { at, text });
    }
    Ok(chart)
}
