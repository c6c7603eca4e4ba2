//! The other prices and summarizer profiles the gate's verdict is checked under, as `compare`
//! checks its own: a price whose cache is the runs' is re-priced from their token parts; another
//! cache is simulated again once, every price that shares it re-priced from those runs; each
//! other shipped summarizer profile runs again on the configurations that summarize. Running
//! is the caller's (the CLI holds the scenarios); without it, only the re-pricing is done and
//! the prices left out are named.

use std::sync::Arc;

use crate::report::ResultRow;
use crate::settings::RunSettings;
use crate::sim::profile::{Summarizer, summarizers};
use crate::verdict::{Alternative, PriceChecks, Runs, prices};

/// Runs a row's configuration again with other settings (another price and cache, another
/// summarizer profile), on the same scenario and seed.
pub type RunAgain<'a, E> = dyn FnMut(&ResultRow, RunSettings) -> Result<ResultRow, E> + 'a;

/// What the verdict is checked under.
#[derive(Debug, Default)]
pub struct Checks {
    /// The prices and profiles, as [`crate::verdict::sensitivities`] takes them.
    pub alternatives: Vec<Alternative>,
    /// Prices not checked: their cache differs and nothing could run again.
    pub left_out: Vec<String>,
}

impl Checks {
    /// Prices checked.
    pub fn prices(&self) -> usize {
        self.alternatives.iter().filter(|a| !a.summarizer).count()
    }

    /// Of those, the ones simulated again (another cache).
    pub fn resimulated(&self) -> usize {
        self.alternatives
            .iter()
            .filter(|a| !a.summarizer && matches!(a.rows, Runs::Ran(_)))
            .count()
    }

    /// Summarizer profiles checked.
    pub fn profiles(&self) -> usize {
        self.alternatives.iter().filter(|a| a.summarizer).count()
    }
}

/// The checks of `rows` (every row priced alike with one cache, or nothing is checked but the
/// seeds), running again with `run` where one is given.
pub fn checks<E>(rows: &[ResultRow], mut run: Option<&mut RunAgain<'_, E>>) -> Result<Checks, E> {
    let mut out = Checks::default();
    let Some(first) = rows.first() else {
        return Ok(out);
    };
    let alike = rows
        .iter()
        .all(|r| r.settings.price == first.settings.price && r.settings.cache == first.settings.cache);
    let (Some(price), true) = (&first.settings.price, alike) else {
        return Ok(out);
    };
    let seeds = {
        let mut seeds: Vec<u64> = rows.iter().map(|r| r.settings.seed).collect();
        seeds.sort_unstable();
        seeds.dedup();
        seeds.len()
    };
    let mut checks = PriceChecks::default();
    for (name, alt) in prices(price) {
        if let Some(from) = checks.source(&alt.cache, &first.settings.cache) {
            out.alternatives.push(PriceChecks::repriced(name, alt, from, None));
            continue;
        }
        let Some(run) = run.as_deref_mut() else {
            out.left_out.push(name);
            continue;
        };
        let mut again = Vec::with_capacity(rows.len());
        let shared = std::sync::Arc::new(alt.clone());
        for row in rows {
            let settings = RunSettings {
                price: Some(shared.clone()),
                cache: alt.cache.clone(),
                ..row.settings.clone()
            };
            again.push(run(row, settings)?);
        }
        let at = out.alternatives.len();
        out.alternatives
            .push(checks.simulated(name, alt.cache, again, seeds, at));
    }
    let summarizes = |r: &ResultRow| r.settings.strategy.stages.iter().any(|s| s.name() == "summarize");
    let Some(run) = run.filter(|_| rows.iter().any(summarizes)) else {
        return Ok(out);
    };
    for profile in summarizers() {
        if profile.name == first.settings.summarizer.0.name {
            continue;
        }
        let summarizer = Summarizer(Arc::new(profile.clone()));
        let mut again = Vec::with_capacity(rows.len());
        for row in rows {
            again.push(if summarizes(row) {
                let settings = RunSettings {
                    summarizer: summarizer.clone(),
                    ..row.settings.clone()
                };
                run(row, settings)?
            } else {
                row.clone()
            });
        }
        out.alternatives.push(Alternative {
            name: format!("summarizer {}", profile.name),
            cache: first.settings.cache.clone(),
            rows: Runs::Ran(again),
            resimulated: Some(seeds),
            summarizer: true,
        });
    }
    Ok(out)
}
