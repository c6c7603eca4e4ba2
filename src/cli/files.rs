//! Writing files so that a crash never leaves a half-written one: write a temporary file
//! beside the target, then rename it into place; and traces as the lines they are written as.

use std::path::Path;

use anyhow::Context;

/// Writes `bytes` to `path` atomically, creating its folder; on failure the temporary file is
/// removed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    let written = std::fs::write(&tmp, bytes)
        .with_context(|| format!("cannot write {}", tmp.display()))
        .and_then(|()| {
            std::fs::rename(&tmp, path).with_context(|| format!("cannot move {} to {}", tmp.display(), path.display()))
        });
    if written.is_err() {
        // A failure leaves nothing behind: the target as it was, no temporary beside it.
        let _ = std::fs::remove_file(&tmp);
    }
    written
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_that_fails_leaves_no_temporary_file() {
        let dir = std::env::temp_dir().join(format!("ctxbench-atomic-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        // A folder with something in it where the file should go: the rename fails.
        let target = dir.join("taken");
        std::fs::create_dir_all(target.join("inside")).expect("mkdir");
        assert!(write_atomic(&target, b"x").is_err());
        let left: Vec<_> = std::fs::read_dir(&dir)
            .expect("lists")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(left, ["taken"]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
