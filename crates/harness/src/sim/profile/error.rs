//! What can be wrong with a behaviour profile: a curve of its numbers ([`CurveError`]), or the
//! name or file it is given by ([`ProfileError`]); each message says what to write instead.

use ctxbench_compact::fact::FactKind;

/// Why points do not make a survival curve.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CurveError {
    /// No points at all.
    #[error("a curve needs at least one point [ratio, p]")]
    NoPoints,
    /// Two points whose ratios do not rise.
    #[error("the ratios of a curve must rise: {from} then {to}")]
    NotRising {
        /// The first point's ratio.
        from: f64,
        /// The next point's ratio, not above it.
        to: f64,
    },
    /// A ratio below 0 or not finite, or a probability outside [0, 1].
    #[error("[{ratio}, {p}]: a ratio is 0 or more and a probability between 0 and 1")]
    OutOfRange {
        /// The point's ratio.
        ratio: f64,
        /// Its probability.
        p: f64,
    },
}

/// Why `--summarizer` or `--model-profile` does not name a profile.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// A name that is not a shipped profile.
    #[error("{name:?} is not a shipped {kind} profile; known: {}, or a FILE.toml of your own", known.join(", "))]
    Unknown {
        /// The name given.
        name: String,
        /// `summarizer` or `model`.
        kind: &'static str,
        /// The shipped profiles of that kind.
        known: Vec<String>,
    },
    /// A profile file that cannot be read.
    #[error("{file}: {}", crate::error::io_words(error))]
    Unread {
        /// The file.
        file: String,
        /// The OS error (said in this message, so not its source).
        error: std::io::Error,
    },
    /// A file that is not TOML in a profile file's layout, with its line, column and what was
    /// wrong.
    #[error("{0}")]
    Toml(String),
    /// A price table given as profiles.
    #[error(
        "{file} is a price table ([[model]] entries): give it to --price. --summarizer and --model-profile take \
         behaviour profiles, [summarizer.NAME] and [model.NAME] tables as in crates/harness/profiles.toml \
         (`ctxbench profiles` lists the shipped ones)"
    )]
    PriceTable {
        /// The file.
        file: String,
    },
    /// A summarizer profile without a curve for a fact kind (or for `told`).
    #[error("{file}: summarizer.{name}: keep.{key} is missing: a curve [[ratio, p], …] for each kind and for told")]
    MissingCurve {
        /// The file.
        file: String,
        /// The profile's table name.
        name: String,
        /// The kind (or `told`) without a curve.
        key: String,
    },
    /// A summarizer profile with a curve for something that is not a fact kind.
    #[error("{file}: summarizer.{name}: keep.{key}: not a fact kind (told, {})", kinds())]
    NotAKind {
        /// The file.
        file: String,
        /// The profile's table name.
        name: String,
        /// The key that is no kind.
        key: String,
    },
    /// `FILE.toml#NAME` where the file has no such table.
    #[error("{file} has no [{kind}.{name}] table")]
    NoTable {
        /// The file.
        file: String,
        /// `summarizer` or `model`.
        kind: &'static str,
        /// The name asked for.
        name: String,
    },
    /// `FILE.toml` without a table of the kind.
    #[error(
        "{file} holds no [{kind}.NAME] table; a profile file holds [summarizer.NAME] and [model.NAME] tables \
         (the layout of crates/harness/profiles.toml)"
    )]
    NoneOfKind {
        /// The file.
        file: String,
        /// `summarizer` or `model`.
        kind: &'static str,
    },
    /// `FILE.toml` with several tables of the kind, none named.
    #[error("{file} holds {count} {kind} profiles: name one, as {file}#NAME")]
    Several {
        /// The file.
        file: String,
        /// `summarizer` or `model`.
        kind: &'static str,
        /// How many it holds.
        count: usize,
    },
}

/// The fact kinds, as a curve's keys spell them.
fn kinds() -> String {
    let kinds: Vec<&str> = FactKind::ALL.iter().map(|k| k.as_str()).collect();
    kinds.join(", ")
}
