//! What `sweep` runs: a grid's configurations over scenarios (scenario outermost, then the
//! layout), whole or one shard's slice, each configuration on the seeds the one rule gives it
//! ([`Seeds::of`]), its rows handed over whole and in order so that a partial file only ever
//! holds whole configurations, and a resumed sweep checked against what it plans.

use std::sync::atomic::AtomicBool;

use super::grid::run_configurations;
use super::jobs::{Job, load_all};
use super::resume::ResumeError;
use crate::metrics::RunMetrics;
use crate::row::ResultRow;
use crate::scenario::Scenario;
use crate::seeds::Seeds;
use crate::settings::{RunSettings, SettingsError};
use crate::sweep::{Layout, Plan, Shard};

/// A grid to run: its layout, the seeds, the shard (if one), the threads.
pub struct Sweep<'a> {
    /// The settings of the grid, one scenario's worth.
    pub layout: &'a Layout,
    /// The seeds (`--seeds`).
    pub seeds: &'a Seeds,
    /// The first seed (`--seed`).
    pub base: u64,
    /// The slice this process runs; `None`: the whole grid.
    pub shard: Option<Shard>,
    /// Threads (0: every core).
    pub threads: usize,
}

/// The scenarios a sweep runs on, sorted by name, for each seed a run may have: the first seed's
/// alone when no scenario's text depends on the seed.
pub struct Loaded {
    seeds: Vec<u64>,
    scenarios: Vec<Vec<Scenario>>,
    plan: Option<Plan>,
    layout_len: usize,
}

impl Loaded {
    /// The scenarios (the first seed's).
    pub fn scenarios(&self) -> &[Scenario] {
        &self.scenarios[0]
    }

    /// Configurations in the whole grid.
    pub fn grid_size(&self) -> usize {
        self.scenarios[0].len() * self.layout_len
    }

    /// Configurations this process runs: the shard's slice, or the whole grid.
    pub fn planned(&self) -> usize {
        self.plan.as_ref().map_or(self.grid_size(), Plan::len)
    }

    /// The shard's share of the estimated work and the largest shard over the smallest; `None`
    /// for a whole sweep.
    pub fn share(&self) -> Option<(f64, f64)> {
        self.plan.as_ref().map(Plan::share)
    }
}

/// What a sweep ran.
#[derive(Debug, Default)]
pub struct Swept {
    /// Configurations done (those resumed among them); fewer than planned when stopped.
    pub done: usize,
    /// Runs made now.
    pub runs: usize,
    /// Configurations run now that ran more than one seed.
    pub replicated: usize,
}

impl Sweep<'_> {
    /// The scenarios of every seed a run may have (`load` gives a seed's, sorted here by name):
    /// padding each seed's text is most of the work, so on the threads. `None` when stopped
    /// while loading.
    pub fn load<E: Send>(
        &self,
        load: &(dyn Fn(u64) -> Result<Vec<Scenario>, E> + Sync),
        stop: &AtomicBool,
    ) -> Result<Option<Loaded>, E> {
        let sorted = |seed: u64| -> Result<Vec<Scenario>, E> {
            let mut scenarios = load(seed)?;
            scenarios.sort_by(|a, b| a.name.cmp(&b.name));
            Ok(scenarios)
        };
        let all = self.seeds.list(self.base);
        let mut scenarios = vec![sorted(all[0])?];
        let seeds = if scenarios[0].iter().any(|s| s.seeded) {
            all
        } else {
            vec![all[0]]
        };
        match load_all(&sorted, &seeds[1..], self.threads, stop)? {
            Some(more) => scenarios.extend(more),
            None => return Ok(None),
        }
        // A shard's slice balanced by the scenarios' estimated work.
        let plan = self.shard.map(|s| {
            let work: Vec<u64> = scenarios[0].iter().map(Scenario::work).collect();
            Plan::new(s, &work, self.layout.len())
        });
        Ok(Some(Loaded {
            seeds,
            scenarios,
            plan,
            layout_len: self.layout.len(),
        }))
    }

    /// The first scenario some setting of the grid does not resolve on (its file), and why.
    pub fn unresolved<'l>(&self, loaded: &'l Loaded) -> Option<(&'l str, SettingsError)> {
        let probes = self.layout.probes();
        loaded.scenarios().iter().find_map(|scenario| {
            let e = probes.iter().find_map(|probe| probe.resolved(scenario).err())?;
            Some((scenario.path.as_str(), e))
        })
    }

    /// The `j`th configuration this process runs, with a seed: its scenario (loaded with the
    /// seed) and settings.
    fn job<'l>(&self, loaded: &'l Loaded, j: usize, seed: u64) -> Result<Job<'l>, SettingsError> {
        let k = loaded.plan.as_ref().map_or(j, |p| p.index(j));
        let copy = loaded.seeds.iter().position(|&s| s == seed).unwrap_or(0);
        let scenario = &loaded.scenarios[copy][k / self.layout.len()];
        let settings = RunSettings {
            seed,
            ..self.layout.config(k % self.layout.len()).resolved(scenario)?
        };
        Ok(Job { scenario, settings })
    }

    /// Whether the rows a partial file holds for the `j`th configuration are the ones this sweep
    /// plans: `Ok(true)` whole, `Ok(false)` cut short (only the last may be); refused when they
    /// are another configuration's, or more seeds than it runs.
    pub fn check_resumed(&self, loaded: &Loaded, j: usize, rows: &[ResultRow]) -> Result<bool, ResumeError> {
        let first = self.job(loaded, j, rows[0].settings.seed)?;
        let expected = self
            .seeds
            .of(self.base, first.scenario, &first.settings, &rows[0].metrics);
        let seeds: Vec<u64> = rows.iter().map(|r| r.settings.seed).collect();
        if rows[0].scenario != first.scenario.name
            || rows[0].settings != first.settings
            || (seeds != expected && seeds.len() >= expected.len())
        {
            return Err(ResumeError::Other {
                file: String::new(),
                configuration: j + 1,
                scenario: rows[0].scenario.clone(),
                strategy: rows[0].settings.strategy.to_string(),
            });
        }
        Ok(seeds == expected)
    }

    /// Runs the configurations from `resumed` to the last planned, each on its seeds, handing
    /// each one's rows, by seed, to `take` as it is done (in order, whatever the threads). After a
    /// stop the runs under way finish and no new one starts; `done` then says how far it got.
    pub fn run<E: From<SettingsError>>(
        &self,
        loaded: &Loaded,
        resumed: usize,
        stop: &AtomicBool,
        take: &mut dyn FnMut(Vec<ResultRow>) -> Result<(), E>,
    ) -> Result<Swept, E> {
        let mut swept = Swept::default();
        let job = |j: usize, seed: u64| self.job(loaded, j, seed).map_err(E::from);
        swept.done = run_configurations(
            resumed..loaded.planned(),
            self.seeds,
            self.base,
            self.threads,
            stop,
            &job,
            &mut |_, ran: Vec<(Job<'_>, RunMetrics)>| {
                swept.runs += ran.len();
                swept.replicated += usize::from(ran.len() > 1);
                let rows = ran
                    .into_iter()
                    .map(|(job, metrics)| ResultRow::new(&job.scenario.name, job.settings, metrics))
                    .collect();
                take(rows)
            },
        )?;
        Ok(swept)
    }
}
