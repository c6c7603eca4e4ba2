//! Sweeps: grids of configurations for tuning (`docs/sweeps.md`), and the order results are kept in.
//!
//! Ranges include both ends; grid points are `start + k × step`, rounded to the step's
//! decimals (`0.5:0.95:0.05` is 0.5, 0.55, …, 0.95). A shard `i/n` takes a slice of the grid
//! balanced by the scenarios' sizes (`shard.rs`). Results are sorted by their key columns, so a
//! sweep run whole and the merge of its shards give the same file.

use std::cmp::Ordering;

use ctxbench_compact::compact::Strategy;
use ctxbench_compact::tokens::Estimator;

mod layout;
mod shard;

pub use layout::Layout;
pub use shard::{Plan, SCHEDULER_VARIABLES, Shard, fingerprint};

use crate::report::ResultRow;
use crate::settings::RunSettings;

/// A value list or range that does not parse; the message says what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GridError(pub String);

impl std::fmt::Display for GridError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for GridError {}

fn decimals(text: &str) -> usize {
    text.split_once('.').map_or(0, |(_, d)| d.len())
}

/// The most values one list or range may hold (a grid of them all is refused long before).
const MAX_VALUES: usize = 10_000_000;

fn too_many(text: &str, n: f64) -> GridError {
    GridError(format!(
        "{text:?} holds {n:.0} values, more than {MAX_VALUES} (a step too fine?); take a coarser step"
    ))
}

/// Parses `0.8`, `0.5,0.8` or `0.5:0.95:0.05` (both ends included).
pub fn parse_decimals(text: &str) -> Result<Vec<f64>, GridError> {
    let bad = || {
        GridError(format!(
            "{text:?}: expected a number, a list (0.5,0.8) or a range start:end:step (0.5:0.95:0.05)"
        ))
    };
    let parts: Vec<&str> = text.split(':').map(str::trim).collect();
    match parts.as_slice() {
        [start, end, step] => {
            let (a, b, s): (f64, f64, f64) = (
                start.parse().map_err(|_| bad())?,
                end.parse().map_err(|_| bad())?,
                step.parse().map_err(|_| bad())?,
            );
            if s.is_nan() || s <= 0.0 {
                return Err(GridError(format!(
                    "{text:?}: the step {step} must be above 0 (like {start}:{end}:0.05)"
                )));
            }
            if b < a {
                return Err(GridError(format!(
                    "{text:?}: the range runs down, from {start} to {end}; write it from the smaller end ({end}:{start}:{step})"
                )));
            }
            let d = decimals(step).max(decimals(start));
            let n = ((b - a) / s + 1e-9).floor();
            if n >= MAX_VALUES as f64 {
                return Err(too_many(text, n + 1.0));
            }
            let n = n as usize;
            (0..=n)
                .map(|k| format!("{:.d$}", a + k as f64 * s).parse().map_err(|_| bad()))
                .collect()
        }
        [_] => text.split(',').map(|v| v.trim().parse().map_err(|_| bad())).collect(),
        _ => Err(bad()),
    }
}

/// Parses `2`, `1,2,4`, `1..4` (both ends) or `1000:4000:1000`.
pub fn parse_integers(text: &str) -> Result<Vec<u64>, GridError> {
    let bad = || {
        GridError(format!(
            "{text:?}: expected a whole number, a list (1,2,4) or a range (1..4, or start:end:step)"
        ))
    };
    let num = |v: &str| v.trim().parse::<u64>().map_err(|_| bad());
    let down = |a: u64, b: u64, written: String| {
        GridError(format!(
            "{text:?}: the range runs down, from {a} to {b}; write it from the smaller end ({written})"
        ))
    };
    if let Some((a, b)) = text.split_once("..") {
        let (a, b) = (num(a)?, num(b.trim_start_matches('='))?);
        if a <= b && b - a >= MAX_VALUES as u64 {
            return Err(too_many(text, (b - a) as f64 + 1.0));
        }
        return if a <= b {
            Ok((a..=b).collect())
        } else {
            Err(down(a, b, format!("{b}..{a}")))
        };
    }
    let parts: Vec<&str> = text.split(':').collect();
    match parts.as_slice() {
        [a, b, s] => {
            let (a, b, s) = (num(a)?, num(b)?, num(s)?);
            if s == 0 {
                return Err(GridError(format!(
                    "{text:?}: the step must be at least 1 (like {a}:{b}:1)"
                )));
            }
            if b < a {
                return Err(down(a, b, format!("{b}:{a}:{s}")));
            }
            if (b - a) / s >= MAX_VALUES as u64 {
                return Err(too_many(text, ((b - a) / s) as f64 + 1.0));
            }
            Ok((a..=b).step_by(s as usize).collect())
        }
        [_] => text.split(',').map(num).collect(),
        _ => Err(bad()),
    }
}

/// A grid of configurations: every combination of the lists, stage parameters applied.
#[derive(Clone, Debug)]
pub struct Grid {
    /// Strategies, in order.
    pub strategies: Vec<Strategy>,
    /// Windows; `None` takes each scenario's own.
    pub windows: Vec<Option<u64>>,
    /// Thresholds.
    pub thresholds: Vec<f64>,
    /// Targets (low watermarks); `None` is the threshold. A target above its threshold is no
    /// configuration and is left out.
    pub targets: Vec<Option<f64>>,
    /// `keep_recent_turns` values.
    pub keeps: Vec<usize>,
    /// Reply reserves.
    pub reserves: Vec<u64>,
    /// Estimators.
    pub estimators: Vec<Estimator>,
    /// Stage parameters: `(stage, key, values)`; a strategy without the stage is left as is.
    pub params: Vec<(String, String, Vec<String>)>,
    /// Everything else (tokenizer, overflow behaviour, max turns, seed); its own strategy,
    /// window, threshold, keep, reserve and estimator are those of the lists.
    pub base: RunSettings,
}

/// Removes the values of `list` whose key repeats an earlier one's; returns the keys removed.
/// Each key is made once (a list of a million values takes a moment, not an hour).
pub fn dedup_by<T, K: Ord + Clone>(list: &mut Vec<T>, key: impl Fn(&T) -> K) -> Vec<K> {
    let mut seen = std::collections::BTreeSet::new();
    let mut kept: Vec<T> = Vec::with_capacity(list.len());
    let mut removed = Vec::new();
    for value in list.drain(..) {
        let k = key(&value);
        if seen.insert(k.clone()) {
            kept.push(value);
        } else {
            removed.push(k);
        }
    }
    *list = kept;
    removed
}

impl Grid {
    /// Removes values given twice from every list (strategies by canonical name), so that no
    /// configuration runs twice; says which, one note each.
    pub fn dedup(&mut self) -> Vec<String> {
        let mut notes = Vec::new();
        let mut note = |flag: &str, values: Vec<String>| {
            for v in values {
                notes.push(format!("{flag} {v} was given more than once; it runs once"));
            }
        };
        note("--strategies", dedup_by(&mut self.strategies, ToString::to_string));
        let text = |w: &Option<u64>| w.map_or("(the scenario's)".to_owned(), |w| w.to_string());
        note("--window", dedup_by(&mut self.windows, text));
        note("--threshold", dedup_by(&mut self.thresholds, ToString::to_string));
        let text = |t: &Option<f64>| t.map_or("(the threshold)".to_owned(), |t| t.to_string());
        note("--target", dedup_by(&mut self.targets, text));
        note("--keep", dedup_by(&mut self.keeps, ToString::to_string));
        note("--reply-reserve", dedup_by(&mut self.reserves, ToString::to_string));
        note("--estimator", dedup_by(&mut self.estimators, ToString::to_string));
        for (stage, key, values) in &mut self.params {
            note(&format!("--param {stage}.{key}="), dedup_by(values, Clone::clone));
        }
        notes
    }

    /// Where `best` (a row of this grid) sits at the end of a swept range: one note per
    /// setting whose best value is the lowest or highest swept, since the best may lie beyond.
    pub fn edges(&self, best: &ResultRow) -> Vec<String> {
        let k = &best.settings;
        let mut notes = Vec::new();
        let mut check = |flag: &str, values: Vec<f64>, value: Option<f64>| {
            let Some(value) = value else { return };
            if values.len() < 2 {
                return;
            }
            let lowest = values.iter().copied().fold(f64::INFINITY, f64::min);
            let highest = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let end = if value == lowest {
                "lowest"
            } else if value == highest {
                "highest"
            } else {
                return;
            };
            // A fraction of the window cannot pass 1, nor a count go under 0.
            let fraction = flag == "--threshold" || flag == "--target";
            if (end == "highest" && fraction && value >= 1.0) || (end == "lowest" && value <= 0.0) {
                return;
            }
            notes.push(format!(
                "{}: the best {flag} {value} is the {end} swept; the grid limits it, so widen the range past it",
                best.scenario
            ));
        };
        if self.windows.iter().all(Option::is_some) {
            check(
                "--window",
                self.windows.iter().flatten().map(|w| *w as f64).collect(),
                k.window.map(|w| w as f64),
            );
        }
        check("--threshold", self.thresholds.clone(), Some(k.threshold));
        if self.targets.iter().all(Option::is_some) {
            check("--target", self.targets.iter().flatten().copied().collect(), k.target);
        }
        check(
            "--keep",
            self.keeps.iter().map(|n| *n as f64).collect(),
            Some(k.keep_recent_turns as f64),
        );
        check(
            "--reply-reserve",
            self.reserves.iter().map(|n| *n as f64).collect(),
            Some(k.reply_reserve as f64),
        );
        notes
    }

    /// The strategies of the grid, stage parameters applied, each once.
    fn variants(&self) -> Result<Vec<Strategy>, GridError> {
        let mut strategies = Vec::new();
        for strategy in &self.strategies {
            let mut variants = vec![strategy.clone()];
            for (stage, key, values) in &self.params {
                if !strategy.has_stage(stage) {
                    continue;
                }
                let mut next = Vec::new();
                for variant in &variants {
                    for value in values {
                        let mut v = variant.clone();
                        v.set_param(stage, key, value)
                            .map_err(|e| GridError(format!("--param {stage}.{key}={value}: {e}")))?;
                        next.push(v);
                    }
                }
                variants = next;
            }
            strategies.extend(variants);
        }
        // A stage parameter can spell out a strategy already in the list: it runs once.
        dedup_by(&mut strategies, ToString::to_string);
        Ok(strategies)
    }

    /// The grid laid out in the order its rows are kept ([`row_order`]): every list sorted as
    /// the rows sort, so that the k-th configuration of a scenario is its k-th row.
    pub fn layout(&self) -> Result<Layout, GridError> {
        let mut strategies = self.variants()?;
        strategies.sort_by_cached_key(ToString::to_string);
        let mut windows = self.windows.clone();
        windows.sort_unstable();
        let mut pairs = Vec::new();
        for &threshold in &self.thresholds {
            // A target equal to its threshold is the default one: with both, it runs once.
            let same = |t: f64| t == threshold && self.targets.contains(&None);
            for &target in self
                .targets
                .iter()
                .filter(|t| t.is_none_or(|t| t <= threshold && !same(t)))
            {
                pairs.push((threshold, target));
            }
        }
        pairs.sort_by(|a, b| {
            a.0.total_cmp(&b.0)
                .then(a.1.unwrap_or(a.0).total_cmp(&b.1.unwrap_or(b.0)))
        });
        let mut keeps = self.keeps.clone();
        keeps.sort_unstable();
        let mut reserves = self.reserves.clone();
        reserves.sort_unstable();
        let mut estimators = self.estimators.clone();
        estimators.sort_by_key(|e| e.as_str());
        Ok(Layout {
            strategies,
            windows,
            pairs,
            keeps,
            reserves,
            estimators,
            base: self.base.clone(),
        })
    }

    /// Every configuration, in the order of its rows ([`Grid::layout`]).
    pub fn configs(&self) -> Result<Vec<RunSettings>, GridError> {
        let layout = self.layout()?;
        Ok((0..layout.len()).map(|k| layout.config(k)).collect())
    }
}

/// The order results are kept in: scenario, then every key column, numbers as numbers.
pub fn row_order(a: &ResultRow, b: &ResultRow) -> Ordering {
    a.scenario.cmp(&b.scenario).then_with(|| a.settings.order(&b.settings))
}

pub use crate::verdict::Objective;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_is_the_order_of_the_rows() {
        let grid = Grid {
            strategies: vec![
                "truncate+drop".parse().expect("valid"),
                "drop".parse().expect("valid"),
                "mask".parse().expect("valid"),
            ],
            windows: vec![Some(8000), Some(4000)],
            thresholds: vec![0.9, 0.5, 0.7],
            targets: vec![None, Some(0.6), Some(0.4)],
            keeps: vec![3, 1],
            reserves: vec![0],
            estimators: vec![RunSettings::DEFAULT_ESTIMATOR],
            params: vec![("mask".into(), "m".into(), vec!["5".into(), "2".into()])],
            base: RunSettings::new(Strategy::none()),
        };
        let configs = grid.configs().expect("valid");
        // 4 strategies × 2 windows × (0.5: 2 targets, 0.7: 3, 0.9: 3) × 2 keeps.
        assert_eq!(configs.len(), 4 * 2 * 8 * 2);
        let rows: Vec<ResultRow> = configs
            .into_iter()
            .map(|c| {
                ResultRow::new(
                    "s",
                    RunSettings {
                        target: Some(c.target.unwrap_or(c.threshold)),
                        ..c
                    },
                    Default::default(),
                )
            })
            .collect();
        for pair in rows.windows(2) {
            assert!(
                row_order(&pair[0], &pair[1]).is_lt(),
                "{:?} before {:?}",
                pair[0].settings,
                pair[1].settings
            );
        }
    }

    #[test]
    fn ranges() {
        let f = |t| parse_decimals(t).map_err(|e| e.0);
        assert_eq!(f("0.5:0.95:0.05").map(|v| v.len()), Ok(10));
        assert_eq!(f("0.5:0.95:0.05").map(|v| v[9]), Ok(0.95));
        assert_eq!(f("0.5:0.95:0.05").map(|v| v[1]), Ok(0.55));
        assert_eq!(f("0.7,0.8"), Ok(vec![0.7, 0.8]));
        assert_eq!(f("0.1:0.3:0.1"), Ok(vec![0.1, 0.2, 0.3]));
        assert!(f("0.9:0.5:0.1").is_err());
        let i = |t| parse_integers(t).map_err(|e| e.0);
        assert_eq!(i("1..4"), Ok(vec![1, 2, 3, 4]));
        assert_eq!(i("4000,8000"), Ok(vec![4000, 8000]));
        assert_eq!(i("1000:4000:1500"), Ok(vec![1000, 2500, 4000]));
        assert!(i("x").is_err());
    }

    #[test]
    fn a_shard_is_one_of_n() {
        assert_eq!(Shard::parse("2/4"), Ok(Shard { index: 2, count: 4 }));
        assert!(Shard::parse("0/4").is_err() && Shard::parse("5/4").is_err() && Shard::parse("x").is_err());
    }
}
