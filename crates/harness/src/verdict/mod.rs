//! Verdicts: which configuration to use, per scenario and over a suite (`docs/verdicts.md`).
//! One module ranks for every command: `compare`, `sweep`'s best, `merge` and the page.
//!
//! A configuration runs once per seed ([`Config`]); it **qualifies** when every seed completed
//! with no overflow, no pairing error and no silent truncation, and the others are set apart
//! with their reason. Qualifying configurations are ranked by the [`Objective`]'s keys in order
//! (default: facts lost, then cost): two tie on a key when their 95% intervals overlap or their
//! means differ by less than the tolerance, and a tie passes to the next key, then to the simpler
//! strategy, then to the canonical name. Configurations with identical figures are one
//! [`Group`]. Each verdict names its **front** (no other run is both cheaper and loses fewer
//! facts) and how its pick was reached.

mod config;
mod objective;
mod sensitivity;
mod stats;
mod suite;

use std::cmp::Ordering;

pub use config::{Config, configs, disqualified};
pub use objective::{Key, Objective};
pub use sensitivity::{Alternative, Flip, STABLE_SEEDS, Sensitivity, prices, repriced, sensitivities};
pub use stats::{Estimate, Rate, t975};
pub use suite::{Standing, Suite, fraction, regret, signed, suite};

/// Configurations of one scenario with identical figures: one line naming every strategy,
/// `none` first.
#[derive(Clone, Debug)]
pub struct Group<'a> {
    /// The configurations.
    pub configs: Vec<Config<'a>>,
    /// Why they are disqualified; `None` when they qualify.
    pub why: Option<String>,
}

impl<'a> Group<'a> {
    /// The configuration that names the group.
    pub fn lead(&self) -> &Config<'a> {
        &self.configs[0]
    }

    /// Their canonical strategy names.
    pub fn strategies(&self) -> Vec<String> {
        self.configs.iter().map(Config::strategy).collect()
    }
}

/// How the pick was reached when others tied with it.
#[derive(Clone, Debug, PartialEq)]
pub struct Tie {
    /// The canonical names of the groups it tied with on the first key.
    pub with: Vec<String>,
    /// The keys on which they tied, in order.
    pub on: Vec<Key>,
    /// What broke the tie: the next key, or `None` when the simpler strategy (or the name) did.
    pub broken_by: Option<Key>,
}

/// One scenario's verdict.
#[derive(Clone, Debug)]
pub struct Verdict<'a> {
    /// The scenario's name.
    pub scenario: &'a str,
    /// Qualifying groups, best first.
    pub ranked: Vec<Group<'a>>,
    /// The others, each with its reason.
    pub disqualified: Vec<Group<'a>>,
    /// How the pick was reached, when others tied with it.
    pub tie: Option<Tie>,
    /// Positions in `ranked` of the front, cheapest first: no other qualifying group is both
    /// cheaper (on the objective's spend) and loses fewer facts.
    pub front: Vec<usize>,
    /// Whether the scenario tells strategies apart: some qualifying group does not tie with the
    /// pick on every key.
    pub discriminates: bool,
    /// Whether the pick holds under other prices and caches and seed by seed, once checked.
    pub sensitivity: Option<Sensitivity>,
}

impl<'a> Verdict<'a> {
    /// The configuration to use: the lead of the best group (`None` when none qualifies).
    pub fn pick(&self) -> Option<&Config<'a>> {
        self.ranked.first().map(Group::lead)
    }

    /// The `none` configuration of the scenario, when it ran.
    pub fn baseline(&self) -> Option<&Config<'a>> {
        self.groups()
            .flat_map(|g| &g.configs)
            .find(|c| c.settings().strategy.is_none())
    }

    /// Every group, ranked ones first.
    pub fn groups(&self) -> impl Iterator<Item = &Group<'a>> {
        self.ranked.iter().chain(&self.disqualified)
    }
}

/// The verdict of each scenario, in the order the scenarios first appear in `rows`.
pub fn verdicts<'a>(rows: &'a [crate::row::ResultRow], objective: &Objective) -> Vec<Verdict<'a>> {
    configs(rows)
        .into_iter()
        .map(|(scenario, configs)| verdict(scenario, configs, objective))
        .collect()
}

/// One scenario's verdict over its configurations.
pub fn verdict<'a>(scenario: &'a str, configs: Vec<Config<'a>>, objective: &Objective) -> Verdict<'a> {
    let (ranked, mut apart) = grouped(configs);
    let (ranked, tie, discriminates) = rank(ranked, objective);
    apart.sort_by(|a, b| by_first_key(objective, a, b));
    let front = front(&ranked, objective);
    Verdict {
        scenario,
        ranked,
        disqualified: apart,
        tie,
        front,
        discriminates,
        sensitivity: None,
    }
}

/// The pick of a verdict over `configs`, without the rest of it (a sweep asks this of every
/// configuration it runs).
pub fn pick<'a>(configs: Vec<Config<'a>>, objective: &Objective) -> Option<Config<'a>> {
    let (mut ranked, _) = grouped(configs);
    if ranked.is_empty() {
        return None;
    }
    let (at, _, _) = best(&ranked, objective);
    Some(ranked.swap_remove(at).configs.swap_remove(0))
}

/// Configurations grouped by identical figures: those that qualify, and the others.
fn grouped(configs: Vec<Config<'_>>) -> (Vec<Group<'_>>, Vec<Group<'_>>) {
    let mut ranked: Vec<Group> = Vec::new();
    let mut apart: Vec<Group> = Vec::new();
    for config in configs {
        let list = if config.why.is_some() { &mut apart } else { &mut ranked };
        match list.iter_mut().find(|g| g.lead().same_figures(&config)) {
            Some(group) => group.configs.push(config),
            None => list.push(Group {
                why: config.why.clone(),
                configs: vec![config],
            }),
        }
    }
    // Within a group, `none` names it (identical figures mean nothing was compacted), then the
    // simpler, then the canonical name.
    for group in ranked.iter_mut().chain(&mut apart) {
        group.configs.sort_by(|a, b| by_simplicity(a, b));
    }
    (ranked, apart)
}

/// The simpler configuration first, then by canonical name, then by every other setting.
fn by_simplicity(a: &Config<'_>, b: &Config<'_>) -> Ordering {
    a.simplicity()
        .cmp(&b.simplicity())
        .then_with(|| a.strategy().cmp(&b.strategy()))
        .then_with(|| a.settings().order(b.settings()))
}

/// Disqualified groups in the order of their first key's mean, for the table.
fn by_first_key(objective: &Objective, a: &Group<'_>, b: &Group<'_>) -> Ordering {
    let mean = |g: &Group<'_>| {
        objective
            .keys
            .first()
            .and_then(|&k| g.lead().on(objective, k))
            .map_or(f64::INFINITY, |e| e.mean)
    };
    mean(a)
        .total_cmp(&mean(b))
        .then_with(|| by_simplicity(a.lead(), b.lead()))
}

/// The groups in order, each the best of those left: on each key in turn, the groups that tie
/// with the lowest mean stay, and the simpler strategy settles what is left. Returns how the pick
/// was reached and whether anything told the groups apart.
fn rank<'a>(mut left: Vec<Group<'a>>, objective: &Objective) -> (Vec<Group<'a>>, Option<Tie>, bool) {
    let mut out = Vec::with_capacity(left.len());
    let mut tie = None;
    let mut discriminates = false;
    while !left.is_empty() {
        let (at, how, all_tied) = best(&left, objective);
        if out.is_empty() {
            tie = how;
            discriminates = !all_tied;
        }
        out.push(left.remove(at));
    }
    (out, tie, discriminates)
}

/// The best of `groups`: its position, how ties were broken, and whether every group tied on
/// every key.
fn best(groups: &[Group<'_>], objective: &Objective) -> (usize, Option<Tie>, bool) {
    let estimates: Vec<Vec<Option<Estimate>>> = groups
        .iter()
        .map(|g| objective.keys.iter().map(|&k| g.lead().on(objective, k)).collect())
        .collect();
    let mean = |g: usize, k: usize| estimates[g][k].map_or(f64::INFINITY, |e| e.mean);
    let mut pool: Vec<usize> = (0..groups.len()).collect();
    let mut first_tied: Vec<usize> = Vec::new();
    let mut tied_on = Vec::new();
    let mut broken_by = None;
    for (k, &key) in objective.keys.iter().enumerate() {
        let lead = pool
            .iter()
            .copied()
            .min_by(|&a, &b| {
                mean(a, k)
                    .total_cmp(&mean(b, k))
                    .then_with(|| by_simplicity(groups[a].lead(), groups[b].lead()))
            })
            .unwrap_or(0);
        let ties = |g: usize| match (estimates[g][k], estimates[lead][k]) {
            (Some(x), Some(y)) => x.ties(&y, objective.tie) || shown_alike(key, x.mean, y.mean),
            (None, None) => true,
            _ => false,
        };
        let next: Vec<usize> = pool.iter().copied().filter(|&g| ties(g)).collect();
        if k == 0 {
            first_tied = next.clone();
        }
        if next.len() > 1 {
            tied_on.push(key);
        } else if !tied_on.is_empty() && broken_by.is_none() {
            broken_by = Some(key);
        }
        pool = next;
        if pool.len() == 1 {
            break;
        }
    }
    let all_tied = pool.len() == groups.len();
    let at = pool
        .iter()
        .copied()
        .min_by(|&a, &b| by_simplicity(groups[a].lead(), groups[b].lead()))
        .unwrap_or(0);
    let how = (first_tied.len() > 1).then(|| Tie {
        with: first_tied
            .iter()
            .filter(|&&g| g != at)
            .map(|&g| groups[g].lead().strategy())
            .collect(),
        on: tied_on,
        broken_by,
    });
    (at, how, all_tied)
}

/// Whether two means print alike, so that no ranking rests on a difference nobody is shown:
/// dollars to a hundredth of a cent, counts to a tenth.
fn shown_alike(key: Key, a: f64, b: f64) -> bool {
    match key {
        Key::Cost => (a * 1e4).round() == (b * 1e4).round(),
        Key::Facts | Key::Calls | Key::Tokens => (a * 10.0).round() == (b * 10.0).round(),
    }
}

/// Positions of the front among `ranked`, cheapest first.
fn front(ranked: &[Group<'_>], objective: &Objective) -> Vec<usize> {
    let spend = objective.spend();
    let point = |g: &Group<'_>| {
        (
            g.lead().on(objective, spend).map_or(f64::INFINITY, |e| e.mean),
            g.lead().facts_lost().mean,
        )
    };
    let points: Vec<(f64, f64)> = ranked.iter().map(point).collect();
    let mut on: Vec<usize> = (0..ranked.len())
        .filter(|&i| {
            let (c, f) = points[i];
            !points.iter().any(|&(c2, f2)| c2 <= c && f2 <= f && (c2 < c || f2 < f))
        })
        .collect();
    on.sort_by(|&a, &b| points[a].0.total_cmp(&points[b].0).then(a.cmp(&b)));
    on
}

#[cfg(test)]
mod tests;
