//! What a finished `compare` or `sweep` leaves in its output folder: results, summary, charts
//! and the HTML page, each written whole.

use std::path::Path;

use anyhow::Context;

use super::files::write_atomic;

/// What a finished `compare` or `sweep` leaves in its output folder.
pub struct Reports<'a> {
    /// The output folder.
    pub out: &'a Path,
    /// Every row, in its final order.
    pub rows: &'a [ctxbench_harness::report::ResultRow],
    /// The runs' traces (none for a sweep).
    pub traces: &'a [Vec<ctxbench_harness::trace::CallRecord>],
    /// `summary.md` before its charts.
    pub summary: String,
    /// The HTML page's title, settings line, and the rows its table shows.
    pub title: &'a str,
    /// The settings line.
    pub settings: &'a str,
    /// The rows the HTML table shows.
    pub table: &'a [ctxbench_harness::report::ResultRow],
}

/// Writes results.csv (replacing the streamed partial file), results.json, the charts,
/// summary.md with them embedded, and a self-contained index.html.
pub fn write_reports(r: Reports<'_>) -> anyhow::Result<()> {
    use ctxbench_harness::report::{csv, html, json};
    write_atomic(&r.out.join("results.csv"), &csv(r.rows)?)?;
    let partial = r.out.join("results.csv.partial");
    std::fs::remove_file(&partial).with_context(|| format!("cannot remove {}", partial.display()))?;
    write_atomic(
        &r.out.join("results.json"),
        serde_json::to_string_pretty(&json(r.rows))?.as_bytes(),
    )?;
    let (chart_markdown, inline) = super::plot::report_charts(r.traces, r.rows, r.out)?;
    write_atomic(&r.out.join("summary.md"), (r.summary + &chart_markdown).as_bytes())?;
    write_atomic(
        &r.out.join("index.html"),
        html(r.title, r.settings, r.table, &inline).as_bytes(),
    )
}
