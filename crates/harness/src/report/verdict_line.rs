//! A scenario's verdict in words: the pick with its figures, what `none` would do, how a tie was
//! broken, the trade against the front, and whether the pick holds under other prices and seeds.

use super::labels::{Labels, cheaper, mean, money, spend_mean};
use crate::human::{count, thousands};
use crate::verdict::{Config, Decider, Figure, Key, Objective, STABLE_SEEDS, Sensitivity, Tie, Verdict};

/// In how many seeds a configuration lost a fact, when it ran several and lost any: ` in 20 of
/// 20 seeds`.
fn seeds_lost(c: &Config<'_>) -> String {
    let r = c.lost_in();
    if r.n > 1 && r.k > 0 {
        format!(" in {} of {} seeds", thousands(r.k as u64), thousands(r.n as u64))
    } else {
        String::new()
    }
}

/// What the pick loses: `0 of 4 facts lost`, `2 of 4 facts lost in 20 of 20 seeds`.
fn loses(c: &Config<'_>) -> String {
    format!(
        "{} of {} lost{}",
        mean(c.facts_lost()),
        count(c.facts(), "fact"),
        seeds_lost(c)
    )
}

/// A spend for people: `$0.0187 ±0.0004`, `18,431 tokens`.
fn spend_of(objective: &Objective, c: &Config<'_>) -> String {
    match objective.spend() {
        Key::Cost => c.cost().map_or_else(|| "—".to_owned(), money),
        _ => format!("{} tokens", mean(c.mean(Figure::TokensSent))),
    }
}

/// A configuration's figures over its seeds, as a verdict gives them: `$0.0187 ±0.0004, 18,431
/// tokens sent, 11 calls, 0.05 of 4 facts lost in 1 of 20 seeds`.
pub fn figures(c: &Config<'_>) -> String {
    let cost = c.cost().map_or(String::new(), |e| format!("{}, ", money(e)));
    format!(
        "{cost}{} tokens sent, {} calls, {}",
        mean(c.mean(Figure::TokensSent)),
        mean(c.mean(Figure::ModelCalls)),
        loses(c)
    )
}

/// A scenario's verdict in one sentence: the pick with its figures and intervals, how a tie was
/// broken, what `none` would do, and the trade against the front.
pub fn verdict_line(verdict: &Verdict<'_>, objective: &Objective, labels: &Labels) -> String {
    let Some(best) = verdict.ranked.first() else {
        return "no strategy qualifies: every run overflowed, broke pairing or stopped (each one's overflows and stops are in the table)".into();
    };
    let pick = best.lead();
    let label = |c: &Config<'_>| labels.of_config(c);
    let mut line = format!("pick {}", label(pick));
    if best.configs.len() > 1 {
        let others: Vec<String> = best.configs[1..].iter().map(label).collect();
        line.push_str(&format!(" (same figures: {})", others.join(", ")));
    }
    line.push_str(&format!(": {}, {}", loses(pick), spend_of(objective, pick)));
    let mut notes = Vec::new();
    let is_none = best.configs.iter().any(|c| c.settings().strategy.is_none());
    match verdict.baseline() {
        Some(_) if is_none && verdict.ranked.len() == 1 => notes.push("no compaction needed".to_owned()),
        Some(_) if is_none => notes.push("no compaction pays off here".to_owned()),
        Some(none) => match &none.why {
            None => notes.push(format!(
                "{} than none",
                cheaper(spend_mean(objective, pick), spend_mean(objective, none), objective)
            )),
            Some(why) => notes.push(format!(
                "none does not qualify ({})",
                why.split(':').next().unwrap_or(why)
            )),
        },
        None => {}
    }
    // A tie is worth a word when no key settled it (a key settling it is the objective at work).
    if let Some(tie) = verdict.tie.as_ref().filter(|t| !matches!(t.decided, Decider::Key(_))) {
        notes.extend(tie_note(tie, pick, objective, labels));
    }
    if verdict.one_draw {
        notes.push(
            "rests on one draw: one seed ran and its runs draw at random, so no interval can be given (run --seeds 20)"
                .into(),
        );
    }
    if let Some(natives) = super::natives::against_natives(verdict, objective, labels) {
        notes.push(natives);
    }
    if let Some(trade) = trade(verdict, objective, labels) {
        notes.push(trade);
    }
    if let Some(s) = &verdict.sensitivity {
        notes.push(holds(s, labels));
    }
    if best.configs.len() == 1 && verdict.ranked.len() == 1 && verdict.baseline().is_none_or(|n| n.why.is_some()) {
        notes.push("no other strategy qualifies".into());
    }
    for note in notes {
        line.push_str(&format!("; {note}"));
    }
    line
}

/// How the pick was reached among runs tied with it, naming only runs tied with it on every key
/// named: `ties with drop on facts lost and cost (paired over 20 seeds, or within 1%): the
/// simpler wins`.
fn tie_note(tie: &Tie, pick: &Config<'_>, objective: &Objective, labels: &Labels) -> Option<String> {
    let (keys, with) = tie.tied_throughout();
    if with.is_empty() {
        return None;
    }
    let with: Vec<String> = with.iter().map(|n| labels.of_name(n)).collect();
    let on: Vec<&str> = keys.iter().map(|k| k.noun()).collect();
    let how = match pick.seeds() {
        1 => format!("within {}%", objective.tie * 100.0),
        n => format!("paired over {n} seeds, or within {}%", objective.tie * 100.0),
    };
    let decided = match tie.decided {
        Decider::Key(k) => format!("{} decides", k.describe()),
        Decider::Simpler => "the simpler wins".into(),
        Decider::Name => "none is simpler: the canonical name decided".into(),
    };
    Some(format!(
        "ties with {} on {} ({how}): {decided}",
        with.join(", "),
        on.join(" and ")
    ))
}

/// Whether the pick holds: "holds under 13 of 14 prices and in 18 of 20 seeds; fragile: flips
/// to "truncate+summarize" (quoted: `none` is a strategy, not nothing) under claude-haiku-4-5 (its cache minimum of 4,096 tokens is never
/// reached)".
pub fn holds(s: &Sensitivity, labels: &Labels) -> String {
    let mut text = if s.of == 0 {
        "not checked under other prices (unpriced)".to_owned()
    } else {
        format!("holds under {} of {} prices", s.holds, s.of)
    };
    if !s.profiles.is_empty() {
        text.push_str(&format!(
            "{} {} of {} other summarizer profiles",
            if s.of == 0 { "; holds under" } else { "," },
            s.profiles_hold,
            s.profiles.len()
        ));
    }
    if let Some(rate) = s.seed_win_rate {
        let wins = (rate * s.seeds as f64).round() as usize;
        text.push_str(&format!(
            " and wins in {} of {} seeds",
            thousands(wins as u64),
            thousands(s.seeds as u64)
        ));
    }
    if s.fragile {
        text.push_str("; * fragile");
        // Flips to the same pick for the same cause are said once, their prices together.
        let mut alike: Vec<(&Option<String>, &Option<String>, Vec<&str>)> = Vec::new();
        for f in &s.flips {
            match alike.iter_mut().find(|(p, c, _)| *p == &f.pick && *c == &f.cause) {
                Some((_, _, prices)) => prices.push(&f.price),
                None => alike.push((&f.pick, &f.cause, vec![&f.price])),
            }
        }
        let flips: Vec<String> = alike
            .into_iter()
            .map(|(pick, cause, prices)| {
                let to = pick.as_deref().map_or("nothing qualifying".to_owned(), |p| {
                    format!("\"{}\"", labels.of_name(p))
                });
                let cause = cause.as_deref().map_or(String::new(), |c| format!(" ({c})"));
                format!("{to} under {}{cause}", prices.join(", "))
            })
            .collect();
        if !flips.is_empty() {
            text.push_str(&format!(": flips to {}", flips.join(", ")));
        }
        let mut said = !flips.is_empty();
        if s.seed_win_rate.is_some_and(|w| w < STABLE_SEEDS) {
            text.push_str(if said { "; " } else { ": " });
            text.push_str("wins in under 80% of seeds");
            said = true;
        }
        if s.one_draw {
            text.push_str(if said { "; " } else { ": " });
            text.push_str("one draw");
        }
    }
    text
}

/// The trade the pick makes against the front: the cheapest run on it, when that is not the
/// pick, and what it loses; or, when the pick loses facts, the run that keeps more.
pub fn trade(verdict: &Verdict<'_>, objective: &Objective, labels: &Labels) -> Option<String> {
    let pick = verdict.pick()?;
    let label = |c: &Config<'_>| labels.of_config(c);
    let front: Vec<&Config<'_>> = verdict.front.iter().map(|&i| verdict.ranked[i].lead()).collect();
    let mut parts = Vec::new();
    if let Some(cheapest) = front.first().filter(|c| c.settings() != pick.settings()) {
        parts.push(format!(
            "{} is {} and loses {} of {}{}",
            label(cheapest),
            cheaper(spend_mean(objective, cheapest), spend_mean(objective, pick), objective),
            mean(cheapest.facts_lost()),
            count(cheapest.facts(), "fact"),
            seeds_lost(cheapest)
        ));
    }
    let lost = pick.facts_lost().mean;
    if lost > 0.0
        && let Some(keeper) = front
            .iter()
            .filter(|c| c.facts_lost().mean < lost)
            .min_by(|a, b| a.facts_lost().mean.total_cmp(&b.facts_lost().mean))
    {
        parts.push(format!(
            "{} loses {} of {} for {}",
            label(keeper),
            mean(keeper.facts_lost()),
            count(keeper.facts(), "fact"),
            cheaper(spend_mean(objective, keeper), spend_mean(objective, pick), objective)
        ));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// The runs that loop (DESIGN §23), most first: each configuration whose compactions thrash at
/// least once a run on average, with its thrashing compactions a run; `None` when none does.
pub fn loops(verdict: &Verdict<'_>, labels: &Labels) -> Option<String> {
    let mut looping: Vec<_> = verdict
        .groups()
        .flat_map(|g| &g.configs)
        .map(|c| (c.mean(Figure::Thrash), labels.of_config(c)))
        .filter(|(thrash, _)| thrash.mean >= 1.0)
        .collect();
    if looping.is_empty() {
        return None;
    }
    looping.sort_by(|a, b| b.0.mean.total_cmp(&a.0.mean).then_with(|| a.1.cmp(&b.1)));
    let named: Vec<String> = looping
        .iter()
        .map(|(n, label)| format!("{label} {}", mean(*n)))
        .collect();
    Some(format!(
        "compaction loops (compactions a run that freed under a tenth of the limit or came on the call after another; \
         a lower --target frees more at once): {}",
        named.join(", ")
    ))
}
