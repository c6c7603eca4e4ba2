//! What a finished `compare` or `sweep` leaves in its output folder: results, summary, charts
//! and the HTML page, each written whole.

use std::path::Path;

use anyhow::{Context, bail};

use ctxbench_harness::report::Echo;
use ctxbench_harness::verdict::{Suite, Verdict};

use super::files::write_atomic;

/// What a finished `compare` or `sweep` leaves in its output folder.
pub struct Reports<'a> {
    /// The output folder.
    pub out: &'a Path,
    /// Every row, in its final order; with `written`, those the run held (none past a size).
    pub rows: &'a [ctxbench_harness::report::ResultRow],
    /// `Some(n)`: the caller wrote `results.csv` (its `n` rows, in order) itself, and `rows`
    /// may hold fewer.
    pub written: Option<usize>,
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
    /// The configurations the charts draw (each a point at its means over its seeds, as the
    /// table shows it): for `compare`, the ranked ones; for a sweep, those of every row held.
    pub charted: &'a [ctxbench_harness::verdict::Config<'a>],
    /// The file names under traces/ this run wrote.
    pub trace_names: &'a [String],
    /// The verdicts, for `compare` (written to verdict.json and put first on the page), and
    /// what they were measured with, every setting (verdict.json's `settings`).
    pub verdicts: Option<(&'a [Verdict<'a>], &'a Suite, &'a Echo<'a>)>,
    /// Each scenario's description, by name.
    pub descriptions: Vec<(String, String)>,
    /// What the page says above each scenario's table when there are no verdicts.
    pub note: &'a str,
    /// Whether to draw the charts (`--no-plots`: none, and plots/ emptied of earlier ones).
    pub plots: bool,
}

/// Writes results.csv (replacing the streamed partial file), results.json, verdict.json, the
/// charts, summary.md with them embedded, and a self-contained index.html; then removes what an
/// earlier run into the same folder left and this one did not write, and returns how many
/// files that was.
pub fn write_reports(r: Reports<'_>) -> anyhow::Result<usize> {
    use ctxbench_harness::report::{Page, csv, csv_rows, html, json_document, json_lines, json_names, verdict_json};
    let results = r.out.join("results.csv");
    if r.written.is_none() {
        write_atomic(&results, &csv(r.rows)?)?;
        let partial = r.out.join("results.csv.partial");
        std::fs::remove_file(&partial).with_context(|| format!("cannot remove {}", partial.display()))?;
    }
    let rows = r.written.unwrap_or(r.rows.len());
    let mut stale = 0;
    // The rows as JSON, read back from results.csv a row at a time when the caller wrote it;
    // past a size as JSON lines, which a reader can stream too.
    let (name, other) = json_names(rows);
    let lines = name.ends_with("jsonl");
    let target = r.out.join(name);
    let tmp = r.out.join(format!("{name}.tmp"));
    let file = std::fs::File::create(&tmp).with_context(|| format!("cannot write {}", tmp.display()))?;
    let out = std::io::BufWriter::new(file);
    let mut failed = None;
    let written = match r.written {
        Some(_) => {
            let file = std::fs::File::open(&results).with_context(|| format!("cannot read {}", results.display()))?;
            let read = csv_rows(std::io::BufReader::new(file)).map_err(anyhow::Error::msg)?;
            let read = read.map_while(|row| row.map_err(|e| failed = Some(e)).ok());
            if lines {
                json_lines(read, out)
            } else {
                json_document(read, out)
            }
        }
        None if lines => json_lines(r.rows, out),
        None => json_document(r.rows, out),
    };
    written.with_context(|| format!("cannot write {}", tmp.display()))?;
    if let Some(e) = failed {
        bail!("{}: {e}", results.display());
    }
    std::fs::rename(&tmp, &target).with_context(|| format!("cannot move {} to {}", tmp.display(), target.display()))?;
    stale += remove_if_present(&r.out.join(other))?;
    let verdict = r.out.join("verdict.json");
    match r.verdicts {
        Some((verdicts, suite, echo)) => write_atomic(
            &verdict,
            (serde_json::to_string_pretty(&verdict_json(verdicts, suite, echo))? + "\n").as_bytes(),
        )?,
        None => stale += remove_if_present(&verdict)?,
    }
    let charts = if r.plots {
        super::plot::report_charts(
            r.traces,
            r.charted,
            r.verdicts.map(|(v, s, _)| (v, &s.objective)),
            r.out,
        )?
    } else {
        super::plot::ReportCharts::default()
    };
    write_atomic(&r.out.join("summary.md"), (r.summary + &charts.markdown).as_bytes())?;
    write_atomic(
        &r.out.join("index.html"),
        html(&Page {
            title: r.title,
            settings: r.settings,
            rows: r.table,
            verdicts: r.verdicts.map(|(v, s, _)| (v, s)),
            descriptions: &r.descriptions,
            charts: &charts.inline,
            missing: &charts.missing,
            note: r.note,
        })
        .as_bytes(),
    )?;
    stale += prune(&r.out.join("plots"), &charts.files, &["png", "svg"])?;
    stale += prune(&r.out.join("traces"), r.trace_names, &["jsonl"])?;
    Ok(stale)
}

/// Removes the files of `dir` with one of `extensions` whose name is not in `keep`: what an
/// earlier run left. Other files are the user's and stay.
fn prune(dir: &Path, keep: &[String], extensions: &[&str]) -> anyhow::Result<usize> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(0);
    };
    let mut removed = 0;
    for entry in entries {
        let path = entry.with_context(|| format!("cannot list {}", dir.display()))?.path();
        let ours = path.extension().is_some_and(|e| extensions.iter().any(|x| e == *x));
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if ours && path.is_file() && !keep.contains(&name) {
            removed += remove_if_present(&path)?;
        }
    }
    Ok(removed)
}

fn remove_if_present(path: &Path) -> anyhow::Result<usize> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(1),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
        Err(e) => Err(e).with_context(|| format!("cannot remove {}", path.display())),
    }
}

/// What a run says after removing an earlier run's files.
pub fn stale_note(out: &Path, removed: usize) -> Option<String> {
    (removed > 0).then(|| {
        format!(
            "removed {} an earlier run left in {} (this run did not write them)",
            ctxbench_harness::human::count(removed, "file"),
            out.display()
        )
    })
}
