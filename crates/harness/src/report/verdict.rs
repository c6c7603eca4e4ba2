//! Verdicts for people and machines: the ranked table of each scenario with its verdict line,
//! the suite's leaderboard and recommendation, and `verdict.json`.

pub use super::labels::Labels;
use super::labels::{mean, money};
use super::table::{align, markdown_table, room, wrap_names};
use super::verdict_line::{loops, verdict_line};
use crate::human::{count, percent, thousands, wrap};
use crate::verdict::{Config, Figure, Group, Objective, Suite, Verdict, fraction, signed};

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

/// The terminal's headers: the long ones on two lines, so that the strategy column keeps room.
const TERMINAL_HEADERS: [&str; 11] = [
    "#",
    "strategy",
    "cost",
    "cache",
    "tokens\nsent",
    "calls",
    "peak",
    "facts\nlost",
    "lost\nin",
    "needs\nunmet",
    "refetches",
];

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

/// The largest request, `✗` after it when the server rejected it (over the window).
fn peak(c: &Config<'_>) -> String {
    let rejected = c.refused();
    let text = mean(c.mean(Figure::PeakRequest));
    if rejected { format!("{text} ✗") } else { text }
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
        percent(c.mean(Figure::CacheHitRate).mean),
        mean(c.mean(Figure::TokensSent)),
        mean(c.mean(Figure::ModelCalls)),
        peak(c),
        facts_of(c),
        lost_in(c),
        mean(c.mean(Figure::NeedsUnmet)),
        mean(c.mean(Figure::Refetches)),
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

/// One scenario's ranked table, disqualified runs last with why, and its verdict line, within
/// 120 columns (`WIDTH`) unless `wide`: the strategy column takes what the figures leave, its names
/// wrapped.
pub fn scenario_text(verdict: &Verdict<'_>, objective: &Objective, labels: &Labels, style: Style) -> String {
    let groups = ranked_groups(verdict, labels);
    let figures: Vec<Vec<String>> = groups
        .iter()
        .map(|(rank, _, group)| cells(*rank, fragile(verdict), String::new(), group.lead()))
        .collect();
    let width = if style.wide {
        usize::MAX
    } else {
        room(&TERMINAL_HEADERS, &figures, 1, INDENT, WIDTH)
    };
    // Names that do not fit wrap onto rows of their own; why a group is out goes below it.
    let mut rows: Vec<Vec<String>> = Vec::new();
    // Per row: whether it is out, and the reason to print after it.
    let mut marks: Vec<(bool, Option<String>)> = Vec::new();
    // Why qualifying runs could not fit, each said once with the runs it is said of.
    let mut unfits: Vec<(String, Vec<String>)> = Vec::new();
    let names_of = |g: &Group<'_>| g.configs.iter().map(|c| labels.of_config(c)).collect::<Vec<_>>();
    for ((rank, names, group), mut figures) in groups.into_iter().zip(figures) {
        let mut wrapped = wrap_names(&names, width).into_iter();
        figures[1] = wrapped.next().unwrap_or_default();
        rows.push(figures);
        marks.push((rank.is_none(), None));
        for more in wrapped {
            let mut blank = vec![String::new(); HEADERS.len()];
            blank[1] = more;
            rows.push(blank);
            marks.push((rank.is_none(), None));
        }
        if let Some(last) = marks.last_mut() {
            last.1 = group.why.clone();
        }
        if group.why.is_none() {
            if let Some(unfit) = group.lead().unfit() {
                match unfits.iter_mut().find(|(why, _)| *why == unfit) {
                    Some((_, names)) => names.extend(names_of(group)),
                    None => unfits.push((unfit, names_of(group))),
                }
            }
        }
    }
    let table = align(&TERMINAL_HEADERS, &rows, &[1], INDENT);
    let names_at = table.head.last().and_then(|h| h.find("strategy")).unwrap_or(0);
    let indent = " ".repeat(names_at);
    let limit = if style.wide { usize::MAX } else { WIDTH };
    let mut out = wrap(&heading(verdict), limit, "", "  ");
    for line in &table.head {
        out.push_str(line);
        out.push('\n');
    }
    for (line, (out_of_rank, why)) in table.rows.iter().zip(marks) {
        let mut text = format!("{line}\n");
        if let Some(why) = why {
            text.push_str(&wrap(&format!("└ {why}"), limit, &indent, &format!("{indent}  ")));
        }
        if out_of_rank && style.dim {
            text = format!("\x1b[2m{}\x1b[0m\n", text.trim_end_matches('\n'));
        }
        out.push_str(&text);
    }
    for (why, names) in unfits {
        out.push_str(&wrap(&format!("  {}: {why}", names.join(", ")), limit, "", "    "));
    }
    out.push_str(&wrap(
        &format!("→ {}", verdict_line(verdict, objective, labels)),
        WIDTH,
        "  ",
        "    ",
    ));
    if let Some(loops) = loops(verdict, labels) {
        out.push_str(&wrap(&format!("↻ {loops}"), WIDTH, "  ", "    "));
    }
    out
}

/// Where the terminal's tables start.
const INDENT: &str = "  ";

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
    let loops = loops(verdict, labels).map_or(String::new(), |l| format!("\n**Loops:** {l}.\n"));
    format!(
        "### {}\n\n{}\n**Verdict:** {}.\n{loops}",
        heading(verdict),
        markdown_table(&headers, &rows, &[1, HEADERS.len()]),
        verdict_line(verdict, objective, labels)
    )
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

/// A leaderboard line's strategies: its own and those with the same figures everywhere.
fn suite_names(s: &crate::verdict::Standing, labels: &Labels) -> Vec<String> {
    std::iter::once(&s.strategy)
        .chain(&s.alike)
        .map(|n| labels.of_name(n))
        .collect()
}

/// The leaderboard's rows.
pub(crate) fn suite_rows(suite: &Suite, labels: &Labels) -> Vec<Vec<String>> {
    suite
        .leaderboard
        .iter()
        .map(|s| {
            vec![
                suite_names(s, labels).join(", "),
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

/// The recommendation, in one line, and the configuration to run with the lines that construct
/// it.
fn recommendation(suite: &Suite, labels: &Labels) -> String {
    match &suite.pick {
        Some(pick) => {
            let mut text = format!("recommendation: {}, because {}", labels.of_name(pick), suite.why);
            if let Some(run) = run_line(suite) {
                text.push_str(&format!("; {run}"));
            }
            text
        }
        None => format!("recommendation: none to make; {}", suite.why),
    }
}

/// The suite's configuration to run, in words with its lines: `run drop with target 0.4 (tuning
/// chose it on 7 of 10 scenarios), at your model's window: Python Compactor("drop",
/// window=WINDOW, target=0.4); Node …; Rust …`.
pub(crate) fn run_line(suite: &Suite) -> Option<String> {
    let (settings, on, of) = suite.run.as_ref()?;
    let lines = super::use_lines::use_lines(settings, "WINDOW");
    let how = if settings.strategy.is_preset() {
        "as its vendor sets it".to_owned()
    } else {
        let mut how = vec![format!("threshold {}", settings.threshold)];
        if let Some(target) = settings.target.filter(|t| *t != settings.threshold) {
            how.push(format!("target {target}"));
        }
        format!("at {} (as tuning chose on {on} of {of} scenarios)", how.join(", "))
    };
    let python = lines.python.map_or(String::new(), |p| format!("Python {p}; "));
    let node = lines.node.map_or(String::new(), |n| format!("Node {n}; "));
    Some(format!(
        "run {} {how}, WINDOW your model's context window: {python}{node}Rust {}",
        settings.strategy.brief(),
        lines.rust,
    ))
}

/// The suite's leaderboard and its recommendation.
pub fn suite_text(suite: &Suite, scenarios: usize, labels: &Labels) -> String {
    let mut out = format!(
        "suite · {} ({} discriminating) · ranked by coverage, then facts lost, then median and worst regret\n",
        count(scenarios, "scenario"),
        suite.scenarios
    );
    // Each line's names wrapped into what the figures leave, onto rows of their own.
    let rows = suite_rows(suite, labels);
    let width = room(&SUITE_HEADERS, &rows, 0, INDENT, WIDTH);
    let mut wrapped: Vec<Vec<String>> = Vec::new();
    for (mut row, s) in rows.into_iter().zip(&suite.leaderboard) {
        let mut names = wrap_names(&suite_names(s, labels), width).into_iter();
        row[0] = names.next().unwrap_or_default();
        wrapped.push(row);
        wrapped.extend(names.map(|more| {
            let mut blank = vec![String::new(); SUITE_HEADERS.len()];
            blank[0] = more;
            blank
        }));
    }
    let table = align(&SUITE_HEADERS, &wrapped, &[0], INDENT);
    for line in table.head.iter().chain(&table.rows) {
        out.push_str(line);
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
