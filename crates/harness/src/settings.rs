//! The run settings: everything a run depends on besides its scenario, as one value from the
//! command line to the row key of `results.csv` and back. Every default lives here (the policy's
//! in [`Policy`]); the key columns are its fields, in order.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use ctxbench_compact::compact::{Retries, Strategy};
use ctxbench_compact::policy::Policy;
use ctxbench_compact::tokens::{CounterKind, Estimator};
use ctxbench_compact::wire::Format;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::agent::OnOverflow;
use crate::billing::cache_mode::CacheMode;
use crate::billing::price::Price;
use crate::scenario::Scenario;
use crate::sim::latency::Latency;
use crate::sim::profile::{Behaviour, Summarizer};
use crate::sim::provider::Overflow;

/// The strategies `compare` and `sweep` run when none are named.
pub const STANDARD_STRATEGIES: [&str; 10] = [
    "none",
    "truncate",
    "drop",
    "truncate+drop",
    "summarize",
    "truncate+summarize",
    "mask",
    "mask+drop",
    "window",
    "clear-tool-uses",
];

/// The compactors people run that `compare` runs by default beside the standard strategies (its
/// `native` in a list): the defaults most agents run, chosen so that the bundled suite stays
/// under ten seconds on two cores. `ctxbench presets` lists every preset.
pub const NATIVE_DEFAULTS: [&str; 6] = [
    "claude-code",
    "codex",
    "anthropic-compact",
    "openai-compact",
    "langchain-summarization",
    "swe-agent-mask",
];

/// A list of strategies with its words spelt out: `standard` (the standard strategies), `native`
/// (the native defaults `compare` runs, [`NATIVE_DEFAULTS`]) and `presets` (every preset).
pub fn spell_strategies(list: &str) -> String {
    let every_preset: Vec<&str> = ctxbench_compact::compact::PRESETS.iter().map(|p| p.name).collect();
    list.split(',')
        .map(|piece| match piece.trim() {
            "standard" => STANDARD_STRATEGIES.join(","),
            "native" => NATIVE_DEFAULTS.join(","),
            "presets" => every_preset.join(","),
            _ => piece.to_owned(),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// Everything a run depends on besides the scenario; in a result row, the key after the
/// scenario's name, with the window the run had.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSettings {
    /// The strategy, by its canonical name; shared, not copied, by the rows of a run over
    /// many seeds.
    #[serde(with = "shared_text")]
    pub strategy: Arc<Strategy>,
    /// The context window in tokens; `None` takes the scenario's (a row always has one).
    pub window: Option<u64>,
    /// Compact once the estimate passes this fraction of the window.
    pub threshold: f64,
    /// Once compacting, work the estimate down to this fraction of the window; `None`: the
    /// threshold (a row always has one).
    #[serde(default)]
    pub target: Option<f64>,
    /// Requests protected at the end of the history.
    pub keep_recent_turns: usize,
    /// Tokens kept free for the reply.
    pub reply_reserve: u64,
    /// What the compactor decides with.
    #[serde(with = "text")]
    pub estimator: Estimator,
    /// What the server counts and bills with (an exact counter: `o200k` or `cl100k`).
    #[serde(with = "tokenizer")]
    pub tokenizer: CounterKind,
    /// What the server does with a request over the window.
    pub overflow: Overflow,
    /// What the loop does after a rejection.
    pub on_overflow: OnOverflow,
    /// Summary calls made again after a failed one (`--compaction-retries`); a results file
    /// written before it read as the default.
    #[serde(default = "default_retries")]
    pub retries_per_compaction: u32,
    /// Agent and refetch calls per request; `None` takes the scenario's.
    pub max_turns: Option<usize>,
    /// What tokens cost: a model of the price table, or numbers; `None` (`--price none`): cost
    /// is not computed.
    /// Shared, not copied: every row of a run over many seeds holds one (a copy was a fifth of
    /// a row's memory).
    #[serde(with = "price", default)]
    pub price: Option<Arc<Price>>,
    /// The prompt cache the server runs.
    #[serde(with = "text", default = "no_cache")]
    pub cache: CacheMode,
    /// Seconds between one request's end and the next one's start; `None` takes each request's
    /// own (`idle_s`, 30 by default).
    #[serde(default)]
    pub idle_s: Option<f64>,
    /// How long a model call takes.
    #[serde(with = "text", default)]
    pub latency: Latency,
    /// How the simulated summarizer keeps, alters and loses facts (`--summarizer`).
    #[serde(
        serialize_with = "text::serialize",
        deserialize_with = "profile_name::deserialize",
        default
    )]
    pub summarizer: Summarizer,
    /// What the scripted model does when a fact it needs is gone (`--model-profile`).
    #[serde(
        serialize_with = "text::serialize",
        deserialize_with = "profile_name::deserialize",
        default
    )]
    pub model_profile: Behaviour,
    /// The seed of every random draw.
    pub seed: u64,
    /// The conversation's label when an outside agent held it with `ctxbench serve` (the
    /// client's `user`, else `conversation-N`); `None` for the runs of ctxbench's own loop. A
    /// served run compacted as its client did: its strategy, policy and estimator columns are
    /// the defaults (the server compacts nothing), and its figures are what the client sent.
    /// A column only in the results of `serve`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// The wire format a served run spoke (its first call's route); `None` for the loop's own
    /// runs. A column only in the results of `serve`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<Format>,
}

/// The retries of a results file written before ctxbench retried: the default, which is what a
/// failed summary there would have been given now.
fn default_retries() -> u32 {
    Retries::DEFAULT.retries
}

/// The cache of a results file written before ctxbench had one (its columns absent): none, as
/// the runs that wrote it had. Their price is absent too, so `none`.
fn no_cache() -> CacheMode {
    CacheMode::None
}

/// Settings that cannot run a scenario; the message says what to do.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    /// Neither the settings nor the scenario give a window.
    #[error("{path}: the scenario sets no window; give one with --window")]
    NoWindow {
        /// The scenario's file.
        path: String,
    },
    /// The policy the settings make breaks a rule (a target above the threshold, a reserve as
    /// large as the window).
    #[error("invalid policy: {0}")]
    Policy(ctxbench_compact::policy::PolicyError),
}

impl RunSettings {
    /// The estimator when none is named.
    pub const DEFAULT_ESTIMATOR: Estimator = Estimator::Counter(CounterKind::Chars4);
    /// The server's counter when none is named.
    pub const DEFAULT_TOKENIZER: CounterKind = CounterKind::O200k;
    /// The counters a server may bill with.
    pub const TOKENIZERS: [CounterKind; 2] = [CounterKind::O200k, CounterKind::Cl100k];
    /// What the server does with a request over the window, when not said.
    pub const DEFAULT_OVERFLOW: Overflow = Overflow::Reject;
    /// What the loop does after a rejection, when not said.
    pub const DEFAULT_ON_OVERFLOW: OnOverflow = OnOverflow::Abort;
    /// The seed when none is given.
    pub const DEFAULT_SEED: u64 = 0;
    /// The price when none is given: OpenAI's current mid-size model, what most users of
    /// OpenAI-compatible endpoints run (README, "The real bill").
    pub const DEFAULT_PRICE: &str = "gpt-5.4-mini";

    /// The default price, with the cache it implies.
    pub fn default_price() -> Price {
        Price::named(RunSettings::DEFAULT_PRICE)
            .cloned()
            .unwrap_or_else(|| unreachable!("the default price is a model of prices.toml (tested)"))
    }

    /// The defaults, for a strategy.
    pub fn new(strategy: Strategy) -> RunSettings {
        RunSettings {
            strategy: Arc::new(strategy),
            window: None,
            threshold: Policy::DEFAULT_THRESHOLD,
            target: None,
            keep_recent_turns: Policy::DEFAULT_KEEP,
            reply_reserve: Policy::DEFAULT_REPLY_RESERVE,
            estimator: RunSettings::DEFAULT_ESTIMATOR,
            tokenizer: RunSettings::DEFAULT_TOKENIZER,
            overflow: RunSettings::DEFAULT_OVERFLOW,
            on_overflow: RunSettings::DEFAULT_ON_OVERFLOW,
            retries_per_compaction: Retries::DEFAULT.retries,
            max_turns: None,
            cache: RunSettings::default_price().cache,
            price: Some(Arc::new(RunSettings::default_price())),
            idle_s: None,
            latency: Latency::default(),
            summarizer: Summarizer::default(),
            model_profile: Behaviour::default(),
            seed: RunSettings::DEFAULT_SEED,
            run: None,
            format: None,
        }
    }

    /// The settings `ctxbench serve` runs a scenario's server with: these flags over the
    /// defaults of `strategy none` (the client compacts, not the server).
    pub fn served() -> RunSettings {
        RunSettings::new(Strategy::none())
    }

    /// The price each call is billed at: the price with the cache these settings run (a price
    /// file's cache rates apply to its own cache; see [`Price::for_cache`]).
    pub fn billed_price(&self) -> Option<Price> {
        self.price.as_ref().map(|p| p.for_cache(&self.cache))
    }

    /// The policy these settings give a scenario (the window from the settings, else the
    /// scenario's), checked.
    pub fn policy(&self, scenario: &Scenario) -> Result<Policy, SettingsError> {
        let Some(window) = self.window.or(scenario.window) else {
            return Err(SettingsError::NoWindow {
                path: scenario.path.clone(),
            });
        };
        let policy = Policy {
            window,
            threshold: self.threshold,
            target: self.target.filter(|t| *t != self.threshold),
            keep_recent_turns: self.keep_recent_turns,
            reply_reserve: self.reply_reserve,
        };
        policy.validate().map_err(SettingsError::Policy)?;
        Ok(policy)
    }

    /// How the compactor retries failed summary calls: `retries_per_compaction`, and the breaker's
    /// defaults ([`Retries::DEFAULT`]).
    pub fn retries(&self) -> Retries {
        Retries {
            retries: self.retries_per_compaction,
            ..Retries::DEFAULT
        }
    }

    /// These settings as they run `scenario`: its window filled in, the policy checked. The row
    /// key of that run.
    pub fn resolved(&self, scenario: &Scenario) -> Result<RunSettings, SettingsError> {
        let policy = self.policy(scenario)?;
        Ok(RunSettings {
            window: Some(policy.window),
            target: Some(self.target.unwrap_or(self.threshold)),
            ..self.clone()
        })
    }

    /// Whether `other` is these settings with another seed: the same configuration.
    pub fn same_but_seed(&self, other: &RunSettings) -> bool {
        // Every field named, so that a new one cannot be forgotten here.
        let RunSettings {
            strategy,
            window,
            threshold,
            target,
            keep_recent_turns,
            reply_reserve,
            estimator,
            tokenizer,
            overflow,
            on_overflow,
            retries_per_compaction,
            max_turns,
            price,
            cache,
            idle_s,
            latency,
            summarizer,
            model_profile,
            seed: _,
            run,
            format,
        } = self;
        *strategy == other.strategy
            && *window == other.window
            && *threshold == other.threshold
            && *target == other.target
            && *keep_recent_turns == other.keep_recent_turns
            && *reply_reserve == other.reply_reserve
            && *estimator == other.estimator
            && *tokenizer == other.tokenizer
            && *overflow == other.overflow
            && *on_overflow == other.on_overflow
            && *retries_per_compaction == other.retries_per_compaction
            && *max_turns == other.max_turns
            && *price == other.price
            && *cache == other.cache
            && *idle_s == other.idle_s
            && *latency == other.latency
            && *summarizer == other.summarizer
            && *model_profile == other.model_profile
            && *run == other.run
            && *format == other.format
    }

    /// The order rows are kept in after the scenario: every key column, numbers as numbers.
    pub fn order(&self, other: &RunSettings) -> Ordering {
        let (x, y) = (self, other);
        x.strategy
            .to_string()
            .cmp(&y.strategy.to_string())
            .then(x.window.cmp(&y.window))
            .then(x.threshold.total_cmp(&y.threshold))
            .then(
                x.target
                    .unwrap_or(x.threshold)
                    .total_cmp(&y.target.unwrap_or(y.threshold)),
            )
            .then(x.keep_recent_turns.cmp(&y.keep_recent_turns))
            .then(x.reply_reserve.cmp(&y.reply_reserve))
            .then_with(|| x.estimator.as_str().cmp(y.estimator.as_str()))
            .then_with(|| x.tokenizer.as_str().cmp(y.tokenizer.as_str()))
            .then_with(|| x.overflow.as_str().cmp(y.overflow.as_str()))
            .then_with(|| x.on_overflow.as_str().cmp(y.on_overflow.as_str()))
            .then(x.retries_per_compaction.cmp(&y.retries_per_compaction))
            .then(x.max_turns.cmp(&y.max_turns))
            .then_with(|| price_text(&x.price).cmp(&price_text(&y.price)))
            .then_with(|| x.cache.to_string().cmp(&y.cache.to_string()))
            .then(x.idle_s.unwrap_or(-1.0).total_cmp(&y.idle_s.unwrap_or(-1.0)))
            .then_with(|| x.latency.to_string().cmp(&y.latency.to_string()))
            .then_with(|| x.summarizer.0.name.cmp(&y.summarizer.0.name))
            .then_with(|| x.model_profile.0.name.cmp(&y.model_profile.0.name))
            .then(x.seed.cmp(&y.seed))
            .then_with(|| x.run.cmp(&y.run))
            .then_with(|| x.format.map(Format::as_str).cmp(&y.format.map(Format::as_str)))
    }
}

/// A name `--estimator` or `--tokenizer` does not know; the message says the names it could be.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Not an estimator's name.
    #[error(transparent)]
    Estimator(#[from] ctxbench_compact::tokens::UnknownEstimator),
    /// Not one of [`RunSettings::TOKENIZERS`].
    #[error("{name:?} is not a tokenizer; expected o200k or cl100k")]
    Tokenizer {
        /// The name given.
        name: String,
    },
}

/// Parses an estimator's name, with the names it could be in the message.
pub fn parse_estimator(name: &str) -> Result<Estimator, NameError> {
    Ok(name.parse()?)
}

/// Parses a server counter's name (`o200k` or `cl100k`).
pub fn parse_tokenizer(name: &str) -> Result<CounterKind, NameError> {
    CounterKind::parse(name)
        .filter(|k| RunSettings::TOKENIZERS.contains(k))
        .ok_or_else(|| NameError::Tokenizer { name: name.to_owned() })
}

/// A price as the settings spell it: `none`, a model's name, or its numbers.
pub fn price_text(price: &Option<Arc<Price>>) -> String {
    price.as_deref().map_or_else(|| "none".to_owned(), Price::to_string)
}

/// The price column: `none`, a model of the table, or the four numbers (a results file names no
/// file).
mod price {
    use super::*;

    pub fn serialize<S: Serializer>(value: &Option<Arc<Price>>, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&price_text(value))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Arc<Price>>, D::Error> {
        let text = String::deserialize(deserializer)?;
        let no_file = |file: &str| {
            Err(format!(
                "{file}: a results file spells a price by its name or its numbers"
            ))
        };
        let price = Price::parse(&text, &no_file).map_err(serde::de::Error::custom)?;
        Ok(price.map(Arc::new))
    }
}

/// A shared field written as its name and read back by parsing it, as [`text`].
mod shared_text {
    use super::*;

    pub use super::text::serialize;

    pub fn deserialize<'de, T, D>(deserializer: D) -> Result<Arc<T>, D::Error>
    where
        T: FromStr,
        T::Err: fmt::Display,
        D: Deserializer<'de>,
    {
        super::text::deserialize(deserializer).map(Arc::new)
    }
}

/// A field written as its name (`Display`) and read back by parsing it (`FromStr`).
mod text {
    use super::*;

    pub fn serialize<T: fmt::Display, S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(value)
    }

    pub fn deserialize<'de, T, D>(deserializer: D) -> Result<T, D::Error>
    where
        T: FromStr,
        T::Err: fmt::Display,
        D: Deserializer<'de>,
    {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// A profile column: its name (written as `text` writes it), read back as the shipped profile or
/// the user's file of that name, or, when the file is not here (a results file from elsewhere),
/// the name alone over the default's numbers: reading results never runs them.
mod profile_name {
    use super::*;
    use crate::sim::profile::Renamed;

    pub fn deserialize<'de, T, D>(deserializer: D) -> Result<T, D::Error>
    where
        T: FromStr + Default + Renamed,
        D: Deserializer<'de>,
    {
        let text = String::deserialize(deserializer)?;
        Ok(text.parse().unwrap_or_else(|_| T::default().renamed(&text)))
    }
}

/// The tokenizer column: an exact counter's name.
mod tokenizer {
    use super::*;

    pub fn serialize<S: Serializer>(value: &CounterKind, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(value.as_str())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<CounterKind, D::Error> {
        let text = String::deserialize(deserializer)?;
        parse_tokenizer(&text).map_err(serde::de::Error::custom)
    }
}
