//! What `compare` runs ([`replicate`]): tuned variants on the first seed, then on every other
//! seed they need (those out on the first seed aside), each strategy's best of them chosen over
//! those seeds, paired, and the checks under other prices (a cache simulated once, every price
//! that shares it re-priced) and other summarizer profiles.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::row::ResultRow;
use crate::scenario::Scenario;
use crate::settings::{RunSettings, SettingsError};
use crate::trace::CallRecord;
use crate::verdict::{Checker, Ran, SeedRuns};

use super::checks::{Rerun, check_prices, check_profiles};
use super::jobs::{Job, run_jobs};
use super::plan::{Phase, Plan, Replicated};
use super::seeded::{Blocks, Seeded};

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
/// row of the results goes to `row` as it is made, with its configuration's place among the
/// first seed's (the results' final order is each configuration's rows in the order they came,
/// configurations in that order; none are held here); `progress` hears of each run. Stops at
/// `stop` (the result says so).
pub fn replicate<E: From<SettingsError> + Send>(
    plan: &Plan<'_>,
    settings: &[RunSettings],
    load: &(dyn Fn(u64) -> Result<Vec<Scenario>, E> + Sync),
    row: &mut dyn FnMut(usize, &ResultRow) -> Result<(), E>,
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
        &mut |k, r, trace| {
            row(k, &r)?;
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
    // Of every seed past the first, what the verdicts read, not the row (a quarter of its size).
    let mut runs_of: Vec<Arc<SeedRuns>> = rows1.iter().map(|r| Arc::new(SeedRuns::of([r]))).collect();
    // A variant out on its first seed is out whatever its other seeds do: they run only if it is
    // chosen all the same (every variant of its family is out).
    let qualifying: Vec<usize> = (0..first.len())
        .filter(|&k| crate::verdict::disqualified(&rows1[k].metrics).is_none())
        .collect();
    if !other_seeds(&mut seeded, &mut out, &qualifying, progress, row, &mut runs_of)? {
        return Ok(out);
    }
    // Each family's chosen variant, by the verdicts' rule over every seed; a variant two families
    // chose is ranked once.
    let mut picked: Vec<(usize, String)> = Vec::new();
    for (_, name, range) in &families {
        let k = range.start + crate::tune::choose(&rows1[range.clone()], &runs_of[range.clone()], plan.objective);
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
    if !other_seeds(&mut seeded, &mut out, &out_but_chosen, progress, row, &mut runs_of)? {
        return Ok(out);
    }
    out.configurations = picked.len();
    out.replicated = picked.iter().filter(|(k, _)| replicate[*k]).count();
    let chosen: Vec<usize> = picked.iter().map(|(k, _)| *k).collect();
    // A row of the `k`th variant, named by its family when tuning chose another variant.
    let family = |k: usize, mut r: ResultRow| {
        let name = picked
            .iter()
            .find(|(c, _)| *c == k)
            .map_or("", |(_, name)| name.as_str());
        r.family = (r.settings.strategy.to_string() != name).then(|| name.to_owned());
        r
    };
    // The ranked configurations, in the order chosen.
    let mut ranked: Vec<Ran> = Vec::with_capacity(chosen.len());
    for &k in &chosen {
        let first = family(k, rows1[k].clone());
        out.traces.push((first.clone(), std::mem::take(&mut traces1[k])));
        ranked.push(Ran {
            first,
            runs: std::mem::take(&mut runs_of[k]),
        });
    }
    drop(runs_of);
    // Each verdict is checked under every other price and profile as their runs come, and
    // those runs let go once checked: a run over many seeds holds the ranked configurations' figures
    // and one alternative's at most.
    let main = crate::verdict::verdicts_of(&ranked, plan.objective);
    let mut checker = Checker::new(&main, plan.objective);
    let position = |k: usize| chosen.iter().position(|&c| c == k).unwrap_or(0);
    // A run of the `k`th variant again: its place among the chosen, its row named by family.
    let placed = |k: usize, r: ResultRow| (position(k), family(k, r));
    let mut rerun = Rerun {
        seeded: &mut seeded,
        out: &mut out,
        progress,
        chosen: &chosen,
        placed: &placed,
    };
    let prices = plan.price.map(crate::verdict::prices).unwrap_or_default();
    let summarizes = |k: usize| {
        let settings = &first[k].settings;
        settings.strategy.stages.iter().any(|s| s.name() == "summarize")
    };
    let all = check_prices(&mut rerun, &mut checker, &ranked, &prices, plan)?
        && check_profiles(&mut rerun, &mut checker, &ranked, &summarizes, prices.len(), plan)?;
    if !all {
        return Ok(out);
    }
    out.sensitivity = checker.finish();
    drop(main);
    out.ranked = ranked;
    Ok(out)
}

/// The variants `ks` on their seeds past the first, as they are: each row handed to `row` with
/// its variant, and what the verdicts read of it kept with its variant's in `runs_of`. Whether
/// every run ran.
fn other_seeds<E: From<SettingsError> + Send>(
    seeded: &mut Seeded<'_, '_, E>,
    out: &mut Replicated,
    ks: &[usize],
    progress: &mut dyn FnMut(Phase, usize, usize),
    row: &mut dyn FnMut(usize, &ResultRow) -> Result<(), E>,
    runs_of: &mut [Arc<SeedRuns>],
) -> Result<bool, E> {
    // Each list at the size it needs: one grown by doubling holds up to twice its runs.
    for &k in ks {
        let runs = Arc::make_mut(&mut runs_of[k]);
        runs.reserve_exact(seeded.seeds_of(k).saturating_sub(runs.len()));
    }
    seeded.run(out, ks, Phase::Seeds, false, &|_| {}, progress, &mut |k, r, _| {
        row(k, &r)?;
        Arc::make_mut(&mut runs_of[k]).push(&r);
        Ok(())
    })
}
