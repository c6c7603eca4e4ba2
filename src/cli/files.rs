//! Writing files so that a crash never leaves a half-written one: write a temporary file
//! beside the target, then rename it into place; and traces as the lines they are written as.

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
