//! One result row: a scenario × configuration (its key) and the run's figures (DESIGN §8).
//! CSV wants flat records, so a row is written as the key's columns followed by the figures'
//! columns, each defined once: [`RunKey`] here, [`RunMetrics`] in `metrics.rs`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::agent::OnOverflow;
use crate::metrics::RunMetrics;
use crate::policy::Policy;
use crate::provider::Overflow;
use crate::run::RunConfig;
use crate::scenario::Scenario;
use crate::tokens::CounterKind;
use crate::tokens::Estimator;

/// What identifies a row: the scenario and every setting the figures depend on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunKey {
    /// The scenario's name.
    pub scenario: String,
    /// The strategy's canonical name.
    pub strategy: String,
    /// Context window, tokens.
    pub window: u64,
    /// Threshold, a fraction of the window.
    pub threshold: f64,
    /// Requests protected at the end of the history.
    pub keep_recent_turns: usize,
    /// Tokens kept free for the reply.
    pub reply_reserve: u64,
    /// What the compactor decided with.
    pub estimator: String,
    /// What the provider counted and billed with.
    pub tokenizer: String,
    /// `reject` or `truncate`.
    pub overflow: String,
    /// `abort` or `compact-retry`.
    pub on_overflow: String,
    /// Agent and refetch calls per request; empty: the scenario's own.
    pub max_turns: Option<usize>,
    /// The seed.
    pub seed: u64,
}

impl RunKey {
    /// The configuration that produced this row, to run it again; the message says which
    /// column does not parse.
    pub fn config(&self) -> Result<RunConfig, String> {
        let bad = |column: &str, value: &str| format!("column {column}: {value:?} is not valid");
        let strategy = self.strategy.parse().map_err(|e| format!("column strategy: {e}"))?;
        let estimator = Estimator::parse(&self.estimator).ok_or_else(|| bad("estimator", &self.estimator))?;
        let tokenizer = CounterKind::parse(&self.tokenizer)
            .filter(|k| matches!(k, CounterKind::O200k | CounterKind::Cl100k))
            .ok_or_else(|| bad("tokenizer", &self.tokenizer))?;
        let overflow = Overflow::parse(&self.overflow).ok_or_else(|| bad("overflow", &self.overflow))?;
        let on_overflow = OnOverflow::parse(&self.on_overflow).ok_or_else(|| bad("on_overflow", &self.on_overflow))?;
        Ok(RunConfig {
            strategy,
            window: Some(self.window),
            threshold: self.threshold,
            keep_recent_turns: self.keep_recent_turns,
            reply_reserve: self.reply_reserve,
            estimator,
            tokenizer,
            overflow,
            on_overflow,
            max_turns: self.max_turns,
            seed: self.seed,
        })
    }
}

/// A row of `results.csv`: a configuration and its figures.
#[derive(Clone, Debug, PartialEq)]
pub struct ResultRow {
    /// The scenario and configuration.
    pub key: RunKey,
    /// The figures.
    pub metrics: RunMetrics,
}

impl ResultRow {
    /// The row of one run.
    pub fn new(scenario: &Scenario, config: &RunConfig, policy: &Policy, metrics: &RunMetrics) -> ResultRow {
        let key = RunKey {
            scenario: scenario.name.clone(),
            strategy: config.strategy.to_string(),
            window: policy.window,
            threshold: policy.threshold,
            keep_recent_turns: policy.keep_recent_turns,
            reply_reserve: policy.reply_reserve,
            estimator: config.estimator.to_string(),
            tokenizer: config.tokenizer.to_string(),
            overflow: config.overflow.to_string(),
            on_overflow: config.on_overflow.as_str().to_owned(),
            max_turns: config.max_turns,
            seed: config.seed,
        };
        ResultRow {
            key,
            metrics: metrics.clone(),
        }
    }

    /// The columns in order, key first: one flat JSON object.
    pub fn to_map(&self) -> Map<String, Value> {
        let mut map = match serde_json::to_value(&self.key) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        };
        if let Ok(Value::Object(figures)) = serde_json::to_value(&self.metrics) {
            map.extend(figures);
        }
        map
    }
}

impl Serialize for ResultRow {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_map().serialize(serializer)
    }
}
