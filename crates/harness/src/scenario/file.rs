//! The scenario file format as written on disk (documented for users in `docs/scenarios.md`,
//! JSON Schema in `scenarios/schema.json`). Unknown fields are errors, so a typo is caught.
//! [`super::load`] turns this into a validated [`super::Scenario`].

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Map, Value};

/// A whole scenario file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScenarioFile {
    /// A JSON Schema for editors (`./schema.json`); ignored.
    #[serde(rename = "$schema", default)]
    #[allow(dead_code)]
    pub schema: Option<String>,
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub system: Option<String>,
    #[serde(default, deserialize_with = "window")]
    pub window: Option<u64>,
    #[serde(default)]
    pub max_turns: Option<usize>,
    #[serde(default)]
    pub preamble: Vec<Value>,
    /// Tool messages carry the tool's `name` between `tool_call_id` and `content`.
    #[serde(default)]
    pub tool_result_name: bool,
    #[serde(default, deserialize_with = "unique")]
    pub tools: BTreeMap<String, ToolSpec>,
    #[serde(default, deserialize_with = "unique")]
    pub facts: BTreeMap<String, FactSpec>,
    pub requests: Vec<RequestSpec>,
}

/// The window, a whole number of tokens; one written otherwise is said with what to write
/// (`1e20` is over the largest window there is, not merely "not a whole number").
fn window<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    struct Window;
    impl<'de> serde::de::Visitor<'de> for Window {
        type Value = Option<u64>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a whole number of tokens")
        }

        fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Self::Value, E> {
            Ok(Some(n))
        }

        fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Self::Value, E> {
            u64::try_from(n).map(Some).map_err(|_| {
                E::custom(format!(
                    "the window {n} is below 0; give a whole number of tokens, such as 128000"
                ))
            })
        }

        fn visit_f64<E: serde::de::Error>(self, x: f64) -> Result<Self::Value, E> {
            let most = u64::MAX;
            if x >= most as f64 {
                return Err(E::custom(format!(
                    "the window {x:e} is over the largest accepted, {} tokens",
                    crate::human::thousands(most)
                )));
            }
            if x >= 0.0 && x.fract() == 0.0 {
                return Err(E::custom(format!(
                    "write the window as a whole number of tokens: {}",
                    x as u64
                )));
            }
            Err(E::custom(format!(
                "the window {x} is not a whole number of tokens; give one such as 128000"
            )))
        }

        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    }
    deserializer.deserialize_any(Window)
}

/// An object of named entries (`tools`, `facts`) in which no name is given twice: JSON allows it
/// and a map would keep the last silently.
fn unique<'de, D, V>(deserializer: D) -> Result<BTreeMap<String, V>, D::Error>
where
    D: serde::Deserializer<'de>,
    V: Deserialize<'de>,
{
    struct Unique<V>(std::marker::PhantomData<V>);
    impl<'de, V: Deserialize<'de>> serde::de::Visitor<'de> for Unique<V> {
        type Value = BTreeMap<String, V>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object of named entries")
        }

        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = BTreeMap::new();
            while let Some(key) = map.next_key::<String>()? {
                if out.contains_key(&key) {
                    return Err(serde::de::Error::custom(format!(
                        "the name {key:?} is given twice here; give each once (the second would silently replace the first)"
                    )));
                }
                let value = map.next_value()?;
                out.insert(key, value);
            }
            Ok(out)
        }
    }
    deserializer.deserialize_map(Unique(std::marker::PhantomData))
}

/// One tool: its schema and its fixture results.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ToolSpec {
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub parameters: Option<Value>,
    #[serde(default)]
    pub refetchable: bool,
    #[serde(default)]
    pub results: Vec<ResultSpec>,
}

/// One fixture result.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ResultSpec {
    #[serde(default = "empty_object")]
    pub args: Value,
    /// A string, or `null` for a result whose content is `null`; `None` when absent.
    #[serde(default, deserialize_with = "present")]
    pub text: Option<Value>,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub pad: Option<PadSpec>,
    /// Among the results of one step's parallel calls, when this one comes back.
    #[serde(default)]
    pub delay: u64,
    /// Seconds the call takes on the simulated clock.
    #[serde(default)]
    pub latency_s: Option<f64>,
}

/// `Some(value)` for any value present, `null` included (absent fields take the default, `None`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

fn empty_object() -> Value {
    Value::Object(Map::new())
}

/// Padding: `tokens` o200k tokens of text shaped like `style`.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PadSpec {
    pub tokens: u64,
    pub style: super::PadStyle,
}

/// A fact a later step needs.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FactSpec {
    pub value: String,
    pub kind: super::FactKind,
    /// The fact this one replaces: the same thing with a new value (a probe of stale values).
    #[serde(default)]
    pub supersedes: Option<String>,
    /// A decision the user gave (an approval, denial or correction) that must survive.
    #[serde(default)]
    pub binding: bool,
}

/// One request: the user's message and what the model does.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RequestSpec {
    /// Messages replayed verbatim just before the user message (a system reminder, say).
    #[serde(default)]
    pub before: Vec<Value>,
    /// The user message's content: a string, an array of parts, or `null`.
    pub user: Value,
    #[serde(default)]
    pub steps: Vec<StepSpec>,
    #[serde(default)]
    pub max_turns: Option<usize>,
    /// Seconds between the previous request's end and this one's start.
    #[serde(default)]
    pub idle_s: Option<f64>,
    /// Extra fields of the user message, replayed verbatim.
    #[serde(default)]
    pub extra: Map<String, Value>,
}

/// One model call's worth of script.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StepSpec {
    #[serde(default)]
    pub tool_calls: Vec<CallSpec>,
    #[serde(default)]
    pub reply: Option<String>,
    #[serde(default)]
    pub reply_pad: Option<PadSpec>,
    #[serde(default)]
    pub needs: Vec<String>,
    /// Extra fields of the assistant message, replayed verbatim.
    #[serde(default)]
    pub extra: Map<String, Value>,
    /// What the provider billed for this step's call, as a call log had it (`import`).
    #[serde(default)]
    pub logged_usage: Option<LoggedUsageSpec>,
}

/// A logged call's usage, as the provider reported it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LoggedUsageSpec {
    pub prompt_tokens: u64,
    #[serde(default)]
    pub cached_tokens: u64,
    #[serde(default)]
    pub cache_write_tokens: u64,
    #[serde(default)]
    pub completion_tokens: u64,
}

/// One tool call of a step.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CallSpec {
    pub name: String,
    #[serde(default)]
    pub args: Option<Value>,
    /// The original id, used verbatim.
    #[serde(default)]
    pub id: Option<String>,
    /// The original raw arguments string, used verbatim.
    #[serde(default)]
    pub arguments: Option<String>,
}
