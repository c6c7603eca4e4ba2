//! `ctxbench import`: a logged conversation (a request body of any wire format, a call log, an
//! agent's session log) turned into a scenario.
//!
//! User messages become requests; each assistant message a step (its calls, or its reply); each
//! tool result a fixture keyed by the call's name and arguments; tool schemas come from the log's
//! `tools`, else are inferred from the calls. Facts are found automatically ([`facts`]); the
//! files the agent wrote to become `artifact` facts that the last step needs. Every
//! import is replayed with `none` and a window that never binds, and checked to send, at each
//! model call, exactly the messages the log had at that point ([`Imported::fidelity`]). A call
//! log ([`call_log`]) also gives what the provider billed for each call: kept in the scenario
//! and put beside the replay's simulated cache ([`Imported::cache`]).

pub mod call_log;
pub mod facts;
mod fidelity;
mod scenario_file;
pub mod sessions;
mod shell_writes;
mod walk;
mod writes;

use std::collections::BTreeMap;

pub use call_log::{LoggedConversation, conversations, is_call_log};
use ctxbench_compact::Error;
use ctxbench_compact::compact::Strategy;
use ctxbench_compact::request_body::RequestBody;
use ctxbench_compact::wire::Format;
pub use facts::FoundFact;
pub use fidelity::FidelityError;
pub use scenario_file::glob;
use scenario_file::{Origin, scenario_file};
use serde_json::Value;
pub use sessions::{SessionLog, read_session, session_log};
use walk::Walked;

use crate::billing::cache_mode::CacheMode;
use crate::settings::RunSettings;
use crate::trace::{CallKind, CallRecord};
use crate::usage::LoggedUsage;

/// What the person importing chooses.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// Glob patterns (`*`, `?`) of the tools safe to call again; none by default, since a
    /// write action is not safe to repeat.
    pub refetchable: Vec<String>,
    /// What the faithfulness replay runs with besides `none` and an unbounded window: the price,
    /// cache, clock and tokenizer the simulated cache is measured with.
    pub replay: RunSettings,
    /// The wire format of request bodies, when their fields are not to tell it (`--format`); a
    /// call log or a session log has its own.
    pub format: Option<Format>,
}

impl Default for ImportOptions {
    fn default() -> ImportOptions {
        ImportOptions {
            refetchable: Vec::new(),
            replay: RunSettings::new(Strategy::none()),
            format: None,
        }
    }
}

/// The provider's cache as a call log had it, beside the replay's simulated one.
#[derive(Clone, Debug, PartialEq)]
pub struct CacheFidelity {
    /// The simulated cache.
    pub cache: CacheMode,
    /// Σ logged prompt tokens and Σ logged cached tokens.
    pub logged: (u64, u64),
    /// Σ replayed prompt tokens (the true counter's) and Σ simulated cache reads.
    pub simulated: (u64, u64),
    /// Per call: the logged usage, and the replay's prompt tokens and cache read.
    pub calls: Vec<(LoggedUsage, u64, u64)>,
}

impl CacheFidelity {
    /// The logged cache hit rate: cached / prompt tokens.
    pub fn logged_rate(&self) -> f64 {
        rate(self.logged)
    }

    /// The simulated cache hit rate: reads / prompt tokens of the replay.
    pub fn simulated_rate(&self) -> f64 {
        rate(self.simulated)
    }
}

/// `read / prompt`, 0 when nothing was sent.
pub fn rate((prompt, read): (u64, u64)) -> f64 {
    if prompt == 0 { 0.0 } else { read as f64 / prompt as f64 }
}

/// A conversation imported as a scenario.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The scenario's name.
    pub name: String,
    /// The scenario file.
    pub scenario: Value,
    /// The facts found, in order of first appearance.
    pub facts: Vec<FoundFact>,
    /// Where each message of the log went, by index: `request 2`, `request 2, step 3`, ….
    places: BTreeMap<usize, String>,
    /// Quirks of the log and how they were taken.
    pub notes: Vec<String>,
    /// Requests, model turns (steps) and tool calls.
    pub counts: Counts,
    /// `Ok(calls)` when replaying the scenario with `none` sends the logged messages at each of
    /// its model calls, byte for byte (and, for a log of another wire format, those messages
    /// written in it are the logged body up to that call, byte for byte); else where it first
    /// differs.
    pub fidelity: Result<usize, FidelityError>,
    /// The log's wire format.
    pub format: Format,
    /// For a call log that replays faithfully: its logged cache beside the simulated one.
    pub cache: Option<CacheFidelity>,
}

/// The size of an imported conversation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Requests (user messages).
    pub requests: usize,
    /// Model turns: one per assistant message replayed as a step.
    pub steps: usize,
    /// Tool calls.
    pub tool_calls: usize,
}

/// Imports one logged conversation: a chat request body or a bare message array. `source_name`
/// names it in errors; `name` becomes the scenario's name.
pub fn import(text: &str, source_name: &str, name: &str, options: &ImportOptions) -> Result<Imported, Error> {
    import_with(text, source_name, name, options, None)
}

/// Imports one conversation of a call log: its request body, with each call's logged usage
/// kept in the scenario's steps (`logged_usage`) and put beside the replay's simulated cache.
pub fn import_logged(
    conversation: &LoggedConversation,
    source_name: &str,
    name: &str,
    options: &ImportOptions,
) -> Result<Imported, Error> {
    import_with(&conversation.body, source_name, name, options, Some(conversation))
}

fn import_with(
    text: &str,
    source_name: &str,
    name: &str,
    options: &ImportOptions,
    logged: Option<&LoggedConversation>,
) -> Result<Imported, Error> {
    let body = RequestBody::parse_as(text, source_name, logged.map_or(options.format, |l| Some(l.format)))?;
    let tools = body.conversation.tools.clone();
    let messages = body.conversation.clone().into_messages();
    let mut walked = walk::walk(&messages, source_name)?;
    if walked.answered_requests() == 0 {
        return Err(Error::Input {
            source_name: source_name.to_owned(),
            at: "messages".into(),
            msg: format!(
                "nothing to import: {} but no user request the model answered; a scenario needs at least one",
                crate::human::count(messages.len(), "message")
            ),
        });
    }
    let last = walked.last_step();
    let facts = std::mem::take(&mut walked.writes).into_facts(std::mem::take(&mut walked.finder).finish(), last);
    let mut notes = std::mem::take(&mut walked.notes);
    let origin = Origin {
        source_name,
        name,
        refetchable: &options.refetchable,
        format: body.format(),
    };
    let usage = logged.map(|l| logged_usage(l, &walked, &mut notes));
    let scenario = scenario_file(&origin, &walked, &facts, &tools, usage.as_deref(), &mut notes)?;
    let places = places(&walked);
    let counts = Counts {
        requests: walked.answered_requests(),
        steps: walked.calls_at.len(),
        tool_calls: walked
            .requests
            .iter()
            .flat_map(|r| &r.steps)
            .map(|s| s.calls.len())
            .sum(),
    };
    let replay = fidelity::check(&scenario, source_name, &messages, &walked.calls_at, &options.replay)
        .and_then(|trace| fidelity::own_format(&body, text, &messages, &walked.calls_at).map(|()| trace));
    let cache = match (&replay, &usage) {
        (Ok(trace), Some(usage)) => Some(cache_fidelity(&options.replay.cache, trace, usage)),
        _ => None,
    };
    Ok(Imported {
        name: name.to_owned(),
        facts,
        scenario,
        places,
        notes,
        counts,
        fidelity: replay.map(|trace| trace.iter().filter(|r| r.kind == CallKind::Agent).count()),
        format: body.format(),
        cache,
    })
}

/// Each model call's logged usage, where its line's request holds the messages that call had:
/// `None` for a call the log does not line up with (noted).
fn logged_usage(logged: &LoggedConversation, w: &Walked, notes: &mut Vec<String>) -> Vec<Option<LoggedUsage>> {
    (0..w.calls_at.len())
        .map(|k| match (logged.sent.get(k), logged.usage.get(k)) {
            (Some(&sent), Some(usage)) if sent == w.calls_at[k] && usage.prompt_tokens.is_some() => Some(*usage),
            (Some(&sent), Some(_)) if sent == w.calls_at[k] => {
                let line = logged.lines.get(k).map_or("no line".to_owned(), |l| format!("line {l}"));
                notes.push(format!("model call {} ({line}): no usage was logged for it", k + 1));
                None
            }
            _ => {
                let line = logged.lines.get(k).map_or("no line".to_owned(), |l| format!("line {l}"));
                notes.push(format!(
                    "model call {} ({line}): its logged request does not hold the messages before its reply; its usage is not kept",
                    k + 1
                ));
                None
            }
        })
        .collect()
}

/// The logged cache beside the replay's, over the calls whose usage was kept.
fn cache_fidelity(cache: &CacheMode, trace: &[CallRecord], usage: &[Option<LoggedUsage>]) -> CacheFidelity {
    let agent = trace.iter().filter(|r| r.kind == CallKind::Agent);
    let calls: Vec<(LoggedUsage, u64, u64)> = agent
        .zip(usage)
        .filter_map(|(r, u)| u.map(|u| (u, r.true_tokens, r.cache_read_tokens)))
        .collect();
    let sum = |f: &dyn Fn(&(LoggedUsage, u64, u64)) -> u64| calls.iter().map(f).sum::<u64>();
    CacheFidelity {
        cache: cache.clone(),
        logged: (
            sum(&|c| c.0.prompt_tokens.unwrap_or(0)),
            sum(&|c| c.0.cache_read_tokens),
        ),
        simulated: (sum(&|c| c.1), sum(&|c| c.2)),
        calls,
    }
}

impl Imported {
    /// Each fact found, where it came from and where it is needed: one line each, aligned.
    pub fn explain(&self) -> String {
        let mut rows = vec![[
            "fact".to_owned(),
            "kind".to_owned(),
            "first seen".to_owned(),
            "needed by (request.step)".to_owned(),
        ]];
        for fact in &self.facts {
            let needed: Vec<String> = fact
                .needed_by
                .iter()
                .map(|(r, s)| format!("{}.{}", r + 1, s + 1))
                .collect();
            rows.push([
                fact.value.clone(),
                fact.kind.as_str().to_owned(),
                self.places.get(&fact.source).cloned().unwrap_or_default(),
                needed.join(" "),
            ]);
        }
        let width = |c: usize| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0);
        let widths = [width(0), width(1), width(2)];
        let mut out = format!("{}: {} facts\n", self.name, self.facts.len());
        for row in &rows {
            let line = format!(
                "  {:w0$}  {:w1$}  {:w2$}  {}",
                row[0],
                row[1],
                row[2],
                row[3],
                w0 = widths[0],
                w1 = widths[1],
                w2 = widths[2]
            );
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

/// Where each message went, as people count (from 1).
fn places(w: &Walked) -> BTreeMap<usize, String> {
    let mut places = BTreeMap::new();
    for (r, request) in w.requests.iter().enumerate() {
        for (i, _) in &request.before {
            places.insert(*i, format!("before request {}", r + 1));
        }
        places.insert(request.user_index, format!("user, request {}", r + 1));
        for (s, step) in request.steps.iter().enumerate() {
            places.insert(step.index, format!("step {}.{}", r + 1, s + 1));
            for call in &step.calls {
                if let Some((i, _, _)) = call.result {
                    places.insert(i, format!("{} result, step {}.{}", call.name, r + 1, s + 1));
                }
            }
        }
    }
    places
}
