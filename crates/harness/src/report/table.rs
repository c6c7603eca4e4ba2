//! The comparison for people: a terminal table and its Markdown twin, one row per run, the
//! columns that decide between strategies.

use super::Row;
use crate::human::{dollars, percent, thousands};

/// How many columns.
pub(crate) const COLUMNS: usize = 12;

const HEADERS: [&str; COLUMNS] = [
    "scenario",
    "strategy",
    "cost",
    "cache",
    "tokens sent",
    "calls",
    "peak",
    "overflows",
    "facts lost",
    "refetches",
    "answered",
    "done",
];

fn cells(row: &impl Row) -> [String; COLUMNS] {
    let m = row.metrics();
    [
        row.scenario().to_owned(),
        row.label().into_owned(),
        m.cost_usd.map_or_else(|| "—".to_owned(), dollars),
        percent(m.cache_hit_rate),
        thousands(m.tokens_sent),
        m.model_calls.to_string(),
        thousands(m.peak_request_tokens),
        m.overflows.to_string(),
        format!("{}/{}", m.facts_lost, m.facts),
        m.refetches.to_string(),
        format!("{}/{}", m.requests_answered, m.requests),
        if m.completed { "yes".into() } else { "no".into() },
    ]
}

/// Left-aligned text, right-aligned numbers.
fn numeric(column: usize) -> bool {
    column >= 2
}

/// An aligned text table.
pub fn table<R: Row>(rows: &[R]) -> String {
    let all: Vec<[String; COLUMNS]> = rows.iter().map(cells).collect();
    let widths: Vec<usize> = (0..HEADERS.len())
        .map(|c| {
            all.iter()
                .map(|r| r[c].chars().count())
                .chain([HEADERS[c].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |values: &[String]| -> String {
        let mut out = String::new();
        for (c, v) in values.iter().enumerate() {
            let pad = widths[c] - v.chars().count();
            if c > 0 {
                out.push_str("  ");
            }
            if numeric(c) {
                out.push_str(&" ".repeat(pad));
                out.push_str(v);
            } else {
                out.push_str(v);
                out.push_str(&" ".repeat(pad));
            }
        }
        out.trim_end().to_owned() + "\n"
    };
    let mut out = line(&HEADERS.map(String::from));
    out.push_str(&line(&widths.iter().map(|w| "─".repeat(*w)).collect::<Vec<_>>()));
    let mut previous = None;
    for (row, values) in rows.iter().zip(&all) {
        if previous.is_some_and(|p: &str| p != row.scenario()) {
            out.push('\n');
        }
        previous = Some(row.scenario());
        out.push_str(&line(values));
    }
    out
}

/// The same table in Markdown.
pub fn markdown<R: Row>(rows: &[R]) -> String {
    let mut out = format!("| {} |\n", HEADERS.join(" | "));
    out.push_str(&format!(
        "|{}\n",
        (0..HEADERS.len())
            .map(|c| if numeric(c) { " ---: |" } else { " --- |" })
            .collect::<String>()
    ));
    for row in rows {
        out.push_str(&format!("| {} |\n", cells(row).join(" | ")));
    }
    out
}

/// Headers and cells, for the HTML report.
pub(crate) fn cells_for_html<R: Row>(rows: &[R]) -> ([&'static str; COLUMNS], Vec<[String; COLUMNS]>) {
    (HEADERS, rows.iter().map(cells).collect())
}

/// Names joined with ", ", wrapped into lines of at most `width` characters where a name ends
/// (a name longer than `width` stands alone on its line).
pub(crate) fn wrap_names(names: &[String], width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for (k, name) in names.iter().enumerate() {
        let piece = if k + 1 < names.len() {
            format!("{name},")
        } else {
            name.clone()
        };
        let grown = line.chars().count() + 1 + piece.chars().count();
        if !line.is_empty() && grown > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&piece);
    }
    lines.push(line);
    lines
}

/// Rows aligned under their headers: text left in the `left` columns, numbers right, two
/// spaces between columns, each line after `indent`.
pub(crate) fn align(headers: &[&str], rows: &[Vec<String>], left: &[usize], indent: &str) -> Vec<String> {
    let widths: Vec<usize> = (0..headers.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].chars().count())
                .chain([headers[c].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |values: &[String]| -> String {
        let mut out = indent.to_owned();
        for (c, v) in values.iter().enumerate() {
            let pad = " ".repeat(widths[c] - v.chars().count());
            if c > 0 {
                out.push_str("  ");
            }
            if left.contains(&c) {
                out.push_str(v);
                out.push_str(&pad);
            } else {
                out.push_str(&pad);
                out.push_str(v);
            }
        }
        out.trim_end().to_owned()
    };
    let headers: Vec<String> = headers.iter().map(|h| (*h).to_owned()).collect();
    std::iter::once(line(&headers))
        .chain(rows.iter().map(|r| line(r)))
        .collect()
}

/// The same rows as a Markdown table.
pub(crate) fn markdown_table(headers: &[&str], rows: &[Vec<String>], left: &[usize]) -> String {
    let mut out = format!("| {} |\n|", headers.join(" | "));
    for c in 0..headers.len() {
        out.push_str(if left.contains(&c) { " --- |" } else { " ---: |" });
    }
    out.push('\n');
    for row in rows {
        out.push_str(&format!("| {} |\n", row.join(" | ")));
    }
    out
}
