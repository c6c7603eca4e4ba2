//! The replicated run loop: configurations × seeds, run on threads, each result delivered in the
//! order of the jobs whatever the threads, so that the same seeds give the same bytes; and
//! [`replicate`], what `compare` runs with it: tuned variants on the first seed, then on every
//! other seed they need (those out on the first seed aside), each strategy's best of them chosen
//! over those seeds, paired, and the checks under other prices (a cache simulated once, every
//! price that shares it re-priced). Stopping (Ctrl-C) lets the
//! runs under way finish and starts no other.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::billing::cache_mode::CacheMode;
use crate::billing::price::Price;
use crate::row::ResultRow;
use crate::run::{RunResult, run_scenario};
use crate::scenario::Scenario;
use crate::settings::{RunSettings, SettingsError};
use crate::trace::CallRecord;
use crate::verdict::{Alternative, Objective, Runs};

pub use crate::seeds::{Seeds, SeedsError};
use seeded::{Blocks, Seeded};

mod seeded;

/// One run to make: a scenario (loaded with the seed) and its settings (resolved, seed set).
#[derive(Clone, Debug)]
pub struct Job<'a> {
    /// The scenario.
    pub scenario: &'a Scenario,
    /// The settings, the seed among them.
    pub settings: RunSettings,
}

/// Runs `jobs` on `threads` threads (0: every core), handing each result to `done` in the jobs'
/// order, with its trace when `traces`. Returns how many ran; fewer than all when `stop` was set.
pub fn run_jobs<E: From<SettingsError>>(
    jobs: &[Job<'_>],
    threads: usize,
    traces: bool,
    stop: &AtomicBool,
    done: &mut dyn FnMut(usize, RunResult) -> Result<(), E>,
) -> Result<usize, E> {
    // Blocks keep memory bounded and let results out in order as they finish.
    let block = 256 * std::thread::available_parallelism().map_or(1, usize::from).max(threads);
    let mut start = 0;
    while start < jobs.len() {
        if stop.load(Ordering::Relaxed) {
            return Ok(start);
        }
        let slice = &jobs[start..jobs.len().min(start + block)];
        let results = in_order(slice, threads, stop, &|job: &Job<'_>| {
            let mut result = run_scenario(job.scenario, &job.settings, &mut |_| {});
            // A trace nobody wants is freed by the thread that made it, not handed across.
            if let (Ok(result), false) = (result.as_mut(), traces) {
                result.trace = Vec::new();
            }
            result
        });
        for (k, result) in results.into_iter().enumerate() {
            match result {
                Some(result) => done(start + k, result?)?,
                // Stopped before this one began: what ran before it is kept.
                None => return Ok(start + k),
            }
        }
        start += slice.len();
    }
    Ok(jobs.len())
}

/// What [`replicate`] does besides running: the seeds, tuning, the ranking the tuning picks by,
/// threads, and the price to check the verdicts' sensitivity against.
pub struct Plan<'a> {
    /// The seeds.
    pub seeds: &'a Seeds,
    /// The seed of the first runs (`--seed`).
    pub base: u64,
    /// Whether each strategy runs over its tuning grid ([`crate::tune::variants`]).
    pub tune: bool,
    /// How tuning picks a strategy's best variant.
    pub objective: &'a Objective,
    /// Threads (0: every core).
    pub threads: usize,
    /// The run's price, to check the verdicts under the table's others; `None`: unpriced.
    pub price: Option<&'a Price>,
    /// The cache the runs have.
    pub cache: &'a CacheMode,
}

/// Which part of the work a progress report is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Every configuration (every tuned variant) on the first seed.
    First,
    /// The ranked configurations on the other seeds.
    Seeds,
    /// The ranked configurations under another price's cache.
    Prices,
}

/// What [`replicate`] ran.
#[derive(Debug, Default)]
pub struct Replicated {
    /// Every row, for the results files: each configuration's seeds in order.
    pub rows: Vec<ResultRow>,
    /// The rows the verdicts rank: each strategy at its chosen variant, every seed, with its
    /// family set when tuning chose another variant than the strategy as given.
    pub ranked: Vec<ResultRow>,
    /// The first seed's row and trace of each ranked configuration, for the charts.
    pub traces: Vec<(ResultRow, Vec<CallRecord>)>,
    /// The runs under the table's other prices.
    pub alternatives: Vec<Alternative>,
    /// Ranked configurations, and how many of them ran every seed.
    pub configurations: usize,
    /// Of those, the ones replicated over the seeds.
    pub replicated: usize,
    /// The seeds.
    pub seeds: Vec<u64>,
    /// Runs made, and whether Ctrl-C cut them short.
    pub runs: usize,
    /// Set when stopped before the end: the runs made and planned in the phase it stopped in.
    pub stopped: Option<(usize, usize)>,
    /// Each scenario's name and description, in order.
    pub descriptions: Vec<(String, String)>,
}

/// The scenarios of each of `seeds`, loaded on `threads` threads (padding each seed's text is
/// most of the work), in the seeds' order; `None` when `stop` was set before all were loaded.
pub fn load_all<E: Send>(
    load: &(dyn Fn(u64) -> Result<Vec<Scenario>, E> + Sync),
    seeds: &[u64],
    threads: usize,
    stop: &AtomicBool,
) -> Result<Option<Vec<Vec<Scenario>>>, E> {
    let loaded = in_order(seeds, threads, stop, &|&seed| load(seed));
    if loaded.iter().any(Option::is_none) {
        return Ok(None);
    }
    loaded.into_iter().flatten().collect::<Result<_, E>>().map(Some)
}

/// `work` of each item on `threads` threads (0: every core), the results in the items' order;
/// `None` for those not begun when `stop` was set.
fn in_order<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    stop: &AtomicBool,
    work: &(dyn Fn(&T) -> R + Sync),
) -> Vec<Option<R>> {
    let threads = if threads == 0 {
        std::thread::available_parallelism().map_or(1, usize::from)
    } else {
        threads
    };
    let slots: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads.min(items.len()) {
            scope.spawn(|| {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= items.len() || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let result = work(&items[k]);
                    if let Ok(mut slot) = slots[k].lock() {
                        *slot = Some(result);
                    }
                }
            });
        }
    });
    slots.into_iter().map(|slot| slot.into_inner().ok().flatten()).collect()
}

/// Runs one phase's `jobs`, handing each row and trace to `take` with its job's index; counts
/// the runs in `out` and notes a stop there. Whether every job ran.
fn phase<E: From<SettingsError>>(
    out: &mut Replicated,
    jobs: &[Job<'_>],
    plan: &Plan<'_>,
    stop: &AtomicBool,
    which: Phase,
    progress: &mut dyn FnMut(Phase, usize, usize),
    take: &mut dyn FnMut(usize, ResultRow, Vec<CallRecord>) -> Result<(), E>,
) -> Result<bool, E> {
    let total = jobs.len();
    let ran = run_jobs::<E>(jobs, plan.threads, which == Phase::First, stop, &mut |k, result| {
        let r = ResultRow::new(&jobs[k].scenario.name, jobs[k].settings.clone(), result.metrics);
        take(k, r, result.trace)?;
        progress(which, k + 1, total);
        Ok(())
    })?;
    out.runs += ran;
    if ran < total {
        out.stopped = Some((ran, total));
    }
    Ok(ran == total)
}

/// Runs `settings` on every scenario `load` gives for a seed: each tuned variant on the first
/// seed, each strategy's chosen variant on every other seed it needs, and the chosen ones again
/// under each price of the table whose cache is not the run's (the others are re-priced). Every
/// row goes to `row` as it is made; `progress` hears of each run. Stops at `stop` (the result
/// says so).
pub fn replicate<E: From<SettingsError> + Send>(
    plan: &Plan<'_>,
    settings: &[RunSettings],
    load: &(dyn Fn(u64) -> Result<Vec<Scenario>, E> + Sync),
    row: &mut dyn FnMut(&ResultRow) -> Result<(), E>,
    progress: &mut dyn FnMut(Phase, usize, usize),
    stop: &AtomicBool,
) -> Result<Replicated, E> {
    let list = plan.seeds.list(plan.base);
    let mut out = Replicated {
        seeds: list.clone(),
        ..Replicated::default()
    };
    let scenarios = load(list[0])?;
    out.descriptions = scenarios
        .iter()
        .map(|s| (s.name.clone(), s.description.clone()))
        .collect();
    // Each family: its scenario, the strategy as given, and the variants it runs on seed one.
    let mut first: Vec<Job<'_>> = Vec::new();
    let mut families: Vec<(usize, String, std::ops::Range<usize>)> = Vec::new();
    for (at, scenario) in scenarios.iter().enumerate() {
        for s in settings {
            let given = RunSettings {
                seed: list[0],
                ..s.resolved(scenario)?
            };
            let variants = if plan.tune {
                crate::tune::variants(&given)
            } else {
                vec![given.clone()]
            };
            let start = first.len();
            first.extend(variants.into_iter().map(|settings| Job { scenario, settings }));
            families.push((at, given.strategy.to_string(), start..first.len()));
        }
    }
    let mut rows1: Vec<ResultRow> = Vec::with_capacity(first.len());
    let mut traces1: Vec<Vec<CallRecord>> = Vec::with_capacity(first.len());
    let all = phase::<E>(
        &mut out,
        &first,
        plan,
        stop,
        Phase::First,
        progress,
        &mut |_, r, trace| {
            row(&r)?;
            rows1.push(r);
            traces1.push(trace);
            Ok(())
        },
    )?;
    if !all {
        return Ok(out);
    }
    // Every variant that drew at random runs the other seeds too, so that tuning chooses on the
    // verdict's own seeds, paired; one that drew nothing stands for every seed.
    let replicate: Vec<bool> = (0..first.len())
        .map(|k| {
            plan.seeds
                .replicates(first[k].scenario, &first[k].settings, &rows1[k].metrics)
        })
        .collect();
    let at_of: Vec<usize> = (0..first.len())
        .map(|k| families.iter().find(|f| f.2.contains(&k)).map_or(0, |f| f.0))
        .collect();
    let mut seeded = Seeded {
        plan,
        stop,
        list: &list,
        first: &first,
        at_of: &at_of,
        replicate: &replicate,
        blocks: Blocks::new(load, &list, plan.threads),
    };
    let mut rows_of: Vec<Vec<ResultRow>> = rows1.iter().map(|r| vec![r.clone()]).collect();
    // A variant out on its first seed is out whatever its other seeds do: they run only if it is
    // chosen all the same (every variant of its family is out).
    let qualifying: Vec<usize> = (0..first.len())
        .filter(|&k| crate::verdict::disqualified(&rows1[k].metrics).is_none())
        .collect();
    let unchanged = |_: &mut RunSettings| {};
    let all = seeded.run(
        &mut out,
        &qualifying,
        Phase::Seeds,
        false,
        &unchanged,
        progress,
        &mut |k, r, _| {
            row(&r)?;
            rows_of[k].push(r);
            Ok(())
        },
    )?;
    if !all {
        return Ok(out);
    }
    // Each family's chosen variant, by the verdicts' rule over every seed; a variant two families
    // chose is ranked once.
    let mut picked: Vec<(usize, String)> = Vec::new();
    for (_, name, range) in &families {
        let k = range.start + crate::tune::choose(&rows_of[range.clone()], plan.objective);
        if !picked
            .iter()
            .any(|(c, _)| rows1[*c].scenario == rows1[k].scenario && rows1[*c].settings == rows1[k].settings)
        {
            picked.push((k, name.clone()));
        }
    }
    let out_but_chosen: Vec<usize> = picked
        .iter()
        .map(|(k, _)| *k)
        .filter(|k| !qualifying.contains(k))
        .collect();
    let all = seeded.run(
        &mut out,
        &out_but_chosen,
        Phase::Seeds,
        false,
        &unchanged,
        progress,
        &mut |k, r, _| {
            row(&r)?;
            rows_of[k].push(r);
            Ok(())
        },
    )?;
    if !all {
        return Ok(out);
    }
    out.configurations = picked.len();
    out.replicated = picked.iter().filter(|(k, _)| replicate[*k]).count();
    out.rows = rows_of.iter().flatten().cloned().collect();
    let chosen: Vec<usize> = picked.iter().map(|(k, _)| *k).collect();
    let rows_of: Vec<Vec<ResultRow>> = chosen.iter().map(|&k| std::mem::take(&mut rows_of[k])).collect();
    let family = |k: usize, r: &ResultRow| {
        let name = picked
            .iter()
            .find(|(c, _)| *c == k)
            .map_or("", |(_, name)| name.as_str());
        ResultRow {
            family: (r.settings.strategy.to_string() != name).then(|| name.to_owned()),
            ..r.clone()
        }
    };
    for (c, rows) in rows_of.iter().enumerate() {
        out.ranked.extend(rows.iter().map(|r| family(chosen[c], r)));
        out.traces
            .push((family(chosen[c], &rows[0]), std::mem::take(&mut traces1[chosen[c]])));
    }
    // The chosen configurations' rows of a phase, each configuration's seeds together in order.
    let position = |k: usize| chosen.iter().position(|&c| c == k).unwrap_or(0);
    // Whether each verdict holds under the table's other prices and caches: a cache is simulated
    // once, and every price that shares it re-priced from those runs' token parts.
    if let Some(price) = plan.price {
        // Each cache simulated again, and the alternative that holds its runs.
        let mut simulated: Vec<(CacheMode, usize)> = Vec::new();
        for (name, alt) in crate::verdict::prices(price) {
            let resimulated = (&alt.cache != plan.cache).then_some(list.len());
            let same = if resimulated.is_none() {
                Some(None)
            } else {
                simulated
                    .iter()
                    .find(|(cache, _)| *cache == alt.cache)
                    .map(|&(_, at)| Some(at))
            };
            if let Some(from) = same {
                out.alternatives.push(Alternative {
                    name,
                    cache: alt.cache.clone(),
                    rows: Runs::Repriced { from, price: alt },
                    resimulated,
                    summarizer: false,
                });
                continue;
            }
            // Simulated again on every seed the configuration ran with: a subset would flip
            // picks by its draws, not by the price.
            let priced = |settings: &mut RunSettings| {
                settings.price = Some(alt.clone());
                settings.cache = alt.cache.clone();
            };
            let mut again: Vec<Vec<ResultRow>> = vec![Vec::new(); chosen.len()];
            let all = seeded.run(
                &mut out,
                &chosen,
                Phase::Prices,
                true,
                &priced,
                progress,
                &mut |k, r, _| {
                    again[position(k)].push(family(k, &r));
                    Ok(())
                },
            )?;
            if !all {
                return Ok(out);
            }
            let rows: Vec<ResultRow> = again.into_iter().flatten().collect();
            simulated.push((alt.cache.clone(), out.alternatives.len()));
            out.alternatives.push(Alternative {
                name,
                cache: alt.cache,
                rows: Runs::Ran(rows),
                resimulated,
                summarizer: false,
            });
        }
    }
    // Whether each verdict holds under the other shipped summarizer profiles: the configurations
    // that summarize run again on their seeds; the others' figures cannot depend on it.
    let summarizes = |k: usize| {
        let settings = &first[k].settings;
        settings.strategy.stages.iter().any(|s| s.name() == "summarize")
    };
    let summarizing: Vec<usize> = chosen.iter().copied().filter(|&k| summarizes(k)).collect();
    if !summarizing.is_empty() {
        let run_profile = &first[chosen[0]].settings.summarizer;
        for profile in crate::sim::profile::summarizers() {
            if profile.name == run_profile.0.name {
                continue;
            }
            let summarizer = crate::sim::profile::Summarizer(std::sync::Arc::new(profile.clone()));
            let profiled = |settings: &mut RunSettings| settings.summarizer = summarizer.clone();
            let mut again: Vec<Vec<ResultRow>> = vec![Vec::new(); chosen.len()];
            let all = seeded.run(
                &mut out,
                &summarizing,
                Phase::Prices,
                true,
                &profiled,
                progress,
                &mut |k, r, _| {
                    again[position(k)].push(family(k, &r));
                    Ok(())
                },
            )?;
            if !all {
                return Ok(out);
            }
            let rows = (0..chosen.len())
                .flat_map(|c| {
                    if summarizes(chosen[c]) {
                        std::mem::take(&mut again[c])
                    } else {
                        rows_of[c].iter().map(|r| family(chosen[c], r)).collect()
                    }
                })
                .collect();
            out.alternatives.push(Alternative {
                name: format!("summarizer {}", profile.name),
                cache: plan.cache.clone(),
                rows: Runs::Ran(rows),
                resimulated: Some(list.len()),
                summarizer: true,
            });
        }
    }
    Ok(out)
}
