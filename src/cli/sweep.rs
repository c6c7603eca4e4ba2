//! `ctxbench sweep`: grids of configurations for tuning, in parallel, rows streamed to disk as
//! they finish; and `ctxbench merge`, which joins the CSVs of a sharded sweep.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{Context, bail};
use clap::Args;
use ctxbench_compact::compact::parse_strategy_list;
use ctxbench_compact::policy::Policy;
use ctxbench_harness::human::{count, dollars, thousands};
use ctxbench_harness::report::{CsvRows, ResultRow, csv, markdown, read_csv};
use ctxbench_harness::run::run_scenario;
use ctxbench_harness::settings::{RunSettings, STANDARD_STRATEGIES, parse_estimator};
use ctxbench_harness::sweep::{self, Grid, Objective, Shard, parse_decimals, parse_integers, row_order};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use super::files::write_atomic;
use super::interrupt::{Interrupt, stopped};
use super::output::sayln;
use super::reports::{Reports, stale_note, write_reports};
use super::scenarios::ScenarioArgs;
use super::settings_args::ServerArgs;

/// Run a grid of configurations over scenarios, in parallel, and pick the best per scenario.
///
/// Every combination of the lists below is run on every scenario. Ranges include both ends:
/// `--threshold 0.5:0.95:0.05`, `--keep 1..4`, `--window 4000,8000,32000`. Rows are written as
/// they finish to results.csv.partial; the final results.csv is sorted, so it is the same
/// whatever the number of threads, and whether the sweep ran whole or in shards joined by
/// `ctxbench merge`.
#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  ctxbench sweep --strategies truncate+drop,mask+drop --threshold 0.5:0.95:0.05 --keep 1..4 --window 4000,8000\n  ctxbench sweep --strategies mask+drop --param mask.m=2,5,10 --shard 1/4 --out shard1",
    after_long_help = super::with_stages("Example:\n  ctxbench sweep --strategies truncate+drop,mask+drop --threshold 0.5:0.95:0.05 --keep 1..4 --window 4000,8000\n  ctxbench sweep --strategies mask+drop --param mask.m=2,5,10 --shard 1/4 --out shard1")
)]
pub struct SweepArgs {
    #[command(flatten)]
    scenarios: ScenarioArgs,

    #[arg(long, value_name = "LIST", default_value_t = STANDARD_STRATEGIES.join(","), hide_default_value = true,
          help = super::strategies_help())]
    strategies: String,

    /// Windows in tokens (list or range); default: each scenario's own.
    #[arg(long, value_name = "LIST")]
    window: Option<String>,

    /// Thresholds: a value, a list, or start:end:step.
    #[arg(long, default_value_t = Policy::DEFAULT_THRESHOLD.to_string(), value_name = "RANGE")]
    threshold: String,

    /// Targets (low watermarks, fractions of the window): a value, a list, or start:end:step;
    /// default: each threshold. Targets above a threshold are left out of its configurations.
    #[arg(long, value_name = "RANGE")]
    target: Option<String>,

    /// keep_recent_turns values: a value, a list, or a range such as 1..4.
    #[arg(long, default_value_t = Policy::DEFAULT_KEEP.to_string(), value_name = "RANGE")]
    keep: String,

    /// Reply reserves in tokens.
    #[arg(long, default_value_t = Policy::DEFAULT_REPLY_RESERVE.to_string(), value_name = "LIST")]
    reply_reserve: String,

    /// Estimators, comma-separated: chars4, chars4-py, o200k, cl100k, usage.
    #[arg(long, default_value_t = RunSettings::DEFAULT_ESTIMATOR.to_string(), value_name = "LIST")]
    estimator: String,

    /// A stage parameter's values, repeatable: `mask.m=5,10,20`.
    #[arg(long, value_name = "STAGE.KEY=VALUES")]
    param: Vec<String>,

    #[command(flatten)]
    server: ServerArgs,

    /// Run only the i-th of n disjoint slices of the grid (1-based): grid indices ≡ i−1 mod n.
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,

    /// What "best" means: cost (lowest cost, no lost fact, no overflow), tokens (the same with
    /// fewest tokens sent), facts, calls; default: cost, or tokens with --price none.
    #[arg(long, value_name = "OBJECTIVE")]
    objective: Option<String>,

    /// Threads; default: every core.
    #[arg(long, value_name = "N", value_parser = super::values::positive::<usize>)]
    jobs: Option<usize>,

    /// Where to write results.csv, results.json, summary.md, index.html and plots/.
    #[arg(short, long, default_value = "reports", value_name = "DIR")]
    out: PathBuf,

    /// Draw no charts (plots/ and the report's charts are left out).
    #[arg(long)]
    no_plots: bool,

    /// Finish an interrupted sweep: keep the rows of DIR/results.csv.partial and run only the
    /// configurations it lacks (same flags as the interrupted run).
    #[arg(long)]
    resume: bool,
}

impl SweepArgs {
    fn grid(&self) -> anyhow::Result<Grid> {
        let strategies = parse_strategy_list(&self.strategies).context("invalid --strategies")?;
        let windows = match &self.window {
            Some(w) => parse_integers(w).context("--window")?.into_iter().map(Some).collect(),
            None => vec![None],
        };
        let estimators = self
            .estimator
            .split(',')
            .map(|e| parse_estimator(e.trim()).map_err(|e| anyhow::anyhow!("--estimator: {e}")))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let mut params = Vec::new();
        for spec in &self.param {
            let parsed = spec.split_once('=').and_then(|(sk, v)| Some((sk.split_once('.')?, v)));
            let Some(((stage, key), values)) = parsed else {
                bail!("--param {spec:?}: expected STAGE.KEY=V1,V2 such as mask.m=5,10,20");
            };
            if !strategies.iter().any(|s| s.stages.iter().any(|st| st.name() == stage)) {
                bail!("--param {spec:?}: no strategy in the sweep has a `{stage}` stage");
            }
            params.push((
                stage.to_owned(),
                key.to_owned(),
                values.split(',').map(str::to_owned).collect(),
            ));
        }
        // The single-valued settings; the lists replace the rest.
        let base = self.server.settings(strategies[0].clone());
        Ok(Grid {
            strategies,
            windows,
            thresholds: parse_decimals(&self.threshold).context("--threshold")?,
            targets: match &self.target {
                Some(t) => {
                    let targets = parse_decimals(t).context("--target")?;
                    if let Some(bad) = targets.iter().find(|t| !(**t > 0.0 && **t <= 1.0)) {
                        bail!("--target {bad}: the target must be in (0, threshold], a fraction of the window");
                    }
                    targets.into_iter().map(Some).collect()
                }
                None => vec![None],
            },
            keeps: parse_integers(&self.keep)
                .context("--keep")?
                .into_iter()
                .map(|k| k as usize)
                .collect(),
            reserves: parse_integers(&self.reply_reserve).context("--reply-reserve")?,
            estimators,
            params,
            base,
        })
    }
}

pub fn run(args: SweepArgs) -> anyhow::Result<ExitCode> {
    let priced = args.server.bill.price.0.is_some();
    let objective = Objective::resolve(args.objective.as_deref(), priced).map_err(anyhow::Error::msg)?;
    let shard = args.shard.as_deref().map(Shard::parse).transpose()?;
    let mut grid = args.grid()?;
    for note in grid.dedup() {
        eprintln!("note: {note}");
    }
    let configs = grid.configs()?;
    if configs.is_empty() {
        bail!("no configuration to run: every --target is above every --threshold (a target is at most its threshold)");
    }
    let scenarios = args.scenarios.load(args.server.seed)?;
    let mut plan = Vec::new();
    for scenario in &scenarios {
        for settings in &configs {
            plan.push((scenario, settings.resolved(scenario)?));
        }
    }
    let grid_size = plan.len();
    let plan: Vec<_> = plan
        .into_iter()
        .enumerate()
        .filter(|(k, _)| shard.is_none_or(|s| s.takes(*k)))
        .map(|(_, p)| p)
        .collect();

    let partial = args.out.join("results.csv.partial");
    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    let (done, stream) = if args.resume {
        resumed(&partial, &plan)?
    } else {
        let file = std::fs::File::create(&partial).with_context(|| format!("cannot write {}", partial.display()))?;
        (Vec::new(), CsvRows::new(file))
    };
    let planned = plan.len();
    let finished: std::collections::BTreeSet<String> = done.iter().map(|r| run_key(&r.scenario, &r.settings)).collect();
    let plan: Vec<_> = plan
        .into_iter()
        .filter(|(scenario, settings)| !finished.contains(&run_key(&scenario.name, settings)))
        .collect();
    if args.resume {
        eprintln!(
            "resuming: {} of {} already in {}",
            done.len(),
            count(planned, "run"),
            partial.display()
        );
    }
    let stream = Mutex::new(stream);
    let interrupt = Interrupt::catch()?;
    let bar = ProgressBar::new(plan.len() as u64).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} configurations · {per_sec} · {eta} left")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.unwrap_or(0))
        .build()?;
    let started = Instant::now();
    let rows: Vec<anyhow::Result<ResultRow>> = pool.install(|| {
        plan.into_par_iter()
            .filter_map(|(scenario, settings)| {
                // After Ctrl-C the runs under way finish and no new one starts.
                if interrupt.pressed() {
                    return None;
                }
                Some((scenario, settings))
            })
            .map(|(scenario, settings)| {
                let result = run_scenario(scenario, &settings, &mut |_| {})?;
                let row = ResultRow::new(&scenario.name, settings, result.metrics);
                // Each row is on disk as soon as it is done: a crash keeps what was measured.
                let mut writer = stream.lock().unwrap_or_else(|p| p.into_inner());
                writer
                    .write(&row)
                    .with_context(|| format!("cannot write {}", partial.display()))?;
                bar.inc(1);
                Ok(row)
            })
            .collect()
    });
    bar.finish_and_clear();
    let elapsed = started.elapsed();
    let mut rows = rows.into_iter().collect::<anyhow::Result<Vec<_>>>()?;
    drop(stream);
    if interrupt.pressed() {
        let how = "to finish it, run the same command again with --resume";
        return Ok(stopped(done.len() + rows.len(), planned, &partial, Some(how)));
    }
    let resumed = done.len();
    rows.extend(done);
    rows.sort_by(row_order);

    let best = best_rows(&rows, objective);
    for row in &best {
        for note in grid.edges(row) {
            eprintln!("warning: {note}");
        }
    }
    let settings = format!(
        "{}; best per scenario: {}",
        count(rows.len(), "configuration"),
        sweep::describe(objective)
    );
    let stale = write_reports(Reports {
        out: &args.out,
        rows: &rows,
        traces: &[],
        summary: summary(&best, &rows, objective),
        title: "ctxbench sweep",
        settings: &settings,
        table: &best,
        trace_names: &[],
        plots: !args.no_plots,
        verdicts: None,
        descriptions: scenarios
            .iter()
            .map(|s| (s.name.clone(), s.description.clone()))
            .collect(),
        note: "The best configuration of this scenario; every configuration is in results.csv.",
    })?;
    if let Some(note) = stale_note(&args.out, stale) {
        eprintln!("{note}");
    }

    sayln!("best per scenario ({}):", sweep::describe(objective));
    let mut names: Vec<&str> = rows.iter().map(|r| r.scenario.as_str()).collect();
    names.dedup();
    for name in names {
        match best.iter().find(|b| b.scenario == name) {
            Some(b) => sayln!("  {}", best_line(b)),
            None => sayln!("  {name}: no configuration qualifies"),
        }
    }
    let shard_note = shard.map_or(String::new(), |s| {
        format!(
            " (shard {}/{} of {} in the grid)",
            s.index,
            s.count,
            thousands(grid_size as u64)
        )
    });
    let resumed_note = if args.resume {
        format!(" ({} of them from the interrupted run)", thousands(resumed as u64))
    } else {
        String::new()
    };
    eprintln!(
        "swept {}{shard_note}{resumed_note} in {:.2} s on {} threads ({:.0} per second); wrote {}/results.csv",
        count(rows.len(), "configuration"),
        elapsed.as_secs_f64(),
        pool.current_num_threads(),
        (rows.len() - resumed) as f64 / elapsed.as_secs_f64().max(1e-9),
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The rows an interrupted sweep left in `partial` (each one of `plan`), and a writer that
/// appends to it.
fn resumed(
    partial: &std::path::Path,
    plan: &[(&ctxbench_harness::scenario::Scenario, RunSettings)],
) -> anyhow::Result<(Vec<ResultRow>, CsvRows<std::fs::File>)> {
    let text = std::fs::read_to_string(partial).with_context(|| {
        format!(
            "cannot resume: cannot read {}; run without --resume to start over",
            partial.display()
        )
    })?;
    // A line cut by the interruption is not a row: keep the whole lines only.
    let whole = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
    let rows = read_csv(whole).map_err(|e| anyhow::anyhow!("cannot resume: {}: {e}", partial.display()))?;
    let planned: std::collections::BTreeSet<String> = plan.iter().map(|(s, k)| run_key(&s.name, k)).collect();
    if let Some(stray) = rows
        .iter()
        .find(|r| !planned.contains(&run_key(&r.scenario, &r.settings)))
    {
        bail!(
            "cannot resume: {} holds a run this sweep does not plan ({} · {}); resume with the flags of the interrupted sweep, or run without --resume",
            partial.display(),
            stray.scenario,
            stray.settings.strategy
        );
    }
    std::fs::write(partial, whole).with_context(|| format!("cannot write {}", partial.display()))?;
    let file = std::fs::OpenOptions::new()
        .append(true)
        .open(partial)
        .with_context(|| format!("cannot write {}", partial.display()))?;
    Ok((rows, CsvRows::continuing(file, !whole.is_empty())))
}

/// One run's identity, to find the runs an interrupted sweep finished.
fn run_key(scenario: &str, settings: &RunSettings) -> String {
    format!(
        "{scenario}\u{1f}{}",
        serde_json::to_string(settings).unwrap_or_default()
    )
}

/// A winning configuration and what it cost, on one line.
fn best_line(row: &ResultRow) -> String {
    let (k, m) = (&row.settings, &row.metrics);
    format!(
        "{}: {} · window {} · threshold {} · target {} · keep {} · reserve {} · {}: {}{} tokens sent, {} calls, {}/{} facts lost",
        row.scenario,
        k.strategy,
        thousands(k.window.unwrap_or(0)),
        k.threshold,
        k.target.unwrap_or(k.threshold),
        k.keep_recent_turns,
        k.reply_reserve,
        k.estimator,
        m.cost_usd.map_or(String::new(), |c| format!("{}, ", dollars(c))),
        thousands(m.tokens_sent),
        m.model_calls,
        m.facts_lost,
        m.facts_needed
    )
}

/// The best row of each scenario, in scenario order.
fn best_rows(rows: &[ResultRow], objective: Objective) -> Vec<ResultRow> {
    let mut names: Vec<&str> = rows.iter().map(|r| r.scenario.as_str()).collect();
    names.dedup();
    names
        .into_iter()
        .filter_map(|name| {
            let of: Vec<&ResultRow> = rows.iter().filter(|r| r.scenario == name).collect();
            sweep::best(objective, &of).cloned()
        })
        .collect()
}

fn summary(best: &[ResultRow], rows: &[ResultRow], objective: Objective) -> String {
    let lines: String = best.iter().map(|b| format!("- {}\n", best_line(b))).collect();
    format!(
        "# ctxbench sweep\n\n{}; every row is in `results.csv`.\n\n## Best per scenario\n\nObjective: {}.\n\n{lines}\n{}",
        count(rows.len(), "configuration"),
        sweep::describe(objective),
        markdown(best)
    )
}

/// Join the results.csv files of a sharded sweep into the file a single run would write.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The shards' results files.
    #[arg(value_name = "CSV", required = true)]
    files: Vec<PathBuf>,

    /// Where to write the merged file (`--output` is an old spelling).
    #[arg(short = 'o', long = "out", alias = "output", value_name = "OUT.csv")]
    out: PathBuf,
}

pub fn merge(args: MergeArgs) -> anyhow::Result<ExitCode> {
    let mut rows = Vec::new();
    for file in &args.files {
        let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
        rows.extend(read_csv(&text).map_err(|e| anyhow::anyhow!("{}: not a results file: {e}", file.display()))?);
    }
    rows.sort_by(row_order);
    if let Some(pair) = rows.windows(2).find(|w| row_order(&w[0], &w[1]).is_eq()) {
        bail!(
            "{} · {} appears twice; were two shards given the same slice?",
            pair[0].scenario,
            pair[0].settings.strategy
        );
    }
    write_atomic(&args.out, &csv(&rows)?)?;
    eprintln!(
        "merged {} from {} into {}",
        count(rows.len(), "row"),
        count(args.files.len(), "file"),
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
