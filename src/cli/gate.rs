//! `ctxbench gate`: fail CI when the bill grows or facts get lost, against a committed baseline.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use ctxbench_harness::RunSettings;
use ctxbench_harness::engine::{Job, run_jobs};
use ctxbench_harness::gate::{GateConfig, JobReport, RunAgain, Tolerance, checks, compare, job_report};
use ctxbench_harness::gate::{gate_junit, gate_markdown, gate_summary, update_summary};
use ctxbench_harness::report::{ResultRow, Row, absent_figures, csv, read_csv};
use ctxbench_harness::run::run_scenario;
use ctxbench_harness::scenario::Scenario;

use super::files::write_atomic;
use super::output::{errln, say, sayln};
use super::scenarios::{load_all, scenario_files};

/// Compare results with a baseline; exit 1 when something got worse.
///
/// Without --current, runs again every scenario and configuration the baseline holds. Gated
/// figures: tokens_sent, model_calls, peak_request_tokens, cost_usd and elapsed_s may grow by
/// --tolerance, cache_hit_rate may fall by it; facts_lost, overflows, pairing_errors and
/// answers_wrong may not grow at all.
/// Exit codes: 0 nothing regressed, 1 something did, 2 unusable input.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  ctxbench gate --baseline reports/baseline.csv\n  ctxbench gate --baseline reports/baseline.csv --tolerance 2% --allow peak_request_tokens=+500\n  ctxbench gate --baseline reports/baseline.csv --update"
)]
pub struct GateArgs {
    /// The committed baseline (a results.csv).
    #[arg(long, value_name = "FILE")]
    baseline: PathBuf,

    /// Results to check (a results.csv); default: run the baseline's configurations now.
    #[arg(long, value_name = "FILE")]
    current: Option<PathBuf>,

    /// Where to find the baseline's scenarios (files or folders).
    #[arg(long = "scenarios", value_name = "PATH", default_value = "scenarios")]
    scenarios: Vec<PathBuf>,

    /// Change allowed for the cost figures (tokens_sent, model_calls, peak_request_tokens,
    /// cost_usd, elapsed_s growing; cache_hit_rate falling): `2%` or `100`.
    #[arg(long, default_value = "0%", value_name = "TOLERANCE", allow_hyphen_values = true)]
    tolerance: String,

    /// Growth allowed for one figure, overriding the rule: `tokens_sent=+2%`, `facts_lost=1`.
    #[arg(long, value_name = "FIGURE=TOLERANCE")]
    allow: Vec<String>,

    /// Rows on one side only are listed but do not fail the gate.
    #[arg(long)]
    allow_new: bool,

    /// Fail on any change of any figure, improvements included (keeps a baseline current).
    #[arg(long)]
    exact: bool,

    /// Rewrite the baseline with the current results (atomically) and print what changed.
    #[arg(long, conflicts_with = "exact")]
    update: bool,

    /// Format of the report on stdout.
    #[arg(long, value_enum, default_value_t = GateFormat::Markdown)]
    format: GateFormat,

    /// Also write the rows as JUnit XML test cases.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,

    /// Also write a Markdown report for a CI job's summary or a pull request comment: passed or
    /// not, what changed with its intervals over seeds, the verdict and its fragile picks.
    #[arg(long, value_name = "FILE", conflicts_with = "update")]
    markdown: Option<PathBuf>,
}

/// `--format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum GateFormat {
    /// The rows that changed, worst first.
    Markdown,
    /// Everything, for machines.
    Json,
}

pub fn run(args: GateArgs) -> anyhow::Result<ExitCode> {
    let mut config = gate_config(&args)?;
    if let Some(path) = &args.markdown {
        writable(path).with_context(|| format!("--markdown {}: cannot write the report there", path.display()))?;
    }
    let (baseline, mut absent) = read_rows(&args.baseline, true)?;
    // The scenarios the baseline's configurations ran on, by seed (none with --current).
    let mut loaded: BTreeMap<u64, Vec<Scenario>> = BTreeMap::new();
    let current = match &args.current {
        Some(path) => {
            let (rows, also) = read_rows(path, false)?;
            absent.extend(also.into_iter().filter(|f| !absent.contains(f)).collect::<Vec<_>>());
            rows
        }
        None => run_baseline(&baseline, &args.scenarios, &mut loaded)?,
    };
    if !absent.is_empty() && !args.update {
        errln!(
            "note: {} predates the figures {}; they are not compared (--update adds them)",
            args.baseline.display(),
            absent.join(", ")
        );
    }
    config.absent = absent;
    let report = compare(&baseline, &current, &config);

    if args.update {
        write_atomic(&args.baseline, &csv(&current)?)?;
        let headline = update_summary(&report, &args.baseline.display().to_string(), current.len());
        say!("{}", gate_markdown(&report, &headline));
        return Ok(ExitCode::SUCCESS);
    }
    let markdown = gate_markdown(&report, &gate_summary(&report));
    // The files first: a report that says "passed" is not followed by a failure to write.
    if let Some(path) = &args.junit {
        write_atomic(path, gate_junit(&report).as_bytes())
            .with_context(|| format!("--junit {}: cannot write the report there", path.display()))?;
    }
    if let Some(path) = &args.markdown {
        // The verdict's picks checked under other prices and profiles, run again where the
        // scenarios are at hand.
        let mut run_again = |row: &ResultRow, settings: RunSettings| -> anyhow::Result<ResultRow> {
            let scenario = loaded
                .get(&row.settings.seed)
                .and_then(|all| all.iter().find(|s| s.name == row.scenario))
                .with_context(|| format!("{} · {}: its scenario is not loaded", row.scenario, row.label()))?;
            let result = run_scenario(scenario, &settings, &mut |_| {})
                .with_context(|| format!("{} · {}: the run under another price", row.scenario, row.label()))?;
            Ok(ResultRow::new(&scenario.name, settings, result.metrics))
        };
        let runs: Option<&mut RunAgain<'_, anyhow::Error>> =
            if loaded.is_empty() { None } else { Some(&mut run_again) };
        let checks = checks(&current, runs)?;
        let job = JobReport {
            report: &report,
            baseline: &baseline,
            current: &current,
            settings: &settings_line(&args),
            checks: &checks,
        };
        write_atomic(path, job_report(&job).as_bytes())
            .with_context(|| format!("--markdown {}: cannot write the report there", path.display()))?;
    }
    if let Some(summary) = std::env::var_os("GITHUB_STEP_SUMMARY") {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&summary)
            .with_context(|| format!("cannot append to GITHUB_STEP_SUMMARY ({})", summary.to_string_lossy()))?;
        file.write_all(markdown.as_bytes())?;
    }
    match args.format {
        // The summary is the report's first line.
        GateFormat::Markdown => say!("{markdown}"),
        GateFormat::Json => {
            sayln!("{}", serde_json::to_string_pretty(&report)?);
            errln!("{}", gate_summary(&report));
        }
    }
    if report.undecided() {
        return Ok(ExitCode::from(super::exit::BAD_INPUT));
    }
    Ok(if report.fails() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn gate_config(args: &GateArgs) -> anyhow::Result<GateConfig> {
    let tolerance = Tolerance::parse(&args.tolerance).with_context(|| {
        format!(
            "--tolerance {:?}: expected a growth allowed, 0 or more: a percentage (2%) or a number (100)",
            args.tolerance
        )
    })?;
    let mut allow = BTreeMap::new();
    let figures = serde_json::to_value(ctxbench_harness::metrics::RunMetrics::default())?;
    for spec in &args.allow {
        let parsed = spec
            .split_once('=')
            .and_then(|(f, t)| Some((f.trim(), Tolerance::parse(t)?)));
        let Some((figure, t)) = parsed else {
            bail!("--allow {spec:?}: expected FIGURE=TOLERANCE, such as tokens_sent=+2%");
        };
        if figures.get(figure).is_none() {
            bail!("--allow {spec:?}: {figure:?} is not a figure of results.csv");
        }
        allow.insert(figure.to_owned(), t);
    }
    Ok(GateConfig {
        tolerance,
        allow,
        exact: args.exact,
        absent: Vec::new(),
        allow_new: args.allow_new,
    })
}

/// Whether a report can be written at `path`, checked before anything runs: not a folder, and
/// its folder (made if missing, as the write makes it) takes a file.
fn writable(path: &Path) -> anyhow::Result<()> {
    if path.is_dir() {
        bail!(
            "it is a folder; give a file name, such as {}",
            path.join("gate.md").display()
        );
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create the folder {}", dir.display()))?;
    }
    // The temporary name the atomic write uses, tried and removed.
    let mut probe = path.as_os_str().to_owned();
    probe.push(".tmp");
    let probe = PathBuf::from(probe);
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&probe)
        .with_context(|| format!("cannot create {}", probe.display()))?;
    std::fs::remove_file(&probe).with_context(|| format!("cannot remove {}", probe.display()))?;
    Ok(())
}

/// The parameters the gate ran with, in one line, for the report.
fn settings_line(args: &GateArgs) -> String {
    let current = match &args.current {
        Some(path) => format!("current results `{}`", path.display()),
        None => {
            let paths: Vec<String> = args.scenarios.iter().map(|p| p.display().to_string()).collect();
            format!("run again on `{}`", paths.join("`, `"))
        }
    };
    let mut parts = vec![format!("Baseline `{}`", args.baseline.display()), current];
    if args.exact {
        parts.push("exact: any change fails, improvements included".into());
    } else {
        parts.push(format!(
            "tolerance {} on the cost figures; facts lost, overflows, pairing errors and wrong answers may not grow",
            args.tolerance
        ));
    }
    if !args.allow.is_empty() {
        parts.push(format!("allowed: {}", args.allow.join(", ")));
    }
    if args.allow_new {
        parts.push("rows on one side only allowed".into());
    }
    parts.join(" · ")
}

/// A results file's rows, and the figures it lacks (written by an older ctxbench).
fn read_rows(path: &PathBuf, baseline: bool) -> anyhow::Result<(Vec<ResultRow>, Vec<String>)> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && baseline => bail!(
            "{} does not exist; create it with `ctxbench compare --out reports && cp reports/results.csv {}`, review it, and commit it",
            path.display(),
            path.display()
        ),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let rows = read_csv(&text).map_err(|e| anyhow::anyhow!("{}: not a results file: {e}", path.display()))?;
    if rows.is_empty() {
        bail!("{}: no rows; a baseline needs at least one result", path.display());
    }
    Ok((rows, absent_figures(&text)))
}

/// Runs every configuration of the baseline again, on the scenarios of the same name.
fn run_baseline(
    baseline: &[ResultRow],
    paths: &[PathBuf],
    by_seed: &mut BTreeMap<u64, Vec<Scenario>>,
) -> anyhow::Result<Vec<ResultRow>> {
    if let Some(missing) = paths.iter().find(|p| !p.exists()) {
        bail!(
            "--scenarios {}: no such file or folder; run the gate where the baseline's scenarios are \
             (the repository's root), or point --scenarios at them",
            missing.display()
        );
    }
    let files = scenario_files(paths)?;
    let mut rows = Vec::with_capacity(baseline.len());
    if let Some(row) = baseline.iter().find(|r| r.settings.run.is_some()) {
        bail!(
            "the baseline holds runs of an outside agent served by `ctxbench serve` ({} · {}), which the gate \
             cannot run again; serve the agent again and give its results.csv with --current",
            row.scenario,
            row.label()
        );
    }
    for row in baseline {
        if let Entry::Vacant(slot) = by_seed.entry(row.settings.seed) {
            slot.insert(load_all(&files, row.settings.seed)?);
        }
    }
    // Each row's run on the scenario of its name and seed (a row whose scenario is gone is
    // reported as a row only in the baseline), on every core by the harness's engine: the rows
    // come back in the baseline's order whatever the threads.
    let mut jobs = Vec::with_capacity(baseline.len());
    for row in baseline {
        let scenarios = by_seed.get(&row.settings.seed).map_or(&[][..], Vec::as_slice);
        let Some(scenario) = scenarios.iter().find(|s| s.name == row.scenario) else {
            continue;
        };
        let place = || format!("baseline row {} · {}", row.scenario, row.settings.strategy);
        let settings = row.settings.resolved(scenario).with_context(place)?;
        // The one way a run fails today, checked here where the row can be named: the engine's
        // jobs hand back a run's error without its job.
        settings.policy(scenario).with_context(place)?;
        jobs.push(Job { scenario, settings });
    }
    run_jobs::<anyhow::Error>(&jobs, 0, false, &AtomicBool::new(false), &mut |k, result| {
        rows.push(ResultRow::new(
            &jobs[k].scenario.name,
            jobs[k].settings.clone(),
            result.metrics,
        ));
        Ok(())
    })?;
    Ok(rows)
}
