//! `ctxbench import`: logged conversations in, scenario files out.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Args;
use ctxbench_compact::Error;
use ctxbench_harness::import::{ImportOptions, Imported, import};

use super::files::write_atomic;

/// Turn logged conversations into scenarios, their facts found automatically.
///
/// Each CONVERSATION is a chat request body `{"messages": [...], "tools": [...]}` or a bare array
/// of messages, in OpenAI's chat format; a `.jsonl` file holds one conversation per line. User
/// messages become requests, assistant messages steps, tool results fixtures. A fact is a value
/// (an id, a code, a number of 4+ digits, a date, a path) that first appears in a user message or
/// a tool result and that a later step uses. Every scenario is replayed with `none` before it is
/// written, to check that each model call receives exactly the logged messages.
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
    #[arg(long, value_name = "PATTERN", value_delimiter = ',')]
    refetchable: Vec<String>,

    /// Print each fact found, where it first appeared and which steps need it.
    #[arg(long)]
    explain: bool,
}

pub fn run(args: ImportArgs) -> anyhow::Result<ExitCode> {
    let options = ImportOptions {
        refetchable: args.refetchable.clone(),
    };
    let mut imported: Vec<(String, Imported)> = Vec::new();
    for file in &args.files {
        for c in conversations(file)? {
            let source = c.source();
            let done = import(&c.text, &source, &c.name, &options).map_err(|e| c.place(e))?;
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
            Ok(calls) => format!("replays byte for byte ({calls} calls)"),
            Err(_) => "does NOT replay byte for byte".to_owned(),
        };
        println!(
            "{source} -> {}: {} requests, {} model turns, {} tool calls, {} facts; {replay}",
            path.display(),
            c.requests,
            c.steps,
            c.tool_calls,
            done.facts.len()
        );
        for note in &done.notes {
            eprintln!("note: {}: {note}", done.name);
        }
        if let Err(difference) = &done.fidelity {
            unfaithful += 1;
            eprintln!("warning: {}: the replay differs from the log: {difference}", done.name);
        }
        if args.explain {
            print!("{}", done.explain());
        }
    }
    if unfaithful > 0 {
        eprintln!("warning: {unfaithful} scenarios do not replay their log exactly; their figures are approximate");
    }
    println!("next: ctxbench compare {} --window 8000", args.out.display());
    Ok(ExitCode::SUCCESS)
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
    let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
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
        }]);
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
        })
        .collect())
}
