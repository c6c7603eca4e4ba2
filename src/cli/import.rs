//! `ctxbench import`: logged conversations in, scenario files out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Args;
use ctxbench_compact::Error;
use ctxbench_compact::compact::Strategy;
use ctxbench_compact::tokens::Bpe;
use ctxbench_compact::wire::Format;
use ctxbench_harness::billing::cache_mode::CacheMode;
use ctxbench_harness::human::{count, thousands};
use ctxbench_harness::import::{
    CacheFidelity, ImportOptions, Imported, LoggedConversation, SessionLog, conversations as call_log, import,
    import_logged, is_call_log, rate, read_session, session_log,
};
use ctxbench_harness::settings::RunSettings;

use super::files::write_atomic;
use super::output::{errln, say, sayln};
use super::progress::Progress;
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
    /// Logged conversations (`.json`, or `.jsonl` with one per line), or folders of them (every
    /// `.json` and `.jsonl` file under each, imported one at a time).
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
    // A conversation is read, imported, written and said before the next is read: what is kept
    // from one to the next is its name, its tools' names and its cache figures, so a folder of
    // thousands of logs imports in the memory of its largest.
    let files = conversation_files(&args.files)?;
    let bar = Progress::new(files.len(), "files", files.len() > 1);
    // Written to a folder beside the output, moved into it once every conversation is in:
    // nothing is written when one input is bad.
    let staging = Staging::new(&args.out)?;
    let mut tally = Tally::default();
    for file in &files {
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
            bar.suspend(|| write_one(&args, &staging.dir, &source, &done, &mut tally))?;
            // Counts of this conversation's texts are of no use to the next: a process-wide
            // cache of them would grow with the fleet.
            Bpe::o200k().clear_cache();
            Bpe::cl100k().clear_cache();
        }
        bar.inc();
    }
    bar.clear();
    staging.finish(&args.out)?;
    for pattern in &args.refetchable {
        if !tally.tools.iter().any(|t| ctxbench_harness::import::glob(pattern, t)) {
            let names: Vec<&str> = tally.tools.iter().map(String::as_str).collect();
            errln!(
                "warning: --refetchable {pattern} matches no tool of what was imported (its tools: {})",
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            );
        }
    }
    if let Some(cache) = tally.cache.as_ref().filter(|_| tally.caches > 1) {
        let line = cache_line(
            &format!("cache hit rate over {} conversations", tally.caches),
            tally.logged,
            tally.simulated,
            cache,
            tally.approximate,
        );
        sayln!("{line}");
    }
    if tally.unfaithful > 0 {
        errln!(
            "warning: {} do not replay their log exactly; their figures are approximate",
            count(tally.unfaithful, "scenario")
        );
    }
    if files.len() > 1 {
        errln!(
            "imported {} from {}",
            count(tally.names.len(), "conversation"),
            count(files.len(), "file")
        );
    }
    sayln!("next: ctxbench compare {} --window 8000", args.out.display());
    Ok(ExitCode::SUCCESS)
}

/// The folder an import writes to until every conversation is in (`OUT.partial` beside `OUT`),
/// removed when the import fails.
struct Staging {
    dir: PathBuf,
    done: bool,
}

impl Staging {
    fn new(out: &Path) -> anyhow::Result<Staging> {
        let mut name = out.file_name().map_or_else(|| "imported".into(), |n| n.to_os_string());
        name.push(".partial");
        let dir = out.with_file_name(name);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).with_context(|| format!("cannot remove {}", dir.display()))?;
        }
        Ok(Staging { dir, done: false })
    }

    /// Moves every scenario written into `out`.
    fn finish(mut self, out: &Path) -> anyhow::Result<()> {
        self.done = true;
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Ok(());
        };
        std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
        for entry in entries {
            let from = entry
                .with_context(|| format!("cannot list {}", self.dir.display()))?
                .path();
            let to = out.join(from.file_name().unwrap_or_default());
            std::fs::rename(&from, &to)
                .with_context(|| format!("cannot move {} to {}", from.display(), to.display()))?;
        }
        std::fs::remove_dir(&self.dir).with_context(|| format!("cannot remove {}", self.dir.display()))
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// What an import keeps from one conversation to the next.
#[derive(Default)]
struct Tally {
    /// Each scenario written, and where from (two of one name would overwrite each other).
    names: BTreeMap<String, String>,
    /// The tools of what was imported (for `--refetchable`'s check).
    tools: BTreeSet<String>,
    /// Scenarios that do not replay their log exactly.
    unfaithful: usize,
    /// Conversations with logged cache figures, their sums, and the cache they were set beside.
    caches: usize,
    logged: (u64, u64),
    simulated: (u64, u64),
    cache: Option<CacheMode>,
    approximate: bool,
}

/// Writes one imported conversation's scenario and says what it is.
fn write_one(args: &ImportArgs, dir: &Path, source: &str, done: &Imported, tally: &mut Tally) -> anyhow::Result<()> {
    if let Some(other) = tally.names.insert(done.name.clone(), source.to_owned()) {
        bail!(
            "{other} and {source} would both be written as {}.json; rename one of them",
            done.name
        );
    }
    let mut text = serde_json::to_string_pretty(&done.scenario)?;
    text.push('\n');
    write_atomic(&dir.join(format!("{}.json", done.name)), text.as_bytes())?;
    let path = args.out.join(format!("{}.json", done.name));
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
        errln!("note: {}: {note}", done.name);
    }
    if let Err(difference) = &done.fidelity {
        tally.unfaithful += 1;
        errln!("warning: {}: the replay differs from the log: {difference}", done.name);
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
        tally.caches += 1;
        tally.logged = (tally.logged.0 + cache.logged.0, tally.logged.1 + cache.logged.1);
        tally.simulated = (
            tally.simulated.0 + cache.simulated.0,
            tally.simulated.1 + cache.simulated.1,
        );
        tally.cache.get_or_insert_with(|| cache.cache.clone());
        tally.approximate |= done.format.counts_approximate();
    }
    if args.explain {
        say!("{}", done.explain());
    }
    if let Some(tools) = done.scenario.get("tools").and_then(serde_json::Value::as_object) {
        tally.tools.extend(tools.keys().cloned());
    }
    Ok(())
}

/// The files named, a folder standing for every `.json` and `.jsonl` file under it (sorted).
fn conversation_files(named: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in named {
        if path.is_dir() {
            let before = files.len();
            walk(path, &mut files)?;
            if files.len() == before {
                bail!(
                    "{}: no conversation files (*.json, *.jsonl) in this folder",
                    path.display()
                );
            }
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .with_context(|| format!("cannot list {}", dir.display()))?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk(&path, files)?;
        } else if path.extension().is_some_and(|e| e == "json" || e == "jsonl") {
            files.push(path);
        }
    }
    Ok(())
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
