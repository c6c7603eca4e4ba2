//! The gate's report for people (Markdown: the rows that changed, worst first) and for CI
//! systems (JUnit XML: one test case per row).

use crate::human::count;
use serde_json::Value;

use super::{FALLING_FIGURES, FigureChange, GROWTH_FIGURES, GateReport, RowComparison, Verdict};
use crate::human::thousands;

/// A figure's value for people: `18,821`, `0.482865`, `true`.
pub(super) fn number(v: &Value) -> String {
    match v {
        Value::Number(n) => n
            .as_u64()
            .map_or_else(|| n.as_f64().map_or_else(|| n.to_string(), decimal), thousands),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A fraction or a cost to six decimals, without trailing zeros (`0.482865`, `0.0093`).
pub(super) fn decimal(x: f64) -> String {
    let text = format!("{x:.6}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" { "0".into() } else { text.to_owned() }
}

fn delta(change: &FigureChange) -> String {
    let signed = |d: f64| {
        if d.fract() == 0.0 {
            format!("{d:+}")
        } else {
            let text = decimal(d);
            if d > 0.0 { format!("+{text}") } else { text }
        }
    };
    match (change.delta, change.relative()) {
        (Some(d), Some(r)) => format!("{} ({:+.1}%)", signed(d), r * 100.0),
        (Some(d), None) => signed(d),
        _ => "changed".into(),
    }
}

/// A change's verdict as the table says it, with why a figure is not compared.
pub(super) fn verdict_cell(row: &RowComparison, change: &FigureChange) -> &'static str {
    let completion_changed = row.changes.iter().any(|c| c.figure == "completed");
    let cost_figure =
        GROWTH_FIGURES.contains(&change.figure.as_str()) || FALLING_FIGURES.contains(&change.figure.as_str());
    match change.allowed {
        Some(_) => change.verdict.as_str(),
        None if completion_changed && cost_figure => "not comparable (completion changed)",
        None if cost_figure && (change.baseline.is_null() || change.current.is_null()) => {
            "not comparable (priced on one side only)"
        }
        None => "not gated",
    }
}

fn row_name(row: &RowComparison) -> String {
    if row.settings.is_empty() {
        format!("{} · {}", row.scenario, row.strategy)
    } else {
        format!("{} · {} ({})", row.scenario, row.strategy, row.settings.join(", "))
    }
}

/// One line saying how it went.
pub fn gate_summary(report: &GateReport) -> String {
    let verdict = if report.undecided() {
        format!(
            "cannot decide, {} on one side only (--allow-new accepts them)",
            count(report.unmatched(), "row")
        )
    } else if report.fails() {
        "FAILED".to_owned()
    } else {
        "passed".to_owned()
    };
    format!(
        "gate {verdict}: {} compared, {} regressed, {} improved, {} unchanged{}",
        count(report.rows.len(), "row"),
        report.count(Verdict::Regressed),
        report.count(Verdict::Improved),
        report.count(Verdict::Unchanged),
        if report.exact { " (exact: any change fails)" } else { "" }
    )
}

/// With `--update`: what the new baseline changes, in one line.
pub fn update_summary(report: &GateReport, baseline: &str, rows: usize) -> String {
    format!(
        "updated {baseline} ({}): {} changed ({} worse, {} better), {} added, {} removed",
        count(rows, "row"),
        count(report.rows.iter().filter(|r| !r.changes.is_empty()).count(), "row"),
        report.count(Verdict::Regressed),
        report.count(Verdict::Improved),
        report.only_in_current.len(),
        report.only_in_baseline.len()
    )
}

/// The rows that changed, worst first, as Markdown, under `headline` ([`gate_summary`] or
/// [`update_summary`]).
pub fn gate_markdown(report: &GateReport, headline: &str) -> String {
    let mut out = format!("### ctxbench gate\n\n{headline}\n");
    let changed: Vec<&RowComparison> = report.rows.iter().filter(|r| !r.changes.is_empty()).collect();
    if !changed.is_empty() {
        out.push_str(
            "\n| row | figure | baseline | current | delta | verdict |\n| --- | --- | ---: | ---: | ---: | --- |\n",
        );
        for row in changed {
            for change in &row.changes {
                out.push_str(&format!(
                    "| {} | {} | {} | {} | {} | {} |\n",
                    row_name(row),
                    change.figure,
                    number(&change.baseline),
                    number(&change.current),
                    delta(change),
                    verdict_cell(row, change)
                ));
            }
        }
    }
    out.push_str(&picks_and_unmatched(report));
    out
}

/// The scenarios whose pick changed and the rows on one side only, as Markdown (empty when
/// there are none).
pub(super) fn picks_and_unmatched(report: &GateReport) -> String {
    let mut out = String::new();
    if !report.picks.is_empty() {
        out.push_str("\nPicks that changed (by the rule `compare` ranks with; said, not gated):\n");
        for p in &report.picks {
            let name = |pick: &Option<String>| pick.clone().unwrap_or_else(|| "nothing qualifies".into());
            out.push_str(&format!(
                "- {}: {} → {}\n",
                p.scenario,
                name(&p.baseline),
                name(&p.current)
            ));
        }
    }
    for (title, rows) in [
        ("only in the baseline", &report.only_in_baseline),
        ("only in the current results", &report.only_in_current),
    ] {
        if !rows.is_empty() {
            out.push_str(&format!("\nRows {title}:\n"));
            for row in rows {
                out.push_str(&format!("- {row}\n"));
            }
        }
    }
    out
}

fn xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// One JUnit test case per row; a regressed row (or, with `exact`, a changed one) fails.
pub fn gate_junit(report: &GateReport) -> String {
    let failing = |r: &RowComparison| r.verdict == Verdict::Regressed || (report.exact && !r.changes.is_empty());
    let failures = report.rows.iter().filter(|r| failing(r)).count();
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"ctxbench gate\" tests=\"{}\" failures=\"{failures}\">\n",
        report.rows.len()
    );
    for row in &report.rows {
        out.push_str(&format!(
            "  <testcase classname=\"{}\" name=\"{}\"",
            xml(&row.scenario),
            xml(&format!(
                "{}{}",
                row.strategy,
                if row.settings.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", row.settings.join(", "))
                }
            ))
        ));
        if failing(row) {
            let what: Vec<String> = row
                .changes
                .iter()
                .filter(|c| c.verdict == Verdict::Regressed || report.exact)
                .map(|c| {
                    format!(
                        "{} {} → {} ({})",
                        c.figure,
                        number(&c.baseline),
                        number(&c.current),
                        delta(c)
                    )
                })
                .collect();
            out.push_str(&format!(
                ">\n    <failure message=\"{}\">{}</failure>\n  </testcase>\n",
                xml(&what.join("; ")),
                xml(&what.join("\n"))
            ));
        } else {
            out.push_str("/>\n");
        }
    }
    out.push_str("</testsuite>\n");
    out
}
