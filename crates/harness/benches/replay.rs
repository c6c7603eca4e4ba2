//! Replaying scenarios, against the floor: the time `bpe-openai` takes to count, once, every
//! distinct text a replay has to count. A replay that tokenized any text twice, or recounted a
//! history per call, would be far above it. Each replay starts with an empty token cache.
//!
//! Run: `cargo bench --bench replay`. First the paired ratios (floor and replay alternating),
//! then criterion's measurement of each, then a sweep slice (50 configurations, one thread).
//! What the prompt cache costs a replay is `benches/cache.rs`.

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ctxbench_compact::tokens::Bpe;
use ctxbench_harness::run::run_scenario;
use ctxbench_harness::scenario::{Scenario, files_in, load_scenario};
use ctxbench_harness::settings::RunSettings;
use ctxbench_harness::sweep::Grid;

/// The binary's allocator, so that these figures are the command's (Cargo.toml).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn scenarios() -> Vec<Scenario> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    files_in(&dir)
        .expect("scenarios/")
        .iter()
        .map(|f| load_scenario(f, 0).expect("valid scenario"))
        .collect()
}

fn replay(scenario: &Scenario, settings: &RunSettings) {
    black_box(run_scenario(scenario, settings, &mut |_| {}).expect("window"));
}

fn floor_and_replay(c: &mut Criterion) {
    let bpe = Bpe::o200k();
    let config = RunSettings::new("truncate+drop".parse().expect("valid"));
    let mut group = c.benchmark_group("replay");
    group.sample_size(20);
    for scenario in scenarios() {
        bpe.clear_cache();
        replay(&scenario, &config);
        let texts = bpe.cached_texts();
        group.bench_with_input(BenchmarkId::new("floor", &scenario.name), &texts, |b, texts| {
            b.iter(|| texts.iter().map(|t| bpe.count_uncached(t)).sum::<usize>())
        });
        group.bench_with_input(
            BenchmarkId::new("truncate+drop", &scenario.name),
            &scenario,
            |b, scenario| {
                // Emptying the cache (freeing its entries) is preparation, not replay.
                b.iter_batched(
                    || bpe.clear_cache(),
                    |()| replay(scenario, &config),
                    criterion::BatchSize::PerIteration,
                )
            },
        );
    }
    group.finish();
}

/// The same ratio, paired: floor and replay alternate, 51 times each, so that both see the same
/// machine (on shared cores, criterion's two separate measurements can be minutes and a
/// neighbour's load apart). Prints each scenario's medians and their ratio.
fn paired(_: &mut Criterion) {
    let bpe = Bpe::o200k();
    let config = RunSettings::new("truncate+drop".parse().expect("valid"));
    let median = |mut times: Vec<f64>| {
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    };
    println!("paired medians of 51 (floor · replay · ratio):");
    for scenario in scenarios() {
        bpe.clear_cache();
        replay(&scenario, &config);
        let texts = bpe.cached_texts();
        let (mut floor, mut run) = (Vec::new(), Vec::new());
        for _ in 0..51 {
            let start = Instant::now();
            black_box(texts.iter().map(|t| bpe.count_uncached(t)).sum::<usize>());
            floor.push(start.elapsed().as_secs_f64());
            bpe.clear_cache();
            let start = Instant::now();
            replay(&scenario, &config);
            run.push(start.elapsed().as_secs_f64());
        }
        let (floor, run) = (median(floor), median(run));
        println!(
            "  {:<20} {:>8.0} µs · {:>8.0} µs · {:.2}×",
            scenario.name,
            floor * 1e6,
            run * 1e6,
            run / floor
        );
    }
}

fn sweep_slice(c: &mut Criterion) {
    let scenarios = scenarios();
    let grid = Grid {
        strategies: vec![
            "truncate+drop".parse().expect("valid"),
            "mask+drop".parse().expect("valid"),
        ],
        windows: vec![None],
        thresholds: vec![0.6, 0.7, 0.8, 0.9, 0.95],
        targets: vec![None],
        keeps: vec![1, 2, 3, 4, 5],
        reserves: vec![0],
        estimators: vec![ctxbench_compact::tokens::Estimator::Counter(
            ctxbench_compact::tokens::CounterKind::Chars4,
        )],
        params: vec![],
        base: RunSettings::new("none".parse().expect("valid")),
    };
    let configs = grid.configs().expect("valid grid");
    let scenario = scenarios
        .iter()
        .find(|s| s.name == "long-support-chat")
        .expect("bundled");
    c.bench_function("sweep slice: long-support-chat × 50 configurations", |b| {
        b.iter(|| configs.iter().for_each(|config| replay(scenario, config)))
    });
}

criterion_group!(benches, paired, floor_and_replay, sweep_slice);
criterion_main!(benches);
