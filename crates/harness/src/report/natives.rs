//! How a pick stands against the compactors people run (the presets that ran beside it): the
//! question a user brings, "should I keep my default?", answered in the verdict's words and in
//! `verdict.json`.

use serde::Serialize;

use super::labels::{Labels, cheaper, mean, spend_mean};
use crate::verdict::{Config, Estimate, Objective, Verdict};

/// The pick against one native default.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Standing {
    /// The preset's canonical name.
    pub strategy: String,
    /// Why it does not qualify, when it does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The pick's spend (cost, or tokens with `--price none`) over the preset's, less one:
    /// -0.17 is 17% cheaper; `None` when the preset does not qualify.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spend_change: Option<f64>,
    /// The pick's facts lost less the preset's (means over the seeds): negative, fewer lost.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub facts_lost_change: Option<f64>,
    /// The preset has the pick's very figures.
    pub same_figures: bool,
}

/// The pick against every preset of the verdict but itself, in the order they rank (the ones
/// that do not qualify last); empty when nothing qualifies or no preset ran.
pub fn standings(verdict: &Verdict<'_>, objective: &Objective) -> Vec<Standing> {
    let Some(pick) = verdict.pick() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (g, group) in verdict.groups().enumerate() {
        for c in &group.configs {
            if !c.settings().strategy.is_preset() || c.settings() == pick.settings() {
                continue;
            }
            let qualifies = group.why.is_none();
            out.push(Standing {
                strategy: c.strategy(),
                why: group.why.as_ref().map(|w| w.split(':').next().unwrap_or(w).to_owned()),
                spend_change: qualifies.then(|| {
                    let (mine, theirs) = (spend_mean(objective, pick), spend_mean(objective, c));
                    if theirs == 0.0 { 0.0 } else { mine / theirs - 1.0 }
                }),
                facts_lost_change: qualifies.then(|| pick.facts_lost().mean - c.facts_lost().mean),
                same_figures: g == 0,
            });
        }
    }
    out
}

/// A difference in facts lost for people: `the same facts kept`, `0.40 fewer facts lost`.
fn facts_words(change: f64) -> String {
    let amount = mean(Estimate {
        mean: change.abs(),
        low: change.abs(),
        high: change.abs(),
    });
    let noun = if (change.abs() - 1.0).abs() < f64::EPSILON {
        "fact"
    } else {
        "facts"
    };
    if change == 0.0 {
        "the same facts kept".to_owned()
    } else if change < 0.0 {
        format!("{amount} fewer {noun} lost")
    } else {
        format!("{amount} more {noun} lost")
    }
}

/// The pick against the native defaults in words: `against the native defaults: 17% cheaper
/// than claude-code, the same facts kept; codex does not qualify (overflow)`. `None` when no
/// preset ran beside the pick.
pub fn against_natives(verdict: &Verdict<'_>, objective: &Objective, labels: &Labels) -> Option<String> {
    let pick = verdict.pick()?;
    let standings = standings(verdict, objective);
    if standings.is_empty() {
        return None;
    }
    let config = |name: &str| -> Option<&Config<'_>> {
        verdict.groups().flat_map(|g| &g.configs).find(|c| c.strategy() == name)
    };
    let parts: Vec<String> = standings
        .iter()
        .map(|s| {
            let name = config(&s.strategy).map_or_else(|| labels.of_name(&s.strategy), |c| labels.of_config(c));
            match (&s.why, s.same_figures) {
                (Some(why), _) => format!("{name} does not qualify ({why})"),
                (None, true) => format!("the same figures as {name}"),
                (None, false) => {
                    let theirs = config(&s.strategy).map_or(f64::NAN, |c| spend_mean(objective, c));
                    format!(
                        "{} than {name}, {}",
                        cheaper(spend_mean(objective, pick), theirs, objective),
                        facts_words(s.facts_lost_change.unwrap_or(0.0))
                    )
                }
            }
        })
        .collect();
    Some(format!("against the native defaults: {}", parts.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_in_facts_in_words() {
        assert_eq!(facts_words(0.0), "the same facts kept");
        assert_eq!(facts_words(-0.4), "0.40 fewer facts lost");
        assert_eq!(facts_words(1.0), "1 more fact lost");
        assert_eq!(facts_words(-2.0), "2 fewer facts lost");
    }
}
