//! Loading a scenario: parse, pad, validate, and find where each fact first appears.
//!
//! Errors name the file, the request and the step (1-based, as people count). A fact's source is
//! found by replaying the script as written (no compaction): the first message containing its
//! value. A need for a fact that does not appear before its step is an error.

use std::collections::BTreeSet;

use ctxbench_compact::message::{Message, Role};
use serde_json::{Map, Value};

use super::file::{PadSpec, ScenarioFile, StepSpec};
use super::padding::{mix, name_seed, padding};
use super::{Fact, FactKind, FixtureResult, PlannedCall, Request, Scenario, Step, Tool};
use crate::error::Error;
use crate::scenario::FixtureTools;
use crate::usage::LoggedUsage;

/// Reads and loads a scenario file.
pub fn load_scenario(path: &std::path::Path, seed: u64) -> Result<Scenario, Error> {
    let text = ctxbench_compact::input::read_text(path).map_err(Error::Input)?;
    parse_scenario(&text, &path.display().to_string(), seed)
}

/// Parses a scenario from its text; `path` names it in errors.
pub fn parse_scenario(text: &str, path: &str, seed: u64) -> Result<Scenario, Error> {
    // serde would read an array as the fields in order ("the number 1 where a string is
    // expected"): say what the file holds instead.
    let head = text.trim_start().chars().next();
    if let Some(found @ ('[' | '"' | '0'..='9' | '-' | 't' | 'f' | 'n')) = head {
        let what = match found {
            '[' => "an array",
            '"' => "a string",
            't' | 'f' => "a boolean",
            'n' => "null",
            _ => "a number",
        };
        let at = text.len() - text.trim_start().len();
        let line = 1 + text[..at].matches('\n').count();
        let column = 1 + text[..at].rsplit('\n').next().map_or(0, |l| l.chars().count());
        return Err(Error::Input(ctxbench_compact::Error::Json {
            source_name: path.to_owned(),
            line,
            column,
            msg: format!(
                "not a scenario: the file holds {what}; a scenario is one JSON object {{\"name\": …, \"requests\": […]}} (see scenarios/schema.json)"
            ),
        }));
    }
    let file: ScenarioFile = serde_json::from_str(text)
        .map_err(|e| Error::Input(ctxbench_compact::Error::json(path, &e, "not a scenario")))?;
    Loader {
        path,
        seed,
        facts: Vec::new(),
        seeded: std::cell::Cell::new(false),
    }
    .load(file)
}

/// The largest padding a scenario may ask for, in tokens: the largest context windows offered
/// are about 2 million tokens.
const MAX_PAD_TOKENS: u64 = 2_000_000;

struct Loader<'a> {
    path: &'a str,
    seed: u64,
    facts: Vec<Fact>,
    /// Whether any text was padded: then the scenario's content depends on the seed.
    seeded: std::cell::Cell<bool>,
}

impl Loader<'_> {
    fn err(&self, request: Option<usize>, step: Option<usize>, msg: impl Into<String>) -> Error {
        Error::Scenario {
            path: self.path.to_owned(),
            request: request.map(|r| r + 1),
            step: step.map(|s| s + 1),
            msg: msg.into(),
        }
    }

    /// `text`, then `\n` and padding when asked; redrawn while a fact's value shows up.
    fn padded(&self, text: &str, pad: Option<PadSpec>, place: &[u64]) -> String {
        let Some(pad) = pad else { return text.to_owned() };
        self.seeded.set(true);
        let mut attempt = 0;
        loop {
            let mut parts = vec![self.seed];
            parts.extend_from_slice(place);
            parts.push(attempt);
            let body = padding(pad.style, pad.tokens, mix(&parts));
            let joined = if text.is_empty() {
                body.clone()
            } else {
                format!("{text}\n{body}")
            };
            let leaks = |s: &str| {
                self.facts
                    .iter()
                    .any(|f| s.contains(&f.value) && !text.contains(&f.value))
            };
            if !leaks(&body) && !leaks(&joined) {
                return joined;
            }
            attempt += 1;
        }
    }

    fn load(mut self, file: ScenarioFile) -> Result<Scenario, Error> {
        if file.name.trim().is_empty() {
            return Err(self.err(None, None, "the scenario needs a non-empty \"name\""));
        }
        self.check_pads(&file)?;
        let mut values = BTreeSet::new();
        for (name, spec) in &file.facts {
            if spec.value.is_empty() {
                return Err(self.err(None, None, format!("fact {name:?} has an empty value")));
            }
            if !values.insert(spec.value.clone()) {
                return Err(self.err(
                    None,
                    None,
                    format!("two facts have the value {:?}; give each fact its own", spec.value),
                ));
            }
            if spec.binding && spec.kind != FactKind::Decision {
                return Err(self.err(
                    None,
                    None,
                    format!(
                        "fact {name:?} is binding but of kind {}; only a decision can be binding",
                        spec.kind.as_str()
                    ),
                ));
            }
            let not_a_path = (spec.kind == FactKind::Artifact)
                .then(|| super::artifact::why_not_a_path(&spec.value))
                .flatten();
            if let Some(why) = not_a_path {
                return Err(self.err(
                    None,
                    None,
                    format!(
                        "fact {name:?} is an artifact (a file the agent changed), but its value {:?} is not a path: {why}",
                        spec.value
                    ),
                ));
            }
            self.facts.push(Fact {
                name: name.clone(),
                value: spec.value.clone(),
                kind: spec.kind,
                refetch: None,
                supersedes: None,
                binding: spec.binding,
            });
        }
        for (f, (name, spec)) in file.facts.iter().enumerate() {
            if let Some(old) = &spec.supersedes {
                let Some(o) = self.facts.iter().position(|x| x.name == *old).filter(|&o| o != f) else {
                    return Err(self.err(
                        None,
                        None,
                        format!("fact {name:?} supersedes {old:?}, which is not another fact of \"facts\""),
                    ));
                };
                self.facts[f].supersedes = Some(o);
            }
        }
        let preamble = file
            .preamble
            .into_iter()
            .enumerate()
            .map(|(i, v)| Message::from_value(v).map_err(|e| self.err(None, None, format!("preamble[{i}]: {e}"))))
            .collect::<Result<Vec<_>, _>>()?;
        let (tools, tool_schemas) = self.tools(&file.tools)?;
        let mut requests = Vec::with_capacity(file.requests.len());
        for (r, spec) in file.requests.into_iter().enumerate() {
            let before = spec
                .before
                .into_iter()
                .enumerate()
                .map(|(i, v)| self.before(r, i, v))
                .collect::<Result<Vec<_>, _>>()?;
            if !matches!(spec.user, Value::String(_) | Value::Array(_) | Value::Null) {
                return Err(self.err(
                    Some(r),
                    None,
                    "\"user\" must be a string, an array of content parts, or null",
                ));
            }
            let mut user = Map::new();
            user.insert("role".into(), Value::String("user".into()));
            user.insert("content".into(), spec.user);
            user.extend(spec.extra);
            let user = Message::from_value(Value::Object(user)).map_err(|e| self.err(Some(r), None, e.to_string()))?;
            let steps = spec
                .steps
                .into_iter()
                .enumerate()
                .map(|(s, step)| self.step(r, s, step, &tools))
                .collect::<Result<Vec<_>, _>>()?;
            let needs: usize = steps.iter().map(|s| s.needs.len()).sum();
            let max_turns = spec.max_turns.or(file.max_turns).unwrap_or(steps.len() + needs);
            if steps.len() > max_turns {
                return Err(self.err(
                    Some(r),
                    None,
                    format!(
                        "{} steps but max_turns is {max_turns}; raise max_turns or remove steps",
                        steps.len()
                    ),
                ));
            }
            let idle_s = match spec.idle_s {
                None => super::DEFAULT_IDLE_S,
                Some(s) if s.is_finite() && s >= 0.0 => s,
                Some(s) => {
                    return Err(self.err(
                        Some(r),
                        None,
                        format!("idle_s must be a number of seconds, 0 or more; got {s}"),
                    ));
                }
            };
            requests.push(Request {
                before,
                user,
                steps,
                max_turns,
                idle_s,
            });
        }
        if requests.is_empty() {
            return Err(self.err(None, None, "the scenario has no requests"));
        }
        if file.window == Some(0) {
            return Err(self.err(
                None,
                None,
                "window is 0; give the model's context window in tokens (like 8000), or leave it out and pass --window",
            ));
        }
        let system = file.system.map(|s| Message::new(Role::System, s));
        let mut scenario = Scenario {
            name: file.name,
            description: file.description,
            path: self.path.to_owned(),
            system,
            window: file.window,
            preamble,
            tools,
            tool_result_name: file.tool_result_name,
            tool_schemas: tool_schemas.into(),
            facts: std::mem::take(&mut self.facts),
            requests,
            seeded: self.seeded.get(),
        };
        self.find_sources(&mut scenario)?;
        Ok(scenario)
    }

    /// Refuses a padding no run could use, before any is drawn: past [`MAX_PAD_TOKENS`] (the
    /// text alone would take hundreds of megabytes), or past ten times the scenario's window
    /// (every request that holds it would overflow many times over).
    fn check_pads(&self, file: &ScenarioFile) -> Result<(), Error> {
        let bound = file
            .window
            .filter(|w| *w > 0)
            .map_or(MAX_PAD_TOKENS, |w| w.saturating_mul(10).min(MAX_PAD_TOKENS));
        let too_large = |tokens: u64| -> Option<String> {
            (tokens > bound).then(|| {
                let why = match file.window {
                    Some(w) if w.saturating_mul(10) < MAX_PAD_TOKENS => {
                        format!("over ten times the scenario's window of {w}, so every request holding it overflows")
                    }
                    _ => format!(
                        "over {MAX_PAD_TOKENS} tokens, more than any model's window, and its text alone would take \
                         hundreds of megabytes"
                    ),
                };
                format!("a pad of {tokens} tokens is {why}; give at most {bound}")
            })
        };
        for (name, spec) in &file.tools {
            for (k, result) in spec.results.iter().enumerate() {
                if let Some(msg) = result.pad.and_then(|p| too_large(p.tokens)) {
                    return Err(self.err(None, None, format!("tool {name:?}, result {}: {msg}", k + 1)));
                }
            }
        }
        for (r, request) in file.requests.iter().enumerate() {
            for (st, step) in request.steps.iter().enumerate() {
                if let Some(msg) = step.reply_pad.and_then(|p| too_large(p.tokens)) {
                    return Err(self.err(Some(r), Some(st), format!("reply_pad: {msg}")));
                }
            }
        }
        Ok(())
    }

    fn tools(
        &self,
        specs: &std::collections::BTreeMap<String, super::file::ToolSpec>,
    ) -> Result<(Vec<Tool>, Vec<Value>), Error> {
        let mut tools = Vec::new();
        let mut schemas = Vec::new();
        for (name, spec) in specs {
            let mut results = Vec::new();
            for (k, result) in spec.results.iter().enumerate() {
                let place = |msg: &str| self.err(None, None, format!("tool {name:?}, result {}: {msg}", k + 1));
                let text = match (&result.text, &result.error) {
                    (Some(Value::String(text)), None) => Some(text.clone()),
                    (Some(Value::Null), None) if result.pad.is_none() => None,
                    (Some(Value::Null), None) => return Err(place("a null \"text\" cannot be padded")),
                    (Some(_), None) => return Err(place("\"text\" must be a string or null")),
                    (None, Some(error)) => Some(format!("Error: {error}")),
                    _ => return Err(place("give either \"text\" or \"error\"")),
                };
                let latency_s = match result.latency_s {
                    None => super::DEFAULT_TOOL_LATENCY_S,
                    Some(s) if s.is_finite() && s >= 0.0 => s,
                    Some(s) => {
                        return Err(place(&format!(
                            "latency_s must be a number of seconds, 0 or more; got {s}"
                        )));
                    }
                };
                results.push(FixtureResult {
                    args: result.args.clone(),
                    text: text.map(|text| self.padded(&text, result.pad, &[name_seed(name), k as u64])),
                    delay: result.delay,
                    latency_s,
                });
            }
            tools.push(Tool {
                name: name.clone(),
                refetchable: spec.refetchable,
                results,
            });
            let mut function = Map::new();
            function.insert("name".into(), Value::String(name.clone()));
            if let Some(d) = &spec.description {
                function.insert("description".into(), Value::String(d.clone()));
            }
            let parameters = spec
                .parameters
                .clone()
                .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}}));
            function.insert("parameters".into(), parameters);
            schemas.push(serde_json::json!({"type": "function", "function": Value::Object(function)}));
        }
        Ok((tools, schemas))
    }

    /// A message of a request's `before`: anything but a tool result or a call, which would
    /// need answering.
    fn before(&self, r: usize, i: usize, value: Value) -> Result<Message, Error> {
        let message = Message::from_value(value).map_err(|e| self.err(Some(r), None, format!("before[{i}]: {e}")))?;
        if message.role() == Role::Tool || message.has_calls() {
            return Err(self.err(
                Some(r),
                None,
                format!("before[{i}]: tool calls and tool results belong in steps, not in \"before\""),
            ));
        }
        Ok(message)
    }

    fn step(&self, r: usize, s: usize, spec: StepSpec, tools: &[Tool]) -> Result<Step, Error> {
        if spec.tool_calls.is_empty() && spec.reply.is_none() {
            return Err(self.err(Some(r), Some(s), "a step needs \"tool_calls\", a \"reply\", or both"));
        }
        let mut calls = Vec::new();
        for (k, call) in spec.tool_calls.into_iter().enumerate() {
            let Some(tool) = tools.iter().find(|t| t.name == call.name) else {
                let known: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
                return Err(self.err(
                    Some(r),
                    Some(s),
                    format!(
                        "unknown tool {:?}; the scenario's tools: {}",
                        call.name,
                        known.join(", ")
                    ),
                ));
            };
            let (arguments, args) = match (call.arguments, call.args) {
                (Some(raw), _) => {
                    let args = super::arguments_key(&raw);
                    (raw, args)
                }
                (None, args) => {
                    let args = args.unwrap_or_else(|| Value::Object(Map::new()));
                    (args.to_string(), args)
                }
            };
            if !tool.results.iter().any(|result| result.args == args) {
                return Err(self.err(
                    Some(r),
                    Some(s),
                    format!("no fixture result of {:?} for arguments {args}", call.name),
                ));
            }
            let id = call.id.unwrap_or_else(|| format!("call_{}_{}_{k}", r + 1, s + 1));
            calls.push(PlannedCall {
                id,
                name: call.name,
                arguments,
            });
        }
        let content = spec
            .reply
            .map(|reply| self.padded(&reply, spec.reply_pad, &[u64::MAX, r as u64, s as u64]));
        let mut needs = Vec::new();
        for name in &spec.needs {
            let Some(i) = self.facts.iter().position(|f| f.name == *name) else {
                return Err(self.err(
                    Some(r),
                    Some(s),
                    format!("needs unknown fact {name:?}; declare it under \"facts\""),
                ));
            };
            needs.push(i);
        }
        let logged = match spec.logged_usage {
            Some(u) if u.cached_tokens + u.cache_write_tokens > u.prompt_tokens => {
                return Err(self.err(
                    Some(r),
                    Some(s),
                    format!(
                        "logged_usage: cached_tokens ({}) and cache_write_tokens ({}) add up to more than prompt_tokens ({})",
                        u.cached_tokens, u.cache_write_tokens, u.prompt_tokens
                    ),
                ));
            }
            Some(u) => Some(LoggedUsage {
                prompt_tokens: Some(u.prompt_tokens),
                cache_read_tokens: u.cached_tokens,
                cache_write_tokens: u.cache_write_tokens,
                completion_tokens: Some(u.completion_tokens),
            }),
            None => None,
        };
        Ok(Step {
            calls,
            content,
            needs,
            extra: spec.extra,
            logged,
        })
    }

    /// Replays the script as written, to find each fact's first appearance and to check that
    /// every need appears before its step.
    fn find_sources(&self, scenario: &mut Scenario) -> Result<(), Error> {
        let mut first_seen: Vec<Option<Option<(String, String)>>> = vec![None; scenario.facts.len()];
        let see =
            |text: &str, source: Option<(String, String)>, first_seen: &mut Vec<Option<Option<(String, String)>>>| {
                for (f, fact) in scenario.facts.iter().enumerate() {
                    if first_seen[f].is_none() && text.contains(&fact.value) {
                        first_seen[f] = Some(source.clone());
                    }
                }
            };
        if let Some(system) = &scenario.system {
            see(&system.text(), None, &mut first_seen);
        }
        for m in &scenario.preamble {
            see(&m.text(), None, &mut first_seen);
            for c in m.calls() {
                see(c.arguments, None, &mut first_seen);
            }
        }
        let mut tools = FixtureTools::new(&scenario.tools).named(scenario.tool_result_name);
        for (r, request) in scenario.requests.iter().enumerate() {
            for m in &request.before {
                see(&m.text(), None, &mut first_seen);
            }
            see(&request.user.text(), None, &mut first_seen);
            for (s, step) in request.steps.iter().enumerate() {
                for &need in &step.needs {
                    if first_seen[need].is_none() {
                        let fact = &scenario.facts[need];
                        return Err(self.err(
                            Some(r),
                            Some(s),
                            format!(
                                "needs fact {:?} ({:?}) before it appears anywhere",
                                fact.name, fact.value
                            ),
                        ));
                    }
                }
                if let Some(content) = &step.content {
                    see(content, None, &mut first_seen);
                }
                for call in &step.calls {
                    see(&call.arguments, None, &mut first_seen);
                }
                for call in &step.calls {
                    let (result, _) = tools.call_timed(&call.name, &call.arguments);
                    let refetchable = scenario.tools.iter().any(|t| t.name == call.name && t.refetchable);
                    let source = refetchable.then(|| (call.name.clone(), call.arguments.clone()));
                    see(&result, source, &mut first_seen);
                }
            }
        }
        for (fact, seen) in scenario.facts.iter_mut().zip(first_seen) {
            fact.refetch = seen.flatten();
        }
        Ok(())
    }
}
