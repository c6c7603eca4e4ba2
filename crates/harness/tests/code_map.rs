//! ARCHITECTURE.md's code map names every Rust file of the library, the harness and the binary,
//! and no file that is gone. A section of the map is a heading that names folders in backticks
//! (`` `crates/harness/src/engine/` ``); in it, a name in backticks is a file or a folder of the
//! folder last named (a path with a `/` is found from the section's folders, their parents, or
//! the repository's root, and, a folder or a `.rs` file, sets the folder last named). A folder
//! named covers its files. Sections whose heading names no folder map nothing.

// A test crate: a failed unwrap is a failed test, with its place.
#![allow(clippy::unwrap_used)]

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The folders whose every `.rs` file the map must name.
const MAPPED: &[&str] = &["crates/compact/src", "crates/harness/src", "src"];

/// The crates named as a whole (in "The rest", which names no folder in its heading).
const CRATES: &[&str] = &["crates/python/", "crates/node/"];

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The names in backticks of `text`, in order.
fn ticked(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// What the map covers: files and folders (relative to the root, folders ending in `/`), and the
/// `.rs` files its sections name that do not exist.
fn covered(map: &str, root: &Path) -> (BTreeSet<String>, Vec<String>) {
    let exists = |rel: &str| root.join(rel).exists();
    let mut found = BTreeSet::new();
    let mut stale = Vec::new();
    for section in map.split("\n#").skip(1) {
        let (heading, body) = section.split_once('\n').unwrap_or((section, ""));
        let mut folders: Vec<String> = Vec::new();
        for name in ticked(heading).into_iter().filter(|n| n.ends_with('/')) {
            let full = match folders.first() {
                Some(first) if !exists(name) => format!("{}{name}", parent(first)),
                _ => name.to_owned(),
            };
            folders.push(full);
        }
        if folders.is_empty() {
            // Prose elsewhere (`crates/harness/src/` in a sentence) maps nothing.
            continue;
        }
        let mut bases: Vec<String> = folders.clone();
        bases.extend(folders.iter().map(|f| parent(f)));
        bases.push(String::new());
        let mut current = folders.first().cloned();
        for name in ticked(body) {
            let resolved = if name.contains('/') {
                bases.iter().map(|b| format!("{b}{name}")).find(|p| exists(p))
            } else {
                current.as_ref().map(|c| format!("{c}{name}")).filter(|p| exists(p))
            };
            match resolved {
                Some(path) => {
                    // A path elsewhere (`docs/trace.md`) leaves the folder as it was.
                    if name.contains('/') && (path.ends_with('/') || path.ends_with(".rs")) {
                        current = Some(if path.ends_with('/') {
                            path.clone()
                        } else {
                            parent(&path)
                        });
                    }
                    found.insert(path);
                }
                None if name.ends_with(".rs") => {
                    stale.push(format!("{name} (in {})", heading.trim_start_matches('#').trim()));
                }
                None => {}
            }
        }
    }
    (found, stale)
}

/// `path`'s folder, ending in `/` (`a/b/` for `a/b/c.rs` and for `a/b/c/`).
fn parent(path: &str) -> String {
    let trimmed = path.trim_end_matches('/');
    trimmed.rfind('/').map_or(String::new(), |i| trimmed[..=i].to_owned())
}

/// Every `.rs` file under `dir` (relative to `root`), sorted.
fn rust_files(root: &Path, dir: &str) -> Vec<String> {
    let mut rel: Vec<String> = common::rust_files(&root.join(dir))
        .iter()
        .map(|p| p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/"))
        .collect();
    rel.sort();
    rel
}

#[test]
fn the_code_map_names_every_file_and_none_that_is_gone() {
    let root = root();
    let map = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let (found, stale) = covered(&map, &root);
    let missing: Vec<String> = MAPPED
        .iter()
        .flat_map(|dir| rust_files(&root, dir))
        .filter(|file| !found.contains(file) && !found.iter().any(|f| f.ends_with('/') && file.starts_with(f)))
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md's code map lacks:\n{}",
        missing.join("\n")
    );
    assert!(
        stale.is_empty(),
        "ARCHITECTURE.md names files that are gone:\n{}",
        stale.join("\n")
    );
    for krate in CRATES {
        assert!(ticked(&map).contains(krate), "ARCHITECTURE.md lacks {krate}");
    }
}

#[test]
fn a_name_is_found_in_the_folder_last_named() {
    let root = root();
    let map = "# Map\n\n## `crates/harness/src/engine/`, `sweep/`\n\n- `mod.rs`: x. `jobs.rs`: y. `gone.rs`.\n\
               - `sweep/shard.rs`: z. `layout.rs`.\n\n## Else\n\n- `crates/node/`: the addon. `lib.rs`.\n";
    let (found, stale) = covered(map, &root);
    let want: BTreeSet<String> = [
        "crates/harness/src/engine/mod.rs",
        "crates/harness/src/engine/jobs.rs",
        "crates/harness/src/sweep/shard.rs",
        "crates/harness/src/sweep/layout.rs",
    ]
    .map(String::from)
    .into();
    assert_eq!(found, want);
    assert_eq!(stale, ["gone.rs (in `crates/harness/src/engine/`, `sweep/`)"]);
}
