//! The gate's changes gathered over seeds. The gate compares row by row, and a configuration
//! runs once per seed; a reader wants each configuration's figure once: its mean in the
//! baseline and now, and the mean per-seed change with its 95% interval (Student's t over the
//! paired differences, as the verdicts pair runs on the same seeds). One seed gives no interval.

use serde_json::Value;

use super::report::verdict_cell;
use super::{GateReport, RowComparison, Verdict, key_of};
use crate::report::ResultRow;
use crate::verdict::{Estimate, Paired};

/// One figure of one configuration (scenario, strategy and settings, every seed) that changed
/// on at least one seed.
#[derive(Clone, Debug, PartialEq)]
pub struct SeedChange {
    /// The scenario.
    pub scenario: String,
    /// The canonical strategy.
    pub strategy: String,
    /// Settings that differ between the two sides (`threshold 0.8 → 0.95`).
    pub settings: Vec<String>,
    /// The figure's column name.
    pub figure: String,
    /// Seeds compared.
    pub seeds: usize,
    /// Seeds on which the figure changed.
    pub changed_in: usize,
    /// Its mean and interval over the seeds, baseline then current; `None` where it is not a
    /// number on some seed (`completed`, a cost on one side only).
    pub means: Option<(Estimate, Estimate)>,
    /// Current minus baseline, seed by seed, with its interval (`None` as for `means`).
    pub change: Option<Paired>,
    /// The first changed seed's values as written, baseline then current (for figures that are
    /// not numbers).
    pub values: (Value, Value),
    /// The worst verdict over the seeds.
    pub verdict: Verdict,
    /// That verdict as the gate's table says it (`regressed`, `not gated`…).
    pub said: &'static str,
}

/// A configuration's key on the baseline's side: every setting but the seed.
fn configuration(row: &ResultRow, cmp: &RowComparison) -> String {
    let (_, settings) = key_of(row);
    let key: Vec<String> = settings
        .into_iter()
        .filter(|(k, _)| k != "seed")
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    format!("{}|{}", key.join(";"), cmp.settings.join(";"))
}

/// Every changed figure of every configuration, gathered over its seeds, in the order of the
/// gate's rows (worst first).
pub fn changes_over_seeds(report: &GateReport, baseline: &[ResultRow], current: &[ResultRow]) -> Vec<SeedChange> {
    let mut groups: Vec<(String, Vec<&RowComparison>)> = Vec::new();
    for cmp in &report.rows {
        let Some(row) = baseline.get(cmp.positions.0) else {
            continue;
        };
        let key = configuration(row, cmp);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, rows)) => rows.push(cmp),
            None => groups.push((key, vec![cmp])),
        }
    }
    let figures_of = |rows: &[ResultRow], at: usize| rows.get(at).and_then(|r| serde_json::to_value(&r.metrics).ok());
    let mut out = Vec::new();
    for (_, rows) in groups {
        let mut names: Vec<&str> = Vec::new();
        for c in rows.iter().flat_map(|r| &r.changes) {
            if !names.contains(&c.figure.as_str()) {
                names.push(&c.figure);
            }
        }
        if names.is_empty() {
            continue;
        }
        let sides: Vec<(u64, Value, Value)> = rows
            .iter()
            .map(|r| {
                let seed = baseline.get(r.positions.0).map_or(0, |b| b.settings.seed);
                let b = figures_of(baseline, r.positions.0).unwrap_or(Value::Null);
                let c = figures_of(current, r.positions.1).unwrap_or(Value::Null);
                (seed, b, c)
            })
            .collect();
        for figure in names {
            out.push(gathered(&rows, &sides, figure));
        }
    }
    out
}

/// One figure over a configuration's rows (`sides`: each row's seed and figures, both sides).
fn gathered(rows: &[&RowComparison], sides: &[(u64, Value, Value)], figure: &str) -> SeedChange {
    let pick = |side: &Value| side.get(figure).cloned().unwrap_or(Value::Null);
    let numbers = |second: bool| -> Option<Vec<(u64, f64)>> {
        sides
            .iter()
            .map(|(seed, b, c)| Some((*seed, pick(if second { c } else { b }).as_f64()?)))
            .collect()
    };
    let (before, after) = (numbers(false), numbers(true));
    let estimate = |v: &[(u64, f64)]| Estimate::of(&v.iter().map(|(_, x)| *x).collect::<Vec<_>>());
    let means = before
        .as_deref()
        .zip(after.as_deref())
        .map(|(b, c)| (estimate(b), estimate(c)));
    let change = before
        .as_deref()
        .zip(after.as_deref())
        .and_then(|(b, c)| Paired::between(c, b));
    let changed: Vec<(&RowComparison, &super::FigureChange)> = rows
        .iter()
        .filter_map(|r| Some((*r, r.changes.iter().find(|c| c.figure == figure)?)))
        .collect();
    let worst = changed.iter().min_by_key(|(_, c)| c.verdict);
    SeedChange {
        scenario: rows.first().map_or_else(String::new, |r| r.scenario.clone()),
        strategy: rows.first().map_or_else(String::new, |r| r.strategy.clone()),
        settings: rows.first().map_or_else(Vec::new, |r| r.settings.clone()),
        figure: figure.to_owned(),
        seeds: rows.len(),
        changed_in: changed.len(),
        means,
        change,
        values: changed.first().map_or((Value::Null, Value::Null), |(_, c)| {
            (c.baseline.clone(), c.current.clone())
        }),
        verdict: worst.map_or(Verdict::Unchanged, |(_, c)| c.verdict),
        said: worst.map_or("unchanged", |(r, c)| verdict_cell(r, c)),
    }
}
