//! The repository's test data (`tests/fixtures/`): the project's own conversations, the oracles
//! made by tiktoken and by the reference listing's `compact()`, and six real agent conversations. They ship
//! with every clone, so no test skips for want of them.

use std::path::{Path, PathBuf};

/// `tests/fixtures/<rel>` of the repository (found above the package that runs the tests);
/// panics when it is missing (it is part of the repository).
pub fn fixture(rel: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|dir| dir.join("tests/fixtures").is_dir())
        .expect("the repository's tests/fixtures/ above the package");
    let path = root.join("tests/fixtures").join(rel);
    assert!(path.exists(), "{} is part of the repository", path.display());
    path
}

/// The `*.json` files of a folder, sorted by name.
pub fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

/// The lines of a JSON Lines file, parsed.
pub fn jsonl(path: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .enumerate()
        .map(|(n, line)| serde_json::from_str(line).unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), n + 1)))
        .collect()
}
