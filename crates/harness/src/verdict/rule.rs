//! The one rule that finds a best configuration, for a whole verdict and for the commands that
//! stream their rows alike: on each key of the objective in turn, the configurations that tie
//! with the lowest mean (paired over their seeds) stay; what is left goes to the simplest, then
//! to the canonical name.

use std::cmp::Ordering;

use super::config::Config;
use super::objective::{Key, Objective};
use super::paired::Paired;
use super::stats::Estimate;

/// What the rule reads of a configuration: the mean of its figure on each key of the objective,
/// with its interval; its figures seed by seed are read again where two are compared, not kept.
#[derive(Clone, Debug)]
pub struct Scores<'c> {
    config: &'c Config<'c>,
    /// Per key: the mean over the seeds with its interval; `None` when a seed has none (a cost
    /// without a price).
    estimates: Vec<Option<Estimate>>,
}

impl<'c> Scores<'c> {
    /// The figures of `config` on each key of `objective`.
    pub fn of(config: &'c Config<'c>, objective: &Objective) -> Scores<'c> {
        let estimates = objective.keys.iter().map(|&key| config.on(objective, key)).collect();
        Scores { config, estimates }
    }

    /// The mean on the `k`th key (infinite when there is none: it comes last).
    pub fn mean(&self, k: usize) -> f64 {
        self.estimates[k].map_or(f64::INFINITY, |e| e.mean)
    }

    /// Each seed and its figure on `key`; `None` when a seed has none.
    fn per_seed(&self, key: Key, objective: &Objective) -> Option<Vec<(u64, f64)>> {
        self.config
            .runs()
            .map(|r| Some((r.seed, objective.value(key, &r)?)))
            .collect()
    }
}

/// Whether `a` and `b` tie on the `k`th key: their means print alike, or their difference
/// paired over the seeds ties ([`Paired::ties`]); each one's own interval where no seed is
/// shared.
pub fn ties(a: &Scores<'_>, b: &Scores<'_>, k: usize, objective: &Objective) -> bool {
    let key = objective.keys[k];
    // What [`figures_tie`] finds first without reading a seed again.
    match (a.estimates[k], b.estimates[k]) {
        (None, None) => true,
        (None, Some(_)) | (Some(_), None) => false,
        (Some(x), Some(y)) if shown_alike(key, x.mean, y.mean) => true,
        _ => figures_tie(
            a.per_seed(key, objective).as_deref(),
            b.per_seed(key, objective).as_deref(),
            key,
            objective,
        ),
    }
}

/// Whether two configurations' figures on `key`, each `(seed, figure)` by seed (`None`: a seed
/// has none), tie by the rule.
pub fn figures_tie(a: Option<&[(u64, f64)]>, b: Option<&[(u64, f64)]>, key: Key, objective: &Objective) -> bool {
    let (Some(a), Some(b)) = (a, b) else {
        return a.is_none() && b.is_none();
    };
    let estimate = |v: &[(u64, f64)]| Estimate::of(&v.iter().map(|&(_, x)| x).collect::<Vec<_>>());
    let (x, y) = (estimate(a), estimate(b));
    shown_alike(key, x.mean, y.mean)
        || match Paired::between(a, b) {
            Some(d) => d.ties(x.mean, y.mean, objective.tie),
            None => x.ties(&y, objective.tie),
        }
}

/// Whether two means print alike, so that no ranking rests on a difference nobody is shown:
/// dollars to a hundredth of a cent, counts to a tenth.
fn shown_alike(key: Key, a: f64, b: f64) -> bool {
    match key {
        Key::Cost => (a * 1e4).round() == (b * 1e4).round(),
        Key::Facts | Key::Calls | Key::Tokens => (a * 10.0).round() == (b * 10.0).round(),
    }
}

/// What settled the pick among the runs tied with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decider {
    /// A key of the objective told them apart.
    Key(Key),
    /// They tied on every key and the pick is the simplest of them.
    Simpler,
    /// They tied on every key, and the pick is as simple as another: the canonical name decided.
    Name,
}

/// What settled a choice: the index of a key, or, with every key tied, simplicity or the name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settled {
    /// The key at this index of the list.
    Key(usize),
    /// Tied on every key; the pick is the simplest.
    Simpler,
    /// Tied on every key; as simple as another.
    Name,
}

impl Settled {
    /// In the words of an objective.
    pub fn decider(self, objective: &Objective) -> Decider {
        match self {
            Settled::Key(k) => Decider::Key(objective.keys[k]),
            Settled::Simpler => Decider::Simpler,
            Settled::Name => Decider::Name,
        }
    }
}

/// The best of `n` candidates on `keys` keys tried in order: its position, what settled it, and
/// the candidates left tied on every key (the pick among them). `mean(i, k)` is the `i`th one's
/// mean on the `k`th key (infinite when it has none), `ties(i, j, k)` whether two tie on it
/// ([`figures_tie`]), `simpler` orders two by simplicity, then canonical name, then every other
/// setting, and `as_simple` says whether two are equally simple.
pub fn choose(
    n: usize,
    keys: usize,
    mean: &dyn Fn(usize, usize) -> f64,
    ties: &dyn Fn(usize, usize, usize) -> bool,
    simpler: &dyn Fn(usize, usize) -> Ordering,
    as_simple: &dyn Fn(usize, usize) -> bool,
) -> (usize, Settled, Vec<usize>) {
    let mut pool: Vec<usize> = (0..n).collect();
    let mut settled = None;
    for k in 0..keys {
        let lead = pool
            .iter()
            .copied()
            .min_by(|&a, &b| mean(a, k).total_cmp(&mean(b, k)).then_with(|| simpler(a, b)))
            .unwrap_or(0);
        pool.retain(|&g| g == lead || ties(g, lead, k));
        if pool.len() == 1 {
            settled = Some(Settled::Key(k));
            break;
        }
    }
    let at = pool.iter().copied().min_by(|&a, &b| simpler(a, b)).unwrap_or(0);
    let settled = settled.unwrap_or_else(|| {
        if pool.iter().any(|&g| g != at && as_simple(g, at)) {
            Settled::Name
        } else {
            Settled::Simpler
        }
    });
    (at, settled, pool)
}
