//! `ctxbench sweep`: grids of configurations for tuning, run by the harness's engine
//! ([`Sweep`]), rows streamed to disk in their final order as they finish (`merge.rs` joins the
//! shards). This file keeps the flags' meaning, the files and what is printed.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, bail};
use ctxbench_harness::engine::{Loaded, Seeds, Sweep, Swept, resume};
use ctxbench_harness::human::{count, thousands};
use ctxbench_harness::report::{CsvRows, ResultRow};
use ctxbench_harness::sweep::{Grid, Layout, Objective, Shard};

use super::interrupt::{Interrupt, Stop, stopped};
use super::output::{errln, sayln};
use super::progress::Progress;
use super::reports::stale_note;
use super::sweep_args::{LARGE_GRID, SweepArgs};
use super::sweep_best::{HOLD_UP_TO, Kept, best_line, write_sweep_reports};
use super::sweep_shard::{Prepared, finish, prepare as prepare_shard, shard_of};

pub fn run(args: SweepArgs) -> anyhow::Result<ExitCode> {
    let began = Instant::now();
    let priced = args.server.bill.price.0.is_some();
    let objective = args.verdict.objective(priced)?;
    let seeds = args.verdict.seeds(args.server.seed)?;
    if let Some(note) = args.server.bill.cache_note() {
        errln!("{note}");
    }
    let sharded = shard_of(args.shard.as_deref(), args.shards)?;
    let (grid, layout, configurations) = grid_of(&args, &seeds)?;
    let threads = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
    let sweep = Sweep {
        layout: &layout,
        seeds: &seeds,
        base: args.server.seed,
        shard: sharded.as_ref().map(|(s, _)| *s),
        threads,
    };
    let Some(out) = folder(&args, &sweep, &objective, (priced, configurations))? else {
        return Ok(ExitCode::SUCCESS);
    };
    // Ctrl-C heard from here on: loading many seeds' scenarios takes a while too.
    let interrupt = Interrupt::catch()?;
    let Some(loaded) = sweep.load(&|seed| args.scenarios.load(seed), interrupt.flag())? else {
        errln!("interrupted while loading the seeds' scenarios: nothing ran");
        return Ok(ExitCode::from(super::exit::INTERRUPTED));
    };
    if let Some((path, e)) = sweep.unresolved(&loaded) {
        return Err(anyhow::Error::new(e).context(path.to_owned()));
    }
    said_before_running(&args, sharded.as_ref(), &loaded)?;
    let partial = out.join("results.csv.partial");
    let Partial {
        kept: resumed,
        configurations: resumed_count,
        rows: resumed_rows,
        mut stream,
    } = open_partial(&partial, &sweep, &loaded, args.resume)?;
    let mut kept = Kept::new(&objective);
    for row in resumed {
        kept.add(row);
    }
    let bar = Progress::new(loaded.planned() - resumed_count, "configurations", true);
    let started = Instant::now();
    let swept = sweep.run(&loaded, resumed_count, interrupt.flag(), &mut |rows| {
        for row in rows {
            stream
                .write(&row)
                .with_context(|| format!("cannot write {}", partial.display()))?;
            kept.add(row);
        }
        bar.inc();
        Ok::<(), anyhow::Error>(())
    })?;
    bar.clear();
    let elapsed = started.elapsed();
    drop(stream);
    if swept.done < loaded.planned() {
        let how = "to finish it, run the same command again with --resume";
        return Ok(stopped(
            Stop::Of(swept.done, loaded.planned(), "configuration"),
            &partial,
            Some(how),
        ));
    }
    let results = out.join("results.csv");
    std::fs::rename(&partial, &results)
        .with_context(|| format!("cannot move {} to {}", partial.display(), results.display()))?;
    let written = resumed_rows + swept.runs;
    report(
        &args,
        (&grid, &objective, &seeds, sweep.shard),
        &loaded,
        kept,
        (&results, written, swept.done),
    )?;
    // A whole shard's folder takes its place.
    let results = match sweep.shard {
        Some(s) => finish(&args.out, s)?.join("results.csv"),
        None => results,
    };
    let timing = (elapsed.as_secs_f64(), began.elapsed().as_secs_f64(), threads);
    errln!(
        "{}",
        swept_line(
            &sweep,
            &loaded,
            (&swept, args.resume.then_some(resumed_count)),
            timing,
            &results
        )
    );
    Ok(interrupt.exit())
}

/// The grid the flags make, its duplicates said, laid out, and its configurations over every
/// scenario; with the size line said.
fn grid_of(args: &SweepArgs, seeds: &Seeds) -> anyhow::Result<(Grid, Layout, usize)> {
    let mut grid = args.grid()?;
    for note in grid.dedup() {
        errln!("note: {note}");
    }
    let layout = grid.layout()?;
    if layout.is_empty() {
        bail!("no configuration to run: every --target is above every --threshold (a target is at most its threshold)");
    }
    let scenarios = args.scenarios.count()?;
    let configurations = layout.len().saturating_mul(scenarios);
    let at_most = seeds.list(args.server.seed).len();
    errln!(
        "sweep: {} × {} = {} (up to {} with {})",
        count(layout.len(), "setting"),
        count(scenarios, "scenario"),
        count(configurations, "configuration"),
        count(configurations.saturating_mul(at_most), "run"),
        count(at_most, "seed"),
    );
    Ok((grid, layout, configurations))
}

/// What is said before the runs: a grid too large refused without `--yes`, a shard's slice.
fn said_before_running(args: &SweepArgs, sharded: Option<&(Shard, String)>, loaded: &Loaded) -> anyhow::Result<()> {
    if loaded.grid_size() > LARGE_GRID && !args.yes {
        bail!(
            "{} is more than {} configurations; pass --yes to run it all, or take a coarser step",
            count(loaded.grid_size(), "configuration"),
            thousands(LARGE_GRID as u64)
        );
    }
    if let (Some((s, from)), Some((share, spread))) = (sharded, loaded.share()) {
        errln!(
            "shard {}/{} ({from}): {} of {}, {:.1}% of the estimated work (by the scenarios' sizes; the largest shard {:.2}× the smallest)",
            s.index,
            s.count,
            thousands(loaded.planned() as u64),
            count(loaded.grid_size(), "configuration"),
            share * 100.0,
            spread,
        );
    }
    Ok(())
}

/// The folder a sweep runs in: `--out`, or its shard's (`None`: that shard is done already).
fn folder(
    args: &SweepArgs,
    sweep: &Sweep<'_>,
    objective: &Objective,
    (priced, configurations): (bool, usize),
) -> anyhow::Result<Option<PathBuf>> {
    let Some(shard) = sweep.shard else {
        return Ok(Some(args.out.clone()));
    };
    let identity = ctxbench_harness::engine::Identity {
        grid: &sweep.layout.describe(),
        seeds: &format!("{} from {}", args.verdict.seeds, sweep.base),
        scenarios: &args.scenarios.texts()?,
        configurations,
        objective,
        priced,
    };
    match prepare_shard(&args.out, shard, &identity, args.resume)? {
        Prepared::Done(said) => {
            errln!("{said}");
            Ok(None)
        }
        Prepared::Run(dir) => Ok(Some(dir)),
    }
}

/// The partial file a sweep writes its rows to, and the rows it holds already.
struct Partial {
    /// The rows of the configurations kept from an interrupted sweep.
    kept: Vec<ResultRow>,
    /// Those configurations.
    configurations: usize,
    /// Their rows.
    rows: usize,
    /// Where the rows go.
    stream: CsvRows<std::fs::File>,
}

/// The partial file to write to: new, or with `--resume` the whole configurations an interrupted
/// sweep left there kept (their rows handed back) and the rest cut off.
fn open_partial(partial: &Path, sweep: &Sweep<'_>, loaded: &Loaded, resuming: bool) -> anyhow::Result<Partial> {
    if let Some(dir) = partial.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    if !resuming {
        let file = std::fs::File::create(partial).with_context(|| format!("cannot write {}", partial.display()))?;
        return Ok(Partial {
            kept: Vec::new(),
            configurations: 0,
            rows: 0,
            stream: CsvRows::new(file),
        });
    }
    // A shard stopped before its first configuration was whole has its folder and no file yet.
    if sweep.shard.is_some() && !partial.exists() {
        errln!(
            "resuming: nothing of {} ran yet",
            count(loaded.planned(), "configuration")
        );
        return open_partial(partial, sweep, loaded, false);
    }
    let text = std::fs::read_to_string(partial).with_context(|| {
        format!(
            "cannot resume: cannot read {}; run without --resume to start over",
            partial.display()
        )
    })?;
    let r = resume(
        &text,
        &partial.display().to_string(),
        loaded.planned(),
        &mut |j, rows| sweep.check_resumed(loaded, j, rows),
    )?;
    errln!(
        "resuming: {} of {} already in {}",
        thousands(r.configurations as u64),
        count(loaded.planned(), "configuration"),
        partial.display()
    );
    std::fs::write(partial, &text[..r.keep]).with_context(|| format!("cannot write {}", partial.display()))?;
    let file = std::fs::OpenOptions::new()
        .append(true)
        .open(partial)
        .with_context(|| format!("cannot write {}", partial.display()))?;
    Ok(Partial {
        kept: r.kept,
        configurations: r.configurations,
        rows: r.rows,
        stream: CsvRows::continuing(file, r.keep > 0),
    })
}

/// The reports beside `results` (its `written` rows of `done` configurations), and the best of
/// each scenario on stdout.
fn report(
    args: &SweepArgs,
    (grid, objective, seeds, shard): (&Grid, &Objective, &Seeds, Option<Shard>),
    loaded: &Loaded,
    kept: Kept<'_>,
    (results, written, done): (&Path, usize, usize),
) -> anyhow::Result<()> {
    let (best, held) = kept.finish(results)?;
    // A shard's best is of its slice alone: the grid's edges are said of the sweep's, by merge.
    for rows in best.iter().filter(|_| shard.is_none()) {
        for note in grid.edges(&rows[0]) {
            errln!("warning: {note}");
        }
    }
    let settings = format!(
        "{} of {} ({}); best per scenario: {}",
        count(written, "run"),
        count(done, "configuration"),
        seeds_note(seeds, args.server.seed),
        objective.describe()
    );
    let descriptions = loaded
        .scenarios()
        .iter()
        .map(|s| (s.name.clone(), s.description.clone()))
        .collect();
    let dir = results.parent().unwrap_or(Path::new("."));
    let stale = write_sweep_reports(
        dir,
        (&best, held.as_deref()),
        written,
        &settings,
        !args.no_plots,
        descriptions,
    )?;
    if let Some(note) = stale_note(dir, stale) {
        errln!("{note}");
    }
    if held.is_none() && !args.no_plots {
        errln!(
            "note: {} are too many to chart one by one (up to {}); the best per scenario is in summary.md and index.html",
            count(done, "configuration"),
            thousands(HOLD_UP_TO as u64)
        );
    }
    match shard {
        None => sayln!("best per scenario ({}):", objective.describe()),
        Some(s) => sayln!(
            "best per scenario in shard {}/{} alone (`ctxbench merge {}` gives the sweep's; {}):",
            s.index,
            s.count,
            args.out.display(),
            objective.describe()
        ),
    }
    for scenario in loaded.scenarios() {
        match best.iter().find(|b| b[0].scenario == scenario.name) {
            Some(b) => sayln!("  {}", best_line(b)),
            None => sayln!("  {}: no configuration qualifies", scenario.name),
        }
    }
    Ok(())
}

/// The closing line: what ran, how fast, where it went.
fn swept_line(
    sweep: &Sweep<'_>,
    loaded: &Loaded,
    (swept, resumed): (&Swept, Option<usize>),
    (runs_s, all_s, threads): (f64, f64, usize),
    results: &Path,
) -> String {
    let shard_note = sweep.shard.map_or(String::new(), |s| {
        format!(
            " (shard {}/{} of {} in the grid)",
            s.index,
            s.count,
            thousands(loaded.grid_size() as u64)
        )
    });
    let resumed_note = resumed.map_or(String::new(), |n| {
        format!(" ({} of them from the interrupted run)", thousands(n as u64))
    });
    let now = swept.done - resumed.unwrap_or(0);
    let replicated_note = match sweep.seeds {
        Seeds::Auto if swept.replicated == now => format!(" (each drew at random and ran {} seeds)", Seeds::AUTO),
        Seeds::Auto if swept.replicated > 0 => format!(
            " ({} drew at random and ran {} seeds; the others, once)",
            thousands(swept.replicated as u64),
            Seeds::AUTO
        ),
        Seeds::Auto => " (none drew at random: each ran once)".to_owned(),
        Seeds::List(_) => String::new(),
    };
    format!(
        "swept {}{shard_note}{resumed_note}, {}{replicated_note}, in {runs_s:.2} s of runs on {} ({} runs per second), {all_s:.2} s in all; wrote {}",
        count(swept.done, "configuration"),
        count(swept.runs, "run"),
        count(threads, "thread"),
        thousands((swept.runs as f64 / runs_s.max(1e-9)).round() as u64),
        results.display()
    )
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
