//! Loading a scenario: parse, pad, validate, and find where each fact first appears.
//!
//! Errors name the file, the request and the step (1-based, as people count). A fact's source is
//! found by replaying the script as written (no compaction): the first message containing its
//! value. A need for a fact that does not appear before its step is an error.

use std::collections::BTreeSet;

use ctxbench_compact::message::{Message, Role};
use serde_json::{Map, Value};

mod sources;
mod steps;

use super::file::{PadSpec, ScenarioFile};
use super::padding::{mix, padding};
use super::{Fact, FactKind, Request, Scenario};
use crate::error::Error;

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
}
