//! One model call `serve` answers: placed in its run's script, the server's context management
//! applied, played by the scripted model behind the simulated provider, recorded and billed as
//! a run in process records it, and answered in the route's own shape.

use ctxbench_compact::compact::{SummaryAsk, is_summary};
use ctxbench_compact::message::Message;

use super::runs::Run;
use super::{Endpoint, Response};
use crate::agent::model::{Model, ModelError, ModelRequest};
use crate::agent::record::{CallPlace, call_record};
use crate::billing::segments::{PrefixChange, PrefixTracker, Segments};
use crate::http::incoming::Incoming;
use crate::http::shapes;
use crate::http::stream::{self, Pace};
use crate::scenario::FixtureTools;
use crate::trace::{CallKind, CallRecord};
use ctxbench_compact::wire::Format;

impl<'a> Endpoint<'a> {
    /// Plays one call of `run` (a summary call when it comes with `ask`) and answers it in
    /// `format`, named `model`: placed, the server's edits applied, recorded in the run's trace.
    pub(super) fn call(
        &self,
        run: &mut Run<'a>,
        incoming: &Incoming,
        ask: Option<&SummaryAsk>,
        model: &str,
        format: Format,
    ) -> Response {
        let c = &incoming.conversation;
        let kind = if ask.is_some() {
            CallKind::Summary
        } else {
            CallKind::Agent
        };
        run.clock_s += std::mem::take(&mut run.tool_s);
        let turn = match kind {
            CallKind::Agent => match self.place(run, &c.messages) {
                Ok(turn) => turn,
                Err(e) => return Response::error(format, 400, &e, Some("messages"), Some("ctxbench_unknown_request")),
            },
            _ => 0,
        };
        if run.tools != c.tools {
            run.tools = c.tools.clone();
        }
        // What the server reads, as a provider's does: from the last compaction on, edited as
        // the request asks (cleared, compacted).
        let managed = match kind {
            CallKind::Agent => match self.manage(run, incoming) {
                Ok(managed) => managed,
                Err(response) => return response,
            },
            _ => None,
        };
        if let Some(view) = managed.as_ref().filter(|m| m.paused) {
            // `pause_after_compaction`: the compaction alone; the client sends again to go on.
            run.paused = view.record.clone();
            let body = shapes::paused(format, model, view, &run.trace);
            return Response::reply(format, body, incoming.stream, Pace::NOW);
        }
        let edited = managed.as_ref().and_then(|m| m.record.clone());
        let record = match (run.paused.take(), edited) {
            (Some(paused), Some(now)) => Some(paused.and(now)),
            (paused, now) => paused.or(now),
        };
        let (system, messages, marks) = match &managed {
            Some(view) => (view.seen.system.as_ref(), &view.seen.messages, view.marks.as_ref()),
            None => (c.system.as_ref(), &c.messages, incoming.marks.as_ref()),
        };
        let req = ModelRequest {
            kind,
            system,
            messages,
            tools: &run.tools,
            request: run.request,
            summary: ask,
            at_s: run.clock_s,
            marks,
        };
        let result = run.server.complete(req);
        if matches!(result, Err(ModelError::ScriptEnded)) {
            let ended = shapes::script_ended(format, run.trace.len() + 1, model);
            return Response::reply(format, ended, incoming.stream, Pace::NOW);
        }
        let window = self.window;
        let prefix = match (&result, kind) {
            (Ok(_), CallKind::Agent) => {
                run.prefix
                    .observe(Segments::of(self.counter.as_ref(), system, messages, &run.tools))
            }
            _ => PrefixChange::default(),
        };
        let place = CallPlace {
            call: run.trace.len() + 1,
            request: run.request + 1,
            turn,
            window,
            limit: managed.as_ref().map_or(window, |m| m.limit),
            estimated_tokens: 0,
            compaction: record,
            retry: false,
            tokens_sent: run.tokens_sent,
            prefix,
        };
        let record = CallRecord {
            scenario: self.scenario.name.clone(),
            strategy: run.label.clone(),
            ..call_record(place, &req, self.counter.as_ref(), &result, self.price.as_ref())
        };
        let response = match result {
            Ok(reply) => {
                if let (Some(step), CallKind::Agent) = (reply.facts.step, reply.kind) {
                    run.played.insert(step);
                }
                let mut body = shapes::reply(format, model, reply.message, &record);
                if let Some(view) = &managed {
                    shapes::server_side(format, &mut body, view, &run.trace);
                }
                Response::reply(format, body, incoming.stream, self.pace(&record))
            }
            Err(e) => failure(format, &e, &record, model, incoming.stream),
        };
        run.tokens_sent = record.tokens_sent;
        run.clock_s += record.latency_s;
        run.trace.push(record);
        response
    }

    /// Places an agent call in `run`'s script by `messages` (its last user message and the
    /// assistant turns after it), moving the run's clock on to a new request or back to the
    /// start of a conversation begun again: the call's turn in its request, or why it fits
    /// nowhere.
    fn place(&self, run: &mut Run<'a>, messages: &[Message]) -> Result<usize, String> {
        let request = run.server.inner_mut().place(messages).map_err(|e| e.to_string())?;
        let last_user = messages.iter().rposition(Message::is_request).unwrap_or(0);
        let turn = 1 + messages[last_user..]
            .iter()
            .filter(|m| m.role() == ctxbench_compact::Role::Assistant && !is_summary(m))
            .count();
        if request == 0 && turn == 1 && !run.trace.is_empty() {
            // The conversation starts over: a cold cache and a clock from 0, as a run has.
            run.clock_s = 0.0;
            run.prefix = PrefixTracker::default();
            run.fixtures = FixtureTools::new(&self.scenario.tools);
            run.server.clear_cache();
        } else if request > run.request {
            run.clock_s += self
                .config
                .settings
                .idle_s
                .unwrap_or(self.scenario.requests[request].idle_s);
        }
        run.request = request;
        Ok(turn)
    }

    /// When a call's first token and its end are due: the first after the overhead and the
    /// prefill, the end at the call's latency (the reply written at the decode rate between).
    fn pace(&self, record: &CallRecord) -> Pace {
        let decode_s = record.completion_tokens as f64 / self.config.settings.latency.decode_tps;
        Pace {
            first_s: (record.latency_s - decode_s).max(0.0),
            last_s: record.latency_s,
        }
    }
}

/// The answer to a call the server refused (`e`, recorded as `record`): OpenAI's shape of a
/// request over the window or of broken pairing; a failure once under way said in its stream's
/// own event when the request asked for one (`streamed`: whether chat's usage chunk was asked for).
fn failure(format: Format, e: &ModelError, record: &CallRecord, model: &str, streamed: Option<bool>) -> Response {
    match e {
        ModelError::ContextWindowExceeded { needed, limit } => Response::error(
            format,
            400,
            &shapes::too_long(format, *needed, *limit),
            Some("messages"),
            Some("context_length_exceeded"),
        ),
        ModelError::Pairing(broken) => Response::error(
            format,
            400,
            &format!(
                "Invalid parameter: messages with role 'tool' must be a response to a preceding message \
                 with 'tool_calls', and every call needs its result ({broken})."
            ),
            Some("messages"),
            None,
        ),
        // A failure once under way: a stream has begun, and says so in its own event.
        e => match streamed {
            Some(usage_chunk) => Response::events(stream::failure(
                format,
                &shapes::script_ended(format, record.call, model),
                &e.to_string(),
                usage_chunk,
            )),
            None => Response::error(format, 500, &e.to_string(), None, None),
        },
    }
}
