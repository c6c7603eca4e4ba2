//! A scenario file's tools, the messages before a request and each step, read into the
//! scenario: fixtures keyed by call, padding drawn where the file asks, every mistake named by
//! its request and step.

use ctxbench_compact::message::{Message, Role};
use serde_json::{Map, Value};

use super::Loader;
use crate::error::Error;
use crate::scenario::file::StepSpec;
use crate::scenario::padding::name_seed;
use crate::scenario::{FixtureResult, PlannedCall, Step, Tool};
use crate::usage::LoggedUsage;

impl Loader<'_> {
    pub(super) fn tools(
        &self,
        specs: &std::collections::BTreeMap<String, crate::scenario::file::ToolSpec>,
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
                    None => crate::scenario::DEFAULT_TOOL_LATENCY_S,
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
    pub(super) fn before(&self, r: usize, i: usize, value: Value) -> Result<Message, Error> {
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

    pub(super) fn step(&self, r: usize, s: usize, spec: StepSpec, tools: &[Tool]) -> Result<Step, Error> {
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
                    let args = crate::scenario::arguments_key(&raw);
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
}
