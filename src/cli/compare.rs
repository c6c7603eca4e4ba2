//! `ctxbench compare`: every scenario × every strategy, a table, and `reports/`.

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, ValueEnum};
use ctxbench_compact::compact::parse_strategy_list;
use ctxbench_harness::engine::{Phase, Plan, Seeds, replicate};
use ctxbench_harness::human::{count, thousands, wrap};
use ctxbench_harness::report::{
    Echo, Labels, ResultRow, Style, csv_rows, json_document, verdict_markdown, verdict_text,
};
use ctxbench_harness::settings::{RunSettings, spell_strategies};
use ctxbench_harness::settings_words::short_line;
use ctxbench_harness::sweep::dedup_by;
use ctxbench_harness::verdict::{Objective, configs_of, suite, verdicts_of};

use super::files::{trace_lines, write_atomic};
use super::interrupt::{Interrupt, Stop, stopped};
use super::output::{err, errln, say};
use super::progress::Progress;
use super::reports::{Reports, stale_note, write_reports};
use super::results_order::Streamed;
use super::scenarios::ScenarioArgs;
use super::settings_args::SettingsArgs;
use super::verdict_args::VerdictArgs;

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
    after_help = super::help::with_stages("Example:\n  ctxbench compare scenarios/bike-shop-return.json --strategies none,truncate+drop,mask:m=3+drop --window 6000")
)]
pub struct CompareArgs {
    #[command(flatten)]
    scenarios: ScenarioArgs,

    #[arg(long, value_name = "LIST", default_value = "standard,native", hide_default_value = true,
          help = super::help::strategies_help("standard,native"))]
    strategies: String,

    #[command(flatten)]
    settings: SettingsArgs,

    #[command(flatten)]
    verdict: VerdictArgs,

    /// Run exactly the strategies given: no tuning of their trigger and target.
    #[arg(long)]
    no_tune: bool,

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
    let objective = args.verdict.objective(priced)?;
    if let Some(note) = args.settings.server.bill.cache_note() {
        errln!("{note}");
    }
    let base = args.settings.server.seed;
    let seeds = args.verdict.seeds(base)?;
    let mut strategies = parse_strategy_list(&spell_strategies(&args.strategies)).context("invalid --strategies")?;
    for twice in dedup_by(&mut strategies, ToString::to_string) {
        errln!("note: --strategies {twice} was given more than once; it runs once");
    }
    let settings = strategies
        .into_iter()
        .map(|s| args.settings.settings("compare", s))
        .collect::<anyhow::Result<Vec<RunSettings>>>()?;

    // The first seed's scenarios are loaded before anything is written: a file that cannot be
    // read leaves no results folder behind. The runs take them from here.
    let first_seed = seeds.list(base).first().copied().unwrap_or(base);
    let first = std::sync::Mutex::new(Some(args.scenarios.load(first_seed)?));
    let load = |seed| {
        let loaded = (seed == first_seed)
            .then(|| first.lock().ok().and_then(|mut f| f.take()))
            .flatten();
        loaded.map_or_else(|| args.scenarios.load(seed), Ok)
    };

    let partial = args.out.join("results.csv.partial");
    std::fs::create_dir_all(args.out.join("traces"))
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let mut stream = Streamed::create(&partial)?;
    let interrupt = Interrupt::catch()?;
    let cache = args.settings.server.bill.cache();
    let plan = Plan {
        seeds: &seeds,
        base,
        tune: !args.no_tune,
        objective: &objective,
        threads: args.jobs.unwrap_or(0),
        price: args.settings.server.bill.price.0.as_ref(),
        cache: &cache,
    };
    let progress = Progress::new(0, "runs", true);
    let phase = std::cell::Cell::new(None);
    let done = replicate::<anyhow::Error>(
        &plan,
        &settings,
        &load,
        // Each row is on disk as soon as it is done: a crash keeps what was measured.
        &mut |config, row| stream.write(config, row),
        &mut |which, done, total| {
            phase.set(Some(which));
            progress.at(phase_words(which), done, total);
        },
        interrupt.flag(),
    )?;
    progress.clear();
    if let Some((ran, planned)) = done.stopped {
        // The rows in the file, and how far the phase under way got (a run under another price
        // or profile checks a verdict and is no row of the results).
        let said = format!(
            "{} in {} ({}: {} of {})",
            count(stream.rows(), "run"),
            partial.display(),
            phase.get().map_or("", |p| phase_words(p)),
            thousands(ran as u64),
            count(planned, "run")
        );
        return Ok(stopped(Stop::Said(&said), &partial, None));
    }
    let rows = stream.finish(&args.out.join("results.csv"))?;
    let mut trace_names = Vec::with_capacity(done.traces.len());
    for (row, trace) in &done.traces {
        let name = trace_name(&row.scenario, &row.settings);
        write_atomic(&args.out.join("traces").join(&name), &trace_lines(trace)?)?;
        trace_names.push(name);
    }
    let (charted, traces): (Vec<ResultRow>, Vec<_>) = done.traces.into_iter().unzip();

    let mut verdicts = verdicts_of(&done.ranked, &objective);
    for (v, s) in verdicts.iter_mut().zip(done.sensitivity) {
        v.sensitivity = s;
    }
    let suite = suite(&verdicts, &objective);
    let firsts: Vec<ResultRow> = done.ranked.iter().map(|r| r.first.clone()).collect();
    let labels = Labels::new(&firsts, args.wide);
    let seeds_note = seeds_line(&seeds, &done.seeds, done.configurations, done.replicated);
    let tuned = if args.no_tune {
        "strategies as given (--no-tune)".to_owned()
    } else if firsts.iter().any(|r| r.settings.strategy.is_preset()) {
        "each strategy at its best of its trigger (as given, cold) and target (the threshold, 0.6, 0.4) over the \
         seeds, paired, each preset as its vendor sets it"
            .to_owned()
    } else {
        "each strategy at its best of its trigger (as given, cold) and target (the threshold, 0.6, 0.4) over the seeds, paired"
            .to_owned()
    };
    let shared = args
        .settings
        .settings("compare", ctxbench_compact::compact::Strategy::none())?;
    let settings = format!(
        "{} · {seeds_note} · {tuned} · objective: {}",
        shared.describe(),
        objective.describe()
    );
    let echo = Echo {
        line: &settings,
        settings: &shared,
        seeds: &args.verdict.seeds,
        seeds_run: &done.seeds,
        tuned: !args.no_tune,
    };
    let markdown_verdicts = verdict_markdown(&verdicts, &suite, &Labels::new(&firsts, false));
    let stale = write_reports(Reports {
        out: &args.out,
        rows: &[],
        traces: &traces,
        summary: format!("# ctxbench compare\n\n{settings}\n\n{markdown_verdicts}{COLUMNS}"),
        title: "ctxbench compare",
        settings: &settings,
        table: &charted,
        charted: &configs_of(&done.ranked)
            .into_iter()
            .flat_map(|(_, configs)| configs)
            .collect::<Vec<_>>(),
        written: Some(rows),
        trace_names: &trace_names,
        verdicts: Some((&verdicts, &suite, &echo)),
        descriptions: done.descriptions.clone(),
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
        Format::Csv | Format::Json => results_as(args.format, &args.out.join("results.csv"))?,
    };
    say!("{stdout}");
    let given_seeds = matches!(seeds, Seeds::List(_)).then_some(seeds_note.as_str());
    err!("{}", short_settings(&args, &shared, given_seeds, &objective));
    if let Some(note) = stale_note(&args.out, stale) {
        errln!("{note}");
    }
    let wrote = format!(
        "wrote {}/results.csv ({}), {}, verdict.json, summary.md, index.html{} and {} (the first seed's)",
        args.out.display(),
        count(rows, "run"),
        ctxbench_harness::report::json_names(rows).0,
        if args.no_plots { "" } else { ", plots/" },
        count(trace_names.len(), "trace")
    );
    err!("{}", wrap(&wrote, 120, "", "  "));
    Ok(interrupt.exit())
}

/// The results file as `--format` prints it: the CSV as it is, or the rows as one JSON
/// document (read a row at a time).
fn results_as(format: Format, results: &std::path::Path) -> anyhow::Result<String> {
    let text = std::fs::read_to_string(results).with_context(|| format!("cannot read {}", results.display()))?;
    if format == Format::Csv {
        return Ok(text);
    }
    let mut failed = None;
    let rows = csv_rows(text.as_bytes()).map_err(anyhow::Error::msg)?;
    let rows = rows.map_while(|row| row.map_err(|e| failed = Some(e)).ok());
    let mut out = Vec::new();
    json_document(rows, &mut out)?;
    if let Some(e) = failed {
        anyhow::bail!("{}: {e}", results.display());
    }
    Ok(String::from_utf8(out)? + "\n")
}

/// The part of the work a phase is, for the progress line.
fn phase_words(phase: Phase) -> &'static str {
    match phase {
        Phase::First => "every configuration on the first seed",
        Phase::Seeds => "the other seeds",
        Phase::Prices => "the other prices and summarizers",
    }
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

/// The settings line for the terminal: what differs from the defaults, of the run settings and
/// of compare's own (the seeds, the tuning, the objective); summary.md and verdict.json hold
/// every one.
fn short_settings(
    args: &CompareArgs,
    shared: &RunSettings,
    given_seeds: Option<&str>,
    objective: &Objective,
) -> String {
    let mut changed = shared.changed();
    changed.extend(given_seeds.map(str::to_owned));
    if args.no_tune {
        changed.push("strategies as given (--no-tune)".to_owned());
    }
    changed.extend(objective.changed(shared.price.is_some()));
    short_line(&changed)
}

/// A trace's file name: the scenario, the canonical strategy and a target below the threshold,
/// with path-unsafe characters replaced.
pub fn trace_name(scenario: &str, settings: &RunSettings) -> String {
    let strategy = match settings.target.filter(|t| *t < settings.threshold) {
        Some(t) => format!("{}--target={t}", settings.strategy),
        None => settings.strategy.to_string(),
    };
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
    format!("{}--{}.jsonl", safe(scenario), safe(&strategy))
}

const COLUMNS: &str = "
Every figure is the mean over the configuration's seeds; cost shows its 95% interval (±) where the seeds differ.

- **#**: the rank among runs that qualify (completed in every seed, no overflow, no pairing error, no silent truncation); **1\\***: a fragile pick (another price flips it, or it wins in under 80% of seeds); **—** for a run that does not qualify, with why.
- **strategy**: short names; **@0.4**: a target (low watermark) tuning chose.
- **cost**: what the run cost in US dollars, every accepted call with the cache priced in, summaries included.
- **cache**: the share of the tokens sent that were read from the provider's cache.
- **tokens sent**: true input tokens of every accepted call, summaries included.
- **calls**: model calls, agent turns, refetches and summaries, rejected ones included.
- **peak**: the largest request made, rejected ones included (**✗**: the server rejected it).
- **facts lost**: distinct facts with a need the run could not meet (gone from the request and not fetched again), of the facts the scenario declares.
- **lost in**: the seeds in which any fact was lost.
- **needs unmet**: uses of a fact by a step that found it missing.
- **refetches**: needs fetched again by calling their source tool (one more call each time).

Every figure of every run and seed is in `results.csv`; the verdicts, machine-readable, in `verdict.json`; the rules in docs/verdicts.md.
";
