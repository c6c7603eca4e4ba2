//! The model boundary: what the agent loop sends and what comes back, the same for the scripted
//! model of a simulation and a live endpoint. A request carries its kind, so no model guesses
//! a summary request from its text.

use std::fmt;

use ctxbench_compact::compact::SummaryAsk;
use ctxbench_compact::message::Message;
use ctxbench_compact::pairing::PairingError;
use ctxbench_compact::tool_schemas::ToolSchemas;
use ctxbench_compact::wire::CacheMarks;

use crate::trace::CallKind;

/// One request to the model: a whole chat request body.
#[derive(Clone, Copy, Debug)]
pub struct ModelRequest<'a> {
    /// `Agent` or `Summary` (a model answers an agent request with a refetch on its own).
    pub kind: CallKind,
    /// The system prompt.
    pub system: Option<&'a Message>,
    /// The history.
    pub messages: &'a [Message],
    /// Tool schemas.
    pub tools: &'a ToolSchemas,
    /// Which request of the conversation the loop is answering (0-based); a live model ignores it.
    pub request: usize,
    /// For a summary call: what the summary is asked to keep, and its size.
    pub summary: Option<&'a SummaryAsk>,
    /// When the call is made, in simulated seconds since the run began.
    pub at_s: f64,
    /// The request's own cache breakpoints (an Anthropic body's `cache_control` marks, as `serve`
    /// receives them); `None` leaves them to the cache's own rule.
    pub marks: Option<&'a CacheMarks>,
}

/// What the provider reports of a call.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Usage {
    /// True tokens of the request as billed (after any server-side truncation): the uncached
    /// ones, those read from the cache and those written to it.
    pub prompt_tokens: u64,
    /// Of `prompt_tokens`, those read from the prompt cache.
    pub cache_read_tokens: u64,
    /// Of `prompt_tokens`, those written to the prompt cache at its write price.
    pub cache_write_tokens: u64,
    /// True tokens of the reply.
    pub completion_tokens: u64,
    /// The server cut the oldest messages to make it fit (`--overflow truncate`).
    pub truncated: bool,
    /// Seconds the call took (simulated; measured for a live endpoint).
    pub latency_s: f64,
}

/// What a scripted model knows of the facts behind a reply (a live model reports none).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FactReport {
    /// The scenario step this reply played, if any.
    pub step: Option<(usize, usize)>,
    /// Facts the step needed.
    pub needed: Vec<String>,
    /// Of those, facts absent from the request and not refetched: lost.
    pub lost: Vec<String>,
    /// Of those, facts the step used a wrong value for: one a summary altered, or a guess.
    pub wrong: Vec<String>,
    /// Of those, facts the step used the superseded value of.
    pub stale: Vec<String>,
    /// For a summary: what its span held and what it kept.
    pub summary: Option<crate::trace::SummaryCycle>,
    /// Facts this reply asks the tools for again.
    pub refetched: Vec<String>,
}

/// A model's answer.
#[derive(Clone, Debug)]
pub struct ModelReply {
    /// The assistant message (tool calls, content, or both).
    pub message: Message,
    /// `Agent`, `Refetch` or `Summary`.
    pub kind: CallKind,
    /// Token counts from the provider.
    pub usage: Usage,
    /// Facts, when the model knows them.
    pub facts: FactReport,
}

/// Why a call failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelError {
    /// The request does not fit the context window (HTTP 400 `context_length_exceeded`).
    ContextWindowExceeded {
        /// True tokens of the request.
        needed: u64,
        /// The window.
        limit: u64,
    },
    /// The history breaks the pairing rule; real APIs reject it.
    Pairing(PairingError),
    /// A scripted model has no step left for this request: the request ends unanswered.
    ScriptEnded,
    /// Anything else (transport, server error).
    Other(String),
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelError::ContextWindowExceeded { needed, limit } => {
                write!(
                    f,
                    "context length exceeded: {needed} tokens requested, the window is {limit}"
                )
            }
            ModelError::Pairing(e) => write!(f, "invalid history: {e}"),
            ModelError::ScriptEnded => f.write_str("the script has no step left for this request"),
            ModelError::Other(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for ModelError {}

/// A chat model: scripted in a simulation, or a live endpoint.
pub trait Model {
    /// Answers one request.
    fn complete(&mut self, request: ModelRequest<'_>) -> Result<ModelReply, ModelError>;

    /// Of each prompt-cache write billed so far, in order, the tokens no later call read
    /// (known to a simulated server; a model without one reports none).
    fn unread_cache_writes(&self) -> Vec<u64> {
        Vec::new()
    }
}

/// A borrowed model is a model, so a caller keeps it (and what it measured) after a run.
impl<M: Model + ?Sized> Model for &mut M {
    fn complete(&mut self, request: ModelRequest<'_>) -> Result<ModelReply, ModelError> {
        (**self).complete(request)
    }

    fn unread_cache_writes(&self) -> Vec<u64> {
        (**self).unread_cache_writes()
    }
}
