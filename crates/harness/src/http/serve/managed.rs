//! `serve` as a provider's server manages the context: a request is read from its last
//! compaction on (Anthropic drops the blocks before a `compaction` block, OpenAI the items
//! before a `compaction` item), then edited as it asks (`context_management`) by the preset
//! that simulates each edit, the server's own counter deciding; a compaction's summary call is
//! made and billed as the loop makes it, a line of its own in the run's trace. And
//! `POST /v1/responses/compact`: the client's whole input compacted into its user messages and
//! one compaction item.

use ctxbench_compact::compact::{Compactor, Summarizer, SummaryRequest};
use ctxbench_compact::conversation::Conversation;
use ctxbench_compact::message::{Message, Role};
use ctxbench_compact::summaries::COMPACTION;
use ctxbench_compact::wire::{CacheMarks, Format};
use serde_json::json;

use super::runs::{Asking, Run};
use super::{Endpoint, Response, lock};
use crate::agent::LoopSummarizer;
use crate::http::context::ServerView;
use crate::http::incoming::{Incoming, read_wire};
use crate::http::shapes;
use crate::sim::provider::Provider;
use crate::sim::scripted::ScriptedModel;
use crate::trace::{CallRecord, CompactionRecord};

/// Whether a message is a provider's compaction (its block or item) holding a summary.
fn is_compaction(message: &Message) -> bool {
    message.role() == Role::Assistant
        && message
            .content_str()
            .is_some_and(|t| t.strip_prefix(COMPACTION).is_some_and(|rest| rest.starts_with('\n')))
}

/// The summary a compaction message holds.
fn summary_of(message: &Message) -> String {
    let text = message.text();
    text.strip_prefix(COMPACTION)
        .map(|t| t.strip_prefix('\n').unwrap_or(t))
        .unwrap_or(&text)
        .to_owned()
}

/// A summarizer whose request ends with the client's `instructions` in place of the server's
/// prompt (Anthropic's `instructions` replace the default prompt wholly).
struct Instructed<'s, S> {
    inner: &'s mut S,
    instructions: Option<&'s str>,
}

impl<S: Summarizer> Summarizer for Instructed<'_, S> {
    fn summarize(&mut self, request: &SummaryRequest) -> Option<String> {
        let Some(instructions) = self.instructions else {
            return self.inner.summarize(request);
        };
        let mut asked = request.clone();
        if let Some(last) = asked.messages.last_mut() {
            *last = Message::new(Role::User, instructions);
        }
        self.inner.summarize(&asked)
    }
}

/// `marks`, the first `from` messages gone.
fn shifted(marks: Option<&CacheMarks>, from: usize) -> Option<CacheMarks> {
    marks.map(|m| CacheMarks {
        head: m.head,
        messages: m.messages.iter().filter(|&&i| i >= from).map(|&i| i - from).collect(),
    })
}

impl<'a> Endpoint<'a> {
    /// The run's model writing a compaction's summary, the call billed and traced as the loop's.
    fn summarizer<'r>(
        &'r self,
        run: &'r mut Run<'a>,
        on_call: &'r mut dyn FnMut(&CallRecord),
    ) -> LoopSummarizer<'r, Provider<ScriptedModel<'a>>> {
        LoopSummarizer {
            model: &mut run.server,
            trace: &mut run.trace,
            tokens_sent: &mut run.tokens_sent,
            clock_s: &mut run.clock_s,
            counter: self.counter.as_ref(),
            price: self.price.as_ref(),
            window: self.window,
            request: run.request,
            on_call,
        }
    }

    /// The request as the server reads it, when it manages anything: `None` when the history
    /// holds no compaction and the request asks for no edit.
    pub(super) fn manage(&self, run: &mut Run<'a>, incoming: &Incoming) -> Result<Option<ServerView>, Response> {
        let c = &incoming.conversation;
        let last = c.messages.iter().rposition(is_compaction);
        let edits = incoming.edits.as_deref().unwrap_or_default();
        if last.is_none() && edits.is_empty() {
            return Ok(None);
        }
        let from = last.unwrap_or(0);
        let mut view = ServerView {
            seen: Conversation {
                system: c.system.clone(),
                system_index: 0,
                messages: c.messages[from..].to_vec(),
                tools: run.tools.clone(),
            },
            marks: shifted(incoming.marks.as_ref(), from),
            record: None,
            limit: self.window,
            applied: Vec::new(),
            compaction: None,
            paused: false,
        };
        if run.managed.is_none() {
            run.managed = edits.first().map(|e| e.strategy());
        }
        let settings = &self.config.settings;
        let policy = settings
            .policy(self.scenario)
            .map_err(|e| Response::error(run.format, 400, &e.to_string(), None, None))?;
        let count = |v: &ServerView| {
            let seen = &v.seen;
            self.counter.count(seen.system.as_ref(), &seen.messages, &seen.tools)
        };
        for edit in edits {
            let mut compactor = Compactor::new(edit.strategy(), policy.clone(), settings.estimator.counter())
                .with_server_counter(self.counter.clone())
                .with_retries(settings.retries());
            view.limit = compactor.limit();
            let before = count(&view);
            let fingerprints = crate::agent::fidelity::fingerprints(&view.seen.messages);
            let calls = run.trace.len();
            let done = if edit.compacts() {
                let mut on_call = |_: &CallRecord| {};
                let mut inner = self.summarizer(run, &mut on_call);
                let mut summarizer = Instructed {
                    inner: &mut inner,
                    instructions: edit.instructions.as_deref(),
                };
                compactor.compact_with(&mut view.seen, &mut summarizer)
            } else {
                compactor.compact(&mut view.seen)
            };
            for record in &mut run.trace[calls..] {
                record.scenario.clone_from(&self.scenario.name);
                record.strategy.clone_from(&run.label);
            }
            if edit.compacts() {
                if let Some(first) = view
                    .seen
                    .messages
                    .first()
                    .filter(|m| done.changed() && is_compaction(m))
                {
                    view.compaction = Some((summary_of(first), run.trace.len() - 1));
                    view.marks = None;
                    view.paused = edit.pause;
                }
            } else {
                let freed = before.saturating_sub(count(&view));
                let (what, n) = match edit.kind {
                    "clear_thinking_20251015" => ("cleared_thinking_turns", done.counts.masked),
                    _ => ("cleared_tool_uses", done.counts.masked),
                };
                if n > 0 {
                    view.applied
                        .push(json!({"type": edit.kind, what: n, "cleared_input_tokens": freed}));
                }
            }
            // What the loop notes of its compactions, noted of the server's as well.
            let mut record = CompactionRecord::of(&done);
            let keep = policy.keep_recent_turns;
            let seen = &view.seen;
            crate::agent::fidelity::note(
                &mut record,
                (done.limit, keep),
                self.counter.as_ref(),
                seen,
                &fingerprints,
            );
            view.record = Some(match view.record.take() {
                Some(earlier) => earlier.and(record),
                None => record,
            });
        }
        Ok(Some(view))
    }

    /// `POST /v1/responses/compact`: the input compacted, as OpenAI's standalone compaction
    /// answers it: the user's messages, then one compaction item; the summary call billed in the
    /// run whose conversation it is (its first user message).
    pub(super) fn compact_route(&self, body: &[u8]) -> Response {
        let format = Format::Responses;
        if body.len() > self.config.max_body {
            return self.too_large_in(format);
        }
        let incoming = match read_wire(format, body, &[]) {
            Ok(incoming) => incoming,
            Err((message, param)) => return Response::error(format, 400, &message, param.as_deref(), None),
        };
        if !incoming.conversation.messages.iter().any(Message::is_request) {
            return Response::error(
                format,
                400,
                "input: there is no user message to compact.",
                Some("input"),
                None,
            );
        }
        let Some(run) = self.run(
            &incoming.conversation,
            incoming.user.clone(),
            Asking::Compaction,
            format,
        ) else {
            return Response::error(format, 400, "no conversation to compact", Some("input"), None);
        };
        let mut run = lock(&run);
        let run = &mut *run;
        if run.tools != incoming.conversation.tools {
            run.tools = incoming.conversation.tools.clone();
        }
        let strategy = "summarize:trigger=tokens>=0,place=first,tail=nothing,reads=history,carry=100%,style=compaction";
        let Ok(strategy) = strategy.parse() else {
            return Response::error(format, 500, "the compaction stage does not parse", None, None);
        };
        let settings = &self.config.settings;
        let policy = match settings.policy(self.scenario) {
            Ok(policy) => policy,
            Err(e) => return Response::error(format, 400, &e.to_string(), None, None),
        };
        let mut compactor =
            Compactor::new(strategy, policy, settings.estimator.counter()).with_retries(settings.retries());
        let mut seen = incoming.conversation.clone();
        let calls = run.trace.len();
        let mut on_call = |_: &CallRecord| {};
        let mut summarizer = self.summarizer(run, &mut on_call);
        compactor.compact_with(&mut seen, &mut summarizer);
        for record in &mut run.trace[calls..] {
            record.scenario.clone_from(&self.scenario.name);
            record.strategy.clone_from(&run.label);
        }
        let Some(record) = run
            .trace
            .get(calls..)
            .and_then(|r| r.last())
            .filter(|r| r.outcome == crate::trace::Outcome::Ok)
        else {
            return Response::error(
                format,
                500,
                "the compaction's summary call failed; send it again",
                None,
                None,
            );
        };
        let model = incoming.model.as_deref().unwrap_or(&self.scenario.name);
        Response::json(200, shapes::compacted(model, &seen.messages, record))
    }
}
