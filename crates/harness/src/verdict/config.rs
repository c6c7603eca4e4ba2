//! A configuration over its seeds: the rows of one scenario and one set of settings that differ
//! only by seed, and their figures as estimates.

use super::objective::{Key, Objective};
use super::stats::{Estimate, Rate};
use crate::human::{count, thousands};
use crate::metrics::RunMetrics;
use crate::row::{ResultRow, Row};
use crate::settings::RunSettings;

/// One configuration of one scenario, run once per seed.
#[derive(Clone, Debug)]
pub struct Config<'a> {
    /// Its rows, by seed.
    pub rows: Vec<&'a ResultRow>,
    /// Why it does not qualify (a run of any seed that overflowed, broke pairing or stopped);
    /// `None` when every seed qualifies.
    pub why: Option<String>,
}

impl<'a> Config<'a> {
    /// The configuration of `rows` (one scenario, settings alike but for the seed).
    pub fn new(mut rows: Vec<&'a ResultRow>) -> Config<'a> {
        rows.sort_by_key(|r| r.settings.seed);
        let out: Vec<(u64, String)> = rows
            .iter()
            .filter_map(|r| disqualified(&r.metrics).map(|why| (r.settings.seed, why)))
            .collect();
        let why = out.first().map(|(seed, why)| {
            if rows.len() == 1 {
                why.clone()
            } else {
                format!(
                    "{why} (seed {seed}; out in {} of {} seeds)",
                    thousands(out.len() as u64),
                    thousands(rows.len() as u64)
                )
            }
        });
        Config { rows, why }
    }

    /// Why it could not fit, when it qualifies all the same: its seed with the highest floor over
    /// the limit, said as a disqualified run says it.
    pub fn unfit(&self) -> Option<String> {
        let worst = self
            .rows
            .iter()
            .filter(|r| r.metrics.floor_over_limit > 0)
            .max_by_key(|r| (r.metrics.floor, std::cmp::Reverse(r.settings.seed)))?;
        let seeds = if self.rows.len() > 1 {
            format!(" (seed {})", worst.settings.seed)
        } else {
            String::new()
        };
        cannot_fit(&worst.metrics).map(|why| format!("{why}{seeds}"))
    }

    /// The settings (those of its first seed).
    pub fn settings(&self) -> &'a RunSettings {
        &self.rows[0].settings
    }

    /// The scenario's name.
    pub fn scenario(&self) -> &'a str {
        &self.rows[0].scenario
    }

    /// The strategy's canonical name; for an outside agent's runs served by `serve`, the run's
    /// label (the server knows no client's strategy).
    pub fn strategy(&self) -> String {
        self.rows[0].label().into_owned()
    }

    /// The strategy's short name, for sentences (`truncate:trigger=cold`).
    pub fn strategy_brief(&self) -> String {
        match &self.rows[0].settings.run {
            Some(run) => run.clone(),
            None => self.settings().strategy.brief(),
        }
    }

    /// Seeds run.
    pub fn seeds(&self) -> usize {
        self.rows.len()
    }

    /// The figures of its first seed (what the traces and charts show).
    pub fn first(&self) -> &'a RunMetrics {
        &self.rows[0].metrics
    }

    /// A figure over the seeds (`None` when a seed has none: a cost without a price).
    pub fn estimate(&self, figure: impl Fn(&RunMetrics) -> Option<f64>) -> Option<Estimate> {
        let values: Option<Vec<f64>> = self.rows.iter().map(|r| figure(&r.metrics)).collect();
        values.map(|v| Estimate::of(&v))
    }

    /// The objective's figure on `key`.
    pub fn on(&self, objective: &Objective, key: Key) -> Option<Estimate> {
        self.estimate(|m| objective.value(key, m))
    }

    /// What it cost, without any price on facts.
    pub fn cost(&self) -> Option<Estimate> {
        self.estimate(|m| m.cost_usd)
    }

    /// A count over the seeds.
    pub fn mean_of(&self, figure: impl Fn(&RunMetrics) -> f64) -> Estimate {
        Estimate::of(&self.rows.iter().map(|r| figure(&r.metrics)).collect::<Vec<_>>())
    }

    /// Facts lost per run, those used wrong (a summary's altered value, a guess) among them.
    pub fn facts_lost(&self) -> Estimate {
        self.mean_of(|m| m.facts_missed() as f64)
    }

    /// The seeds in which it lost (or used wrong) any fact.
    pub fn lost_in(&self) -> Rate {
        Rate::new(
            self.rows.iter().filter(|r| r.metrics.facts_missed() > 0).count(),
            self.seeds(),
        )
    }

    /// Facts the scenario declares.
    pub fn facts(&self) -> usize {
        self.first().facts
    }

    /// Whether two configurations have the same figures seed by seed.
    pub fn same_figures(&self, other: &Config<'_>) -> bool {
        self.rows.len() == other.rows.len()
            && self
                .rows
                .iter()
                .zip(&other.rows)
                .all(|(a, b)| a.settings.seed == b.settings.seed && a.metrics == b.metrics)
    }

    /// The strategy as the user named it (before tuning): what a suite compares across
    /// scenarios.
    pub fn family(&self) -> String {
        self.rows[0].family.clone().unwrap_or_else(|| self.strategy())
    }

    /// How simple it is, for ties: fewer stages, then fewer parameters away from their
    /// defaults, a target below the threshold counting as one (`none` simplest of all).
    pub fn simplicity(&self) -> (usize, usize) {
        let settings = self.settings();
        let strategy = &settings.strategy;
        if strategy.is_none() {
            return (0, 0);
        }
        let low_target = usize::from(settings.target.is_some_and(|t| t < settings.threshold));
        let changed = strategy
            .brief()
            .split('+')
            .filter_map(|stage| stage.split_once(':'))
            .map(|(_, params)| params.split(',').count())
            .sum::<usize>();
        (strategy.stages.len(), changed + low_target)
    }
}

/// Why a run does not qualify, or `None` when it does: every reason, in the user's words.
pub fn disqualified(m: &RunMetrics) -> Option<String> {
    let mut why = Vec::new();
    let calls = |n: usize| count(n, "call");
    if m.overflows > 0 {
        why.push(format!("overflow: {} over the window", calls(m.overflows)));
    }
    if m.pairing_errors > 0 {
        why.push(format!("pairing broken: {} rejected", calls(m.pairing_errors)));
    }
    if m.silent_truncations > 0 {
        why.push(format!("{} cut silently by the server", calls(m.silent_truncations)));
    }
    if !m.completed {
        why.push(format!(
            "stopped: answered {} of {}",
            m.requests_answered,
            count(m.requests, "request")
        ));
    }
    if !why.is_empty() {
        why.extend(cannot_fit(m));
    }
    (!why.is_empty()).then(|| why.join("; "))
}

/// Why a run could not get under its limit, when what no compaction removes was over it.
pub fn cannot_fit(m: &RunMetrics) -> Option<String> {
    (m.floor_over_limit > 0).then(|| {
        format!(
            "cannot fit: what no compaction removes (system prompt, tools, first request, kept tail) \
             reached {} tokens, over the limit in {}",
            crate::human::thousands(m.floor),
            count(m.floor_over_limit, "request")
        )
    })
}

/// The rows of each scenario as configurations over their seeds: scenarios in the order they
/// first appear, configurations too. A configuration's seeds usually come one after another
/// (every command writes them so), which is the quick case.
pub fn configs<'a>(rows: impl IntoIterator<Item = &'a ResultRow>) -> Vec<(&'a str, Vec<Config<'a>>)> {
    let mut scenarios: Vec<(&str, Vec<Vec<&ResultRow>>)> = Vec::new();
    let mut last: Option<(usize, usize)> = None;
    for row in rows {
        let alike = |c: &Vec<&ResultRow>| c[0].settings.same_but_seed(&row.settings);
        let at = match last {
            Some((s, c)) if scenarios[s].0 == row.scenario && alike(&scenarios[s].1[c]) => (s, c),
            _ => {
                let s = match scenarios.iter().position(|(name, _)| *name == row.scenario) {
                    Some(s) => s,
                    None => {
                        scenarios.push((&row.scenario, Vec::new()));
                        scenarios.len() - 1
                    }
                };
                let configs = &mut scenarios[s].1;
                match configs.iter().position(alike) {
                    Some(c) => (s, c),
                    None => {
                        configs.push(Vec::new());
                        (s, configs.len() - 1)
                    }
                }
            }
        };
        scenarios[at.0].1[at.1].push(row);
        last = Some(at);
    }
    scenarios
        .into_iter()
        .map(|(name, configs)| (name, configs.into_iter().map(Config::new).collect()))
        .collect()
}
