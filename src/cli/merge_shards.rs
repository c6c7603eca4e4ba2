//! `ctxbench merge FOLDER`: a sharded sweep's shards found in its folder, checked to be every
//! shard of one sweep, merged a row at a time, and the sweep's reports written with each
//! scenario's best (the verdicts' rule, as `sweep` picks it).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use ctxbench_harness::human::count;
use ctxbench_harness::sweep::Shard;

use super::merge_rows::merge_streams;
use super::output::{errln, sayln};
use super::reports::stale_note;
use super::sweep_best::{Kept, best_line, write_sweep_reports};
use super::sweep_shard::read_fingerprint;

/// Merges the shards under `folder` into `out` (default: `folder/results.csv`) and writes the
/// reports beside it.
pub fn merge_folder(folder: &Path, out: Option<&Path>) -> anyhow::Result<ExitCode> {
    let (shards, unfinished) = shards_in(folder)?;
    let Some(count_of) = shards.first().map(|(s, _)| s.count) else {
        bail!(
            "{}: no shard of a sweep in this folder (shard-I-of-N/); a sweep run with --shard I/N --out {} writes them",
            folder.display(),
            folder.display()
        );
    };
    if let Some((other, dir)) = shards.iter().find(|(s, _)| s.count != count_of) {
        bail!(
            "{} is a shard of {} but {} is of {}: one sweep's shards all have the same count",
            dir.display(),
            other.count,
            shards[0].1.display(),
            count_of
        );
    }
    // Every shard of one sweep: one fingerprint.
    let mut by_print: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut first = None;
    for (shard, dir) in &shards {
        let remedy = format!(
            "run shard {}/{} again into {} after removing that folder",
            shard.index,
            shard.count,
            folder.display()
        );
        let print = read_fingerprint(dir, &remedy)?;
        let value = print.fingerprint.clone();
        by_print
            .entry(value)
            .or_default()
            .push(format!("{}/{}", shard.index, shard.count));
        first.get_or_insert(print);
    }
    if by_print.len() > 1 {
        let groups: Vec<String> = by_print
            .iter()
            .map(|(print, shards)| format!("{} (fingerprint {print})", shards.join(", ")))
            .collect();
        bail!(
            "{}: the shards are of different sweeps: {}; merge the shards of one sweep (each sweep its own --out)",
            folder.display(),
            groups.join("; ")
        );
    }
    let missing: Vec<usize> = (1..=count_of)
        .filter(|i| !shards.iter().any(|(s, _)| s.index == *i))
        .collect();
    if !missing.is_empty() {
        let said: Vec<String> = missing
            .iter()
            .map(|i| {
                let shard = Shard {
                    index: *i,
                    count: count_of,
                };
                let why = if unfinished.contains(&shard) {
                    "unfinished: run it again, with --resume to keep its rows"
                } else {
                    "missing: run it"
                };
                format!(
                    "shard {i}/{count_of} ({why}, sweep … --shard {i}/{count_of} --out {})",
                    folder.display()
                )
            })
            .collect();
        bail!(
            "{}: {} of {count_of} shards: {}",
            folder.display(),
            missing.len(),
            said.join("; ")
        );
    }
    let Some(print) = first else {
        bail!("{}: no shard of a sweep in this folder", folder.display());
    };
    let objective = print
        .objective()
        .map_err(|e| anyhow::anyhow!("{}: its shards' objective: {e}", folder.display()))?;

    let files: Vec<PathBuf> = shards.iter().map(|(_, dir)| dir.join("results.csv")).collect();
    let default_out = folder.join("results.csv");
    let out = out.unwrap_or(&default_out);
    let mut kept = Kept::new(&objective);
    let mut scenarios: Vec<String> = Vec::new();
    let written = merge_streams(&files, out, &mut |row| {
        if scenarios.last() != Some(&row.scenario) {
            scenarios.push(row.scenario.clone());
        }
        kept.add(row.clone());
    })?;
    let (best, held) = kept.finish(out)?;
    let settings = format!(
        "{} from {} of one sweep (fingerprint {}); best per scenario: {}",
        count(written, "run"),
        count(count_of, "shard"),
        print.fingerprint,
        objective.describe()
    );
    let reports = out
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if out.file_name().is_some_and(|n| n == "results.csv") {
        let stale = write_sweep_reports(reports, (&best, held.as_deref()), written, &settings, false, Vec::new())?;
        if let Some(note) = stale_note(reports, stale) {
            errln!("{note}");
        }
    }
    sayln!("best per scenario ({}):", objective.describe());
    for scenario in &scenarios {
        match best.iter().find(|b| &b[0].scenario == scenario) {
            Some(rows) => sayln!("  {}", best_line(rows)),
            None => sayln!("  {scenario}: no configuration qualifies"),
        }
    }
    errln!(
        "merged {} from {} of one sweep into {}",
        count(written, "row"),
        count(count_of, "shard"),
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The shard folders of a sweep's folder, by index.
type Shards = Vec<(Shard, PathBuf)>;

/// The shard folders under `folder` (whole ones, by index), and the shards left unfinished
/// (their `.partial` folders).
fn shards_in(folder: &Path) -> anyhow::Result<(Shards, Vec<Shard>)> {
    let mut shards = Vec::new();
    let mut unfinished = Vec::new();
    let entries = std::fs::read_dir(folder).with_context(|| format!("cannot list {}", folder.display()))?;
    for entry in entries {
        let path = entry
            .with_context(|| format!("cannot list {}", folder.display()))?
            .path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if !path.is_dir() {
            continue;
        }
        if let Some(shard) = name.strip_suffix(".partial").and_then(Shard::of_folder) {
            unfinished.push(shard);
        } else if let Some(shard) = Shard::of_folder(name) {
            shards.push((shard, path));
        }
    }
    shards.sort_by_key(|(s, _)| (s.count, s.index));
    Ok((shards, unfinished))
}
