//! `ctxbench validate`: checks scenario files without running them.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use ctxbench_harness::human::count;
use ctxbench_harness::scenario::load_scenario;

use super::output::sayln;
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
    for file in scenario_files(&args.files)? {
        match load_scenario(&file, 0) {
            Ok(s) => {
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
                eprintln!("error: {e}");
            }
        }
    }
    Ok(if bad == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::exit::BAD_INPUT)
    })
}
