//! `ctxbench compare`: every scenario × every strategy, a table, and `reports/`.

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, ValueEnum};
use ctxbench_compact::compact::parse_strategy_list;
use ctxbench_harness::report::{CsvRows, Labels, ResultRow, Style, csv, json, verdict_markdown, verdict_text};
use ctxbench_harness::run::run_scenario;
use ctxbench_harness::settings::{RunSettings, STANDARD_STRATEGIES};
use ctxbench_harness::sweep::dedup_by;
use ctxbench_harness::verdict::{Objective, suite, verdicts};

use super::files::{trace_lines, write_atomic};
use super::interrupt::{Interrupt, stopped};
use super::output::say;
use super::reports::{Reports, stale_note, write_reports};
use super::scenarios::ScenarioArgs;
use super::settings_args::SettingsArgs;

/// Compare strategies on scenarios and say which to use: cost, cache, calls, lost facts.
///
/// Runs every scenario with every strategy and prints, per scenario, the runs ranked by the
/// objective (runs that overflowed, broke pairing or stopped set apart, with why) and a verdict
/// line; then the suite's leaderboard and one recommendation. Writes to the output folder:
/// results.csv and results.json (every figure of every run), verdict.json, summary.md,
/// index.html (the report to open, charts inline), plots/ (each chart as PNG and SVG) and one
/// trace per run under traces/. `ctxbench strategies` lists the stages and their parameters.
#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  ctxbench compare scenarios/bike-shop-return.json --strategies none,truncate+drop,mask:m=3+drop --window 6000",
    after_long_help = super::help::with_stages("Example:\n  ctxbench compare scenarios/bike-shop-return.json --strategies none,truncate+drop,mask:m=3+drop --window 6000")
)]
pub struct CompareArgs {
    #[command(flatten)]
    scenarios: ScenarioArgs,

    #[arg(long, value_name = "LIST", default_value_t = STANDARD_STRATEGIES.join(","), hide_default_value = true,
          help = super::help::strategies_help())]
    strategies: String,

    #[command(flatten)]
    settings: SettingsArgs,

    /// What ranks the runs: cost, tokens, facts or calls [default: cost, or tokens with --price none].
    #[arg(long, value_name = "NAME")]
    objective: Option<String>,

    /// Format of the table on stdout.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,

    /// Full canonical strategy names in the table, however wide it gets.
    #[arg(long)]
    wide: bool,

    /// Draw no charts (plots/ and the report's charts are left out).
    #[arg(long)]
    no_plots: bool,

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
    let priced = args.settings.server.bill.price.0.is_some();
    let objective = Objective::resolve(args.objective.as_deref(), priced).map_err(anyhow::Error::msg)?;
    let mut strategies = parse_strategy_list(&args.strategies).context("invalid --strategies")?;
    for twice in dedup_by(&mut strategies, ToString::to_string) {
        eprintln!("note: --strategies {twice} was given more than once; it runs once");
    }
    let settings: Vec<RunSettings> = strategies.into_iter().map(|s| args.settings.settings(s)).collect();
    let scenarios = args.scenarios.load(args.settings.server.seed)?;
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
    let mut trace_names = Vec::with_capacity(plan.len());
    // Progress only where someone watches: a terminal, not a CI log or a file.
    let progress = std::io::stderr().is_terminal();
    let total = plan.len();
    let interrupt = Interrupt::catch()?;
    for (k, (scenario, settings)) in plan.into_iter().enumerate() {
        if interrupt.pressed() {
            if progress {
                eprint!("\r\x1b[K");
            }
            return Ok(stopped(k, total, &partial, None));
        }
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
        let name = trace_name(&scenario.name, &row.settings.strategy.to_string());
        write_atomic(&args.out.join("traces").join(&name), &trace_lines(&result.trace)?)?;
        trace_names.push(name);
        traces.push(result.trace);
        rows.push(row);
    }
    if progress {
        eprint!("\r\x1b[K");
    }
    drop(stream);

    let verdicts = verdicts(&rows, objective);
    let suite = suite(&verdicts, objective);
    let labels = Labels::new(&rows, args.wide);
    let settings = format!("{} · objective {}", settings_line(&args), objective.describe());
    let markdown_verdicts = verdict_markdown(&verdicts, &suite, &Labels::new(&rows, false));
    let stale = write_reports(Reports {
        out: &args.out,
        rows: &rows,
        traces: &traces,
        summary: format!("# ctxbench compare\n\n{settings}\n\n{markdown_verdicts}{COLUMNS}"),
        title: "ctxbench compare",
        settings: &settings,
        table: &rows,
        written: None,
        trace_names: &trace_names,
        verdicts: Some((&verdicts, &suite)),
        descriptions: scenarios
            .iter()
            .map(|s| (s.name.clone(), s.description.clone()))
            .collect(),
        note: "",
        plots: !args.no_plots,
    })?;

    let stdout = match args.format {
        Format::Table => {
            let style = Style {
                wide: args.wide,
                dim: std::io::stdout().is_terminal(),
            };
            verdict_text(&verdicts, &suite, &labels, style)
        }
        Format::Markdown => markdown_verdicts,
        Format::Csv => String::from_utf8(csv(&rows)?)?,
        Format::Json => serde_json::to_string_pretty(&json(&rows))? + "\n",
    };
    say!("{stdout}");
    eprintln!("{settings}");
    if let Some(note) = stale_note(&args.out, stale) {
        eprintln!("{note}");
    }
    eprintln!(
        "wrote {}/results.csv, results.json, verdict.json, summary.md, index.html{} and {}",
        args.out.display(),
        if args.no_plots { "" } else { ", plots/" },
        ctxbench_harness::human::count(rows.len(), "trace")
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

const COLUMNS: &str = "
- **#**: the rank among runs that qualify (completed, no overflow, no pairing error, no silent truncation); **—** for a run that does not, with why.
- **cost**: what the run cost in US dollars, every accepted call with the cache priced in, summaries included.
- **cache**: the share of the tokens sent that were read from the provider's cache.
- **tokens sent**: true input tokens of every accepted call, summaries included.
- **calls**: model calls, agent turns, refetches and summaries, rejected ones included.
- **peak**: the largest request the server accepted.
- **facts lost**: needs of steps that ran whose value was gone from the request and could not be fetched again, out of all needs of steps that ran (a run that stopped ran fewer steps).
- **refetches**: needs fetched again by calling their source tool (one more call each time).

Every figure of every run is in `results.csv`; the verdicts, machine-readable, in `verdict.json`.
";
