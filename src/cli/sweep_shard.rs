//! A sweep run as one shard of many: which shard (`--shard I/N`, or `--shard auto` from a
//! scheduler's environment), its folder under the sweep's output (`OUT/shard-I-of-N/`, written as
//! `shard-I-of-N.partial/` and renamed into place when whole), and the fingerprint that names the
//! sweep it belongs to, so a shard run again when done does nothing and `merge` refuses a shard
//! of another sweep.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use ctxbench_harness::engine::{FINGERPRINT, Fingerprint, Identity};
use ctxbench_harness::sweep::Shard;

/// The shard `--shard` (and `--shards`) names: `None` for a whole sweep; with where it came from.
pub fn shard_of(flag: Option<&str>, shards: Option<usize>) -> anyhow::Result<Option<(Shard, String)>> {
    match flag {
        None if shards.is_some() => bail!("--shards N goes with --shard auto (a Kubernetes indexed Job's completions)"),
        None => Ok(None),
        Some("auto") => {
            let (shard, words) = Shard::from_env(|name| std::env::var(name).ok(), shards)?;
            Ok(Some((shard, format!("from {words}"))))
        }
        Some(text) => {
            let shard = Shard::parse(text)?;
            if let Some(n) = shards.filter(|&n| n != shard.count) {
                bail!("--shards {n} disagrees with --shard {text}");
            }
            Ok(Some((shard, format!("--shard {text}"))))
        }
    }
}

/// What a shard's run does.
pub enum Prepared {
    /// This shard of this sweep is done already: say so.
    Done(String),
    /// Run into this folder (the shard's `.partial` one).
    Run(PathBuf),
}

/// Where a shard of `out` runs: its folder done already (the same fingerprint: nothing to do;
/// another: refused), or its `.partial` folder, kept with `--resume` and emptied without.
pub fn prepare(out: &Path, shard: Shard, identity: &Identity<'_>, resume: bool) -> anyhow::Result<Prepared> {
    let identity = Fingerprint::new(identity, shard);
    let done = out.join(shard.folder());
    if done.is_dir() {
        let remedy = format!(
            "remove {} (or give another --out) to run shard {}/{} there again",
            done.display(),
            shard.index,
            shard.count
        );
        let found = read_fingerprint(&done, &remedy)?;
        if found.fingerprint == identity.fingerprint {
            return Ok(Prepared::Done(format!(
                "shard {}/{} of this sweep is done already ({}, fingerprint {}): nothing to run",
                shard.index,
                shard.count,
                done.display(),
                identity.fingerprint
            )));
        }
        bail!(
            "{} holds shard {}/{} of another sweep (fingerprint {}, this sweep's {}): give another --out, or remove it to run this one there",
            done.display(),
            shard.index,
            shard.count,
            found.fingerprint,
            identity.fingerprint
        );
    }
    let work = partial(out, shard);
    if !resume && work.exists() {
        std::fs::remove_dir_all(&work).with_context(|| format!("cannot remove {}", work.display()))?;
    }
    if resume && work.is_dir() {
        let found = read_fingerprint(&work, "run without --resume to start the shard over")?;
        if found.fingerprint != identity.fingerprint {
            bail!(
                "cannot resume: {} is a shard of another sweep (fingerprint {}, this sweep's {}); run without --resume to start over",
                work.display(),
                found.fingerprint,
                identity.fingerprint
            );
        }
    }
    std::fs::create_dir_all(&work).with_context(|| format!("cannot create {}", work.display()))?;
    super::files::write_atomic(&work.join(FINGERPRINT), identity.to_json()?.as_bytes())?;
    Ok(Prepared::Run(work))
}

/// The folder a shard runs in until it is whole.
pub fn partial(out: &Path, shard: Shard) -> PathBuf {
    out.join(format!("{}.partial", shard.folder()))
}

/// Moves a whole shard's folder into place (`OUT/shard-I-of-N`).
pub fn finish(out: &Path, shard: Shard) -> anyhow::Result<PathBuf> {
    let done = out.join(shard.folder());
    let work = partial(out, shard);
    std::fs::rename(&work, &done).with_context(|| format!("cannot move {} to {}", work.display(), done.display()))?;
    Ok(done)
}

/// A shard folder's fingerprint file, read typed; what cannot be read is said with `remedy`.
pub fn read_fingerprint(dir: &Path, remedy: &str) -> anyhow::Result<Fingerprint> {
    let path = dir.join(FINGERPRINT);
    let text = std::fs::read(&path).map_err(|e| {
        anyhow::anyhow!(
            "{}: not a shard of a sweep (its {FINGERPRINT}: {}); {remedy}",
            dir.display(),
            ctxbench_compact::input::io_words(&e)
        )
    })?;
    let text = String::from_utf8(text).map_err(|_| anyhow::anyhow!("{}: not UTF-8 text; {remedy}", path.display()))?;
    Fingerprint::parse(&text, &path.display().to_string()).map_err(|e| anyhow::anyhow!("{e}; {remedy}"))
}
