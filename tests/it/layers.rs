//! The layers, as an embedding agent meets them: the compaction library compiles none of what
//! the harness and the binary need (command line, threads, progress, HTTP, plotting, CSV).

use std::process::Command;

/// Crates of the harness and the binary that an agent embedding the compactor must not build.
const NOT_IN_THE_LIBRARY: &[&str] = &[
    "anyhow",
    "clap",
    "csv",
    "ctrlc",
    "ctxbench-harness",
    "indicatif",
    "mimalloc",
    "plotters",
    "rand",
    "rayon",
    "tiny_http",
    "ureq",
];

/// The library's normal dependencies, transitive ones included, as `cargo tree` lists them.
fn library_tree() -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "tree",
            "--offline",
            "--locked",
            "-p",
            "ctxbench-compact",
            "-e",
            "normal",
            "--prefix",
            "none",
        ])
        .output()
        .expect("cargo runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn the_library_builds_nothing_of_the_harness_or_the_binary() {
    let tree = library_tree();
    for direct in ["bpe-openai", "foldhash", "serde", "serde_json", "thiserror"] {
        assert!(tree.iter().any(|n| n == direct), "{direct} in {tree:?}");
    }
    let heavy: Vec<&String> = tree
        .iter()
        .filter(|n| NOT_IN_THE_LIBRARY.contains(&n.as_str()))
        .collect();
    assert!(heavy.is_empty(), "the library pulls in {heavy:?}");
    assert!(tree.len() < 45, "{} crates: {tree:?}", tree.len());
}
