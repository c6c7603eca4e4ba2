//! The policy and counting flags every command shares (DESIGN §9).

use std::sync::Arc;

use anyhow::{Context, bail};
use clap::Args;
use ctxbench::{CounterKind, Policy, TokenCounter};

/// Window, threshold, protection and counters (`compact`).
#[derive(Debug, Args)]
pub struct PolicyArgs {
    /// The model's context window, in tokens.
    #[arg(long, value_name = "TOKENS")]
    pub window: u64,

    #[command(flatten)]
    pub limits: LimitArgs,
}

/// The flags every command shares, the window apart.
#[derive(Debug, Args)]
pub struct LimitArgs {
    /// Compact once the estimate passes this fraction of the window.
    #[arg(long, default_value_t = 0.8, value_name = "FRACTION")]
    pub threshold: f64,

    /// Never touch the last N user requests, nor anything after them.
    #[arg(long = "keep", default_value_t = 2, value_name = "N")]
    pub keep_recent_turns: usize,

    /// Tokens kept free for the reply; the limit is at most window − reserve.
    #[arg(long, default_value_t = 0, value_name = "TOKENS")]
    pub reply_reserve: u64,

    /// What the compactor decides with: chars4, chars4-py, o200k, cl100k (and usage, where a
    /// provider reports counts).
    #[arg(long, default_value = "chars4", value_name = "NAME")]
    pub estimator: String,

    /// What the provider counts and bills with: o200k or cl100k.
    #[arg(long, default_value = "o200k", value_name = "NAME")]
    pub tokenizer: String,
}

impl PolicyArgs {
    /// The validated policy.
    pub fn policy(&self) -> anyhow::Result<Policy> {
        let l = &self.limits;
        let policy = Policy {
            window: self.window,
            threshold: l.threshold,
            keep_recent_turns: l.keep_recent_turns,
            reply_reserve: l.reply_reserve,
        };
        policy.validate().context("invalid policy")?;
        Ok(policy)
    }

    /// The estimator named by `--estimator`.
    pub fn estimator(&self) -> anyhow::Result<Arc<dyn TokenCounter>> {
        if self.limits.estimator == "usage" {
            bail!(
                "--estimator usage reads the provider's count of an earlier call, which `compact` does not have; \
                 use chars4, chars4-py, o200k or cl100k"
            );
        }
        counter(&self.limits.estimator, "--estimator", &CounterKind::ALL)
    }

    /// The true counter named by `--tokenizer`.
    pub fn tokenizer(&self) -> anyhow::Result<Arc<dyn TokenCounter>> {
        counter(
            &self.limits.tokenizer,
            "--tokenizer",
            &[CounterKind::O200k, CounterKind::Cl100k],
        )
    }
}

fn counter(name: &str, flag: &str, allowed: &[CounterKind]) -> anyhow::Result<Arc<dyn TokenCounter>> {
    match CounterKind::parse(name).filter(|k| allowed.contains(k)) {
        Some(kind) => Ok(kind.counter()),
        None => {
            let names: Vec<&str> = allowed.iter().map(|k| k.as_str()).collect();
            bail!(
                "{flag} {name:?} is not a counter; expected one of: {}",
                names.join(", ")
            )
        }
    }
}
