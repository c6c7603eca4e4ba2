//! What can be wrong with a price (`--price`, a price table) or a cache mode (`--cache`), one
//! variant per mistake; each message says what to write instead.

/// Why `--cache` (or a price table's `cache`) does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CacheError {
    /// A mode that is not `none`, `prefix` or `breakpoints`.
    #[error("{name:?} is not a cache mode; expected none, prefix or breakpoints")]
    NotAMode {
        /// The name given.
        name: String,
    },
    /// A parameter without `=`.
    #[error("`{param}` in cache `{mode}` is not key=value")]
    NotKeyValue {
        /// The parameter as given.
        param: String,
        /// The mode it was given to.
        mode: String,
    },
    /// A count or a number of seconds that is not a whole number.
    #[error("cache {key} must be a whole number, not `{value}`")]
    NotWhole {
        /// The parameter.
        key: String,
        /// Its value.
        value: String,
    },
    /// `block=0`.
    #[error("cache block must be at least 1 token (OpenAI caches in blocks of 128)")]
    NoBlock,
    /// `output` neither `true` nor `false`.
    #[error("cache output is true or false, not `{value}`")]
    NotBool {
        /// Its value.
        value: String,
    },
    /// `write` not a multiple of 0 or more.
    #[error("cache write is a multiple of the input price (1.25), not `{value}`")]
    NotMultiple {
        /// Its value.
        value: String,
    },
    /// A parameter given to `none`.
    #[error("cache none has no parameters")]
    NoParameters,
    /// A parameter the mode does not have.
    #[error("cache {mode} has no parameter `{key}`; its parameters: {known}")]
    UnknownParameter {
        /// The mode (`prefix`, `breakpoints`).
        mode: &'static str,
        /// The parameter given.
        key: String,
        /// The mode's parameters, in words.
        known: &'static str,
    },
}

/// Why `--price` or a price table does not give prices.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PriceError {
    /// A price file that could not be read, in the words of the reader
    /// [`Price::parse`](super::price::Price::parse) was given.
    #[error("{0}")]
    Unread(String),
    /// A file that is not a price table in TOML, with its line, column and the layout expected.
    #[error("{0}")]
    Toml(String),
    /// A file of behaviour profiles given as prices.
    #[error(
        "{file} holds behaviour profiles ([summarizer.NAME] or [model.NAME] tables): give it to --summarizer \
         or --model-profile. --price takes a price table, [[model]] entries as in crates/harness/prices.toml \
         (`ctxbench prices` lists the shipped ones)"
    )]
    Profiles {
        /// The file.
        file: String,
    },
    /// A table's price below 0 or not finite.
    #[error("model {model}: {what} = {value} is not a price")]
    NotAPrice {
        /// The table's model.
        model: String,
        /// Which price (`input`, `cache_read`, …).
        what: &'static str,
        /// The value given.
        value: f64,
    },
    /// A table's `cache` that does not parse.
    #[error("model {model}: cache: {error}")]
    Cache {
        /// The table's model.
        model: String,
        /// What is wrong with it (said in this message, so not its source).
        error: CacheError,
    },
    /// A file of several models, none named.
    #[error("{file} holds {} models; name one: --price {file}#NAME, NAME one of {}", names.len(), names.join(", "))]
    Several {
        /// The file.
        file: String,
        /// Its models.
        names: Vec<String>,
    },
    /// `FILE.toml#NAME` where the file has no such model.
    #[error("{file} has no model named {name:?}")]
    NoModel {
        /// The file.
        file: String,
        /// The name asked for.
        name: String,
    },
    /// A name that is not a model of the shipped table.
    #[error("{}", not_in_table(name, known))]
    NotInTable {
        /// The name given.
        name: String,
        /// The table's names.
        known: Vec<String>,
    },
    /// Numbers separated by something else than commas.
    #[error("--price: {text:?}: separate the prices with commas, not {:?} (input=3,output=15)", separator.to_string())]
    Separator {
        /// The numbers as given.
        text: String,
        /// The separator found.
        separator: char,
    },
    /// A part of the numbers without `=`.
    #[error("--price: `{part}` is not key=value")]
    NotKeyValue {
        /// The part.
        part: String,
    },
    /// A key that is not one of the four prices.
    #[error("--price: `{key}` is not a price; the prices are input, cache_read, cache_write, output")]
    UnknownKey {
        /// The key.
        key: String,
    },
    /// A value that is not a decimal price.
    #[error("--price: {key}={value} is not a price in dollars per million tokens (such as 0.75, at most 6 decimals)")]
    NotARate {
        /// The price (`input`, …).
        key: String,
        /// Its value.
        value: String,
    },
    /// Numbers without an input or an output price.
    #[error("--price: numbers need at least input=… and output=… (dollars per million tokens)")]
    Incomplete,
}

/// The words of [`PriceError::NotInTable`]: the known names, and the nearest.
fn not_in_table(name: &str, known: &[String]) -> String {
    let names: Vec<&str> = known.iter().map(String::as_str).collect();
    let near = ctxbench_compact::nearest(name, &names)
        .map(|n| format!(" (did you mean {n}?)"))
        .unwrap_or_default();
    format!(
        "{name:?} is not a model of the price table{near}; known: {}. Or give numbers \
         (input=…,cache_read=…,cache_write=…,output=…, dollars per million tokens), a FILE.toml, or none",
        names.join(", ")
    )
}
