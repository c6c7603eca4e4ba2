//! Command-line parsing (clap) and dispatch. Raw flags are turned into the library's plain
//! config values here; `anyhow` stays on this side of the line.

mod compact;
mod compare;
mod exit;
mod files;
mod gate;
mod help;
mod import;
mod interrupt;
mod merge;
mod merge_rows;
mod merge_shards;
mod output;
mod plot;
mod presets;
mod prices;
mod profiles;
mod progress;
mod reports;
mod results_order;
mod run;
mod scenarios;
mod serve;
mod settings_args;
mod strategies;
mod sweep;
mod sweep_args;
mod sweep_best;
mod sweep_shard;
mod validate;
mod values;
mod verdict_args;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use output::errln;

/// Measures context compaction in LLM agent loops: what each strategy costs and what it breaks.
#[derive(Debug, Parser)]
#[command(name = "ctxbench", version, about, long_about = None, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Compare(compare::CompareArgs),
    Run(run::RunCommandArgs),
    Sweep(sweep_args::SweepArgs),
    Merge(merge::MergeArgs),
    Gate(gate::GateArgs),
    Plot(plot::PlotArgs),
    Compact(compact::CompactArgs),
    Import(import::ImportArgs),
    Validate(validate::ValidateArgs),
    Serve(serve::ServeArgs),
    Presets(presets::PresetsArgs),
    Prices(prices::PricesArgs),
    Profiles(profiles::ProfilesArgs),
    Strategies(strategies::StrategiesArgs),
}

/// Parses the command line and runs the command.
pub fn main() -> ExitCode {
    // A negative number given to a flag (`--threshold -0.5`) reaches the flag's own parser, which
    // says what the flag takes, rather than clap's "use '-- -0'".
    let command = Cli::command().mut_subcommands(|s| s.allow_negative_numbers(true));
    let cli = match Cli::from_arg_matches(&command.get_matches()) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    if !matches!(cli.command, Command::Compact(_)) {
        crate::huge_pages::allow();
    }
    let result = match cli.command {
        Command::Compare(args) => compare::run(args),
        Command::Run(args) => run::run(args),
        Command::Sweep(args) => sweep::run(args),
        Command::Merge(args) => merge::run(args),
        Command::Gate(args) => gate::run(args),
        Command::Plot(args) => plot::run(args),
        Command::Compact(args) => compact::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Import(args) => import::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Presets(args) => presets::run(args),
        Command::Prices(args) => prices::run(args),
        Command::Profiles(args) => profiles::run(args),
        Command::Strategies(args) => strategies::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) if err.downcast_ref::<output::ClosedPipe>().is_some() => ExitCode::SUCCESS,
        Err(err) => {
            errln!("error: {}", words(&err));
            ExitCode::from(exit::BAD_INPUT)
        }
    }
}

/// An error and its causes, outermost first, as `{err:#}` joins them, each OS error in words
/// (`cannot read a.csv: no such file or folder`, never "(os error 2)").
fn words(err: &anyhow::Error) -> String {
    let causes: Vec<String> = err
        .chain()
        .map(|cause| match cause.downcast_ref::<std::io::Error>() {
            Some(io) => ctxbench_compact::input::io_words(io),
            None => cause.to_string(),
        })
        .collect();
    causes.join(": ")
}
