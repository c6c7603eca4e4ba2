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
use serde_json::{Map, Value, json};
pub use sessions::{SessionLog, read_session, session_log};
use walk::{Walked, WalkedCall};

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

/// Where a conversation comes from and what it is imported as.
#[derive(Clone, Copy)]
struct Origin<'a> {
    /// The file (and line), as errors name it.
    source_name: &'a str,
    /// The scenario's name.
    name: &'a str,
    /// What the user asked for.
    options: &'a ImportOptions,
    /// The log's wire format.
    format: Format,
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
        options,
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

/// The scenario file: fields in the order a person reads them.
fn scenario_file(
    origin: &Origin<'_>,
    w: &Walked,
    facts: &[FoundFact],
    tools: &[Value],
    usage: Option<&[Option<LoggedUsage>]>,
    notes: &mut Vec<String>,
) -> Result<Value, Error> {
    let Origin {
        source_name,
        name,
        format,
        ..
    } = *origin;
    let mut needs: BTreeMap<(usize, usize), Vec<&str>> = BTreeMap::new();
    for fact in facts {
        for step in &fact.needed_by {
            needs.entry(*step).or_default().push(&fact.value);
        }
    }
    let steps: usize = w.calls_at.len();
    let used = facts.len();
    let mut file = Map::new();
    file.insert("name".into(), name.into());
    file.insert(
        "description".into(),
        format!(
            "Imported from {source_name}{}: {} requests, {steps} model turns; {used} facts found automatically.",
            match format {
                Format::Chat => String::new(),
                _ if format.counts_approximate() => format!(
                    " ({}; its token counts are o200k's approximation of Anthropic's tokenizer)",
                    format.title()
                ),
                _ => format!(" ({})", format.title()),
            },
            w.answered_requests()
        )
        .into(),
    );
    if let Some(system) = &w.system {
        file.insert("system".into(), system.clone().into());
    }
    if w.tool_result_name {
        file.insert("tool_result_name".into(), true.into());
    }
    if !w.preamble.is_empty() {
        file.insert("preamble".into(), w.preamble.clone().into());
    }
    file.insert("tools".into(), tool_specs(origin, w, tools, notes)?);
    let mut fact_map = Map::new();
    for fact in facts {
        fact_map.insert(
            fact.value.clone(),
            json!({"value": fact.value, "kind": fact.kind.as_str()}),
        );
    }
    file.insert("facts".into(), fact_map.into());
    let mut requests = Vec::new();
    let mut call = 0;
    for (r, request) in w.requests.iter().enumerate() {
        let mut out = Map::new();
        if !request.before.is_empty() {
            let before: Vec<Value> = request.before.iter().map(|(_, m)| m.clone()).collect();
            out.insert("before".into(), before.into());
        }
        out.insert("user".into(), request.user.clone());
        if !request.user_extra.is_empty() {
            out.insert("extra".into(), request.user_extra.clone().into());
        }
        let mut steps = Vec::new();
        for (s, step) in request.steps.iter().enumerate() {
            let mut out = Map::new();
            if !step.calls.is_empty() {
                let calls: Vec<Value> = step
                    .calls
                    .iter()
                    .map(|c| json!({"name": c.name, "id": c.id, "arguments": c.arguments}))
                    .collect();
                out.insert("tool_calls".into(), calls.into());
            }
            match (&step.reply, step.calls.is_empty()) {
                (Some(reply), _) => {
                    out.insert("reply".into(), reply.clone().into());
                }
                (None, true) => {
                    notes.push(format!(
                        "messages[{}]: an assistant message with neither content nor calls is replayed with content \"\"",
                        step.index
                    ));
                    out.insert("reply".into(), "".into());
                }
                (None, false) => {}
            }
            if let Some(needs) = needs.get(&(r, s)) {
                out.insert("needs".into(), json!(needs));
            }
            if !step.extra.is_empty() {
                out.insert("extra".into(), step.extra.clone().into());
            }
            if let Some(Some(u)) = usage.and_then(|u| u.get(call)) {
                out.insert(
                    "logged_usage".into(),
                    json!({
                        "prompt_tokens": u.prompt_tokens.unwrap_or(0),
                        "cached_tokens": u.cache_read_tokens,
                        "cache_write_tokens": u.cache_write_tokens,
                        "completion_tokens": u.completion_tokens.unwrap_or(0),
                    }),
                );
            }
            call += 1;
            steps.push(Value::Object(out));
        }
        if !steps.is_empty() {
            out.insert("steps".into(), steps.into());
        }
        requests.push(Value::Object(out));
    }
    file.insert("requests".into(), requests.into());
    Ok(Value::Object(file))
}

/// The tools: the log's schemas, else inferred from the calls; each call's result as a fixture.
fn tool_specs(origin: &Origin<'_>, w: &Walked, tools: &[Value], notes: &mut Vec<String>) -> Result<Value, Error> {
    let Origin {
        source_name, options, ..
    } = *origin;
    let mut specs: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
    for (k, tool) in tools.iter().enumerate() {
        let function = tool.get("function").unwrap_or(tool);
        let Some(name) = function.get("name").and_then(Value::as_str) else {
            return Err(Error::Input {
                source_name: source_name.to_owned(),
                at: format!("tools[{k}]"),
                msg: "a tool schema needs a \"function\" with a \"name\"".into(),
            });
        };
        let mut spec = Map::new();
        if let Some(d) = function.get("description").and_then(Value::as_str) {
            spec.insert("description".into(), d.into());
        }
        if let Some(p) = function.get("parameters").filter(|p| p.is_object()) {
            spec.insert("parameters".into(), p.clone());
        }
        specs.insert(name.to_owned(), spec);
    }
    // Every call, in order, by tool.
    let mut calls: BTreeMap<&str, Vec<&WalkedCall>> = BTreeMap::new();
    for call in w.requests.iter().flat_map(|r| &r.steps).flat_map(|s| &s.calls) {
        calls.entry(call.name.as_str()).or_default().push(call);
    }
    for (name, calls) in &calls {
        let spec = specs.entry((*name).to_owned()).or_insert_with(|| {
            notes.push(format!("tool {name}: no schema in the log; inferred from its calls"));
            let mut spec = Map::new();
            spec.insert("parameters".into(), inferred_parameters(calls));
            spec
        });
        spec.insert("results".into(), results(calls, notes).into());
    }
    let mut out = Map::new();
    for (name, mut spec) in specs {
        if options.refetchable.iter().any(|p| glob(p, &name)) {
            spec.insert("refetchable".into(), true.into());
        }
        out.insert(name, spec.into());
    }
    Ok(out.into())
}

/// One result per call, in call order; a single one when every call of a key got the same.
fn results(calls: &[&WalkedCall], notes: &mut Vec<String>) -> Vec<Value> {
    let mut keys: Vec<(&Value, Vec<Value>)> = Vec::new();
    for call in calls {
        let result = match &call.result {
            Some((_, text, delay)) => {
                let mut r = json!({"args": call.args, "text": text});
                if *delay > 0 {
                    r["delay"] = (*delay).into();
                }
                r
            }
            None => {
                notes.push(format!(
                    "call {} ({}): the log ends before its result; answered \"Error: the log ends before this result\"",
                    call.id, call.name
                ));
                json!({"args": call.args, "error": "the log ends before this result"})
            }
        };
        match keys.iter_mut().find(|(args, _)| **args == call.args) {
            Some((_, list)) => list.push(result),
            None => keys.push((&call.args, vec![result])),
        }
    }
    let mut out = Vec::new();
    for (_, mut list) in keys {
        if list.iter().all(|r| *r == list[0]) {
            list.truncate(1);
        }
        out.extend(list);
    }
    out
}

/// An object schema with each argument seen, typed by its values; required when always given.
fn inferred_parameters(calls: &[&WalkedCall]) -> Value {
    let mut properties: BTreeMap<&str, &'static str> = BTreeMap::new();
    for call in calls {
        if let Value::Object(args) = &call.args {
            for (k, v) in args {
                properties.entry(k.as_str()).or_insert(json_type(v));
            }
        }
    }
    let required: Vec<&str> = properties
        .keys()
        .copied()
        .filter(|k| calls.iter().all(|c| c.args.get(k).is_some()))
        .collect();
    let properties: Map<String, Value> = properties
        .into_iter()
        .map(|(k, t)| (k.to_owned(), json!({"type": t})))
        .collect();
    json!({"type": "object", "properties": properties, "required": required})
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Whether `name` matches `pattern`, where `*` is any run of characters and `?` any one.
pub fn glob(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // The classic two-pointer match with one backtrack point, the last `*`.
    let (mut i, mut j, mut star, mut mark) = (0, 0, None, 0);
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some(i);
            mark = j;
            i += 1;
        } else if let Some(s) = star {
            i = s + 1;
            mark += 1;
            j = mark;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob("get_*", "get_order"));
        assert!(glob("*", "anything"));
        assert!(glob("search_?arts", "search_parts"));
        assert!(glob("*_order*", "get_order_details"));
        assert!(!glob("get_*", "create_return"));
        assert!(!glob("get", "get_order"));
    }
}
