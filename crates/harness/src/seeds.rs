//! Which seeds a configuration runs with (`--seeds`): the one rule, for `compare` and `sweep`
//! alike.

use crate::metrics::RunMetrics;
use crate::scenario::Scenario;
use crate::settings::RunSettings;

/// Which seeds a configuration runs with (`--seeds`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seeds {
    /// As many as the figures need: once when nothing in the run can depend on the seed,
    /// [`Seeds::AUTO`] seeds from the base seed when something can.
    Auto,
    /// Exactly these seeds.
    List(Vec<u64>),
}

impl Seeds {
    /// Seeds a configuration with random draws runs by default.
    pub const AUTO: usize = 20;

    /// Seeds a run may ask for at most.
    pub const MOST: u64 = 100_000;

    /// Parses `auto`, a count `N` (seeds from `--seed` on) or a range `A..B` (both ends in). The
    /// error says what to write instead.
    pub fn parse(text: &str, base: u64) -> Result<Seeds, SeedsError> {
        let text = text.trim();
        // N seeds from --seed on, when they fit under the largest seed.
        let from_base = |n: u64| -> Result<Vec<u64>, SeedsError> {
            let last = base.checked_add(n - 1).ok_or(SeedsError::NoRoom { base, n })?;
            Ok((base..=last).collect())
        };
        if text == "auto" {
            from_base(Seeds::AUTO as u64)?;
            return Ok(Seeds::Auto);
        }
        let number = |part: &str| -> Result<u64, SeedsError> {
            part.trim()
                .parse()
                .map_err(|_| SeedsError::NotSeeds { text: text.to_owned() })
        };
        let too_many = |n: u64| SeedsError::TooMany {
            text: text.to_owned(),
            n,
        };
        if let Some((a, b)) = text.split_once("..") {
            let (a, b) = (number(a)?, number(b)?);
            if a > b {
                return Err(SeedsError::RunsDown {
                    text: text.to_owned(),
                    from: a,
                    to: b,
                });
            }
            if b - a >= Seeds::MOST {
                return Err(too_many((b - a).saturating_add(1)));
            }
            return Ok(Seeds::List((a..=b).collect()));
        }
        let n = number(text)?;
        if n == 0 {
            return Err(SeedsError::None);
        }
        if n > Seeds::MOST {
            return Err(too_many(n));
        }
        Ok(Seeds::List(from_base(n)?))
    }

    /// The seeds a configuration whose figures vary runs with.
    pub fn list(&self, base: u64) -> Vec<u64> {
        match self {
            Seeds::Auto => (base..base + Seeds::AUTO as u64).collect(),
            Seeds::List(list) => list.clone(),
        }
    }

    /// Whether a configuration that ran `first` with `settings` on `scenario` runs the other
    /// seeds too: always with a list; with `auto`, when the scenario's text is seeded or the run
    /// drew at random (the scripted model draws when it writes a summary, and, under a model
    /// profile that is not certain, when a fact it needs is gone).
    pub fn replicates(&self, scenario: &Scenario, settings: &RunSettings, first: &RunMetrics) -> bool {
        match self {
            Seeds::List(_) => true,
            Seeds::Auto => scenario.seeded || crate::row::drew(settings, first),
        }
    }

    /// The seeds from `base` a configuration runs, given its first run: every seed of the list
    /// when it [replicates](Seeds::replicates), else `base` alone. `sweep` runs and resumes by
    /// it; `compare` asks [`Seeds::replicates`] of each variant, the same rule.
    pub fn of(&self, base: u64, scenario: &Scenario, settings: &RunSettings, first: &RunMetrics) -> Vec<u64> {
        if self.replicates(scenario, settings, first) {
            self.list(base)
        } else {
            vec![base]
        }
    }

    /// The seeds every configuration runs first, and those only a configuration that
    /// [replicates](Seeds::replicates) runs after them.
    pub fn split(&self, base: u64) -> (Vec<u64>, Vec<u64>) {
        match self {
            Seeds::List(list) => (list.clone(), Vec::new()),
            Seeds::Auto => {
                let list = self.list(base);
                (list[..1].to_vec(), list[1..].to_vec())
            }
        }
    }
}

/// Why `--seeds` does not parse; each message says what to write instead.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SeedsError {
    /// Neither `auto`, a count nor a range of whole numbers.
    #[error(
        "--seeds {text:?}: expected auto, a count such as 20, or a range such as 0..19 (whole numbers of 0 or more)"
    )]
    NotSeeds {
        /// What was given.
        text: String,
    },
    /// A range whose first seed is above its last (`5..2`).
    #[error("--seeds {text} runs down: write {to}..{from}")]
    RunsDown {
        /// What was given.
        text: String,
        /// Its first seed.
        from: u64,
        /// Its last seed.
        to: u64,
    },
    /// A count of 0.
    #[error("--seeds 0: at least one seed, such as --seeds 20")]
    None,
    /// More seeds than [`Seeds::MOST`].
    #[error(
        "--seeds {text}: {} seeds is more than the {} a run may have",
        crate::human::thousands(*n),
        crate::human::thousands(Seeds::MOST)
    )]
    TooMany {
        /// What was given.
        text: String,
        /// The seeds it asks for.
        n: u64,
    },
    /// `n` seeds from `--seed` on would run past the largest seed.
    #[error(
        "--seed {base} leaves room for {} seed{} above it, not {n}: give a --seed of at most {}",
        u64::MAX - base + 1,
        if u64::MAX - base == 0 { "" } else { "s" },
        u64::MAX - (n - 1)
    )]
    NoRoom {
        /// The base seed (`--seed`).
        base: u64,
        /// The seeds asked for.
        n: u64,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_parse_as_counts_ranges_or_auto() {
        assert_eq!(Seeds::parse("auto", 0), Ok(Seeds::Auto));
        assert_eq!(Seeds::parse("3", 5), Ok(Seeds::List(vec![5, 6, 7])));
        assert_eq!(Seeds::parse("2..4", 0), Ok(Seeds::List(vec![2, 3, 4])));
        for bad in ["0", "x", "4..2", "-1", "1000000", "99999999999999999999"] {
            assert!(
                Seeds::parse(bad, 0).is_err_and(|e| e.to_string().contains("--seeds")),
                "{bad}"
            );
        }
        let said = |text: &str, base: u64| {
            Seeds::parse(text, base)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert!(said("5..2", 0).contains("runs down: write 2..5"));
        assert!(said("1000000", 0).contains("1,000,000 seeds is more than the 100,000"));
        assert!(said("0", 0).contains("at least one seed"));
        // Seeds past the largest are refused with the room there is, whatever the form.
        assert!(
            said("3", u64::MAX).contains("room for 1 seed above it, not 3"),
            "{}",
            said("3", u64::MAX)
        );
        assert!(said("auto", u64::MAX - 5).contains("not 20"));
        assert_eq!(Seeds::parse("3", u64::MAX - 2).map(|s| s.list(0).len()), Ok(3));
        assert_eq!(Seeds::Auto.list(7).len(), Seeds::AUTO);
        assert_eq!(Seeds::Auto.list(7)[0], 7);
    }

    #[test]
    fn each_wrong_seeds_is_its_own_variant() {
        let not = |text: &str| SeedsError::NotSeeds { text: text.to_owned() };
        assert_eq!(
            Seeds::parse("5..2", 0),
            Err(SeedsError::RunsDown {
                text: "5..2".into(),
                from: 5,
                to: 2
            })
        );
        assert_eq!(Seeds::parse("x", 0), Err(not("x")));
        assert_eq!(Seeds::parse("1..y", 0), Err(not("1..y")));
        assert_eq!(Seeds::parse("0", 0), Err(SeedsError::None));
        assert_eq!(
            Seeds::parse("0..100000", 0),
            Err(SeedsError::TooMany {
                text: "0..100000".into(),
                n: 100_001
            })
        );
        assert_eq!(
            Seeds::parse("3", u64::MAX),
            Err(SeedsError::NoRoom { base: u64::MAX, n: 3 })
        );
        // The words are the ones the CLI always printed.
        assert_eq!(
            SeedsError::NoRoom {
                base: u64::MAX - 1,
                n: 3
            }
            .to_string(),
            format!(
                "--seed {} leaves room for 2 seeds above it, not 3: give a --seed of at most {}",
                u64::MAX - 1,
                u64::MAX - 2
            )
        );
        assert_eq!(
            Seeds::parse("x", 0).map_err(|e| e.to_string()),
            Err("--seeds \"x\": expected auto, a count such as 20, or a range such as 0..19 (whole numbers of 0 or more)".into())
        );
    }
}
