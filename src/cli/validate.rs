//! `ctxbench validate`: checks scenario files without running them.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use ctxbench_harness::human::count;
use ctxbench_harness::scenario::load_scenario;

use super::output::{errln, sayln};
use super::scenarios::scenario_files;

/// Check scenario files: format, tools, fixtures, facts and needs.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Scenario files or folders; default: scenarios/.
    #[arg(value_name = "SCENARIO")]
    files: Vec<PathBuf>,
}

pub fn run(args: ValidateArgs) -> anyhow::Result<ExitCode> {
    let mut bad = 0;
    // Each name and its file: `compare` refuses two scenarios of one name, and so does this.
    let mut names: Vec<(String, PathBuf)> = Vec::new();
    for file in scenario_files(&args.files)? {
        match load_scenario(&file, 0) {
            Ok(s) if names.iter().any(|(n, _)| *n == s.name) => {
                bad += 1;
                let other = names
                    .iter()
                    .find(|(n, _)| *n == s.name)
                    .map(|(_, f)| f.display().to_string());
                errln!(
                    "error: {}: the name {:?} is already taken by {}; scenario names must be unique (change \"name\" in one of them)",
                    file.display(),
                    s.name,
                    other.unwrap_or_default()
                );
            }
            Ok(s) => {
                names.push((s.name.clone(), file.clone()));
                let steps: usize = s.requests.iter().map(|r| r.steps.len()).sum();
                sayln!(
                    "ok     {} ({}): {}, {}, {}, {}",
                    s.name,
                    file.display(),
                    count(s.requests.len(), "request"),
                    count(steps, "step"),
                    count(s.facts.len(), "fact"),
                    count(s.tools.len(), "tool")
                );
            }
            Err(e) => {
                bad += 1;
                errln!("error: {e}");
            }
        }
    }
    Ok(if bad == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::exit::BAD_INPUT)
    })
}
