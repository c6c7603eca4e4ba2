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
use ctxbench_harness::report::{csv, read_csv};
use ctxbench_harness::sweep::row_order;

use super::files::write_atomic;
use super::merge_rows::{in_order, merge_streams, twice};
use super::output::errln;

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

    /// Where to write the merged file (`--output` is an old spelling); a folder that exists
    /// holds it as results.csv; default for a sweep's folder: FOLDER/results.csv.
    #[arg(short = 'o', long = "out", alias = "output", value_name = "OUT.csv")]
    out: Option<PathBuf>,
}

pub fn run(args: MergeArgs) -> anyhow::Result<ExitCode> {
    // A path that is not there is said before anything asks where to write.
    for file in &args.files {
        if let Err(e) = std::fs::metadata(file) {
            bail!(
                "{}: {}; give a sweep's folder (merge FOLDER) or results files (merge A.csv B.csv -o OUT.csv)",
                file.display(),
                ctxbench_compact::input::io_words(&e)
            );
        }
    }
    // A folder given as -o holds the merged file, as a sweep's folder holds its own.
    let out = args
        .out
        .map(|out| if out.is_dir() { out.join("results.csv") } else { out });
    if let [folder] = args.files.as_slice() {
        if folder.is_dir() {
            return super::merge_shards::merge_folder(folder, out.as_deref());
        }
    }
    if let Some(folder) = args.files.iter().find(|f| f.is_dir()) {
        bail!(
            "{} is a folder: give one sweep's folder alone (merge FOLDER), or results files (merge A.csv B.csv -o OUT.csv)",
            folder.display()
        );
    }
    let Some(out) = out else {
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
    errln!(
        "merged {} from {} into {}",
        count(rows, "row"),
        count(args.files.len(), "file"),
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}
