//! What the simulated prompt cache costs a replay: `--cache none` against the default price's
//! cache (`prefix`) and Anthropic's (`breakpoints`) on every bundled scenario. The target: at most
//! 1.3× the uncached replay.
//!
//! Run: `cargo bench --bench cache`. First the paired medians and their ratios (the three modes
//! alternate, so that all see the same machine), then criterion's measurement of each.

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ctxbench_compact::tokens::Bpe;
use ctxbench_harness::run::run_scenario;
use ctxbench_harness::scenario::{Scenario, files_in, load_scenario};
use ctxbench_harness::settings::RunSettings;

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

/// Paired (alternating, 31 times each, the token cache emptied before every run), then measured
/// by criterion.
fn cache_cost(c: &mut Criterion) {
    let bpe = Bpe::o200k();
    let strategy: ctxbench_compact::compact::Strategy = "truncate+drop".parse().expect("valid");
    let with = |cache: &str| RunSettings {
        cache: cache.parse().expect("a cache mode"),
        ..RunSettings::new(strategy.clone())
    };
    let modes = [
        ("none", with("none")),
        ("prefix", with("prefix")),
        ("breakpoints", with("breakpoints")),
    ];
    let median = |mut times: Vec<f64>| {
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    };
    println!("paired medians of 31 (cache none · prefix · breakpoints, and the ratios to none):");
    let mut worst: f64 = 0.0;
    for scenario in scenarios() {
        let mut times = [Vec::new(), Vec::new(), Vec::new()];
        for _ in 0..31 {
            for (k, (_, settings)) in modes.iter().enumerate() {
                bpe.clear_cache();
                let start = Instant::now();
                replay(&scenario, settings);
                times[k].push(start.elapsed().as_secs_f64());
            }
        }
        let [none, prefix, breakpoints] = times.map(median);
        worst = worst.max(prefix / none).max(breakpoints / none);
        println!(
            "  {:<20} {:>8.0} µs · {:>8.0} µs · {:>8.0} µs · {:.2}× · {:.2}×",
            scenario.name,
            none * 1e6,
            prefix * 1e6,
            breakpoints * 1e6,
            prefix / none,
            breakpoints / none
        );
    }
    println!("  worst ratio: {worst:.2}× (target: at most 1.30×)");
    let mut group = c.benchmark_group("cache");
    group.sample_size(20);
    for scenario in scenarios() {
        for (name, settings) in &modes {
            group.bench_with_input(BenchmarkId::new(*name, &scenario.name), &scenario, |b, scenario| {
                b.iter_batched(
                    || bpe.clear_cache(),
                    |()| replay(scenario, settings),
                    criterion::BatchSize::PerIteration,
                )
            });
        }
    }
    group.finish();
}

criterion_group!(benches, cache_cost);
criterion_main!(benches);
