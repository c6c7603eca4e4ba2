//! ctxbench measures context compaction in LLM agent loops: what each strategy costs (tokens
//! sent, model calls) and what it breaks (overflows, lost facts, tool-call pairing).
//!
//! # Layout
//!
//! - [`message`]: one chat message in OpenAI's wire format, kept verbatim.
//! - [`pairing`]: the rule tying tool calls to their results; the one check everyone uses.
//! - [`conversation`]: system prompt, history and tools; preamble, requests, protected tail.
//! - [`tool_schemas`]: a request's `tools` array, counted once per counter.
//! - [`tokens`]: estimators (`chars4`, `chars4-py`) and exact counters (`o200k`, `cl100k`).
//! - [`policy`]: window, threshold, protected requests, reply reserve, and the limit they give.
//! - [`compact`]: strategies, pipelines, and the [`Compactor`] that runs them.
//! - [`request_body`]: a chat request body as read and written by `ctxbench compact`.
//! - [`human`]: numbers formatted for people (thousands separators, percentages).
//! - [`render`]: a history as one line per message, for people and snapshot tests.
//!
//! The library does no IO and never prints; the `ctxbench` binary is a thin shell over it.
//!
//! ```
//! use ctxbench::{Compactor, CounterKind, Policy, RequestBody, Strategy};
//!
//! let body = r#"{"messages": [
//!     {"role": "system", "content": "You are terse."},
//!     {"role": "user", "content": "Hi"},
//!     {"role": "assistant", "content": "Hello!"}
//! ]}"#;
//! let mut body = RequestBody::parse(body, "example.json")?;
//! let strategy: Strategy = "truncate+drop".parse()?;
//! let mut compactor = Compactor::new(strategy, Policy::new(8000), CounterKind::Chars4.counter());
//! let done = compactor.compact(&mut body.conversation);
//! assert!(!done.changed() && !done.cannot_fit);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod agent;
pub mod compact;
pub mod conversation;
mod costs;
mod error;
pub mod fact;
pub mod gate;
pub mod http;
pub mod human;
pub mod import;
pub mod json_len;
pub mod message;
pub mod metrics;
pub mod model;
pub mod pairing;
pub mod plot;
pub mod policy;
pub mod provider;
pub mod record;
pub mod render;
pub mod report;
pub mod request_body;
pub mod run;
pub mod scenario;
pub mod scripted;
pub mod settings;
pub mod sweep;
pub mod tokens;
pub mod tool_schemas;
pub mod tools;
pub mod trace;

pub use compact::{Compaction, Compactor, Strategy};
pub use conversation::Conversation;
pub use error::Error;
pub use message::{Message, Role, ToolCall};
pub use pairing::{Pairing, PairingError, check_pairing};
pub use policy::Policy;
pub use request_body::RequestBody;
pub use tokens::{CounterKind, TokenCounter};
pub use tool_schemas::ToolSchemas;
