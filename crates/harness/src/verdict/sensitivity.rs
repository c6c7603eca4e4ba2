//! Whether a pick holds: under every model of the price table (re-priced from the token parts
//! when its cache is the run's, re-simulated when not), without a cache, and seed by seed.

use serde::Serialize;

use super::{Config, Figure, Objective, Ran, SeedFigures, Verdict, verdict, verdicts, verdicts_of};
use crate::billing::cache_mode::CacheMode;
use crate::billing::price::{Billed, Price, dollars};
use crate::human::thousands;
use crate::row::ResultRow;

/// A pick wins in fewer than this share of seeds: fragile.
pub const STABLE_SEEDS: f64 = 0.8;

/// The runs under another price (and its cache): named, with how they were had.
#[derive(Clone, Debug)]
pub struct Alternative {
    /// The price's name (`claude-haiku-4-5`, or `cache none`).
    pub name: String,
    /// The cache it runs.
    pub cache: CacheMode,
    /// Its rows: every configuration the verdicts rank, re-simulated, or re-priced from rows
    /// at hand when it is checked (one at a time: a copy of every row for each of fourteen
    /// prices was most of a long run's memory).
    pub rows: Runs,
    /// Whether they were simulated again (the cache differs), and on how many seeds.
    pub resimulated: Option<usize>,
    /// A summarizer profile's runs (the name is the profile's), not another price's.
    pub summarizer: bool,
}

/// Where an alternative's rows come from.
#[derive(Clone, Debug)]
pub enum Runs {
    /// Runs of its own (another cache, another summarizer profile).
    Ran(Vec<ResultRow>),
    /// The runs of `from` (`None`: the ranked rows themselves; `Some(i)`: alternative `i`'s own),
    /// billed at this price.
    Repriced {
        /// Whose runs.
        from: Option<usize>,
        /// The price they are billed at.
        price: Price,
    },
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
    /// Whether the verdict rests on one draw (one seed of runs that draw at random).
    pub one_draw: bool,
    /// Flips under some price, wins in fewer than 80% of seeds, or rests on one draw.
    pub fragile: bool,
}

/// `rows` as `price` would have billed them (same cache, so the same token parts).
pub fn repriced(rows: &[ResultRow], price: &Price) -> Vec<ResultRow> {
    let mut rows = rows.to_vec();
    reprice(&mut rows, price);
    rows
}

/// Bills `rows` at `price` in place (same cache, so the same token parts): a run over many
/// seeds re-prices one copy of its rows for one price after another, not a copy for each.
pub fn reprice(rows: &mut [ResultRow], price: &Price) {
    let price = std::sync::Arc::new(price.for_cache(&price.cache));
    for row in rows {
        let m = &row.metrics;
        let billed = Billed {
            uncached: m.uncached_tokens,
            cache_read: m.cache_read_tokens,
            cache_write: m.cache_write_tokens,
            completion: m.tokens_received,
        };
        row.metrics.cost_usd = Some(dollars(price.cost(&billed)));
        row.settings.price = Some(price.clone());
    }
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

/// Each verdict's sensitivity to `alternatives` (re-priced ones from `ranked`, the rows the
/// verdicts were made of, or from another alternative's runs), and to its seeds. The
/// alternatives are checked one at a time, so that only one set of re-priced rows is held.
pub fn sensitivities(
    main: &[Verdict<'_>],
    ranked: &[ResultRow],
    alternatives: &[Alternative],
    objective: &Objective,
) -> Vec<Option<Sensitivity>> {
    let mut checker = Checker::new(main, objective);
    for (at, alt) in alternatives.iter().enumerate() {
        let repriced_rows;
        let rows: &[ResultRow] = match &alt.rows {
            Runs::Ran(rows) => rows,
            Runs::Repriced { from, price } => {
                let base = match from.and_then(|i| alternatives.get(i)).map(|a| &a.rows) {
                    Some(Runs::Ran(rows)) => rows.as_slice(),
                    _ => ranked,
                };
                repriced_rows = repriced(base, price);
                &repriced_rows
            }
        };
        checker.check(at, &Against::of(alt), rows);
    }
    checker.finish()
}

/// What a verdict is checked against: a price (with its cache) or a summarizer profile.
#[derive(Clone, Copy, Debug)]
pub struct Against<'n> {
    /// The price's name, or `summarizer NAME`.
    pub name: &'n str,
    /// The cache it runs.
    pub cache: &'n CacheMode,
    /// A summarizer profile's runs, not another price's.
    pub summarizer: bool,
}

impl<'n> Against<'n> {
    /// What `alt` checks against.
    pub fn of(alt: &'n Alternative) -> Against<'n> {
        Against {
            name: &alt.name,
            cache: &alt.cache,
            summarizer: alt.summarizer,
        }
    }
}

/// The verdicts' sensitivity, checked one alternative at a time as its runs come (each
/// alternative's rows may go once checked: what a run over many seeds must not hold), then
/// seed by seed ([`Checker::finish`]).
pub struct Checker<'m, 'a> {
    main: &'m [Verdict<'a>],
    objective: &'m Objective,
    /// Per verdict, each alternative checked with the place it takes in the lists.
    held: Vec<Vec<(usize, Checked)>>,
}

/// One verdict under one alternative.
struct Checked {
    name: String,
    summarizer: bool,
    pick: Option<String>,
    flip: Option<Flip>,
}

impl<'m, 'a> Checker<'m, 'a> {
    /// A checker of the verdicts `main`, ranked by `objective`.
    pub fn new(main: &'m [Verdict<'a>], objective: &'m Objective) -> Checker<'m, 'a> {
        Checker {
            main,
            objective,
            held: main.iter().map(|_| Vec::new()).collect(),
        }
    }

    /// Each verdict under `against`, whose runs are `rows` (each configuration's together, as
    /// [`crate::verdict::configs`] reads them best; from lists of their own, none copied); `at`
    /// is the place it takes among the alternatives, whatever order they are checked in.
    pub fn check<'r>(&mut self, at: usize, against: &Against<'_>, rows: impl IntoIterator<Item = &'r ResultRow>) {
        self.check_verdicts(at, against, &verdicts(rows, self.objective));
    }

    /// [`Checker::check`] of runs as `compare` keeps them.
    pub fn check_ran(&mut self, at: usize, against: &Against<'_>, ran: &[Ran]) {
        self.check_verdicts(at, against, &verdicts_of(ran, self.objective));
    }

    /// Each verdict against its scenario's among `vs`, the verdicts under `against`.
    fn check_verdicts(&mut self, at: usize, against: &Against<'_>, vs: &[Verdict<'_>]) {
        for (v, h) in self.main.iter().zip(&mut self.held) {
            let Some(pick) = v.pick() else { continue };
            let name = pick.strategy();
            let other = vs.iter().find(|w| w.scenario == v.scenario);
            let picked = other.and_then(|w| w.pick()).map(Config::strategy);
            let flip = (picked.as_deref() != Some(name.as_str())).then(|| {
                let in_other =
                    |name: &str| other.and_then(|w| w.groups().flat_map(|g| &g.configs).find(|c| c.strategy() == name));
                let in_this = |name: &str| v.groups().flat_map(|g| &g.configs).find(|c| c.strategy() == name);
                let flipped = Flipped {
                    pick,
                    pick_there: in_other(&name),
                    other: picked.as_deref().and_then(in_this),
                    other_there: picked.as_deref().and_then(in_other),
                };
                Flip {
                    price: against.name.to_owned(),
                    pick: picked.clone(),
                    cause: cause(&flipped, against),
                }
            });
            let place = h.partition_point(|(b, _)| *b < at);
            h.insert(
                place,
                (
                    at,
                    Checked {
                        name: against.name.to_owned(),
                        summarizer: against.summarizer,
                        pick: picked,
                        flip,
                    },
                ),
            );
        }
    }

    /// Each verdict's sensitivity: to every alternative checked, and to its seeds.
    pub fn finish(self) -> Vec<Option<Sensitivity>> {
        let objective = self.objective;
        self.main
            .iter()
            .zip(self.held)
            .map(|(v, checked)| {
                let name = v.pick()?.strategy();
                let (wins, seeds) = seed_wins(v, objective, &name);
                let seed_win_rate = (seeds > 1).then(|| wins as f64 / seeds as f64);
                let (mut prices, mut profiles, mut flips) = (Vec::new(), Vec::new(), Vec::new());
                let (mut price_flips, mut profile_flips) = (0, 0);
                for (_, c) in checked {
                    let flipped = usize::from(c.flip.is_some());
                    if c.summarizer {
                        profile_flips += flipped;
                        profiles.push((c.name, c.pick));
                    } else {
                        price_flips += flipped;
                        prices.push((c.name, c.pick));
                    }
                    flips.extend(c.flip);
                }
                Some(Sensitivity {
                    holds: prices.len() - price_flips,
                    of: prices.len(),
                    profiles_hold: profiles.len() - profile_flips,
                    profiles,
                    fragile: !flips.is_empty() || v.one_draw || seed_win_rate.is_some_and(|w| w < STABLE_SEEDS),
                    prices,
                    flips,
                    seed_win_rate,
                    seeds,
                    one_draw: v.one_draw,
                })
            })
            .collect()
    }
}

/// The pick and what took its place, each as it ran with the run's price and under another:
/// what a flip's cause is found from.
struct Flipped<'v, 'a> {
    /// The pick, as it ran.
    pick: &'v Config<'a>,
    /// The pick under the other price.
    pick_there: Option<&'v Config<'a>>,
    /// What the other price picks, as it ran with the run's price.
    other: Option<&'v Config<'a>>,
    /// What the other price picks, under it.
    other_there: Option<&'v Config<'a>>,
}

/// Why a price or profile flips a pick, found by comparing the runs: the pick's cache reads gone
/// under a cache minimum its requests never reach; a time to live that outlasts the idle gaps,
/// so that a cold trigger fires less; cache writes that cost more than the reads they buy; the
/// reads the pick relied on more than what took its place, with no cache at all; compactions
/// that break the cached prefix, so that the pick reads less from the cache than what took its
/// place; a summarizer profile under which the pick loses more facts. `None` where none of
/// these is seen.
fn cause(f: &Flipped<'_, '_>, alt: &Against<'_>) -> Option<String> {
    let there = f.pick_there?;
    let reads = |c: &Config<'_>| c.mean(Figure::CacheRead).mean;
    if alt.summarizer {
        let (before, after) = (f.pick.facts_lost().mean, there.facts_lost().mean);
        return (after > before).then(|| {
            format!(
                "with its summaries the pick loses {} facts a run, not {}",
                super::fraction(after),
                super::fraction(before)
            )
        });
    }
    let run_cache = &f.pick.settings().cache;
    let lost_reads = reads(f.pick) - reads(there);
    let other_lost = match (f.other, f.other_there) {
        (Some(o), Some(t)) => reads(o) - reads(t),
        _ => 0.0,
    };
    match alt.cache {
        CacheMode::None => {
            let other = f.other.map_or(0.0, reads);
            return (reads(f.pick) > other).then(|| {
                format!(
                    "with no cache the {} tokens a run the pick read from it, more than the {} of what replaces it, are billed in full",
                    thousands(reads(f.pick).round() as u64),
                    thousands(other.round() as u64)
                )
            });
        }
        CacheMode::Prefix { min, .. } | CacheMode::Breakpoints { min, .. } => {
            let peak = there.peak_accepted();
            if reads(there) == 0.0 && lost_reads > other_lost && *min > peak {
                return Some(format!(
                    "its cache minimum of {} tokens is never reached: the pick's largest request is {}",
                    thousands(*min),
                    thousands(peak)
                ));
            }
        }
    }
    let cold = f.pick.settings().strategy.to_string().contains("trigger=cold");
    let (ttl, run_ttl) = (alt.cache.ttl_s().unwrap_or(0), run_cache.ttl_s().unwrap_or(0));
    let (fired, fires) = (
        f.pick.mean(Figure::Compactions).mean,
        there.mean(Figure::Compactions).mean,
    );
    if cold && ttl > run_ttl && fires < fired {
        let how = if fires == 0.0 {
            "never fires".to_owned()
        } else {
            format!(
                "fires {} times a run, not {}",
                super::fraction(fires),
                super::fraction(fired)
            )
        };
        return Some(format!(
            "its time to live of {} outlasts the idle gaps, so the pick's cold trigger {how}",
            crate::human::duration(ttl)
        ));
    }
    let price = there.settings().price.as_ref()?.for_cache(alt.cache);
    let (written, read) = (there.mean(Figure::CacheWrite).mean, reads(there));
    let at = |billed: Billed| price.cost(&billed) as f64;
    let as_input = |n: f64| {
        at(Billed {
            uncached: n.round() as u64,
            ..Billed::default()
        })
    };
    let extra = at(Billed {
        cache_write: written.round() as u64,
        ..Billed::default()
    }) - as_input(written);
    let saved = as_input(read)
        - at(Billed {
            cache_read: read.round() as u64,
            ..Billed::default()
        });
    if extra > saved && extra > 0.0 {
        let reads = if money_of(saved) == money_of(0.0) {
            "nothing read back saves it".to_owned()
        } else {
            format!("its reads save {}", money_of(saved))
        };
        return Some(format!(
            "the pick's cache writes cost {} a run more than at the input price, and {reads}",
            money_of(extra),
        ));
    }
    let breaks = there.mean(Figure::PrefixBreaks).mean;
    let (other, other_reads) = f.other_there.map(|o| (o, reads(o)))?;
    (breaks > 0.0 && read < other_reads).then(|| {
        format!(
            "the pick's compactions break the cached prefix {} times a run: it reads {} tokens a run from the cache, {} {}",
            super::fraction(breaks),
            thousands(read.round() as u64),
            other.strategy_brief(),
            thousands(other_reads.round() as u64)
        )
    })
}

/// Picodollars for people: `$0.0012`.
fn money_of(picodollars: f64) -> String {
    crate::human::dollars(dollars(picodollars.max(0.0) as u128))
}

/// In how many of the scenario's seeds the pick wins on that seed's runs alone.
fn seed_wins(v: &Verdict<'_>, objective: &Objective, pick: &str) -> (usize, usize) {
    let configs: Vec<&Config<'_>> = v.groups().flat_map(|g| &g.configs).collect();
    // Every configuration's runs read side by side in seed order, one seed at a time; one that
    // ran once stands for every seed.
    let once: Vec<Option<SeedFigures>> = configs
        .iter()
        .map(|c| (c.seeds() == 1).then(|| c.runs().next()).flatten())
        .collect();
    let mut runs: Vec<_> = configs.iter().map(|c| c.runs().peekable()).collect();
    let (mut wins, mut seeds) = (0, 0);
    while let Some(seed) = runs.iter_mut().filter_map(|r| r.peek().map(|r| r.seed)).min() {
        let alone: Vec<Config<'_>> = configs
            .iter()
            .zip(&mut runs)
            .zip(&once)
            .filter_map(|((c, r), once)| {
                let here = r.next_if(|r| r.seed == seed);
                // The same seed twice (results files read together): its first run.
                while r.next_if(|r| r.seed == seed).is_some() {}
                Some(c.only(&once.or(here)?))
            })
            .collect();
        seeds += 1;
        wins += usize::from(
            verdict(v.scenario, alone, objective)
                .pick()
                .is_some_and(|p| p.strategy() == pick),
        );
    }
    if seeds < 2 { (0, seeds) } else { (wins, seeds) }
}
