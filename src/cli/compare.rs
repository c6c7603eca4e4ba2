//! `ctxbench compare`: every scenario × every strategy, a table, and `reports/`.

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use ctxbench::compact::{STANDARD_STRATEGIES, parse_strategy_list};
use ctxbench::report::{CsvRows, ResultRow, csv, json, markdown, table};
use ctxbench::run::run_scenario;

use super::output::{Reports, trace_lines, write_atomic, write_reports};
use super::run_args::RunArgs;
use super::scenarios::{load_all, scenario_files};

/// Compare strategies on scenarios: tokens sent, calls, overflows, lost facts.
///
/// Runs every scenario with every strategy, prints a table, and writes results.csv,
/// results.json, summary.md and one trace per run under traces/ to the output folder.
#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  ctxbench compare scenarios/bike-shop-return.json --strategies none,truncate+drop,mask:m=3+drop --window 6000"
)]
pub struct CompareArgs {
    /// Scenario files or folders; default: every scenario under scenarios/.
    #[arg(value_name = "SCENARIO")]
    files: Vec<PathBuf>,

    /// Strategies, comma-separated (a `,` followed by key=value continues a stage's parameters).
    /// Default: none, truncate, drop, truncate+drop, summarize, truncate+summarize, mask,
    /// mask+drop, window, clear-tool-uses.
    #[arg(long, value_name = "LIST")]
    strategies: Option<String>,

    #[command(flatten)]
    run: RunArgs,

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
    let list = args.strategies.clone().unwrap_or_else(|| STANDARD_STRATEGIES.join(","));
    let strategies = parse_strategy_list(&list).context("invalid --strategies")?;
    let scenarios = load_all(&scenario_files(&args.files)?, args.run.seed)?;
    let configs = strategies
        .into_iter()
        .map(|s| args.run.config(s))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut plan = Vec::new();
    for scenario in &scenarios {
        for config in &configs {
            let Some(policy) = config.policy(scenario) else {
                bail!("{}: the scenario sets no window; give one with --window", scenario.path);
            };
            policy.validate().context("invalid policy")?;
            plan.push((scenario, config, policy));
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
    for (k, (scenario, config, policy)) in plan.iter().enumerate() {
        if progress {
            eprint!(
                "\r[{}/{}] {} · {}\x1b[K",
                k + 1,
                plan.len(),
                scenario.name,
                config.strategy
            );
        }
        let result = run_scenario(scenario, config, policy, &mut |_| {});
        let row = ResultRow::new(scenario, config, policy, &result.metrics);
        // Each row is on disk as soon as it is done: a crash keeps what was measured.
        stream
            .write(&row)
            .with_context(|| format!("cannot write {}", partial.display()))?;
        let trace = args
            .out
            .join("traces")
            .join(trace_name(&scenario.name, &row.key.strategy));
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
        settings: &settings(&args),
        table: &rows,
    })?;

    let stdout = match args.format {
        Format::Table => table(&rows),
        Format::Markdown => markdown(&rows),
        Format::Csv => String::from_utf8(csv(&rows)?)?,
        Format::Json => serde_json::to_string_pretty(&json(&rows))? + "\n",
    };
    print!("{stdout}");
    eprintln!("{}", settings(&args));
    eprintln!(
        "wrote {}/results.csv, results.json, summary.md, index.html, plots/ and {} traces",
        args.out.display(),
        rows.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// The settings every figure depends on, echoed with the results (flag values as typed).
fn settings(args: &CompareArgs) -> String {
    let r = &args.run;
    let name = |v: Option<clap::builder::PossibleValue>| v.map_or_else(String::new, |v| v.get_name().to_owned());
    format!(
        "settings: window {} · threshold {} · keep {} · reply reserve {} · estimator {} · tokenizer {} · overflow {} · on-overflow {} · seed {}",
        r.window.map_or("per scenario".to_owned(), |w| w.to_string()),
        r.limits.threshold,
        r.limits.keep_recent_turns,
        r.limits.reply_reserve,
        r.limits.estimator,
        r.limits.tokenizer,
        name(r.overflow.to_possible_value()),
        name(r.on_overflow.to_possible_value()),
        r.seed
    )
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
    out.push_str(&format!("{}\n\n", settings(args)));
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
