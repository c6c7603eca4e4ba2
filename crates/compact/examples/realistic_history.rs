//! Writes a realistic agent history (a chat request body of distinct text) to a file:
//! `cargo run --release -p ctxbench-compact --example realistic_history -- OUT [MESSAGES] [SEED]`
//! (100,000 messages and seed 7 by default). The same generator as the `peers` bench.

#[path = "../benches/realistic/mod.rs"]
mod realistic;

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: u64| args.get(i).map_or(Some(default), |a| a.parse().ok());
    let (Some(out), Some(messages), Some(seed)) = (args.first(), number(1, 100_000), number(2, 7)) else {
        eprintln!("usage: realistic_history OUT [MESSAGES] [SEED] (MESSAGES and SEED whole numbers)");
        return std::process::ExitCode::from(2);
    };
    let text = realistic::body(messages as usize, seed);
    let partial = format!("{out}.partial");
    if let Err(e) = std::fs::write(&partial, text).and_then(|()| std::fs::rename(&partial, out)) {
        eprintln!("error: cannot write {out}: {e}");
        return std::process::ExitCode::from(2);
    }
    std::process::ExitCode::SUCCESS
}
