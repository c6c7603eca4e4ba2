//! The runs past the first seed: each variant on every seed it needs, a block of seeds at a
//! time, the block's scenarios loaded as it comes (and kept up to [`KEEP`] seeds), so that any
//! number of seeds starts at once and a stop is heard between blocks.

use std::sync::atomic::AtomicBool;

use super::jobs::{Job, load_all, run_jobs};
use super::plan::{Phase, Plan, Replicated};
use crate::row::ResultRow;
use crate::scenario::Scenario;
use crate::settings::{RunSettings, SettingsError};
use crate::trace::CallRecord;

/// Seeds loaded and run at a time past the first: a stop is heard between blocks as well as
/// between runs, and past [`KEEP`] seeds memory holds one block's scenarios, not every seed's.
const BLOCK: usize = 64;

/// Seeds whose scenarios stay loaded from one phase to the next: below it each seed is loaded
/// once (loading is a good part of a run's work); past it, a block at a time, again each phase.
const KEEP: usize = 1024;

/// The scenarios of the seeds past the first, a block at a time.
pub(super) struct Blocks<'l, E> {
    load: &'l (dyn Fn(u64) -> Result<Vec<Scenario>, E> + Sync),
    list: &'l [u64],
    threads: usize,
    /// Blocks loaded, by where they start in the list.
    kept: Vec<(usize, Vec<Vec<Scenario>>)>,
}

impl<'l, E: Send> Blocks<'l, E> {
    /// The blocks of `list`, loaded by `load` on `threads` threads as they are asked for.
    pub(super) fn new(
        load: &'l (dyn Fn(u64) -> Result<Vec<Scenario>, E> + Sync),
        list: &'l [u64],
        threads: usize,
    ) -> Blocks<'l, E> {
        Blocks {
            load,
            list,
            threads,
            kept: Vec::new(),
        }
    }

    /// The scenarios of the seeds at `start..start + BLOCK` of the list (fewer at its end);
    /// `None` when stopped while loading.
    fn at(&mut self, start: usize, stop: &AtomicBool) -> Result<Option<&[Vec<Scenario>]>, E> {
        let found = match self.kept.iter().position(|(at, _)| *at == start) {
            Some(found) => found,
            None => {
                if self.list.len() > KEEP {
                    self.kept.clear();
                }
                let end = self.list.len().min(start + BLOCK);
                match load_all(self.load, &self.list[start..end], self.threads, stop)? {
                    Some(block) => self.kept.push((start, block)),
                    None => return Ok(None),
                }
                self.kept.len() - 1
            }
        };
        Ok(Some(self.kept[found].1.as_slice()))
    }
}

/// The runs of the variants past the first seed's phase: each variant on every seed it needs,
/// a block of seeds at a time (the first seed's scenarios kept throughout, the others loaded
/// block by block).
pub(super) struct Seeded<'s, 'l, E> {
    pub(super) plan: &'s Plan<'s>,
    pub(super) stop: &'s AtomicBool,
    pub(super) list: &'s [u64],
    /// Every variant on the first seed.
    pub(super) first: &'s [Job<'s>],
    /// Each variant's scenario, by its place among a seed's scenarios.
    pub(super) at_of: &'s [usize],
    /// Whether each variant runs every seed (else its first run stands for all).
    pub(super) replicate: &'s [bool],
    pub(super) blocks: Blocks<'l, E>,
}

impl<E: From<SettingsError> + Send> Seeded<'_, '_, E> {
    /// The seeds the `k`th variant runs on: every seed when it draws at random, else its first.
    pub(super) fn seeds_of(&self, k: usize) -> usize {
        seeds_of(self.replicate, self.list, k)
    }

    /// Runs each of `variants` (indices of the first seed's jobs) on its seeds past the first,
    /// and on the first too when `with_first`, its settings changed by `adjust`; hands each row
    /// to `take` with its variant. Counts the runs in `out` and notes a stop there; whether
    /// every run ran.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn run(
        &mut self,
        out: &mut Replicated,
        variants: &[usize],
        which: Phase,
        with_first: bool,
        adjust: &dyn Fn(&mut RunSettings),
        progress: &mut dyn FnMut(Phase, usize, usize),
        take: &mut dyn FnMut(usize, ResultRow, Vec<CallRecord>) -> Result<(), E>,
    ) -> Result<bool, E> {
        let Seeded {
            plan,
            stop,
            list,
            first,
            at_of,
            replicate,
            blocks,
        } = self;
        let (plan, stop, list, first, at_of, replicate) = (*plan, *stop, *list, *first, *at_of, *replicate);
        let seeds_of = |k: usize| seeds_of(replicate, list, k);
        let total: usize = variants.iter().map(|&k| seeds_of(k) - usize::from(!with_first)).sum();
        // The `k`th variant on the seed at `seed` of the list, on `scenario` (that seed's).
        fn job<'j>(
            variant: &Job<'_>,
            adjust: &dyn Fn(&mut RunSettings),
            (k, seed): (usize, u64),
            scenario: &'j Scenario,
        ) -> (usize, Job<'j>) {
            let mut settings = RunSettings {
                seed,
                ..variant.settings.clone()
            };
            adjust(&mut settings);
            (k, Job { scenario, settings })
        }
        let mut done = 0;
        if with_first {
            let (ks, jobs): (Vec<usize>, Vec<Job<'_>>) = variants
                .iter()
                .map(|&k| job(&first[k], adjust, (k, list[0]), first[k].scenario))
                .unzip();
            if !batch(out, plan, stop, which, (&ks, &jobs), (&mut done, total), progress, take)? {
                return Ok(false);
            }
        }
        let mut start = 1;
        while done < total {
            let Some(block) = blocks.at(start, stop)? else {
                out.stopped = Some((done, total));
                return Ok(false);
            };
            let (ks, jobs): (Vec<usize>, Vec<Job<'_>>) = variants
                .iter()
                .filter(|&&k| seeds_of(k) > 1)
                .flat_map(|&k| {
                    block
                        .iter()
                        .enumerate()
                        .map(move |(b, scenarios)| job(&first[k], adjust, (k, list[start + b]), &scenarios[at_of[k]]))
                })
                .unzip();
            if !batch(out, plan, stop, which, (&ks, &jobs), (&mut done, total), progress, take)? {
                return Ok(false);
            }
            start += block.len();
        }
        Ok(true)
    }
}

/// The seeds of the `k`th variant of `replicate`'s: every one of `list` when it draws at
/// random, else the first.
fn seeds_of(replicate: &[bool], list: &[u64], k: usize) -> usize {
    if replicate[k] { list.len() } else { 1 }
}

/// Runs one batch of a phase's jobs (each with the variant it runs), handing each row and trace to
/// `take`; counts the runs in `out` and `done` (of the phase's `total`), notes a stop. Whether
/// every job ran.
#[allow(clippy::too_many_arguments)]
fn batch<E: From<SettingsError>>(
    out: &mut Replicated,
    plan: &Plan<'_>,
    stop: &AtomicBool,
    which: Phase,
    (ks, jobs): (&[usize], &[Job<'_>]),
    (done, total): (&mut usize, usize),
    progress: &mut dyn FnMut(Phase, usize, usize),
    take: &mut dyn FnMut(usize, ResultRow, Vec<CallRecord>) -> Result<(), E>,
) -> Result<bool, E> {
    let before = *done;
    let ran = run_jobs::<E>(jobs, plan.threads, false, stop, &mut |j, result| {
        let r = ResultRow::new(&jobs[j].scenario.name, jobs[j].settings.clone(), result.metrics);
        take(ks[j], r, result.trace)?;
        progress(which, before + j + 1, total);
        Ok(())
    })?;
    *done += ran;
    out.runs += ran;
    if ran < jobs.len() {
        out.stopped = Some((*done, total));
    }
    Ok(ran == jobs.len())
}
