//! `ctxbench strategies`: every stage with its parameters and their defaults, and the standard
//! list `compare` runs, each by its canonical name.

use std::process::ExitCode;

use clap::Args;
use ctxbench_harness::settings::STANDARD_STRATEGIES;

use super::output::say;

/// List the compaction stages, their parameters with defaults, and the standard strategies.
///
/// A strategy is stages joined by `+`, each with `:key=value,…` parameters
/// (`truncate:preview=300+drop`); what is not given takes its default. Results name each
/// strategy by its canonical spelling, every parameter written out.
#[derive(Debug, Args)]
pub struct StrategiesArgs {}

pub fn run(_: StrategiesArgs) -> anyhow::Result<ExitCode> {
    let width = STANDARD_STRATEGIES.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out =
        String::from("The standard strategies (compare runs these by default), with their canonical names:\n\n");
    for name in STANDARD_STRATEGIES {
        let strategy: ctxbench_compact::compact::Strategy = name.parse()?;
        out.push_str(&format!("  {name:width$}  {strategy}\n"));
    }
    let presets: Vec<&str> = ctxbench_compact::compact::PRESETS.iter().map(|p| p.name).collect();
    out.push_str(&format!(
        "\nThe presets, the compactors people run (compare runs {} beside the standard strategies;\n\
         `ctxbench presets` says what each does and where it comes from):\n\n{}\n",
        ctxbench_harness::settings::NATIVE_DEFAULTS.join(", "),
        ctxbench_compact::compact::hanging("  ", &presets.join(", "))
    ));
    out.push_str(&format!("\n{}\n", ctxbench_compact::compact::stages_help()));
    say!("{out}");
    Ok(ExitCode::SUCCESS)
}
