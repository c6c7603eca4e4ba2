//! Reading and writing a request body, the floor of `ctxbench compact` as a process: parsing a
//! chat body of 10,000 and 100,000 messages of distinct text (a message at a time, no tree of
//! the whole body), from its text and as it is read, and writing it back pretty-printed. Throughput is in input bytes.
//!
//! Run: `cargo bench --bench body`. The bodies are generated from a fixed seed.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ctxbench_compact::RequestBody;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

/// The binary's allocator, so that these figures are the command's (Cargo.toml).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const WORDS: [&str; 16] = [
    "order",
    "refund",
    "shipment",
    "invoice",
    "customer",
    "warehouse",
    "delay",
    "package",
    "tracking",
    "address",
    "payment",
    "status",
    "ticket",
    "account",
    "carrier",
    "库存",
];

/// A support chat of `messages` messages: requests, one tool call each with a result of up to
/// 900 characters of distinct text, and replies.
fn body(messages: usize, seed: u64) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let text = |n: usize, rng: &mut ChaCha8Rng| -> String {
        (0..n)
            .map(|_| {
                format!(
                    "{}{}",
                    WORDS[rng.random_range(0..WORDS.len())],
                    rng.random_range(0..99_999)
                )
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut out = vec![serde_json::json!({"role": "system", "content": "You are a support agent."})];
    let mut k = 0;
    while out.len() < messages {
        out.push(serde_json::json!({"role": "user", "content": text(rng.random_range(4..30), &mut rng)}));
        let id = format!("call_{k}");
        out.push(serde_json::json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": id, "type": "function", "function": {"name": "lookup", "arguments": format!("{{\"id\":{k}}}")}}]}));
        let result = text(rng.random_range(5..90), &mut rng);
        out.push(serde_json::json!({"role": "tool", "tool_call_id": id, "content": result}));
        out.push(serde_json::json!({"role": "assistant", "content": text(rng.random_range(4..40), &mut rng)}));
        k += 1;
    }
    serde_json::json!({"model": "gpt-5.4-mini", "messages": out}).to_string()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("body");
    group.sample_size(10);
    for messages in [10_000, 100_000] {
        let text = body(messages, 7);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::new("parse", messages), &text, |b, text| {
            b.iter(|| black_box(RequestBody::parse(text, "bench").expect("a body")));
        });
        // As `compact` reads a file: through its own input path (a 256 KiB buffer, past a
        // byte-order mark), the text never whole. A layer between the buffer and the parser
        // doubled this once (issue 46).
        group.bench_with_input(BenchmarkId::new("parse_reader", messages), &text, |b, text| {
            b.iter(|| {
                let reader = ctxbench_compact::input::buffered(text.as_bytes()).expect("reads");
                black_box(RequestBody::parse_reader(reader, "bench").expect("a body"))
            });
        });
        let parsed = RequestBody::parse(&text, "bench").expect("a body");
        group.bench_with_input(BenchmarkId::new("write", messages), &parsed, |b, parsed| {
            b.iter(|| parsed.write_pretty(std::io::sink()).expect("writes"));
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
