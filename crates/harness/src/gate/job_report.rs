//! The gate's report for a CI job (`gate --markdown FILE`): for a GitHub job summary and a pull
//! request comment. Its first line says whether the gate passed, in words; then what changed
//! against the baseline, each figure over its seeds with the interval of its change; the verdict
//! on the current results (each scenario's pick and the suite's recommendation, in the words
//! `compare` uses: the same renderers); the fragile picks; and each scenario's table, folded.
//! Tables and short lines only, and within GitHub's 65,536 characters for a comment.

use super::checks::Checks;
use super::over_seeds::{SeedChange, changes_over_seeds};
use super::report::{decimal, number, picks_and_unmatched};
use super::{GateReport, gate_summary, objective};
use crate::human::{count, thousands};
use crate::report::{Labels, ResultRow, holds, scenario_markdown, suite_markdown, verdict_line};
use crate::verdict::{Verdict, sensitivities, suite, verdicts};

/// The most characters a GitHub comment holds.
pub const COMMENT_LIMIT: usize = 65_536;

/// Changed figures listed before the rest are only counted.
const MOST_CHANGES: usize = 60;

/// What the report is made of.
pub struct JobReport<'a> {
    /// The comparison.
    pub report: &'a GateReport,
    /// The baseline's rows, as the comparison's positions index them.
    pub baseline: &'a [ResultRow],
    /// The current rows, likewise.
    pub current: &'a [ResultRow],
    /// The parameters the gate ran with, in one line (the baseline, tolerances, `--exact`…).
    pub settings: &'a str,
    /// The prices and profiles the verdict is checked under ([`crate::gate::checks()`]).
    pub checks: &'a Checks,
}

/// A number for people: `18,821`, `-4,453`, `48.4`, `0.0093` (whole from 100 on, a tenth from
/// 1, six decimals below).
fn figure(x: f64) -> String {
    if x.fract() == 0.0 || (x.abs() >= 100.0 && x.abs() < 1e15) {
        let whole = thousands(x.abs().round() as u64);
        if x < 0.0 && whole != "0" {
            format!("-{whole}")
        } else {
            whole
        }
    } else if x.abs() >= 1.0 {
        format!("{x:.1}")
    } else {
        decimal(x)
    }
}

/// A signed number: `+4,453`, `-0.0012`.
fn signed(x: f64) -> String {
    if x > 0.0 { format!("+{}", figure(x)) } else { figure(x) }
}

/// A mean with its interval's half width when the seeds differ: `18,821 ±120`.
fn mean(e: crate::verdict::Estimate) -> String {
    if e.varies() {
        format!("{} ±{}", figure(e.mean), figure(e.half_width()))
    } else {
        figure(e.mean)
    }
}

/// A table cell: no pipe or line break may end it early.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// The change's cell: `+4,453 (+23.7%)`, then the interval over the seeds or why there is none.
fn change_cell(c: &SeedChange) -> String {
    let Some((paired, (before, _))) = c.change.zip(c.means) else {
        return format!("{} → {}", number(&c.values.0), number(&c.values.1));
    };
    let d = paired.difference;
    let relative = (before.mean != 0.0).then(|| format!(" ({:+.1}%)", d.mean / before.mean.abs() * 100.0));
    let mut text = format!("{}{}", signed(d.mean), relative.unwrap_or_default());
    if c.seeds < 2 {
        text.push_str(", one seed: no interval");
    } else {
        text.push_str(&format!(
            ", 95% interval {} to {} over {} seeds",
            signed(d.low),
            signed(d.high),
            c.seeds
        ));
    }
    text
}

/// What changed: a table, one line per figure of a configuration.
fn changes_markdown(changes: &[SeedChange], labels: &Labels, rows: usize) -> String {
    if changes.is_empty() {
        return format!(
            "## What changed\n\nNothing: every figure of the {} equals the baseline.\n",
            count(rows, "row")
        );
    }
    let mut out = String::from(
        "## What changed\n\nEach figure over its configuration's seeds: the baseline's mean, the current mean (± the 95% interval where the seeds differ), and the change seed by seed.\n\n| scenario | strategy | figure | baseline | current | change | seeds changed | verdict |\n| --- | --- | --- | ---: | ---: | --- | ---: | --- |\n",
    );
    for c in changes.iter().take(MOST_CHANGES) {
        let (baseline, current) = match c.means {
            Some((b, n)) => (mean(b), mean(n)),
            None => (number(&c.values.0), number(&c.values.1)),
        };
        let mut strategy = labels.of_name(&c.strategy);
        if !c.settings.is_empty() {
            strategy.push_str(&format!(" ({})", c.settings.join(", ")));
        }
        out.push_str(&format!(
            "| {} | {} | {} | {baseline} | {current} | {} | {} of {} | {} |\n",
            cell(&c.scenario),
            cell(&strategy),
            c.figure,
            change_cell(c),
            c.changed_in,
            c.seeds,
            c.said
        ));
    }
    if changes.len() > MOST_CHANGES {
        out.push_str(&format!(
            "\n… and {} more (`ctxbench gate --format json` lists every row).\n",
            count(changes.len() - MOST_CHANGES, "changed figure")
        ));
    }
    out
}

/// The fragile picks, each with what makes it so, under a line saying what was checked.
fn fragile_markdown(verdicts: &[Verdict<'_>], labels: &Labels, checks: &Checks) -> String {
    let mut out = String::from("## Fragile picks\n\n");
    out.push_str(&if checks.prices() == 0 {
        "Checked seed by seed; the runs are unpriced or priced unlike each other, so no other price was checked.\n\n"
            .to_owned()
    } else {
        let mut text = format!(
            "Checked seed by seed and under {} ({} simulated again with their own cache, the others re-priced)",
            count(checks.prices(), "price"),
            checks.resimulated()
        );
        if checks.profiles() > 0 {
            text.push_str(&format!(
                " and {}",
                count(checks.profiles(), "other summarizer profile")
            ));
        }
        if !checks.left_out.is_empty() {
            text.push_str(&format!(
                "; not under {} (another cache: the gate ran nothing again, as with --current)",
                checks.left_out.join(", ")
            ));
        }
        text + ".\n\n"
    });
    let fragile: Vec<String> = verdicts
        .iter()
        .filter_map(|v| {
            let s = v.sensitivity.as_ref().filter(|s| s.fragile)?;
            let pick = labels.of_config(v.pick()?);
            Some(format!("- **{}**: pick {pick}: {}\n", v.scenario, holds(s, labels)))
        })
        .collect();
    if fragile.is_empty() {
        out.push_str("None: every pick holds under what was checked.\n");
    } else {
        out.push_str(&fragile.concat());
    }
    out
}

/// The report, in Markdown.
pub fn job_report(input: &JobReport<'_>) -> String {
    let report = input.report;
    let headline = gate_summary(report);
    let (word, rest) = headline.split_once(": ").unwrap_or((&headline, ""));
    let mut out = format!("**ctxbench {word}**: {rest}\n\n{}\n\n", input.settings);

    let labels = Labels::new(input.current, false);
    let changes = changes_over_seeds(report, input.baseline, input.current);
    out.push_str(&changes_markdown(&changes, &labels, report.rows.len()));
    out.push_str(&picks_and_unmatched(report));

    let objective = objective(input.current);
    let mut verdicts = verdicts(input.current, &objective);
    let checked = sensitivities(&verdicts, input.current, &input.checks.alternatives, &objective);
    for (v, s) in verdicts.iter_mut().zip(checked) {
        v.sensitivity = s;
    }
    let suite = suite(&verdicts, &objective);
    out.push_str(&format!(
        "\n## Verdict\n\nOn the current results, objective: {}.\n\n",
        objective.describe()
    ));
    for v in &verdicts {
        out.push_str(&format!(
            "- **{}**: {}.\n",
            v.scenario,
            verdict_line(v, &objective, &labels)
        ));
    }
    if verdicts.len() > 1 {
        out.push('\n');
        out.push_str(&suite_markdown(&suite, verdicts.len(), &labels).replacen("## Suite", "### Suite", 1));
    }
    out.push('\n');
    out.push_str(&fragile_markdown(&verdicts, &labels, input.checks));

    let pairs = labels.abbreviations();
    let mut legend = String::new();
    if !pairs.is_empty() {
        legend.push_str("\nShort names, with the defaults they stand for:\n\n");
        for (label, canonical) in pairs {
            legend.push_str(&format!("- `{label}`: `{canonical}`\n"));
        }
    }
    let mut tables = String::from("\n<details><summary>Each scenario's runs, ranked</summary>\n\n");
    for v in &verdicts {
        tables.push_str(&scenario_markdown(v, &objective, &labels).replacen("### ", "#### ", 1));
        tables.push('\n');
    }
    tables.push_str("</details>\n");
    if out.len() + tables.len() + legend.len() < COMMENT_LIMIT - 1_000 {
        out.push_str(&tables);
    } else {
        out.push_str(
            "\nEach scenario's table is left out: with it the report would not fit in a GitHub comment (`ctxbench compare` writes them to summary.md).\n",
        );
    }
    out.push_str(&legend);
    out
}
