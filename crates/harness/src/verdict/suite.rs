//! The suite's verdict: strategies ranked by regret on common ground, and one recommendation.
//!
//! Per scenario, a strategy's **regret** is its figure on the objective's last key over the
//! pick's, minus one. Scenarios where nothing qualifies or every qualifying run ties with the pick
//! on every key tell nothing apart: they are named and count for nothing. The strategies that
//! qualify on the most of the others contend, compared on the scenarios all of them qualify on:
//! by facts lost there, then by median and worst regret. Every other strategy is set against the
//! pick on the scenarios both qualify on. No figure is a sum over different sets of scenarios.

use std::cmp::Ordering;

use super::rule::{Settled, choose};
use super::suite_words::reason;
pub use super::suite_words::{fraction, signed};
use super::{Config, Objective, Paired, Verdict};
use crate::settings::RunSettings;

/// A regret past this counts as this much when regrets are paired (the best run's figure was 0).
const REGRET_CAP: f64 = 1e6;

/// One line of the leaderboard: a strategy, or several with the same figures everywhere.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    /// The strategy's canonical name.
    pub strategy: String,
    /// Others with the same figures on every scenario.
    pub alike: Vec<String>,
    /// Discriminating scenarios it qualifies on.
    pub qualified: usize,
    /// Discriminating scenarios it ran on.
    pub scenarios: usize,
    /// The scenarios its figures are over: for a contender, those all contenders qualify on;
    /// for the others, those it and the pick both qualify on.
    pub over: usize,
    /// Facts lost per run, averaged over those scenarios.
    pub facts_lost: Option<f64>,
    /// Median regret over them (0 = the scenario's pick).
    pub median_regret: Option<f64>,
    /// Worst regret over them.
    pub worst_regret: Option<f64>,
    /// Discriminating scenarios on which it was the pick (or in the pick's group).
    pub first: usize,
}

/// The suite's verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct Suite {
    /// How runs were ranked.
    pub objective: Objective,
    /// Every strategy, the pick first.
    pub leaderboard: Vec<Standing>,
    /// The recommended strategy's canonical name (`None` when nothing qualified).
    pub pick: Option<String>,
    /// Why, in one sentence.
    pub why: String,
    /// Scenarios that tell no strategy apart, and count for nothing.
    pub not_discriminating: Vec<String>,
    /// Discriminating scenarios.
    pub scenarios: usize,
    /// How the pick was reached among the contenders: those tied with it on facts lost (paired
    /// over the scenarios) and on regret, and what settled it; `None` when nothing tied.
    pub tie: Option<(Vec<String>, Settled)>,
    /// The configuration of the pick to run: the one its tuning chose on the most discriminating
    /// scenarios (its window is the scenario's, so the user's own), with on how many of how many.
    pub run: Option<(RunSettings, usize, usize)>,
}

/// One strategy across the discriminating scenarios.
struct Record<'v, 'a> {
    strategy: String,
    /// Per scenario: its configuration, when it ran, and whether it qualified.
    at: Vec<Option<(&'v Config<'a>, bool)>>,
    /// Per scenario: its regret, when it qualified.
    regret: Vec<Option<f64>>,
    first: usize,
}

impl Record<'_, '_> {
    fn qualified(&self) -> usize {
        self.at.iter().flatten().filter(|(_, q)| *q).count()
    }

    fn qualifies(&self, k: usize) -> bool {
        matches!(self.at[k], Some((_, true)))
    }

    /// Facts lost per run, median and worst regret over `scenarios` (each qualified on).
    fn over(&self, scenarios: &[usize]) -> (Option<f64>, Option<f64>, Option<f64>) {
        if scenarios.is_empty() {
            return (None, None, None);
        }
        let facts: f64 = scenarios
            .iter()
            .filter_map(|&k| self.at[k])
            .map(|(c, _)| c.facts_lost().mean)
            .sum::<f64>()
            / scenarios.len() as f64;
        let mut regrets: Vec<f64> = scenarios.iter().filter_map(|&k| self.regret[k]).collect();
        regrets.sort_by(f64::total_cmp);
        let median = (!regrets.is_empty()).then(|| {
            let n = regrets.len();
            if n % 2 == 1 {
                regrets[n / 2]
            } else {
                (regrets[n / 2 - 1] + regrets[n / 2]) / 2.0
            }
        });
        (Some(facts), median, regrets.last().copied())
    }

    /// Whether it has the same figures as `other` on every scenario.
    fn alike(&self, other: &Record<'_, '_>) -> bool {
        self.at.iter().zip(&other.at).all(|(a, b)| match (a, b) {
            (Some((x, qx)), Some((y, qy))) => qx == qy && x.same_figures(y),
            (None, None) => true,
            _ => false,
        })
    }
}

/// `value / best - 1`; 0 when both are 0, infinite when only the best is.
pub fn regret(value: f64, best: f64) -> f64 {
    if best == 0.0 {
        if value == 0.0 { 0.0 } else { f64::INFINITY }
    } else {
        value / best - 1.0
    }
}

/// The leaderboard and the recommendation over every scenario's verdict.
pub fn suite(verdicts: &[Verdict<'_>], objective: &Objective) -> Suite {
    let not_discriminating: Vec<String> = verdicts
        .iter()
        .filter(|v| !v.discriminates)
        .map(|v| v.scenario.to_owned())
        .collect();
    let kept: Vec<&Verdict> = verdicts.iter().filter(|v| v.discriminates).collect();
    let last = objective.last();
    let mut records: Vec<Record> = Vec::new();
    for (k, verdict) in kept.iter().enumerate() {
        let best = verdict.pick().and_then(|p| p.on(objective, last)).map(|e| e.mean);
        for (rank, group) in verdict.groups().enumerate() {
            for config in &group.configs {
                let name = config.family();
                let at = match records.iter().position(|r| r.strategy == name) {
                    Some(at) => at,
                    None => {
                        records.push(Record {
                            strategy: name,
                            at: vec![None; kept.len()],
                            regret: vec![None; kept.len()],
                            first: 0,
                        });
                        records.len() - 1
                    }
                };
                let record = &mut records[at];
                let qualifies = group.why.is_none();
                record.at[k] = Some((config, qualifies));
                if qualifies {
                    record.regret[k] = match (config.on(objective, last), best) {
                        (Some(v), Some(b)) => Some(regret(v.mean, b)),
                        _ => None,
                    };
                    record.first += usize::from(rank == 0);
                }
            }
        }
    }
    // Strategies with the same figures everywhere are one line, named by the simplest.
    let mut lines: Vec<(usize, Vec<String>)> = Vec::new();
    for (i, r) in records.iter().enumerate() {
        match lines.iter_mut().find(|(j, _)| records[*j].alike(r)) {
            Some((_, alike)) => alike.push(r.strategy.clone()),
            None => lines.push((i, Vec::new())),
        }
    }
    let most = records.iter().map(Record::qualified).max().unwrap_or(0);
    let contenders: Vec<usize> = lines
        .iter()
        .map(|(i, _)| *i)
        .filter(|&i| most > 0 && records[i].qualified() == most)
        .collect();
    let common: Vec<usize> = (0..kept.len())
        .filter(|&k| contenders.iter().all(|&i| records[i].qualifies(k)))
        .collect();
    let order = ranked(&records, &contenders, &common, objective);
    let tie = order
        .first()
        .and_then(|&(_, ref with, settled)| (!with.is_empty()).then(|| (with.clone(), settled)));
    let order: Vec<usize> = order.into_iter().map(|(i, _, _)| i).collect();
    let pick = order.first().copied();
    let run = pick.and_then(|p| to_run(&records[p]));
    let standing = |i: usize, alike: &[String]| -> Standing {
        let r = &records[i];
        let over: Vec<usize> = if contenders.contains(&i) {
            common.clone()
        } else {
            (0..kept.len())
                .filter(|&k| r.qualifies(k) && pick.is_some_and(|p| records[p].qualifies(k)))
                .collect()
        };
        let (facts_lost, median_regret, worst_regret) = r.over(&over);
        Standing {
            strategy: r.strategy.clone(),
            alike: alike.to_vec(),
            qualified: r.qualified(),
            scenarios: r.at.iter().flatten().count(),
            over: over.len(),
            facts_lost,
            median_regret,
            worst_regret,
            first: r.first,
        }
    };
    let mut leaderboard: Vec<Standing> = lines.iter().map(|(i, alike)| standing(*i, alike)).collect();
    let rank_of = |s: &Standing| order.iter().position(|&i| records[i].strategy == s.strategy);
    leaderboard.sort_by(|a, b| match (rank_of(a), rank_of(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => b
            .qualified
            .cmp(&a.qualified)
            .then(cmp(a.facts_lost, b.facts_lost))
            .then(cmp(a.median_regret, b.median_regret))
            .then_with(|| a.strategy.cmp(&b.strategy)),
    });
    // The trade against the runner-up, over the scenarios both qualify on: facts lost a run by
    // each, and how many scenarios.
    let trade = pick.zip(leaderboard.get(1)).and_then(|(p, runner)| {
        let r = records.iter().position(|r| r.strategy == runner.strategy)?;
        let both: Vec<usize> = (0..kept.len())
            .filter(|&k| records[r].qualifies(k) && records[p].qualifies(k))
            .collect();
        Some((records[p].over(&both).0?, records[r].over(&both).0?, both.len()))
    });
    let why = match pick {
        None if kept.is_empty() => {
            "no scenario tells the strategies apart: in each, every run ties or none qualifies".into()
        }
        None => "no strategy qualified on any scenario: every run overflowed, broke pairing or stopped".into(),
        Some(_) => reason(
            &leaderboard,
            objective,
            (most, kept.len()),
            (contenders.len(), common.len()),
            tie.as_ref(),
            trade,
        ),
    };
    Suite {
        objective: objective.clone(),
        pick: pick.map(|i| records[i].strategy.clone()),
        leaderboard,
        why,
        not_discriminating,
        scenarios: kept.len(),
        tie,
        run,
    }
}

/// The contenders in order, each the best of those left by the verdicts' one rule over the
/// scenarios they all qualify on: facts lost a run as printed, then regret paired over the
/// scenarios (the lowest median leading), then worst regret as printed, then the simpler
/// strategy, then the name. Each with the contenders tied with it on facts and regret when it was chosen,
/// and what settled it.
fn ranked(
    records: &[Record<'_, '_>],
    contenders: &[usize],
    common: &[usize],
    objective: &Objective,
) -> Vec<(usize, Vec<String>, Settled)> {
    let regrets = |i: usize| -> Vec<(u64, f64)> {
        common
            .iter()
            .filter_map(|&k| Some((k as u64, records[i].regret[k]?.min(REGRET_CAP))))
            .collect()
    };
    let mut left: Vec<usize> = contenders.to_vec();
    let mut out = Vec::with_capacity(left.len());
    while !left.is_empty() {
        let regret: Vec<Vec<(u64, f64)>> = left.iter().map(|&i| regrets(i)).collect();
        let overs: Vec<(Option<f64>, Option<f64>, Option<f64>)> =
            left.iter().map(|&i| records[i].over(common)).collect();
        let mean = |j: usize, k: usize| {
            let (f, m, w) = overs[j];
            [f, m, w][k].map_or(f64::INFINITY, |x| x.min(REGRET_CAP))
        };
        let ties = |j: usize, h: usize, k: usize| match k {
            // Facts lost: a scenario's facts are not a draw of the others', so they are not paired
            // across scenarios; two tie only where they print alike.
            0 => overs[j].0.map(fraction) == overs[h].0.map(fraction),
            1 => {
                signed_of(overs[j].1) == signed_of(overs[h].1)
                    || Paired::between(&regret[j], &regret[h])
                        .is_none_or(|d| d.ties(mean(j, 1), mean(h, 1), objective.tie))
            }
            _ => signed_of(overs[j].2) == signed_of(overs[h].2),
        };
        let simpler_of = |j: usize, h: usize| simpler(&records[left[j]], &records[left[h]]);
        let as_simple = |j: usize, h: usize| simplicity(&records[left[j]]) == simplicity(&records[left[h]]);
        let (at, settled, _) = choose(left.len(), 3, &mean, &ties, &simpler_of, &as_simple);
        let with: Vec<String> = (0..left.len())
            .filter(|&j| j != at && ties(j, at, 0) && ties(j, at, 1))
            .map(|j| records[left[j]].strategy.clone())
            .collect();
        out.push((left.remove(at), with, settled));
    }
    out
}

/// A regret as printed, for ties.
fn signed_of(regret: Option<f64>) -> Option<String> {
    regret.map(signed)
}

/// The configuration of a strategy to run: the one its tuning chose on the most scenarios it
/// qualifies on (the first of those chosen as often), with on how many of how many.
fn to_run(record: &Record<'_, '_>) -> Option<(RunSettings, usize, usize)> {
    let chosen: Vec<&RunSettings> = record
        .at
        .iter()
        .flatten()
        .filter(|(_, q)| *q)
        .map(|(c, _)| c.settings())
        .collect();
    let alike = |a: &RunSettings, b: &RunSettings| {
        a.strategy == b.strategy
            && a.threshold == b.threshold
            && a.target == b.target
            && a.keep_recent_turns == b.keep_recent_turns
            && a.reply_reserve == b.reply_reserve
            && a.estimator == b.estimator
    };
    let mut best: Option<(&RunSettings, usize)> = None;
    for s in &chosen {
        let n = chosen.iter().filter(|t| alike(s, t)).count();
        if best.is_none_or(|(_, m)| n > m) {
            best = Some((s, n));
        }
    }
    best.map(|(s, n)| {
        let settings = RunSettings {
            window: None,
            seed: 0,
            ..s.clone()
        };
        (settings, n, chosen.len())
    })
}

/// Lower first; a figure that is missing last.
fn cmp(a: Option<f64>, b: Option<f64>) -> Ordering {
    match (a, b) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

/// How simple a strategy is (that of its first configuration).
fn simplicity(r: &Record<'_, '_>) -> Option<(usize, usize)> {
    r.at.iter().flatten().next().map(|(c, _)| c.simplicity())
}

/// The simpler strategy first (fewer stages, then fewer parameters changed), then by name.
fn simpler(a: &Record<'_, '_>, b: &Record<'_, '_>) -> Ordering {
    simplicity(a)
        .cmp(&simplicity(b))
        .then_with(|| a.strategy.cmp(&b.strategy))
}
