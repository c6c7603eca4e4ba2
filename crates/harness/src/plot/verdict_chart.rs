//! The verdict's chart: each ranked configuration's spend against the facts it loses, both as
//! means with their 95% intervals over the seeds, the front joined, the pick named.

use super::chart::{Chart, Label, Series, Style, Whisker};
use super::kinds::{Missing, VERDICT, no_facts_chart};
use crate::verdict::{Config, Figure, Key, Objective, Verdict};

/// The chart of one scenario's verdict; not drawn (and why) when fewer than two configurations
/// qualify, or where they all lose as many facts (one flat row of points, most of the chart empty).
pub fn verdict_chart(verdict: &Verdict<'_>, objective: &Objective) -> Result<Chart, Missing> {
    let spend = objective.spend();
    let (x_label, what) = match spend {
        Key::Cost => ("cost of the run (US dollars, mean over seeds)", "cost"),
        _ => ("tokens sent (true tokens, mean over seeds)", "tokens sent"),
    };
    let scenario = verdict.scenario;
    let mut chart = Chart::new(
        scenario,
        VERDICT.name(scenario, &[]),
        format!("{scenario}: {what} against facts lost"),
        x_label,
        "facts lost per run (mean over seeds)",
    );
    let x = |c: &Config<'_>| match spend {
        Key::Cost => c.cost(),
        _ => Some(c.mean(Figure::TokensSent)),
    };
    let facts: Vec<f64> = verdict
        .ranked
        .iter()
        .flat_map(|g| &g.configs)
        .filter(|c| x(c).is_some())
        .map(|c| c.facts_lost().mean)
        .collect();
    if let Some(missing) = no_facts_chart(scenario, VERDICT, what, "qualifies", &facts) {
        return Err(missing);
    }
    let mut points = Vec::new();
    for group in &verdict.ranked {
        let c = group.lead();
        let Some(cost) = x(c) else { continue };
        let facts = c.facts_lost();
        points.push((cost.mean, facts.mean));
        chart.whiskers.push(Whisker {
            at: (cost.mean, facts.mean),
            x: (cost.low, cost.high),
            y: (facts.low.max(0.0), facts.high),
        });
        let s = c.settings();
        let mut text = s.strategy.brief();
        if let Some(t) = s.target.filter(|t| *t < s.threshold) {
            text.push_str(&format!(" @{t}"));
        }
        if group.configs.len() > 1 {
            text.push_str(&format!(" (+{})", group.configs.len() - 1));
        }
        chart.labels.push(Label {
            at: (cost.mean, facts.mean),
            text,
        });
    }
    chart.series.push(Series {
        name: "qualifying configurations".into(),
        points: points.clone(),
        style: Style::Points,
    });
    let front: Vec<(f64, f64)> = verdict.front.iter().filter_map(|&i| points.get(i).copied()).collect();
    if front.len() > 1 {
        chart.series.push(Series {
            name: "front: nothing is both cheaper and loses fewer facts".into(),
            points: front,
            style: Style::Line,
        });
    }
    chart.series.push(Series {
        name: "the pick".into(),
        points: points.first().copied().into_iter().collect(),
        style: Style::Points,
    });
    Ok(chart)
}
