//! A behaviour profile's numbers, each checked as it is read, so that a wrong one is refused at
//! its place in the file with its name and its bounds ("distort must be a number between 0 and
//! 1, not the text \"high\""), never serde's "expected f64" or a bound said with no place.

use std::fmt;

use serde::Deserializer;
use serde::de::{self, Visitor};

/// The largest `length.scale` a profile may give.
pub(crate) const MOST_SCALE: f64 = 10.0;

/// The bounds of a profile's number.
#[derive(Clone, Copy)]
enum Range {
    /// A probability: from 0 to 1.
    Probability,
    /// Above 0 and at most this.
    AboveZeroUpTo(f64),
}

impl Range {
    fn holds(self, x: f64) -> bool {
        match self {
            Range::Probability => (0.0..=1.0).contains(&x),
            Range::AboveZeroUpTo(most) => x > 0.0 && x <= most,
        }
    }

    fn words(self) -> String {
        match self {
            Range::Probability => "between 0 and 1".into(),
            Range::AboveZeroUpTo(most) => format!("above 0 and at most {most}"),
        }
    }
}

/// Reads one number named `name` (as the file spells it) within `range`; `what` says what it
/// stands for, when the name does not.
struct Bounded {
    name: &'static str,
    range: Range,
    what: &'static str,
}

impl Bounded {
    fn not_a_number<E: de::Error>(&self, given: &str) -> E {
        E::custom(format!(
            "{} must be a number {}{}, not {given}",
            self.name,
            self.range.words(),
            self.what
        ))
    }
}

impl<'de> Visitor<'de> for Bounded {
    type Value = f64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} as a number {}", self.name, self.range.words())
    }

    fn visit_f64<E: de::Error>(self, x: f64) -> Result<f64, E> {
        if self.range.holds(x) {
            Ok(x)
        } else {
            Err(E::custom(format!(
                "{} = {x:?}: must be {}{}",
                self.name,
                self.range.words(),
                self.what
            )))
        }
    }

    fn visit_i64<E: de::Error>(self, x: i64) -> Result<f64, E> {
        self.visit_f64(x as f64)
    }

    fn visit_u64<E: de::Error>(self, x: u64) -> Result<f64, E> {
        self.visit_f64(x as f64)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<f64, E> {
        Err(self.not_a_number(&format!("the text {text:?}")))
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<f64, E> {
        Err(self.not_a_number(&b.to_string()))
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, _: A) -> Result<f64, A::Error> {
        Err(self.not_a_number("a list"))
    }

    fn visit_map<A: de::MapAccess<'de>>(self, _: A) -> Result<f64, A::Error> {
        Err(self.not_a_number("a table"))
    }
}

macro_rules! bounded {
    ($($(#[$doc:meta])* $fn:ident: $name:literal, $range:expr, $what:literal;)*) => {$(
        $(#[$doc])*
        pub(super) fn $fn<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
            d.deserialize_f64(Bounded { name: $name, range: $range, what: $what })
        }
    )*};
}

bounded! {
    /// `distort`, a probability.
    distort: "distort", Range::Probability, "";
    /// `fail`, a probability.
    fail: "fail", Range::Probability, "";
    /// `length.carry`, a share.
    carry: "length.carry", Range::Probability, "";
    /// `length.scale`: a summary some times the size asked for is a summarizer's doing; past
    /// [`MOST_SCALE`] times it is a typo, and a run would grow without end
    /// (issue 46: 1e300 was taken).
    scale: "length.scale", Range::AboveZeroUpTo(MOST_SCALE), " (the summary's size over the size asked for)";
    /// `notice`, a probability.
    notice: "notice", Range::Probability, "";
    /// `guess`, a probability.
    guess: "guess", Range::Probability, "";
}
