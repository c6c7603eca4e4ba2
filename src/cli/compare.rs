//! `ctxbench compare`: every scenario × every strategy, a table, and `reports/`.

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, ValueEnum};
use ctxbench_compact::compact::parse_strategy_list;
use ctxbench_harness::replicate::{Job, Seeds, run_jobs};
use ctxbench_harness::report::{CsvRows, Labels, ResultRow, Style, csv, json, verdict_markdown, verdict_text};
use ctxbench_harness::scenario::Scenario;
use ctxbench_harness::settings::{RunSettings, STANDARD_STRATEGIES};
use ctxbench_harness::sweep::dedup_by;
use ctxbench_harness::verdict::{Alternative, Objective, prices, repriced, sensitivities, suite, verdicts};

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

    /// What ranks the runs: keys tried in order, from facts, cost, tokens and calls
    /// [default: facts,cost; facts,tokens with --price none; cost with --fact-cost].
    #[arg(long, value_name = "LIST")]
    objective: Option<String>,

    /// Dollars a lost fact costs: ranks by cost + this × facts lost.
    #[arg(long, value_name = "DOLLARS", value_parser = super::values::decimal)]
    fact_cost: Option<f64>,

    /// Two runs tie on a key when their 95% intervals overlap or their means differ by less than
    /// this fraction; a tie passes to the next key, then to the simpler strategy.
    #[arg(long, default_value_t = Objective::DEFAULT_TIE, value_name = "FRACTION", value_parser = super::values::decimal)]
    tie: f64,

    /// Seeds per configuration: auto (once when nothing can vary, else 20 from --seed), a count
    /// N from --seed, or a range A..B.
    #[arg(long, default_value = "auto", value_name = "N|A..B|auto")]
    seeds: String,

    /// Threads; default: every core. The results are the same whatever the number.
    #[arg(long, value_name = "N", value_parser = super::values::positive::<usize>)]
    jobs: Option<usize>,

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
    let objective =
        Objective::resolve(args.objective.as_deref(), priced, args.fact_cost, args.tie).map_err(anyhow::Error::msg)?;
    if let Some(note) = args.settings.server.bill.cache_note() {
        eprintln!("{note}");
    }
    let base = args.settings.server.seed;
    let seeds = Seeds::parse(&args.seeds, base).map_err(anyhow::Error::msg)?;
    let list = seeds.list(base);
    let mut strategies = parse_strategy_list(&args.strategies).context("invalid --strategies")?;
    for twice in dedup_by(&mut strategies, ToString::to_string) {
        eprintln!("note: --strategies {twice} was given more than once; it runs once");
    }
    let settings: Vec<RunSettings> = strategies.into_iter().map(|s| args.settings.settings(s)).collect();
    // The first seed's scenarios run every configuration; the others load only when needed.
    let scenarios: Vec<Scenario> = args.scenarios.load(list[0])?;
    let mut first = Vec::new();
    let mut scenario_of = Vec::new();
    for (at, scenario) in scenarios.iter().enumerate() {
        for s in &settings {
            scenario_of.push(at);
            first.push(Job {
                scenario,
                settings: RunSettings {
                    seed: list[0],
                    ..s.resolved(scenario)?
                },
            });
        }
    }

    let partial = args.out.join("results.csv.partial");
    std::fs::create_dir_all(args.out.join("traces"))
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let mut stream = std::fs::File::create(&partial)
        .map(CsvRows::new)
        .with_context(|| format!("cannot write {}", partial.display()))?;
    let interrupt = Interrupt::catch()?;
    let progress = Progress::new(first.len());
    let mut rows_of: Vec<Vec<ResultRow>> = Vec::with_capacity(first.len());
    let mut traces = Vec::with_capacity(first.len());
    let mut trace_names = Vec::with_capacity(first.len());
    let mut replicate = Vec::with_capacity(first.len());
    let ran = run_jobs(&first, args.jobs.unwrap_or(0), interrupt.flag(), &mut |k, result| {
        let job = &first[k];
        let row = ResultRow::new(&job.scenario.name, job.settings.clone(), result.metrics);
        // Each row is on disk as soon as it is done: a crash keeps what was measured.
        stream
            .write(&row)
            .with_context(|| format!("cannot write {}", partial.display()))?;
        let name = trace_name(&job.scenario.name, &row.settings.strategy.to_string());
        write_atomic(&args.out.join("traces").join(&name), &trace_lines(&result.trace)?)?;
        replicate.push(seeds.replicates(job.scenario, &row.metrics));
        trace_names.push(name);
        traces.push(result.trace);
        rows_of.push(vec![row]);
        progress.tick(k + 1);
        Ok::<(), anyhow::Error>(())
    })?;
    let replicated = replicate.iter().filter(|r| **r).count();
    let mut others: Vec<Vec<Scenario>> = Vec::with_capacity(list.len() - 1);
    if ran == first.len() && replicated > 0 {
        for &seed in &list[1..] {
            others.push(args.scenarios.load(seed)?);
        }
        let mut more = Vec::new();
        let mut owner = Vec::new();
        for (loaded, &seed) in others.iter().zip(&list[1..]) {
            for (k, job) in first.iter().enumerate().filter(|(k, _)| replicate[*k]) {
                more.push(Job {
                    scenario: &loaded[scenario_of[k]],
                    settings: RunSettings {
                        seed,
                        ..job.settings.clone()
                    },
                });
                owner.push(k);
            }
        }
        let progress = Progress::new(more.len());
        let more_ran = run_jobs(&more, args.jobs.unwrap_or(0), interrupt.flag(), &mut |j, result| {
            let job = &more[j];
            let row = ResultRow::new(&job.scenario.name, job.settings.clone(), result.metrics);
            stream
                .write(&row)
                .with_context(|| format!("cannot write {}", partial.display()))?;
            rows_of[owner[j]].push(row);
            progress.tick(j + 1);
            Ok::<(), anyhow::Error>(())
        })?;
        progress.clear();
        if more_ran < more.len() {
            return Ok(stopped(ran + more_ran, first.len() + more.len(), &partial, None));
        }
    }
    progress.clear();
    if ran < first.len() {
        return Ok(stopped(ran, first.len(), &partial, None));
    }
    drop(stream);
    let charted: Vec<ResultRow> = rows_of.iter().map(|r| r[0].clone()).collect();
    let rows: Vec<ResultRow> = rows_of.into_iter().flatten().collect();
    let runs = rows.len();

    // Whether each pick holds under the table's other prices and caches.
    let mut alternatives = Vec::new();
    if let Some(price) = &args.settings.server.bill.price.0 {
        let cache = args.settings.server.bill.cache();
        for (name, alt) in prices(price) {
            if alt.cache == cache {
                alternatives.push(Alternative {
                    name,
                    cache: alt.cache.clone(),
                    rows: repriced(&rows, &alt),
                    resimulated: None,
                });
                continue;
            }
            // Simulated again on every seed the configuration ran with: a subset would flip picks by
            // its draws, not by the price.
            let seeds_of = |k: usize| if replicate[k] { list.len() } else { 1 };
            let mut jobs = Vec::new();
            for (k, job) in first.iter().enumerate() {
                for s in 0..seeds_of(k) {
                    let scenario = if s == 0 {
                        &scenarios[scenario_of[k]]
                    } else {
                        &others[s - 1][scenario_of[k]]
                    };
                    jobs.push(Job {
                        scenario,
                        settings: RunSettings {
                            price: Some(alt.clone()),
                            cache: alt.cache.clone(),
                            seed: list[s],
                            ..job.settings.clone()
                        },
                    });
                }
            }
            let mut alt_rows = Vec::with_capacity(jobs.len());
            let done = run_jobs(&jobs, args.jobs.unwrap_or(0), interrupt.flag(), &mut |j, result| {
                alt_rows.push(ResultRow::new(
                    &jobs[j].scenario.name,
                    jobs[j].settings.clone(),
                    result.metrics,
                ));
                Ok::<(), anyhow::Error>(())
            })?;
            if done < jobs.len() {
                return Ok(stopped(runs, runs, &args.out.join("results.csv"), None));
            }
            alternatives.push(Alternative {
                name,
                cache: alt.cache,
                rows: alt_rows,
                resimulated: Some(list.len()),
            });
        }
    }
    let mut verdicts = verdicts(&rows, &objective);
    let checked = sensitivities(&verdicts, &alternatives, &objective);
    for (v, s) in verdicts.iter_mut().zip(checked) {
        v.sensitivity = s;
    }
    let suite = suite(&verdicts, &objective);
    let labels = Labels::new(&rows, args.wide);
    let seeds_note = seeds_line(&seeds, &list, first.len(), replicated);
    let settings = format!(
        "{} · {seeds_note} · objective: {}",
        settings_line(&args),
        objective.describe()
    );
    let markdown_verdicts = verdict_markdown(&verdicts, &suite, &Labels::new(&rows, false));
    let stale = write_reports(Reports {
        out: &args.out,
        rows: &rows,
        traces: &traces,
        summary: format!("# ctxbench compare\n\n{settings}\n\n{markdown_verdicts}{COLUMNS}"),
        title: "ctxbench compare",
        settings: &settings,
        table: &charted,
        charted: &charted,
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
        "wrote {}/results.csv ({}), results.json, verdict.json, summary.md, index.html{} and {} (the first seed's)",
        args.out.display(),
        ctxbench_harness::human::count(runs, "run"),
        if args.no_plots { "" } else { ", plots/" },
        ctxbench_harness::human::count(traces.len(), "trace")
    );
    Ok(ExitCode::SUCCESS)
}

/// What the seeds were, for the settings line: `seeds 0..19 (auto: 60 of 110 configurations
/// draw at random or run on seeded text; the other 50 ran once)`.
fn seeds_line(seeds: &Seeds, list: &[u64], configurations: usize, replicated: usize) -> String {
    let range = if list.len() == 1 {
        format!("seed {}", list[0])
    } else {
        format!("seeds {}..{}", list[0], list[list.len() - 1])
    };
    match seeds {
        Seeds::Auto if replicated < configurations => format!(
            "{range} (auto: {replicated} of {configurations} configurations draw at random or run on seeded text; the other {} cannot vary and ran once)",
            configurations - replicated
        ),
        Seeds::Auto => format!("{range} (auto)"),
        Seeds::List(_) => range,
    }
}

/// Progress on stderr, only where someone watches: a terminal, not a CI log or a file.
struct Progress {
    total: usize,
    on: bool,
}

impl Progress {
    fn new(total: usize) -> Progress {
        Progress {
            total,
            on: std::io::stderr().is_terminal(),
        }
    }

    fn tick(&self, done: usize) {
        if self.on {
            eprint!("\r[{done}/{}] runs\x1b[K", self.total);
        }
    }

    fn clear(&self) {
        if self.on {
            eprint!("\r\x1b[K");
        }
    }
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
