//! The gate: compares current results with a baseline, figure by figure, the way criterion
//! compares benchmarks: each row is improved, unchanged or regressed.
//!
//! Rows are matched on their whole key (scenario and configuration). Rows still unmatched are
//! paired on scenario and strategy when that pairing is unique on both sides, and the settings
//! that differ are named (a team changed its threshold, say). Every gated figure is "lower is
//! better" but the cache hit rate: `tokens_sent`, `model_calls`, `peak_request_tokens`,
//! `cost_usd` and `elapsed_s` may grow within the tolerance, `cache_hit_rate` fall within it;
//! `facts_lost`, `facts_wrong`, `facts_stale`, `decisions_lost`, `overflows`, `pairing_errors` and
//! `answers_wrong` may not grow at all. A run
//! that completes where it stopped before is improved (one that stops now, regressed), and its
//! cost figures are not compared: a stopped run sent less. `exact` gates every figure with no
//! tolerance, improvements included.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;
use serde_json::Value;

mod checks;
mod job_report;
mod over_seeds;
mod picks;
mod report;

pub use checks::{Checks, RunAgain, checks};
pub use job_report::{COMMENT_LIMIT, JobReport, job_report};
pub use over_seeds::{SeedChange, changes_over_seeds};
pub use picks::{PickChange, objective};
pub use report::{gate_junit, gate_markdown, gate_summary, update_summary};

use crate::report::{ResultRow, Row};

/// Figures that may grow by the tolerance.
pub const GROWTH_FIGURES: [&str; 5] = [
    "tokens_sent",
    "model_calls",
    "peak_request_tokens",
    "cost_usd",
    "elapsed_s",
];
/// Figures where higher is better, that may fall by the tolerance.
pub const FALLING_FIGURES: [&str; 1] = ["cache_hit_rate"];
/// Figures that may not grow at all.
pub const STRICT_FIGURES: [&str; 7] = [
    "facts_lost",
    "facts_wrong",
    "facts_stale",
    "decisions_lost",
    "overflows",
    "pairing_errors",
    "answers_wrong",
];

/// How much a figure may grow.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Tolerance {
    /// A fraction of the baseline (`5%` is 0.05).
    Relative(f64),
    /// A number of units.
    Absolute(f64),
}

impl Tolerance {
    /// Parses `5%`, `+2%`, `100` or `+100`.
    pub fn parse(text: &str) -> Option<Tolerance> {
        let text = text.trim().trim_start_matches('+');
        let tolerance = match text.strip_suffix('%') {
            Some(p) => Tolerance::Relative(p.trim().parse::<f64>().ok()? / 100.0),
            None => Tolerance::Absolute(text.parse().ok()?),
        };
        let value = match tolerance {
            Tolerance::Relative(v) | Tolerance::Absolute(v) => v,
        };
        (value >= 0.0 && value.is_finite()).then_some(tolerance)
    }

    /// The largest growth allowed from `baseline`.
    pub fn allowed(self, baseline: f64) -> f64 {
        match self {
            Tolerance::Relative(r) => baseline.abs() * r,
            Tolerance::Absolute(a) => a,
        }
    }
}

impl fmt::Display for Tolerance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tolerance::Relative(r) => write!(f, "+{}%", r * 100.0),
            Tolerance::Absolute(a) => write!(f, "+{a}"),
        }
    }
}

/// The gate's settings.
#[derive(Clone, Debug)]
pub struct GateConfig {
    /// For the growth figures.
    pub tolerance: Tolerance,
    /// Per-figure overrides.
    pub allow: BTreeMap<String, Tolerance>,
    /// Any change of any figure fails, improvements included.
    pub exact: bool,
    /// Figures the baseline does not hold (it predates them): not compared.
    pub absent: Vec<String>,
    /// Rows on one side only are listed but do not stop the gate.
    pub allow_new: bool,
}

impl Default for GateConfig {
    fn default() -> Self {
        GateConfig {
            tolerance: Tolerance::Relative(0.0),
            allow: BTreeMap::new(),
            exact: false,
            absent: Vec::new(),
            allow_new: false,
        }
    }
}

impl GateConfig {
    /// The tolerance of a figure, if the gate looks at it.
    fn tolerance(&self, figure: &str) -> Option<Tolerance> {
        if self.exact {
            return Some(Tolerance::Absolute(0.0));
        }
        if let Some(t) = self.allow.get(figure) {
            return Some(*t);
        }
        if GROWTH_FIGURES.contains(&figure) || FALLING_FIGURES.contains(&figure) {
            Some(self.tolerance)
        } else if STRICT_FIGURES.contains(&figure) {
            Some(Tolerance::Absolute(0.0))
        } else {
            None
        }
    }
}

ctxbench_compact::named! {
    /// The outcome of a figure or a row, by the word reports use.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
    pub enum Verdict {
        /// Worse beyond what is allowed.
        Regressed = "regressed",
        /// Better (or, with `exact`, merely different).
        Improved = "improved",
        /// The same, or worse within the tolerance.
        Unchanged = "unchanged",
    }
}

/// One figure that changed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FigureChange {
    /// The figure's column name.
    pub figure: String,
    /// Its baseline value.
    pub baseline: Value,
    /// Its current value.
    pub current: Value,
    /// `current − baseline`, for numbers.
    pub delta: Option<f64>,
    /// The growth allowed; `None` for a figure the gate does not look at (shown for context).
    pub allowed: Option<f64>,
    /// What this change means.
    pub verdict: Verdict,
}

impl FigureChange {
    /// `delta` relative to the baseline, where both are numbers and the baseline is not 0.
    pub fn relative(&self) -> Option<f64> {
        let base = self.baseline.as_f64()?;
        (base != 0.0).then(|| self.delta.unwrap_or(0.0) / base.abs())
    }

    /// How bad a change is, to sort by: its relative size, and anything from 0 (a first lost
    /// fact, a first overflow) worst of all.
    fn severity(&self) -> f64 {
        match (self.relative(), self.delta) {
            (Some(r), _) => r.abs(),
            (None, Some(d)) if d != 0.0 => f64::INFINITY,
            _ => 0.0,
        }
    }
}

/// One matched row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RowComparison {
    /// Scenario name.
    pub scenario: String,
    /// Canonical strategy (an outside agent's served run: its label).
    pub strategy: String,
    /// Settings that differ between the two sides (`threshold 0.8 → 0.95`), if paired loosely.
    pub settings: Vec<String>,
    /// The row's verdict: regressed if any figure regressed, else improved if any improved.
    pub verdict: Verdict,
    /// The figures that changed.
    pub changes: Vec<FigureChange>,
    /// Where the two rows are: their positions in the baseline and in the current results.
    #[serde(skip)]
    pub positions: (usize, usize),
}

/// The whole comparison.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GateReport {
    /// Matched rows, worst first.
    pub rows: Vec<RowComparison>,
    /// Rows only in the baseline (`scenario · strategy · settings`).
    pub only_in_baseline: Vec<String>,
    /// Rows only in the current results.
    pub only_in_current: Vec<String>,
    /// With `exact`, any change fails.
    pub exact: bool,
    /// Rows on one side only are accepted.
    pub allow_new: bool,
    /// Scenarios whose pick changed (said, not gated: the figures are).
    pub picks: Vec<PickChange>,
}

impl GateReport {
    /// Rows with a given verdict.
    pub fn count(&self, verdict: Verdict) -> usize {
        self.rows.iter().filter(|r| r.verdict == verdict).count()
    }

    /// Rows on one side only.
    pub fn unmatched(&self) -> usize {
        self.only_in_baseline.len() + self.only_in_current.len()
    }

    /// Whether the two sides hold different rows and that was not allowed: the gate cannot
    /// decide (exit 2).
    pub fn undecided(&self) -> bool {
        self.unmatched() > 0 && !self.allow_new
    }

    /// Whether the gate fails: a regression, or with `exact` any change.
    pub fn fails(&self) -> bool {
        self.count(Verdict::Regressed) > 0 || (self.exact && self.rows.iter().any(|r| !r.changes.is_empty()))
    }
}

/// A row's key as one comparable string, and its settings by name.
fn key_of(row: &ResultRow) -> (String, Vec<(String, String)>) {
    let settings: Vec<(String, String)> = row
        .key()
        .into_iter()
        .map(|(k, v)| (k, v.as_str().map_or_else(|| v.to_string(), str::to_owned)))
        .collect();
    let key = settings
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(";");
    (key, settings)
}

fn label(row: &ResultRow) -> String {
    let (_, settings) = key_of(row);
    let rest: Vec<String> = settings
        .iter()
        .filter(|(k, _)| !["scenario", "strategy", "run"].contains(&k.as_str()))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    format!("{} · {} · {}", row.scenario, row.label(), rest.join(" "))
}

/// Compares current rows with baseline rows.
pub fn compare(baseline: &[ResultRow], current: &[ResultRow], config: &GateConfig) -> GateReport {
    // Positions in `baseline` and `current` of each matched pair.
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let mut left_b: Vec<usize> = Vec::new();
    // Current rows by key, each taken at most once, in their order.
    let mut by_key: BTreeMap<String, std::collections::VecDeque<usize>> = BTreeMap::new();
    for (i, c) in current.iter().enumerate() {
        by_key.entry(key_of(c).0).or_default().push_back(i);
    }
    let mut taken = vec![false; current.len()];
    for (j, b) in baseline.iter().enumerate() {
        match by_key.get_mut(&key_of(b).0).and_then(|q| q.pop_front()) {
            Some(i) => {
                taken[i] = true;
                pairs.push((j, i));
            }
            None => left_b.push(j),
        }
    }
    let mut left_c: Vec<usize> = (0..current.len()).filter(|&i| !taken[i]).collect();
    // Loose pairing on (scenario, strategy), where it is unique on both sides.
    let loose = |r: &ResultRow| (r.scenario.clone(), r.label().into_owned());
    let mut only_b = Vec::new();
    for j in left_b {
        let b = &baseline[j];
        let candidates: Vec<usize> = (0..left_c.len())
            .filter(|&k| loose(&current[left_c[k]]) == loose(b))
            .collect();
        let unique_in_baseline = baseline.iter().filter(|r| loose(r) == loose(b)).count() == 1;
        if let ([k], true) = (candidates.as_slice(), unique_in_baseline) {
            pairs.push((j, left_c.remove(*k)));
        } else {
            only_b.push(label(b));
        }
    }
    let only_c = left_c.iter().map(|&i| label(&current[i])).collect();
    let mut rows: Vec<RowComparison> = pairs
        .into_iter()
        .map(|(j, i)| RowComparison {
            positions: (j, i),
            ..compare_row(&baseline[j], &current[i], config)
        })
        .collect();
    rows.sort_by(|a, b| {
        let worst = |r: &RowComparison| {
            r.changes
                .iter()
                .filter(|c| c.verdict == r.verdict)
                .map(FigureChange::severity)
                .fold(0.0, f64::max)
        };
        a.verdict
            .cmp(&b.verdict)
            .then(worst(b).total_cmp(&worst(a)))
            .then(a.scenario.cmp(&b.scenario))
    });
    GateReport {
        rows,
        only_in_baseline: only_b,
        only_in_current: only_c,
        exact: config.exact,
        allow_new: config.allow_new,
        picks: picks::picks_changed(baseline, current),
    }
}

fn compare_row(b: &ResultRow, c: &ResultRow, config: &GateConfig) -> RowComparison {
    let (_, bs) = key_of(b);
    let (_, cs) = key_of(c);
    let settings = bs
        .iter()
        .zip(&cs)
        .filter(|((_, x), (_, y))| x != y)
        .map(|((name, x), (_, y))| format!("{name} {x} → {y}"))
        .collect();
    let figures_b = serde_json::to_value(&b.metrics).unwrap_or(Value::Null);
    let figures_c = serde_json::to_value(&c.metrics).unwrap_or(Value::Null);
    // A run that stopped early sent less: its cost is not comparable with a complete run's.
    let completion_changed = b.metrics.completed != c.metrics.completed;
    let mut changes = Vec::new();
    for (figure, vb) in figures_b.as_object().into_iter().flatten() {
        let vc = figures_c.get(figure).cloned().unwrap_or(Value::Null);
        if *vb == vc || config.absent.contains(figure) {
            continue;
        }
        let delta = match (vb.as_f64(), vc.as_f64()) {
            (Some(x), Some(y)) => Some(y - x),
            _ => None,
        };
        if figure == "completed" {
            let verdict = if c.metrics.completed {
                Verdict::Improved
            } else {
                Verdict::Regressed
            };
            changes.push(FigureChange {
                figure: figure.clone(),
                baseline: vb.clone(),
                current: vc,
                delta,
                allowed: Some(0.0),
                verdict,
            });
            continue;
        }
        let cost_figure = GROWTH_FIGURES.contains(&figure.as_str()) || FALLING_FIGURES.contains(&figure.as_str());
        // A cost of one side only (`--price none` on the other) is not comparable either.
        let one_sided = vb.is_null() || vc.is_null();
        let comparable = !(cost_figure && (completion_changed || one_sided));
        let tolerance = config.tolerance(figure).filter(|_| comparable);
        let allowed = tolerance.map(|t| t.allowed(vb.as_f64().unwrap_or(0.0)));
        // How much worse: a growth, or for a higher-is-better figure a fall.
        let worse = if FALLING_FIGURES.contains(&figure.as_str()) {
            delta.map(|d| -d)
        } else {
            delta
        };
        let verdict = match (worse, allowed) {
            (Some(d), Some(a)) if d > a => Verdict::Regressed,
            (Some(d), Some(_)) if d < 0.0 => Verdict::Improved,
            // A non-numeric figure changing, under `exact`.
            (None, Some(_)) => Verdict::Regressed,
            (_, None) if config.exact => Verdict::Regressed,
            (_, Some(_)) if config.exact => Verdict::Regressed,
            _ => Verdict::Unchanged,
        };
        changes.push(FigureChange {
            figure: figure.clone(),
            baseline: vb.clone(),
            current: vc,
            delta,
            allowed,
            verdict,
        });
    }
    let verdict = if changes.iter().any(|c| c.verdict == Verdict::Regressed) {
        Verdict::Regressed
    } else if changes.iter().any(|c| c.verdict == Verdict::Improved) {
        Verdict::Improved
    } else {
        Verdict::Unchanged
    };
    RowComparison {
        scenario: b.scenario.clone(),
        strategy: b.label().into_owned(),
        settings,
        verdict,
        changes,
        positions: (0, 0),
    }
}

#[cfg(test)]
mod tests;
