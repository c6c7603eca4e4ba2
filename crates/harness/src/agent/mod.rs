//! The agent loop (the reference listing's `ask`): one history across requests, the compactor before every
//! model call, tool calls run and answered, `max_turns` agent and refetch calls per request.
//!
//! It is the loop a Rust agent would embed: generic over the [`Model`] (scripted or live) and the
//! [`Tools`]. It writes one [`CallRecord`] per model call, summary calls included, and stops
//! the run when the server rejects a request it cannot recover from.

pub(crate) mod fidelity;
pub mod model;
pub mod record;
pub mod tools;

use std::sync::Arc;

use ctxbench_compact::compact::{Compaction, Compactor, Summarizer, SummaryRequest};
use ctxbench_compact::conversation::Conversation;
use ctxbench_compact::message::Message;
use ctxbench_compact::tokens::TokenCounter;

use crate::agent::model::{Model, ModelError, ModelReply, ModelRequest};
use crate::agent::record::{CallPlace, call_record};
use crate::agent::tools::Tools;
use crate::billing::price::Price;
use crate::billing::segments::{PrefixChange, PrefixTracker, Segments};
use crate::trace::CallKind;
use crate::trace::{CallRecord, CompactionRecord, Outcome};

ctxbench_compact::named! {
    /// What the loop does when the server rejects a request as too long (`--on-overflow`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum OnOverflow {
        /// Stop the run.
        Abort = "abort",
        /// Compact again with the true count, down to the window less the reply reserve, and
        /// resend once.
        CompactRetry = "compact-retry",
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

/// What the loop needs besides its parts: the server's counter, what to do on an overflow,
/// what tokens cost and how long the provider keeps a prompt cache.
#[derive(Clone)]
pub struct LoopOptions {
    /// The counter the server bills with: it measures what an accepted call's prefix cost, and
    /// decides the compaction after an overflow.
    pub true_counter: Arc<dyn TokenCounter>,
    /// What to do on a context-length error.
    pub on_overflow: OnOverflow,
    /// What tokens cost; `None`: costs are not computed.
    pub price: Option<Price>,
    /// Seconds the provider keeps an unused prompt cache; `None`: it keeps none. Past it, the
    /// compactor is told the cache went cold.
    pub cache_ttl_s: Option<u64>,
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
    options: LoopOptions,
    trace: Vec<CallRecord>,
    tokens_sent: u64,
    /// The simulated clock, in seconds since the run began.
    clock_s: f64,
    /// When the last accepted call ended; `None` before the first.
    last_call_end_s: Option<f64>,
    prefix: PrefixTracker,
    /// The history's fingerprints before the compaction under way (a buffer kept across calls).
    before: Vec<u64>,
}

impl<M: Model, T: Tools> Agent<M, T> {
    /// An agent starting from `conversation` (system prompt, preamble, tool schemas).
    pub fn new(
        model: M,
        tools: T,
        compactor: Compactor,
        conversation: Conversation,
        options: LoopOptions,
    ) -> Agent<M, T> {
        Agent {
            model,
            tools,
            compactor,
            conversation,
            options,
            trace: Vec::new(),
            tokens_sent: 0,
            clock_s: 0.0,
            last_call_end_s: None,
            prefix: PrefixTracker::default(),
            before: Vec::new(),
        }
    }

    /// Lets `seconds` pass on the clock (the user's idle time before a request).
    pub fn wait(&mut self, seconds: f64) {
        self.clock_s += seconds;
    }

    /// The simulated clock, in seconds since the run began.
    pub fn clock_s(&self) -> f64 {
        self.clock_s
    }

    /// The calls so far.
    pub fn trace(&self) -> &[CallRecord] {
        &self.trace
    }

    /// Takes the trace.
    pub fn into_trace(self) -> Vec<CallRecord> {
        self.trace
    }

    /// Whether a context-length error can be recovered from by compacting again.
    fn recovers_from_overflow(&self) -> bool {
        self.options.on_overflow == OnOverflow::CompactRetry && !self.compactor.strategy().is_none()
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
            let compaction = self.compact(request, false, on_call);
            let at = Turn {
                request,
                turn,
                retry: false,
            };
            let reply = match self.call(at, compaction, on_call) {
                Ok(reply) => reply,
                Err(ModelError::ScriptEnded) => return Ask::NoAnswer,
                Err(ModelError::ContextWindowExceeded { .. }) if self.recovers_from_overflow() => {
                    let compaction = self.compact(request, true, on_call);
                    match self.call(Turn { retry: true, ..at }, compaction, on_call) {
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
                Some(results) => {
                    self.clock_s += results.seconds;
                    self.conversation.messages.extend(results.messages);
                }
            }
        }
        Ask::NoAnswer
    }

    /// Compacts before a call (after an overflow: with the server's counter, to the hard limit).
    fn compact(
        &mut self,
        request: usize,
        after_overflow: bool,
        on_call: &mut dyn FnMut(&CallRecord),
    ) -> (CompactionRecord, u64) {
        // The provider drops a prompt cache nobody used for its lifetime.
        let cold = match (self.options.cache_ttl_s, self.last_call_end_s) {
            (Some(ttl), Some(end)) => self.clock_s - end > ttl as f64,
            _ => false,
        };
        self.compactor.set_cache_cold(cold);
        let mut summarizer = LoopSummarizer {
            model: &mut self.model,
            trace: &mut self.trace,
            tokens_sent: &mut self.tokens_sent,
            clock_s: &mut self.clock_s,
            counter: self.options.true_counter.as_ref(),
            price: self.options.price.as_ref(),
            window: self.compactor.policy().window,
            request,
            on_call,
        };
        // `none` removes nothing: no floor, no headroom to speak of.
        let noted = !self.compactor.strategy().is_none();
        self.before.clear();
        if noted {
            self.before
                .extend(self.conversation.messages.iter().map(Message::fingerprint));
        }
        let done: Compaction = if after_overflow {
            let counter = self.options.true_counter.clone();
            self.compactor
                .compact_after_overflow(&mut self.conversation, counter.as_ref(), Some(&mut summarizer))
        } else {
            self.compactor.compact_with(&mut self.conversation, &mut summarizer)
        };
        let mut record = CompactionRecord::of(&done);
        let keep = self.compactor.policy().keep_recent_turns;
        let counter = self.options.true_counter.as_ref();
        if noted {
            fidelity::note(
                &mut record,
                (done.limit, keep),
                counter,
                &self.conversation,
                &self.before,
            );
        }
        (record, done.limit)
    }

    fn call(
        &mut self,
        Turn { request, turn, retry }: Turn,
        (compaction, limit): (CompactionRecord, u64),
        on_call: &mut dyn FnMut(&CallRecord),
    ) -> Result<ModelReply, ModelError> {
        let c = &self.conversation;
        let estimator = self.compactor.estimator();
        let estimated_tokens = estimator.count(c.system.as_ref(), &c.messages, &c.tools);
        let req = ModelRequest {
            kind: CallKind::Agent,
            system: c.system.as_ref(),
            messages: &c.messages,
            tools: &c.tools,
            request,
            summary: None,
            at_s: self.clock_s,
            marks: None,
        };
        let result = self.model.complete(req);
        if matches!(result, Err(ModelError::ScriptEnded)) {
            return result;
        }
        let counter = self.options.true_counter.as_ref();
        let prefix = match &result {
            Ok(_) => self
                .prefix
                .observe(Segments::of(counter, c.system.as_ref(), &c.messages, &c.tools)),
            Err(_) => PrefixChange::default(),
        };
        let place = CallPlace {
            call: self.trace.len() + 1,
            request: request + 1,
            turn,
            window: self.compactor.policy().window,
            limit,
            estimated_tokens,
            compaction: Some(compaction),
            retry,
            tokens_sent: self.tokens_sent,
            prefix,
        };
        let mut record = call_record(place, &req, counter, &result, self.options.price.as_ref());
        record.strategy = self.compactor.name().to_owned();
        match &result {
            Ok(reply) => {
                self.compactor.observe(c, reply.usage.prompt_tokens);
                self.compactor
                    .observe_reply(&reply.message, reply.usage.completion_tokens);
            }
            Err(ModelError::ContextWindowExceeded { .. }) => record.stops_run = retry || !self.recovers_from_overflow(),
            Err(_) => record.stops_run = true,
        }
        self.tokens_sent = record.tokens_sent;
        if result.is_ok() {
            self.clock_s += record.latency_s;
            self.last_call_end_s = Some(self.clock_s);
        }
        on_call(&record);
        self.trace.push(record);
        result
    }
}

/// Where an agent call stands: its request (0-based), its turn in it (from 1), and whether it is
/// the resend after an overflow.
#[derive(Clone, Copy)]
struct Turn {
    request: usize,
    turn: usize,
    retry: bool,
}

/// Makes `summarize`'s call through the agent's model, and records it: for the loop, and for
/// `serve` when it compacts as a provider's server does.
pub(crate) struct LoopSummarizer<'a, M> {
    pub(crate) model: &'a mut M,
    pub(crate) trace: &'a mut Vec<CallRecord>,
    pub(crate) tokens_sent: &'a mut u64,
    pub(crate) clock_s: &'a mut f64,
    pub(crate) counter: &'a dyn TokenCounter,
    pub(crate) price: Option<&'a Price>,
    pub(crate) window: u64,
    /// The request it summarizes in (0-based).
    pub(crate) request: usize,
    pub(crate) on_call: &'a mut dyn FnMut(&CallRecord),
}

impl<M: Model> Summarizer for LoopSummarizer<'_, M> {
    fn summarize(&mut self, summary: &SummaryRequest) -> Option<String> {
        // A retry sends the same request: one the server rejected as too long, it rejects again.
        let rejected = |r: &CallRecord| r.kind == CallKind::Summary && r.outcome == Outcome::Overflow;
        if summary.attempt > 0 && self.trace.last().is_some_and(rejected) {
            return None;
        }
        let req = ModelRequest {
            kind: CallKind::Summary,
            system: summary.system.as_ref(),
            messages: &summary.messages,
            tools: &summary.tools,
            request: self.request,
            summary: Some(&summary.ask),
            at_s: *self.clock_s,
            marks: None,
        };
        let result = self.model.complete(req);
        let place = CallPlace {
            call: self.trace.len() + 1,
            request: self.request + 1,
            turn: 0,
            window: self.window,
            limit: summary.limit,
            estimated_tokens: summary.estimated_tokens,
            compaction: None,
            retry: summary.attempt > 0,
            tokens_sent: *self.tokens_sent,
            prefix: PrefixChange::default(),
        };
        let record = call_record(place, &req, self.counter, &result, self.price);
        *self.tokens_sent = record.tokens_sent;
        *self.clock_s += record.latency_s;
        (self.on_call)(&record);
        self.trace.push(record);
        result.ok().map(|reply| reply.message.text().into_owned())
    }
}
