//! Writing files so that a crash never leaves a half-written one: write a temporary file
//! beside the target, then rename it into place.

use std::path::Path;

use anyhow::Context;

/// Writes `bytes` to `path` atomically, creating its folder.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot move {} to {}", tmp.display(), path.display()))
}

/// A trace as JSON Lines.
pub fn trace_lines(trace: &[ctxbench_harness::trace::CallRecord]) -> anyhow::Result<Vec<u8>> {
    let mut out = Vec::new();
    for record in trace {
        serde_json::to_writer(&mut out, record)?;
        out.push(b'\n');
    }
    Ok(out)
}

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
