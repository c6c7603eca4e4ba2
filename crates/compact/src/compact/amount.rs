//! An amount of tokens as a stage parameter: a number of tokens, a share of the window, or a
//! number of tokens stated for another window and scaled to the run's.
//!
//! The third form is how presets carry a vendor's numbers: Anthropic's compaction trigger of
//! 150,000 tokens is stated for a 200,000-token window (`150000/200000`); on a scenario whose
//! window stands for such a model's, it is the same share of the window. On a run whose window is
//! the one stated, it is the number itself.

use std::fmt::{self, Write};

use super::params::Param;

/// Tokens, as a stage parameter spells them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Amount {
    /// This many tokens, whatever the window (`20000`).
    Tokens(u64),
    /// This share of the window, in millionths (`80%` is 800,000).
    Share(u64),
    /// `tokens` of a window of `of` tokens, scaled to the run's window (`150000/200000`).
    Scaled {
        /// The tokens, as stated.
        tokens: u64,
        /// The window they were stated for.
        of: u64,
    },
}

impl Amount {
    /// The amount on a window of `window` tokens, rounded down.
    pub fn resolve(self, window: u64) -> u64 {
        match self {
            Amount::Tokens(n) => n,
            Amount::Share(millionths) => (u128::from(window) * u128::from(millionths) / 1_000_000) as u64,
            Amount::Scaled { tokens, of } => {
                if of == window {
                    tokens
                } else {
                    (u128::from(tokens) * u128::from(window) / u128::from(of.max(1))) as u64
                }
            }
        }
    }

    /// `tokens` stated for a window of `of` tokens; the tokens themselves when `of` (or the
    /// tokens) is 0.
    pub fn scaled(tokens: u64, of: u64) -> Amount {
        if of == 0 || tokens == 0 {
            Amount::Tokens(tokens)
        } else {
            Amount::Scaled { tokens, of }
        }
    }

    /// Whether it is none at all (`0`).
    pub fn is_zero(self) -> bool {
        matches!(
            self,
            Amount::Tokens(0) | Amount::Share(0) | Amount::Scaled { tokens: 0, .. }
        )
    }
}

/// A percentage with up to four decimals, in millionths of one (`12.5` is 125,000).
fn millionths(percent: &str) -> Option<u64> {
    let (whole, fraction) = percent.split_once('.').unwrap_or((percent, ""));
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) || fraction.len() > 4 {
        return None;
    }
    if !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let whole: u64 = whole.parse().ok()?;
    let mut digits = fraction.to_owned();
    while digits.len() < 4 {
        digits.push('0');
    }
    let fraction: u64 = digits.parse().ok()?;
    let value = whole.checked_mul(10_000)?.checked_add(fraction)?;
    (value <= 1_000_000).then_some(value)
}

impl Param for Amount {
    const EXPECTED: &'static str =
        "tokens: a whole number, a share of the window (`80%`), or tokens of another window (`150000/200000`)";
    const EXAMPLES: &'static [&'static str] = &[
        "0",
        "1",
        "500",
        "20000",
        "50%",
        "100%",
        "12.5%",
        "3000/8000",
        "150000/200000",
    ];

    fn parse(text: &str) -> Option<Amount> {
        if let Some(percent) = text.strip_suffix('%') {
            return millionths(percent).map(Amount::Share);
        }
        if let Some((tokens, of)) = text.split_once('/') {
            let (tokens, of): (u64, u64) = (tokens.parse().ok()?, of.parse().ok()?);
            return (of > 0).then_some(Amount::Scaled { tokens, of });
        }
        text.parse().ok().map(Amount::Tokens)
    }

    fn write(&self, out: &mut dyn Write) -> fmt::Result {
        match *self {
            Amount::Tokens(n) => write!(out, "{n}"),
            Amount::Share(m) => {
                write!(out, "{}", m / 10_000)?;
                let fraction = m % 10_000;
                if fraction > 0 {
                    let digits = format!("{fraction:04}");
                    write!(out, ".{}", digits.trim_end_matches('0'))?;
                }
                out.write_char('%')
            }
            Amount::Scaled { tokens, of } => write!(out, "{tokens}/{of}"),
        }
    }
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Option<Amount> {
        Amount::parse(text)
    }

    #[test]
    fn amounts_read_write_and_resolve() {
        let cases = [
            ("20000", 8000, 20000),
            ("80%", 8000, 6400),
            ("90%", 272_000, 244_800),
            ("12.5%", 8000, 1000),
            ("0.0001%", 1_000_000, 1),
            ("150000/200000", 200_000, 150_000),
            ("150000/200000", 8000, 6000),
            ("167000/200000", 6000, 5010),
        ];
        for (text, window, tokens) in cases {
            let amount = read(text).unwrap_or_else(|| panic!("{text} reads"));
            assert_eq!(amount.resolve(window), tokens, "{text} on {window}");
            assert_eq!(amount.to_string(), text);
        }
        for bad in ["", "-1", "1.5", "101%", "%", "1/0", "a/2", "50.12345%", "x%"] {
            assert_eq!(read(bad), None, "{bad}");
        }
    }
}
