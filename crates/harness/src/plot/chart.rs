//! Charts as data: what each picture shows (series, lines, marks, labels), built from traces and
//! result rows. Drawing is `draw.rs`'s business; tests check the data.

use std::collections::BTreeMap;

use crate::report::ResultRow;
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

/// One chart: title, axes with units, series and what is drawn over them.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    /// A file-name stem (`well-bike-shop-return`).
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
}

impl Chart {
    fn new(name: String, title: String, x_label: &str, y_label: &str) -> Chart {
        Chart {
            name,
            title,
            x_label: x_label.into(),
            y_label: y_label.into(),
            series: Vec::new(),
            rules: Vec::new(),
            marks: Vec::new(),
            labels: Vec::new(),
        }
    }

    /// The ranges that hold every point and rule: x from the data's own span, y from 0 (so
    /// heights compare honestly), with some room around.
    pub fn bounds(&self) -> (f64, f64, f64, f64) {
        let xs = || self.series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
        let ys = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1))
            .chain(self.rules.iter().map(|r| r.y));
        let (x_min, x_max) = (
            xs().fold(f64::INFINITY, f64::min),
            xs().fold(f64::NEG_INFINITY, f64::max),
        );
        let (x_min, x_max) = if x_min.is_finite() { (x_min, x_max) } else { (0.0, 1.0) };
        let pad = ((x_max - x_min) * 0.04).max(0.5);
        let y_max = ys.fold(1.0f64, f64::max);
        (x_min - pad, x_max + pad, 0.0, y_max * 1.1)
    }
}

fn safe(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' })
        .collect()
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
    name: &str,
    scenario: &str,
    title: &str,
    y_label: &str,
    traces: &[&Vec<CallRecord>],
    value: fn(&CallRecord) -> u64,
) -> Chart {
    let mut chart = Chart::new(
        format!("{name}-{}", safe(scenario)),
        format!("{scenario}: {title}"),
        "model call (number)",
        y_label,
    );
    for trace in traces {
        let points = trace.iter().map(|r| (r.call as f64, value(r) as f64)).collect();
        chart.series.push(Series {
            name: trace[0].strategy.clone(),
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
        "well",
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

/// The bill: cumulative tokens sent, per call, one line per strategy.
pub fn bill(scenario: &str, traces: &[&Vec<CallRecord>]) -> Chart {
    per_call(
        "bill",
        scenario,
        "cumulative tokens sent",
        "tokens sent so far (true tokens)",
        traces,
        |r| r.tokens_sent,
    )
}

/// Sweep curves for one scenario and strategy: tokens sent and facts lost against the
/// threshold, one line per `keep` (other settings at their first value).
pub fn sweep_curves(scenario: &str, strategy: &str, rows: &[&ResultRow]) -> Option<[Chart; 2]> {
    let rows: Vec<&&ResultRow> = rows
        .iter()
        .filter(|r| r.scenario == scenario && r.settings.strategy.to_string() == strategy)
        .collect();
    let first = &rows.first()?.settings;
    let same = |r: &&&ResultRow| {
        let s = &r.settings;
        s.window == first.window && s.reply_reserve == first.reply_reserve && s.estimator == first.estimator
    };
    let rows: Vec<&&ResultRow> = rows.iter().copied().filter(same).collect();
    let mut thresholds: Vec<f64> = rows.iter().map(|r| r.settings.threshold).collect();
    thresholds.sort_by(f64::total_cmp);
    thresholds.dedup();
    if thresholds.len() < 2 {
        return None;
    }
    let mut keeps: Vec<usize> = rows.iter().map(|r| r.settings.keep_recent_turns).collect();
    keeps.sort_unstable();
    keeps.dedup();
    let title = |what: &str| format!("{scenario} · {strategy}: {what} by threshold");
    let mut tokens = Chart::new(
        format!("sweep-tokens-{}-{}", safe(scenario), safe(strategy)),
        title("tokens sent"),
        "threshold (fraction of the window)",
        "tokens sent (true tokens)",
    );
    let mut facts = Chart::new(
        format!("sweep-facts-{}-{}", safe(scenario), safe(strategy)),
        title("facts lost"),
        "threshold (fraction of the window)",
        "facts lost (count)",
    );
    for keep in keeps {
        let mut line: Vec<&&&ResultRow> = rows.iter().filter(|r| r.settings.keep_recent_turns == keep).collect();
        line.sort_by(|a, b| a.settings.threshold.total_cmp(&b.settings.threshold));
        let name = format!("keep {keep}");
        tokens.series.push(Series {
            name: name.clone(),
            points: line
                .iter()
                .map(|r| (r.settings.threshold, r.metrics.tokens_sent as f64))
                .collect(),
            style: Style::Line,
        });
        facts.series.push(Series {
            name,
            points: line
                .iter()
                .map(|r| (r.settings.threshold, r.metrics.facts_lost as f64))
                .collect(),
            style: Style::Line,
        });
    }
    Some([tokens, facts])
}

/// Indices of the points no other point beats on both coordinates (lower is better on both).
pub fn pareto(points: &[(f64, f64)]) -> Vec<usize> {
    let dominated = |i: usize| {
        points.iter().enumerate().any(|(j, q)| {
            j != i && q.0 <= points[i].0 && q.1 <= points[i].1 && (q.0 < points[i].0 || q.1 < points[i].1)
        })
    };
    let mut front: Vec<usize> = (0..points.len()).filter(|&i| !dominated(i)).collect();
    front.sort_by(|&a, &b| {
        points[a]
            .0
            .total_cmp(&points[b].0)
            .then(points[a].1.total_cmp(&points[b].1))
    });
    // Identical points: keep one.
    front.dedup_by(|a, b| points[*a] == points[*b]);
    front
}

/// The frontier: tokens sent against facts lost, every completed configuration a point, the
/// Pareto front drawn and labelled. Stopped runs are left out.
pub fn frontier(scenario: &str, rows: &[&ResultRow]) -> Option<Chart> {
    let rows: Vec<&&ResultRow> = rows
        .iter()
        .filter(|r| r.scenario == scenario && r.metrics.completed)
        .collect();
    if rows.is_empty() {
        return None;
    }
    let points: Vec<(f64, f64)> = rows
        .iter()
        .map(|r| (r.metrics.tokens_sent as f64, r.metrics.facts_lost as f64))
        .collect();
    let mut chart = Chart::new(
        format!("frontier-{}", safe(scenario)),
        format!("{scenario}: tokens sent against facts lost"),
        "tokens sent (true tokens)",
        "facts lost (count)",
    );
    chart.series.push(Series {
        name: "configurations".into(),
        points: points.clone(),
        style: Style::Points,
    });
    let front = pareto(&points);
    chart.series.push(Series {
        name: "Pareto front".into(),
        points: front.iter().map(|&i| points[i]).collect(),
        style: Style::Line,
    });
    for &i in &front {
        let k = &rows[i].settings;
        // Stage names only: the full canonical name is in results.csv.
        let stages: Vec<&str> = k.strategy.stages.iter().map(|s| s.name()).collect();
        chart.labels.push(Label {
            at: points[i],
            text: format!(
                "{} · threshold {} · keep {}",
                stages.join("+"),
                k.threshold,
                k.keep_recent_turns
            ),
        });
    }
    Some(chart)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pareto_keeps_exactly_the_non_dominated() {
        let points = [
            (10.0, 3.0),
            (20.0, 1.0),
            (15.0, 3.0),
            (30.0, 0.0),
            (25.0, 1.0),
            (10.0, 3.0),
            (40.0, 0.0),
        ];
        assert_eq!(pareto(&points), vec![0, 1, 3]);
    }
}
