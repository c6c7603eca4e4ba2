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

/// A fresh, empty folder under the system's temp dir, for one test; removed with what it holds
/// when the test is done with it (a run of the suite left some 1,500 folders, 340 MB each for
/// the large ones, behind).
pub fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("ctxbench-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    Scratch(dir)
}

/// A test's scratch folder: a path while it lives, gone when dropped.
#[derive(Debug)]
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = PathBuf;

    fn deref(&self) -> &PathBuf {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A file's bytes, or a panic naming it.
pub fn read(path: impl AsRef<Path>) -> Vec<u8> {
    let path = path.as_ref();
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
