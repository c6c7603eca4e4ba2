//! Compaction time per strategy on generated histories of 1,000, 10,000 and 100,000 messages:
//! the figures behind "compaction is linear" (time at 100k should be about 10× time at 10k).
//!
//! Run: `cargo bench --bench compaction`. Inputs are generated from a fixed seed. First the paired
//! ratios (10k and 100k alternating), then criterion's measurement of each size.

use std::hint::black_box;
use std::time::Instant;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ctxbench::{Compaction, Compactor, Conversation, CounterKind, Message, Policy, Role, Strategy, ToolCall};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

/// The binary's allocator, so that these figures are the command's (Cargo.toml).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A support-agent history: requests of 1–4 tool calls with results of 50 to 3,000 characters.
fn history(messages: usize, seed: u64) -> Conversation {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(messages + 8);
    let mut request = 0;
    while out.len() < messages {
        out.push(Message::new(
            Role::User,
            format!("Request {request}: about order #{}", rng.random_range(1000..9999)),
        ));
        for step in 0..rng.random_range(1..=4) {
            let id = format!("call_{step}");
            let arguments = format!("{{\"order\":{request}}}");
            out.push(Message::assistant_calls([ToolCall {
                id: &id,
                name: "get_order",
                arguments: &arguments,
            }]));
            let size = [50, 500, 3000][rng.random_range(0..3)];
            out.push(Message::tool_result(&id, "order line, shipped; ".repeat(size / 20)));
        }
        out.push(Message::new(Role::Assistant, "Done."));
        request += 1;
    }
    Conversation {
        system: Some(Message::new(
            Role::System,
            "You are the support assistant of a bike shop.",
        )),
        system_index: 0,
        messages: out,
        tools: Default::default(),
    }
}

/// What both measurements time: a fresh compactor, to 8,000 tokens by `chars4`.
fn compact(strategy: &Strategy, conversation: &mut Conversation) -> Compaction {
    let mut compactor = Compactor::new(strategy.clone(), Policy::new(8_000), CounterKind::Chars4.counter());
    compactor.compact(conversation)
}

/// Compacts a copy of `input` once; the time of the compaction alone (copy and free excluded).
fn compact_once(strategy: &Strategy, input: &Conversation) -> f64 {
    let mut conversation = input.clone();
    let start = Instant::now();
    black_box(compact(strategy, &mut conversation));
    let time = start.elapsed().as_secs_f64();
    drop(black_box(conversation));
    time
}

/// The 100k / 10k ratio, paired: ten compactions of 10,000 messages, then one of 100,000, 25
/// times, so that both sizes see the same machine. Criterion measures each size apart, the
/// smaller ones back to back, where a 10,000-message history stays in the cache between
/// iterations and one of 100,000 cannot. Prints each strategy's medians and their ratio.
fn paired(_: &mut Criterion) {
    let (small, large) = (history(10_000, 42), history(100_000, 42));
    let median = |mut times: Vec<f64>| {
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    };
    println!("paired medians (10,000 messages × 250 · 100,000 × 25 · ratio):");
    for name in ["truncate+drop", "mask+drop", "clear-tool-uses"] {
        let strategy: Strategy = name.parse().expect("valid strategy");
        let (mut at_small, mut at_large) = (Vec::new(), Vec::new());
        for _ in 0..25 {
            at_small.extend((0..10).map(|_| compact_once(&strategy, &small)));
            at_large.push(compact_once(&strategy, &large));
        }
        let (at_small, at_large) = (median(at_small), median(at_large));
        println!(
            "  {name:<16} {:>8.2} ms · {:>8.2} ms · {:.1}×",
            at_small * 1e3,
            at_large * 1e3,
            at_large / at_small
        );
    }
}

fn compaction(c: &mut Criterion) {
    let mut group = c.benchmark_group("compact");
    group.sample_size(10);
    for size in [1_000, 10_000, 100_000] {
        let input = history(size, 42);
        group.throughput(Throughput::Elements(size as u64));
        for name in ["truncate+drop", "mask+drop", "clear-tool-uses", "reference"] {
            let strategy: Strategy = name.parse().expect("valid strategy");
            group.bench_with_input(BenchmarkId::new(name, size), &input, |b, input| {
                b.iter_batched(
                    || input.clone(),
                    |mut conversation| {
                        let done = compact(&strategy, &mut conversation);
                        // Returned, so that freeing the history happens after the measurement.
                        black_box((conversation, done))
                    },
                    criterion::BatchSize::LargeInput,
                );
            });
        }
    }
    group.finish();
}

criterion_group!(benches, paired, compaction);
criterion_main!(benches);
