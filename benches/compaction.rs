//! Compaction time per strategy on generated histories of 1,000, 10,000 and 100,000 messages:
//! the figures behind "compaction is linear" (time at 100k should be about 10× time at 10k).
//!
//! Run: `cargo bench --bench compaction`. Inputs are generated from a fixed seed.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ctxbench::{Compactor, Conversation, CounterKind, Message, Policy, Role, Strategy, ToolCall};
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
                        let policy = Policy::new(8_000);
                        let mut compactor = Compactor::new(strategy.clone(), policy, CounterKind::Chars4.counter());
                        let done = compactor.compact(&mut conversation);
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

criterion_group!(benches, compaction);
criterion_main!(benches);
