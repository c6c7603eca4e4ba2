//! `ctxbench sweep`: grids of configurations for tuning, in parallel, rows streamed to disk in
//! their final order as they finish (`merge.rs` joins the shards).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, bail};
use clap::Args;
use ctxbench_compact::compact::parse_strategy_list;
use ctxbench_compact::policy::Policy;
use ctxbench_harness::human::{count, dollars, thousands};
use ctxbench_harness::replicate::{Job, Seeds, run_jobs};
use ctxbench_harness::report::{CsvRows, ResultRow, markdown, read_csv};
use ctxbench_harness::scenario::Scenario;
use ctxbench_harness::settings::{RunSettings, STANDARD_STRATEGIES, parse_estimator};
use ctxbench_harness::sweep::{Grid, Objective, Shard, parse_decimals, parse_integers};
use indicatif::{ProgressBar, ProgressStyle};

use super::interrupt::{Interrupt, stopped};
use super::output::sayln;
use super::reports::{Reports, stale_note, write_reports};
use super::scenarios::ScenarioArgs;
use super::settings_args::ServerArgs;
use super::sweep_best::{HOLD_UP_TO, Kept};

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
    after_long_help = super::help::with_stages("Example:\n  ctxbench sweep --strategies truncate+drop,mask+drop --threshold 0.5:0.95:0.05 --keep 1..4 --window 4000,8000\n  ctxbench sweep --strategies mask+drop --param mask.m=2,5,10 --shard 1/4 --out shard1")
)]
pub struct SweepArgs {
    #[command(flatten)]
    scenarios: ScenarioArgs,

    #[arg(long, value_name = "LIST", default_value_t = STANDARD_STRATEGIES.join(","), hide_default_value = true,
          help = super::help::strategies_help())]
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

    /// What "best" means, by the rule `compare` ranks with: keys tried in order, from facts,
    /// cost, tokens and calls [default: facts,cost; facts,tokens with --price none].
    #[arg(long, value_name = "LIST")]
    objective: Option<String>,

    /// Dollars a lost fact costs: ranks by cost + this × facts lost.
    #[arg(long, value_name = "DOLLARS", value_parser = super::values::decimal)]
    fact_cost: Option<f64>,

    /// Two configurations tie on a key when their 95% intervals overlap or their means differ by
    /// less than this fraction.
    #[arg(long, default_value_t = Objective::DEFAULT_TIE, value_name = "FRACTION", value_parser = super::values::decimal)]
    tie: f64,

    /// Seeds per configuration: a count N from --seed, or a range A..B [default: --seed alone,
    /// since a grid is large; `compare` replicates by itself].
    #[arg(long, value_name = "N|A..B")]
    seeds: Option<String>,

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

/// Runs go to the threads this many at a time, and their rows to disk in order after each block:
/// memory is bounded by the block, whatever the size of the grid.
const BLOCK: usize = 4096;

pub fn run(args: SweepArgs) -> anyhow::Result<ExitCode> {
    let priced = args.server.bill.price.0.is_some();
    let objective =
        Objective::resolve(args.objective.as_deref(), priced, args.fact_cost, args.tie).map_err(anyhow::Error::msg)?;
    let seeds = match &args.seeds {
        Some(text) => match Seeds::parse(text, args.server.seed).map_err(anyhow::Error::msg)? {
            Seeds::List(list) => list,
            Seeds::Auto => bail!("--seeds auto is for compare; give sweep a count such as 20 or a range such as 0..19"),
        },
        None => vec![args.server.seed],
    };
    if let Some(note) = args.server.bill.cache_note() {
        eprintln!("{note}");
    }
    let shard = args.shard.as_deref().map(Shard::parse).transpose()?;
    let mut grid = args.grid()?;
    for note in grid.dedup() {
        eprintln!("note: {note}");
    }
    let layout = grid.layout()?;
    if layout.is_empty() {
        bail!("no configuration to run: every --target is above every --threshold (a target is at most its threshold)");
    }
    // Scenario outermost, then the layout, then the seed: the order the rows are kept in.
    let mut loaded: Vec<Vec<Scenario>> = Vec::with_capacity(seeds.len());
    for &seed in &seeds {
        let mut scenarios = args.scenarios.load(seed)?;
        scenarios.sort_by(|a, b| a.name.cmp(&b.name));
        loaded.push(scenarios);
    }
    let scenarios = &loaded[0];
    for scenario in scenarios {
        for probe in layout.probes() {
            probe.resolved(scenario).with_context(|| scenario.path.clone())?;
        }
    }
    let per_scenario = layout.len() * seeds.len();
    let grid_size = scenarios.len() * per_scenario;
    // The grid indices this shard runs, in order, as a count and a k-th.
    let planned = shard.map_or(grid_size, |s| {
        grid_size / s.count + usize::from(grid_size % s.count >= s.index)
    });
    let index_of = |j: usize| shard.map_or(j, |s| j * s.count + s.index - 1);
    // The k-th run of the grid: its scenario (loaded with its seed) and settings.
    let at = |k: usize| -> anyhow::Result<(&Scenario, RunSettings)> {
        let s = k % seeds.len();
        let scenario = &loaded[s][k / per_scenario];
        let config = layout.config((k / seeds.len()) % layout.len());
        Ok((
            scenario,
            RunSettings {
                seed: seeds[s],
                ..config.resolved(scenario)?
            },
        ))
    };
    let partial = args.out.join("results.csv.partial");
    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    let mut kept = Kept::new(&objective);
    let (resumed, mut stream) = if args.resume {
        resumed(&partial, planned, &mut |j, row| {
            let expected = {
                let (scenario, settings) = at(index_of(j))?;
                (scenario.name.as_str(), settings)
            };
            if row.scenario != expected.0 || row.settings != expected.1 {
                bail!(
                    "cannot resume: {} does not hold the runs this sweep plans (row {} is {} · {}); resume with the flags of the interrupted sweep, or run without --resume",
                    partial.display(),
                    j + 1,
                    row.scenario,
                    row.settings.strategy
                );
            }
            kept.add(row);
            Ok(())
        })?
    } else {
        let file = std::fs::File::create(&partial).with_context(|| format!("cannot write {}", partial.display()))?;
        (0, CsvRows::new(file))
    };
    if args.resume {
        eprintln!(
            "resuming: {} of {} already in {}",
            thousands(resumed as u64),
            count(planned, "run"),
            partial.display()
        );
    }
    let interrupt = Interrupt::catch()?;
    let bar = ProgressBar::new((planned - resumed) as u64).with_style(
        ProgressStyle::with_template("{bar:40} {human_pos}/{human_len} configurations · {per_sec} · {eta} left")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let threads = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
    let started = Instant::now();
    let mut done = resumed;
    while done < planned && !interrupt.pressed() {
        // The block's runs are built when it starts: a sweep of a million holds a block's.
        let jobs = (done..planned.min(done + BLOCK))
            .map(|j| at(index_of(j)).map(|(scenario, settings)| Job { scenario, settings }))
            .collect::<anyhow::Result<Vec<Job<'_>>>>()?;
        // The harness's loop, as compare's: after Ctrl-C the runs under way finish and no new
        // one starts; rows come in order, so the partial file is always the sweep's first rows.
        let ran = run_jobs(&jobs, threads, false, interrupt.flag(), &mut |k, result| {
            let row = ResultRow::new(&jobs[k].scenario.name, jobs[k].settings.clone(), result.metrics);
            stream
                .write(&row)
                .with_context(|| format!("cannot write {}", partial.display()))?;
            kept.add(row);
            bar.inc(1);
            Ok::<(), anyhow::Error>(())
        })?;
        done += ran;
        if ran < jobs.len() {
            break;
        }
    }
    bar.finish_and_clear();
    let elapsed = started.elapsed();
    drop(stream);
    if done < planned {
        let how = "to finish it, run the same command again with --resume";
        return Ok(stopped(done, planned, &partial, Some(how)));
    }
    let results = args.out.join("results.csv");
    std::fs::rename(&partial, &results)
        .with_context(|| format!("cannot move {} to {}", partial.display(), results.display()))?;

    let (best, held) = kept.finish();
    for row in &best {
        for note in grid.edges(row) {
            eprintln!("warning: {note}");
        }
    }
    let seeds_note = match seeds.as_slice() {
        [one] => format!("seed {one}"),
        many => format!("seeds {}..{}", many[0], many[many.len() - 1]),
    };
    let settings = format!(
        "{} ({seeds_note}); best per scenario: {}",
        count(done, "run"),
        objective.describe()
    );
    let stale = write_reports(Reports {
        out: &args.out,
        rows: held.as_deref().unwrap_or(&[]),
        written: Some(done),
        traces: &[],
        summary: summary(&best, done, &objective),
        title: "ctxbench sweep",
        settings: &settings,
        table: &best,
        charted: held.as_deref().unwrap_or(&[]),
        trace_names: &[],
        plots: !args.no_plots && held.is_some(),
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
    if held.is_none() && !args.no_plots {
        eprintln!(
            "note: {} are too many to chart one by one (up to {}); the best per scenario is in summary.md and index.html",
            count(done, "configuration"),
            thousands(HOLD_UP_TO as u64)
        );
    }

    sayln!("best per scenario ({}):", objective.describe());
    for scenario in scenarios {
        match best.iter().find(|b| b.scenario == scenario.name) {
            Some(b) => sayln!("  {}", best_line(b)),
            None => sayln!("  {}: no configuration qualifies", scenario.name),
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
        "swept {}{shard_note}{resumed_note} in {:.2} s on {} ({} per second); wrote {}",
        count(done, "configuration"),
        elapsed.as_secs_f64(),
        count(threads, "thread"),
        thousands(((done - resumed) as f64 / elapsed.as_secs_f64().max(1e-9)).round() as u64),
        results.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Reads the rows an interrupted sweep left in `partial`, each handed to `check` with its
/// position, and returns how many there are (at most `planned`) and a writer that appends to
/// the file.
fn resumed(
    partial: &std::path::Path,
    planned: usize,
    check: &mut dyn FnMut(usize, ResultRow) -> anyhow::Result<()>,
) -> anyhow::Result<(usize, CsvRows<std::fs::File>)> {
    let text = std::fs::read_to_string(partial).with_context(|| {
        format!(
            "cannot resume: cannot read {}; run without --resume to start over",
            partial.display()
        )
    })?;
    // A line cut by the interruption is not a row: keep the whole lines only.
    let whole = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
    let rows = read_csv(whole).map_err(|e| anyhow::anyhow!("cannot resume: {}: {e}", partial.display()))?;
    if rows.len() > planned {
        bail!(
            "cannot resume: {} holds more rows than this sweep plans; resume with the flags of the interrupted sweep, or run without --resume",
            partial.display()
        );
    }
    let count = rows.len();
    for (j, row) in rows.into_iter().enumerate() {
        check(j, row)?;
    }
    std::fs::write(partial, whole).with_context(|| format!("cannot write {}", partial.display()))?;
    let file = std::fs::OpenOptions::new()
        .append(true)
        .open(partial)
        .with_context(|| format!("cannot write {}", partial.display()))?;
    Ok((count, CsvRows::continuing(file, !whole.is_empty())))
}

/// A winning configuration and what it cost, on one line.
fn best_line(row: &ResultRow) -> String {
    let (k, m) = (&row.settings, &row.metrics);
    format!(
        "{}: {} · window {} · threshold {} · target {} · keep {} · reserve {} · {}: {}{} tokens sent, {} calls, {}/{} facts lost (seed {})",
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
        m.facts,
        k.seed
    )
}

/// The best row of each scenario, in scenario order.
fn summary(best: &[ResultRow], configurations: usize, objective: &Objective) -> String {
    let lines: String = best.iter().map(|b| format!("- {}\n", best_line(b))).collect();
    format!(
        "# ctxbench sweep\n\n{}; every row is in `results.csv`.\n\n## Best per scenario\n\nObjective: {}.\n\n{lines}\n{}",
        count(configurations, "configuration"),
        objective.describe(),
        markdown(best)
    )
}
