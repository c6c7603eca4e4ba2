//! `ctxbench compact`: compact one real conversation and show what the strategy did.
//!
//! Reads a request body (chat, Anthropic Messages or Responses; or a bare list) from FILE or
//! stdin, writes the compacted body in the same shape and format to stdout, and a report to
//! stderr (`--report json` for machines).

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

use crate::huge_pages::AllowWhenLarge;
use clap::{Args, ValueEnum};
use ctxbench_compact::compact::StageSpec;
use ctxbench_compact::input::buffered;
use ctxbench_compact::tokens::{CounterKind, Estimator, count_ahead};
use ctxbench_compact::{Compaction, Compactor, Conversation, Format, Policy, RequestBody, Strategy, check_pairing};
use ctxbench_harness::human::{percent_change, thousands};
use serde::Serialize;

use super::output::{err, errln};
use super::settings_args::{PolicyArgs, TokenizerArg, named};

/// Compact a real conversation and report what the strategy did.
///
/// Input: a request body in any of three formats, told apart by its fields (or named with
/// --format): OpenAI chat `{"messages": [...], "tools": [...]}`, Anthropic Messages (`system`,
/// `messages` of content blocks) or OpenAI Responses (`instructions`, `input` items); or a bare
/// list of messages or items. The system prompt is never compacted. The compacted conversation
/// goes to stdout in the same shape and format, other fields unchanged; the report to stderr.
#[derive(Debug, Args)]
#[command(
    after_help = super::help::with_stages("Example:\n  ctxbench compact --strategy truncate+drop --window 8000 conversation.json > compacted.json")
)]
pub struct CompactArgs {
    /// The conversation to compact; stdin when absent or `-`.
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,

    /// Strategy: stages joined by `+`, parameters after `:` (e.g. `mask:m=5,trigger=always+drop`);
    /// `ctxbench strategies` lists the stages (summarize and the presets that summarize need a
    /// model: give --summary).
    #[arg(long, default_value = "truncate+drop", value_name = "STRATEGY")]
    strategy: String,

    /// The model's context window, in tokens.
    #[arg(long, value_name = "TOKENS", value_parser = super::values::positive::<u64>)]
    window: u64,

    #[command(flatten)]
    policy: PolicyArgs,

    #[command(flatten)]
    tokenizer: TokenizerArg,

    /// The summary a `summarize` stage puts in place of what it summarizes, as a model would
    /// have written it (`compact` calls no model): to see what a summarizing strategy leaves, or
    /// to hold a package's compaction to the CLI's.
    #[arg(long, value_name = "TEXT")]
    summary: Option<String>,

    /// The body's wire format; told from its fields when absent (`input` is Responses; a
    /// top-level `system` or Anthropic content blocks are Anthropic; anything else chat).
    #[arg(long, value_name = "FORMAT", value_parser = named::<Format>())]
    format: Option<Format>,

    /// The report's format on stderr.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    report: ReportFormat,

    /// Count the true tokens before and after with --tokenizer (free when --estimator is that
    /// same counter; otherwise the tokenizer's tables are loaded and the history counted twice).
    #[arg(long)]
    true_tokens: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ReportFormat {
    /// Aligned lines for people.
    Text,
    /// One JSON object.
    Json,
}

/// The machine-readable report (`docs/compact.md`), one object on stderr.
#[derive(Debug, Serialize)]
struct Report {
    /// The body's wire format (`chat`, `anthropic`, `responses`).
    format: &'static str,
    /// Canonical strategy name.
    strategy: String,
    /// The estimator the compactor decided with.
    estimator: &'static str,
    /// The true counter.
    tokenizer: &'static str,
    /// The true counts are the tokenizer's approximation of another vendor's (Anthropic bodies:
    /// ctxbench has no Anthropic tokenizer).
    true_tokens_approximate: bool,
    /// The estimate a request may reach, in tokens.
    limit: u64,
    /// The context window, in tokens.
    window: u64,
    /// The threshold, a fraction of the window.
    threshold: f64,
    /// Requests never touched at the end of the history.
    keep_recent_turns: usize,
    /// Tokens kept free for the reply.
    reply_reserve: u64,
    /// The request before compaction.
    before: Side,
    /// The request after compaction.
    after: Side,
    /// Tool results replaced by a truncation note.
    truncated: usize,
    /// Messages removed.
    dropped: usize,
    /// Tool results replaced by a placeholder.
    masked: usize,
    /// `after.estimated <= limit`.
    fits: bool,
    /// `after.true <= window`; `null` when the true tokens were not counted.
    fits_window: Option<bool>,
    /// The compacted history keeps the pairing rule.
    pairing_ok: bool,
    /// Calls of the final assistant message without results yet.
    pending_calls: usize,
}

/// One side of the comparison; token figures are whole requests.
#[derive(Debug, Serialize)]
struct Side {
    /// Messages, system prompt included.
    messages: usize,
    /// The estimator's count, in tokens.
    estimated: u64,
    /// The true count, in tokens; `null` when not counted (`--true-tokens`).
    #[serde(rename = "true")]
    true_tokens: Option<u64>,
}

pub fn run(args: CompactArgs) -> anyhow::Result<ExitCode> {
    let strategy: Strategy = args.strategy.parse().context("invalid --strategy")?;
    let summarizes = strategy.stages.iter().any(|s| matches!(s, StageSpec::Summarize { .. }));
    if summarizes && args.summary.is_none() {
        let what = match &strategy.preset {
            Some(preset) => format!("{} summarizes", preset.name()),
            None => "`summarize` needs a model to write the summary".to_owned(),
        };
        anyhow::bail!(
            "--strategy: {what}; `compact` has no model to write a summary: give its text with --summary TEXT (or use \
             `run` or `compare`, or a preset that clears: anthropic-clear, anthropic-clear-thinking, langchain-clear, \
             swe-agent-mask)"
        );
    }
    let p = args.policy.one("compact")?;
    let policy = Policy {
        window: args.window,
        threshold: p.threshold,
        target: p.target,
        keep_recent_turns: p.keep_recent_turns,
        reply_reserve: p.reply_reserve,
    };
    policy.validate().context("invalid policy")?;
    let Estimator::Counter(estimator) = p.estimator else {
        anyhow::bail!(
            "--estimator usage reads the provider's count of an earlier call, which `compact` does not have; \
             use chars4, chars4-py, o200k or cl100k"
        );
    };
    // The true count costs a pass of the tokenizer (and loading its tables): only when asked,
    // or when the estimator is that counter, whose figures it then is.
    let free = estimator == args.tokenizer.tokenizer;
    let counted = args.true_tokens || free;
    // Loading a tokenizer's tables is a large job from the start (huge_pages.rs).
    if counted || matches!(estimator, CounterKind::O200k | CounterKind::Cl100k) {
        crate::huge_pages::allow();
    }
    // One pass over a fresh body: no process-wide cache of texts (it would copy every text).
    let estimator = estimator.single_pass_counter();
    let tokenizer = args.tokenizer.tokenizer.single_pass_counter();
    let source_name = match args.file.as_ref().filter(|f| f.as_os_str() != "-") {
        Some(path) => path.display().to_string(),
        None => "<stdin>".to_owned(),
    };
    let mut body = read_body(args.file.as_ref(), &source_name, args.format)?;
    // Only chat carries arguments as text a client wrote; the other formats hold JSON objects
    // (Anthropic) or free-text inputs of custom tools (Responses).
    if body.format() == Format::Chat {
        warn_unparsed_arguments(&body.conversation, &source_name);
    }

    // Counting is most of the work with an exact counter: on every core, ahead of both passes.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if counted {
        count_ahead(tokenizer.as_ref(), &body.conversation.messages, threads);
    }
    let true_count = |c: &Conversation| counted.then(|| tokenizer.count(c.system.as_ref(), &c.messages, &c.tools));
    let message_count = |c: &Conversation| c.messages.len() + usize::from(c.system.is_some());
    let before = Side {
        messages: message_count(&body.conversation),
        estimated: 0,
        true_tokens: true_count(&body.conversation),
    };
    let mut compactor = Compactor::new(strategy, policy.clone(), estimator).with_count_threads(threads);
    let done = match &args.summary {
        Some(text) => compactor.compact_with(&mut body.conversation, &mut Given(text)),
        None => compactor.compact(&mut body.conversation),
    };
    let before = Side {
        estimated: done.tokens_before,
        ..before
    };
    let after = Side {
        messages: message_count(&body.conversation),
        estimated: done.tokens_after,
        true_tokens: true_count(&body.conversation),
    };
    let pairing = check_pairing(&body.conversation.messages);
    let report = Report {
        format: body.format().as_str(),
        true_tokens_approximate: body.format().counts_approximate(),
        strategy: compactor.strategy().to_string(),
        estimator: compactor.estimator_name(),
        tokenizer: tokenizer.name(),
        limit: done.limit,
        window: policy.window,
        threshold: policy.threshold,
        keep_recent_turns: policy.keep_recent_turns,
        reply_reserve: policy.reply_reserve,
        fits: after.estimated <= done.limit,
        fits_window: after.true_tokens.map(|t| t <= policy.window),
        before,
        after,
        truncated: done.counts.truncated,
        dropped: done.counts.dropped,
        masked: done.counts.masked,
        pairing_ok: pairing.is_ok(),
        pending_calls: pairing.map_or(0, |p| p.pending_calls),
    };

    // Straight to stdout: no copy of a large body is built on the way.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = body
        .write_pretty(&mut out)
        .map_err(std::io::Error::from)
        .and_then(|()| {
            out.write_all(b"\n")?;
            out.flush()
        });
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Err(super::output::ClosedPipe.into()),
        other => other.context("cannot write the conversation to stdout")?,
    }
    match args.report {
        ReportFormat::Json => errln!("{}", serde_json::to_string(&report).context("writing the report")?),
        ReportFormat::Text => err!("{}", text_report(&report, &done)),
    }
    Ok(ExitCode::SUCCESS)
}

/// Parses the body as it is read: the text is never held whole, so the peak is about the
/// parsed history's size.
fn read_body(file: Option<&PathBuf>, source_name: &str, format: Option<Format>) -> anyhow::Result<RequestBody> {
    match file.filter(|f| f.as_os_str() != "-") {
        Some(path) => {
            ctxbench_compact::input::check_file(path)?;
            let opened = std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
            let reader =
                buffered(AllowWhenLarge::new(opened)).with_context(|| format!("cannot read {}", path.display()))?;
            Ok(RequestBody::parse_reader_as(reader, source_name, format)?)
        }
        None => {
            let reader =
                buffered(AllowWhenLarge::new(std::io::stdin().lock())).context("cannot read standard input")?;
            Ok(RequestBody::parse_reader_as(reader, source_name, format)?)
        }
    }
}

fn text_report(r: &Report, done: &Compaction) -> String {
    let yes = |b: bool| if b { "yes" } else { "no" };
    let est = format!("estimated ({})", r.estimator);
    let tru = if r.true_tokens_approximate {
        format!("true (≈ {})", r.tokenizer)
    } else {
        format!("true ({})", r.tokenizer)
    };
    let w = est.len().max(12);
    let count = |t: Option<u64>| t.map_or_else(|| "—".to_owned(), thousands);
    let row = |label: &str, s: &Side| {
        format!(
            "{label:<10}{:>9}  {:>w$}  {:>12}\n",
            s.messages,
            thousands(s.estimated),
            count(s.true_tokens)
        )
    };
    let mut out = String::new();
    out.push_str(&format!("strategy  {}\n", r.strategy));
    if r.format != "chat" {
        out.push_str(&format!("format    {}\n", r.format));
    }
    out.push_str(&format!(
        "policy    window {} · threshold {} · keep {} · reply reserve {} → limit {}\n",
        thousands(r.window),
        r.threshold,
        r.keep_recent_turns,
        thousands(r.reply_reserve),
        thousands(r.limit)
    ));
    out.push_str(&format!("{:<10}{:>9}  {est:>w$}  {tru:>12}\n", "", "messages"));
    out.push_str(&row("before", &r.before));
    out.push_str(&row("after", &r.after));
    let change = match (r.before.true_tokens, r.after.true_tokens) {
        (Some(before), Some(after)) => format!("true tokens {}", percent_change(before, after)),
        _ => format!("estimate {}", percent_change(r.before.estimated, r.after.estimated)),
    };
    out.push_str(&format!(
        "changed   {} truncated · {} masked · {} dropped · {change}\n",
        r.truncated, r.masked, r.dropped,
    ));
    let cmp = |fits: bool| if fits { "≤" } else { ">" };
    let window = match (r.fits_window, r.after.true_tokens) {
        (Some(fits), Some(after)) => format!(
            "within the window: {} (true {} {} {})",
            yes(fits),
            thousands(after),
            cmp(fits),
            thousands(r.window)
        ),
        _ => format!(
            "true tokens not counted (--true-tokens counts them with {})",
            r.tokenizer
        ),
    };
    out.push_str(&format!(
        "fits      {}: estimate {} {} limit {}; {window}\n",
        yes(r.fits),
        thousands(r.after.estimated),
        cmp(r.fits),
        thousands(r.limit),
    ));
    if done.cannot_fit {
        out.push_str("          the strategy did all it could and is still over the limit\n");
    }
    out.push_str(&format!(
        "pairing   {} · {} pending calls\n",
        if r.pairing_ok { "ok" } else { "BROKEN" },
        r.pending_calls
    ));
    out
}

/// Tool-call arguments that are not JSON: providers reject such a request, so say so; the
/// compactor keeps them as they are.
fn warn_unparsed_arguments(conversation: &Conversation, source_name: &str) {
    let offset = usize::from(conversation.system.is_some());
    for (k, message) in conversation.messages.iter().enumerate() {
        for call in message.calls() {
            if serde_json::from_str::<serde_json::Value>(call.arguments).is_err() {
                errln!(
                    "warning: {source_name}: messages[{}]: the arguments of tool call {:?} ({}) are not JSON; \
                     a provider would reject this request (they are kept and counted as they are)",
                    k + offset,
                    call.id,
                    call.name
                );
            }
        }
    }
}

/// The summarizer of `--summary`: every summary is the text given.
struct Given<'a>(&'a str);

impl ctxbench_compact::Summarizer for Given<'_> {
    fn summarize(&mut self, _: &ctxbench_compact::compact::SummaryRequest) -> Option<String> {
        Some(self.0.to_owned())
    }
}
