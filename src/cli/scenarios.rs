//! Finding and loading the scenarios a command names (or every file under `scenarios/`).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::Args;
use ctxbench_harness::scenario::{Scenario, files_in, load_scenario, parse_scenario};

/// The bundled scenarios, inside the binary so that `--bundled` runs from anywhere (a test
/// holds this list to the folder).
pub const BUNDLED: [(&str, &str); 12] = [
    (
        "bike-shop-return.json",
        include_str!("../../scenarios/bike-shop-return.json"),
    ),
    (
        "chinese-support.json",
        include_str!("../../scenarios/chinese-support.json"),
    ),
    ("coding-agent.json", include_str!("../../scenarios/coding-agent.json")),
    (
        "compaction-loop.json",
        include_str!("../../scenarios/compaction-loop.json"),
    ),
    ("heavy-prefix.json", include_str!("../../scenarios/heavy-prefix.json")),
    (
        "long-support-chat.json",
        include_str!("../../scenarios/long-support-chat.json"),
    ),
    ("lunch-break.json", include_str!("../../scenarios/lunch-break.json")),
    ("no-tools-chat.json", include_str!("../../scenarios/no-tools-chat.json")),
    (
        "parallel-calls.json",
        include_str!("../../scenarios/parallel-calls.json"),
    ),
    (
        "real-support-shape.json",
        include_str!("../../scenarios/real-support-shape.json"),
    ),
    (
        "research-agent.json",
        include_str!("../../scenarios/research-agent.json"),
    ),
    (
        "unfetchable-facts.json",
        include_str!("../../scenarios/unfetchable-facts.json"),
    ),
];

/// Which scenarios a command runs: files and folders, or the bundled ones.
#[derive(Debug, Args)]
pub struct ScenarioArgs {
    /// Scenario files or folders; default: every scenario under scenarios/.
    #[arg(value_name = "SCENARIO", conflicts_with = "bundled")]
    pub files: Vec<PathBuf>,

    /// Run the scenarios bundled in ctxbench (the repository's scenarios/), from anywhere.
    #[arg(long)]
    pub bundled: bool,
}

impl ScenarioArgs {
    /// Loads them.
    pub fn load(&self, seed: u64) -> anyhow::Result<Vec<Scenario>> {
        if !self.bundled {
            return load_all(&scenario_files(&self.files)?, seed);
        }
        BUNDLED
            .iter()
            .map(|(name, text)| Ok(parse_scenario(text, &format!("scenarios/{name}"), seed)?))
            .collect()
    }

    /// Each scenario's file name and text, as [`ScenarioArgs::load`] reads them (a sweep's
    /// fingerprint).
    pub fn texts(&self) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
        if self.bundled {
            return Ok(BUNDLED
                .iter()
                .map(|(name, text)| (name.to_string(), text.as_bytes().to_vec()))
                .collect());
        }
        scenario_files(&self.files)?
            .into_iter()
            .map(|path| {
                let text = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
                Ok((path.display().to_string(), text))
            })
            .collect()
    }

    /// How many scenarios [`ScenarioArgs::load`] gives, without loading them.
    pub fn count(&self) -> anyhow::Result<usize> {
        Ok(if self.bundled {
            BUNDLED.len()
        } else {
            scenario_files(&self.files)?.len()
        })
    }
}

/// The files named, or every `*.json` under `scenarios/` sorted by name; a folder stands for
/// the `*.json` files in it.
pub fn scenario_files(named: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let named: Vec<PathBuf> = if named.is_empty() {
        if !Path::new("scenarios").is_dir() {
            bail!(
                "no scenario given, and no scenarios/ folder here; name scenario files or folders \
                 (ctxbench compare my-agent.json), or run the bundled ones with --bundled"
            );
        }
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
