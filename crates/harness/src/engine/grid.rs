//! A grid's configurations, each over the seeds it needs (what `sweep` runs with
//! [`run_configurations`]): a block of configurations on their first seed, then the other seeds
//! of those whose first run drew at random (with `--seeds auto`), each configuration's runs handed
//! over whole and in order, so that a results file only ever holds whole configurations.

use std::ops::Range;
use std::sync::atomic::AtomicBool;

use super::jobs::{Job, run_jobs};
use crate::metrics::RunMetrics;
use crate::seeds::Seeds;
use crate::settings::SettingsError;

/// Runs a block holds at most: memory is bounded by it, whatever the size of the grid.
const BLOCK_RUNS: usize = 4096;

/// Runs the configurations at `positions`, `job` making the run of a position and a seed, on
/// `threads` threads (0: every core). Each configuration runs its seeds of `seeds`: with
/// `auto`, `base` alone when its first run cannot depend on the seed ([`Seeds::replicates`]),
/// [`Seeds::AUTO`] seeds from `base` when it can. `done` has each configuration's runs, by seed,
/// in the order of the positions. Returns the position reached: the configurations before it
/// are done; fewer than all when `stop` was set (runs of an unfinished configuration are lost).
pub fn run_configurations<'a, E: From<SettingsError>>(
    positions: Range<usize>,
    seeds: &Seeds,
    base: u64,
    threads: usize,
    stop: &AtomicBool,
    job: &dyn Fn(usize, u64) -> Result<Job<'a>, E>,
    done: &mut dyn FnMut(usize, Vec<(Job<'a>, RunMetrics)>) -> Result<(), E>,
) -> Result<usize, E> {
    let (first, rest) = seeds.split(base);
    let per_block = (BLOCK_RUNS / (first.len() + rest.len())).max(1);
    let mut at = positions.start;
    while at < positions.end {
        let block = at..positions.end.min(at + per_block);
        let mut runs: Vec<Vec<(Job<'a>, RunMetrics)>> = Vec::with_capacity(block.len());
        // Every configuration of the block on its first seeds.
        let jobs = block
            .clone()
            .flat_map(|p| first.iter().map(move |&seed| (p, seed)))
            .map(|(p, seed)| job(p, seed))
            .collect::<Result<Vec<_>, E>>()?;
        let mut metrics = Vec::with_capacity(jobs.len());
        run_jobs(&jobs, threads, false, stop, &mut |_, result| {
            metrics.push(result.metrics);
            Ok::<(), E>(())
        })?;
        let mut jobs = jobs.into_iter();
        for chunk in metrics.chunks(first.len()).filter(|c| c.len() == first.len()) {
            runs.push(jobs.by_ref().take(first.len()).zip(chunk.iter().cloned()).collect());
        }
        // The other seeds of each, by the one rule (those whose first run drew, with `auto`).
        let extra: Vec<(usize, Job<'a>)> = runs
            .iter()
            .enumerate()
            .flat_map(|(k, r)| {
                let (first_job, first_run) = &r[0];
                let all = seeds.of(base, first_job.scenario, &first_job.settings, first_run);
                all.into_iter().skip(first.len()).map(move |seed| (k, seed))
            })
            .map(|(k, seed)| job(block.start + k, seed).map(|j| (k, j)))
            .collect::<Result<Vec<_>, E>>()?;
        let extra_jobs: Vec<Job<'a>> = extra.iter().map(|(_, j)| j.clone()).collect();
        let mut whole = runs.len();
        let ran = run_jobs(&extra_jobs, threads, false, stop, &mut |k, result| {
            runs[extra[k].0].push((extra[k].1.clone(), result.metrics));
            Ok::<(), E>(())
        })?;
        if let Some((k, _)) = extra.get(ran) {
            // The first configuration some of whose seeds did not run, and those after it.
            whole = whole.min(*k);
        }
        for (k, r) in runs.into_iter().take(whole).enumerate() {
            done(block.start + k, r)?;
        }
        at = block.start + whole;
        if whole < block.len() {
            break;
        }
    }
    Ok(at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;
    use crate::scenario::parse_scenario;
    use crate::settings::RunSettings;
    use ctxbench_compact::compact::Strategy;

    fn scenario(seeded: bool) -> Scenario {
        let text = include_str!("../../../../scenarios/unfetchable-facts.json");
        let mut s = parse_scenario(text, "unfetchable-facts.json", 0).expect("valid");
        s.seeded = seeded;
        s
    }

    /// Each configuration's seeds: `auto` replicates only the ones that draw; a list, all.
    #[test]
    fn auto_replicates_what_draws_and_a_list_everything() {
        let plain = scenario(false);
        let strategies: Vec<Strategy> = ["none", "summarize", "drop"]
            .iter()
            .map(|s| s.parse().expect("valid"))
            .collect();
        let job = |p: usize, seed: u64| -> Result<Job<'_>, SettingsError> {
            Ok(Job {
                scenario: &plain,
                settings: RunSettings {
                    seed,
                    ..RunSettings::new(strategies[p].clone()).resolved(&plain)?
                },
            })
        };
        let stop = AtomicBool::new(false);
        let mut seen: Vec<(usize, Vec<u64>)> = Vec::new();
        let reached = run_configurations(0..3, &Seeds::Auto, 5, 2, &stop, &job, &mut |p, runs| {
            seen.push((p, runs.iter().map(|(j, _)| j.settings.seed).collect()));
            Ok::<(), SettingsError>(())
        })
        .expect("runs");
        assert_eq!(reached, 3);
        let twenty: Vec<u64> = (5..5 + Seeds::AUTO as u64).collect();
        assert_eq!(seen, vec![(0, vec![5]), (1, twenty), (2, vec![5])]);

        seen.clear();
        let list = Seeds::List(vec![1, 2]);
        run_configurations(1..3, &list, 0, 1, &stop, &job, &mut |p, runs| {
            seen.push((p, runs.iter().map(|(j, _)| j.settings.seed).collect()));
            Ok::<(), SettingsError>(())
        })
        .expect("runs");
        assert_eq!(seen, vec![(1, vec![1, 2]), (2, vec![1, 2])]);

        // A seeded scenario replicates every configuration; a stop before the start runs none.
        let padded = scenario(true);
        let job = |_: usize, seed: u64| -> Result<Job<'_>, SettingsError> {
            Ok(Job {
                scenario: &padded,
                settings: RunSettings {
                    seed,
                    ..RunSettings::new(Strategy::none()).resolved(&padded)?
                },
            })
        };
        seen.clear();
        run_configurations(0..1, &Seeds::Auto, 0, 2, &stop, &job, &mut |p, runs| {
            seen.push((p, runs.iter().map(|(j, _)| j.settings.seed).collect()));
            Ok::<(), SettingsError>(())
        })
        .expect("runs");
        assert_eq!(seen[0].1.len(), Seeds::AUTO);
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let reached = run_configurations(0..3, &Seeds::Auto, 0, 2, &stop, &job, &mut |_, _| {
            panic!("nothing runs after a stop")
        })
        .expect("stops");
        assert_eq!(reached, 0);
    }
}
