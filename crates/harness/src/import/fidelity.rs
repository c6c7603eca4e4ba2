//! The proof that an import is faithful: replay the scenario through the real agent loop with
//! `none` and a window that never binds, and check that each model call receives exactly the
//! messages the log had before the assistant message that call produced, byte for byte; for a
//! log of another wire format, that those messages, written in the log's own format, are the
//! log's body up to that call, byte for byte ([`own_format`]).

use ctxbench_compact::compact::Strategy;
use ctxbench_compact::message::Message;
use ctxbench_compact::request_body::RequestBody;
use ctxbench_compact::wire::Format;
use serde_json::{Map, Value};
use std::sync::Arc;

use crate::agent::model::{Model, ModelError, ModelReply, ModelRequest};
use crate::run::run_with_model;
use crate::scenario::parse_scenario;
use crate::settings::RunSettings;
use crate::sim::scripted::ScriptedModel;
use crate::trace::{CallKind, CallRecord};

/// A window no logged conversation reaches.
const UNBOUNDED: u64 = 1 << 40;

/// The replay's trace, or where it first differs from the log. `replay` gives the price, cache
/// and clock; the strategy is `none` and the window unbounded whatever it says.
pub(crate) fn check(
    file: &Value,
    source_name: &str,
    log: &[Message],
    calls_at: &[usize],
    replay: &RunSettings,
) -> Result<Vec<CallRecord>, FidelityError> {
    let scenario =
        parse_scenario(&file.to_string(), source_name, 0).map_err(|e| FidelityError::NotLoaded(Arc::new(e)))?;
    let expected: Vec<String> = log.iter().map(json).collect();
    let mut state = Compare {
        expected: &expected,
        calls_at,
        call: 0,
        first_difference: None,
    };
    let settings = RunSettings {
        strategy: Strategy::none().into(),
        window: Some(UNBOUNDED),
        ..replay.clone()
    };
    let model = Recorder {
        inner: ScriptedModel::new(&scenario, 0),
        state: &mut state,
    };
    let result = run_with_model(&scenario, &settings, model, &mut |_| {})?;
    if let Some(difference) = state.first_difference {
        return Err(difference);
    }
    if state.call != calls_at.len() {
        return Err(FidelityError::CallCount {
            replayed: state.call,
            logged: calls_at.len(),
        });
    }
    Ok(result.trace)
}

/// For a log of another wire format: each model call's request, the log's messages before that
/// call's reply written in the log's format (from the pieces they came from, as `compact` writes
/// a body back), is the logged body cut before that reply's items: the same top level, and the
/// same items, byte for byte (unknown fields, block order, `cache_control` marks, signatures).
/// `log` is the body's history (system prompt in its place), `text` the body as logged.
pub(crate) fn own_format(
    body: &RequestBody,
    text: &str,
    log: &[Message],
    calls_at: &[usize],
) -> Result<(), FidelityError> {
    if body.format() == Format::Chat {
        return Ok(());
    }
    let key = body.format().list_key();
    let logged: Value = serde_json::from_str(text).map_err(|e| FidelityError::NotJson(Arc::new(e)))?;
    let Some((top, items)) = parts(&logged, key) else {
        return Ok(());
    };
    let name = body.format().title();
    for (k, &at) in calls_at.iter().enumerate() {
        let call = k + 1;
        let cut = log
            .get(at)
            .and_then(|reply| body.wire_items(reply))
            .map(|items| items.start)
            .ok_or(FidelityError::NoItem { call, key })?;
        let written = body.write_with(&log[..at]);
        let (written_top, written_items) = parts(&written, key).unwrap_or((None, &[]));
        let logged_items = &items[..cut.min(items.len())];
        let differs = (0..cut.max(written_items.len())).find(|&i| match (written_items.get(i), logged_items.get(i)) {
            (Some(w), Some(l)) => !same(w, l),
            _ => true,
        });
        if let Some(i) = differs {
            let show = |m: Option<&Value>| m.map_or("nothing".to_owned(), |m| clip(&m.to_string()));
            return Err(FidelityError::ItemDiffers {
                call,
                format: name,
                key,
                index: i,
                written: show(written_items.get(i)),
                logged: show(logged_items.get(i)),
            });
        }
        let fields_same = match (written_top, top) {
            (None, None) => true,
            (Some(w), Some(t)) => same_beside(w, t, key),
            _ => false,
        };
        if !fields_same {
            return Err(FidelityError::FieldsDiffer {
                call,
                format: name,
                key,
            });
        }
    }
    Ok(())
}

/// A body's top level (`None` for a bare list) and its list.
type Parts<'v> = (Option<&'v Map<String, Value>>, &'v [Value]);

/// The parts of a body whose list is under `key`; `None` when it has no list there.
fn parts<'v>(body: &'v Value, key: &str) -> Option<Parts<'v>> {
    match body {
        Value::Array(items) => Some((None, items)),
        Value::Object(top) => match top.get(key) {
            Some(Value::Array(items)) => Some((Some(top), items)),
            _ => None,
        },
        _ => None,
    }
}

/// Whether two top levels are written as the same bytes but for the value of `key` (its place
/// among them counts).
fn same_beside(a: &Map<String, Value>, b: &Map<String, Value>, key: &str) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((ka, va), (kb, vb))| ka == kb && (ka == key || same(va, vb)))
}

/// Whether two values are written as the same bytes: equal, and their objects' keys in the same
/// order (serde_json's own equality ignores the order).
/// Why an imported scenario does not replay its log byte for byte: where it first differs.
#[derive(Clone, Debug, thiserror::Error)]
pub enum FidelityError {
    /// The scenario written does not load.
    #[error("it does not load: {0}")]
    NotLoaded(Arc<crate::Error>),
    /// The replay's settings cannot run it.
    #[error(transparent)]
    Settings(#[from] crate::settings::SettingsError),
    /// The replay made a model call past the log's last.
    #[error("model call {call}: the log has no such call")]
    NoSuchCall {
        /// The call (1-based).
        call: usize,
    },
    /// A model call was sent other messages than the log had before its reply.
    #[error("model call {call} (before messages[{at}]): message {index} is {sent}, the log has {logged}")]
    MessageDiffers {
        /// The call (1-based).
        call: usize,
        /// The log's index of the call's reply.
        at: usize,
        /// The first message that differs.
        index: usize,
        /// What was sent (clipped), or `nothing`.
        sent: String,
        /// What the log has (clipped), or `nothing`.
        logged: String,
    },
    /// The replay made fewer model calls than the log.
    #[error("the replay made {replayed} model calls, the log has {logged}")]
    CallCount {
        /// Calls the replay made.
        replayed: usize,
        /// Calls the log has.
        logged: usize,
    },
    /// The log's text no longer parses (it did when it was imported).
    #[error("the log is no longer JSON: {0}")]
    NotJson(Arc<serde_json::Error>),
    /// A call's reply that came from no item of the log's own format.
    #[error("model call {call}: its reply came from no item of the log's {key}")]
    NoItem {
        /// The call (1-based).
        call: usize,
        /// The format's list (`messages`, `input`).
        key: &'static str,
    },
    /// A call's request, written in the log's format, differs from the log's body at an item.
    #[error("model call {call}, written as {format}: {key}[{index}] is {written}, the log has {logged}")]
    ItemDiffers {
        /// The call (1-based).
        call: usize,
        /// The format's title.
        format: &'static str,
        /// The format's list (`messages`, `input`).
        key: &'static str,
        /// The first item that differs.
        index: usize,
        /// What was written (clipped), or `nothing`.
        written: String,
        /// What the log has (clipped), or `nothing`.
        logged: String,
    },
    /// A call's request, written in the log's format, differs from the log's body beside its
    /// list.
    #[error("model call {call}, written as {format}: the fields beside {key} differ from the log's")]
    FieldsDiffer {
        /// The call (1-based).
        call: usize,
        /// The format's title.
        format: &'static str,
        /// The format's list (`messages`, `input`).
        key: &'static str,
    },
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|((ka, va), (kb, vb))| ka == kb && same(va, vb))
        }
        (Value::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same(a, b)),
        _ => a == b,
    }
}

fn json(message: &Message) -> String {
    serde_json::to_string(message).unwrap_or_default()
}

struct Compare<'a> {
    /// The log's messages, serialised.
    expected: &'a [String],
    /// Where each model call's assistant message stands in the log.
    calls_at: &'a [usize],
    /// Agent calls seen so far.
    call: usize,
    first_difference: Option<FidelityError>,
}

impl Compare<'_> {
    fn see(&mut self, request: &ModelRequest<'_>) {
        let k = self.call;
        self.call += 1;
        if self.first_difference.is_some() {
            return;
        }
        let Some(&at) = self.calls_at.get(k) else {
            self.first_difference = Some(FidelityError::NoSuchCall { call: k + 1 });
            return;
        };
        let sent: Vec<String> = request.system.into_iter().chain(request.messages).map(json).collect();
        let want = &self.expected[..at];
        let difference = (0..sent.len().max(want.len())).find(|&i| sent.get(i) != want.get(i));
        if let Some(i) = difference {
            let show = |m: Option<&String>| m.map_or("nothing".to_owned(), |m| clip(m));
            self.first_difference = Some(FidelityError::MessageDiffers {
                call: k + 1,
                at,
                index: i,
                sent: show(sent.get(i)),
                logged: show(want.get(i)),
            });
        }
    }
}

fn clip(text: &str) -> String {
    const MAX: usize = 160;
    match text.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The scripted model, with every agent request it receives compared to the log.
struct Recorder<'m, 'c, 's> {
    inner: ScriptedModel<'s>,
    state: &'m mut Compare<'c>,
}

impl Model for Recorder<'_, '_, '_> {
    fn complete(&mut self, request: ModelRequest<'_>) -> Result<ModelReply, ModelError> {
        let reply = self.inner.complete(request);
        // A call the script has no step for is never made: the replay ends there.
        if request.kind == CallKind::Agent && !matches!(reply, Err(ModelError::ScriptEnded)) {
            self.state.see(&request);
        }
        reply
    }
}

#[cfg(test)]
mod tests {
    use ctxbench_compact::message::Role;

    use super::*;

    /// A small Anthropic body: thinking with its signature, a call, its result beside the next
    /// question in one user message, a `cache_control` mark and a field ctxbench does not know.
    const BODY: &str = r#"{"model":"claude-sonnet-4-5","max_tokens":1024,"system":[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"Where is order 7?"},{"role":"assistant","content":[{"type":"thinking","thinking":"Look it up.","signature":"c2lnLTE="},{"type":"tool_use","id":"toolu_1","name":"find","input":{"order":7}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"shipped","x_seen":true},{"type":"text","text":"And order 8?","cache_control":{"type":"ephemeral"}}]},{"role":"assistant","content":[{"type":"text","text":"Order 7 shipped; 8 I will check."}]}]}"#;

    fn calls_at(log: &[Message]) -> Vec<usize> {
        (0..log.len()).filter(|&i| log[i].role() == Role::Assistant).collect()
    }

    #[test]
    fn each_call_written_in_its_own_format_is_the_logs_body_up_to_it() {
        let body = RequestBody::parse(BODY, "body.json").expect("an Anthropic body");
        assert_eq!(body.format(), Format::Anthropic);
        let log = body.conversation.clone().into_messages();
        assert!(own_format(&body, BODY, &log, &calls_at(&log)).is_ok());
    }

    #[test]
    fn a_body_that_differs_in_its_own_format_is_caught_where_it_differs() {
        let body = RequestBody::parse(BODY, "body.json").expect("an Anthropic body");
        let log = body.conversation.clone().into_messages();
        let at = calls_at(&log);
        // The same conversation in chat form, logged with another signature, an unknown field
        // more, or another model: only the bytes of the body's own format differ.
        let signature = BODY.replace("c2lnLTE=", "c2lnLTI=");
        let err = own_format(&body, &signature, &log, &at).expect_err("another signature");
        assert!(
            matches!(
                err,
                FidelityError::ItemDiffers {
                    call: 2,
                    key: "messages",
                    index: 1,
                    ..
                }
            ),
            "{err:?}"
        );
        let err = err.to_string();
        assert!(
            err.starts_with("model call 2, written as Anthropic Messages: messages[1] is"),
            "{err}"
        );
        let field = BODY.replace(r#","x_seen":true"#, "");
        let err = own_format(&body, &field, &log, &at).expect_err("a field less");
        assert!(matches!(err, FidelityError::ItemDiffers { index: 2, .. }), "{err:?}");
        assert!(err.to_string().contains("messages[2]"), "{err}");
        let model = BODY.replace("claude-sonnet-4-5", "claude-opus-4-5");
        let err = own_format(&body, &model, &log, &at).expect_err("another model");
        assert!(
            matches!(
                err,
                FidelityError::FieldsDiffer {
                    call: 1,
                    key: "messages",
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("the fields beside messages differ"), "{err}");
        let err = own_format(&body, "{", &log, &at).expect_err("not JSON");
        assert!(matches!(err, FidelityError::NotJson(_)), "{err:?}");
    }
}
