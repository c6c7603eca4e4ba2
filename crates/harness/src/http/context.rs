//! Server-side context management, as `serve` stands in for it: what a request asks (Anthropic's
//! `context_management.edits`, OpenAI's Responses `context_management`), read and checked as the
//! API would, and each edit as the preset that simulates it.
//!
//! Fields and rules from the official SDKs' types (checked 2026-12-06): `anthropic` 2.17.0
//! (`types/beta/beta_compact_20260112_edit_param.py`, `beta_clear_tool_uses_20250919_edit_param.py`,
//! `beta_clear_thinking_20251015_edit_param.py`: `compact_20260112` with `trigger`
//! `{type: "input_tokens", value}` (at least 50,000), `pause_after_compaction`, `instructions`;
//! `clear_tool_uses_20250919` with `trigger` in `input_tokens` or `tool_uses`, `keep`
//! `{type: "tool_uses", value}`, `clear_at_least` `{type: "input_tokens", value}`,
//! `exclude_tools`, `clear_tool_inputs`; `clear_thinking_20251015` with `keep`
//! `{type: "thinking_turns", value}` or `"all"`), the beta headers `compact-2026-01-12` and
//! `context-management-2025-06-27` (<https://platform.claude.com/docs/en/build-with-claude/compaction-threshold>,
//! <https://platform.claude.com/docs/en/build-with-claude/context-editing>); `openai` 3.63.0
//! (`types/responses/response_create_params.py` `ContextManagement`: `type` "compaction" alone,
//! `compact_threshold`).
//!
//! Token amounts are stated for the provider's model window, as the presets' are (Anthropic's
//! 200,000, OpenAI's 272,000), and scale with the served window: a scenario's window stands for
//! a real one. Serve with `--window` at that size to take them as they are.

use ctxbench_compact::compact::presets::{ClearAt, OpenaiMode};
use ctxbench_compact::compact::{ClearInputs, Preset, Strategy, ThinkingKeep};
use ctxbench_compact::conversation::Conversation;
use ctxbench_compact::wire::{CacheMarks, Format};
use serde_json::{Map, Value};

use super::{PresetError, Unreadable};
use crate::trace::CompactionRecord;

/// What the server made of a request before its model reads it.
pub(crate) struct ServerView {
    /// The history the model reads.
    pub seen: Conversation,
    /// The request's cache marks, where they still stand.
    pub marks: Option<CacheMarks>,
    /// What the server's edits did, for the call's trace line (`None`: no edit ran).
    pub record: Option<CompactionRecord>,
    /// The level the edits hold the request to.
    pub limit: u64,
    /// Anthropic's `context_management.applied_edits`.
    pub applied: Vec<Value>,
    /// The summary a compaction wrote, and the index of its call in the run's trace.
    pub compaction: Option<(String, usize)>,
    /// `pause_after_compaction` asked, and a compaction was made: answer with it alone.
    pub paused: bool,
}

/// Anthropic's beta that server-side compaction needs.
pub const COMPACT_BETA: &str = "compact-2026-01-12";
/// Anthropic's beta that context editing (clearing) needs.
pub const EDITING_BETA: &str = "context-management-2025-06-27";

/// One edit the server makes to the context before it answers.
#[derive(Clone, Debug, PartialEq)]
pub struct Edit {
    /// The preset that simulates it.
    pub preset: Preset,
    /// The edit's name on the wire (`compact_20260112`, `clear_tool_uses_20250919`, …, or
    /// Responses' `compaction`).
    pub kind: &'static str,
    /// Anthropic's `pause_after_compaction`: answer with the compaction alone
    /// (`stop_reason: "compaction"`); the client sends again to go on.
    pub pause: bool,
    /// Anthropic's `instructions`: the summary call's prompt in place of the server's.
    pub instructions: Option<String>,
}

impl Edit {
    /// The strategy the server runs for it.
    pub fn strategy(&self) -> Strategy {
        Strategy::preset(self.preset.clone())
    }

    /// Whether it compacts (a summary) rather than clears.
    pub fn compacts(&self) -> bool {
        matches!(
            self.preset,
            Preset::AnthropicCompact { .. } | Preset::OpenaiCompact { .. }
        )
    }
}

fn bad(message: impl Into<String>, param: &str) -> Unreadable {
    (message.into(), Some(param.to_owned()))
}

/// An object's `{type, value}` field: its type and whole-number value.
fn typed<'v>(object: &'v Map<String, Value>, key: &str, at: &str) -> Result<Option<(&'v str, u64)>, Unreadable> {
    let Some(field) = object.get(key).filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let at = format!("{at}.{key}");
    let kind = field.get("type").and_then(Value::as_str).ok_or_else(|| {
        bad(
            format!("{at}.type: Field required (an object with \"type\" and \"value\")"),
            &at,
        )
    })?;
    let value = field.get("value").and_then(Value::as_u64).ok_or_else(|| {
        bad(
            format!("{at}.value: expected a whole number of at least 0"),
            &format!("{at}.value"),
        )
    })?;
    Ok(Some((kind, value)))
}

/// Anthropic's `context_management` (`None` when absent); `betas` are the `anthropic-beta`
/// header's values.
pub fn anthropic(body: &Value, betas: &[&str]) -> Result<Option<Vec<Edit>>, Unreadable> {
    let Some(cm) = body.get("context_management").filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let edits = cm.get("edits").and_then(Value::as_array).ok_or_else(|| {
        bad(
            "context_management.edits: expected an array of edits",
            "context_management.edits",
        )
    })?;
    let mut out = Vec::new();
    for (i, edit) in edits.iter().enumerate() {
        let at = format!("context_management.edits.{i}");
        let object = edit
            .as_object()
            .ok_or_else(|| bad(format!("{at}: expected an object"), &at))?;
        let kind = object.get("type").and_then(Value::as_str).unwrap_or_default();
        let edit = match kind {
            "compact_20260112" => compact(object, &at, betas)?,
            "clear_tool_uses_20250919" => clear_tool_uses(object, &at, betas)?,
            "clear_thinking_20251015" => clear_thinking(object, &at, betas, i)?,
            other => {
                return Err(bad(
                    format!(
                        "{at}.type: unknown edit {other:?}; expected compact_20260112, clear_tool_uses_20250919 or clear_thinking_20251015"
                    ),
                    &format!("{at}.type"),
                ));
            }
        };
        out.push(edit);
    }
    Ok(Some(out))
}

/// Whether a beta is among the header's, or an error naming it.
fn needs_beta(betas: &[&str], beta: &str, kind: &str, at: &str) -> Result<(), Unreadable> {
    if betas.iter().any(|b| b.trim() == beta) {
        Ok(())
    } else {
        Err(bad(
            format!("{at}: the {kind} edit requires the beta header `anthropic-beta: {beta}`"),
            at,
        ))
    }
}

fn compact(object: &Map<String, Value>, at: &str, betas: &[&str]) -> Result<Edit, Unreadable> {
    needs_beta(betas, COMPACT_BETA, "compact_20260112", at)?;
    let trigger = match typed(object, "trigger", at)? {
        None => 150_000,
        Some(("input_tokens", value)) => value,
        Some((other, _)) => {
            return Err(bad(
                format!("{at}.trigger.type: {other:?} is not a compaction trigger; expected \"input_tokens\""),
                &format!("{at}.trigger.type"),
            ));
        }
    };
    let mut preset = Preset::default_of("anthropic-compact").ok_or_else(|| bad("anthropic-compact is declared", at))?;
    set(
        &mut preset,
        "trigger",
        &trigger.to_string(),
        &format!("{at}.trigger.value"),
    )?;
    let pause = match object.get("pause_after_compaction") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            return Err(bad(
                format!("{at}.pause_after_compaction: expected true or false"),
                &format!("{at}.pause_after_compaction"),
            ));
        }
    };
    let instructions = match object.get("instructions") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(_) => {
            return Err(bad(
                format!("{at}.instructions: expected a non-empty string"),
                &format!("{at}.instructions"),
            ));
        }
    };
    Ok(Edit {
        preset,
        kind: "compact_20260112",
        pause,
        instructions,
    })
}

fn clear_tool_uses(object: &Map<String, Value>, at: &str, betas: &[&str]) -> Result<Edit, Unreadable> {
    needs_beta(betas, EDITING_BETA, "clear_tool_uses_20250919", at)?;
    let trigger = match typed(object, "trigger", at)? {
        None => ClearAt::InputTokens(100_000),
        Some(("input_tokens", value)) => ClearAt::InputTokens(value),
        Some(("tool_uses", value)) => ClearAt::ToolUses(value),
        Some((other, _)) => {
            return Err(bad(
                format!("{at}.trigger.type: {other:?}; expected \"input_tokens\" or \"tool_uses\""),
                &format!("{at}.trigger.type"),
            ));
        }
    };
    let keep = match typed(object, "keep", at)? {
        None => 3,
        Some(("tool_uses", value)) => value as usize,
        Some((other, _)) => {
            return Err(bad(
                format!("{at}.keep.type: {other:?}; expected \"tool_uses\""),
                &format!("{at}.keep.type"),
            ));
        }
    };
    let clear_at_least = match typed(object, "clear_at_least", at)? {
        None => 0,
        Some(("input_tokens", value)) => value,
        Some((other, _)) => {
            return Err(bad(
                format!("{at}.clear_at_least.type: {other:?}; expected \"input_tokens\""),
                &format!("{at}.clear_at_least.type"),
            ));
        }
    };
    let names = |value: &Value, key: &str| -> Result<Vec<String>, Unreadable> {
        value
            .as_array()
            .and_then(|a| a.iter().map(|v| v.as_str().map(str::to_owned)).collect())
            .ok_or_else(|| {
                bad(
                    format!("{at}.{key}: expected an array of tool names"),
                    &format!("{at}.{key}"),
                )
            })
    };
    let exclude = match object.get("exclude_tools") {
        None | Some(Value::Null) => Vec::new(),
        Some(v) => names(v, "exclude_tools")?,
    };
    let clear_inputs = match object.get("clear_tool_inputs") {
        None | Some(Value::Null | Value::Bool(false)) => ClearInputs::None,
        Some(Value::Bool(true)) => ClearInputs::All,
        Some(v) => ClearInputs::Tools(names(v, "clear_tool_inputs")?),
    };
    Ok(Edit {
        preset: Preset::AnthropicClear {
            trigger,
            keep,
            clear_at_least,
            exclude,
            clear_inputs,
            native: 200_000,
        },
        kind: "clear_tool_uses_20250919",
        pause: false,
        instructions: None,
    })
}

fn clear_thinking(object: &Map<String, Value>, at: &str, betas: &[&str], index: usize) -> Result<Edit, Unreadable> {
    needs_beta(betas, EDITING_BETA, "clear_thinking_20251015", at)?;
    if index > 0 {
        return Err(bad(
            format!("{at}: clear_thinking_20251015 must come first among the edits"),
            &format!("{at}.type"),
        ));
    }
    let keep = match object.get("keep") {
        None | Some(Value::Null) => ThinkingKeep::Turns(1),
        Some(Value::String(s)) if s == "all" => ThinkingKeep::All,
        Some(v) if v.get("type").and_then(Value::as_str) == Some("all") => ThinkingKeep::All,
        Some(v) if v.get("type").and_then(Value::as_str) == Some("thinking_turns") => {
            match v.get("value").and_then(Value::as_u64) {
                Some(n) => ThinkingKeep::Turns(n as usize),
                None => {
                    return Err(bad(
                        format!("{at}.keep.value: expected a whole number of at least 0"),
                        &format!("{at}.keep.value"),
                    ));
                }
            }
        }
        Some(_) => {
            return Err(bad(
                format!(
                    "{at}.keep: expected {{\"type\": \"thinking_turns\", \"value\": N}}, {{\"type\": \"all\"}} or \"all\""
                ),
                &format!("{at}.keep"),
            ));
        }
    };
    Ok(Edit {
        preset: Preset::AnthropicClearThinking { keep },
        kind: "clear_thinking_20251015",
        pause: false,
        instructions: None,
    })
}

/// OpenAI Responses' `context_management` (`None` when absent).
pub fn responses(body: &Value) -> Result<Option<Vec<Edit>>, Unreadable> {
    let Some(cm) = body.get("context_management").filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let entries = cm
        .as_array()
        .ok_or_else(|| bad("context_management: expected an array of entries", "context_management"))?;
    let mut out = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let at = format!("context_management[{i}]");
        let kind = entry.get("type").and_then(Value::as_str);
        if kind != Some("compaction") {
            return Err(bad(
                format!("{at}.type: currently only \"compaction\" is supported"),
                &format!("{at}.type"),
            ));
        }
        let threshold = match entry.get("compact_threshold") {
            None | Some(Value::Null) => None,
            Some(v) => Some(v.as_u64().filter(|&n| n > 0).ok_or_else(|| {
                bad(
                    format!("{at}.compact_threshold: expected a whole number of tokens above 0"),
                    &format!("{at}.compact_threshold"),
                )
            })?),
        };
        let mut preset = Preset::default_of("openai-compact").ok_or_else(|| bad("openai-compact is declared", &at))?;
        if let Preset::OpenaiCompact { threshold: t, mode, .. } = &mut preset {
            *mode = OpenaiMode::Server;
            if let Some(n) = threshold {
                *t = n;
            }
        }
        out.push(Edit {
            preset,
            kind: "compaction",
            pause: false,
            instructions: None,
        });
    }
    Ok(Some(out))
}

/// Sets a preset's parameter as the API's field gave it, its vendor's checks said at that field.
fn set(preset: &mut Preset, key: &str, value: &str, at: &str) -> Result<(), Unreadable> {
    let mut strategy = Strategy::preset(preset.clone());
    let name = preset.name();
    strategy.set_param(name, key, value).map_err(|e| {
        bad(
            format!("{at}: {}", e.0.replace(&format!("{name}.{key}"), "the value")),
            at,
        )
    })?;
    *preset = strategy.preset.ok_or_else(|| bad(format!("{at}: not a preset"), at))?;
    Ok(())
}

/// The server-side edits a preset stands for when `serve --strategy` names it, on the route of
/// `format`; `Err` with the words when the preset is not one a server makes, or not on that route.
pub fn of_preset(strategy: &Strategy, format: Format) -> Result<Vec<Edit>, PresetError> {
    let Some(preset) = &strategy.preset else {
        return Err(PresetError::NotAServers {
            strategy: strategy.to_string(),
        });
    };
    let (kind, route) = match preset {
        Preset::AnthropicCompact { .. } => ("compact_20260112", Format::Anthropic),
        Preset::AnthropicClear { .. } => ("clear_tool_uses_20250919", Format::Anthropic),
        Preset::AnthropicClearThinking { .. } => ("clear_thinking_20251015", Format::Anthropic),
        Preset::OpenaiCompact {
            mode: OpenaiMode::Server,
            ..
        } => ("compaction", Format::Responses),
        _ => {
            return Err(PresetError::InTheClient {
                name: preset.name().to_owned(),
            });
        }
    };
    if route != format {
        return Err(PresetError::OtherRoute {
            name: preset.name().to_owned(),
            api: route.title().to_owned(),
            asked: format.title().to_owned(),
            path: match format {
                Format::Chat => "/v1/chat/completions",
                Format::Anthropic => "/v1/messages",
                Format::Responses => "/v1/responses",
            }
            .to_owned(),
        });
    }
    Ok(vec![Edit {
        preset: preset.clone(),
        kind,
        pause: false,
        instructions: None,
    }])
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn edits_read_as_the_api_takes_them() {
        let betas = [COMPACT_BETA, EDITING_BETA];
        let body = json!({"context_management": {"edits": [
            {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 60000}, "pause_after_compaction": true},
            {"type": "clear_tool_uses_20250919", "trigger": {"type": "tool_uses", "value": 5}, "keep": {"type": "tool_uses", "value": 2},
             "exclude_tools": ["search"], "clear_tool_inputs": true}
        ]}});
        let edits = anthropic(&body, &betas).expect("valid").expect("present");
        assert_eq!(
            edits[0].strategy().to_string(),
            "anthropic-compact:trigger=60000,native=200000"
        );
        assert!(edits[0].pause && edits[0].compacts());
        assert_eq!(
            edits[1].strategy().to_string(),
            "anthropic-clear:trigger=tool_uses:5,keep=2,clear_at_least=0,exclude=search,clear_inputs=true,native=200000"
        );
        assert_eq!(anthropic(&json!({}), &betas), Ok(None));
        let refused = |body: Value, betas: &[&str]| {
            anthropic(&body, betas)
                .map(|_| ())
                .map_err(|(m, p)| (m, p.unwrap_or_default()))
        };
        let low = json!({"context_management": {"edits": [{"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 20000}}]}});
        let (message, param) = refused(low.clone(), &betas).expect_err("under the minimum");
        assert!(message.contains("must be at least 50000"), "{message}");
        assert_eq!(param, "context_management.edits.0.trigger.value");
        let (message, _) = refused(low, &[]).expect_err("no beta");
        assert!(message.contains("anthropic-beta: compact-2026-01-12"), "{message}");
        let late = json!({"context_management": {"edits": [
            {"type": "clear_tool_uses_20250919"}, {"type": "clear_thinking_20251015", "keep": "all"}]}});
        assert!(refused(late, &betas).expect_err("order").0.contains("must come first"));
        let unknown = json!({"context_management": {"edits": [{"type": "compact"}]}});
        assert!(
            refused(unknown, &betas)
                .expect_err("type")
                .0
                .contains("unknown edit \"compact\"")
        );
    }

    #[test]
    fn responses_compaction_reads_its_threshold() {
        let body = json!({"context_management": [{"type": "compaction", "compact_threshold": 100000}]});
        let edits = responses(&body).expect("valid").expect("present");
        assert_eq!(
            edits[0].strategy().to_string(),
            "openai-compact:threshold=100000,native=272000,mode=server"
        );
        let bad = json!({"context_management": [{"type": "summarize"}]});
        assert!(responses(&bad).is_err_and(|(m, _)| m.contains("only \"compaction\"")));
        let bad = json!({"context_management": [{"type": "compaction", "compact_threshold": "lots"}]});
        assert!(responses(&bad).is_err_and(|(m, _)| m.contains("whole number")));
    }

    #[test]
    fn only_a_servers_presets_serve_on_their_own_route() {
        let p = |s: &str| s.parse::<Strategy>().expect("parses");
        assert!(of_preset(&p("anthropic-compact"), Format::Anthropic).is_ok());
        assert!(of_preset(&p("openai-compact"), Format::Responses).is_ok());
        let err = of_preset(&p("anthropic-compact"), Format::Chat).expect_err("wrong route");
        assert!(matches!(&err, PresetError::OtherRoute { path, .. } if path == "/v1/chat/completions"));
        assert!(err.to_string().contains("Anthropic Messages API's"), "{err}");
        let err = of_preset(&p("claude-code"), Format::Anthropic).expect_err("a client's");
        assert!(err.to_string().contains("compacts in the client"), "{err}");
        assert!(matches!(
            of_preset(&p("drop"), Format::Chat),
            Err(PresetError::NotAServers { .. })
        ));
    }
}
