//! Jobs on threads: each result handed over in the jobs' order whatever the threads, so that the
//! same seeds give the same bytes; a stop (Ctrl-C) lets the runs under way finish and starts no
//! other.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::run::{RunResult, run_scenario};
use crate::scenario::Scenario;
use crate::settings::{RunSettings, SettingsError};

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
