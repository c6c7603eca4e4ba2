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

#[cfg(test)]
mod tests {
    use super::super::{Behaviour, Curve, SHIPPED, Summarizer, SummarizerProfile};
    use super::*;

    #[test]
    fn each_wrong_curve_is_its_own_variant() {
        assert_eq!(
            Curve::try_from(vec![[0.3, 0.2], [0.1, 0.6]]),
            Err(CurveError::NotRising { from: 0.3, to: 0.1 })
        );
        assert_eq!(
            Curve::try_from(vec![[0.3, 1.2]]),
            Err(CurveError::OutOfRange { ratio: 0.3, p: 1.2 })
        );
        assert_eq!(Curve::try_from(vec![]), Err(CurveError::NoPoints));
    }

    #[test]
    fn each_wrong_profile_file_is_its_own_variant() {
        let dir = std::env::temp_dir().join(format!("ctxbench-profile-error-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("mkdir");
        let file = dir.join("mine.toml");
        std::fs::write(&file, "[model.careful]\nabout = \"x\"\nnotice = 0.9\nguess = 0\n").expect("writes");
        let e = format!("{}#rash", file.display())
            .parse::<Behaviour>()
            .expect_err("no such table");
        assert!(
            matches!(&e, ProfileError::NoTable { kind: "model", name, .. } if name == "rash"),
            "{e:?}"
        );
        let e = file
            .display()
            .to_string()
            .parse::<Summarizer>()
            .expect_err("no summarizer");
        assert!(
            matches!(e, ProfileError::NoneOfKind { kind: "summarizer", .. }),
            "{e:?}"
        );
        let e = dir
            .join("absent.toml")
            .display()
            .to_string()
            .parse::<Summarizer>()
            .expect_err("absent");
        assert!(matches!(e, ProfileError::Unread { .. }), "{e:?}");
        std::fs::write(&file, "[[model]]\nname = \"m\"\n").expect("writes");
        let e = file.display().to_string().parse::<Behaviour>().expect_err("prices");
        assert!(matches!(e, ProfileError::PriceTable { .. }), "{e:?}");
        let summarizer = SHIPPED.summarizer[Summarizer::DEFAULT].clone();
        let mut keep = summarizer.keep.clone();
        keep.remove("told");
        let missing = SummarizerProfile { keep, ..summarizer };
        assert!(
            matches!(missing.check("f.toml", "mine"), Err(ProfileError::MissingCurve { key, .. }) if key == "told")
        );
    }
}
