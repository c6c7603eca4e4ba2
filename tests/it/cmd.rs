//! Running the `ctxbench` binary from tests: the command, scratch folders, reading what it wrote.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The binary, run from the crate's folder, with no GitHub summary to append to.
pub fn ctxbench() -> Command {
    let mut cmd = Command::cargo_bin("ctxbench").expect("the binary builds");
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("GITHUB_STEP_SUMMARY");
    cmd
}

/// A fresh, empty folder under the system's temp dir, for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ctxbench-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// A file's bytes, or a panic naming it.
pub fn read(path: impl AsRef<Path>) -> Vec<u8> {
    let path = path.as_ref();
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
