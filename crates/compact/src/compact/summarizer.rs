//! What a `summarize` stage asks of the agent that embeds the compactor: a [`Summarizer`] sends
//! a [`SummaryRequest`] to its model and returns the summary's text.
//!
//! The request is built here, the same for every agent: a fixed system prompt
//! ([`SUMMARIZER_PROMPT`]) and the span as one user message, whose oldest messages are left out
//! until the request fits the window, measured on the very text that is sent.

use std::borrow::Cow;

use crate::fact::FactKind;
use crate::message::{Message, Role};
use crate::tokens::TokenCounter;
use crate::tool_schemas::NO_TOOLS;

/// The system prompt of a summary call.
pub const SUMMARIZER_PROMPT: &str = "You summarize the earlier part of a conversation between a user and an assistant \
so that the assistant can go on without it. Keep every identifier, number and decision exactly.";

/// What a summary is asked to keep, and its size.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryAsk {
    /// Kinds of facts the summary is told to keep.
    pub keep: Vec<FactKind>,
    /// The summary's size as a fraction of the span's.
    pub ratio: f64,
}

/// One summary call, ready to send.
#[derive(Clone, Debug)]
pub struct SummaryRequest {
    /// The summarizer's system prompt, [`SUMMARIZER_PROMPT`].
    pub system: Message,
    /// The span to summarise, as one user message.
    pub messages: Vec<Message>,
    /// What the summary should keep, and its size.
    pub ask: SummaryAsk,
    /// The estimator's count of this request, in tokens.
    pub estimated_tokens: u64,
    /// The limit of the compaction that asks for it.
    pub limit: u64,
}

/// Whatever makes the summary call: the agent, through its model.
pub trait Summarizer {
    /// Sends `request` and returns the summary's text; `None` when the call failed (then the
    /// history stays as it was).
    fn summarize(&mut self, request: &SummaryRequest) -> Option<String>;
}

impl SummaryRequest {
    /// The request summarising `span`, its oldest messages left out until it fits `window` as
    /// `estimator` counts it.
    pub(crate) fn new(
        span: &[Message],
        ask: SummaryAsk,
        estimator: &dyn TokenCounter,
        (window, limit): (u64, u64),
    ) -> SummaryRequest {
        let system = Message::new(Role::System, SUMMARIZER_PROMPT);
        let texts: Vec<Cow<'_, str>> = span.iter().map(Message::text).collect();
        let body = |from: usize| vec![Message::new(Role::User, texts[from..].join("\n"))];
        let mut from = 0;
        let mut messages = body(from);
        while from + 1 < texts.len() && estimator.count(Some(&system), &messages, &NO_TOOLS) > window {
            from += 1;
            messages = body(from);
        }
        let estimated_tokens = estimator.count(Some(&system), &messages, &NO_TOOLS);
        SummaryRequest {
            system,
            messages,
            ask,
            estimated_tokens,
            limit,
        }
    }
}
