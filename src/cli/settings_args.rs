//! The flags that make a run's settings, in groups the commands share, each flag's default read
//! from the settings themselves ([`RunSettings`], [`Policy`]): `compare`, `run` and `gate` take
//! [`SettingsArgs`]; `sweep` takes lists of the policy's values and the [`ServerArgs`];
//! `compact` takes the [`PolicyArgs`] and a [`TokenizerArg`].

use clap::{Args, ValueEnum};
use ctxbench_compact::compact::Strategy;
use ctxbench_compact::policy::Policy;
use ctxbench_compact::tokens::{CounterKind, Estimator};
use ctxbench_harness::settings::{OnOverflow, Overflow, RunSettings, parse_estimator, parse_tokenizer};

/// How a configuration is run.
#[derive(Debug, Args)]
pub struct SettingsArgs {
    /// Context window in tokens; overrides the scenario's.
    #[arg(long, value_name = "TOKENS")]
    pub window: Option<u64>,

    #[command(flatten)]
    pub policy: PolicyArgs,

    #[command(flatten)]
    pub server: ServerArgs,
}

impl SettingsArgs {
    /// The settings of one strategy.
    pub fn settings(&self, strategy: Strategy) -> RunSettings {
        let p = &self.policy;
        RunSettings {
            window: self.window,
            threshold: p.threshold,
            keep_recent_turns: p.keep_recent_turns,
            reply_reserve: p.reply_reserve,
            estimator: p.estimator,
            ..self.server.settings(strategy)
        }
    }
}

/// When to compact and what to decide with.
#[derive(Debug, Args)]
pub struct PolicyArgs {
    /// Compact once the estimate passes this fraction of the window.
    #[arg(long, default_value_t = Policy::DEFAULT_THRESHOLD, value_name = "FRACTION")]
    pub threshold: f64,

    /// Never touch the last N user requests, nor anything after them.
    #[arg(long = "keep", default_value_t = Policy::DEFAULT_KEEP, value_name = "N")]
    pub keep_recent_turns: usize,

    /// Tokens kept free for the reply; the limit is at most window − reserve.
    #[arg(long, default_value_t = Policy::DEFAULT_REPLY_RESERVE, value_name = "TOKENS")]
    pub reply_reserve: u64,

    /// What the compactor decides with: chars4, chars4-py, o200k, cl100k (and usage, where a
    /// provider reports counts).
    #[arg(long, default_value_t = RunSettings::DEFAULT_ESTIMATOR, value_parser = parse_estimator, value_name = "NAME")]
    pub estimator: Estimator,
}

/// What the server counts and bills with.
#[derive(Debug, Args)]
pub struct TokenizerArg {
    /// What the provider counts and bills with: o200k or cl100k.
    #[arg(long, default_value_t = RunSettings::DEFAULT_TOKENIZER, value_parser = parse_tokenizer, value_name = "NAME")]
    pub tokenizer: CounterKind,
}

/// The simulated server and the loop around the strategy.
#[derive(Debug, Args)]
pub struct ServerArgs {
    #[command(flatten)]
    pub tokenizer: TokenizerArg,

    /// What the server does with a request over the window.
    #[arg(long, value_enum, default_value_t = OverflowArg::from(RunSettings::DEFAULT_OVERFLOW))]
    pub overflow: OverflowArg,

    /// What the loop does when the server rejects a request as too long.
    #[arg(long, value_enum, default_value_t = OnOverflowArg::from(RunSettings::DEFAULT_ON_OVERFLOW))]
    pub on_overflow: OnOverflowArg,

    /// Agent and refetch calls allowed per request; default: the scenario's (its steps plus needs).
    #[arg(long, value_name = "N")]
    pub max_turns: Option<usize>,

    /// Seed of every random draw (padding, summaries).
    #[arg(long, default_value_t = RunSettings::DEFAULT_SEED)]
    pub seed: u64,
}

impl ServerArgs {
    /// The defaults for `strategy`, with these flags.
    pub fn settings(&self, strategy: Strategy) -> RunSettings {
        RunSettings {
            tokenizer: self.tokenizer.tokenizer,
            overflow: self.overflow.into(),
            on_overflow: self.on_overflow.into(),
            max_turns: self.max_turns,
            seed: self.seed,
            ..RunSettings::new(strategy)
        }
    }
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

impl From<Overflow> for OverflowArg {
    fn from(value: Overflow) -> OverflowArg {
        match value {
            Overflow::Reject => OverflowArg::Reject,
            Overflow::Truncate => OverflowArg::Truncate,
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

impl From<OnOverflowArg> for OnOverflow {
    fn from(arg: OnOverflowArg) -> OnOverflow {
        match arg {
            OnOverflowArg::Abort => OnOverflow::Abort,
            OnOverflowArg::CompactRetry => OnOverflow::CompactRetry,
        }
    }
}

impl From<OnOverflow> for OnOverflowArg {
    fn from(value: OnOverflow) -> OnOverflowArg {
        match value {
            OnOverflow::Abort => OnOverflowArg::Abort,
            OnOverflow::CompactRetry => OnOverflowArg::CompactRetry,
        }
    }
}
