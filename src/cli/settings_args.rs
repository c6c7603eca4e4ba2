//! The flags that make a run's settings, in groups the commands share, each flag declared once
//! with its default read from the settings themselves ([`RunSettings`], [`Policy`]): `compare`
//! and `run` take [`SettingsArgs`]; `sweep` takes its groups one by one, the [`WindowArg`] and
//! [`PolicyArgs`] as lists and ranges ([`Values`]); `serve` takes the [`WindowArg`] and the
//! [`ServerArgs`] (the client runs the loop); `compact` takes the [`PolicyArgs`] and a
//! [`TokenizerArg`]; a library enum's names are read by [`named`].

use clap::Args;

use super::values::{Values, decimals, names, positive, positives, retries, whole, wholes};
use ctxbench_compact::compact::{Retries, Strategy};
use ctxbench_compact::named::Named;
use ctxbench_compact::policy::Policy;
use ctxbench_compact::tokens::{CounterKind, Estimator};
use ctxbench_harness::agent::OnOverflow;
use ctxbench_harness::billing::cache_mode::CacheMode;
use ctxbench_harness::billing::price::Price;
use ctxbench_harness::settings::{RunSettings, parse_estimator, parse_tokenizer};
use ctxbench_harness::sim::latency::Latency;
use ctxbench_harness::sim::profile::{Behaviour, Summarizer};
use ctxbench_harness::sim::provider::Overflow;

/// How one configuration is run (`compare`, `run`).
#[derive(Debug, Args)]
pub struct SettingsArgs {
    #[command(flatten)]
    pub window: WindowArg,

    #[command(flatten)]
    pub policy: PolicyArgs,

    #[command(flatten)]
    pub agent_loop: LoopArgs,

    #[command(flatten)]
    pub server: ServerArgs,
}

impl SettingsArgs {
    /// The settings of one strategy, for `command`, which takes one value of each flag (a list
    /// is refused, in words that send it to `sweep`).
    pub fn settings(&self, command: &str, strategy: Strategy) -> anyhow::Result<RunSettings> {
        let p = self.policy.one(command)?;
        Ok(RunSettings {
            window: self.window.one(command)?,
            threshold: p.threshold,
            target: p.target,
            keep_recent_turns: p.keep_recent_turns,
            reply_reserve: p.reply_reserve,
            estimator: p.estimator,
            ..self.server.apply(self.agent_loop.apply(RunSettings::new(strategy)))
        })
    }
}

/// The context window, over the scenario's.
#[derive(Debug, Args)]
pub struct WindowArg {
    /// Context window in tokens; default: the scenario's own. `sweep` takes a list or range:
    /// 4000,8000,32000.
    #[arg(long, value_name = "TOKENS", value_parser = positives::<u64>("4000,8000,32000"))]
    pub window: Option<Values<u64>>,
}

impl WindowArg {
    /// The one window, for `command`; `None`: the scenario's.
    pub fn one(&self, command: &str) -> anyhow::Result<Option<u64>> {
        self.window.as_ref().map(|w| w.one(command)).transpose()
    }
}

/// When to compact and what to decide with.
#[derive(Debug, Args)]
pub struct PolicyArgs {
    /// Compact once the estimate passes this fraction of the window. `sweep` takes a list or a
    /// range start:end:step: 0.5:0.95:0.05.
    #[arg(long, default_value_t = Values::from(Policy::DEFAULT_THRESHOLD), value_name = "FRACTION",
          value_parser = decimals("0.5:0.95:0.05"))]
    pub threshold: Values<f64>,

    /// Once compacting, work down to this fraction of the window (a low watermark below the
    /// threshold, so that the prefix stays put longer); default: the threshold. `sweep` takes a
    /// list or range, and leaves a target above a threshold out of that threshold's runs.
    #[arg(long, value_name = "FRACTION", value_parser = decimals("0.4,0.6"))]
    pub target: Option<Values<f64>>,

    /// Never touch the last N user requests, nor anything after them. `sweep` takes a list or
    /// range: 1..4.
    #[arg(long = "keep", default_value_t = Values::from(Policy::DEFAULT_KEEP), value_name = "N",
          value_parser = wholes::<usize>("1..4"))]
    pub keep_recent_turns: Values<usize>,

    /// Tokens kept free for the reply; the limit is at most window − reserve. `sweep` takes a list
    /// or range: 0:2000:500.
    #[arg(long, default_value_t = Values::from(Policy::DEFAULT_REPLY_RESERVE), value_name = "TOKENS",
          value_parser = wholes::<u64>("0:2000:500"))]
    pub reply_reserve: Values<u64>,

    /// What the compactor decides with: chars4, chars4-py, o200k, cl100k (and usage, where a
    /// provider reports counts). `sweep` takes a list: chars4,o200k.
    #[arg(long, default_value_t = Values::from(RunSettings::DEFAULT_ESTIMATOR), value_name = "NAME",
          value_parser = names(|t| parse_estimator(t).map_err(|e| e.to_string()), "chars4,o200k"))]
    pub estimator: Values<Estimator>,
}

/// The policy flags' values for a command that takes one of each.
#[derive(Clone, Copy, Debug)]
pub struct OnePolicy {
    /// `--threshold`.
    pub threshold: f64,
    /// `--target`.
    pub target: Option<f64>,
    /// `--keep`.
    pub keep_recent_turns: usize,
    /// `--reply-reserve`.
    pub reply_reserve: u64,
    /// `--estimator`.
    pub estimator: Estimator,
}

impl PolicyArgs {
    /// The one value of each flag, for `command`; a list or range is refused.
    pub fn one(&self, command: &str) -> anyhow::Result<OnePolicy> {
        Ok(OnePolicy {
            threshold: self.threshold.one(command)?,
            target: self.target.as_ref().map(|t| t.one(command)).transpose()?,
            keep_recent_turns: self.keep_recent_turns.one(command)?,
            reply_reserve: self.reply_reserve.one(command)?,
            estimator: self.estimator.one(command)?,
        })
    }
}

/// The agent loop around the strategy (`serve`'s client runs its own).
#[derive(Debug, Args)]
pub struct LoopArgs {
    /// What the loop does when the server rejects a request as too long.
    #[arg(long, value_parser = named::<OnOverflow>(), default_value = RunSettings::DEFAULT_ON_OVERFLOW.as_str())]
    pub on_overflow: OnOverflow,

    /// Summary calls made again after a failed one, within one compaction (0 to 10). After three
    /// compactions failed in a row the compactor asks for no summary for ten calls; a failed
    /// compaction leaves the history as it was and the loop goes on.
    #[arg(long, value_name = "N", default_value_t = Retries::DEFAULT.retries, value_parser = retries)]
    pub compaction_retries: u32,

    /// Agent and refetch calls allowed per request; default: the scenario's (its steps plus needs).
    #[arg(long, value_name = "N", value_parser = positive::<usize>)]
    pub max_turns: Option<usize>,
}

impl LoopArgs {
    /// These flags over `settings`.
    pub fn apply(&self, settings: RunSettings) -> RunSettings {
        RunSettings {
            on_overflow: self.on_overflow,
            retries_per_compaction: self.compaction_retries,
            max_turns: self.max_turns,
            ..settings
        }
    }
}

/// What the server counts and bills with.
#[derive(Debug, Args)]
pub struct TokenizerArg {
    /// What the provider counts and bills with: o200k or cl100k.
    #[arg(long, default_value_t = RunSettings::DEFAULT_TOKENIZER, value_parser = parse_tokenizer, value_name = "NAME")]
    pub tokenizer: CounterKind,
}

/// The simulated server: what it counts with, what it does over the window, its draws and its
/// bill.
#[derive(Debug, Args)]
pub struct ServerArgs {
    #[command(flatten)]
    pub tokenizer: TokenizerArg,

    /// What the server does with a request over the window.
    #[arg(long, value_parser = named::<Overflow>(), default_value = RunSettings::DEFAULT_OVERFLOW.as_str())]
    pub overflow: Overflow,

    /// Seed of every random draw (padding, summaries, the model's behaviour).
    #[arg(long, default_value_t = RunSettings::DEFAULT_SEED, value_parser = whole::<u64>)]
    pub seed: u64,

    #[command(flatten)]
    pub profiles: ProfileArgs,

    #[command(flatten)]
    pub bill: BillArgs,
}

/// The behaviour profiles of the scripted model and its summarizer.
#[derive(Debug, Args)]
pub struct ProfileArgs {
    /// How the simulated summarizer keeps, alters and loses facts: a shipped profile
    /// (`ctxbench profiles` lists them), FILE.toml or FILE.toml#NAME.
    #[arg(long, default_value = Summarizer::DEFAULT, value_parser = |s: &str| s.parse::<Summarizer>(), value_name = "PROFILE")]
    pub summarizer: Summarizer,

    /// What the scripted model does when a fact it needs is gone: a shipped profile (`ctxbench
    /// profiles` lists them), FILE.toml or FILE.toml#NAME.
    #[arg(long, default_value = Behaviour::DEFAULT, value_parser = |s: &str| s.parse::<Behaviour>(), value_name = "PROFILE")]
    pub model_profile: Behaviour,
}

/// What the calls cost and how long they take.
#[derive(Debug, Args)]
pub struct BillArgs {
    /// What tokens cost: a model of the price table (`ctxbench prices` lists them), numbers
    /// `input=…,cache_read=…,cache_write=…,output=…` (dollars per million tokens), FILE.toml or
    /// FILE.toml#NAME, or none.
    #[arg(long, default_value = RunSettings::DEFAULT_PRICE, value_parser = parse_price, value_name = "PRICE")]
    pub price: PriceArg,

    /// The provider's prompt cache: none, prefix[:block=,min=,ttl=,output=] or
    /// breakpoints[:min=,ttl=,lookback=,write=]; default: the priced model's (none without a price).
    #[arg(long, value_parser = CacheMode::parse, value_name = "MODE")]
    pub cache: Option<CacheMode>,

    /// Seconds the user is idle before each request after the first; default: each request's own
    /// `idle_s` (30 when not set).
    #[arg(long = "idle", value_name = "SECONDS", value_parser = parse_seconds)]
    pub idle_s: Option<f64>,

    /// How long a model call takes: overhead=S,prefill=TOKENS_PER_S,decode=TOKENS_PER_S.
    #[arg(long, default_value_t = Latency::default(), value_parser = Latency::parse, value_name = "MODEL")]
    pub latency: Latency,
}

/// `--price`'s value: a price, or none (a newtype, so that clap keeps the `Option` as a value).
#[derive(Clone, Debug)]
pub struct PriceArg(pub Option<Price>);

/// Reads `--price`, a file's name from the disk.
fn parse_price(text: &str) -> Result<PriceArg, ctxbench_harness::billing::PriceError> {
    let read = |file: &str| {
        std::fs::read_to_string(file).map_err(|e| format!("{file}: {}", ctxbench_compact::input::io_words(&e)))
    };
    Price::parse(text, &read).map(PriceArg)
}

/// A number of seconds, 0 or more.
fn parse_seconds(text: &str) -> Result<f64, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .ok_or_else(|| format!("`{text}` is not a number of seconds (0 or more)"))
}

impl BillArgs {
    /// The cache: the one named, else the priced model's, else none.
    pub fn cache(&self) -> CacheMode {
        self.cache
            .clone()
            .unwrap_or_else(|| self.price.0.as_ref().map_or(CacheMode::None, |p| p.cache.clone()))
    }

    /// What to tell the user when numbers given as the price chose the cache: the cache, and how
    /// to turn it off.
    pub fn cache_note(&self) -> Option<String> {
        let price = self
            .price
            .0
            .as_ref()
            .filter(|p| p.name.is_none() && self.cache.is_none())?;
        (price.cache != CacheMode::None).then(|| {
            format!(
                "note: --price gives cache prices, so the server runs the cache they imply: {} (--cache none turns it off)",
                price.cache
            )
        })
    }

    /// These flags over `settings`: the price, and the cache it implies unless one is named.
    pub fn apply(&self, settings: RunSettings) -> RunSettings {
        RunSettings {
            price: self.price.0.clone().map(std::sync::Arc::new),
            cache: self.cache(),
            idle_s: self.idle_s,
            latency: self.latency,
            ..settings
        }
    }
}

impl ServerArgs {
    /// These flags over `settings`, the bill's with them.
    pub fn apply(&self, settings: RunSettings) -> RunSettings {
        self.bill.apply(RunSettings {
            tokenizer: self.tokenizer.tokenizer,
            overflow: self.overflow,
            seed: self.seed,
            summarizer: self.profiles.summarizer.clone(),
            model_profile: self.profiles.model_profile.clone(),
            ..settings
        })
    }
}

/// A flag whose values are a library enum's names ([`Named`]): `--overflow`, `--on-overflow`,
/// `--format`, `--api`. The names, what each means in `--help`, and the errors all come from
/// the enum's one declaration.
pub fn named<T: Named + Clone>() -> impl clap::builder::TypedValueParser<Value = T> {
    use clap::builder::TypedValueParser as _;
    let values = T::ALL
        .iter()
        .map(|v| clap::builder::PossibleValue::new(v.name()).help(v.help()));
    clap::builder::PossibleValuesParser::new(values).try_map(|name| T::from_name(&name).ok_or("not one of its names"))
}
