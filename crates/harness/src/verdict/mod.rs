//! Verdicts: which configuration to use, per scenario and over a suite (`docs/verdicts.md`).
//! One module ranks for every command: `compare`, `sweep`'s best, `merge` and the page.
//!
//! A configuration runs once per seed ([`Config`]); it **qualifies** when every seed completed
//! with no overflow, no pairing error and no silent truncation, and the others are set apart
//! with their reason. Qualifying configurations are ranked by the [`Objective`]'s keys in order
//! (default: facts lost, then cost): every configuration runs on the same seeds, so two tie on a
//! key when the 95% interval of their per-seed differences holds zero or the mean difference is
//! under the tolerance ([`Paired`]), and a tie passes to the next key, then to the simpler
//! strategy, then to the canonical name; [`Tie`] says which of them decided. Configurations with identical figures are one
//! [`Group`]. Each verdict names its **front** (no other run is both cheaper and loses fewer
//! facts) and how its pick was reached.

mod best;
mod config;
mod objective;
mod paired;
mod price_checks;
mod rule;
mod seed_figures;
mod sensitivity;
mod stats;
mod suite;
mod suite_words;

use std::cmp::Ordering;

pub use best::{Best, rows_at};
pub use config::{Config, configs, configs_of, disqualified};
pub use objective::{Key, Objective, ObjectiveError};
pub use paired::Paired;
pub use price_checks::PriceChecks;
pub use rule::{Decider, Scores, Settled, choose, figures_tie};
pub use seed_figures::{Figure, Ran, SeedFigures, SeedRuns, Seeds};
pub use sensitivity::{
    Against, Alternative, Checker, Flip, Runs, STABLE_SEEDS, Sensitivity, prices, reprice, repriced, sensitivities,
};
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

/// How the pick was reached when others tied with it: per key of the objective, in order, the
/// runs tied with the pick on that key and on every key before it (paired over their seeds),
/// and what settled it.
#[derive(Clone, Debug, PartialEq)]
pub struct Tie {
    /// Each key, with the canonical names of the groups tied with the pick on it and on every
    /// key before it; the keys after the one that decided are not listed.
    pub on: Vec<(Key, Vec<String>)>,
    /// What settled it.
    pub decided: Decider,
}

impl Tie {
    /// The runs tied with the pick on every key listed, and those keys: what a sentence may
    /// claim.
    pub fn tied_throughout(&self) -> (Vec<Key>, &[String]) {
        let keys = self
            .on
            .iter()
            .take_while(|(_, with)| !with.is_empty())
            .map(|(k, _)| *k)
            .collect::<Vec<_>>();
        let with = keys.len().checked_sub(1).map_or(&[][..], |last| &self.on[last].1[..]);
        (keys, with)
    }
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
    /// Whether it rests on one draw: every configuration ran one seed and some run drew at
    /// random, so no interval can be given and the pick is fragile.
    pub one_draw: bool,
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
pub fn verdicts<'a>(
    rows: impl IntoIterator<Item = &'a crate::row::ResultRow>,
    objective: &Objective,
) -> Vec<Verdict<'a>> {
    configs(rows)
        .into_iter()
        .map(|(scenario, configs)| verdict(scenario, configs, objective))
        .collect()
}

/// The verdict of each scenario of `ran` (configurations as `compare` keeps them), in the order
/// the scenarios first appear.
pub fn verdicts_of<'a>(ran: &'a [Ran], objective: &Objective) -> Vec<Verdict<'a>> {
    configs_of(ran)
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
    let configs = || ranked.iter().chain(&apart).flat_map(|g| &g.configs);
    let one_draw = configs().all(|c| c.seeds() == 1) && configs().any(Config::drew);
    Verdict {
        scenario,
        ranked,
        disqualified: apart,
        tie,
        front,
        discriminates,
        one_draw,
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

/// The best of `groups` by the one rule ([`choose`]): its position, how it was reached when
/// others tied with it, and whether every group tied on every key.
fn best(groups: &[Group<'_>], objective: &Objective) -> (usize, Option<Tie>, bool) {
    let scores: Vec<Scores> = groups.iter().map(|g| Scores::of(g.lead(), objective)).collect();
    let simpler = |a: usize, b: usize| by_simplicity(groups[a].lead(), groups[b].lead());
    let as_simple = |a: usize, b: usize| groups[a].lead().simplicity() == groups[b].lead().simplicity();
    let mean = |g: usize, k: usize| scores[g].mean(k);
    let ties = |g: usize, h: usize, k: usize| rule::ties(&scores[g], &scores[h], k, objective);
    let (at, settled, pool) = choose(groups.len(), objective.keys.len(), &mean, &ties, &simpler, &as_simple);
    let decided = settled.decider(objective);
    let all_tied = pool.len() == groups.len();
    // Said truly: on each key, only the groups tied with the pick on it and on every key before.
    let mut with: Vec<usize> = (0..groups.len()).filter(|&g| g != at).collect();
    let mut on = Vec::new();
    for (k, &key) in objective.keys.iter().enumerate() {
        with.retain(|&g| ties(g, at, k));
        on.push((key, with.iter().map(|&g| groups[g].lead().strategy()).collect()));
        if decided == Decider::Key(key) {
            break;
        }
    }
    let tie = on
        .first()
        .is_some_and(|(_, with): &(Key, Vec<String>)| !with.is_empty())
        .then_some(Tie { on, decided });
    (at, tie, all_tied)
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
mod sensitivity_tests;
#[cfg(test)]
mod tests;
