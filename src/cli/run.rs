//! `ctxbench run`: one scenario, one strategy, drawn call by call as the window fills up
//! (the compaction pattern's falling-blocks picture, in the terminal).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;
use ctxbench_compact::compact::Strategy;
use ctxbench_compact::wire::Format;
use ctxbench_harness::http::{HttpConfig, HttpModel};
use ctxbench_harness::human::thousands;
use ctxbench_harness::report::{ResultRow, table};
use ctxbench_harness::run::{run_live, run_scenario};
use ctxbench_harness::scenario::load_scenario;
use ctxbench_harness::trace::CallKind;
use ctxbench_harness::trace::{CallRecord, Outcome};

use super::compare::trace_name;
use super::files::{trace_lines, write_atomic};
use super::output::{errln, say, sayln};
use super::settings_args::SettingsArgs;

/// Replay one scenario with one strategy, showing each model call as it happens.
#[derive(Debug, Args)]
#[command(
    after_help = super::help::with_stages("Example:\n  ctxbench run scenarios/bike-shop-return.json --strategy truncate+drop --trace bike.jsonl"),
    mut_arg("model_profile", |a| a.help(super::help::MODEL_PROFILE_IN_RUN))
)]
pub struct RunCommandArgs {
    /// The scenario file.
    #[arg(value_name = "SCENARIO")]
    file: PathBuf,

    /// Strategy: stages joined by `+`, parameters after `:`; `ctxbench strategies` lists the stages.
    #[arg(long, default_value = "truncate+drop", value_name = "STRATEGY")]
    strategy: String,

    #[command(flatten)]
    settings: SettingsArgs,

    /// Write the trace (one JSON line per call) to this file; given a folder (one that exists, or
    /// a name ending in /), into it as SCENARIO--STRATEGY.jsonl, the name compare gives it.
    #[arg(long, value_name = "FILE|FOLDER")]
    trace: Option<PathBuf>,

    #[command(flatten)]
    live: LiveArgs,
}

/// A live model instead of the scripted one.
#[derive(Debug, Args)]
#[command(next_help_heading = "Live model")]
struct LiveArgs {
    /// An API's base URL (`http://127.0.0.1:11434/v1`, `https://api.openai.com/v1`, `https://api.anthropic.com/v1` with --api anthropic):
    /// the real model drives the conversation with the scenario's tools; the key, if any, comes
    /// from CTXBENCH_API_KEY and is never printed or written. Needs --model, and --window when the scenario sets none.
    #[arg(long, value_name = "URL", requires = "model")]
    endpoint: Option<String>,

    /// The model to ask for.
    #[arg(long, value_name = "NAME", requires = "endpoint")]
    model: Option<String>,

    /// The wire format the endpoint speaks: chat (POST /chat/completions), anthropic (POST
    /// /messages, the key sent as x-api-key) or responses (POST /responses).
    #[arg(long, value_name = "API", default_value = "chat", value_parser = super::settings_args::named::<Format>(), requires = "endpoint")]
    api: Format,

    /// Seconds a call may take, retries aside.
    #[arg(long, value_name = "SECONDS", default_value_t = 120, value_parser = super::values::positive::<u64>)]
    timeout: u64,

    /// Retries after a 429, a 5xx or a network error, waiting 1 s, 2 s, 4 s… (or as Retry-After says).
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = super::values::whole::<u32>)]
    retries: u32,

    /// Ask for server-sent events and read each reply back from them (chat's usage chunk asked
    /// for): the figures are the same as unstreamed.
    #[arg(long, requires = "endpoint")]
    stream: bool,

    /// The `user` field of every request (Anthropic's `metadata.user_id`), which `serve` keys its
    /// runs by; default: ctxbench-PID:STRATEGY.
    #[arg(long, value_name = "NAME", requires = "endpoint")]
    user: Option<String>,
}

const BAR: usize = 40;

pub fn run(args: RunCommandArgs) -> anyhow::Result<ExitCode> {
    let strategy: Strategy = args.strategy.parse().context("invalid --strategy")?;
    let settings = args.settings.settings("run", strategy)?;
    let scenario = load_scenario(&args.file, settings.seed)?;
    let settings = settings.resolved(&scenario)?;
    let policy = settings.policy(&scenario)?;
    // Where the trace goes is settled before the run, not found wrong after it.
    let trace = args
        .trace
        .as_deref()
        .map(|given| trace_path(given, &trace_name(&scenario.name, &settings)))
        .transpose()?;
    sayln!(
        "{} · {} · window {} · limit {} (threshold {}) · keep {}",
        scenario.name,
        settings.strategy,
        thousands(policy.window),
        thousands(policy.limit()),
        policy.threshold,
        policy.keep_recent_turns
    );
    sayln!(
        "{:>4} {:>4} {:<8} {:<w$}  {:>13}  {:>11}",
        "call",
        "req",
        "kind",
        "window (| = threshold)",
        "tokens",
        "sent",
        w = BAR + 2
    );
    let threshold_at = ((policy.threshold * BAR as f64).round() as usize).min(BAR);
    // A closed stdout is noticed by the next line written outside the loop.
    let mut on_call = |record: &CallRecord| {
        let _ = super::output::write_out(&format!("{}\n", line(record, threshold_at)));
    };
    let result = match (&args.live.endpoint, &args.live.model) {
        (Some(endpoint), Some(model)) => {
            let http = HttpConfig {
                api_key: std::env::var("CTXBENCH_API_KEY").ok().filter(|k| !k.is_empty()),
                timeout: Duration::from_secs(args.live.timeout),
                retries: args.live.retries,
                api: args.live.api,
                stream: args.live.stream,
                // One run of `serve` per process and strategy, even when several runs share one.
                user: Some(
                    args.live
                        .user
                        .clone()
                        .unwrap_or_else(|| format!("ctxbench-{}:{}", std::process::id(), settings.strategy)),
                ),
                ..HttpConfig::new(endpoint.clone(), model.clone())
            };
            let model = HttpModel::new(http, settings.tokenizer.counter());
            run_live(&scenario, &settings, model, &mut on_call)?
        }
        _ => run_scenario(&scenario, &settings, &mut on_call)?,
    };
    if let Some(reason) = &result.stopped {
        errln!("the run stopped: {reason}");
    }
    if let Some(path) = &trace {
        write_atomic(path, &trace_lines(&result.trace)?)?;
        errln!(
            "wrote {} ({})",
            path.display(),
            ctxbench_harness::human::count(result.trace.len(), "call")
        );
    }
    sayln!();
    say!("{}", table(&[ResultRow::new(&scenario.name, settings, result.metrics)]));
    // A call that failed (not a rejection the figures count) measured nothing: not a finding.
    if result.trace.last().is_some_and(|r| r.outcome == Outcome::Error) {
        return Ok(ExitCode::from(super::exit::BAD_INPUT));
    }
    Ok(ExitCode::SUCCESS)
}

/// The file `--trace` names: `given` itself, or `name` inside it when it is a folder (one that
/// exists, or a name ending in a separator). A place no file can be written is refused.
fn trace_path(given: &Path, name: &str) -> anyhow::Result<PathBuf> {
    let folder = given.is_dir() || given.as_os_str().to_string_lossy().ends_with(std::path::is_separator);
    let path = if folder { given.join(name) } else { given.to_path_buf() };
    if path.is_dir() {
        bail!(
            "--trace {}: {} is a folder; give a file name",
            given.display(),
            path.display()
        );
    }
    // The folders it goes in are made when it is written; the nearest that exists must be one.
    if let Some(file) = path.ancestors().skip(1).find(|a| a.exists()).filter(|a| !a.is_dir()) {
        bail!(
            "--trace {}: {} is a file, not a folder",
            given.display(),
            file.display()
        );
    }
    Ok(path)
}

/// One call: the request as a bar of the window, the threshold marked, what compaction did.
fn line(r: &CallRecord, threshold_at: usize) -> String {
    let filled = ((r.true_tokens as f64 / r.window as f64) * BAR as f64).round() as usize;
    let mut bar: Vec<char> = (0..BAR).map(|i| if i < filled.min(BAR) { '█' } else { '·' }).collect();
    if threshold_at < BAR {
        bar[threshold_at] = if threshold_at < filled { '┃' } else { '|' };
    }
    let spill = if filled > BAR { '▶' } else { ' ' };
    let kind = match r.kind {
        CallKind::Agent => "agent",
        CallKind::Refetch => "refetch",
        CallKind::Summary => "summary",
    };
    let mut notes = Vec::new();
    if let Some(c) = &r.compaction {
        let mut done = Vec::new();
        for (n, what) in [(c.truncated, "truncated"), (c.masked, "masked"), (c.dropped, "dropped")] {
            if n > 0 {
                done.push(format!("{n} {what}"));
            }
        }
        if !done.is_empty() {
            notes.push(format!(
                "{} ({}): {} → {}",
                c.stages.join(" + "),
                done.join(", "),
                thousands(c.tokens_before),
                thousands(c.tokens_after)
            ));
        }
        if c.cannot_fit {
            notes.push("cannot fit".into());
        }
    }
    match r.outcome {
        Outcome::Overflow => notes.push("OVERFLOW: rejected".into()),
        Outcome::PairingError => notes.push("PAIRING ERROR: rejected".into()),
        Outcome::Truncated => notes.push("server cut old messages".into()),
        Outcome::Error => notes.push("ERROR: the call failed".into()),
        Outcome::Ok => {}
    }
    if r.retry {
        notes.push("retry".into());
    }
    if !r.lost.is_empty() {
        notes.push(format!("lost: {}", r.lost.join(", ")));
    }
    if !r.refetched.is_empty() {
        notes.push(format!("refetch: {}", r.refetched.join(", ")));
    }
    format!(
        "{:>4} {:>4} {:<8} [{}]{spill} {:>6}/{:<6}  {:>11}  {}",
        r.call,
        r.request,
        kind,
        bar.into_iter().collect::<String>(),
        thousands(r.true_tokens),
        thousands(r.window),
        thousands(r.tokens_sent),
        notes.join(" · ")
    )
    .trim_end()
    .to_owned()
}
