//! Whether a pick holds: under every model of the price table (re-priced from the token parts
//! when its cache is the run's, re-simulated when not), without a cache, and seed by seed.

use serde::Serialize;

use super::{Config, Objective, Verdict, verdicts};
use crate::billing::cache_mode::CacheMode;
use crate::billing::price::{Billed, Price, dollars};
use crate::row::ResultRow;
use crate::settings::RunSettings;

/// A pick wins in fewer than this share of seeds: fragile.
pub const STABLE_SEEDS: f64 = 0.8;

/// The runs under another price (and its cache): named, with how they were had.
#[derive(Clone, Debug)]
pub struct Alternative {
    /// The price's name (`claude-haiku-4-5`, or `cache none`).
    pub name: String,
    /// The cache it runs.
    pub cache: CacheMode,
    /// Its rows: every configuration the verdicts rank, re-priced or re-simulated.
    pub rows: Vec<ResultRow>,
    /// Whether they were simulated again (the cache differs), and on how many seeds.
    pub resimulated: Option<usize>,
    /// A summarizer profile's runs (the name is the profile's), not another price's.
    pub summarizer: bool,
}

/// What another price picks instead, and why where it can be said.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Flip {
    /// The price's name.
    pub price: String,
    /// Its pick (`None`: nothing qualifies under it).
    pub pick: Option<String>,
    /// Why, where it can be said: "its cache minimum of 4,096 tokens is never reached".
    pub cause: Option<String>,
}

/// A verdict's sensitivity.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sensitivity {
    /// Each price checked, with its pick.
    pub prices: Vec<(String, Option<String>)>,
    /// Prices under which the pick holds.
    pub holds: usize,
    /// Prices checked.
    pub of: usize,
    /// Each other summarizer profile checked (when a summarizing run is in play), with its pick.
    pub profiles: Vec<(String, Option<String>)>,
    /// Profiles under which the pick holds.
    pub profiles_hold: usize,
    /// The prices and profiles that flip it.
    pub flips: Vec<Flip>,
    /// The share of seeds in which the pick wins on that seed's runs alone (`None`: one seed).
    pub seed_win_rate: Option<f64>,
    /// Seeds the win rate is over.
    pub seeds: usize,
    /// Flips under some price, or wins in fewer than 80% of seeds.
    pub fragile: bool,
}

/// `rows` as `price` would have billed them (same cache, so the same token parts).
pub fn repriced(rows: &[ResultRow], price: &Price) -> Vec<ResultRow> {
    let price = price.for_cache(&price.cache);
    rows.iter()
        .map(|r| {
            let m = &r.metrics;
            let billed = Billed {
                uncached: m.uncached_tokens,
                cache_read: m.cache_read_tokens,
                cache_write: m.cache_write_tokens,
                completion: m.tokens_received,
            };
            let mut row = r.clone();
            row.metrics.cost_usd = Some(dollars(price.cost(&billed)));
            row.settings = RunSettings {
                price: Some(price.clone()),
                ..r.settings.clone()
            };
            row
        })
        .collect()
}

/// The prices a verdict is checked under: every model of the table with its cache, and the
/// run's price with no cache.
pub fn prices(run: &Price) -> Vec<(String, Price)> {
    let mut out: Vec<(String, Price)> = Price::table()
        .iter()
        .map(|p| (p.name.clone().unwrap_or_default(), p.clone()))
        .collect();
    out.push((
        "cache none".into(),
        Price {
            cache: CacheMode::None,
            ..run.clone()
        },
    ));
    out
}

/// Each verdict's sensitivity to `alternatives`, and to its seeds.
pub fn sensitivities(
    main: &[Verdict<'_>],
    alternatives: &[Alternative],
    objective: &Objective,
) -> Vec<Option<Sensitivity>> {
    let under: Vec<(&Alternative, Vec<Verdict<'_>>)> =
        alternatives.iter().map(|a| (a, verdicts(&a.rows, objective))).collect();
    main.iter()
        .map(|v| {
            let pick = v.pick()?;
            let name = pick.strategy();
            let (mut prices, mut profiles) = (Vec::new(), Vec::new());
            let mut flips = Vec::new();
            let (mut price_flips, mut profile_flips) = (0, 0);
            for (alt, vs) in &under {
                let other = vs.iter().find(|w| w.scenario == v.scenario);
                let picked = other.and_then(|w| w.pick()).map(Config::strategy);
                let flipped = picked.as_deref() != Some(name.as_str());
                if flipped {
                    flips.push(Flip {
                        price: alt.name.clone(),
                        pick: picked.clone(),
                        cause: cause(pick, alt),
                    });
                }
                if alt.summarizer {
                    profile_flips += usize::from(flipped);
                    profiles.push((alt.name.clone(), picked));
                } else {
                    price_flips += usize::from(flipped);
                    prices.push((alt.name.clone(), picked));
                }
            }
            let (wins, seeds) = seed_wins(v, objective, &name);
            let seed_win_rate = (seeds > 1).then(|| wins as f64 / seeds as f64);
            Some(Sensitivity {
                holds: prices.len() - price_flips,
                of: prices.len(),
                profiles_hold: profiles.len() - profile_flips,
                profiles,
                fragile: !flips.is_empty() || seed_win_rate.is_some_and(|w| w < STABLE_SEEDS),
                prices,
                flips,
                seed_win_rate,
                seeds,
            })
        })
        .collect()
}

/// Why a price or profile flips a pick, where it can be said.
fn cause(pick: &Config<'_>, alt: &Alternative) -> Option<String> {
    if alt.summarizer {
        return Some("its summaries keep facts at other rates".into());
    }
    let peak = pick
        .rows
        .iter()
        .map(|r| r.metrics.peak_accepted_tokens)
        .max()
        .unwrap_or(0);
    let reads = pick.rows.iter().any(|r| r.metrics.cache_read_tokens > 0);
    match &alt.cache {
        CacheMode::None if reads => Some("without a cache, what the pick saved by keeping its prefix is gone".into()),
        CacheMode::Prefix { min, .. } | CacheMode::Breakpoints { min, .. } if *min > peak => Some(format!(
            "its cache minimum of {} tokens is never reached",
            crate::human::thousands(*min)
        )),
        _ => None,
    }
}

/// In how many of the scenario's seeds the pick wins on that seed's runs alone.
fn seed_wins(v: &Verdict<'_>, objective: &Objective, pick: &str) -> (usize, usize) {
    let mut seeds: Vec<u64> = v
        .groups()
        .flat_map(|g| &g.configs)
        .flat_map(|c| c.rows.iter().map(|r| r.settings.seed))
        .collect();
    seeds.sort_unstable();
    seeds.dedup();
    if seeds.len() < 2 {
        return (0, seeds.len());
    }
    let wins = seeds
        .iter()
        .filter(|&&seed| {
            // A configuration that ran once stands for every seed.
            let mut alone: Vec<ResultRow> = Vec::new();
            for config in v.groups().flat_map(|g| &g.configs) {
                let row = config
                    .rows
                    .iter()
                    .find(|r| r.settings.seed == seed)
                    .or_else(|| (config.seeds() == 1).then(|| &config.rows[0]));
                if let Some(row) = row {
                    alone.push(ResultRow {
                        settings: RunSettings {
                            seed: 0,
                            ..row.settings.clone()
                        },
                        ..(*row).clone()
                    });
                }
            }
            verdicts(&alone, objective)
                .first()
                .and_then(|w| w.pick().map(Config::strategy))
                .is_some_and(|p| p == pick)
        })
        .count();
    (wins, seeds.len())
}
