//! The flags that say what ranks the runs and over how many seeds, declared once for `compare`
//! and `sweep` (which picks each scenario's best by the verdicts' own rule), and read in one
//! place: the objective needs to know whether the runs are priced, the seeds start at `--seed`.

use clap::Args;
use ctxbench_harness::engine::Seeds;
use ctxbench_harness::verdict::Objective;

use super::values::{decimal, fact_cost};

/// What ranks the runs and how many seeds each configuration runs.
#[derive(Debug, Args)]
pub struct VerdictArgs {
    /// What ranks the configurations, and so which is best: keys tried in order, from facts,
    /// cost, tokens and calls [default: facts,cost; facts,tokens with --price none; cost with
    /// --fact-cost].
    #[arg(long, value_name = "LIST")]
    pub objective: Option<String>,

    /// Dollars a lost fact costs: ranks by cost + this × facts lost.
    #[arg(long, value_name = "DOLLARS", value_parser = fact_cost)]
    pub fact_cost: Option<f64>,

    /// Two configurations tie on a key when their 95% intervals overlap or their means differ by
    /// less than this fraction; a tie passes to the next key, then to the simpler strategy.
    #[arg(long, default_value_t = Objective::DEFAULT_TIE, value_name = "FRACTION", value_parser = decimal)]
    pub tie: f64,

    /// Seeds per configuration: auto (a configuration whose figures cannot vary with the seed
    /// runs once, any other 20 seeds from --seed), a count N from --seed, or a range A..B (both
    /// ends in).
    #[arg(long, default_value = "auto", value_name = "auto|N|A..B")]
    pub seeds: String,
}

impl VerdictArgs {
    /// The objective, for runs `priced` or not (`--price none`).
    pub fn objective(&self, priced: bool) -> anyhow::Result<Objective> {
        Objective::resolve(self.objective.as_deref(), priced, self.fact_cost, self.tie).map_err(anyhow::Error::msg)
    }

    /// The seeds, counted from `base` (`--seed`).
    pub fn seeds(&self, base: u64) -> anyhow::Result<Seeds> {
        Seeds::parse(&self.seeds, base).map_err(anyhow::Error::msg)
    }
}
