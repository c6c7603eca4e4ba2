//! The replicated run loop `compare` and `sweep` share: configurations × seeds, run on threads,
//! each result delivered in the order of the jobs whatever the threads, so that the same seeds
//! give the same bytes. Stopping (Ctrl-C) lets the runs under way finish and starts no other.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::metrics::RunMetrics;
use crate::run::{RunResult, run_scenario};
use crate::scenario::Scenario;
use crate::settings::{RunSettings, SettingsError};

/// Which seeds a configuration runs with (`--seeds`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seeds {
    /// As many as the figures need: once when nothing in the run can depend on the seed,
    /// [`Seeds::AUTO`] seeds from the base seed when something can.
    Auto,
    /// Exactly these seeds.
    List(Vec<u64>),
}

impl Seeds {
    /// Seeds a configuration with random draws runs by default.
    pub const AUTO: usize = 20;

    /// Parses `auto`, a count `N` (seeds from `--seed` on) or a range `A..B` (both ends in).
    pub fn parse(text: &str, base: u64) -> Result<Seeds, String> {
        let text = text.trim();
        if text == "auto" {
            return Ok(Seeds::Auto);
        }
        let bad = || format!("--seeds {text:?}: expected auto, a count such as 20, or a range such as 0..19");
        if let Some((a, b)) = text.split_once("..") {
            let (a, b): (u64, u64) = (
                a.trim().parse().map_err(|_| bad())?,
                b.trim().parse().map_err(|_| bad())?,
            );
            if a > b || b - a >= 100_000 {
                return Err(bad());
            }
            return Ok(Seeds::List((a..=b).collect()));
        }
        let n: u64 = text.parse().map_err(|_| bad())?;
        if n == 0 || n > 100_000 {
            return Err(bad());
        }
        Ok(Seeds::List((base..base.saturating_add(n)).collect()))
    }

    /// The seeds a configuration whose figures vary runs with.
    pub fn list(&self, base: u64) -> Vec<u64> {
        match self {
            Seeds::Auto => (base..base + Seeds::AUTO as u64).collect(),
            Seeds::List(list) => list.clone(),
        }
    }

    /// Whether a configuration that ran `first` on `scenario` runs the other seeds too: always
    /// with a list; with `auto`, when the scenario's text is seeded or the run drew at random
    /// (the scripted model draws only when it writes a summary).
    pub fn replicates(&self, scenario: &Scenario, first: &RunMetrics) -> bool {
        match self {
            Seeds::List(_) => true,
            Seeds::Auto => scenario.seeded || first.summarizer_calls > 0,
        }
    }
}

/// One run to make: a scenario (loaded with the seed) and its settings (resolved, seed set).
#[derive(Clone, Debug)]
pub struct Job<'a> {
    /// The scenario.
    pub scenario: &'a Scenario,
    /// The settings, the seed among them.
    pub settings: RunSettings,
}

/// Runs `jobs` on `threads` threads (0: every core), handing each result to `done` in the jobs'
/// order. Returns how many ran; fewer than all when `stop` was set.
pub fn run_jobs<E: From<SettingsError>>(
    jobs: &[Job<'_>],
    threads: usize,
    stop: &AtomicBool,
    done: &mut dyn FnMut(usize, RunResult) -> Result<(), E>,
) -> Result<usize, E> {
    let threads = if threads == 0 {
        std::thread::available_parallelism().map_or(1, usize::from)
    } else {
        threads
    };
    // Blocks keep memory bounded and let results out in order as they finish.
    let block = 64 * threads;
    let mut start = 0;
    while start < jobs.len() {
        if stop.load(Ordering::Relaxed) {
            return Ok(start);
        }
        let slice = &jobs[start..jobs.len().min(start + block)];
        let slots: Vec<Mutex<Option<Result<RunResult, SettingsError>>>> =
            slice.iter().map(|_| Mutex::new(None)).collect();
        let next = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..threads.min(slice.len()) {
                scope.spawn(|| {
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        if k >= slice.len() || stop.load(Ordering::Relaxed) {
                            break;
                        }
                        let job = &slice[k];
                        let result = run_scenario(job.scenario, &job.settings, &mut |_| {});
                        if let Ok(mut slot) = slots[k].lock() {
                            *slot = Some(result);
                        }
                    }
                });
            }
        });
        for (k, slot) in slots.into_iter().enumerate() {
            let result = slot.into_inner().ok().flatten();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_parse_as_counts_ranges_or_auto() {
        assert_eq!(Seeds::parse("auto", 0), Ok(Seeds::Auto));
        assert_eq!(Seeds::parse("3", 5), Ok(Seeds::List(vec![5, 6, 7])));
        assert_eq!(Seeds::parse("2..4", 0), Ok(Seeds::List(vec![2, 3, 4])));
        for bad in ["0", "x", "4..2", "-1"] {
            assert!(Seeds::parse(bad, 0).is_err_and(|e| e.contains("--seeds")), "{bad}");
        }
        assert_eq!(Seeds::Auto.list(7).len(), Seeds::AUTO);
        assert_eq!(Seeds::Auto.list(7)[0], 7);
    }
}
