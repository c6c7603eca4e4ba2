//! Behaviour profiles (`docs/behaviour.md`): how the simulated summarizer keeps, alters and loses facts,
//! and what the scripted model does when a fact it needs is gone. Named profiles ship in
//! `profiles.toml`, every number with its source; a user's own file has the same shape.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, LazyLock};

use ctxbench_compact::fact::FactKind;
use serde::{Deserialize, Serialize};

use super::bounded;
use crate::toml_words::toml_words;

mod error;

pub use error::{CurveError, ProfileError};

/// The profiles that ship inside the crate.
const TABLE: &str = include_str!("../../../profiles.toml");

/// Where a profile's numbers come from: a measurement (its URL) or an assumption (no URL).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// Which numbers this source is for.
    pub figures: String,
    /// The page; empty for an assumption.
    pub url: String,
    /// The date it was checked.
    pub checked: String,
    /// What it says, in a line.
    pub says: String,
}

/// Points `[ratio, p]`, interpolated linearly and flat past the ends.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(try_from = "Vec<[f64; 2]>", into = "Vec<[f64; 2]>")]
pub struct Curve(Vec<[f64; 2]>);

impl TryFrom<Vec<[f64; 2]>> for Curve {
    type Error = CurveError;

    fn try_from(points: Vec<[f64; 2]>) -> Result<Curve, CurveError> {
        if points.is_empty() {
            return Err(CurveError::NoPoints);
        }
        for pair in points.windows(2) {
            if pair[1][0] <= pair[0][0] {
                return Err(CurveError::NotRising {
                    from: pair[0][0],
                    to: pair[1][0],
                });
            }
        }
        for &[ratio, p] in &points {
            if !(ratio.is_finite() && ratio >= 0.0 && (0.0..=1.0).contains(&p)) {
                return Err(CurveError::OutOfRange { ratio, p });
            }
        }
        Ok(Curve(points))
    }
}

impl From<Curve> for Vec<[f64; 2]> {
    fn from(c: Curve) -> Vec<[f64; 2]> {
        c.0
    }
}

impl Curve {
    /// The probability at `ratio`.
    pub fn at(&self, ratio: f64) -> f64 {
        let points = &self.0;
        let (first, last) = (points[0], points[points.len() - 1]);
        if ratio <= first[0] {
            return first[1];
        }
        if ratio >= last[0] {
            return last[1];
        }
        let k = points.iter().position(|p| p[0] > ratio).unwrap_or(points.len() - 1);
        let ([x0, y0], [x1, y1]) = (points[k - 1], points[k]);
        y0 + (y1 - y0) * (ratio - x0) / (x1 - x0)
    }
}

/// How long a summary comes out.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Length {
    /// The summary's size over the size asked for.
    #[serde(deserialize_with = "bounded::scale")]
    pub scale: f64,
    /// The share of an earlier summary in the span that the new one repeats.
    #[serde(deserialize_with = "bounded::carry")]
    pub carry: f64,
}

impl Length {
    /// The largest `scale` a profile may give.
    pub const MOST_SCALE: f64 = bounded::MOST_SCALE;
}

/// How the simulated summarizer behaves.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SummarizerProfile {
    /// Its name (a shipped name, or `FILE.toml#NAME` for a user's).
    #[serde(skip_deserializing)]
    pub name: String,
    /// What it stands for, in a line.
    pub about: String,
    /// The probability that a kept value comes out altered.
    #[serde(deserialize_with = "bounded::distort")]
    pub distort: f64,
    /// The probability that a summary call returns nothing usable.
    #[serde(deserialize_with = "bounded::fail")]
    pub fail: f64,
    /// How long a summary comes out.
    pub length: Length,
    /// Survival curves: `told` and one per fact kind.
    pub keep: BTreeMap<String, Curve>,
    /// Where the numbers come from.
    #[serde(default)]
    pub sources: Vec<Source>,
}

impl SummarizerProfile {
    /// The probability that a summary of `ratio` keeps a fact of `kind` (`told`: the summary was
    /// told to keep that kind).
    pub fn keeps(&self, kind: FactKind, told: bool, ratio: f64) -> f64 {
        let key = if told { "told" } else { kind.as_str() };
        self.keep.get(key).map_or(0.0, |c| c.at(ratio))
    }

    /// The key numbers in a line: `published (keep number 0.50 at ratio 0.1, distort 0.03, fail 0.01, carry 0.5)`.
    pub fn brief(&self) -> String {
        format!(
            "{} (a number kept at ratio 0.1: {:.2}; distort {}, fail {}, carry {})",
            self.name,
            self.keeps(FactKind::Number, false, 0.1),
            self.distort,
            self.fail,
            self.length.carry
        )
    }

    /// What its numbers' bounds (checked as they are read, `bounded`) leave: a curve for each
    /// kind. `file` and `name` (its table's) are for the error.
    fn check(&self, file: &str, name: &str) -> Result<(), ProfileError> {
        for key in std::iter::once("told").chain(FactKind::ALL.iter().map(|k| k.as_str())) {
            if !self.keep.contains_key(key) {
                return Err(ProfileError::MissingCurve {
                    file: file.to_owned(),
                    name: name.to_owned(),
                    key: key.to_owned(),
                });
            }
        }
        if let Some(other) = self.keep.keys().find(|k| *k != "told" && FactKind::parse(k).is_none()) {
            return Err(ProfileError::NotAKind {
                file: file.to_owned(),
                name: name.to_owned(),
                key: other.clone(),
            });
        }
        Ok(())
    }
}

/// What the scripted model does when a fact it needs is gone from its request.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ModelProfile {
    /// Its name.
    #[serde(skip_deserializing)]
    pub name: String,
    /// What it stands for, in a line.
    pub about: String,
    /// The probability that it notices (then fetches the fact again when its tool can run).
    #[serde(deserialize_with = "bounded::notice")]
    pub notice: f64,
    /// When it does not notice, the probability that it guesses (a wrong answer) rather than
    /// answering without the fact (lost).
    #[serde(deserialize_with = "bounded::guess")]
    pub guess: f64,
    /// Where the numbers come from.
    #[serde(default)]
    pub sources: Vec<Source>,
}

impl ModelProfile {
    /// Whether it never draws: noticing and guessing each certain (0 or 1), so that a run's
    /// figures cannot depend on the seed through it.
    pub fn certain(&self) -> bool {
        [self.notice, self.guess].iter().all(|&p| p == 0.0 || p == 1.0)
    }

    /// The key numbers in a line.
    pub fn brief(&self) -> String {
        format!("{} (notices {}, guesses {})", self.name, self.notice, self.guess)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    #[serde(default)]
    summarizer: BTreeMap<String, SummarizerProfile>,
    #[serde(default)]
    model: BTreeMap<String, ModelProfile>,
}

/// Reads profiles in the format of `profiles.toml` from `file`, each named `prefix` + its
/// table name. A file that is a price table is said to be one.
fn parse_table(text: &str, file: &str, prefix: &str) -> Result<Table, ProfileError> {
    let mut table: Table = toml::from_str(text).map_err(|e| {
        if is_price_table(text) {
            return ProfileError::PriceTable { file: file.to_owned() };
        }
        // A field misspelled or left out: the layout helps; a wrong value's words say enough.
        let layout = ["unknown field", "missing field"].iter().any(|m| e.message().starts_with(m));
        let hint = "a profile file holds [summarizer.NAME] and [model.NAME] tables (the layout of crates/harness/profiles.toml)";
        ProfileError::Toml(toml_words(file, text, &e, if layout { hint } else { "" }))
    })?;
    for (name, p) in &mut table.summarizer {
        p.name = format!("{prefix}{name}");
        p.check(file, name)?;
    }
    for (name, p) in &mut table.model {
        p.name = format!("{prefix}{name}");
    }
    Ok(table)
}

/// Whether `text`, not profiles, is a price table (`[[model]]` entries).
fn is_price_table(text: &str) -> bool {
    toml::from_str::<toml::Table>(text).is_ok_and(|top| top.get("model").is_some_and(toml::Value::is_array))
}

static SHIPPED: LazyLock<Table> = LazyLock::new(|| {
    parse_table(TABLE, "profiles.toml", "").unwrap_or_else(|e| unreachable!("profiles.toml is tested: {e}"))
});

/// The shipped summarizer profiles, the default first.
pub fn summarizers() -> Vec<&'static SummarizerProfile> {
    let mut all: Vec<&SummarizerProfile> = SHIPPED.summarizer.values().collect();
    all.sort_by_key(|p| (p.name != Summarizer::DEFAULT, p.name.clone()));
    all
}

/// The shipped model profiles, the default first.
pub fn models() -> Vec<&'static ModelProfile> {
    let mut all: Vec<&ModelProfile> = SHIPPED.model.values().collect();
    all.sort_by_key(|p| (p.name != Behaviour::DEFAULT, p.name.clone()));
    all
}

/// Finds `NAME` among the shipped profiles, or reads `FILE.toml` (its only profile of the kind)
/// or `FILE.toml#NAME`.
fn find<T: Clone>(
    spec: &str,
    kind: &'static str,
    shipped: &BTreeMap<String, T>,
    of: fn(&Table) -> &BTreeMap<String, T>,
) -> Result<T, ProfileError> {
    let (file, name) = match spec.split_once('#') {
        Some((file, name)) => (Some(file), Some(name)),
        None if spec.ends_with(".toml") => (Some(spec), None),
        None => (None, Some(spec)),
    };
    let Some(file) = file else {
        let name = name.unwrap_or_default();
        return shipped.get(name).cloned().ok_or_else(|| ProfileError::Unknown {
            name: name.to_owned(),
            kind,
            known: shipped.keys().cloned().collect(),
        });
    };
    let text = std::fs::read_to_string(file).map_err(|error| ProfileError::Unread {
        file: file.to_owned(),
        error,
    })?;
    let table = parse_table(&text, file, &format!("{file}#"))?;
    let found = of(&table);
    match name {
        Some(name) => found.get(name).cloned().ok_or_else(|| ProfileError::NoTable {
            file: file.to_owned(),
            kind,
            name: name.to_owned(),
        }),
        None if found.len() == 1 => Ok(found.values().next().cloned().expect("one")),
        None if found.is_empty() => Err(ProfileError::NoneOfKind {
            file: file.to_owned(),
            kind,
        }),
        None => Err(ProfileError::Several {
            file: file.to_owned(),
            kind,
            count: found.len(),
        }),
    }
}

/// A summarizer profile as a run setting: shared, compared and written by name.
#[derive(Clone, Debug)]
pub struct Summarizer(pub Arc<SummarizerProfile>);

impl Summarizer {
    /// The default's name.
    pub const DEFAULT: &'static str = "published";
}

impl Default for Summarizer {
    fn default() -> Summarizer {
        Summarizer(Arc::new(SHIPPED.summarizer[Summarizer::DEFAULT].clone()))
    }
}

impl FromStr for Summarizer {
    type Err = ProfileError;

    fn from_str(spec: &str) -> Result<Summarizer, ProfileError> {
        find(spec, "summarizer", &SHIPPED.summarizer, |t| &t.summarizer).map(|p| Summarizer(Arc::new(p)))
    }
}

/// A model profile as a run setting.
#[derive(Clone, Debug)]
pub struct Behaviour(pub Arc<ModelProfile>);

impl Behaviour {
    /// The default's name.
    pub const DEFAULT: &'static str = "attentive";
}

impl Default for Behaviour {
    fn default() -> Behaviour {
        Behaviour(Arc::new(SHIPPED.model[Behaviour::DEFAULT].clone()))
    }
}

impl FromStr for Behaviour {
    type Err = ProfileError;

    fn from_str(spec: &str) -> Result<Behaviour, ProfileError> {
        find(spec, "model", &SHIPPED.model, |t| &t.model).map(|p| Behaviour(Arc::new(p)))
    }
}

/// A profile setting that can carry another name (one read back from a results file).
pub trait Renamed {
    /// The same numbers under `name`.
    fn renamed(self, name: &str) -> Self;
}

macro_rules! by_name {
    ($t:ty) => {
        // The name is one of the profile's fields: two profiles are equal when all of them are.
        impl PartialEq for $t {
            fn eq(&self, other: &Self) -> bool {
                *self.0 == *other.0
            }
        }

        impl Renamed for $t {
            fn renamed(self, name: &str) -> Self {
                let mut profile = (*self.0).clone();
                profile.name = name.to_owned();
                Self(Arc::new(profile))
            }
        }

        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0.name)
            }
        }
    };
}
by_name!(Summarizer);
by_name!(Behaviour);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_profiles_parse_and_every_one_has_sources() {
        assert_eq!(summarizers()[0].name, "published");
        assert_eq!(models()[0].name, "attentive");
        assert!(summarizers().len() >= 3 && models().len() >= 2);
        for p in summarizers() {
            assert!(!p.sources.is_empty(), "{}", p.name);
        }
        for p in models() {
            assert!(!p.sources.is_empty(), "{}", p.name);
        }
    }

    #[test]
    fn every_shipped_summarizer_keeps_a_changed_file_worse_than_a_path_below_full_size() {
        // Factory's probes: every compactor measured kept its artifact trail worst.
        for p in summarizers() {
            for ratio in [0.0, 0.0003, 0.01, 0.05, 0.125, 0.5] {
                let (artifact, path) = (
                    p.keeps(FactKind::Artifact, false, ratio),
                    p.keeps(FactKind::Path, false, ratio),
                );
                assert!(artifact < path, "{} at {ratio}: {artifact} vs {path}", p.name);
            }
            assert_eq!(p.keeps(FactKind::Artifact, false, 1.0), 1.0, "{}", p.name);
        }
    }

    #[test]
    fn curves_interpolate_and_stay_flat_past_their_ends() {
        let c = Curve::try_from(vec![[0.1, 0.2], [0.3, 0.6]]).expect("valid");
        assert_eq!(c.at(0.0), 0.2);
        assert!((c.at(0.2) - 0.4).abs() < 1e-12);
        assert_eq!(c.at(0.9), 0.6);
        assert!(Curve::try_from(vec![[0.3, 0.2], [0.1, 0.6]]).is_err());
        assert!(Curve::try_from(vec![[0.3, 1.2]]).is_err());
        // The published profile keeps more at a larger ratio.
        let p = Summarizer::default();
        assert!(p.0.keeps(FactKind::Number, false, 0.3) > p.0.keeps(FactKind::Number, false, 0.1));
    }

    #[test]
    fn unknown_names_and_bad_files_say_what_to_do() {
        let e = "nice".parse::<Summarizer>().expect_err("unknown");
        assert!(
            matches!(&e, ProfileError::Unknown { name, kind: "summarizer", .. } if name == "nice"),
            "{e:?}"
        );
        let e = e.to_string();
        assert!(e.contains("known: optimistic, pessimistic, published"), "{e}");
        let dir = std::env::temp_dir().join(format!("ctxbench-profile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("mkdir");
        let file = dir.join("mine.toml");
        std::fs::write(&file, "[model.careful]\nabout = \"x\"\nnotice = 1.5\nguess = 0\n").expect("writes");
        let e = file.display().to_string().parse::<Behaviour>().expect_err("1.5");
        assert!(matches!(e, ProfileError::Toml(_)), "{e:?}");
        let e = e.to_string();
        assert!(
            e.contains("mine.toml:3:10: notice = 1.5: must be between 0 and 1\n"),
            "{e}"
        );
        std::fs::write(&file, "[model.careful]\nabout = \"x\"\nnotice = 0.9\nguess = 0\n").expect("writes");
        let b: Behaviour = file.display().to_string().parse().expect("valid");
        assert_eq!(b.to_string(), format!("{}#careful", file.display()));
    }
}
