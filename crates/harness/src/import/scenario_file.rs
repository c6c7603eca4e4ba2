//! The scenario file an import writes: its fields in the order a person reads them, the tools
//! (the log's schemas, else inferred from the calls) with each call's result as a fixture, the
//! facts found and the steps that need them.

use std::collections::BTreeMap;

use ctxbench_compact::Error;
use ctxbench_compact::wire::Format;
use serde_json::{Map, Value, json};

use super::facts::FoundFact;
use super::walk::{Walked, WalkedCall};
use crate::usage::LoggedUsage;

/// Where a conversation comes from and what it is imported as.
#[derive(Clone, Copy)]
pub(super) struct Origin<'a> {
    /// The file (and line), as errors name it.
    pub(super) source_name: &'a str,
    /// The scenario's name.
    pub(super) name: &'a str,
    /// Glob patterns of the tools safe to call again (`--refetchable`).
    pub(super) refetchable: &'a [String],
    /// The log's wire format.
    pub(super) format: Format,
}

/// The scenario file: fields in the order a person reads them.
pub(super) fn scenario_file(
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
        source_name,
        refetchable,
        ..
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
        if refetchable.iter().any(|p| glob(p, &name)) {
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
