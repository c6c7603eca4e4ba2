//! What tool schemas cost in a request: OpenAI's cookbook `num_tokens_for_tools`.
//!
//! Per function: `func_init` + BPE(`name:description`) (a trailing `.` of the description
//! dropped); if it has properties, `prop_init` once, then per property `prop_key` +
//! BPE(`name:type:description`), and for an `enum`, `enum_init` + Σ (`enum_item` + BPE(item)).
//! `func_end` once when there is any tool. ctxbench's conventions where the cookbook is silent:
//! a missing description or type counts as empty, a non-string type or enum item as its compact
//! JSON, and a nested schema (a property's `properties` or `items`) as the BPE of its compact JSON.

use serde_json::Value;

/// The cookbook's constants for one model family.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ToolConstants {
    func_init: i64,
    prop_init: i64,
    prop_key: i64,
    enum_init: i64,
    enum_item: i64,
    func_end: i64,
}

impl ToolConstants {
    /// gpt-4o and gpt-4o-mini (used with `o200k`).
    pub(crate) const GPT_4O: ToolConstants = ToolConstants {
        func_init: 7,
        prop_init: 3,
        prop_key: 3,
        enum_init: -3,
        enum_item: 3,
        func_end: 12,
    };
    /// gpt-3.5-turbo and gpt-4 (used with `cl100k`).
    pub(crate) const GPT_4: ToolConstants = ToolConstants {
        func_init: 10,
        prop_init: 3,
        prop_key: 3,
        enum_init: -3,
        enum_item: 3,
        func_end: 12,
    };
}

/// Tokens of a request's `tools` array; `bpe` counts a plain text.
pub(crate) fn tool_schema_tokens(tools: &[Value], k: ToolConstants, bpe: &dyn Fn(&str) -> u64) -> u64 {
    if tools.is_empty() {
        return 0;
    }
    let count = |text: &str| bpe(text) as i64;
    let mut total: i64 = 0;
    for tool in tools {
        // `{"type": "function", "function": {...}}`, or a bare function object.
        let function = tool.get("function").unwrap_or(tool);
        total += k.func_init;
        let name = str_field(function, "name");
        let description = str_field(function, "description");
        total += count(&format!("{name}:{}", trim_period(&description)));
        let properties = function
            .get("parameters")
            .and_then(|p| p.get("properties"))
            .and_then(Value::as_object);
        let Some(properties) = properties.filter(|p| !p.is_empty()) else {
            continue;
        };
        total += k.prop_init;
        for (key, property) in properties {
            total += k.prop_key;
            if let Some(items) = property.get("enum").and_then(Value::as_array) {
                total += k.enum_init;
                for item in items {
                    total += k.enum_item + count(&text_of(item));
                }
            }
            let p_type = property.get("type").map(text_of).unwrap_or_default();
            let p_desc = str_field(property, "description");
            total += count(&format!("{key}:{p_type}:{}", trim_period(&p_desc)));
            for nested in ["properties", "items"] {
                if let Some(schema) = property.get(nested) {
                    total += count(&schema.to_string());
                }
            }
        }
    }
    total += k.func_end;
    total.max(0) as u64
}

fn str_field(value: &Value, key: &str) -> String {
    value.get(key).map(text_of).unwrap_or_default()
}

/// A string as itself, anything else as its compact JSON.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn trim_period(s: &str) -> &str {
    s.strip_suffix('.').unwrap_or(s)
}
