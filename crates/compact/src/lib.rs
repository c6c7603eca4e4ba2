//! Context compaction for LLM agent loops: before every model call, shrink the oldest part of the
//! history so the request stays under a limit, without ever separating a tool call from its
//! result. It never prints, reads a file only where a caller names one (`input`), and keeps no
//! global configuration (only constant tables and token-count caches): an agent embeds it and
//! calls it before each call.
//!
//! # Layout
//!
//! - [`message`]: one chat message in OpenAI's wire format, kept verbatim.
//! - [`pairing`]: the rule tying tool calls to their results ([`check_pairing`]).
//! - [`conversation`]: system prompt, history and tools; preamble, requests, protected tail.
//! - [`tool_schemas`]: a request's `tools` array, counted once per counter.
//! - [`request_body`]: a request body as read and written back in its own shape and format.
//! - [`wire`]: the three wire formats (OpenAI chat, Anthropic Messages, OpenAI Responses), how
//!   another format is read into the one history and written back, and each format's pairing rules.
//! - [`tokens`]: estimators (`chars4`, `chars4-py`, `usage`) and exact counters (`o200k`, `cl100k`).
//! - [`policy`]: window, threshold, protected requests, reply reserve, and the limit they give.
//! - [`compact`]: strategies and their stages, the [`Compactor`] that runs them, and the
//!   [`Summarizer`] an agent implements for `summarize`.
//! - [`fact`]: the kinds of fact a summary can be told to keep.
//! - [`mod@named`]: enums whose values have names, each declared once ([`named!`]).
//!
//! # Compacting a history
//!
//! A strategy is stages joined by `+`, run left to right while the estimate is over the limit
//! (80% of the window by default); the last two requests are never touched.
//!
//! ```
//! use ctxbench_compact::{Compactor, Conversation, CounterKind, Message, Policy, Role, Strategy, ToolCall};
//!
//! // A support chat: an order looked up (a long tool result), then a second request.
//! let order = "Order 4471: front wheel Mavic Aksium 700c, shipped 2026-11-02. ".repeat(40);
//! let mut history = vec![
//!     Message::new(Role::System, "You are the support assistant of a bike shop."),
//!     Message::new(Role::User, "My order #4471 came with a bent front wheel."),
//!     Message::assistant_calls([ToolCall { id: "c1", name: "get_order", arguments: r#"{"order":4471}"# }]),
//!     Message::tool_result("c1", order),
//!     Message::new(Role::Assistant, "Order 4471 shipped a Mavic Aksium 700c. I'm sorry!"),
//!     Message::new(Role::User, "Can I return it?"),
//!     Message::new(Role::Assistant, "Yes, within 30 days."),
//!     Message::new(Role::User, "Then please start the return."),
//! ];
//! let mut conversation = Conversation::from_messages(std::mem::take(&mut history), vec![]);
//!
//! let strategy: Strategy = "truncate+drop".parse()?;
//! let policy = Policy::new(600); // a 600-token window: compact past 480
//! let mut compactor = Compactor::new(strategy, policy, CounterKind::Chars4.counter());
//! let done = compactor.compact(&mut conversation);
//!
//! // Over the limit (767 > 480): truncating the old result was enough, nothing was dropped.
//! assert_eq!((done.limit, done.tokens_before, done.tokens_after), (480, 767, 187));
//! assert_eq!((done.counts.truncated, done.counts.dropped), (1, 0));
//! let note = conversation.messages[2].content_str().unwrap_or_default();
//! assert!(note.starts_with("[Truncated to save context: 2520 chars. Preview: Order 4471: front wheel"));
//! ctxbench_compact::check_pairing(&conversation.messages)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Summarizing through your own model
//!
//! `summarize` asks the agent's model for a summary of the oldest exchanges. The compactor builds
//! the request (a fixed system prompt and the span, fitted to the window); the agent sends it.
//!
//! ```
//! use ctxbench_compact::compact::{Summarizer, SummaryRequest};
//! use ctxbench_compact::{Compactor, Conversation, CounterKind, Message, Policy, Role};
//!
//! /// Stands in for a call to the agent's model.
//! struct MyModel;
//!
//! impl Summarizer for MyModel {
//!     fn summarize(&mut self, request: &SummaryRequest) -> Option<String> {
//!         assert_eq!(request.messages.len(), 1, "the span, as one user message");
//!         Some("The user asked about orders 1 and 2; both shipped.".into())
//!     }
//! }
//!
//! let mut messages = vec![];
//! for n in 1..=4 {
//!     messages.push(Message::new(Role::User, format!("Where is order {n}? {}", "Please check. ".repeat(30))));
//!     messages.push(Message::new(Role::Assistant, format!("Order {n} shipped. {}", "Details follow. ".repeat(30))));
//! }
//! let mut conversation = Conversation::from_messages(messages, vec![]);
//! let mut compactor = Compactor::new("summarize".parse()?, Policy::new(1000), CounterKind::Chars4.counter());
//! let done = compactor.compact_with(&mut conversation, &mut MyModel);
//!
//! // The first request stays, the last two are protected: the three messages between them are
//! // one summary now.
//! assert_eq!((done.limit, done.tokens_before, done.tokens_after), (800, 996, 643));
//! assert_eq!(done.counts.dropped, 3);
//! let summary = conversation.messages[1].content_str().unwrap_or_default();
//! assert!(summary.starts_with("[Summary of earlier conversation]\nThe user asked about orders 1 and 2"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod compact;
pub mod conversation;
mod costs;
mod error;
pub mod fact;
pub mod input;
mod json_len;
pub mod message;
pub mod named;
pub mod pairing;
pub mod policy;
pub mod request_body;
pub mod summaries;
pub mod tokens;
pub mod tool_schemas;
pub mod wire;
mod words;

pub use compact::{Compaction, Compactor, Strategy, Summarizer};
pub use conversation::Conversation;
pub use error::{Error, plain};
pub use message::{Message, Role, ToolCall};
pub use named::Named;
pub use pairing::{Pairing, PairingError, check_pairing};
pub use policy::Policy;
pub use request_body::RequestBody;
pub use tokens::{CounterKind, Estimator, TokenCounter};
pub use tool_schemas::ToolSchemas;
pub use wire::Format;
pub use words::nearest;

/// The README's example, held true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExample;
