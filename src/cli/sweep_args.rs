//! The flags of `ctxbench sweep`, and the grid they make.

use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::Args;
use ctxbench_compact::compact::parse_strategy_list;
use ctxbench_harness::settings::{RunSettings, spell_strategies};
use ctxbench_harness::sweep::Grid;

use super::scenarios::ScenarioArgs;
use super::settings_args::{LoopArgs, PolicyArgs, ServerArgs, WindowArg};
use super::verdict_args::VerdictArgs;

/// Run a grid of configurations over scenarios, in parallel, and pick the best per scenario.
///
/// Every combination of the lists below is run on every scenario. Ranges include both ends:
/// `--threshold 0.5:0.95:0.05`, `--keep 1..4`, `--window 4000,8000,32000`. Rows are written as
/// they finish to results.csv.partial; the final results.csv is sorted, so it is the same
/// whatever the number of threads, and whether the sweep ran whole or in shards joined by
/// `ctxbench merge`.
#[derive(Debug, Args)]
#[command(
    after_help = super::help::with_stages("Example:\n  ctxbench sweep --strategies truncate+drop,mask+drop --threshold 0.5:0.95:0.05 --keep 1..4 --window 4000,8000\n  ctxbench sweep --strategies mask+drop --param mask.m=2,5,10 --shard 1/4 --out fleet   # writes fleet/shard-1-of-4/\n  ctxbench merge fleet   # once every shard is done")
)]
pub struct SweepArgs {
    #[command(flatten)]
    pub(super) scenarios: ScenarioArgs,

    #[arg(long, value_name = "LIST", default_value = "standard", hide_default_value = true,
          help = super::help::strategies_help("standard"))]
    pub(super) strategies: String,

    #[command(flatten)]
    pub(super) window: WindowArg,

    #[command(flatten)]
    pub(super) policy: PolicyArgs,

    /// A stage parameter's values, repeatable: `mask.m=5,10,20`.
    #[arg(long, value_name = "STAGE.KEY=VALUES")]
    pub(super) param: Vec<String>,

    #[command(flatten)]
    pub(super) agent_loop: LoopArgs,

    #[command(flatten)]
    pub(super) server: ServerArgs,

    /// Run only the i-th of n slices of the grid (1-based), balanced by the scenarios' sizes,
    /// into OUT/shard-I-of-N/ (a shard done already is not run again); `auto` reads the slice
    /// from a scheduler: a Slurm job array (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT,
    /// SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_STEP) or a Kubernetes indexed Job (JOB_COMPLETION_INDEX,
    /// with --shards).
    /// `ctxbench merge OUT` joins the shards.
    #[arg(long, value_name = "I/N|auto")]
    pub(super) shard: Option<String>,

    /// How many shards, for `--shard auto` under a Kubernetes indexed Job (its completions).
    #[arg(long, value_name = "N", value_parser = super::values::positive::<usize>)]
    pub(super) shards: Option<usize>,

    #[command(flatten)]
    pub(super) verdict: VerdictArgs,

    /// Threads; default: every core. The results are the same whatever the number.
    #[arg(long, value_name = "N", value_parser = super::values::positive::<usize>)]
    pub(super) jobs: Option<usize>,

    /// Where to write results.csv, results.json, summary.md, index.html and plots/.
    #[arg(short, long, default_value = "reports", value_name = "DIR")]
    pub(super) out: PathBuf,

    /// Draw no charts (plots/ and the report's charts are left out).
    #[arg(long)]
    pub(super) no_plots: bool,

    /// Finish an interrupted sweep: keep the rows of DIR/results.csv.partial and run only the
    /// configurations it lacks (same flags as the interrupted run).
    #[arg(long)]
    pub(super) resume: bool,

    /// Run a grid of more than a million configurations (refused without it: a step too fine is
    /// the usual cause).
    #[arg(long)]
    pub(super) yes: bool,
}

/// The most configurations a sweep runs without `--yes`.
pub(super) const LARGE_GRID: usize = 1_000_000;

impl SweepArgs {
    pub(super) fn grid(&self) -> anyhow::Result<Grid> {
        let strategies = parse_strategy_list(&spell_strategies(&self.strategies)).context("invalid --strategies")?;
        let windows = match &self.window.window {
            Some(w) => w.list().iter().copied().map(Some).collect(),
            None => vec![None],
        };
        let mut params = Vec::new();
        for spec in &self.param {
            let parsed = spec.split_once('=').and_then(|(sk, v)| Some((sk.split_once('.')?, v)));
            let Some(((stage, key), values)) = parsed else {
                bail!("--param {spec:?}: expected STAGE.KEY=V1,V2 such as mask.m=5,10,20");
            };
            if !strategies.iter().any(|s| s.has_stage(stage)) {
                bail!("--param {spec:?}: no strategy in the sweep has a `{stage}` stage or is that preset");
            }
            params.push((
                stage.to_owned(),
                key.to_owned(),
                values.split(',').map(str::to_owned).collect(),
            ));
        }
        // The single-valued settings; the lists replace the rest.
        let base = self
            .server
            .apply(self.agent_loop.apply(RunSettings::new(strategies[0].clone())));
        let p = &self.policy;
        Ok(Grid {
            strategies,
            windows,
            thresholds: p.threshold.list().to_vec(),
            targets: match &p.target {
                Some(t) => {
                    if let Some(bad) = t.list().iter().find(|t| !(**t > 0.0 && **t <= 1.0)) {
                        bail!("--target {bad}: the target must be in (0, threshold], a fraction of the window");
                    }
                    t.list().iter().copied().map(Some).collect()
                }
                None => vec![None],
            },
            keeps: p.keep_recent_turns.list().to_vec(),
            reserves: p.reply_reserve.list().to_vec(),
            estimators: p.estimator.list().to_vec(),
            params,
            base,
        })
    }
}
