//! The suite's verdict in words: the recommendation's reason, and how its figures are printed.

use super::rule::Settled;
use super::{Objective, Standing};
use crate::human::count;

/// `0.123` → `+12%`, `-0.031` → `-3.1%`, `0` → `±0%`.
pub fn signed(change: f64) -> String {
    if !change.is_finite() {
        return "more".into();
    }
    let p = change * 100.0;
    if p.abs() < 0.05 {
        "±0%".into()
    } else if p.abs() < 10.0 {
        format!("{p:+.1}%")
    } else {
        format!("{p:+.0}%")
    }
}

/// The recommendation's reason, in one sentence.
pub(super) fn reason(
    leaderboard: &[Standing],
    objective: &Objective,
    (most, scenarios): (usize, usize),
    (contenders, common): (usize, usize),
    tie: Option<&(Vec<String>, Settled)>,
    trade: Option<(f64, f64, usize)>,
) -> String {
    let pick = &leaderboard[0];
    let mut why = format!(
        "it qualifies on {most} of {}",
        count(scenarios, "discriminating scenario")
    );
    if contenders == 1 {
        why.push_str(", more than any other strategy;");
    } else {
        why.push_str(&format!(
            ", as do {} other{}; on the {} all of them qualify on,",
            contenders - 1,
            if contenders == 2 { "" } else { "s" },
            count(common, "scenario")
        ));
    }
    let last = objective.last().as_str();
    why.push_str(&format!(
        " it loses {} facts a run, and its {last} is {} of each scenario's pick at the median and {} at worst",
        fraction(pick.facts_lost.unwrap_or(0.0)),
        pick.median_regret.map_or("—".into(), signed),
        pick.worst_regret.map_or("—".into(), signed),
    ));
    if let Some((with, settled)) = tie {
        let with: Vec<String> = with.iter().map(|n| brief(n)).collect();
        let settled = match settled {
            Settled::Key(_) => "its worst regret is lower".to_owned(),
            Settled::Simpler => "the simpler wins".to_owned(),
            Settled::Name => "none is simpler: the name decided".to_owned(),
        };
        why.push_str(&format!(
            "; it ties with {} on facts lost and {last} (paired over those scenarios, or within {}%): {settled}",
            with.join(", "),
            objective.tie * 100.0
        ));
    }
    if let Some(runner) = leaderboard.get(1) {
        why.push_str(&format!(
            "; the runner-up, {}, qualifies on {} and over the {} both qualify on loses {} facts a run, at a median {} and worst {}",
            brief(&runner.strategy),
            runner.qualified,
            count(runner.over, "scenario"),
            fraction(runner.facts_lost.unwrap_or(0.0)),
            runner.median_regret.map_or("—".into(), signed),
            runner.worst_regret.map_or("—".into(), signed),
        ));
        // The trade in words, when the runner-up keeps more facts on the scenarios both qualify
        // on and does not tie with the pick.
        let tied = tie.is_some_and(|(with, _)| with.contains(&runner.strategy));
        if let Some((p, r, n)) = trade
            && r < p
            && fraction(r) != fraction(p)
            && !tied
        {
            let times = if r > 0.0 && p / r >= 2.0 {
                format!(", {:.0} times fewer", p / r)
            } else {
                String::new()
            };
            let coverage = if runner.qualified < pick.qualified {
                format!(
                    ", but qualifies on {} fewer",
                    count(pick.qualified - runner.qualified, "scenario")
                )
            } else {
                String::new()
            };
            why.push_str(&format!(
                ": choosing it loses {} facts a run instead of {} on the {} both qualify on{times}{coverage}",
                fraction(r),
                fraction(p),
                count(n, "scenario"),
            ));
        }
    }
    // How the pick stands against each native default that ran (a preset), the runner-up aside.
    let natives: Vec<String> = leaderboard
        .iter()
        .skip(2)
        .filter(|s| {
            s.strategy
                .parse::<ctxbench_compact::compact::Strategy>()
                .is_ok_and(|p| p.is_preset())
        })
        .map(|s| match s.median_regret {
            Some(median) => format!(
                "{} qualifies on {}, loses {} facts a run over the {} both qualify on, at a median {} of each scenario's pick",
                brief(&s.strategy),
                s.qualified,
                fraction(s.facts_lost.unwrap_or(0.0)),
                count(s.over, "scenario"),
                signed(median)
            ),
            None => format!("{} qualifies on {}", brief(&s.strategy), s.qualified),
        })
        .collect();
    if !natives.is_empty() {
        why.push_str(&format!("; against the native defaults: {}", natives.join("; ")));
    }
    why
}

/// A strategy's short name, for sentences.
fn brief(canonical: &str) -> String {
    canonical
        .parse::<ctxbench_compact::compact::Strategy>()
        .map_or_else(|_| canonical.to_owned(), |s| s.brief())
}

/// A mean count for people: `0`, `0.35`, `2.1`.
pub fn fraction(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else if x < 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.1}")
    }
}
