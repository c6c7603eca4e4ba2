//! What "best" means: a list of keys tried in order, a price on a lost fact, and how close two
//! figures must be to tie.

use super::SeedFigures;

ctxbench_compact::named! {
    /// One figure a ranking can minimise, as `--objective` names it.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Key {
        /// Facts lost per run (distinct facts with an unmet need).
        Facts = "facts",
        /// What a run cost, with each lost fact priced in under `--fact-cost`.
        Cost = "cost",
        /// Tokens sent.
        Tokens = "tokens",
        /// Model calls.
        Calls = "calls",
    }
}

impl Key {
    /// The figure it reads, as results files name it.
    pub fn figure(self) -> &'static str {
        match self {
            Key::Facts => "facts_lost",
            Key::Cost => "cost_usd",
            Key::Tokens => "tokens_sent",
            Key::Calls => "model_calls",
        }
    }

    /// What it measures, for sentences: "facts lost", "cost".
    pub fn noun(self) -> &'static str {
        match self {
            Key::Facts => "facts lost",
            Key::Cost => "cost",
            Key::Tokens => "tokens sent",
            Key::Calls => "model calls",
        }
    }

    /// What it means, for people: "lowest cost".
    pub fn describe(self) -> &'static str {
        match self {
            Key::Facts => "fewest facts lost",
            Key::Cost => "lowest cost",
            Key::Tokens => "fewest tokens sent",
            Key::Calls => "fewest model calls",
        }
    }
}

/// How runs are ranked: keys tried in order, two runs tying on a key passing to the next.
#[derive(Clone, Debug, PartialEq)]
pub struct Objective {
    /// The keys, most important first.
    pub keys: Vec<Key>,
    /// Dollars a lost fact costs, folded into `cost` (`--fact-cost`).
    pub fact_cost: Option<f64>,
    /// Two means closer than this fraction of the larger tie (`--tie`).
    pub tie: f64,
}

impl Objective {
    /// `--tie` when not given: 1%.
    pub const DEFAULT_TIE: f64 = 0.01;

    /// The most `--fact-cost` takes: a billion dollars a fact already ranks any loss above any
    /// bill, and past it cost + fact cost × facts lost runs out of numbers (1e309 is infinite).
    pub const MOST_FACT_COST: f64 = 1e9;

    /// What `--fact-cost` takes, in words.
    pub fn fact_cost_range() -> String {
        format!(
            "a lost fact's price in dollars, 0 or more and at most {}, such as 0.01",
            crate::human::thousands(Objective::MOST_FACT_COST as u64)
        )
    }

    /// The objective of `--objective LIST`, `--fact-cost` and `--tie`, or the default: facts,
    /// then cost (tokens with `--price none`); cost alone with a fact cost. The error says what
    /// to do.
    pub fn resolve(
        names: Option<&str>,
        priced: bool,
        fact_cost: Option<f64>,
        tie: f64,
    ) -> Result<Objective, ObjectiveError> {
        if let Some(usd) = fact_cost {
            if !priced {
                return Err(ObjectiveError::FactCostUnpriced);
            }
            if !(0.0..=Objective::MOST_FACT_COST).contains(&usd) {
                return Err(ObjectiveError::FactCostRange { usd });
            }
        }
        let keys = match names {
            Some(list) => {
                let mut keys = Vec::new();
                for name in list.split(',').map(str::trim) {
                    let key = Key::parse(name).ok_or_else(|| ObjectiveError::NotAKey { name: name.to_owned() })?;
                    if keys.contains(&key) {
                        return Err(ObjectiveError::Twice {
                            list: list.to_owned(),
                            name: name.to_owned(),
                        });
                    }
                    keys.push(key);
                }
                keys
            }
            None if fact_cost.is_some() => vec![Key::Cost],
            None if priced => vec![Key::Facts, Key::Cost],
            None => vec![Key::Facts, Key::Tokens],
        };
        if keys.contains(&Key::Cost) && !priced {
            return Err(ObjectiveError::CostUnpriced);
        }
        if fact_cost.is_some() && !keys.contains(&Key::Cost) {
            return Err(ObjectiveError::NoCostKey {
                keys: keys.iter().map(|k| k.as_str()).collect::<Vec<_>>().join(","),
            });
        }
        if !(0.0..1.0).contains(&tie) {
            return Err(ObjectiveError::Tie { tie });
        }
        Ok(Objective { keys, fact_cost, tie })
    }

    /// The default objective of priced runs.
    pub fn default_priced() -> Objective {
        Objective {
            keys: vec![Key::Facts, Key::Cost],
            fact_cost: None,
            tie: Objective::DEFAULT_TIE,
        }
    }

    /// A run's figure on `key` (`None`: a cost without a price).
    pub fn value(&self, key: Key, m: &SeedFigures) -> Option<f64> {
        match key {
            Key::Facts => Some(m.facts_missed() as f64),
            Key::Cost => m
                .cost_usd
                .map(|c| c + self.fact_cost.unwrap_or(0.0) * m.facts_missed() as f64),
            Key::Tokens => Some(m.tokens_sent as f64),
            Key::Calls => Some(m.model_calls as f64),
        }
    }

    /// The key that says what a run spends (the front's other axis): cost when ranked by it or
    /// priced, else tokens.
    pub fn spend(&self) -> Key {
        self.keys
            .iter()
            .copied()
            .find(|k| matches!(k, Key::Cost | Key::Tokens))
            .unwrap_or(Key::Tokens)
    }

    /// The last key: what regret is measured on.
    pub fn last(&self) -> Key {
        self.keys.last().copied().unwrap_or(Key::Cost)
    }

    /// The keys as `--objective` spells them (`facts,cost`).
    pub fn keys_text(&self) -> String {
        self.keys.iter().map(|k| k.as_str()).collect::<Vec<_>>().join(",")
    }

    /// What differs from the default objective (of runs `priced` or not), in words for the
    /// settings line: `objective cost,tokens`, `fact cost $0.01`, `tie 0.05`.
    pub fn changed(&self, priced: bool) -> Vec<String> {
        let default = Objective::resolve(None, priced, self.fact_cost, Objective::DEFAULT_TIE).ok();
        let mut changed = Vec::new();
        if default.is_none_or(|d| d.keys != self.keys) {
            changed.push(format!("objective {}", self.keys_text()));
        }
        if let Some(usd) = self.fact_cost {
            changed.push(format!("fact cost ${usd}"));
        }
        if self.tie != Objective::DEFAULT_TIE {
            changed.push(format!("tie {}", self.tie));
        }
        changed
    }

    /// The key names, as `verdict.json` lists them.
    pub fn figures(&self) -> Vec<&'static str> {
        self.keys.iter().map(|k| k.figure()).collect()
    }

    /// For people: "fewest facts lost, then lowest cost; ties (a difference paired over the
    /// seeds whose 95% interval holds zero, or within 1%) go to the next key, then to the
    /// simpler strategy, then to the name".
    pub fn describe(&self) -> String {
        let keys: Vec<String> = self
            .keys
            .iter()
            .map(|&k| match (k, self.fact_cost) {
                (Key::Cost, Some(usd)) => format!("lowest cost with each lost fact at ${usd}"),
                _ => k.describe().to_owned(),
            })
            .collect();
        format!(
            "{}; ties (a difference paired over the seeds whose 95% interval holds zero, or within {}%) go to the next key, then to the simpler strategy, then to the name",
            keys.join(", then "),
            self.tie * 100.0
        )
    }
}

/// Why `--objective`, `--fact-cost` and `--tie` do not make an objective; each message says
/// what to do.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ObjectiveError {
    /// `--fact-cost` with `--price none`.
    #[error("--fact-cost prices a lost fact in dollars and needs a price; drop --price none")]
    FactCostUnpriced,
    /// A fact cost below 0, above [`Objective::MOST_FACT_COST`] or not a number.
    #[error("--fact-cost {usd}: {}", Objective::fact_cost_range())]
    FactCostRange {
        /// The fact cost given, in dollars.
        usd: f64,
    },
    /// A name in `--objective` that is no [`Key`].
    #[error("--objective {name:?} is not a key; expected {}", <Key as ctxbench_compact::Named>::names())]
    NotAKey {
        /// The name.
        name: String,
    },
    /// A key named twice in `--objective`.
    #[error("--objective {list:?} names {name} twice")]
    Twice {
        /// The whole list.
        list: String,
        /// The key named twice.
        name: String,
    },
    /// The cost key with `--price none`.
    #[error("--objective cost needs a price; drop --price none or rank by tokens")]
    CostUnpriced,
    /// A fact cost with keys that have no cost to fold it into.
    #[error(
        "--fact-cost folds lost facts into cost, but --objective {keys} has no cost key: add cost (--objective facts,cost) or drop --fact-cost"
    )]
    NoCostKey {
        /// The keys, as `--objective` spells them.
        keys: String,
    },
    /// A tie outside [0, 1).
    #[error("--tie {tie}: expected a fraction from 0 up to 1, such as 0.01")]
    Tie {
        /// The tie given.
        tie: f64,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_differs_from_the_default_objective_is_said() {
        let changed = |names, priced, fc, tie| {
            Objective::resolve(names, priced, fc, tie)
                .map(|o| o.changed(priced))
                .unwrap_or_else(|e| panic!("{e}"))
        };
        assert_eq!(changed(None, true, None, 0.01), Vec::<String>::new());
        assert_eq!(changed(None, false, None, 0.01), Vec::<String>::new());
        assert_eq!(changed(Some("facts,cost"), true, None, 0.01), Vec::<String>::new());
        assert_eq!(changed(None, true, Some(0.01), 0.01), ["fact cost $0.01"]);
        assert_eq!(
            changed(Some("cost,tokens"), true, None, 0.05),
            ["objective cost,tokens", "tie 0.05"]
        );
    }

    #[test]
    fn the_default_puts_facts_before_cents() {
        let o = |names, priced, fc| Objective::resolve(names, priced, fc, 0.01).map(|o| o.keys);
        assert_eq!(o(None, true, None), Ok(vec![Key::Facts, Key::Cost]));
        assert_eq!(o(None, false, None), Ok(vec![Key::Facts, Key::Tokens]));
        assert_eq!(o(None, true, Some(0.01)), Ok(vec![Key::Cost]));
        assert_eq!(o(Some("cost"), true, None), Ok(vec![Key::Cost]));
        assert_eq!(o(Some("calls,tokens"), false, None), Ok(vec![Key::Calls, Key::Tokens]));
        let o = |names, priced, fc| o(names, priced, fc).map_err(|e| e.to_string());
        assert!(o(Some("cost"), false, None).is_err_and(|e| e.contains("--price none")));
        assert!(o(Some("speed"), true, None).is_err_and(|e| e.contains("facts, cost, tokens or calls")));
        assert!(o(Some("cost,cost"), true, None).is_err_and(|e| e.contains("twice")));
        assert!(
            o(None, false, Some(0.01)).is_err_and(|e| e.contains("drop --price none") && !e.contains("--objective"))
        );
        assert!(o(None, true, Some(-5.0)).is_err_and(|e| e.contains("0 or more")));
        assert!(o(None, true, Some(f64::INFINITY)).is_err());
        assert!(o(Some("facts,tokens"), true, Some(0.5)).is_err_and(|e| e.contains("has no cost key")));
        assert!(Objective::resolve(None, true, None, 1.5).is_err());
    }

    #[test]
    fn each_wrong_objective_is_its_own_variant() {
        let o = |names, priced, fc, tie| Objective::resolve(names, priced, fc, tie).err();
        assert_eq!(o(None, false, Some(0.01), 0.01), Some(ObjectiveError::FactCostUnpriced));
        assert_eq!(
            o(None, true, Some(-1.0), 0.01),
            Some(ObjectiveError::FactCostRange { usd: -1.0 })
        );
        assert_eq!(
            o(Some("facts,speed"), true, None, 0.01),
            Some(ObjectiveError::NotAKey { name: "speed".into() })
        );
        assert_eq!(
            o(Some("cost, cost"), true, None, 0.01),
            Some(ObjectiveError::Twice {
                list: "cost, cost".into(),
                name: "cost".into()
            })
        );
        assert_eq!(o(Some("cost"), false, None, 0.01), Some(ObjectiveError::CostUnpriced));
        assert_eq!(
            o(Some("facts,tokens"), true, Some(0.5), 0.01),
            Some(ObjectiveError::NoCostKey {
                keys: "facts,tokens".into()
            })
        );
        assert_eq!(o(None, true, None, 1.0), Some(ObjectiveError::Tie { tie: 1.0 }));
        assert_eq!(
            ObjectiveError::NotAKey { name: "speed".into() }.to_string(),
            "--objective \"speed\" is not a key; expected facts, cost, tokens or calls"
        );
    }

    #[test]
    fn a_fact_cost_folds_into_cost() {
        let o = Objective::resolve(None, true, Some(0.01), 0.01).expect("valid");
        let m = crate::metrics::RunMetrics {
            cost_usd: Some(0.02),
            facts_lost: 3,
            ..Default::default()
        };
        let m = SeedFigures::of(
            &crate::settings::RunSettings::new(ctxbench_compact::compact::Strategy::none()),
            &m,
        );
        assert!((o.value(Key::Cost, &m).expect("priced") - 0.05).abs() < 1e-12);
    }
}
