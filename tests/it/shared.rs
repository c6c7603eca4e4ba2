//! Access to `../shared/` (oracles and real traces beside the checkout in CI). A user's clone has
//! no such folder: tests that need it say so plainly on stderr and check nothing else.

use std::path::PathBuf;

/// `../shared/<rel>` if it exists; otherwise says so and returns `None`.
pub fn shared(rel: &str) -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("shared")
        .join(rel);
    if path.exists() {
        Some(path)
    } else {
        eprintln!(
            "skipped: {} is absent (it sits beside the checkout in CI, not in a user's clone)",
            path.display()
        );
        None
    }
}

/// The lines of a JSON Lines file, parsed.
pub fn jsonl(path: &std::path::Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .enumerate()
        .map(|(n, line)| serde_json::from_str(line).unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), n + 1)))
        .collect()
}
