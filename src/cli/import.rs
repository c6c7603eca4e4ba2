//! `ctxbench import`: logged conversations in, scenario files out.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::bail;
use clap::Args;
use ctxbench_compact::Error;
use ctxbench_compact::compact::Strategy;
use ctxbench_compact::wire::Format;
use ctxbench_harness::billing::cache_mode::CacheMode;
use ctxbench_harness::human::{count, thousands};
use ctxbench_harness::import::{
    CacheFidelity, ImportOptions, Imported, LoggedConversation, SessionLog, conversations as call_log, import,
    import_logged, is_call_log, rate, read_session, session_log,
};
use ctxbench_harness::settings::RunSettings;

use super::files::write_atomic;
use super::output::{say, sayln};
use super::settings_args::{BillArgs, named};

/// Turn logged conversations into scenarios, their facts found automatically.
///
/// Each CONVERSATION is a request body or a bare array of messages, in OpenAI chat, Anthropic
/// Messages or OpenAI Responses (detected by its fields); a `.jsonl` file holds one conversation
/// per line, or is a call log as proxies write it (`{"request": ..., "response": ...}` per model
/// call, grouped into conversations by their first user message), a Claude Code session
/// (~/.claude/projects/…/SESSION.jsonl) or a Codex rollout (~/.codex/sessions/…/rollout-….jsonl).
/// The logged usage of a call log's or a session's calls is kept and put beside the simulated
/// cache (set the provider with --price). User
/// messages become requests, assistant messages steps, tool results fixtures. A fact is a value
/// (an id, a code, a number of 4+ digits, a date, a path) that first appears in a user message or
/// a tool result and that a later step uses. Every scenario is replayed with `none` before it is
/// written, to check that each model call receives exactly the logged messages (and, for an
/// Anthropic or Responses log, that they write back as the logged body up to that call).
#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  ctxbench import logs/*.json -o imported --refetchable 'get_*,search_*' --explain\n  \
                  ctxbench compare imported --window 8000"
)]
pub struct ImportArgs {
    /// Logged conversations (`.json`, or `.jsonl` with one per line).
    #[arg(value_name = "CONVERSATION", required = true)]
    files: Vec<PathBuf>,

    /// The folder the scenarios are written to, one `NAME.json` each (NAME from the file's name).
    #[arg(short, long, value_name = "DIR", default_value = "imported")]
    out: PathBuf,

    /// Tools safe to call again, as comma-separated globs (`get_*,search_*`): a fact lost from one
    /// of their results is fetched again instead of lost. None by default: a write is not safe to
    /// repeat.
    #[arg(long, value_name = "PATTERN", value_delimiter = ',', value_parser = tool_glob)]
    refetchable: Vec<String>,

    /// Print each fact found, where it first appeared and which steps need it.
    #[arg(long)]
    explain: bool,

    /// The wire format of the request bodies; told from their fields when absent (`input` is
    /// Responses; a top-level `system` or Anthropic content blocks are Anthropic; anything else
    /// chat). A call log is chat and a session log its agent's format: --format must agree.
    #[arg(long, value_name = "FORMAT", value_parser = named::<Format>())]
    format: Option<Format>,

    #[command(flatten)]
    bill: BillArgs,
}

pub fn run(args: ImportArgs) -> anyhow::Result<ExitCode> {
    let format = args.format;
    let options = ImportOptions {
        refetchable: args.refetchable.clone(),
        replay: args.bill.apply(RunSettings::new(Strategy::none())),
        format,
    };
    let mut imported: Vec<(String, Imported)> = Vec::new();
    for file in &args.files {
        for c in conversations(file)? {
            let source = c.source();
            if let (Some(logged), Some(named)) = (&c.logged, format) {
                if logged.format != named {
                    let what = c
                        .session
                        .map_or("a call log".to_owned(), |log| format!("a {}", log.name()));
                    bail!(
                        "{source} is {what}, whose bodies are {}, not {}; leave --format out for it",
                        logged.format.title(),
                        named.title()
                    );
                }
            }
            let done = match &c.logged {
                Some(logged) => import_logged(logged, &source, &c.name, &options),
                None => import(&c.text, &source, &c.name, &options),
            };
            let mut done = done.map_err(|e| c.place(e))?;
            done.notes.splice(0..0, c.notes);
            imported.push((source, done));
        }
    }
    let mut names: BTreeMap<&str, &str> = BTreeMap::new();
    for (source, done) in &imported {
        if let Some(other) = names.insert(&done.name, source) {
            bail!(
                "{other} and {source} would both be written as {}.json; rename one of them",
                done.name
            );
        }
    }
    let mut unfaithful = 0;
    for (source, done) in &imported {
        let path = args.out.join(format!("{}.json", done.name));
        let mut text = serde_json::to_string_pretty(&done.scenario)?;
        text.push('\n');
        write_atomic(&path, text.as_bytes())?;
        let c = done.counts;
        let replay = match &done.fidelity {
            Ok(calls) if done.format == Format::Chat => format!("replays byte for byte ({})", count(*calls, "call")),
            Ok(calls) => format!(
                "replays byte for byte ({}, as {})",
                count(*calls, "call"),
                done.format.title()
            ),
            Err(_) => "does NOT replay byte for byte".to_owned(),
        };
        sayln!(
            "{source} -> {}: {}, {}, {}, {}; {replay}",
            path.display(),
            count(c.requests, "request"),
            count(c.steps, "model turn"),
            count(c.tool_calls, "tool call"),
            count(done.facts.len(), "fact")
        );
        for note in &done.notes {
            eprintln!("note: {}: {note}", done.name);
        }
        if let Err(difference) = &done.fidelity {
            unfaithful += 1;
            eprintln!("warning: {}: the replay differs from the log: {difference}", done.name);
        }
        if let Some(cache) = &done.cache {
            sayln!(
                "  {}",
                cache_line(
                    "cache hit rate",
                    cache.logged,
                    cache.simulated,
                    &cache.cache,
                    done.format.counts_approximate()
                )
            );
            if args.explain {
                say!("{}", cache_calls(cache));
            }
        }
        if args.explain {
            say!("{}", done.explain());
        }
    }
    let tools: std::collections::BTreeSet<&str> = imported
        .iter()
        .filter_map(|(_, d)| d.scenario.get("tools").and_then(serde_json::Value::as_object))
        .flat_map(|tools| tools.keys().map(String::as_str))
        .collect();
    for pattern in &args.refetchable {
        if !tools.iter().any(|t| ctxbench_harness::import::glob(pattern, t)) {
            let names: Vec<&str> = tools.iter().copied().collect();
            eprintln!(
                "warning: --refetchable {pattern} matches no tool of what was imported (its tools: {})",
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            );
        }
    }
    let caches: Vec<&CacheFidelity> = imported.iter().filter_map(|(_, d)| d.cache.as_ref()).collect();
    let approximate = imported
        .iter()
        .any(|(_, d)| d.cache.is_some() && d.format.counts_approximate());
    if caches.len() > 1 {
        let total = |f: fn(&CacheFidelity) -> (u64, u64)| {
            caches.iter().map(|c| f(c)).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
        };
        let line = cache_line(
            &format!("cache hit rate over {} conversations", caches.len()),
            total(|c| c.logged),
            total(|c| c.simulated),
            &caches[0].cache,
            approximate,
        );
        sayln!("{line}");
    }
    if unfaithful > 0 {
        eprintln!(
            "warning: {} do not replay their log exactly; their figures are approximate",
            count(unfaithful, "scenario")
        );
    }
    sayln!("next: ctxbench compare {} --window 8000", args.out.display());
    Ok(ExitCode::SUCCESS)
}

/// `logged 93.1% (41,216 of 44,288 prompt tokens) · simulated 95.0% (… , cache …)`; the
/// replay's counts of an Anthropic log are o200k's approximation, and say so.
fn cache_line(what: &str, logged: (u64, u64), simulated: (u64, u64), cache: &CacheMode, approximate: bool) -> String {
    let part = |(prompt, read): (u64, u64)| {
        format!(
            "{:.1}% ({} of {} prompt tokens)",
            rate((prompt, read)) * 100.0,
            thousands(read),
            thousands(prompt)
        )
    };
    let counted = if approximate {
        "o200k (≈ Anthropic's tokenizer)"
    } else {
        "o200k"
    };
    format!(
        "{what}: logged {} · simulated {} with cache {cache}, counted with {counted}",
        part(logged),
        part(simulated)
    )
}

/// Each call: the logged prompt and cached tokens beside the replayed ones.
fn cache_calls(cache: &CacheFidelity) -> String {
    let mut out = String::from("    call  logged prompt  logged cached  replayed prompt  simulated read\n");
    for (k, (logged, prompt, read)) in cache.calls.iter().enumerate() {
        out.push_str(&format!(
            "    {:>4}  {:>13}  {:>13}  {:>15}  {:>14}\n",
            k + 1,
            thousands(logged.prompt_tokens.unwrap_or(0)),
            thousands(logged.cache_read_tokens),
            thousands(*prompt),
            thousands(*read)
        ));
    }
    out
}

/// One conversation of a file.
struct Conversation {
    /// The file, as errors name it.
    file: String,
    /// Its line, in a `.jsonl` file.
    line: Option<usize>,
    /// The scenario's name.
    name: String,
    text: String,
    /// The conversation of a call log or an agent's session log, with its calls' usage.
    logged: Option<LoggedConversation>,
    /// Whose session log it is, when it is one.
    session: Option<SessionLog>,
    /// What reading an agent's session log took along the way.
    notes: Vec<String>,
}

impl Conversation {
    fn source(&self) -> String {
        match self.line {
            Some(n) => format!("{} line {n}", self.file),
            None => self.file.clone(),
        }
    }

    /// A JSON error inside a `.jsonl` line, placed at that line of the file.
    fn place(&self, e: Error) -> Error {
        match (e, self.line) {
            (Error::Json { column, msg, .. }, Some(line)) => Error::Json {
                source_name: self.file.clone(),
                line,
                column,
                msg,
            },
            (e, _) => e,
        }
    }
}

/// The conversations of a file.
fn conversations(file: &Path) -> anyhow::Result<Vec<Conversation>> {
    let text = ctxbench_compact::input::read_text(file)?;
    let stem = file
        .file_stem()
        .map_or_else(|| "conversation".into(), |s| s.to_string_lossy().into_owned());
    let source = file.display().to_string();
    if file.extension().is_none_or(|e| e != "jsonl") {
        return Ok(vec![Conversation {
            file: source,
            line: None,
            name: stem,
            text,
            logged: None,
            session: None,
            notes: Vec::new(),
        }]);
    }
    if let Some(log) = session_log(&text) {
        let (logged, mut notes) = read_session(&text, &source, log)?;
        notes.insert(0, format!("read as a {}", log.name()));
        return Ok(vec![Conversation {
            file: source,
            line: None,
            name: stem,
            text: String::new(),
            logged: Some(logged),
            session: Some(log),
            notes,
        }]);
    }
    if is_call_log(&text) {
        return Ok(call_log(&text, &source)?
            .into_iter()
            .enumerate()
            .map(|(k, logged)| Conversation {
                file: source.clone(),
                line: logged.lines.first().copied(),
                name: format!("{stem}-{}", k + 1),
                text: String::new(),
                logged: Some(logged),
                session: None,
                notes: Vec::new(),
            })
            .collect());
    }
    Ok(text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(n, line)| Conversation {
            file: source.clone(),
            line: Some(n + 1),
            name: format!("{stem}-{}", n + 1),
            text: line.to_owned(),
            logged: None,
            session: None,
            notes: Vec::new(),
        })
        .collect())
}

/// A `--refetchable` pattern: a tool's name with `*` (any run of characters) and `?` (one).
fn tool_glob(pattern: &str) -> Result<String, String> {
    let pattern = pattern.trim();
    if pattern.is_empty() {
        return Err("an empty pattern; give tool names or globs like get_*,search_*".into());
    }
    match pattern
        .chars()
        .find(|c| !(c.is_alphanumeric() || "_-.:/*?".contains(*c)))
    {
        Some(c) => Err(format!(
            "`{pattern}` is not a tool name or a glob: `{c}` has no meaning here; use * for any run of \
             characters and ? for one (like get_*)"
        )),
        None => Ok(pattern.to_owned()),
    }
}
