//! The proof that an import is faithful: replay the scenario through the real agent loop with
//! `none` and a window that never binds, and check that each model call receives exactly the
//! messages the log had before the assistant message that call produced, byte for byte.

use ctxbench_compact::compact::Strategy;
use ctxbench_compact::message::Message;
use serde_json::Value;

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
) -> Result<Vec<CallRecord>, String> {
    let scenario = parse_scenario(&file.to_string(), source_name, 0).map_err(|e| format!("it does not load: {e}"))?;
    let expected: Vec<String> = log.iter().map(json).collect();
    let mut state = Compare {
        expected: &expected,
        calls_at,
        call: 0,
        first_difference: None,
    };
    let settings = RunSettings {
        strategy: Strategy::none(),
        window: Some(UNBOUNDED),
        ..replay.clone()
    };
    let model = Recorder {
        inner: ScriptedModel::new(&scenario, 0),
        state: &mut state,
    };
    let result = run_with_model(&scenario, &settings, model, &mut |_| {}).map_err(|e| e.to_string())?;
    if let Some(difference) = state.first_difference {
        return Err(difference);
    }
    if state.call != calls_at.len() {
        return Err(format!(
            "the replay made {} model calls, the log has {}",
            state.call,
            calls_at.len()
        ));
    }
    Ok(result.trace)
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
    first_difference: Option<String>,
}

impl Compare<'_> {
    fn see(&mut self, request: &ModelRequest<'_>) {
        let k = self.call;
        self.call += 1;
        if self.first_difference.is_some() {
            return;
        }
        let Some(&at) = self.calls_at.get(k) else {
            self.first_difference = Some(format!("model call {}: the log has no such call", k + 1));
            return;
        };
        let sent: Vec<String> = request.system.into_iter().chain(request.messages).map(json).collect();
        let want = &self.expected[..at];
        let difference = (0..sent.len().max(want.len())).find(|&i| sent.get(i) != want.get(i));
        if let Some(i) = difference {
            let show = |m: Option<&String>| m.map_or("nothing".to_owned(), |m| clip(m));
            self.first_difference = Some(format!(
                "model call {} (before messages[{at}]): message {i} is {}, the log has {}",
                k + 1,
                show(sent.get(i)),
                show(want.get(i)),
            ));
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
