//! `ctxbench merge`: the results of a sharded sweep joined into the file a single run writes.
//! Each shard is written in order, so they merge a row at a time; files that are not in order
//! (a `compare`'s) are read whole and sorted. Given a sweep's output folder, it finds the shards
//! there (`shard-I-of-N/`), checks that they are every shard of one sweep (their fingerprints),
//! and writes the sweep's reports with each scenario's best, by the rule `compare` ranks with.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Args;
use ctxbench_harness::human::count;
use ctxbench_harness::report::{CsvRows, ResultRow, Row, csv, read_csv};
use ctxbench_harness::sweep::row_order;

use super::files::write_atomic;

/// Join the shards of a sweep into the results a single run would write.
///
/// Given the sweep's output folder (`--out` of `sweep --shard`), finds its shard-I-of-N/
/// folders, checks that every shard of one sweep is there (their fingerprints agree, none is
/// missing or unfinished), merges their rows a row at a time into FOLDER/results.csv, and writes
/// the sweep's reports there with each scenario's best. Given results files, joins them into -o.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  ctxbench merge fleet\n  ctxbench merge a/results.csv b/results.csv -o results.csv"
)]
pub struct MergeArgs {
    /// A sharded sweep's output folder, or the results files to join.
    #[arg(value_name = "FOLDER|CSV", required = true)]
    files: Vec<PathBuf>,

    /// Where to write the merged file (`--output` is an old spelling); default for a folder:
    /// FOLDER/results.csv.
    #[arg(short = 'o', long = "out", alias = "output", value_name = "OUT.csv")]
    out: Option<PathBuf>,
}

pub fn run(args: MergeArgs) -> anyhow::Result<ExitCode> {
    if let [folder] = args.files.as_slice() {
        if folder.is_dir() {
            return super::merge_shards::merge_folder(folder, args.out.as_deref());
        }
    }
    if let Some(folder) = args.files.iter().find(|f| f.is_dir()) {
        bail!(
            "{} is a folder: give one sweep's folder alone (merge FOLDER), or results files (merge A.csv B.csv -o OUT.csv)",
            folder.display()
        );
    }
    let Some(out) = args.out else {
        bail!("where to write the merged file? give -o OUT.csv (only a sweep's folder has a place of its own)");
    };
    let sorted = args
        .files
        .iter()
        .try_fold(true, |all, file| Ok::<_, anyhow::Error>(all && in_order(file)?))?;
    let rows = if sorted {
        merge_streams(&args.files, &out, &mut |_| {})?
    } else {
        let mut rows = Vec::new();
        for file in &args.files {
            let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
            rows.extend(read_csv(&text).map_err(|e| anyhow::anyhow!("{}: not a results file: {e}", file.display()))?);
        }
        rows.sort_by(row_order);
        if let Some(pair) = rows.windows(2).find(|w| row_order(&w[0], &w[1]).is_eq()) {
            bail!("{}", twice(&pair[0]));
        }
        write_atomic(&out, &csv(&rows)?)?;
        rows.len()
    };
    eprintln!(
        "merged {} from {} into {}",
        count(rows, "row"),
        count(args.files.len(), "file"),
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The message for a row found in two shards.
fn twice(row: &ResultRow) -> String {
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
fn in_order(file: &std::path::Path) -> anyhow::Result<bool> {
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
