//! Tuned candidates: each strategy run over a small grid of its trigger and target, and ranked at
//! its best, so that the cache-aware configurations (a cold trigger, a low watermark) are in
//! every verdict without anyone asking for them (`--no-tune` runs exactly what is given).

use std::sync::Arc;

use ctxbench_compact::compact::Strategy;

use crate::row::ResultRow;
use crate::settings::RunSettings;
use crate::verdict::{Config, Objective, SeedRuns, verdict};

/// Targets tried below the threshold (fractions of the window), besides the threshold itself.
pub const TARGETS: [f64; 2] = [0.6, 0.4];

/// The configurations `settings` is tuned over: its own first, then with every stage that has
/// a trigger set to `cold`, each at its target, then at each of [`TARGETS`] below its threshold.
/// `none`, presets (a compactor as its vendor runs it, on its own trigger) and strategies that
/// compact on no threshold are run as given.
pub fn variants(settings: &RunSettings) -> Vec<RunSettings> {
    let strategy = &settings.strategy;
    if strategy.is_none() || strategy.is_preset() {
        return vec![settings.clone()];
    }
    let mut strategies = vec![strategy.clone()];
    if let Some(cold) = cold(strategy) {
        strategies.push(cold.into());
    }
    let mut targets = vec![settings.target];
    let ceiling = settings.target.unwrap_or(settings.threshold);
    targets.extend(TARGETS.iter().filter(|&&t| t < ceiling).map(|&t| Some(t)));
    let mut out = Vec::with_capacity(strategies.len() * targets.len());
    for strategy in &strategies {
        for &target in &targets {
            out.push(RunSettings {
                strategy: strategy.clone(),
                target,
                ..settings.clone()
            });
        }
    }
    out
}

/// `strategy` with each stage's trigger set to `cold`, when it has a stage with a trigger not
/// already cold.
fn cold(strategy: &Strategy) -> Option<Strategy> {
    let mut tuned = strategy.clone();
    let names: Vec<&'static str> = strategy.stages.iter().map(|s| s.name()).collect();
    for name in names {
        // Stages without a trigger refuse the parameter: they stay as they are.
        let _ = tuned.set_param(name, "trigger", "cold");
    }
    (tuned.to_string() != strategy.to_string()).then_some(tuned)
}

/// Which of a strategy's variants to rank it by: the pick of their verdict over the seeds they
/// ran, paired as every verdict is (the first variant, the strategy as given, when none
/// qualifies). Each variant is its first seed's row in `firsts` and every seed's figures in
/// `runs`, of one scenario, in order.
pub fn choose(firsts: &[ResultRow], runs: &[Arc<SeedRuns>], objective: &Objective) -> usize {
    let Some(scenario) = firsts.first().map(|r| r.scenario.as_str()) else {
        return 0;
    };
    let configs: Vec<Config<'_>> = firsts
        .iter()
        .zip(runs)
        .map(|(first, runs)| Config::new(first, runs.clone()))
        .collect();
    let v = verdict(scenario, configs, objective);
    v.pick()
        .and_then(|p| firsts.iter().position(|r| r.settings == *p.settings()))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(strategy: &str) -> RunSettings {
        RunSettings::new(strategy.parse().expect("a strategy"))
    }

    fn names(v: &[RunSettings]) -> Vec<String> {
        v.iter()
            .map(|s| format!("{} @{:?}", s.strategy.brief(), s.target))
            .collect()
    }

    #[test]
    fn the_grid_is_the_trigger_and_the_target() {
        assert_eq!(names(&variants(&settings("none"))), ["none @None"]);
        assert_eq!(
            names(&variants(&settings("truncate+drop"))),
            [
                "truncate+drop @None",
                "truncate+drop @Some(0.6)",
                "truncate+drop @Some(0.4)",
                "truncate:trigger=cold+drop @None",
                "truncate:trigger=cold+drop @Some(0.6)",
                "truncate:trigger=cold+drop @Some(0.4)",
            ]
        );
        // A preset runs as its vendor runs it.
        assert_eq!(names(&variants(&settings("claude-code"))), ["claude-code @None"]);
        // drop has no trigger: only its targets.
        assert_eq!(names(&variants(&settings("drop"))).len(), 3);
        // Already cold: nothing to add but the targets; none above a low threshold.
        let low = RunSettings {
            threshold: 0.5,
            ..settings("mask:trigger=cold")
        };
        assert_eq!(
            names(&variants(&low)),
            ["mask:trigger=cold @None", "mask:trigger=cold @Some(0.4)"]
        );
    }
}
