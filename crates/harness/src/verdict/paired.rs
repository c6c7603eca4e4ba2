//! Two configurations of one scenario compared seed by seed: every configuration runs on the
//! same seeds, so what tells two apart is the mean of their per-seed differences with its 95%
//! interval, not whether each one's own interval overlaps the other's.

use serde::Serialize;

use super::config::Config;
use super::objective::{Key, Objective};
use super::seed_figures::SeedFigures;
use super::stats::Estimate;

/// One configuration against another on one figure, over the seeds both ran.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Paired {
    /// The mean per-seed difference (this one's figure minus the other's), with its interval;
    /// exact (no width) over one seed.
    pub difference: Estimate,
    /// Seeds compared.
    pub seeds: usize,
    /// Seeds where this one's figure is lower.
    pub lower_in: usize,
    /// Seeds where it is higher.
    pub higher_in: usize,
}

impl Paired {
    /// `a`'s figure on `key` of `objective` against `b`'s, seed by seed; `None` when a seed has
    /// no figure (a cost without a price) or the two share no seed.
    pub fn on(a: &Config<'_>, b: &Config<'_>, objective: &Objective, key: Key) -> Option<Paired> {
        Paired::of(a, b, |m| objective.value(key, m))
    }

    /// `a`'s figure against `b`'s seed by seed; `None` when a seed has no figure (a cost
    /// without a price) or the two share no seed.
    pub(super) fn of(a: &Config<'_>, b: &Config<'_>, figure: impl Fn(&SeedFigures) -> Option<f64>) -> Option<Paired> {
        let values =
            |c: &Config<'_>| -> Option<Vec<(u64, f64)>> { c.runs().map(|r| Some((r.seed, figure(&r)?))).collect() };
        Paired::between(&values(a)?, &values(b)?)
    }

    /// Figures `a` against figures `b`, each `(seed, figure)` by seed, over the seeds both ran.
    /// A configuration that ran once while the other ran several drew nothing at random
    /// (`--seeds auto`): its one run stands for every seed.
    pub fn between(a: &[(u64, f64)], b: &[(u64, f64)]) -> Option<Paired> {
        let differences: Vec<f64> = match (a, b) {
            ([(_, x)], many) if many.len() > 1 => many.iter().map(|(_, y)| x - y).collect(),
            (many, [(_, y)]) if many.len() > 1 => many.iter().map(|(_, x)| x - y).collect(),
            _ => {
                // Found by seed in a sorted copy: linear-logarithmic in the seeds, not quadratic
                // (a hundred thousand seeds are ten billion steps the other way).
                let mut by_seed = b.to_vec();
                by_seed.sort_by_key(|&(seed, _)| seed);
                a.iter()
                    .filter_map(|&(seed, x)| {
                        let at = by_seed.binary_search_by_key(&seed, |&(s, _)| s).ok()?;
                        Some(x - by_seed[at].1)
                    })
                    .collect()
            }
        };
        if differences.is_empty() {
            return None;
        }
        Some(Paired {
            difference: Estimate::of(&differences),
            seeds: differences.len(),
            lower_in: differences.iter().filter(|&&d| d < 0.0).count(),
            higher_in: differences.iter().filter(|&&d| d > 0.0).count(),
        })
    }

    /// Whether the two cannot be told apart: the interval of the difference holds zero, or the
    /// difference is within `tolerance` of the larger of the two means.
    pub fn ties(&self, a_mean: f64, b_mean: f64, tolerance: f64) -> bool {
        let d = self.difference;
        let holds_zero = d.low <= 0.0 && 0.0 <= d.high;
        holds_zero || d.mean.abs() <= tolerance * a_mean.abs().max(b_mean.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::RunMetrics;
    use crate::row::ResultRow;
    use crate::settings::RunSettings;

    fn rows(name: &str, facts: &[usize]) -> Vec<ResultRow> {
        facts
            .iter()
            .enumerate()
            .map(|(seed, &f)| {
                ResultRow::new(
                    "s",
                    RunSettings {
                        seed: seed as u64,
                        ..RunSettings::new(name.parse().expect("a strategy"))
                    },
                    RunMetrics {
                        facts_lost: f,
                        ..RunMetrics::default()
                    },
                )
            })
            .collect()
    }

    fn facts(m: &SeedFigures) -> Option<f64> {
        Some(m.facts_missed() as f64)
    }

    #[test]
    fn a_difference_in_every_seed_is_no_tie_though_each_interval_overlaps() {
        // One loses a fact more in 9 seeds of 10 and never fewer: alone, their intervals
        // overlap; paired, the difference is clear.
        let a = rows("drop", &[1, 4, 1, 4, 1, 4, 1, 4, 1, 2]);
        let b = rows("mask", &[0, 3, 0, 3, 0, 3, 0, 3, 0, 2]);
        let (a, b) = (
            Config::of(&a.iter().collect::<Vec<_>>()),
            Config::of(&b.iter().collect::<Vec<_>>()),
        );
        assert!(a.facts_lost().ties(&b.facts_lost(), 0.0), "alone, they overlap");
        let p = Paired::of(&a, &b, facts).expect("common seeds");
        assert_eq!((p.seeds, p.lower_in, p.higher_in), (10, 0, 9));
        assert!(!p.ties(a.facts_lost().mean, b.facts_lost().mean, 0.01), "{p:?}");
    }

    #[test]
    fn noise_both_ways_ties_and_one_run_stands_for_every_seed() {
        let a = rows("drop", &[1, 0, 1, 0, 1, 0]);
        let b = rows("mask", &[0, 1, 0, 1, 0, 1]);
        let (ca, cb) = (
            Config::of(&a.iter().collect::<Vec<_>>()),
            Config::of(&b.iter().collect::<Vec<_>>()),
        );
        let p = Paired::of(&ca, &cb, facts).expect("common seeds");
        assert!(p.ties(0.5, 0.5, 0.0));
        let once = rows("none", &[0]);
        let c = Config::of(&once.iter().collect::<Vec<_>>());
        let p = Paired::of(&ca, &c, facts).expect("one run stands for all");
        assert_eq!((p.seeds, p.higher_in), (6, 3));
    }
}
