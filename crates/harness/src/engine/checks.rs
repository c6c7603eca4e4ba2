//! The checks of `compare`'s verdicts ([`super::replicate`]): the chosen configurations run
//! again under each other price whose cache is not the run's and under each other summarizer
//! profile, and every price of a cache at hand re-priced. Each alternative's runs go to the
//! [`Checker`] as they finish and are let go: beside the ranked configurations, at most one set
//! of runs is held at a time.

use crate::billing::price::Price;
use crate::row::ResultRow;
use crate::settings::{RunSettings, SettingsError};
use crate::verdict::{Against, Checker, PriceChecks, Ran, SeedRuns};

use super::plan::{Phase, Plan, Replicated};
use super::seeded::Seeded;

/// The chosen configurations run again on their seeds, each row named and placed among them.
pub(super) struct Rerun<'r, 's, 'l, E> {
    pub(super) seeded: &'r mut Seeded<'s, 'l, E>,
    pub(super) out: &'r mut Replicated,
    pub(super) progress: &'r mut dyn FnMut(Phase, usize, usize),
    /// The chosen variants (indices of the first seed's jobs), in the ranked configurations' order.
    pub(super) chosen: &'r [usize],
    /// A run of the `k`th variant again: its place among the chosen, its row named by family.
    pub(super) placed: &'r dyn Fn(usize, ResultRow) -> (usize, ResultRow),
}

impl<E: From<SettingsError> + Send> Rerun<'_, '_, '_, E> {
    /// The variants `ks` (some of the chosen) run again on their seeds with `adjust`, each in
    /// its place among the chosen (`None` in the places of the others), its runs in a list of the
    /// size it needs (growing one by doubling holds up to twice the runs); `None` when stopped.
    fn run(&mut self, ks: &[usize], adjust: &dyn Fn(&mut RunSettings)) -> Result<Option<Vec<Option<Ran>>>, E> {
        let mut firsts: Vec<Option<ResultRow>> = vec![None; self.chosen.len()];
        let mut again: Vec<SeedRuns> = (0..self.chosen.len()).map(|_| SeedRuns::default()).collect();
        for &k in ks {
            if let Some(at) = self.chosen.iter().position(|&c| c == k) {
                again[at].reserve_exact(self.seeded.seeds_of(k));
            }
        }
        let placed = self.placed;
        let all = self.seeded.run(
            self.out,
            ks,
            Phase::Prices,
            true,
            adjust,
            self.progress,
            &mut |k, r, _| {
                let (at, row) = placed(k, r);
                again[at].push(&row);
                let first = &mut firsts[at];
                if first.as_ref().is_none_or(|f| row.settings.seed < f.settings.seed) {
                    *first = Some(row);
                }
                Ok(())
            },
        )?;
        let ran = firsts
            .into_iter()
            .zip(again)
            .map(|(first, runs)| {
                first.map(|first| Ran {
                    first,
                    runs: std::sync::Arc::new(runs),
                })
            })
            .collect();
        Ok(all.then_some(ran))
    }
}

/// Checks each verdict under every price of `prices` (the table's, each with its cache): first
/// those whose cache is not the run's, each such cache simulated again once on every seed the
/// configurations ran with (a subset would flip picks by its draws, not by the price) and every
/// price sharing it re-priced from those runs; then those of the run's own cache, re-priced
/// from one copy of `ranked`. Whether every run ran.
pub(super) fn check_prices<E: From<SettingsError> + Send>(
    rerun: &mut Rerun<'_, '_, '_, E>,
    checker: &mut Checker<'_, '_>,
    ranked: &[Ran],
    prices: &[(String, Price)],
    plan: &Plan<'_>,
) -> Result<bool, E> {
    let mut checks = PriceChecks::default();
    for (at, (_, alt)) in prices.iter().enumerate() {
        if checks.source(&alt.cache, plan.cache).is_some() {
            continue;
        }
        checks.note(alt.cache.clone(), at);
        let shared = std::sync::Arc::new(alt.clone());
        let priced = |settings: &mut RunSettings| {
            settings.price = Some(shared.clone());
            settings.cache = alt.cache.clone();
        };
        let chosen = rerun.chosen;
        let Some(again) = rerun.run(chosen, &priced)? else {
            return Ok(false);
        };
        let mut again: Vec<Ran> = again.into_iter().flatten().collect();
        for (later, (name, price)) in prices.iter().enumerate().skip(at) {
            if price.cache != alt.cache {
                continue;
            }
            if later != at {
                for ran in &mut again {
                    ran.reprice(price);
                }
            }
            checker.check_ran(later, &against(name, price), &again);
        }
    }
    // The run's own cache last, once every other's runs are let go.
    let mut own: Vec<Ran> = Vec::new();
    for (at, (name, price)) in prices.iter().enumerate() {
        if checks.source(&price.cache, plan.cache) != Some(None) {
            continue;
        }
        if own.is_empty() {
            own = ranked.to_vec();
        }
        for ran in &mut own {
            ran.reprice(price);
        }
        checker.check_ran(at, &against(name, price), &own);
    }
    Ok(true)
}

/// Checks each verdict under every other shipped summarizer profile, in the places from
/// `first_at` on (after the price checks): the chosen configurations that summarize run again
/// on their seeds; the others' figures cannot depend on it (the `c`th of `ranked` is the `c`th
/// chosen). Whether every run ran.
pub(super) fn check_profiles<E: From<SettingsError> + Send>(
    rerun: &mut Rerun<'_, '_, '_, E>,
    checker: &mut Checker<'_, '_>,
    ranked: &[Ran],
    summarizes: &dyn Fn(usize) -> bool,
    first_at: usize,
    plan: &Plan<'_>,
) -> Result<bool, E> {
    let chosen = rerun.chosen;
    let summarizing: Vec<usize> = chosen.iter().copied().filter(|&k| summarizes(k)).collect();
    let Some(first) = ranked.first().filter(|_| !summarizing.is_empty()) else {
        return Ok(true);
    };
    let run_profile = first.first.settings.summarizer.0.name.clone();
    let mut at = first_at;
    for profile in crate::sim::profile::summarizers() {
        if profile.name == run_profile {
            continue;
        }
        let summarizer = crate::sim::profile::Summarizer(std::sync::Arc::new(profile.clone()));
        let profiled = |settings: &mut RunSettings| settings.summarizer = summarizer.clone();
        let Some(again) = rerun.run(&summarizing, &profiled)? else {
            return Ok(false);
        };
        // The others' runs are the ranked ones, shared, not copied.
        let ran: Vec<Ran> = again
            .into_iter()
            .zip(ranked)
            .map(|(again, ranked)| again.unwrap_or_else(|| ranked.clone()))
            .collect();
        let name = format!("summarizer {}", profile.name);
        let against = Against {
            name: &name,
            cache: plan.cache,
            summarizer: true,
        };
        checker.check_ran(at, &against, &ran);
        at += 1;
    }
    Ok(true)
}

/// What the price `name` checks against.
fn against<'n>(name: &'n str, price: &'n Price) -> Against<'n> {
    Against {
        name,
        cache: &price.cache,
        summarizer: false,
    }
}
