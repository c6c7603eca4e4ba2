//! `sweep --resume`: the whole configurations an interrupted sweep left in its partial file.

use anyhow::{Context, bail};
use ctxbench_harness::report::{CsvRows, ResultRow, read_csv};

/// Reads the rows an interrupted sweep left in `partial`, each configuration's (its rows one
/// after another) handed to `check` with its position, which says whether it is whole (only
/// the last may not be: it is dropped). Returns how many configurations and rows are kept (at
/// most `planned` configurations) and a writer that appends to the file.
pub(super) fn resumed(
    partial: &std::path::Path,
    planned: usize,
    check: &mut dyn FnMut(usize, Vec<ResultRow>) -> anyhow::Result<bool>,
) -> anyhow::Result<(usize, usize, CsvRows<std::fs::File>)> {
    let text = std::fs::read_to_string(partial).with_context(|| {
        format!(
            "cannot resume: cannot read {}; run without --resume to start over",
            partial.display()
        )
    })?;
    // A line cut by the interruption is not a row: keep the whole lines only.
    let lines = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
    let rows = read_csv(lines).map_err(|e| anyhow::anyhow!("cannot resume: {}: {e}", partial.display()))?;
    let mut groups: Vec<Vec<ResultRow>> = Vec::new();
    for row in rows {
        match groups.last_mut() {
            Some(g) if g[0].scenario == row.scenario && g[0].settings.same_but_seed(&row.settings) => g.push(row),
            _ => groups.push(vec![row]),
        }
    }
    if groups.len() > planned {
        bail!(
            "cannot resume: {} holds more configurations than this sweep plans; resume with the flags of the interrupted sweep, or run without --resume",
            partial.display()
        );
    }
    let (mut configurations, mut kept_rows) = (0, 0);
    let last = groups.len().saturating_sub(1);
    for (j, rows) in groups.into_iter().enumerate() {
        let n = rows.len();
        if !check(j, rows)? {
            if j < last {
                bail!(
                    "cannot resume: {} lacks seeds of configuration {}; run without --resume to start over",
                    partial.display(),
                    j + 1
                );
            }
            break;
        }
        configurations += 1;
        kept_rows += n;
    }
    // The whole configurations' lines: the header and one line a row.
    let keep: usize = lines
        .split_inclusive('\n')
        .take(kept_rows + usize::from(!lines.is_empty()))
        .map(str::len)
        .sum();
    let whole = &lines[..keep];
    std::fs::write(partial, whole).with_context(|| format!("cannot write {}", partial.display()))?;
    let file = std::fs::OpenOptions::new()
        .append(true)
        .open(partial)
        .with_context(|| format!("cannot write {}", partial.display()))?;
    Ok((configurations, kept_rows, CsvRows::continuing(file, !whole.is_empty())))
}
