//! The suite's verdict: a leaderboard of strategies and one recommendation.
//!
//! Over a suite, a strategy is compared only on the scenarios where every strategy it is
//! compared with also qualifies, so that no strategy wins by failing where the others paid. The
//! strategies that qualify on the most scenarios contend for the pick, compared on the scenarios
//! where all of them qualify; every other strategy is set against the pick on the scenarios both
//! qualify on.

use std::cmp::Ordering;

use super::{Objective, Verdict};
use crate::billing::price::dollars;
use crate::human::count;

/// One strategy's line on the leaderboard.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    /// The strategy's canonical name.
    pub strategy: String,
    /// Scenarios it qualifies on.
    pub qualified: usize,
    /// Scenarios it ran on.
    pub scenarios: usize,
    /// Total cost over the scenarios it qualifies on (`None` unpriced).
    pub cost_usd: Option<f64>,
    /// Total tokens sent over them.
    pub tokens_sent: u64,
    /// Total facts lost over them.
    pub facts_lost: usize,
    /// `ranks[k]`: the scenarios on which it ranked `k + 1` (tied runs share a rank).
    pub ranks: Vec<usize>,
    /// Set against the pick on the scenarios both qualify on (`None` for the pick itself, or
    /// when they share none).
    pub against_pick: Option<Against>,
}

impl Standing {
    /// The scenarios on which it ranked first.
    pub fn first(&self) -> usize {
        self.ranks.first().copied().unwrap_or(0)
    }
}

/// A strategy against the pick on the scenarios both qualify on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Against {
    /// How many scenarios both qualify on.
    pub scenarios: usize,
    /// The objective summed over them: this strategy's, in the objective's units.
    pub value: u128,
    /// The pick's, over the same scenarios.
    pub pick: u128,
}

impl Against {
    /// `value / pick - 1`: how much more (positive) or less this strategy spends.
    pub fn change(&self) -> f64 {
        if self.pick == 0 {
            return if self.value == 0 { 0.0 } else { f64::INFINITY };
        }
        self.value as f64 / self.pick as f64 - 1.0
    }
}

/// The suite's verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct Suite {
    /// How runs were ranked.
    pub objective: Objective,
    /// Every strategy, the pick first.
    pub leaderboard: Vec<Standing>,
    /// The recommended strategy's canonical name (`None` when no run qualified).
    pub pick: Option<String>,
    /// Why, in one sentence.
    pub why: String,
}

/// Qualification and ranks of one strategy across the scenarios.
struct Record<'a> {
    strategy: String,
    /// Its short name, for sentences.
    brief: String,
    /// Per scenario: its figures when it qualified there.
    qualified: Vec<Option<&'a crate::metrics::RunMetrics>>,
    ran: usize,
    ranks: Vec<usize>,
}

impl Record<'_> {
    fn count(&self) -> usize {
        self.qualified.iter().flatten().count()
    }

    /// The objective, facts lost and calls summed over `scenarios` (it qualifies on each).
    fn totals(&self, objective: Objective, scenarios: &[usize]) -> (u128, usize, usize) {
        scenarios
            .iter()
            .filter_map(|&k| self.qualified[k])
            .fold((0, 0, 0), |(v, f, c), m| {
                (
                    v.saturating_add(objective.value(m)),
                    f + m.facts_lost,
                    c + m.model_calls,
                )
            })
    }

    fn qualifies_on(&self) -> Vec<usize> {
        (0..self.qualified.len())
            .filter(|&k| self.qualified[k].is_some())
            .collect()
    }
}

/// The leaderboard and the recommendation over every scenario's verdict.
pub fn suite(verdicts: &[Verdict<'_>], objective: Objective) -> Suite {
    let mut records: Vec<Record> = Vec::new();
    for (k, verdict) in verdicts.iter().enumerate() {
        for (rank, group) in verdict.groups().enumerate() {
            for row in &group.rows {
                let name = row.settings.strategy.to_string();
                let at = match records.iter().position(|r| r.strategy == name) {
                    Some(at) => at,
                    None => {
                        records.push(Record {
                            strategy: name,
                            brief: row.settings.strategy.brief(),
                            qualified: vec![None; verdicts.len()],
                            ran: 0,
                            ranks: Vec::new(),
                        });
                        records.len() - 1
                    }
                };
                let record = &mut records[at];
                record.ran += 1;
                if group.why.is_none() {
                    record.qualified[k] = Some(&row.metrics);
                    if record.ranks.len() <= rank {
                        record.ranks.resize(rank + 1, 0);
                    }
                    record.ranks[rank] += 1;
                }
            }
        }
    }
    let most = records.iter().map(Record::count).max().unwrap_or(0);
    if most == 0 {
        return Suite {
            objective,
            leaderboard: standings(&records, objective, None),
            pick: None,
            why: "no strategy qualified on any scenario: every run overflowed, broke pairing or stopped".into(),
        };
    }
    // The contenders qualify on the most scenarios; they are compared where all of them do.
    let contenders: Vec<&Record> = records.iter().filter(|r| r.count() == most).collect();
    let common: Vec<usize> = (0..verdicts.len())
        .filter(|&k| contenders.iter().all(|r| r.qualified[k].is_some()))
        .collect();
    let over = |r: &Record| -> Vec<usize> {
        if common.is_empty() {
            r.qualifies_on()
        } else {
            common.clone()
        }
    };
    let pick = contenders
        .iter()
        .min_by(|a, b| {
            a.totals(objective, &over(a))
                .cmp(&b.totals(objective, &over(b)))
                .then_with(|| a.strategy.cmp(&b.strategy))
        })
        .map(|r| r.strategy.clone());
    let leaderboard = standings(&records, objective, pick.as_deref());
    let why = reason(
        &records,
        &leaderboard,
        objective,
        most,
        verdicts.len(),
        &contenders,
        &common,
    );
    Suite {
        objective,
        leaderboard,
        pick,
        why,
    }
}

/// Every strategy's standing, the pick first, then by scenarios qualified on, then against the
/// pick, then by name.
fn standings(records: &[Record], objective: Objective, pick: Option<&str>) -> Vec<Standing> {
    let picked = pick.and_then(|p| records.iter().find(|r| r.strategy == p));
    let mut out: Vec<Standing> = records
        .iter()
        .map(|r| {
            let mine = r.qualifies_on();
            let metrics = mine.iter().filter_map(|&k| r.qualified[k]);
            let against_pick = picked.filter(|p| p.strategy != r.strategy).and_then(|p| {
                let shared: Vec<usize> = mine.iter().copied().filter(|&k| p.qualified[k].is_some()).collect();
                (!shared.is_empty()).then(|| Against {
                    scenarios: shared.len(),
                    value: r.totals(objective, &shared).0,
                    pick: p.totals(objective, &shared).0,
                })
            });
            Standing {
                strategy: r.strategy.clone(),
                qualified: mine.len(),
                scenarios: r.ran,
                cost_usd: metrics
                    .clone()
                    .map(|m| m.cost_usd)
                    .sum::<Option<f64>>()
                    .filter(|_| !mine.is_empty()),
                tokens_sent: metrics.clone().map(|m| m.tokens_sent).sum(),
                facts_lost: metrics.map(|m| m.facts_lost).sum(),
                ranks: r.ranks.clone(),
                against_pick,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        let is_pick = |s: &Standing| Some(s.strategy.as_str()) == pick;
        is_pick(b)
            .cmp(&is_pick(a))
            .then(b.qualified.cmp(&a.qualified))
            .then_with(|| match (a.against_pick, b.against_pick) {
                (Some(x), Some(y)) => x.change().partial_cmp(&y.change()).unwrap_or(Ordering::Equal),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            })
            .then_with(|| a.strategy.cmp(&b.strategy))
    });
    out
}

/// The recommendation's reason, in one sentence.
fn reason(
    records: &[Record],
    leaderboard: &[Standing],
    objective: Objective,
    most: usize,
    scenarios: usize,
    contenders: &[&Record],
    common: &[usize],
) -> String {
    let Some(record) = records.iter().find(|r| r.strategy == leaderboard[0].strategy) else {
        return String::new();
    };
    let mut why = format!("it qualifies on {most} of {scenarios} scenarios");
    if contenders.len() == 1 {
        why.push_str(", more than any other strategy");
    } else {
        why.push_str(&format!(", as do {} other strategies", contenders.len() - 1));
    }
    let over = if common.is_empty() {
        record.qualifies_on()
    } else {
        common.to_vec()
    };
    let (value, facts, _) = record.totals(objective, &over);
    why.push_str(&format!(
        "; over {} it {} and loses {}",
        if contenders.len() == 1 || common.is_empty() {
            "them".to_owned()
        } else {
            format!("the {} where all of them do", common.len())
        },
        objective.spend(value),
        count(facts, "fact")
    ));
    if let Some((runner, against)) = leaderboard[1..].iter().find_map(|s| s.against_pick.map(|a| (s, a))) {
        let brief = records
            .iter()
            .find(|r| r.strategy == runner.strategy)
            .map_or(runner.strategy.as_str(), |r| r.brief.as_str());
        why.push_str(&format!(
            "; the runner-up, {brief}, qualifies on {} and {} on the {} both qualify on",
            runner.qualified,
            objective.compare(against.value, against.pick),
            count(against.scenarios, "scenario"),
        ));
    }
    why
}

impl Objective {
    /// A total of the objective for people: `$0.0123`, `18,431 tokens`, `3 facts`, `6 model calls`.
    pub fn show(self, value: u128) -> String {
        match self {
            Objective::Cost => dollars_of(value),
            Objective::Tokens => format!("{} tokens", crate::human::thousands(value as u64)),
            Objective::Facts => count(value as usize, "fact"),
            Objective::Calls => count(value as usize, "model call"),
        }
    }

    /// The verb of the objective: "costs", "sends", "loses", "makes".
    pub fn verb(self) -> &'static str {
        match self {
            Objective::Cost => "costs",
            Objective::Tokens => "sends",
            Objective::Facts => "loses",
            Objective::Calls => "makes",
        }
    }

    /// A total as a verb phrase: "costs $0.0123".
    pub fn spend(self, value: u128) -> String {
        format!("{} {}", self.verb(), self.show(value))
    }

    /// `value` set against `base`: "costs 12% more ($0.0140 against $0.0125)".
    pub fn compare(self, value: u128, base: u128) -> String {
        format!(
            "{} {} ({} against {})",
            self.verb(),
            relative(value, base),
            self.show(value),
            self.show(base)
        )
    }
}

/// `value` relative to `base`: "12% more", "3.5% less", "as much".
pub(crate) fn relative(value: u128, base: u128) -> String {
    let share = |a: u128, b: u128| {
        let p = a.abs_diff(b) as f64 / b as f64 * 100.0;
        if p < 10.0 {
            format!("{p:.1}%")
        } else {
            format!("{p:.0}%")
        }
    };
    match value.cmp(&base) {
        Ordering::Equal => "as much".to_owned(),
        Ordering::Greater if base == 0 => "more".to_owned(),
        Ordering::Greater => format!("{} more", share(value, base)),
        Ordering::Less => format!("{} less", share(value, base)),
    }
}

/// Picodollars for people.
fn dollars_of(picodollars: u128) -> String {
    crate::human::dollars(dollars(picodollars))
}
