//! `ctxbench sweep`: grids of configurations for tuning, in parallel, rows streamed to disk in
//! their final order as they finish (`merge.rs` joins the shards).

use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, bail};
use ctxbench_harness::configurations::run_configurations;
use ctxbench_harness::human::{count, thousands};
use ctxbench_harness::replicate::{Job, Seeds, load_all};
use ctxbench_harness::report::{CsvRows, ResultRow};
use ctxbench_harness::scenario::Scenario;
use ctxbench_harness::settings::RunSettings;
use ctxbench_harness::sweep::{Objective, Plan};

use super::interrupt::{Interrupt, stopped};
use super::output::{errln, sayln};
use super::progress::Progress;
use super::reports::stale_note;
use super::sweep_args::{LARGE_GRID, SweepArgs};
use super::sweep_best::{HOLD_UP_TO, Kept, best_line, write_sweep_reports};
use super::sweep_resume::resumed;
use super::sweep_shard::{Identity, Prepared, finish, prepare, shard_of};

pub fn run(args: SweepArgs) -> anyhow::Result<ExitCode> {
    let began = Instant::now();
    let priced = args.server.bill.price.0.is_some();
    let objective = Objective::resolve(args.objective.as_deref(), priced, args.fact_cost, args.tie)?;
    let seeds = Seeds::parse(&args.seeds, args.server.seed)?;
    let base = args.server.seed;
    if let Some(note) = args.server.bill.cache_note() {
        errln!("{note}");
    }
    let sharded = shard_of(args.shard.as_deref(), args.shards)?;
    let shard = sharded.as_ref().map(|(s, _)| *s);
    let mut grid = args.grid()?;
    for note in grid.dedup() {
        errln!("note: {note}");
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
    errln!(
        "sweep: {} × {} = {} (up to {} with {})",
        count(layout.len(), "setting"),
        count(scenario_count, "scenario"),
        count(configurations, "configuration"),
        count(configurations.saturating_mul(at_most), "run"),
        count(at_most, "seed"),
    );

    // A shard's folder: done already (nothing to run), or where it runs.
    let out = match &sharded {
        None => args.out.clone(),
        Some((s, _)) => {
            let identity = Identity::new(
                &layout.describe(),
                &format!("{} from {base}", args.seeds),
                &args.scenarios.texts()?,
                configurations,
                (objective.keys_text(), objective.fact_cost, objective.tie),
                priced,
            );
            match prepare(&args.out, *s, &identity, args.resume)? {
                Prepared::Done(said) => {
                    errln!("{said}");
                    return Ok(ExitCode::SUCCESS);
                }
                Prepared::Run(dir) => dir,
            }
        }
    };

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
    // Ctrl-C heard from here on: loading many seeds' scenarios takes a while too.
    let interrupt = Interrupt::catch()?;
    match load_all(&load, &loaded_seeds[1..], threads, interrupt.flag())? {
        Some(more) => loaded.extend(more),
        None => {
            errln!("interrupted while loading the seeds' scenarios: nothing ran");
            return Ok(ExitCode::from(super::exit::INTERRUPTED));
        }
    }
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
    // The grid indices this shard runs, in order, as a count and a k-th: a slice balanced by the
    // scenarios' estimated work.
    let plan = shard.map(|s| {
        let work: Vec<u64> = scenarios.iter().map(Scenario::work).collect();
        Plan::new(s, &work, layout.len())
    });
    let planned = plan.as_ref().map_or(grid_size, Plan::len);
    let index_of = |j: usize| plan.as_ref().map_or(j, |p| p.index(j));
    if let (Some((s, from)), Some(plan)) = (&sharded, &plan) {
        let (share, spread) = plan.share();
        errln!(
            "shard {}/{} ({from}): {} of {}, {:.1}% of the estimated work (by the scenarios' sizes; the largest shard {:.2}× the smallest)",
            s.index,
            s.count,
            thousands(planned as u64),
            count(grid_size, "configuration"),
            share * 100.0,
            spread,
        );
    }
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
    let partial = out.join("results.csv.partial");
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
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
        errln!(
            "resuming: {} of {} already in {}",
            thousands(resumed as u64),
            count(planned, "configuration"),
            partial.display()
        );
    }
    let bar = Progress::new(planned - resumed, "configurations", true);
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
            bar.inc();
            Ok::<(), anyhow::Error>(())
        },
    )?;
    bar.clear();
    let elapsed = started.elapsed();
    drop(stream);
    if done < planned {
        let how = "to finish it, run the same command again with --resume";
        return Ok(stopped(done, planned, "configuration", &partial, Some(how)));
    }
    let results = out.join("results.csv");
    std::fs::rename(&partial, &results)
        .with_context(|| format!("cannot move {} to {}", partial.display(), results.display()))?;

    let (best, held) = kept.finish(&results)?;
    // A shard's best is of its slice alone: the grid's edges are said of the sweep's, by merge.
    for rows in best.iter().filter(|_| shard.is_none()) {
        for note in grid.edges(&rows[0]) {
            errln!("warning: {note}");
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
    let stale = write_sweep_reports(
        &out,
        (&best, held.as_deref()),
        rows_written,
        &settings,
        !args.no_plots,
        scenarios
            .iter()
            .map(|s| (s.name.clone(), s.description.clone()))
            .collect(),
    )?;
    if let Some(note) = stale_note(&out, stale) {
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
    for scenario in scenarios {
        match best.iter().find(|b| b[0].scenario == scenario.name) {
            Some(b) => sayln!("  {}", best_line(b)),
            None => sayln!("  {}: no configuration qualifies", scenario.name),
        }
    }
    // A whole shard's folder takes its place.
    let results = match shard {
        Some(s) => finish(&args.out, s)?.join("results.csv"),
        None => results,
    };
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
    errln!(
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
