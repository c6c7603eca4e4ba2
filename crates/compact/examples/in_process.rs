//! The library in process, as an agent embeds it: the history already parsed, one compaction
//! timed. The peer script (`benches/against-langchain.sh`) runs it beside LangChain's
//! `trim_messages` on the same file.
//!
//! `cargo run --release -p ctxbench-compact --example in_process -- FILE ESTIMATOR WINDOW [RUNS]
//! [THREADS]` parses FILE (a chat request body), then RUNS times (5 by default) compacts a fresh
//! copy with `drop` to WINDOW tokens (threshold 1) by ESTIMATOR (`chars4`, `o200k`, …), counting
//! on THREADS threads (1 by default; `Compactor::with_count_threads`), and prints one JSON line:
//! the fastest and the median time in milliseconds, and the messages kept.

use std::time::Instant;

use ctxbench_compact::{Compactor, CounterKind, Policy, RequestBody, Strategy};

/// The binary's allocator, so that these figures are the command's (Cargo.toml).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    match run() {
        Ok(line) => {
            println!("{line}");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::from(2)
        }
    }
}

fn run() -> Result<String, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: in_process FILE ESTIMATOR WINDOW [RUNS] [THREADS]";
    let [file, estimator, window, rest @ ..] = args.as_slice() else {
        return Err(usage.into());
    };
    let kind = CounterKind::parse(estimator).ok_or_else(|| format!("{estimator:?} is not a counter; {usage}"))?;
    let window: u64 = window
        .parse()
        .map_err(|_| format!("WINDOW must be a whole number; {usage}"))?;
    let whole = |i: usize, default: usize, name: &str| match rest.get(i) {
        Some(r) => r.parse().map_err(|_| format!("{name} must be a whole number; {usage}")),
        None => Ok(default),
    };
    let runs = whole(0, 5, "RUNS")?;
    let threads = whole(1, 1, "THREADS")?;
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))?;
    // Never counted: each copy starts with no cost known, as a freshly parsed body does.
    let body = RequestBody::parse(&text, file).map_err(|e| e.to_string())?;
    let strategy: Strategy = "drop".parse().map_err(|e| format!("{e}"))?;
    let mut policy = Policy::new(window);
    policy.threshold = 1.0;
    let mut times = Vec::with_capacity(runs);
    let mut kept = 0;
    for _ in 0..runs.max(1) {
        let mut conversation = body.conversation.clone();
        // A counter with no cache of texts: every run counts every text again.
        let counter = kind.single_pass_counter();
        let mut compactor = Compactor::new(strategy.clone(), policy.clone(), counter).with_count_threads(threads);
        let start = Instant::now();
        let done = compactor.compact(&mut conversation);
        times.push(start.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(done);
        kept = conversation.messages.len() + usize::from(conversation.system.is_some());
    }
    times.sort_by(f64::total_cmp);
    Ok(format!(
        "{{\"estimator\":\"{kind}\",\"threads\":{threads},\"best_ms\":{:.2},\"median_ms\":{:.2},\"kept\":{kept}}}",
        times[0],
        times[times.len() / 2]
    ))
}
