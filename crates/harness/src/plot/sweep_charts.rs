//! The charts of a sweep: tokens sent and facts lost by threshold, and the frontier of tokens
//! sent against facts lost with its Pareto front.

use super::chart::{Chart, Label, Series, Style, fold_coinciding, short};
use super::kinds::{FRONTIER, Missing, no_facts_chart};
use crate::report::ResultRow;
use crate::verdict::{Config, Figure};

/// A configuration as the charts plot it: its settings (those of its first seed's row) and its
/// figures' means over its seeds, so that twenty seeds are one point, not twenty.
#[derive(Clone, Debug)]
pub struct Point<'a> {
    /// The first seed's row: the scenario and settings.
    pub row: &'a ResultRow,
    /// Tokens sent, the mean over the seeds.
    pub tokens: f64,
    /// Facts lost, the mean over the seeds.
    pub facts: f64,
    /// Cost, the mean over the seeds; `None` unpriced.
    pub cost: Option<f64>,
    /// Cost's 95% interval over the seeds (low, high); `None` unpriced.
    pub cost_interval: Option<(f64, f64)>,
    /// Whether every seed's run completed.
    pub completed: bool,
}

/// Each configuration as one point.
pub fn points<'a>(configs: &[Config<'a>]) -> Vec<Point<'a>> {
    configs
        .iter()
        .map(|c| Point {
            row: c.first_row(),
            tokens: c.mean(Figure::TokensSent).mean,
            facts: c.facts_lost().mean,
            cost: c.cost().map(|e| e.mean),
            cost_interval: c.cost().map(|e| (e.low, e.high)),
            completed: c.completed(),
        })
        .collect()
}

/// Sweep curves for one scenario and strategy: tokens sent and facts lost against the
/// threshold, one line per `keep` (other settings at their first value).
pub fn sweep_curves(scenario: &str, strategy: &str, points: &[Point<'_>]) -> Option<[Chart; 2]> {
    let rows: Vec<&Point<'_>> = points
        .iter()
        .filter(|p| p.row.scenario == scenario && p.row.settings.strategy.to_string() == strategy)
        .collect();
    let first = &rows.first()?.row.settings;
    let same = |p: &&&Point<'_>| {
        let s = &p.row.settings;
        s.window == first.window && s.reply_reserve == first.reply_reserve && s.estimator == first.estimator
    };
    let rows: Vec<&Point<'_>> = rows.iter().filter(same).copied().collect();
    let mut thresholds: Vec<f64> = rows.iter().map(|p| p.row.settings.threshold).collect();
    thresholds.sort_by(f64::total_cmp);
    thresholds.dedup();
    if thresholds.len() < 2 {
        return None;
    }
    let mut keeps: Vec<usize> = rows.iter().map(|p| p.row.settings.keep_recent_turns).collect();
    keeps.sort_unstable();
    keeps.dedup();
    let title = |what: &str| format!("{scenario} · {}: {what} by threshold", short(strategy));
    let mut tokens = Chart::new(
        scenario,
        super::kinds::SWEEP_TOKENS.name(scenario, &[strategy]),
        title("tokens sent"),
        "threshold (fraction of the window)",
        "tokens sent (true tokens)",
    );
    let mut facts = Chart::new(
        scenario,
        super::kinds::SWEEP_FACTS.name(scenario, &[strategy]),
        title("facts lost"),
        "threshold (fraction of the window)",
        "facts lost (count)",
    );
    for keep in keeps {
        let mut line: Vec<&&Point<'_>> = rows
            .iter()
            .filter(|p| p.row.settings.keep_recent_turns == keep)
            .collect();
        line.sort_by(|a, b| a.row.settings.threshold.total_cmp(&b.row.settings.threshold));
        let name = format!("keep {keep}");
        tokens.series.push(Series {
            name: name.clone(),
            points: line.iter().map(|p| (p.row.settings.threshold, p.tokens)).collect(),
            style: Style::Line,
        });
        facts.series.push(Series {
            name,
            points: line.iter().map(|p| (p.row.settings.threshold, p.facts)).collect(),
            style: Style::Line,
        });
    }
    fold_coinciding(&mut tokens);
    fold_coinciding(&mut facts);
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

/// The frontier: cost (tokens sent when unpriced) against facts lost, every completed
/// configuration a point at its means, the Pareto front drawn and labelled. Stopped runs are
/// left out. Not drawn (and why) with fewer than two points, or where they all lose as many
/// facts: one flat row of points is no frontier.
pub fn frontier(scenario: &str, points: &[Point<'_>]) -> Result<Chart, Missing> {
    let rows: Vec<&Point<'_>> = points
        .iter()
        .filter(|p| p.row.scenario == scenario && p.completed)
        .collect();
    let priced = !rows.is_empty() && rows.iter().all(|p| p.cost.is_some());
    let (spend, axis) = if priced {
        ("cost", "cost (US dollars)")
    } else {
        ("tokens sent", "tokens sent (true tokens)")
    };
    let facts: Vec<f64> = rows.iter().map(|p| p.facts).collect();
    if let Some(missing) = no_facts_chart(scenario, FRONTIER, spend, "completed", &facts) {
        return Err(missing);
    }
    let points: Vec<(f64, f64)> = rows
        .iter()
        .map(|p| (if priced { p.cost.unwrap_or(0.0) } else { p.tokens }, p.facts))
        .collect();
    let mut chart = Chart::new(
        scenario,
        FRONTIER.name(scenario, &[]),
        format!("{scenario}: {spend} against facts lost"),
        axis,
        "facts lost (mean over the seeds)",
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
        let k = &rows[i].row.settings;
        // The short name (parameters away from their defaults): the full one is in results.csv.
        chart.labels.push(Label {
            at: points[i],
            text: format!(
                "{} · threshold {} · keep {}",
                k.strategy.brief(),
                k.threshold,
                k.keep_recent_turns
            ),
        });
    }
    Ok(chart)
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
