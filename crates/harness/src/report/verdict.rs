//! Verdicts for people and machines: the ranked table of each scenario with its verdict line,
//! the suite's leaderboard and recommendation, and `verdict.json`.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::table::{align, markdown_table, wrap_names};
use crate::human::{count, dollars, percent, thousands, wrap};
use crate::report::ResultRow;
use crate::verdict::{
    Config, Estimate, Group, Key, Objective, STABLE_SEEDS, Sensitivity, Suite, Verdict, fraction, signed,
};

/// How the text shows strategies and disqualified runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct Style {
    /// Canonical names instead of short ones, and no width limit.
    pub wide: bool,
    /// Dim disqualified runs with terminal escapes.
    pub dim: bool,
}

/// The widest a line of the text gets, unless `wide`.
const WIDTH: usize = 120;

/// The widest the strategy column gets before names wrap onto more lines, so that the table
/// keeps to 120 columns.
const STRATEGY_WIDTH: usize = 40;

/// Short names for people, each unique: a strategy's brief name (only its parameters that differ
/// from their defaults), or its canonical one with `wide`.
pub struct Labels(BTreeMap<String, String>);

impl Labels {
    /// The labels of every strategy in `rows`, and of the strategies they were tuned from.
    pub fn new(rows: &[ResultRow], wide: bool) -> Labels {
        let label = |strategy: &ctxbench_compact::compact::Strategy| {
            let canonical = strategy.to_string();
            let label = if wide { canonical.clone() } else { strategy.brief() };
            (canonical, label)
        };
        let families = rows
            .iter()
            .filter_map(|r| r.family.as_deref()?.parse::<ctxbench_compact::compact::Strategy>().ok());
        Labels(
            rows.iter()
                .map(|r| label(&r.settings.strategy))
                .chain(families.map(|s| label(&s)))
                .collect(),
        )
    }

    /// The label of a configuration: its strategy's, and its target when tuning lowered it
    /// (`truncate:trigger=cold+drop @0.4`).
    pub fn of_config(&self, c: &Config<'_>) -> String {
        let s = c.settings();
        match s.target.filter(|t| *t < s.threshold) {
            Some(t) => format!("{} @{t}", self.of(&s.strategy)),
            None => self.of(&s.strategy),
        }
    }

    /// The label of a strategy.
    pub fn of(&self, strategy: &ctxbench_compact::compact::Strategy) -> String {
        self.of_name(&strategy.to_string())
    }

    /// The label of a canonical name.
    pub fn of_name(&self, canonical: &str) -> String {
        self.0.get(canonical).cloned().unwrap_or_else(|| canonical.to_owned())
    }

    /// Each short label that is not its canonical name, with that name, by label.
    pub fn abbreviations(&self) -> Vec<(&str, &str)> {
        let mut pairs: Vec<(&str, &str)> = self
            .0
            .iter()
            .filter(|(c, l)| c != l)
            .map(|(c, l)| (l.as_str(), c.as_str()))
            .collect();
        pairs.sort();
        pairs
    }

    /// The legend of the abbreviations, for the terminal (empty when there is none).
    pub fn legend(&self) -> String {
        let pairs = self.abbreviations();
        if pairs.is_empty() {
            return String::new();
        }
        let width = pairs.iter().map(|(l, _)| l.chars().count()).max().unwrap_or(0);
        let mut out = String::from("short names, with the defaults they stand for:\n");
        for (label, canonical) in pairs {
            out.push_str(&format!("  {label:width$}  {canonical}\n"));
        }
        out
    }
}

const HEADERS: [&str; 11] = [
    "#",
    "strategy",
    "cost",
    "cache",
    "tokens sent",
    "calls",
    "peak",
    "facts lost",
    "lost in",
    "needs unmet",
    "refetches",
];

/// A mean for people: whole when it is, else to a tenth (`12`, `12.4`).
fn mean(e: Estimate) -> String {
    if e.mean.fract() == 0.0 || e.mean >= 100.0 {
        thousands(e.mean.round() as u64)
    } else if e.mean < 1.0 {
        format!("{:.2}", e.mean)
    } else {
        format!("{:.1}", e.mean)
    }
}

/// Dollars with the interval's half width when the seeds differ: `$0.0187 ±0.0004`.
fn money(e: Estimate) -> String {
    if e.half_width() >= 0.00005 {
        format!("{} ±{:.4}", dollars(e.mean), e.half_width())
    } else {
        dollars(e.mean)
    }
}

/// Facts lost of those declared: `0/4`, `0.65/4`.
fn facts_of(c: &Config<'_>) -> String {
    format!("{}/{}", mean(c.facts_lost()), c.facts())
}

/// In how many seeds it lost a fact: `13/20`, or `—` for one seed.
fn lost_in(c: &Config<'_>) -> String {
    let r = c.lost_in();
    if r.n < 2 {
        "—".into()
    } else {
        format!("{}/{}", r.k, r.n)
    }
}

/// Whether the scenario's pick is fragile (marked `1*` in its table).
fn fragile(verdict: &Verdict<'_>) -> bool {
    verdict.sensitivity.as_ref().is_some_and(|s| s.fragile)
}

/// One line of a scenario's table: a group's rank (— when disqualified), its names, its figures.
fn cells(rank: Option<usize>, fragile: bool, names: String, c: &Config<'_>) -> Vec<String> {
    vec![
        rank.map_or_else(
            || "—".to_owned(),
            |k| if k == 1 && fragile { "1*".into() } else { k.to_string() },
        ),
        names,
        c.cost().map_or_else(|| "—".to_owned(), money),
        percent(c.mean_of(|m| m.cache_hit_rate).mean),
        mean(c.mean_of(|m| m.tokens_sent as f64)),
        mean(c.mean_of(|m| m.model_calls as f64)),
        mean(c.mean_of(|m| m.peak_request_tokens as f64)),
        facts_of(c),
        lost_in(c),
        mean(c.mean_of(|m| m.needs_unmet as f64)),
        mean(c.mean_of(|m| m.refetches as f64)),
    ]
}

/// Each group's rank (`None`: disqualified) and strategy labels, best first.
fn ranked_groups<'v>(verdict: &'v Verdict<'_>, labels: &Labels) -> Vec<(Option<usize>, Vec<String>, &'v Group<'v>)> {
    verdict
        .groups()
        .enumerate()
        .map(|(k, g)| {
            let names = g.configs.iter().map(|c| labels.of_config(c)).collect();
            (g.why.is_none().then_some(k + 1), names, g)
        })
        .collect()
}

/// The scenario's name, with its requests, window and seeds.
fn heading(verdict: &Verdict<'_>) -> String {
    let Some(c) = verdict.groups().next().map(Group::lead) else {
        return verdict.scenario.to_owned();
    };
    let seeds = verdict
        .groups()
        .flat_map(|g| &g.configs)
        .map(Config::seeds)
        .max()
        .unwrap_or(1);
    format!(
        "{} · {} · window {} · {}",
        verdict.scenario,
        count(c.first().requests, "request"),
        c.settings().window.map_or("—".into(), thousands),
        count(seeds, "seed")
    )
}

/// One scenario's ranked table, disqualified runs last with why, and its verdict line.
pub fn scenario_text(verdict: &Verdict<'_>, objective: &Objective, labels: &Labels, style: Style) -> String {
    let width = if style.wide { usize::MAX } else { STRATEGY_WIDTH };
    // Names that do not fit wrap onto rows of their own; why a group is out goes below it.
    let mut rows: Vec<Vec<String>> = Vec::new();
    // Per row: whether it is out, and the reason to print after it.
    let mut marks: Vec<(bool, Option<&str>)> = Vec::new();
    for (rank, names, group) in ranked_groups(verdict, labels) {
        let mut wrapped = wrap_names(&names, width).into_iter();
        rows.push(cells(
            rank,
            fragile(verdict),
            wrapped.next().unwrap_or_default(),
            group.lead(),
        ));
        marks.push((rank.is_none(), None));
        for more in wrapped {
            let mut blank = vec![String::new(); HEADERS.len()];
            blank[1] = more;
            rows.push(blank);
            marks.push((rank.is_none(), None));
        }
        if let Some(last) = marks.last_mut() {
            last.1 = group.why.as_deref();
        }
    }
    let lines = align(&HEADERS, &rows, &[1], "  ");
    let indent = " ".repeat(lines[0].find("strategy").unwrap_or(0));
    let mut out = format!("{}\n{}\n", heading(verdict), lines[0]);
    for (line, (out_of_rank, why)) in lines[1..].iter().zip(marks) {
        let mut text = format!("{line}\n");
        if let Some(why) = why {
            text.push_str(&format!("{indent}└ {why}\n"));
        }
        if out_of_rank && style.dim {
            text = format!("\x1b[2m{}\x1b[0m\n", text.trim_end_matches('\n'));
        }
        out.push_str(&text);
    }
    out.push_str(&wrap(
        &format!("→ {}", verdict_line(verdict, objective, labels)),
        WIDTH,
        "  ",
        "    ",
    ));
    out
}

/// One line of a table of runs, for the page: its cells, its strategies' labels joined by ", ",
/// and whether it is out of the ranking.
pub(crate) struct RunLine {
    pub cells: Vec<String>,
    pub strategies: String,
    pub out: bool,
}

/// A scenario's table with a `why not` column: headers, and a line per group.
pub(crate) fn scenario_cells(verdict: &Verdict<'_>, labels: &Labels) -> (Vec<&'static str>, Vec<RunLine>) {
    let mut headers = HEADERS.to_vec();
    headers.push("why not");
    let rows = ranked_groups(verdict, labels)
        .into_iter()
        .map(|(rank, names, group)| {
            let names = names.join(", ");
            let mut row = cells(rank, fragile(verdict), names.clone(), group.lead());
            row.push(group.why.clone().unwrap_or_default());
            RunLine {
                cells: row,
                strategies: names,
                out: rank.is_none(),
            }
        })
        .collect();
    (headers, rows)
}

/// The same in Markdown: a heading, the table with a `why not` column, and the verdict.
pub fn scenario_markdown(verdict: &Verdict<'_>, objective: &Objective, labels: &Labels) -> String {
    let (headers, rows) = scenario_cells(verdict, labels);
    let rows: Vec<Vec<String>> = rows.into_iter().map(|line| line.cells).collect();
    format!(
        "### {}\n\n{}\n**Verdict:** {}.\n",
        heading(verdict),
        markdown_table(&headers, &rows, &[1, HEADERS.len()]),
        verdict_line(verdict, objective, labels)
    )
}

/// In how many seeds a configuration lost a fact, when it ran several and lost any: ` in 20 of
/// 20 seeds`.
fn seeds_lost(c: &Config<'_>) -> String {
    let r = c.lost_in();
    if r.n > 1 && r.k > 0 {
        format!(" in {} of {} seeds", r.k, r.n)
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
        _ => format!("{} tokens", mean(c.mean_of(|m| m.tokens_sent as f64))),
    }
}

/// The spend's mean, for comparisons (cost without any price on facts).
fn spend_mean(objective: &Objective, c: &Config<'_>) -> f64 {
    match objective.spend() {
        Key::Cost => c.cost().map_or(f64::INFINITY, |e| e.mean),
        _ => c.mean_of(|m| m.tokens_sent as f64).mean,
    }
}

/// How much less or more `value` is than `base`: "15% cheaper", "3.1% dearer".
fn cheaper(value: f64, base: f64, objective: &Objective) -> String {
    let (less, more) = match objective.spend() {
        Key::Cost => ("cheaper", "dearer"),
        _ => ("fewer tokens", "more tokens"),
    };
    let share = |p: f64| {
        if p < 10.0 {
            format!("{p:.1}%")
        } else {
            format!("{p:.0}%")
        }
    };
    if base == 0.0 || value == base {
        return format!(
            "as {}",
            if objective.spend() == Key::Cost {
                "cheap"
            } else {
                "many tokens"
            }
        );
    }
    let p = (value - base).abs() / base * 100.0;
    if value < base {
        format!("{} {less}", share(p))
    } else {
        format!("{} {more}", share(p))
    }
}

/// A scenario's verdict in one sentence: the pick with its figures and intervals, how a tie was
/// broken, what `none` would do, and the trade against the front.
pub fn verdict_line(verdict: &Verdict<'_>, objective: &Objective, labels: &Labels) -> String {
    let Some(best) = verdict.ranked.first() else {
        return "no strategy qualifies: every run overflowed, broke pairing or stopped (see why above)".into();
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
    // A tie is worth a word when nothing but simplicity settled it.
    if let Some(tie) = verdict.tie.as_ref().filter(|t| t.broken_by.is_none()) {
        let with: Vec<String> = tie.with.iter().map(|n| labels.of_name(n)).collect();
        let on: Vec<&str> = tie.on.iter().map(|k| k.name()).collect();
        notes.push(format!(
            "ties with {} on {} (within {}% or overlapping intervals): the simpler wins",
            with.join(", "),
            on.join(" and "),
            objective.tie * 100.0
        ));
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

/// Whether the pick holds: "holds under 13 of 14 prices and in 18 of 20 seeds; fragile: flips
/// to truncate+summarize under claude-haiku-4-5 (its cache minimum of 4,096 tokens is never
/// reached)".
pub fn holds(s: &Sensitivity, labels: &Labels) -> String {
    let mut text = format!("holds under {} of {} prices", s.holds, s.of);
    if let Some(rate) = s.seed_win_rate {
        let wins = (rate * s.seeds as f64).round() as usize;
        text.push_str(&format!(" and wins in {wins} of {} seeds", s.seeds));
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
                let to = pick
                    .as_deref()
                    .map_or("nothing qualifying".to_owned(), |p| labels.of_name(p));
                let cause = cause.as_deref().map_or(String::new(), |c| format!(" ({c})"));
                format!("{to} under {}{cause}", prices.join(", "))
            })
            .collect();
        if !flips.is_empty() {
            text.push_str(&format!(": flips to {}", flips.join(", ")));
        }
        if s.seed_win_rate.is_some_and(|w| w < STABLE_SEEDS) {
            text.push_str(if flips.is_empty() { ": " } else { "; " });
            text.push_str("wins in under 80% of seeds");
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

pub(crate) const SUITE_HEADERS: [&str; 7] = [
    "strategy",
    "qualifies",
    "first",
    "over",
    "facts lost a run",
    "median regret",
    "worst regret",
];

/// The leaderboard's rows.
pub(crate) fn suite_rows(suite: &Suite, labels: &Labels) -> Vec<Vec<String>> {
    suite
        .leaderboard
        .iter()
        .map(|s| {
            let mut names = vec![labels.of_name(&s.strategy)];
            names.extend(s.alike.iter().map(|n| labels.of_name(n)));
            vec![
                names.join(", "),
                format!("{}/{}", s.qualified, s.scenarios),
                s.first.to_string(),
                count(s.over, "scenario"),
                s.facts_lost.map_or("—".into(), fraction),
                s.median_regret.map_or("—".into(), signed),
                s.worst_regret.map_or("—".into(), signed),
            ]
        })
        .collect()
}

/// What the leaderboard's columns mean.
pub(crate) fn suite_note(suite: &Suite) -> String {
    let mut note = format!(
        "regret: a strategy's {} over each scenario's pick, minus one; over: the scenarios its figures are over (where every contender qualifies, or where it and the pick both do); qualifies and first count discriminating scenarios only",
        suite
            .objective
            .last()
            .describe()
            .split(' ')
            .next_back()
            .unwrap_or("figure")
    );
    if !suite.not_discriminating.is_empty() {
        note.push_str(&format!(
            "; not discriminating (every run ties, or none qualifies), left out: {}",
            suite.not_discriminating.join(", ")
        ));
    }
    note
}

/// `text` with its first letter in capitals, to open a sentence.
pub(crate) fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

/// The recommendation, in one line.
fn recommendation(suite: &Suite, labels: &Labels) -> String {
    match &suite.pick {
        Some(pick) => format!("recommendation: {}, because {}", labels.of_name(pick), suite.why),
        None => format!("recommendation: none to make; {}", suite.why),
    }
}

/// The suite's leaderboard and its recommendation.
pub fn suite_text(suite: &Suite, scenarios: usize, labels: &Labels) -> String {
    let mut out = format!(
        "suite · {} ({} discriminating) · ranked by coverage, then facts lost, then median and worst regret\n",
        count(scenarios, "scenario"),
        suite.scenarios
    );
    for line in align(&SUITE_HEADERS, &suite_rows(suite, labels), &[0], "  ") {
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(&wrap(&format!("({})", suite_note(suite)), WIDTH, "  ", "   "));
    out.push_str(&wrap(&recommendation(suite, labels), WIDTH, "", "  "));
    out
}

/// The same in Markdown.
pub fn suite_markdown(suite: &Suite, scenarios: usize, labels: &Labels) -> String {
    format!(
        "## Suite\n\n{} ({} discriminating) · ranked by coverage, then facts lost, then median and worst regret.\n\n{}\n{}.\n\n**{}.**\n",
        count(scenarios, "scenario"),
        suite.scenarios,
        markdown_table(&SUITE_HEADERS, &suite_rows(suite, labels), &[0]),
        capitalized(&suite_note(suite)),
        capitalized(&recommendation(suite, labels))
    )
}

/// A figure over seeds in `verdict.json`.
fn estimate_json(e: Option<Estimate>) -> Value {
    e.map_or(Value::Null, |e| json!({"mean": e.mean, "low": e.low, "high": e.high}))
}

/// `verdict.json`: every scenario's ranking, front, trade and ties, and the suite's leaderboard,
/// canonical names.
pub fn verdict_json(verdicts: &[Verdict<'_>], suite: &Suite) -> Value {
    let objective = &suite.objective;
    let labels = Labels(BTreeMap::new());
    let entry = |g: &Group<'_>| -> Value {
        let c = g.lead();
        let lost = c.lost_in();
        let mut e = json!({
            "strategy": c.strategy(),
            "strategies": g.strategies(),
            "seeds": c.seeds(),
            "cost_usd": estimate_json(c.cost()),
            "tokens_sent": estimate_json(Some(c.mean_of(|m| m.tokens_sent as f64))),
            "model_calls": estimate_json(Some(c.mean_of(|m| m.model_calls as f64))),
            "facts_lost": estimate_json(Some(c.facts_lost())),
            "facts": c.facts(),
            "lost_in": {"seeds": lost.k, "of": lost.n, "low": lost.low, "high": lost.high},
            "needs_unmet": estimate_json(Some(c.mean_of(|m| m.needs_unmet as f64))),
            "completed": c.rows.iter().all(|r| r.metrics.completed),
        });
        if let Some(why) = &g.why {
            e["why"] = json!(why);
        }
        e
    };
    let scenarios: Vec<Value> = verdicts
        .iter()
        .map(|v| {
            json!({
                "scenario": v.scenario,
                "ranked": v.ranked.iter().map(entry).collect::<Vec<_>>(),
                "disqualified": v.disqualified.iter().map(entry).collect::<Vec<_>>(),
                "pick": v.pick().map(Config::strategy),
                "front": v.front.iter().map(|&i| v.ranked[i].lead().strategy()).collect::<Vec<_>>(),
                "trade": trade(v, objective, &labels),
                "ties": v.tie.as_ref().map(|t| json!({
                    "with": t.with,
                    "on": t.on.iter().map(|k| k.name()).collect::<Vec<_>>(),
                    "broken_by": t.broken_by.map_or("simpler strategy", |k| k.name()),
                })),
                "discriminates": v.discriminates,
                "sensitivity": v.sensitivity.as_ref().map(|s| json!({
                    "prices": s.prices,
                    "holds": s.holds,
                    "of": s.of,
                    "flips": s.flips,
                    "seed_win_rate": s.seed_win_rate,
                    "seeds": s.seeds,
                    "fragile": s.fragile,
                })),
                "verdict": verdict_line(v, objective, &labels),
            })
        })
        .collect();
    let leaderboard: Vec<Value> = suite
        .leaderboard
        .iter()
        .map(|s| {
            json!({
                "strategy": s.strategy,
                "alike": s.alike,
                "qualified": s.qualified,
                "scenarios": s.scenarios,
                "over": s.over,
                "facts_lost": s.facts_lost,
                "regret": {"median": s.median_regret, "worst": s.worst_regret},
                "first": s.first,
            })
        })
        .collect();
    let pick = suite.leaderboard.first().filter(|_| suite.pick.is_some());
    json!({
        "schema_version": 2,
        "objective": objective.figures(),
        "fact_cost_usd": objective.fact_cost,
        "tie": objective.tie,
        "scenarios": scenarios,
        "suite": {
            "leaderboard": leaderboard,
            "pick": suite.pick,
            "why": suite.why,
            "coverage": pick.map(|s| s.qualified),
            "regret": pick.map(|s| json!({"median": s.median_regret, "worst": s.worst_regret})),
            "not_discriminating": suite.not_discriminating,
        },
    })
}

/// Every scenario's table and verdict, the legend of short names, and the suite's leaderboard
/// (when there is more than one scenario): what `compare` prints.
pub fn verdict_text(verdicts: &[Verdict<'_>], suite: &Suite, labels: &Labels, style: Style) -> String {
    let mut parts: Vec<String> = verdicts
        .iter()
        .map(|v| scenario_text(v, &suite.objective, labels, style))
        .collect();
    let legend = labels.legend();
    if !legend.is_empty() {
        parts.push(legend);
    }
    if verdicts.len() > 1 {
        parts.push(suite_text(suite, verdicts.len(), labels));
    }
    parts.join("\n")
}

/// The same in Markdown, for `summary.md`.
pub fn verdict_markdown(verdicts: &[Verdict<'_>], suite: &Suite, labels: &Labels) -> String {
    let mut out = String::from("## Verdicts\n\n");
    for v in verdicts {
        out.push_str(&scenario_markdown(v, &suite.objective, labels));
        out.push('\n');
    }
    if verdicts.len() > 1 {
        out.push_str(&suite_markdown(suite, verdicts.len(), labels));
        out.push('\n');
    }
    let pairs = labels.abbreviations();
    if !pairs.is_empty() {
        out.push_str("Short names, with the defaults they stand for:\n\n");
        for (label, canonical) in pairs {
            out.push_str(&format!("- `{label}`: `{canonical}`\n"));
        }
        out.push('\n');
    }
    out
}
