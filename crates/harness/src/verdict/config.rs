//! A configuration over its seeds: the rows of one scenario and one set of settings that differ
//! only by seed, and their figures as estimates.

use std::sync::Arc;

use super::objective::{Key, Objective};
use super::seed_figures::{Figure, Ran, SeedFigures, SeedRuns, Seeds};
use super::stats::{Estimate, Rate};
use crate::human::{count, thousands};
use crate::metrics::RunMetrics;
use crate::row::{ResultRow, Row};
use crate::settings::RunSettings;

/// One configuration of one scenario, run once per seed: its first seed's row, and what the
/// verdicts read of every seed's run.
#[derive(Clone, Debug)]
pub struct Config<'a> {
    /// The row of its lowest seed.
    first: &'a ResultRow,
    /// Every seed's figures.
    runs: Arc<SeedRuns>,
    /// Why it does not qualify (a run of any seed that overflowed, broke pairing or stopped);
    /// `None` when every seed qualifies.
    pub why: Option<String>,
}

impl<'a> Config<'a> {
    /// The configuration of `rows` (one scenario, settings alike but for the seed; at least one).
    pub fn of(rows: &[&'a ResultRow]) -> Config<'a> {
        let first = rows.iter().copied().min_by_key(|r| r.settings.seed).unwrap_or(rows[0]);
        Config::new(first, Arc::new(SeedRuns::of(rows.iter().copied())))
    }

    /// The configuration whose lowest seed ran `first` and whose seeds ran `runs`.
    pub fn new(first: &'a ResultRow, runs: Arc<SeedRuns>) -> Config<'a> {
        let why = runs.out().map(|(seed, why, out)| {
            if runs.len() == 1 {
                why.to_owned()
            } else {
                format!(
                    "{why} (seed {seed}; out in {} of {} seeds)",
                    thousands(out as u64),
                    thousands(runs.len() as u64)
                )
            }
        });
        Config { first, runs, why }
    }

    /// Each seed's figures, by seed.
    pub fn runs(&self) -> Seeds<'_> {
        self.runs.iter()
    }

    /// The same configuration on one of its seeds alone.
    pub fn only(&self, seed: &SeedFigures) -> Config<'a> {
        Config::new(self.first, Arc::new(self.runs.only(seed)))
    }

    /// Why it could not fit, when it qualifies all the same: its seed with the highest floor over
    /// the limit, said as a disqualified run says it.
    pub fn unfit(&self) -> Option<String> {
        let (floor, over, seed) = self.runs.over().worst_floor?;
        let seeds = if self.seeds() > 1 {
            format!(" (seed {seed})")
        } else {
            String::new()
        };
        cannot_fit(floor, over).map(|why| format!("{why}{seeds}"))
    }

    /// The row of its first seed (what the traces show).
    pub fn first_row(&self) -> &'a ResultRow {
        self.first
    }

    /// The settings (those of its first seed).
    pub fn settings(&self) -> &'a RunSettings {
        &self.first.settings
    }

    /// The scenario's name.
    pub fn scenario(&self) -> &'a str {
        &self.first.scenario
    }

    /// The strategy's canonical name; for an outside agent's runs served by `serve`, the run's
    /// label (the server knows no client's strategy).
    pub fn strategy(&self) -> String {
        self.first.label().into_owned()
    }

    /// The strategy's short name, for sentences (`truncate:trigger=cold`).
    pub fn strategy_brief(&self) -> String {
        match &self.first.settings.run {
            Some(run) => run.clone(),
            None => self.settings().strategy.brief(),
        }
    }

    /// Seeds run.
    pub fn seeds(&self) -> usize {
        self.runs.len()
    }

    /// The figures of its first seed (what the traces and charts show).
    pub fn first(&self) -> &'a RunMetrics {
        &self.first.metrics
    }

    /// A figure over the seeds (`None` when a seed has none: a cost without a price).
    fn estimate(&self, figure: impl Fn(&SeedFigures) -> Option<f64>) -> Option<Estimate> {
        let values: Option<Vec<f64>> = self.runs().map(|r| figure(&r)).collect();
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

    /// A figure's mean over the seeds, with its interval.
    pub fn mean(&self, figure: Figure) -> Estimate {
        Estimate::of(&self.runs().map(|s| figure.of(&s)).collect::<Vec<_>>())
    }

    /// Whether every seed's run answered every request.
    pub fn completed(&self) -> bool {
        !self.runs.over().stopped
    }

    /// Whether a seed's run had a request refused: over the window.
    pub fn refused(&self) -> bool {
        self.runs.over().refused
    }

    /// The largest request the server accepted, over every seed.
    pub fn peak_accepted(&self) -> u64 {
        self.runs.over().peak_accepted
    }

    /// Its lowest and highest seed.
    pub fn seed_span(&self) -> (u64, u64) {
        let seed = self.first.settings.seed;
        self.runs.span().unwrap_or((seed, seed))
    }

    /// Whether a seed's run drew at random (a summary, or an uncertain model whose needs went
    /// unmet).
    pub fn drew(&self) -> bool {
        self.runs.over().drew
    }

    /// Facts lost per run, those used wrong (a summary's altered value, a guess) among them.
    pub fn facts_lost(&self) -> Estimate {
        self.mean(Figure::FactsMissed)
    }

    /// The seeds in which it lost (or used wrong) any fact.
    pub fn lost_in(&self) -> Rate {
        Rate::new(self.runs().filter(|r| r.facts_missed() > 0).count(), self.seeds())
    }

    /// Facts the scenario declares.
    pub fn facts(&self) -> usize {
        self.first().facts
    }

    /// Whether two configurations have the same figures seed by seed.
    pub fn same_figures(&self, other: &Config<'_>) -> bool {
        self.seeds() == other.seeds()
            && self
                .runs()
                .zip(other.runs())
                .all(|(a, b)| a.seed == b.seed && a.same_figures(&b))
    }

    /// The strategy as the user named it (before tuning): what a suite compares across
    /// scenarios.
    pub fn family(&self) -> String {
        self.first.family.clone().unwrap_or_else(|| self.strategy())
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
        why.extend(cannot_fit(m.floor, m.floor_over_limit));
    }
    (!why.is_empty()).then(|| why.join("; "))
}

/// Why a run could not get under its limit, when what no compaction removes (`floor` tokens at
/// its largest) was over it in `over` requests.
pub fn cannot_fit(floor: u64, over: usize) -> Option<String> {
    (over > 0).then(|| {
        format!(
            "cannot fit: what no compaction removes (system prompt, tools, first request, kept tail) \
             reached {} tokens, over the limit in {}",
            crate::human::thousands(floor),
            count(over, "request")
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
        .map(|(name, configs)| (name, configs.iter().map(|rows| Config::of(rows)).collect()))
        .collect()
}

/// The configurations of `ran`, by scenario: scenarios in the order they first appear,
/// configurations in theirs.
pub fn configs_of(ran: &[Ran]) -> Vec<(&str, Vec<Config<'_>>)> {
    let mut scenarios: Vec<(&str, Vec<Config<'_>>)> = Vec::new();
    for r in ran {
        let config = Config::new(&r.first, r.runs.clone());
        match scenarios.iter_mut().find(|(name, _)| *name == r.first.scenario) {
            Some((_, configs)) => configs.push(config),
            None => scenarios.push((&r.first.scenario, vec![config])),
        }
    }
    scenarios
}
