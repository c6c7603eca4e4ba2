//! A grid laid out in the order its rows are kept: configurations computed by index, so that a
//! sweep of a million holds none of them.

use ctxbench_compact::compact::Strategy;
use ctxbench_compact::tokens::Estimator;

use crate::settings::RunSettings;

/// A grid whose configurations are computed by index, in the order of their rows, so that a
/// sweep of a million configurations holds none of them: the k-th is built when it runs.
#[derive(Clone, Debug)]
pub struct Layout {
    pub(super) strategies: Vec<Strategy>,
    pub(super) windows: Vec<Option<u64>>,
    /// `(threshold, target)`, the targets above their threshold left out.
    pub(super) pairs: Vec<(f64, Option<f64>)>,
    pub(super) keeps: Vec<usize>,
    pub(super) reserves: Vec<u64>,
    pub(super) estimators: Vec<Estimator>,
    pub(super) base: RunSettings,
}

impl Layout {
    /// How many configurations.
    pub fn len(&self) -> usize {
        self.strategies.len()
            * self.windows.len()
            * self.pairs.len()
            * self.keeps.len()
            * self.reserves.len()
            * self.estimators.len()
    }

    /// Whether there is none (every target above every threshold).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What the grid is, as text: every list in its order and the settings they vary from. Two
    /// layouts with the same description run the same configurations in the same order (part
    /// of a sweep's fingerprint).
    pub fn describe(&self) -> String {
        let strategies: Vec<String> = self.strategies.iter().map(Strategy::to_string).collect();
        let base = serde_json::to_string(&self.base).unwrap_or_default();
        format!(
            "strategies {strategies:?}\nwindows {:?}\npairs {:?}\nkeeps {:?}\nreserves {:?}\nestimators {:?}\nbase {base}\n",
            self.windows,
            self.pairs,
            self.keeps,
            self.reserves,
            self.estimators.iter().map(|e| e.as_str()).collect::<Vec<_>>(),
        )
    }

    /// A few configurations that stand for all: every value of each list with the largest
    /// reply reserve and the smallest window. A policy's rules bind one value each, or the
    /// reserve against the window, so when these run on a scenario, every configuration does:
    /// a grid is checked before it starts, not a million runs in.
    pub fn probes(&self) -> Vec<RunSettings> {
        let Some(first) = (!self.is_empty()).then(|| self.config(0)) else {
            return Vec::new();
        };
        let base = RunSettings {
            reply_reserve: self.reserves.iter().copied().max().unwrap_or(0),
            ..first
        };
        let mut out: Vec<RunSettings> = self
            .windows
            .iter()
            .map(|&window| RunSettings { window, ..base.clone() })
            .collect();
        out.extend(self.pairs.iter().map(|&(threshold, target)| RunSettings {
            threshold,
            target,
            ..base.clone()
        }));
        out.extend(self.keeps.iter().map(|&keep| RunSettings {
            keep_recent_turns: keep,
            ..base.clone()
        }));
        out
    }

    /// The `k`-th configuration (`k < len()`): the estimator varies fastest, the strategy
    /// slowest, as the rows sort.
    pub fn config(&self, k: usize) -> RunSettings {
        let mut rest = k;
        let mut digit = |n: usize| {
            let d = rest % n;
            rest /= n;
            d
        };
        let estimator = self.estimators[digit(self.estimators.len())];
        let reserve = self.reserves[digit(self.reserves.len())];
        let keep = self.keeps[digit(self.keeps.len())];
        let (threshold, target) = self.pairs[digit(self.pairs.len())];
        let window = self.windows[digit(self.windows.len())];
        let strategy = self.strategies[digit(self.strategies.len())].clone();
        RunSettings {
            strategy: strategy.into(),
            window,
            threshold,
            target,
            keep_recent_turns: keep,
            reply_reserve: reserve,
            estimator,
            ..self.base.clone()
        }
    }
}
