//! Verdicts for people and machines: the ranked table of each scenario with its verdict line,
//! the suite's leaderboard and recommendation, and `verdict.json`.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::table::{align, markdown_table, wrap_names};
use crate::human::{count, dollars, percent, thousands, wrap};
use crate::metrics::RunMetrics;
use crate::report::ResultRow;
use crate::verdict::{Group, Objective, Suite, Verdict, disqualified, relative};

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
    /// The labels of every strategy in `rows`.
    pub fn new(rows: &[ResultRow], wide: bool) -> Labels {
        Labels(
            rows.iter()
                .map(|r| {
                    let canonical = r.settings.strategy.to_string();
                    let label = if wide {
                        canonical.clone()
                    } else {
                        r.settings.strategy.brief()
                    };
                    (canonical, label)
                })
                .collect(),
        )
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

const HEADERS: [&str; 9] = [
    "#",
    "strategy",
    "cost",
    "cache",
    "tokens sent",
    "calls",
    "peak",
    "facts lost",
    "refetches",
];

/// One line of a scenario's table: a group's rank (— when disqualified), its names, its figures.
fn cells(rank: Option<usize>, names: String, m: &RunMetrics) -> Vec<String> {
    vec![
        rank.map_or_else(|| "—".to_owned(), |k| k.to_string()),
        names,
        m.cost_usd.map_or_else(|| "—".to_owned(), dollars),
        percent(m.cache_hit_rate),
        thousands(m.tokens_sent),
        m.model_calls.to_string(),
        thousands(m.peak_request_tokens),
        format!("{}/{}", m.facts_lost, m.facts_needed),
        m.refetches.to_string(),
    ]
}

/// Each group's rank (`None`: disqualified) and strategy labels, best first.
fn ranked_groups<'v>(verdict: &'v Verdict<'_>, labels: &Labels) -> Vec<(Option<usize>, Vec<String>, &'v Group<'v>)> {
    verdict
        .groups()
        .enumerate()
        .map(|(k, g)| {
            let names = g.rows.iter().map(|r| labels.of(&r.settings.strategy)).collect();
            (g.why.is_none().then_some(k + 1), names, g)
        })
        .collect()
}

/// The scenario's name, with its requests and window.
fn heading(verdict: &Verdict<'_>) -> String {
    let Some(row) = verdict.groups().next().map(|g| g.rows[0]) else {
        return verdict.scenario.to_owned();
    };
    format!(
        "{} · {} · window {}",
        verdict.scenario,
        count(row.metrics.requests, "request"),
        row.settings.window.map_or("—".into(), thousands)
    )
}

/// One scenario's ranked table, disqualified runs last with why, and its verdict line.
pub fn scenario_text(verdict: &Verdict<'_>, objective: Objective, labels: &Labels, style: Style) -> String {
    let width = if style.wide { usize::MAX } else { STRATEGY_WIDTH };
    // Names that do not fit wrap onto rows of their own; why a group is out goes below it.
    let mut rows: Vec<Vec<String>> = Vec::new();
    // Per row: whether it is out, and the reason to print after it.
    let mut marks: Vec<(bool, Option<&str>)> = Vec::new();
    for (rank, names, group) in ranked_groups(verdict, labels) {
        let mut wrapped = wrap_names(&names, width).into_iter();
        rows.push(cells(rank, wrapped.next().unwrap_or_default(), group.metrics()));
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
            let mut row = cells(rank, names.clone(), group.metrics());
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
pub fn scenario_markdown(verdict: &Verdict<'_>, objective: Objective, labels: &Labels) -> String {
    let (headers, rows) = scenario_cells(verdict, labels);
    let rows: Vec<Vec<String>> = rows.into_iter().map(|line| line.cells).collect();
    format!(
        "### {}\n\n{}\n**Verdict:** {}.\n",
        heading(verdict),
        markdown_table(&headers, &rows, &[1, 9]),
        verdict_line(verdict, objective, labels)
    )
}

/// A scenario's verdict in one sentence: the pick, what it costs against `none` and the
/// runner-up, and what it loses.
pub fn verdict_line(verdict: &Verdict<'_>, objective: Objective, labels: &Labels) -> String {
    let Some(best) = verdict.ranked.first() else {
        return "no strategy qualifies: every run overflowed, broke pairing or stopped (see why above)".into();
    };
    let pick = best.rows[0];
    let label = |r: &ResultRow| labels.of(&r.settings.strategy);
    let value = objective.value(&pick.metrics);
    let mut line = format!("pick {}", label(pick));
    if best.rows.len() > 1 {
        let others: Vec<String> = best.rows[1..].iter().map(|r| label(r)).collect();
        line.push_str(&format!(" (same figures: {})", others.join(", ")));
    }
    let mut figures = vec![objective.spend(value)];
    let mut notes = Vec::new();
    match verdict.baseline() {
        Some(_) if best.rows.iter().any(|r| r.settings.strategy.is_none()) => {
            notes.push("no compaction needed".to_owned())
        }
        Some(none) => match disqualified(&none.metrics) {
            None => figures.push(format!("{} than none", relative(value, objective.value(&none.metrics)))),
            Some(why) => notes.push(format!(
                "none does not qualify ({})",
                why.split(':').next().unwrap_or(&why)
            )),
        },
        None => {}
    }
    match verdict.ranked.get(1) {
        Some(runner) if runner.rows[0].settings.strategy.is_none() => {
            if let Some(vs_none) = figures.last_mut() {
                vs_none.push_str(", the runner-up");
            }
        }
        Some(runner) => figures.push(format!(
            "{} than the runner-up ({})",
            relative(value, objective.value(runner.metrics())),
            label(runner.rows[0])
        )),
        None if best.rows.len() > 1 => notes.push("every qualifying strategy has the same figures".into()),
        None => notes.push("no other strategy qualifies".into()),
    }
    line.push_str(&format!(": {}", figures.join(", ")));
    for note in notes {
        line.push_str(&format!("; {note}"));
    }
    let m = &pick.metrics;
    line.push_str(&format!("; loses {} of {} facts", m.facts_lost, m.facts_needed));
    if m.refetches > 0 {
        line.push_str(&format!(" (refetched {})", m.refetches));
    }
    line
}

pub(crate) const SUITE_HEADERS: [&str; 6] = [
    "strategy",
    "qualifies",
    "first",
    "against the pick",
    "cost",
    "facts lost",
];

/// The leaderboard's rows.
pub(crate) fn suite_rows(suite: &Suite, labels: &Labels) -> Vec<Vec<String>> {
    suite
        .leaderboard
        .iter()
        .map(|s| {
            vec![
                labels.of_name(&s.strategy),
                format!("{}/{}", s.qualified, s.scenarios),
                s.first().to_string(),
                match (&s.against_pick, Some(&s.strategy) == suite.pick.as_ref()) {
                    (_, true) => "the pick".into(),
                    (Some(a), false) => format!("{} on {}", signed(a.change()), a.scenarios),
                    (None, false) => "—".into(),
                },
                s.cost_usd.map_or_else(|| "—".to_owned(), dollars),
                s.facts_lost.to_string(),
            ]
        })
        .collect()
}

pub(crate) const SUITE_NOTE: &str = "against the pick: its objective on the scenarios both qualify on; cost and facts lost: totals over the scenarios it qualifies on";

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
        "suite · {} · ranked by {}, then facts lost, then calls\n",
        count(scenarios, "scenario"),
        suite.objective.describe()
    );
    for line in align(&SUITE_HEADERS, &suite_rows(suite, labels), &[0], "  ") {
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(&wrap(&format!("({SUITE_NOTE})"), WIDTH, "  ", "   "));
    out.push_str(&wrap(&recommendation(suite, labels), WIDTH, "", "  "));
    out
}

/// The same in Markdown.
pub fn suite_markdown(suite: &Suite, scenarios: usize, labels: &Labels) -> String {
    format!(
        "## Suite\n\n{} · ranked by {}, then facts lost, then calls.\n\n{}\n{}.\n\n**{}.**\n",
        count(scenarios, "scenario"),
        suite.objective.describe(),
        markdown_table(&SUITE_HEADERS, &suite_rows(suite, labels), &[0]),
        capitalized(SUITE_NOTE),
        capitalized(&recommendation(suite, labels))
    )
}

/// `0.123` → `+12%`, `-0.031` → `-3.1%`.
fn signed(change: f64) -> String {
    if !change.is_finite() {
        return "more".into();
    }
    let p = change * 100.0;
    if p == 0.0 {
        "±0%".into()
    } else if p.abs() < 10.0 {
        format!("{p:+.1}%")
    } else {
        format!("{p:+.0}%")
    }
}

/// `verdict.json`: every scenario's ranking and the suite's leaderboard, canonical names.
pub fn verdict_json(verdicts: &[Verdict<'_>], suite: &Suite) -> Value {
    let objective = suite.objective;
    let entry = |g: &Group<'_>| -> Value {
        let m = g.metrics();
        let names = g.strategies();
        let mut e = json!({
            "strategy": names[0],
            "strategies": names,
            "cost_usd": m.cost_usd,
            "tokens_sent": m.tokens_sent,
            "model_calls": m.model_calls,
            "facts_lost": m.facts_lost,
            "facts_needed": m.facts_needed,
            "completed": m.completed,
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
                "pick": v.pick().map(|r| r.settings.strategy.to_string()),
            })
        })
        .collect();
    let leaderboard: Vec<Value> = suite
        .leaderboard
        .iter()
        .map(|s| {
            json!({
                "strategy": s.strategy,
                "qualified": s.qualified,
                "scenarios": s.scenarios,
                "cost_usd": s.cost_usd,
                "tokens_sent": s.tokens_sent,
                "facts_lost": s.facts_lost,
                "first": s.first(),
                "ranks": s.ranks,
                "against_pick": s.against_pick.map(|a| json!({
                    "scenarios": a.scenarios,
                    "change": a.change(),
                })),
            })
        })
        .collect();
    json!({
        "schema_version": 1,
        "objective": objective.figure(),
        "scenarios": scenarios,
        "suite": {"leaderboard": leaderboard, "pick": suite.pick, "why": suite.why},
    })
}

/// Every scenario's table and verdict, the legend of short names, and the suite's leaderboard
/// (when there is more than one scenario): what `compare` prints.
pub fn verdict_text(verdicts: &[Verdict<'_>], suite: &Suite, labels: &Labels, style: Style) -> String {
    let mut parts: Vec<String> = verdicts
        .iter()
        .map(|v| scenario_text(v, suite.objective, labels, style))
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
        out.push_str(&scenario_markdown(v, suite.objective, labels));
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
