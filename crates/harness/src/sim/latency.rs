//! How long a model call takes on the simulated clock: a fixed overhead, the input the server
//! had to process (what it read from the cache costs no prefill), and the reply it wrote.

use std::fmt;

/// `latency = overhead_s + (uncached + written tokens) / prefill_tps + completion / decode_tps`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Latency {
    /// Seconds every call takes, whatever its size.
    pub overhead_s: f64,
    /// Input tokens processed a second.
    pub prefill_tps: f64,
    /// Reply tokens written a second.
    pub decode_tps: f64,
}

impl Default for Latency {
    fn default() -> Latency {
        Latency {
            overhead_s: 0.4,
            prefill_tps: 5000.0,
            decode_tps: 60.0,
        }
    }
}

impl Latency {
    /// Seconds a call takes that processed `prefilled` input tokens and wrote `completion`.
    /// To the microsecond, so that traces carry no float noise.
    pub fn of(&self, prefilled: u64, completion: u64) -> f64 {
        let seconds = self.overhead_s + prefilled as f64 / self.prefill_tps + completion as f64 / self.decode_tps;
        (seconds * 1e6).round() / 1e6
    }

    /// Parses `overhead=…,prefill=…,decode=…`; what is not given keeps its default.
    pub fn parse(text: &str) -> Result<Latency, LatencyError> {
        let mut latency = Latency::default();
        for part in text.split(',').filter(|p| !p.trim().is_empty()) {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| LatencyError::NotKeyValue { part: part.to_owned() })?;
            let number = value.trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0);
            let positive = number.filter(|v| *v > 0.0);
            match (key.trim(), number, positive) {
                ("overhead", Some(v), _) => latency.overhead_s = v,
                ("prefill", _, Some(v)) => latency.prefill_tps = v,
                ("decode", _, Some(v)) => latency.decode_tps = v,
                ("overhead" | "prefill" | "decode", _, _) => {
                    return Err(LatencyError::NotANumber {
                        key: key.trim().to_owned(),
                        value: value.trim().to_owned(),
                    });
                }
                (other, _, _) => {
                    return Err(LatencyError::NotAPart { part: other.to_owned() });
                }
            }
        }
        Ok(latency)
    }
}

impl fmt::Display for Latency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "overhead={},prefill={},decode={}",
            self.overhead_s, self.prefill_tps, self.decode_tps
        )
    }
}

impl std::str::FromStr for Latency {
    type Err = LatencyError;

    fn from_str(text: &str) -> Result<Latency, LatencyError> {
        Latency::parse(text)
    }
}

/// Why `--latency` does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LatencyError {
    /// A part without `=`.
    #[error("--latency: `{part}` is not key=value")]
    NotKeyValue {
        /// The part as given.
        part: String,
    },
    /// A value that is not a number of seconds, or of tokens a second above 0.
    #[error(
        "--latency: {key}={value} must be a number of seconds (overhead) or of tokens a second (prefill, decode, above 0)"
    )]
    NotANumber {
        /// The part (`overhead`, `prefill`, `decode`).
        key: String,
        /// Its value.
        value: String,
    },
    /// A key that is not a part of the model.
    #[error("--latency: `{part}` is not a part of the latency model; its parts: overhead, prefill, decode")]
    NotAPart {
        /// The key given.
        part: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_and_its_spelling() {
        let l = Latency::default();
        // 0.4 s + 5,000 tokens at 5,000 a second + 60 tokens at 60 a second.
        assert_eq!(l.of(5000, 60), 2.4);
        assert_eq!(l.to_string(), "overhead=0.4,prefill=5000,decode=60");
        assert_eq!(Latency::parse(&l.to_string()), Ok(l));
        assert_eq!(Latency::parse("decode=30").map(|l| l.decode_tps), Ok(30.0));
        assert_eq!(
            Latency::parse("prefill=0"),
            Err(LatencyError::NotANumber {
                key: "prefill".into(),
                value: "0".into()
            })
        );
        assert_eq!(
            Latency::parse("speed=3"),
            Err(LatencyError::NotAPart { part: "speed".into() })
        );
        assert_eq!(
            Latency::parse("decode"),
            Err(LatencyError::NotKeyValue { part: "decode".into() })
        );
        assert!(Latency::parse("speed=3").is_err_and(|e| e.to_string().contains("overhead, prefill, decode")));
    }
}
