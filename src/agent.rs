//! The agent loop (the seed's `ask`): one history across requests, the compactor before every
//! model call, tool calls run and answered, `max_turns` agent and refetch calls per request.
//!
//! It is the loop a Rust agent would embed: generic over the [`Model`] (scripted or live) and the
//! [`Tools`]. It writes one [`CallRecord`] per model call, summary calls included, and stops
//! the run when the server rejects a request it cannot recover from.

use std::sync::Arc;

use crate::compact::{Compaction, Compactor, Pass, Summarizer, SummaryAsk};
use crate::conversation::Conversation;
use crate::message::{Message, Role};
use crate::model::{CallKind, Model, ModelError, ModelReply, ModelRequest};
use crate::tokens::TokenCounter;
use crate::tokens::usage::UsageEstimator;
use crate::tool_schemas::NO_TOOLS;
use crate::tools::Tools;
use crate::trace::{CallRecord, CompactionRecord, Outcome};

/// What the loop does when the server rejects a request as too long.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OnOverflow {
    /// Stop the run.
    Abort,
    /// Compact again with the true counter down to `window − reply_reserve`, resend once.
    CompactRetry,
}

impl OnOverflow {
    /// Parses a command-line name.
    pub fn parse(name: &str) -> Option<OnOverflow> {
        [OnOverflow::Abort, OnOverflow::CompactRetry]
            .into_iter()
            .find(|o| o.as_str() == name)
    }

    /// The command-line name.
    pub fn as_str(self) -> &'static str {
        match self {
            OnOverflow::Abort => "abort",
            OnOverflow::CompactRetry => "compact-retry",
        }
    }
}

/// How a request ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ask {
    /// The model answered (its last reply had no tool calls).
    Answered,
    /// No answer within `max_turns` (or the script had no step left).
    NoAnswer,
    /// The run cannot go on.
    Stopped(String),
}

/// The system prompt of a summary call.
pub const SUMMARIZER_PROMPT: &str = "You summarize the earlier part of a conversation between a user and an assistant \
so that the assistant can go on without it. Keep every identifier, number and decision exactly.";

/// Settings of the loop itself.
#[derive(Clone, Debug)]
pub struct LoopConfig {
    /// The context window, in tokens.
    pub window: u64,
    /// Tokens kept free for the reply.
    pub reply_reserve: u64,
    /// What to do on a context-length error.
    pub on_overflow: OnOverflow,
}

/// An agent: a model, its tools, a compactor, and the history they share.
pub struct Agent<M, T> {
    /// The model (behind its server).
    pub model: M,
    /// The tools.
    pub tools: T,
    /// The compactor, run before every call.
    pub compactor: Compactor,
    /// The conversation so far.
    pub conversation: Conversation,
    config: LoopConfig,
    true_counter: Arc<dyn TokenCounter>,
    estimator: Arc<dyn TokenCounter>,
    usage: Option<Arc<UsageEstimator>>,
    trace: Vec<CallRecord>,
    tokens_sent: u64,
}

impl<M: Model, T: Tools> Agent<M, T> {
    /// An agent starting from `conversation` (system prompt, preamble, tool schemas).
    /// `estimator` is the compactor's; when it is a `usage` estimator, pass it as `usage` too so
    /// the loop can report each accepted call to it.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        model: M,
        tools: T,
        compactor: Compactor,
        conversation: Conversation,
        config: LoopConfig,
        true_counter: Arc<dyn TokenCounter>,
        estimator: Arc<dyn TokenCounter>,
        usage: Option<Arc<UsageEstimator>>,
    ) -> Agent<M, T> {
        Agent {
            model,
            tools,
            compactor,
            conversation,
            config,
            true_counter,
            estimator,
            usage,
            trace: Vec::new(),
            tokens_sent: 0,
        }
    }

    /// The calls so far.
    pub fn trace(&self) -> &[CallRecord] {
        &self.trace
    }

    /// Takes the trace.
    pub fn into_trace(self) -> Vec<CallRecord> {
        self.trace
    }

    /// Answers one request: `request` is its number in the conversation (0-based).
    /// `on_call` sees each call's record as it happens.
    pub fn ask(
        &mut self,
        request: usize,
        user: Message,
        max_turns: usize,
        on_call: &mut dyn FnMut(&CallRecord),
    ) -> Ask {
        self.conversation.messages.push(user);
        for turn in 1..=max_turns {
            let limit = self.compactor.limit();
            let compaction = self.compact(request, limit, None, on_call);
            let reply = match self.call(request, turn, (compaction, limit), false, on_call) {
                Ok(reply) => reply,
                Err(ModelError::ScriptEnded) => return Ask::NoAnswer,
                Err(ModelError::ContextWindowExceeded { .. })
                    if self.config.on_overflow == OnOverflow::CompactRetry && !self.compactor.strategy().is_none() =>
                {
                    let limit = self.config.window.saturating_sub(self.config.reply_reserve);
                    let counter = self.true_counter.clone();
                    let compaction = self.compact(request, limit, Some(counter.as_ref()), on_call);
                    match self.call(request, turn, (compaction, limit), true, on_call) {
                        Ok(reply) => reply,
                        Err(e) => return Ask::Stopped(e.to_string()),
                    }
                }
                Err(e) => return Ask::Stopped(e.to_string()),
            };
            let calls: Vec<_> = reply.message.calls().collect();
            let results = if calls.is_empty() {
                None
            } else {
                Some(self.tools.answer(&calls))
            };
            self.conversation.messages.push(reply.message);
            match results {
                None => return Ask::Answered,
                Some(results) => self.conversation.messages.extend(results),
            }
        }
        Ask::NoAnswer
    }

    fn compact(
        &mut self,
        request: usize,
        limit: u64,
        counter: Option<&dyn TokenCounter>,
        on_call: &mut dyn FnMut(&CallRecord),
    ) -> CompactionRecord {
        let mut summarizer = LoopSummarizer {
            model: &mut self.model,
            trace: &mut self.trace,
            tokens_sent: &mut self.tokens_sent,
            estimator: self.estimator.as_ref(),
            window: self.config.window,
            limit,
            request,
            on_call,
        };
        let pass = Pass {
            limit,
            counter,
            summarizer: Some(&mut summarizer),
        };
        let done: Compaction = self.compactor.compact_with(&mut self.conversation, pass);
        CompactionRecord {
            tokens_before: done.tokens_before,
            tokens_after: done.tokens_after,
            truncated: done.counts.truncated,
            masked: done.counts.masked,
            dropped: done.counts.dropped,
            cannot_fit: done.cannot_fit,
            stages: done.stages.iter().filter(|s| s.ran).map(|s| s.stage.clone()).collect(),
        }
    }

    fn call(
        &mut self,
        request: usize,
        turn: usize,
        (compaction, limit): (CompactionRecord, u64),
        retry: bool,
        on_call: &mut dyn FnMut(&CallRecord),
    ) -> Result<ModelReply, ModelError> {
        let c = &self.conversation;
        let estimated_tokens = self.estimator.count(c.system.as_ref(), &c.messages, &c.tools);
        let req = ModelRequest {
            kind: CallKind::Agent,
            system: c.system.as_ref(),
            messages: &c.messages,
            tools: &c.tools,
            request,
            summary: None,
        };
        let result = self.model.complete(req);
        if matches!(result, Err(ModelError::ScriptEnded)) {
            return result;
        }
        let prefix = self
            .true_counter
            .tokens(self.true_counter.prefix_units(c.system.as_ref(), &c.tools));
        let mut record = CallRecord {
            strategy: self.compactor.name().to_owned(),
            turn,
            estimated_tokens,
            compaction: Some(compaction),
            retry,
            tokens_sent: self.tokens_sent,
            ..CallRecord::new(
                self.trace.len() + 1,
                request + 1,
                CallKind::Agent,
                self.config.window,
                limit,
            )
        };
        match &result {
            Ok(reply) => {
                record.accept(reply, prefix);
                if let Some(usage) = &self.usage {
                    let units = usage.prefix_units(c.system.as_ref(), &c.tools)
                        + c.messages.iter().map(|m| usage.message_units(m)).sum::<u64>();
                    usage.observe(reply.usage.prompt_tokens, units);
                }
            }
            Err(ModelError::ContextWindowExceeded { needed, .. }) => {
                record.true_tokens = *needed;
                record.outcome = Outcome::Overflow;
                let recoverable = !retry
                    && self.config.on_overflow == OnOverflow::CompactRetry
                    && !self.compactor.strategy().is_none();
                record.stops_run = !recoverable;
            }
            Err(ModelError::Pairing(_)) => {
                record.true_tokens = self.true_counter.count(c.system.as_ref(), &c.messages, &c.tools);
                record.outcome = Outcome::PairingError;
                record.stops_run = true;
            }
            Err(_) => {
                record.outcome = Outcome::Error;
                record.stops_run = true;
            }
        }
        self.tokens_sent += record.billed_tokens;
        record.tokens_sent = self.tokens_sent;
        on_call(&record);
        self.trace.push(record);
        result
    }
}

/// Makes `summarize`'s call through the agent's model, and records it.
struct LoopSummarizer<'a, M> {
    model: &'a mut M,
    trace: &'a mut Vec<CallRecord>,
    tokens_sent: &'a mut u64,
    estimator: &'a dyn TokenCounter,
    window: u64,
    limit: u64,
    request: usize,
    on_call: &'a mut dyn FnMut(&CallRecord),
}

impl<M: Model> Summarizer for LoopSummarizer<'_, M> {
    fn summarize(&mut self, span: &[Message], ask: &SummaryAsk) -> Option<String> {
        let system = Message::new(Role::System, SUMMARIZER_PROMPT);
        // The span as one user message; its oldest messages are left out until the request fits,
        // measured on the very text that is sent.
        let texts: Vec<std::borrow::Cow<'_, str>> = span.iter().map(Message::text).collect();
        let body = |from: usize| vec![Message::new(Role::User, texts[from..].join("\n"))];
        let mut from = 0;
        let mut messages = body(from);
        while from + 1 < texts.len() && self.estimator.count(Some(&system), &messages, &NO_TOOLS) > self.window {
            from += 1;
            messages = body(from);
        }
        let estimated_tokens = self.estimator.count(Some(&system), &messages, &NO_TOOLS);
        let req = ModelRequest {
            kind: CallKind::Summary,
            system: Some(&system),
            messages: &messages,
            tools: &NO_TOOLS,
            request: self.request,
            summary: Some(ask),
        };
        let result = self.model.complete(req);
        let (true_tokens, billed, completion, outcome) = match &result {
            Ok(reply) => (
                reply.usage.prompt_tokens,
                reply.usage.prompt_tokens,
                reply.usage.completion_tokens,
                Outcome::Ok,
            ),
            Err(ModelError::ContextWindowExceeded { needed, .. }) => (*needed, 0, 0, Outcome::Overflow),
            Err(ModelError::Pairing(_)) => (0, 0, 0, Outcome::PairingError),
            Err(_) => (0, 0, 0, Outcome::Error),
        };
        *self.tokens_sent += billed;
        let record = CallRecord {
            estimated_tokens,
            true_tokens,
            billed_tokens: billed,
            completion_tokens: completion,
            outcome,
            tokens_sent: *self.tokens_sent,
            ..CallRecord::new(
                self.trace.len() + 1,
                self.request + 1,
                CallKind::Summary,
                self.window,
                self.limit,
            )
        };
        (self.on_call)(&record);
        self.trace.push(record);
        result.ok().map(|reply| reply.message.text().into_owned())
    }
}
