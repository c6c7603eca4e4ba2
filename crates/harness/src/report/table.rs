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

/// Names joined with ", ", wrapped into lines of at most `width` characters where a name ends;
/// a name longer than `width` is broken after its `+`, `,` or `:` (or, with none in reach,
/// anywhere), so that no line is wider.
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
        if piece.chars().count() > width {
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            let mut parts = broken(&piece, width);
            line = parts.pop().unwrap_or_default();
            lines.extend(parts);
            continue;
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&piece);
    }
    lines.push(line);
    lines
}

/// A name too long for `width` in pieces of at most `width` characters, each ending after a
/// `+`, `,` or `:` where one is in reach.
fn broken(name: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut pieces = Vec::new();
    let mut rest: Vec<char> = name.chars().collect();
    while rest.len() > width {
        let cut = rest[..width]
            .iter()
            .rposition(|c| matches!(c, '+' | ',' | ':'))
            .map_or(width, |i| i + 1);
        pieces.push(rest.drain(..cut).collect());
    }
    pieces.push(rest.into_iter().collect());
    pieces
}

/// How wide column `column` may grow so that a line of `headers` and `rows` keeps within
/// `width` after `indent`: what the other columns and the two spaces between each leave, at
/// least [`NARROWEST`].
pub(crate) fn room(headers: &[&str], rows: &[Vec<String>], column: usize, indent: &str, width: usize) -> usize {
    let widths = widths(headers, rows);
    let others: usize = widths
        .iter()
        .enumerate()
        .filter(|(c, _)| *c != column)
        .map(|(_, w)| w)
        .sum();
    let used = indent.chars().count() + others + 2 * headers.len().saturating_sub(1);
    width.saturating_sub(used).max(NARROWEST)
}

/// The narrowest a wrapped column gets, however wide the others are.
const NARROWEST: usize = 16;

/// Each column's width: its widest cell or header line.
fn widths(headers: &[&str], rows: &[Vec<String>]) -> Vec<usize> {
    (0..headers.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].chars().count())
                .chain(headers[c].lines().map(|l| l.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect()
}

/// A table laid out for the terminal: its header lines, then one line per row.
pub(crate) struct Aligned {
    /// The header, on as many lines as its tallest header (`"tokens\nsent"` takes two), each
    /// header at the bottom.
    pub head: Vec<String>,
    /// One line per row.
    pub rows: Vec<String>,
}

/// Rows aligned under their headers: text left in the `left` columns, numbers right, two
/// spaces between columns, each line after `indent`. A header may take several lines (`\n`).
pub(crate) fn align(headers: &[&str], rows: &[Vec<String>], left: &[usize], indent: &str) -> Aligned {
    let widths = widths(headers, rows);
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
    let tall = headers.iter().map(|h| h.lines().count()).max().unwrap_or(1);
    let head = (0..tall)
        .map(|k| {
            let cells: Vec<String> = headers
                .iter()
                .map(|h| {
                    let lines: Vec<&str> = h.lines().collect();
                    // Bottom-aligned: a shorter header starts lower.
                    (k + lines.len())
                        .checked_sub(tall)
                        .and_then(|i| lines.get(i))
                        .map_or_else(String::new, |l| (*l).to_owned())
                })
                .collect();
            line(&cells)
        })
        .collect();
    Aligned {
        head,
        rows: rows.iter().map(|r| line(r)).collect(),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn names_wrap_where_a_name_ends_and_a_long_one_after_its_plus_or_comma() {
        let check = |list: &[&str], width: usize, expect: &[&str]| {
            let lines = wrap_names(&names(list), width);
            assert_eq!(lines, expect);
            assert!(lines.iter().all(|l| l.chars().count() <= width), "{lines:?}");
        };
        check(&["drop", "mask+drop", "window"], 16, &["drop, mask+drop,", "window"]);
        check(
            &["drop", "truncate:preview=300,trigger=cold+drop", "window"],
            16,
            &["drop,", "truncate:", "preview=300,", "trigger=cold+", "drop, window"],
        );
        // With nowhere to break, anywhere.
        check(&["abcdefghij"], 4, &["abcd", "efgh", "ij"]);
    }

    #[test]
    fn a_header_on_two_lines_sits_at_the_bottom_and_the_room_is_what_the_others_leave() {
        let headers = ["name", "tokens\nsent", "calls"];
        let rows = vec![names(&["drop", "18,431", "6"])];
        let table = align(&headers, &rows, &[0], "  ");
        assert_eq!(table.head, ["        tokens", "  name    sent  calls"]);
        assert_eq!(table.rows, ["  drop  18,431      6"]);
        // 2 of indent, 6 and 5 for the others, 2 × 2 between: 120 − 17.
        assert_eq!(room(&headers, &rows, 0, "  ", 120), 103);
        assert_eq!(room(&headers, &rows, 0, "  ", 20), NARROWEST);
    }
}
