//! `ctxbench sweep`: grids of configurations for tuning, in parallel, rows streamed to disk in
//! their final order as they finish (`merge.rs` joins the shards).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, bail};
use clap::Args;
use ctxbench_compact::compact::parse_strategy_list;
use ctxbench_compact::policy::Policy;
use ctxbench_harness::configurations::run_configurations;
use ctxbench_harness::human::{count, thousands};
use ctxbench_harness::replicate::{Job, Seeds, load_all};
use ctxbench_harness::report::{CsvRows, ResultRow};
use ctxbench_harness::scenario::Scenario;
use ctxbench_harness::settings::{RunSettings, STANDARD_STRATEGIES, parse_estimator};
use ctxbench_harness::sweep::{Grid, Objective, Shard, parse_decimals, parse_integers};
use indicatif::{ProgressBar, ProgressStyle};

use super::interrupt::{Interrupt, stopped};
use super::output::sayln;
use super::reports::{Reports, stale_note, write_reports};
use super::scenarios::ScenarioArgs;
use super::settings_args::ServerArgs;
use super::sweep_best::{HOLD_UP_TO, Kept, best_line, summary};
use super::sweep_resume::resumed;

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

    /// Seeds per configuration: auto, a count N from --seed, or a range A..B. auto: a
    /// configuration whose first run drew nothing at random runs once, any other 20 seeds.
    #[arg(long, default_value = "auto", value_name = "auto|N|A..B")]
    seeds: String,

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

    /// Run a grid of more than a million configurations (refused without it: a step too fine is
    /// the usual cause).
    #[arg(long)]
    yes: bool,
}

/// The most configurations a sweep runs without `--yes`.
const LARGE_GRID: usize = 1_000_000;

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
    let began = Instant::now();
    let priced = args.server.bill.price.0.is_some();
    let objective =
        Objective::resolve(args.objective.as_deref(), priced, args.fact_cost, args.tie).map_err(anyhow::Error::msg)?;
    let seeds = Seeds::parse(&args.seeds, args.server.seed).map_err(anyhow::Error::msg)?;
    let base = args.server.seed;
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
    let scenario_count = args.scenarios.count()?;
    let configurations = layout.len().saturating_mul(scenario_count);
    let at_most = match &seeds {
        Seeds::Auto => Seeds::AUTO,
        Seeds::List(list) => list.len(),
    };
    eprintln!(
        "sweep: {} × {} = {} (up to {} with {})",
        count(layout.len(), "setting"),
        count(scenario_count, "scenario"),
        count(configurations, "configuration"),
        count(configurations.saturating_mul(at_most), "run"),
        count(at_most, "seed"),
    );

    let threads = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
    // The scenarios of each seed a run may have (padding each seed's text is most of the work,
    // so on the threads); one load when no scenario's text is seeded.
    let load = |seed: u64| -> anyhow::Result<Vec<Scenario>> {
        let mut scenarios = args.scenarios.load(seed)?;
        scenarios.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(scenarios)
    };
    let all_seeds = seeds.list(base);
    let mut loaded = vec![load(all_seeds[0])?];
    let loaded_seeds = if loaded[0].iter().any(|s| s.seeded) {
        all_seeds
    } else {
        vec![all_seeds[0]]
    };
    loaded.extend(load_all(&load, &loaded_seeds[1..], threads)?);
    let scenarios = &loaded[0];
    for scenario in scenarios {
        for probe in layout.probes() {
            probe.resolved(scenario).with_context(|| scenario.path.clone())?;
        }
    }
    if configurations > LARGE_GRID && !args.yes {
        bail!(
            "{} is more than {} configurations; pass --yes to run it all, or take a coarser step",
            count(configurations, "configuration"),
            thousands(LARGE_GRID as u64)
        );
    }
    // Configurations are numbered scenario outermost, then by the layout; each runs its seeds.
    let grid_size = scenarios.len() * layout.len();
    // The grid indices this shard runs, in order, as a count and a k-th.
    let planned = shard.map_or(grid_size, |s| {
        grid_size / s.count + usize::from(grid_size % s.count >= s.index)
    });
    let index_of = |j: usize| shard.map_or(j, |s| j * s.count + s.index - 1);
    // The j-th configuration of this shard with a seed: its scenario (loaded with the seed) and
    // settings.
    let job = |j: usize, seed: u64| -> anyhow::Result<Job<'_>> {
        let k = index_of(j);
        let copy = loaded_seeds.iter().position(|&s| s == seed).unwrap_or(0);
        let scenario = &loaded[copy][k / layout.len()];
        let settings = RunSettings {
            seed,
            ..layout.config(k % layout.len()).resolved(scenario)?
        };
        Ok(Job { scenario, settings })
    };
    let partial = args.out.join("results.csv.partial");
    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    let mut kept = Kept::new(&objective);
    let (resumed, resumed_rows, mut stream) = if args.resume {
        resumed(&partial, planned, &mut |j, rows| {
            let first = job(j, rows[0].settings.seed)?;
            let expected: Vec<u64> = if seeds.replicates(first.scenario, &first.settings, &rows[0].metrics) {
                seeds.list(base)
            } else {
                vec![base]
            };
            let seeds_of: Vec<u64> = rows.iter().map(|r| r.settings.seed).collect();
            if rows[0].scenario != first.scenario.name
                || rows[0].settings != first.settings
                || (seeds_of != expected && seeds_of.len() >= expected.len())
            {
                bail!(
                    "cannot resume: {} does not hold the runs this sweep plans (configuration {} is {} · {}); resume with the flags of the interrupted sweep, or run without --resume",
                    partial.display(),
                    j + 1,
                    rows[0].scenario,
                    rows[0].settings.strategy
                );
            }
            if seeds_of != expected {
                return Ok(false);
            }
            for row in rows {
                kept.add(row);
            }
            Ok(true)
        })?
    } else {
        let file = std::fs::File::create(&partial).with_context(|| format!("cannot write {}", partial.display()))?;
        (0, 0, CsvRows::new(file))
    };
    if args.resume {
        eprintln!(
            "resuming: {} of {} already in {}",
            thousands(resumed as u64),
            count(planned, "configuration"),
            partial.display()
        );
    }
    let interrupt = Interrupt::catch()?;
    let bar = ProgressBar::new((planned - resumed) as u64).with_style(
        ProgressStyle::with_template("{bar:40} {human_pos}/{human_len} configurations · {per_sec} · {eta} left")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let started = Instant::now();
    // The harness's loop, as compare's: after Ctrl-C the runs under way finish and no new one
    // starts; configurations come whole and in order, so the partial file is always the sweep's
    // first configurations.
    let mut runs = 0;
    let mut replicated = 0;
    let done = run_configurations(
        resumed..planned,
        &seeds,
        base,
        threads,
        interrupt.flag(),
        &job,
        &mut |_, ran| {
            runs += ran.len();
            replicated += usize::from(ran.len() > 1);
            for (job, metrics) in ran {
                let row = ResultRow::new(&job.scenario.name, job.settings, metrics);
                stream
                    .write(&row)
                    .with_context(|| format!("cannot write {}", partial.display()))?;
                kept.add(row);
            }
            bar.inc(1);
            Ok::<(), anyhow::Error>(())
        },
    )?;
    bar.finish_and_clear();
    let elapsed = started.elapsed();
    drop(stream);
    if done < planned {
        let how = "to finish it, run the same command again with --resume";
        return Ok(stopped(done, planned, "configuration", &partial, Some(how)));
    }
    let results = args.out.join("results.csv");
    std::fs::rename(&partial, &results)
        .with_context(|| format!("cannot move {} to {}", partial.display(), results.display()))?;

    let (best, held) = kept.finish();
    for rows in &best {
        for note in grid.edges(&rows[0]) {
            eprintln!("warning: {note}");
        }
    }
    let rows_written = resumed_rows + runs;
    let settings = format!(
        "{} of {} ({}); best per scenario: {}",
        count(rows_written, "run"),
        count(done, "configuration"),
        seeds_note(&seeds, base),
        objective.describe()
    );
    let firsts: Vec<ResultRow> = best.iter().map(|rows| rows[0].clone()).collect();
    let stale = write_reports(Reports {
        out: &args.out,
        rows: held.as_deref().unwrap_or(&[]),
        written: Some(rows_written),
        traces: &[],
        summary: summary(&best, &settings),
        title: "ctxbench sweep",
        settings: &settings,
        table: &firsts,
        charted: held.as_deref().unwrap_or(&[]),
        trace_names: &[],
        plots: !args.no_plots && held.is_some(),
        verdicts: None,
        descriptions: scenarios
            .iter()
            .map(|s| (s.name.clone(), s.description.clone()))
            .collect(),
        note: "The best configuration of this scenario (its first seed's run); every run is in results.csv.",
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
        match best.iter().find(|b| b[0].scenario == scenario.name) {
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
    let replicated_note = match seeds {
        Seeds::Auto if replicated == done - resumed => format!(" (each drew at random and ran {} seeds)", Seeds::AUTO),
        Seeds::Auto if replicated > 0 => format!(
            " ({} drew at random and ran {} seeds; the others, once)",
            thousands(replicated as u64),
            Seeds::AUTO
        ),
        Seeds::Auto => " (none drew at random: each ran once)".to_owned(),
        Seeds::List(_) => String::new(),
    };
    eprintln!(
        "swept {}{shard_note}{resumed_note}, {}{replicated_note}, in {:.2} s of runs on {} ({} runs per second), {:.2} s in all; wrote {}",
        count(done, "configuration"),
        count(runs, "run"),
        elapsed.as_secs_f64(),
        count(threads, "thread"),
        thousands((runs as f64 / elapsed.as_secs_f64().max(1e-9)).round() as u64),
        began.elapsed().as_secs_f64(),
        results.display()
    );
    Ok(interrupt.exit())
}

/// The seeds, for the settings line.
fn seeds_note(seeds: &Seeds, base: u64) -> String {
    match seeds {
        Seeds::Auto => format!(
            "seeds auto: {} from {base} for a configuration that draws at random, seed {base} alone for one that does not",
            Seeds::AUTO
        ),
        Seeds::List(list) => match list.as_slice() {
            [one] => format!("seed {one}"),
            many => format!("seeds {}..{}", many[0], many[many.len() - 1]),
        },
    }
}
