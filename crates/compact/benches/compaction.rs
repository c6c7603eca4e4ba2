//! Compaction time per strategy on generated histories of 1,000, 10,000 and 100,000 messages:
//! the figures behind "compaction is linear" (time at 100k should be about 10× time at 10k).
//!
//! Run: `cargo bench --bench compaction`. Inputs are generated from a fixed seed. First the paired
//! ratios (10k and 100k alternating; with the caches emptied before each compaction, the target's
//! measure, and warm), then criterion's measurement of each size, warm.

use std::hint::black_box;
use std::time::Instant;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ctxbench_compact::{Compaction, Compactor, Conversation, CounterKind, Message, Policy, Role, Strategy, ToolCall};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

/// The binary's allocator, so that these figures are the command's (Cargo.toml).
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
/// With `cold`, the caches are emptied between the copy and the compaction.
fn compact_once(strategy: &Strategy, input: &Conversation, cold: Option<&Evictor>) -> f64 {
    let mut conversation = input.clone();
    if let Some(evictor) = cold {
        evictor.evict();
    }
    let start = Instant::now();
    black_box(compact(strategy, &mut conversation));
    let time = start.elapsed().as_secs_f64();
    drop(black_box(conversation));
    time
}

/// Empties the CPU caches by reading a buffer larger than any of them: 256 MB, more than twice
/// this machine's 105 MB last-level cache.
struct Evictor(Vec<u64>);

impl Evictor {
    fn new() -> Evictor {
        Evictor(vec![1; 32 << 20])
    }

    /// Reads one word of every 64-byte line.
    fn evict(&self) {
        black_box(self.0.iter().step_by(8).fold(0, |a, &x| a ^ x));
    }
}

/// The 100k / 10k ratio, paired: ten compactions of 10,000 messages, then one of 100,000, 25
/// times, so that both sizes see the same machine; medians.
///
/// Twice: with the caches emptied before each compaction (the linearity target's measure: both
/// sizes then read their history from memory, as in an agent, where a model call passes between
/// two compactions), and warm, each compaction right after its copy was made. Warm, a 10,000-message
/// history (about 8 MB) is still in the cache and one of 100,000 (about 80 MB) cannot be, so the
/// warm ratio also measures the cache's size; criterion's figures below are warm too.
fn paired(_: &mut Criterion) {
    let (small, large) = (history(10_000, 42), history(100_000, 42));
    let evictor = Evictor::new();
    let median = |mut times: Vec<f64>| {
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    };
    println!("100k / 10k, paired (10,000 messages × 250 · 100,000 × 25, medians):");
    println!(
        "{}",
        format!("  {:<16}{:^31}{:^31}", "", "caches emptied", "warm").trim_end()
    );
    for name in ["truncate+drop", "mask+drop", "clear-tool-uses"] {
        let strategy: Strategy = name.parse().expect("valid strategy");
        // Per mode, the times at each size; the modes alternate too.
        let mut times = [(Vec::new(), Vec::new()), (Vec::new(), Vec::new())];
        for _ in 0..25 {
            for ((at_small, at_large), cold) in times.iter_mut().zip([Some(&evictor), None]) {
                at_small.extend((0..10).map(|_| compact_once(&strategy, &small, cold)));
                at_large.push(compact_once(&strategy, &large, cold));
            }
        }
        let mut line = format!("  {name:<16}");
        for (at_small, at_large) in times {
            let (at_small, at_large) = (median(at_small), median(at_large));
            line += &format!(
                " {:>6.2} ms → {:>6.2} ms {:>5.1}×  ",
                at_small * 1e3,
                at_large * 1e3,
                at_large / at_small
            );
        }
        println!("{}", line.trim_end());
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
