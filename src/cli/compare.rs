//! `ctxbench compare`: every scenario × every strategy, a table, and `reports/`.

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, ValueEnum};
use ctxbench_compact::compact::parse_strategy_list;
use ctxbench_harness::report::{CsvRows, ResultRow, csv, json, markdown, table};
use ctxbench_harness::run::run_scenario;
use ctxbench_harness::settings::{RunSettings, STANDARD_STRATEGIES};

use super::files::{trace_lines, write_atomic};
use super::reports::{Reports, write_reports};
use super::scenarios::{load_all, scenario_files};
use super::settings_args::SettingsArgs;

/// Compare strategies on scenarios: tokens sent, calls, overflows, lost facts.
///
/// Runs every scenario with every strategy, prints a table, and writes results.csv,
/// results.json, summary.md and one trace per run under traces/ to the output folder.
#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  ctxbench compare scenarios/bike-shop-return.json --strategies none,truncate+drop,mask:m=3+drop --window 6000",
    after_long_help = super::with_stages("Example:\n  ctxbench compare scenarios/bike-shop-return.json --strategies none,truncate+drop,mask:m=3+drop --window 6000")
)]
pub struct CompareArgs {
    /// Scenario files or folders; default: every scenario under scenarios/.
    #[arg(value_name = "SCENARIO")]
    files: Vec<PathBuf>,

    #[arg(long, value_name = "LIST", default_value_t = STANDARD_STRATEGIES.join(","), hide_default_value = true,
          help = super::strategies_help())]
    strategies: String,

    #[command(flatten)]
    settings: SettingsArgs,

    /// Format of the table on stdout.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,

    /// Where to write results, summary and traces.
    #[arg(short, long, default_value = "reports", value_name = "DIR")]
    out: PathBuf,
}

/// `--format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned columns for people.
    Table,
    /// The rows as CSV.
    Csv,
    /// The rows as JSON.
    Json,
    /// A Markdown table.
    Markdown,
}

pub fn run(args: CompareArgs) -> anyhow::Result<ExitCode> {
    let strategies = parse_strategy_list(&args.strategies).context("invalid --strategies")?;
    let settings: Vec<RunSettings> = strategies.into_iter().map(|s| args.settings.settings(s)).collect();
    let scenarios = load_all(&scenario_files(&args.files)?, args.settings.server.seed)?;
    let mut plan = Vec::new();
    for scenario in &scenarios {
        for s in &settings {
            plan.push((scenario, s.resolved(scenario)?));
        }
    }

    let partial = args.out.join("results.csv.partial");
    std::fs::create_dir_all(args.out.join("traces"))
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let mut stream = std::fs::File::create(&partial)
        .map(CsvRows::new)
        .with_context(|| format!("cannot write {}", partial.display()))?;
    let mut rows = Vec::with_capacity(plan.len());
    let mut traces = Vec::with_capacity(plan.len());
    // Progress only where someone watches: a terminal, not a CI log or a file.
    let progress = std::io::stderr().is_terminal();
    let total = plan.len();
    for (k, (scenario, settings)) in plan.into_iter().enumerate() {
        if progress {
            eprint!(
                "\r[{}/{}] {} · {}\x1b[K",
                k + 1,
                total,
                scenario.name,
                settings.strategy
            );
        }
        let result = run_scenario(scenario, &settings, &mut |_| {})?;
        let row = ResultRow::new(&scenario.name, settings, result.metrics);
        // Each row is on disk as soon as it is done: a crash keeps what was measured.
        stream
            .write(&row)
            .with_context(|| format!("cannot write {}", partial.display()))?;
        let trace = args
            .out
            .join("traces")
            .join(trace_name(&scenario.name, &row.settings.strategy.to_string()));
        write_atomic(&trace, &trace_lines(&result.trace)?)?;
        traces.push(result.trace);
        rows.push(row);
    }
    if progress {
        eprint!("\r\x1b[K");
    }
    drop(stream);

    write_reports(Reports {
        out: &args.out,
        rows: &rows,
        traces: &traces,
        summary: summary(&rows, &args),
        title: "ctxbench compare",
        settings: &settings_line(&args),
        table: &rows,
    })?;

    let stdout = match args.format {
        Format::Table => table(&rows),
        Format::Markdown => markdown(&rows),
        Format::Csv => String::from_utf8(csv(&rows)?)?,
        Format::Json => serde_json::to_string_pretty(&json(&rows))? + "\n",
    };
    print!("{stdout}");
    eprintln!("{}", settings_line(&args));
    eprintln!(
        "wrote {}/results.csv, results.json, summary.md, index.html, plots/ and {} traces",
        args.out.display(),
        rows.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// The settings every figure depends on, echoed with the results.
fn settings_line(args: &CompareArgs) -> String {
    // The strategy is named on every row; these are the rest.
    args.settings
        .settings(ctxbench_compact::compact::Strategy::none())
        .describe()
}

/// A trace's file name: the scenario and the canonical strategy, with path-unsafe characters
/// replaced.
pub fn trace_name(scenario: &str, strategy: &str) -> String {
    let safe = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "-._=".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    format!("{}--{}.jsonl", safe(scenario), safe(strategy))
}

fn summary(rows: &[ResultRow], args: &CompareArgs) -> String {
    let mut out = String::from("# ctxbench compare\n\n");
    out.push_str(&format!("{}\n\n", settings_line(args)));
    out.push_str(&markdown(rows));
    out.push_str(COLUMNS);
    out
}

const COLUMNS: &str = "
- **tokens sent**: true input tokens of every accepted call, summaries included: the bill.
- **calls**: model calls, agent turns, refetches and summaries, rejected ones included.
- **peak**: the largest request the server accepted.
- **overflows**: requests the server rejected as over the window (the run stops, unless `--on-overflow compact-retry` recovers).
- **facts lost**: needs of steps that ran whose value was gone from the request and could not be fetched again, out of all needs of steps that ran.
- **refetches**: needs fetched again by calling their source tool (one more call each time).
- **answered**: requests that ended with a reply.
- **done**: the run reached the end of its last request.
";
