//! Results files merged in their order, a row of each at a time (each shard writes its rows in
//! the order they are kept), for `merge` of files and of a sweep's folder alike.

use std::path::PathBuf;

use anyhow::{Context, bail};
use ctxbench_harness::report::{CsvRows, ResultRow, Row};
use ctxbench_harness::sweep::row_order;

/// The message for a row found in two shards.
pub(super) fn twice(row: &ResultRow) -> String {
    format!(
        "{} · {} appears twice; were two shards given the same slice?",
        row.scenario,
        row.label()
    )
}

/// The rows of a results file, one at a time.
fn rows_of(file: &std::path::Path) -> anyhow::Result<impl Iterator<Item = anyhow::Result<ResultRow>>> {
    let reader = std::fs::File::open(file).with_context(|| format!("cannot read {}", file.display()))?;
    let name = file.display().to_string();
    let rows = ctxbench_harness::report::csv_rows(std::io::BufReader::new(reader))
        .map_err(|e| anyhow::anyhow!("{name}: not a results file: {e}"))?;
    Ok(rows.map(move |r| r.map_err(|e| anyhow::anyhow!("{name}: not a results file: {e}"))))
}

/// Whether a results file's rows are in their final order.
pub(super) fn in_order(file: &std::path::Path) -> anyhow::Result<bool> {
    let mut previous: Option<ResultRow> = None;
    for row in rows_of(file)? {
        let row = row?;
        if previous.as_ref().is_some_and(|p| row_order(p, &row).is_gt()) {
            return Ok(false);
        }
        previous = Some(row);
    }
    Ok(true)
}

/// Merges files already in order into `out`, holding one row of each, each row also handed to
/// `each` in order; returns the rows written.
pub(super) fn merge_streams(
    files: &[PathBuf],
    out: &std::path::Path,
    each: &mut dyn FnMut(&ResultRow),
) -> anyhow::Result<usize> {
    let mut streams = files.iter().map(|f| rows_of(f)).collect::<anyhow::Result<Vec<_>>>()?;
    let mut heads: Vec<Option<ResultRow>> = streams
        .iter_mut()
        .map(|s| s.next().transpose())
        .collect::<anyhow::Result<_>>()?;
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let mut tmp = out.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let file = std::fs::File::create(&tmp).with_context(|| format!("cannot write {}", tmp.display()))?;
    let mut writer = CsvRows::new(std::io::BufWriter::new(file));
    let mut previous: Option<ResultRow> = None;
    let mut written = 0;
    let merged = (|| -> anyhow::Result<()> {
        while let Some(k) = (0..heads.len())
            .filter(|&k| heads[k].is_some())
            .min_by(|&a, &b| row_order(heads[a].as_ref().expect("some"), heads[b].as_ref().expect("some")))
        {
            let row = heads[k].take().expect("some");
            heads[k] = streams[k].next().transpose()?;
            if previous.as_ref().is_some_and(|p| row_order(p, &row).is_eq()) {
                bail!("{}", twice(&row));
            }
            writer
                .write(&row)
                .with_context(|| format!("cannot write {}", tmp.display()))?;
            each(&row);
            written += 1;
            previous = Some(row);
        }
        Ok(())
    })();
    drop(writer);
    if let Err(e) = merged {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::rename(&tmp, out).with_context(|| format!("cannot move {} to {}", tmp.display(), out.display()))?;
    Ok(written)
}
