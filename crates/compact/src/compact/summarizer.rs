//! What a `summarize` stage asks of the agent that embeds the compactor: a [`Summarizer`] sends
//! a [`SummaryRequest`] to its model and returns the summary's text.
//!
//! The request is built here, the same for every agent. By default it is a fixed system prompt
//! ([`SUMMARIZER_PROMPT`]) and the span as one user message, whose oldest messages are left out
//! until the request fits the window, measured on the very text that is sent. Aligned
//! (`summarize:aligned=true`), it is the agent's own request (its system prompt, tools and
//! history up to the span's end) with the instruction as a last user message, so that it reads
//! the prompt cache the agent's calls wrote; it is sent as it is.

use std::borrow::Cow;
use std::ops::Range;

use crate::fact::FactKind;
use crate::message::{Message, Role};
use crate::tokens::TokenCounter;
use crate::tool_schemas::ToolSchemas;

/// The system prompt of a summary call, and the instruction that ends an aligned one.
pub const SUMMARIZER_PROMPT: &str = "You summarize the earlier part of a conversation between a user and an assistant \
so that the assistant can go on without it. Keep every identifier, number and decision exactly.";

/// What a summary is asked to keep, and its size.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryAsk {
    /// Kinds of facts the summary is told to keep.
    pub keep: Vec<FactKind>,
    /// The summary's size as a fraction of the span's.
    pub ratio: f64,
    /// Which of the request's messages are the span to summarise; `None`: all of them.
    pub span: Option<Range<usize>>,
}

/// One summary call, ready to send.
#[derive(Clone, Debug)]
pub struct SummaryRequest {
    /// The system prompt: [`SUMMARIZER_PROMPT`], or the agent's own when aligned.
    pub system: Option<Message>,
    /// The span as one user message; aligned, the agent's history up to the span's end and the
    /// instruction.
    pub messages: Vec<Message>,
    /// The tool schemas: none, or the agent's when aligned.
    pub tools: ToolSchemas,
    /// What the summary should keep, its size, and where the span is in `messages`.
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

/// What a summary request is made from besides its span.
pub(crate) struct SummaryContext<'a> {
    /// The compactor's estimator.
    pub estimator: &'a dyn TokenCounter,
    /// The context window.
    pub window: u64,
    /// The limit of the compaction that asks for it.
    pub limit: u64,
}

impl SummaryRequest {
    /// The fixed summarizer prompt and `span` as one user message, its oldest messages left out
    /// until the request fits the window as the estimator counts it.
    pub(crate) fn fitted(span: &[Message], ask: SummaryAsk, cx: &SummaryContext<'_>) -> SummaryRequest {
        let system = Message::new(Role::System, SUMMARIZER_PROMPT);
        let tools = ToolSchemas::default();
        let texts: Vec<Cow<'_, str>> = span.iter().map(Message::text).collect();
        let body = |from: usize| vec![Message::new(Role::User, texts[from..].join("\n"))];
        let mut from = 0;
        let mut messages = body(from);
        while from + 1 < texts.len() && cx.estimator.count(Some(&system), &messages, &tools) > cx.window {
            from += 1;
            messages = body(from);
        }
        let estimated_tokens = cx.estimator.count(Some(&system), &messages, &tools);
        SummaryRequest {
            system: Some(system),
            messages,
            tools,
            ask,
            estimated_tokens,
            limit: cx.limit,
        }
    }

    /// The agent's own request up to the span's end (`history[..span.end]`), then the
    /// instruction as a last user message.
    pub(crate) fn aligned(
        (system, tools): (Option<&Message>, &ToolSchemas),
        history: &[Message],
        span: Range<usize>,
        ask: SummaryAsk,
        cx: &SummaryContext<'_>,
    ) -> SummaryRequest {
        let mut messages = history[..span.end].to_vec();
        messages.push(Message::new(Role::User, SUMMARIZER_PROMPT));
        let estimated_tokens = cx.estimator.count(system, &messages, tools);
        SummaryRequest {
            system: system.cloned(),
            messages,
            tools: tools.clone(),
            ask: SummaryAsk {
                span: Some(span),
                ..ask
            },
            estimated_tokens,
            limit: cx.limit,
        }
    }
}
