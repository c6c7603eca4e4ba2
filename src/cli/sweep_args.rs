//! The flags of `ctxbench sweep`, and the grid they make.

use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::Args;
use ctxbench_compact::compact::parse_strategy_list;
use ctxbench_compact::policy::Policy;
use ctxbench_harness::settings::{RunSettings, parse_estimator, spell_strategies};
use ctxbench_harness::sweep::{Grid, Objective, parse_decimals, parse_integers};

use super::scenarios::ScenarioArgs;
use super::settings_args::ServerArgs;

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

    /// Windows in tokens (list or range); default: each scenario's own.
    #[arg(long, value_name = "LIST")]
    pub(super) window: Option<String>,

    /// Thresholds: a value, a list, or start:end:step.
    #[arg(long, default_value_t = Policy::DEFAULT_THRESHOLD.to_string(), value_name = "RANGE")]
    pub(super) threshold: String,

    /// Targets (low watermarks, fractions of the window): a value, a list, or start:end:step;
    /// default: each threshold. Targets above a threshold are left out of its configurations.
    #[arg(long, value_name = "RANGE")]
    pub(super) target: Option<String>,

    /// keep_recent_turns values: a value, a list, or a range such as 1..4.
    #[arg(long, default_value_t = Policy::DEFAULT_KEEP.to_string(), value_name = "RANGE")]
    pub(super) keep: String,

    /// Reply reserves in tokens.
    #[arg(long, default_value_t = Policy::DEFAULT_REPLY_RESERVE.to_string(), value_name = "LIST")]
    pub(super) reply_reserve: String,

    /// Estimators, comma-separated: chars4, chars4-py, o200k, cl100k, usage.
    #[arg(long, default_value_t = RunSettings::DEFAULT_ESTIMATOR.to_string(), value_name = "LIST")]
    pub(super) estimator: String,

    /// A stage parameter's values, repeatable: `mask.m=5,10,20`.
    #[arg(long, value_name = "STAGE.KEY=VALUES")]
    pub(super) param: Vec<String>,

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

    /// What "best" means, by the rule `compare` ranks with: keys tried in order, from facts,
    /// cost, tokens and calls [default: facts,cost; facts,tokens with --price none].
    #[arg(long, value_name = "LIST")]
    pub(super) objective: Option<String>,

    /// Dollars a lost fact costs: ranks by cost + this × facts lost.
    #[arg(long, value_name = "DOLLARS", value_parser = super::values::fact_cost)]
    pub(super) fact_cost: Option<f64>,

    /// Two configurations tie on a key when their 95% intervals overlap or their means differ by
    /// less than this fraction.
    #[arg(long, default_value_t = Objective::DEFAULT_TIE, value_name = "FRACTION", value_parser = super::values::decimal)]
    pub(super) tie: f64,

    #[arg(long, default_value = "auto", value_name = super::help::SEEDS_VALUE, help = super::help::SEEDS_HELP)]
    pub(super) seeds: String,

    /// Threads; default: every core.
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
        let windows = match &self.window {
            Some(w) => parse_integers(w).context("--window")?.into_iter().map(Some).collect(),
            None => vec![None],
        };
        let estimators = self
            .estimator
            .split(',')
            .map(|e| parse_estimator(e.trim()).map_err(|e| anyhow::anyhow!("--estimator: {e}")))
            .collect::<anyhow::Result<Vec<_>>>()?;
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
        let base = self.server.settings(strategies[0].clone());
        Ok(Grid {
            strategies,
            windows,
            thresholds: parse_decimals(&self.threshold).context("--threshold")?,
            targets: match &self.target {
                Some(t) => {
                    let targets = parse_decimals(t).context("--target")?;
                    if let Some(bad) = targets.iter().find(|t| !(**t > 0.0 && **t <= 1.0)) {
                        bail!("--target {bad}: the target must be in (0, threshold], a fraction of the window");
                    }
                    targets.into_iter().map(Some).collect()
                }
                None => vec![None],
            },
            keeps: parse_integers(&self.keep)
                .context("--keep")?
                .into_iter()
                .map(|k| k as usize)
                .collect(),
            reserves: parse_integers(&self.reply_reserve).context("--reply-reserve")?,
            estimators,
            params,
            base,
        })
    }
}
