//! Verdicts: which strategy to use, per scenario and over a suite (`docs/verdicts.md`).
//!
//! A run **qualifies** when it completed with no overflow, no pairing error and no silent
//! truncation; the others are disqualified with their reason and never ranked above a qualifying
//! run. Qualifying runs are ranked by the [`Objective`], ties broken by facts lost, then model
//! calls, then the strategy's canonical name. Runs with identical figures are one [`Group`].

mod suite;

use std::cmp::Ordering;

pub(crate) use suite::relative;
pub use suite::{Against, Standing, Suite, suite};

use crate::billing::price::picodollars;
use crate::human::count;
use crate::metrics::RunMetrics;
use crate::row::ResultRow;

/// What "best" means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Objective {
    /// Lowest cost (the default when a price is set).
    Cost,
    /// Fewest tokens sent (the default with `--price none`).
    Tokens,
    /// Fewest facts lost.
    Facts,
    /// Fewest model calls.
    Calls,
}

impl Objective {
    /// The names `--objective` takes.
    pub const NAMES: &'static str = "cost, tokens, facts or calls";

    /// Parses a command-line name.
    pub fn parse(name: &str) -> Option<Objective> {
        match name {
            "cost" => Some(Objective::Cost),
            "tokens" => Some(Objective::Tokens),
            "facts" => Some(Objective::Facts),
            "calls" => Some(Objective::Calls),
            _ => None,
        }
    }

    /// The objective of `--objective NAME`, or the default: cost when the runs are priced,
    /// tokens sent when not. The error says what to do.
    pub fn resolve(name: Option<&str>, priced: bool) -> Result<Objective, String> {
        let objective = match name {
            Some(name) => {
                Objective::parse(name).ok_or_else(|| format!("--objective {name:?}: expected {}", Objective::NAMES))?
            }
            None if priced => Objective::Cost,
            None => Objective::Tokens,
        };
        if objective == Objective::Cost && !priced {
            return Err("--objective cost needs a price; drop --price none or pick --objective tokens".into());
        }
        Ok(objective)
    }

    /// The figure it minimises, as results files name it.
    pub fn figure(self) -> &'static str {
        match self {
            Objective::Cost => "cost_usd",
            Objective::Tokens => "tokens_sent",
            Objective::Facts => "facts_lost",
            Objective::Calls => "model_calls",
        }
    }

    /// The figure's value in a row, in whole units (picodollars for cost; no cost reads as
    /// the most).
    pub fn value(self, m: &RunMetrics) -> u128 {
        match self {
            Objective::Cost => m.cost_usd.map_or(u128::MAX, picodollars),
            Objective::Tokens => u128::from(m.tokens_sent),
            Objective::Facts => m.facts_lost as u128,
            Objective::Calls => m.model_calls as u128,
        }
    }

    /// The order of qualifying runs: the objective, then facts lost, then model calls (the
    /// canonical name is the caller's last resort).
    pub fn order(self, a: &RunMetrics, b: &RunMetrics) -> Ordering {
        self.value(a)
            .cmp(&self.value(b))
            .then(a.facts_lost.cmp(&b.facts_lost))
            .then(a.model_calls.cmp(&b.model_calls))
            // Among runs equal on all of these, the cheaper, then the smaller.
            .then(Objective::Cost.value(a).cmp(&Objective::Cost.value(b)))
            .then(a.tokens_sent.cmp(&b.tokens_sent))
    }

    /// What it means, for people: "lowest cost".
    pub fn describe(self) -> &'static str {
        match self {
            Objective::Cost => "lowest cost",
            Objective::Tokens => "fewest tokens sent",
            Objective::Facts => "fewest facts lost",
            Objective::Calls => "fewest model calls",
        }
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
    (!why.is_empty()).then(|| why.join("; "))
}

/// Runs of one scenario with identical figures: one line naming every strategy, `none` first,
/// then in canonical order.
#[derive(Clone, Debug)]
pub struct Group<'a> {
    /// The runs, by canonical strategy name.
    pub rows: Vec<&'a ResultRow>,
    /// Why they are disqualified; `None` when they qualify.
    pub why: Option<String>,
}

impl<'a> Group<'a> {
    /// The figures they share.
    pub fn metrics(&self) -> &'a RunMetrics {
        &self.rows[0].metrics
    }

    /// Their canonical strategy names.
    pub fn strategies(&self) -> Vec<String> {
        self.rows.iter().map(|r| r.settings.strategy.to_string()).collect()
    }
}

/// One scenario's verdict.
#[derive(Clone, Debug)]
pub struct Verdict<'a> {
    /// The scenario's name.
    pub scenario: &'a str,
    /// Qualifying runs, best first.
    pub ranked: Vec<Group<'a>>,
    /// The others, each with its reason, by the objective too.
    pub disqualified: Vec<Group<'a>>,
}

impl<'a> Verdict<'a> {
    /// The run to use: the first of the best group (`None` when no run qualifies).
    pub fn pick(&self) -> Option<&'a ResultRow> {
        self.ranked.first().map(|g| g.rows[0])
    }

    /// The `none` run of the scenario, when it ran.
    pub fn baseline(&self) -> Option<&'a ResultRow> {
        self.ranked
            .iter()
            .chain(&self.disqualified)
            .flat_map(|g| g.rows.iter().copied())
            .find(|r| r.settings.strategy.is_none())
    }

    /// Every group, ranked ones first.
    pub fn groups(&self) -> impl Iterator<Item = &Group<'a>> {
        self.ranked.iter().chain(&self.disqualified)
    }
}

/// The verdict of each scenario, in the order the scenarios first appear in `rows`.
pub fn verdicts(rows: &[ResultRow], objective: Objective) -> Vec<Verdict<'_>> {
    let mut names: Vec<&str> = Vec::new();
    for row in rows {
        if !names.contains(&row.scenario.as_str()) {
            names.push(&row.scenario);
        }
    }
    names
        .into_iter()
        .map(|name| {
            let mut of: Vec<&ResultRow> = rows.iter().filter(|r| r.scenario == name).collect();
            of.sort_by(|a, b| {
                objective
                    .order(&a.metrics, &b.metrics)
                    .then_with(|| a.settings.strategy.to_string().cmp(&b.settings.strategy.to_string()))
            });
            let mut ranked: Vec<Group> = Vec::new();
            let mut apart: Vec<Group> = Vec::new();
            for row in of {
                let why = disqualified(&row.metrics);
                let list = if why.is_some() { &mut apart } else { &mut ranked };
                match list.iter_mut().find(|g| g.metrics() == &row.metrics) {
                    Some(group) => group.rows.push(row),
                    None => list.push(Group { rows: vec![row], why }),
                }
            }
            // Within a group, `none` names it: identical figures mean nothing was compacted.
            for group in ranked.iter_mut().chain(&mut apart) {
                group.rows.sort_by_key(|r| !r.settings.strategy.is_none());
            }
            Verdict {
                scenario: name,
                ranked,
                disqualified: apart,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
