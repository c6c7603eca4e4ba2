//! Flags shared by the commands that replay scenarios (`run`, `compare`): the policy, the
//! counters, the server's behaviour and the seed (DESIGN §9).

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use ctxbench::agent::OnOverflow;
use ctxbench::compact::Strategy;
use ctxbench::provider::Overflow;
use ctxbench::run::RunConfig;
use ctxbench::tokens::CounterKind;
use ctxbench::tokens::Estimator;

use super::policy_args::LimitArgs;

/// How a configuration is run.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Context window in tokens; overrides the scenario's.
    #[arg(long, value_name = "TOKENS")]
    pub window: Option<u64>,

    #[command(flatten)]
    pub limits: LimitArgs,

    /// What the server does with a request over the window.
    #[arg(long, value_enum, default_value_t = OverflowArg::Reject)]
    pub overflow: OverflowArg,

    /// What the loop does when the server rejects a request as too long.
    #[arg(long, value_enum, default_value_t = OnOverflowArg::Abort)]
    pub on_overflow: OnOverflowArg,

    /// Agent and refetch calls allowed per request; default: the scenario's (its steps plus needs).
    #[arg(long, value_name = "N")]
    pub max_turns: Option<usize>,

    /// Seed of every random draw (padding, summaries).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

/// `--overflow`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OverflowArg {
    /// Reject with a context-length error, as OpenAI does.
    Reject,
    /// Cut the oldest messages until it fits, as some local servers do.
    Truncate,
}

impl From<OverflowArg> for Overflow {
    fn from(arg: OverflowArg) -> Overflow {
        match arg {
            OverflowArg::Reject => Overflow::Reject,
            OverflowArg::Truncate => Overflow::Truncate,
        }
    }
}

/// `--on-overflow`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OnOverflowArg {
    /// Stop the run.
    Abort,
    /// Compact again with the true count and resend once.
    CompactRetry,
}

impl RunArgs {
    /// The run configuration for one strategy.
    pub fn config(&self, strategy: Strategy) -> anyhow::Result<RunConfig> {
        let l = &self.limits;
        let estimator = Estimator::parse(&l.estimator).with_context(|| {
            format!(
                "--estimator {:?} is not an estimator; expected chars4, chars4-py, o200k, cl100k or usage",
                l.estimator
            )
        })?;
        let tokenizer = match CounterKind::parse(&l.tokenizer) {
            Some(k @ (CounterKind::O200k | CounterKind::Cl100k)) => k,
            _ => bail!(
                "--tokenizer {:?} is not a tokenizer; expected o200k or cl100k",
                self.limits.tokenizer
            ),
        };
        let config = RunConfig {
            strategy,
            window: self.window,
            threshold: l.threshold,
            keep_recent_turns: l.keep_recent_turns,
            reply_reserve: l.reply_reserve,
            estimator,
            tokenizer,
            overflow: self.overflow.into(),
            on_overflow: match self.on_overflow {
                OnOverflowArg::Abort => OnOverflow::Abort,
                OnOverflowArg::CompactRetry => OnOverflow::CompactRetry,
            },
            max_turns: self.max_turns,
            seed: self.seed,
        };
        Ok(config)
    }
}
