//! Counting: the estimators and the exact BPE counters on 8,000 tokens of prose, JSON, code,
//! logs and Chinese (generated, seeded). `chars4` should run at memory speed; BPE at the
//! tokenizer's (26–31 MB/s on this kind of machine), and uncached, since each text is new.
//!
//! Run: `cargo bench --bench counting`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ctxbench_compact::tokens::{Bpe, CounterKind};
use ctxbench_compact::{Message, Role};
use ctxbench_harness::scenario::{PadStyle, sample_text};

/// The binary's allocator, so that these figures are the command's (Cargo.toml).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn counting(c: &mut Criterion) {
    let mut group = c.benchmark_group("count");
    for style in PadStyle::ALL {
        let text = sample_text(style, 8_000, 1);
        let message = Message::new(Role::Tool, text.clone());
        group.throughput(Throughput::Bytes(text.len() as u64));
        let name = format!("{style:?}").to_lowercase();
        for kind in [CounterKind::Chars4, CounterKind::Chars4Py] {
            let counter = kind.counter();
            // A fresh message each time: a message remembers its cost once counted.
            group.bench_with_input(BenchmarkId::new(kind.as_str(), &name), &message, |b, m| {
                b.iter_batched(
                    || Message::new(Role::Tool, m.text().into_owned()),
                    |fresh| black_box(counter.message_units(&fresh)),
                    criterion::BatchSize::SmallInput,
                )
            });
        }
        for (name_of, bpe) in [("o200k", Bpe::o200k()), ("cl100k", Bpe::cl100k())] {
            group.bench_with_input(BenchmarkId::new(name_of, &name), &text, |b, t| {
                b.iter(|| black_box(bpe.count_uncached(t)))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, counting);
criterion_main!(benches);
