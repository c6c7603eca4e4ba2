//! What a call costs: a model's four prices (input, cache read, cache write, output), from the
//! table shipped in `prices.toml`, a user's own file, or numbers on the command line.
//!
//! Prices are kept in picodollars per token (a price in dollars per million tokens, times a
//! million), so that every cost is an exact sum of whole numbers and the same run always prints
//! the same dollars.

use std::fmt;
use std::sync::LazyLock;

use serde::Deserialize;

use super::cache_mode::CacheMode;
use super::error::PriceError;
use crate::toml_words::toml_words;

/// The table that ships inside the crate.
const TABLE: &str = include_str!("../../prices.toml");

/// Picodollars in a dollar.
const PICO: f64 = 1e12;

/// A cost in picodollars as dollars.
pub fn dollars(picodollars: u128) -> f64 {
    picodollars as f64 / PICO
}

/// A cost in dollars as picodollars again, exactly for any call's cost (below $9,000).
pub fn picodollars(dollars: f64) -> u128 {
    (dollars * PICO).round().max(0.0) as u128
}

/// A price per token, in picodollars (10⁻¹² US dollars): $1 per million tokens is 1,000,000.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rate(pub u64);

impl Rate {
    /// A rate in dollars per million tokens, to the picodollar; `None` when negative or not
    /// finite.
    pub fn per_million(dollars: f64) -> Option<Rate> {
        (dollars.is_finite() && dollars >= 0.0).then(|| Rate((dollars * 1e6).round() as u64))
    }

    /// Parses a decimal price in dollars per million tokens (`0.075`), exactly.
    pub fn parse(text: &str) -> Option<Rate> {
        let text = text.trim();
        let (int, frac) = text.split_once('.').unwrap_or((text, ""));
        if int.is_empty() && frac.is_empty()
            || frac.len() > 6
            || !(int.bytes().chain(frac.bytes())).all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let int: u64 = if int.is_empty() { 0 } else { int.parse().ok()? };
        let frac: u64 = format!("{frac:0<6}").parse().ok()?;
        int.checked_mul(1_000_000)?.checked_add(frac).map(Rate)
    }

    /// What `tokens` tokens cost, in picodollars.
    pub fn times(self, tokens: u64) -> u128 {
        u128::from(self.0) * u128::from(tokens)
    }
}

impl fmt::Display for Rate {
    /// Dollars per million tokens, as short as exact (`0.075`, `2.5`, `15`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (int, frac) = (self.0 / 1_000_000, self.0 % 1_000_000);
        if frac == 0 {
            write!(f, "{int}")
        } else {
            let frac = format!("{frac:06}");
            write!(f, "{int}.{}", frac.trim_end_matches('0'))
        }
    }
}

/// A model's prices, and the cache its provider runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Price {
    /// The table's name for it; `None` for prices given as numbers (on the command line or in a
    /// user's file), which are spelled by their numbers.
    pub name: Option<String>,
    /// An input token not read from the cache nor written to it.
    pub input: Rate,
    /// An input token read from the cache.
    pub cache_read: Rate,
    /// An input token written to the cache; `None` (numbers given without it): the cache's
    /// write multiple of the input price (`breakpoints:write=1.25`), the input price under any
    /// other cache. See [`Price::for_cache`].
    pub cache_write: Option<Rate>,
    /// A reply token.
    pub output: Rate,
    /// The cache the provider runs (`none` for numbers given without one).
    pub cache: CacheMode,
    /// Where the figures come from and when they were checked (the shipped table's entries).
    pub source: Option<Source>,
}

/// Where a price table's entry comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// The provider (`OpenAI`).
    pub provider: String,
    /// The page the figures were read from, with how it was read.
    pub url: String,
    /// The date they were checked (`2026-12-03`).
    pub checked: String,
}

/// How a call's input tokens split, and its reply: what it is billed for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Billed {
    /// Input tokens neither read from nor written to the cache.
    pub uncached: u64,
    /// Input tokens read from the cache.
    pub cache_read: u64,
    /// Input tokens written to the cache (billed at the write price).
    pub cache_write: u64,
    /// Reply tokens.
    pub completion: u64,
}

impl Price {
    /// What a call costs, in picodollars.
    pub fn cost(&self, billed: &Billed) -> u128 {
        self.input.times(billed.uncached)
            + self.cache_read.times(billed.cache_read)
            + self.cache_write.unwrap_or(self.input).times(billed.cache_write)
            + self.output.times(billed.completion)
    }

    /// These prices as a run under `cache` bills them: a write price not given becomes the
    /// cache's write multiple of the input price.
    pub fn for_cache(&self, cache: &CacheMode) -> Price {
        let multiple = match cache {
            CacheMode::Breakpoints { write, .. } => *write,
            CacheMode::None | CacheMode::Prefix { .. } => 1.0,
        };
        Price {
            cache_write: Some(
                self.cache_write
                    .unwrap_or(Rate((self.input.0 as f64 * multiple).round() as u64)),
            ),
            ..self.clone()
        }
    }

    /// The table shipped with ctxbench, in its order.
    pub fn table() -> &'static [Price] {
        &TABLE_PRICES
    }

    /// The model of the shipped table named `name`.
    pub fn named(name: &str) -> Option<&'static Price> {
        Price::table().iter().find(|p| p.name.as_deref() == Some(name))
    }

    /// Reads `--price`: `none`, a model of the table, `FILE.toml` (its one model) or
    /// `FILE.toml#NAME`, or numbers `input=…,cache_read=…,cache_write=…,output=…` (dollars per
    /// million tokens; `cache_read` defaults to the input price, `cache_write` to the cache's
    /// write multiple of it).
    /// `read` reads a file by its name, its error in words ([`PriceError::Unread`]); the error
    /// says what to write instead.
    pub fn parse(text: &str, read: &dyn Fn(&str) -> Result<String, String>) -> Result<Option<Price>, PriceError> {
        let text = text.trim();
        if text == "none" {
            return Ok(None);
        }
        if text.contains('=') {
            return numbers(text).map(Some);
        }
        let (file, wanted) = match text.split_once('#') {
            Some((file, name)) => (file, Some(name)),
            None => (text, None),
        };
        if file.ends_with(".toml") {
            let source = read(file).map_err(PriceError::Unread)?;
            let prices = parse_table(&source, file)?;
            let found = match wanted {
                Some(name) => prices.into_iter().find(|p| p.name.as_deref() == Some(name)),
                None if prices.len() == 1 => prices.into_iter().next(),
                None => {
                    return Err(PriceError::Several {
                        file: file.to_owned(),
                        names: prices.iter().filter_map(|p| p.name.clone()).collect(),
                    });
                }
            };
            // A user's prices are spelled by their numbers, so that a results file says them.
            return found
                .map(|p| {
                    Some(Price {
                        name: None,
                        source: None,
                        ..p
                    })
                })
                .ok_or_else(|| PriceError::NoModel {
                    file: file.to_owned(),
                    name: wanted.unwrap_or("").to_owned(),
                });
        }
        Price::named(text)
            .cloned()
            .map(Some)
            .ok_or_else(|| PriceError::NotInTable {
                name: text.to_owned(),
                known: Price::table().iter().filter_map(|p| p.name.clone()).collect(),
            })
    }
}

impl fmt::Display for Price {
    /// The table's name, or the four numbers.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.name {
            Some(name) => f.write_str(name),
            None => {
                write!(f, "input={},cache_read={}", self.input, self.cache_read)?;
                if let Some(write) = self.cache_write {
                    write!(f, ",cache_write={write}")?;
                }
                write!(f, ",output={}", self.output)
            }
        }
    }
}

/// `input=…,cache_read=…,cache_write=…,output=…`.
fn numbers(text: &str) -> Result<Price, PriceError> {
    if let Some(separator) = [';', ' ', '&'].into_iter().find(|s| text.trim().contains(*s)) {
        return Err(PriceError::Separator {
            text: text.to_owned(),
            separator,
        });
    }
    let mut rates: [Option<Rate>; 4] = [None; 4];
    const KEYS: [&str; 4] = ["input", "cache_read", "cache_write", "output"];
    for part in text.split(',') {
        let (key, value) = part
            .split_once('=')
            .ok_or_else(|| PriceError::NotKeyValue { part: part.to_owned() })?;
        let k = KEYS
            .iter()
            .position(|k| *k == key.trim())
            .ok_or_else(|| PriceError::UnknownKey {
                key: key.trim().to_owned(),
            })?;
        rates[k] = Some(Rate::parse(value).ok_or_else(|| PriceError::NotARate {
            key: key.trim().to_owned(),
            value: value.trim().to_owned(),
        })?);
    }
    let [Some(input), cache_read, cache_write, Some(output)] = rates else {
        return Err(PriceError::Incomplete);
    };
    Ok(Price {
        name: None,
        input,
        cache_read: cache_read.unwrap_or(input),
        cache_write,
        output,
        cache: implied_cache(input, cache_read, cache_write),
        source: None,
    })
}

/// The cache that numbers given on their own imply: a read price runs the prefix cache (as
/// OpenAI's), and a write price above the input price the breakpoints cache (as Anthropic's,
/// its write multiple that price over the input); no read price, no cache.
fn implied_cache(input: Rate, cache_read: Option<Rate>, cache_write: Option<Rate>) -> CacheMode {
    match (cache_read, cache_write) {
        (None, _) => CacheMode::None,
        (Some(_), Some(write)) if write.0 > input.0 && input.0 > 0 => match CacheMode::BREAKPOINTS {
            CacheMode::Breakpoints {
                min, ttl_s, lookback, ..
            } => CacheMode::Breakpoints {
                min,
                ttl_s,
                lookback,
                write: (write.0 as f64 / input.0 as f64 * 1000.0).round() / 1000.0,
            },
            other => other,
        },
        (Some(_), _) => CacheMode::PREFIX,
    }
}

/// One entry of a price table, as TOML has it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    name: String,
    #[serde(default)]
    provider: Option<String>,
    input: f64,
    cache_read: f64,
    cache_write: f64,
    output: f64,
    #[serde(default)]
    cache: Option<String>,
    #[serde(default)]
    source: Option<String>,
    #[serde(default)]
    checked: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    model: Vec<Entry>,
}

/// Reads a price table in the format of `prices.toml` from `file` (named in its errors).
pub fn parse_table(text: &str, file: &str) -> Result<Vec<Price>, PriceError> {
    let table: Table = toml::from_str(text).map_err(|e| {
        let profiles = toml::from_str::<toml::Table>(text)
            .is_ok_and(|top| top.contains_key("summarizer") || top.get("model").is_some_and(toml::Value::is_table));
        if profiles {
            return PriceError::Profiles { file: file.to_owned() };
        }
        PriceError::Toml(toml_words(
            file,
            text,
            &e,
            "a price file holds [[model]] entries with name, input, cache_read, output (the layout of \
             crates/harness/prices.toml)",
        ))
    })?;
    table
        .model
        .into_iter()
        .map(|e| {
            let rate = |what: &'static str, value: f64| {
                Rate::per_million(value).ok_or_else(|| PriceError::NotAPrice {
                    model: e.name.clone(),
                    what,
                    value,
                })
            };
            let cache = match &e.cache {
                Some(spec) => CacheMode::parse(spec).map_err(|error| PriceError::Cache {
                    model: e.name.clone(),
                    error,
                })?,
                None => CacheMode::None,
            };
            let source = match (e.provider, e.source, e.checked) {
                (Some(provider), Some(url), Some(checked)) => Some(Source { provider, url, checked }),
                _ => None,
            };
            Ok(Price {
                input: rate("input", e.input)?,
                cache_read: rate("cache_read", e.cache_read)?,
                cache_write: Some(rate("cache_write", e.cache_write)?),
                output: rate("output", e.output)?,
                name: Some(e.name),
                cache,
                source,
            })
        })
        .collect()
}

static TABLE_PRICES: LazyLock<Vec<Price>> =
    LazyLock::new(|| parse_table(TABLE, "prices.toml").unwrap_or_else(|e| unreachable!("prices.toml is tested: {e}")));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_exact_decimals() {
        assert_eq!(Rate::parse("0.075"), Some(Rate(75_000)));
        assert_eq!(Rate::parse("2.50"), Some(Rate(2_500_000)));
        assert_eq!(Rate::parse("15"), Some(Rate(15_000_000)));
        assert_eq!(Rate::parse(".5"), Some(Rate(500_000)));
        assert_eq!(Rate::parse("0.0000001"), None);
        assert_eq!(Rate::parse("-1"), None);
        assert_eq!(Rate::per_million(0.075), Some(Rate(75_000)));
        for text in ["0.075", "2.5", "15", "0.028"] {
            assert_eq!(Rate::parse(text).map(|r| r.to_string()).as_deref(), Some(text));
        }
    }

    #[test]
    fn the_shipped_table_has_what_the_issue_asks() {
        let table = Price::table();
        let count = |provider: &str| parse_entries().into_iter().filter(|(p, _)| p == provider).count();
        assert!(count("OpenAI") >= 3 && count("Anthropic") >= 6 && count("Google") >= 2 && count("DeepSeek") >= 1);
        assert!(Price::named("gpt-4.1").is_some() && Price::named("claude-sonnet-4-6-1h").is_some());
        for p in table {
            assert!(p.cache_read <= p.input, "{p}");
            // A preset's write price is its cache's write multiple of the input price.
            assert_eq!(p.for_cache(&p.cache).cache_write, p.cache_write, "{p}");
            let write = p.cache_write.expect("a preset names its write price");
            match p.cache {
                CacheMode::Breakpoints { write: multiple, .. } => {
                    assert_eq!(write.0, (p.input.0 as f64 * multiple).round() as u64, "{p}")
                }
                _ => assert_eq!(write, p.input, "{p}: no write premium without breakpoints"),
            }
        }
    }

    /// The providers of the shipped table, with the source and date every entry must carry.
    fn parse_entries() -> Vec<(String, String)> {
        let table: Table = toml::from_str(TABLE).expect("prices.toml parses");
        table
            .model
            .into_iter()
            .map(|e| {
                assert!(
                    e.source.as_deref().is_some_and(|s| s.starts_with("https://")),
                    "{}",
                    e.name
                );
                assert_eq!(e.checked.as_deref().map(str::len), Some(10), "{}", e.name);
                (e.provider.unwrap_or_default(), e.name)
            })
            .collect()
    }

    #[test]
    fn price_flags() {
        let no_file = |f: &str| Err(format!("{f}: no such file"));
        assert_eq!(Price::parse("none", &no_file), Ok(None));
        let p = Price::parse("input=1,output=4.5,cache_read=0.1", &no_file)
            .expect("numbers")
            .expect("a price");
        assert_eq!(p.to_string(), "input=1,cache_read=0.1,output=4.5");
        assert_eq!(Price::parse(&p.to_string(), &no_file), Ok(Some(p.clone())));
        assert_eq!(p.for_cache(&CacheMode::BREAKPOINTS).cache_write, Some(Rate(1_250_000)));
        assert_eq!(p.for_cache(&CacheMode::PREFIX).cache_write, Some(Rate(1_000_000)));
        let e = Price::parse("gpt-9", &no_file).expect_err("unknown").to_string();
        assert!(e.contains("known: gpt-5.4, ") && e.contains("deepseek-chat"), "{e}");
        let table = |_: &str| Ok(TABLE.to_owned());
        let e = Price::parse("mine.toml", &table)
            .expect_err("several models")
            .to_string();
        assert!(e.contains("name one: --price mine.toml#NAME"), "{e}");
        let mine = Price::parse("mine.toml#gpt-4.1", &table)
            .expect("found")
            .expect("a price");
        assert_eq!(mine.to_string(), "input=2,cache_read=0.5,cache_write=2,output=8");
        assert_eq!(mine.cache.to_string(), "prefix:block=128,min=1024,ttl=300,output=false");
    }

    #[test]
    fn numbers_imply_their_cache() {
        let no_file = |f: &str| Err(format!("{f}: no such file"));
        let cache = |text: &str| Price::parse(text, &no_file).expect("numbers").expect("a price").cache;
        assert_eq!(cache("input=1,output=4"), CacheMode::None);
        assert_eq!(cache("input=1,cache_read=0.1,output=4"), CacheMode::PREFIX);
        assert_eq!(
            cache("input=1,cache_read=0.1,cache_write=1,output=4"),
            CacheMode::PREFIX
        );
        // claude-sonnet-4-6's four prices are its cache: breakpoints, writes at 1.25 × input.
        let sonnet = Price::named("claude-sonnet-4-6").expect("in the table");
        assert_eq!(cache("input=3,cache_read=0.3,cache_write=3.75,output=15"), sonnet.cache);
    }
}
