//! Finding and loading the scenarios a command names (or every file under `scenarios/`).

use std::path::{Path, PathBuf};

use anyhow::bail;
use ctxbench_harness::scenario::{Scenario, files_in, load_scenario};

/// The files named, or every `*.json` under `scenarios/` sorted by name; a folder stands for
/// the `*.json` files in it.
pub fn scenario_files(named: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let named: Vec<PathBuf> = if named.is_empty() {
        vec![PathBuf::from("scenarios")]
    } else {
        named.to_vec()
    };
    let mut files = Vec::new();
    for path in named {
        if path.is_dir() {
            let found = files_in(&path)?;
            if found.is_empty() {
                bail!("{}: no scenario files (*.json) in this folder", path.display());
            }
            files.extend(found);
        } else {
            files.push(path);
        }
    }
    Ok(files)
}

/// Loads every file; the first invalid one is an error. Names must be unique.
pub fn load_all(files: &[PathBuf], seed: u64) -> anyhow::Result<Vec<Scenario>> {
    let mut scenarios: Vec<Scenario> = Vec::new();
    for file in files {
        let scenario = load_scenario(Path::new(file), seed)?;
        if let Some(other) = scenarios.iter().find(|s| s.name == scenario.name) {
            bail!(
                "{}: the name {:?} is already taken by {}; scenario names must be unique",
                file.display(),
                scenario.name,
                other.path
            );
        }
        scenarios.push(scenario);
    }
    Ok(scenarios)
}
