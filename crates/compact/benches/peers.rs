//! The library in process on the realistic history that `benches/against-langchain.sh` compares
//! with LangChain's `trim_messages`: 100,000 messages of distinct text (`realistic/`), parsed,
//! then compacted with `drop` by `chars4` and by `o200k`, on one thread and on two
//! (`Compactor::with_count_threads`), to a tenth of the history's estimate. Each iteration
//! compacts a fresh copy that was never counted, with a counter that caches no text, so every
//! text is counted again, as when an agent compacts a body it has just parsed.
//!
//! Run: `cargo bench --bench peers`.

use std::hint::black_box;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ctxbench_compact::{Compactor, CounterKind, Policy, RequestBody, Strategy};

mod realistic;

/// The binary's allocator, so that these figures are the command's (Cargo.toml).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn bench(c: &mut Criterion) {
    let text = realistic::body(100_000, 7);
    let body = RequestBody::parse(&text, "realistic").expect("the generator writes a body");
    let strategy: Strategy = "drop".parse().expect("a strategy");
    let mut group = c.benchmark_group("peers");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(text.len() as u64));
    for kind in [CounterKind::Chars4, CounterKind::O200k] {
        // On a copy: the copies each iteration compacts must start with no cost known.
        let c = &body.conversation.clone();
        let total = kind
            .single_pass_counter()
            .count(c.system.as_ref(), &c.messages, &c.tools);
        let mut policy = Policy::new(total / 10);
        policy.threshold = 1.0;
        for threads in [1, 2] {
            let id = BenchmarkId::new(format!("drop/{kind}"), format!("{threads} thread(s)"));
            group.bench_function(id, |b| {
                b.iter_batched(
                    || body.conversation.clone(),
                    |mut conversation| {
                        let counter = kind.single_pass_counter();
                        let mut compactor =
                            Compactor::new(strategy.clone(), policy.clone(), counter).with_count_threads(threads);
                        black_box(compactor.compact(&mut conversation));
                        conversation
                    },
                    BatchSize::LargeInput,
                );
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
