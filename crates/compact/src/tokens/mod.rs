//! Token counting (`docs/counting.md`): the estimators a compactor decides with, and the exact counts a
//! provider bills with.
//!
//! A count is a sum. Each counter splits a request into a fixed *prefix* (system prompt and tool
//! schemas), one cost per message, and a last step that turns the summed units into tokens
//! (`chars4` divides characters by four, rounding up once per request; BPE adds the 3 tokens
//! that prime the reply). So a compactor keeps one cost per message and a running total, and
//! rewriting one message costs one message's count, not a re-count of the request.

mod bpe;
mod chars4;
mod message_len;
mod o200k_split;
mod pieces;
mod tools;
pub mod usage;

use std::fmt;
use std::sync::Arc;

use crate::message::Message;
use crate::tool_schemas::ToolSchemas;

pub use bpe::Bpe;
pub use chars4::{Chars4, Chars4Flavor};

/// Counts requests in tokens, as a sum of per-message costs.
pub trait TokenCounter: Send + Sync {
    /// The counter's name as the command line spells it (`chars4`, `o200k`, …).
    fn name(&self) -> &'static str;

    /// Units of the part no compactor touches: the system prompt (if any) and the tool schemas.
    fn prefix_units(&self, system: Option<&Message>, tools: &ToolSchemas) -> u64;

    /// Units of one history message.
    fn message_units(&self, message: &Message) -> u64;

    /// Units of `message` were its content the string `content`: what a rewrite would cost,
    /// without making it. The default rewrites a copy; counters that can, subtract and add.
    fn units_with_content(&self, message: &Message, content: &str) -> u64 {
        let mut copy = message.clone();
        copy.set_content(content.to_owned());
        self.message_units(&copy)
    }

    /// Tokens of a plain text with no framing (what a reply's content or arguments cost).
    fn text_tokens(&self, text: &str) -> u64;

    /// Tokens of a request whose parts sum to `units`. Non-decreasing in `units`.
    fn tokens(&self, units: u64) -> u64;

    /// Tokens of a reply, as a server bills it: its content, and each call's name and arguments.
    fn reply_tokens(&self, message: &Message) -> u64 {
        self.text_tokens(&message.text())
            + message
                .calls()
                .map(|c| self.text_tokens(c.name) + self.text_tokens(c.arguments))
                .sum::<u64>()
    }

    /// Tokens of a whole request.
    fn count(&self, system: Option<&Message>, messages: &[Message], tools: &ToolSchemas) -> u64 {
        let units = self.prefix_units(system, tools) + messages.iter().map(|m| self.message_units(m)).sum::<u64>();
        self.tokens(units)
    }

    /// Learns from what the server counted for an accepted request (`true_tokens`). Counters
    /// that count for themselves ignore it (the default); `usage` starts from it.
    fn observe(&self, true_tokens: u64, system: Option<&Message>, messages: &[Message], tools: &ToolSchemas) {
        let _ = (true_tokens, system, messages, tools);
    }
}

/// Histories shorter than this are counted on the caller's thread whatever [`count_ahead`] is
/// told: a thread costs more than counting a few hundred messages.
const COUNT_AHEAD_MIN: usize = 1_000;

/// Counts the cost of every message on `threads` threads, so that what follows finds each one
/// known (a message keeps what a counter found until it changes). The same costs as counting
/// them one by one; for an exact counter on a long fresh history, where counting is most of the
/// work (`Compactor::with_count_threads`).
pub fn count_ahead(counter: &dyn TokenCounter, messages: &[Message], threads: usize) {
    if threads < 2 || messages.len() < COUNT_AHEAD_MIN {
        return;
    }
    let chunk = messages.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let mut parts = messages.chunks(chunk);
        let first = parts.next().unwrap_or_default();
        for part in parts {
            scope.spawn(move || count_each(counter, part));
        }
        count_each(counter, first);
    });
}

fn count_each(counter: &dyn TokenCounter, messages: &[Message]) {
    for message in messages {
        counter.message_units(message);
    }
}

crate::named! {
    /// The counters the command line can name.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum CounterKind {
        /// The reference listing's TypeScript estimate: UTF-16 length of `JSON.stringify`, over 4.
        Chars4 = "chars4",
        /// The reference listing's Python estimate: length of `json.dumps` (ASCII escapes), over 4.
        Chars4Py = "chars4-py",
        /// Exact BPE with GPT-4o's `o200k_base`, plus OpenAI's message framing.
        O200k = "o200k",
        /// Exact BPE with GPT-4's `cl100k_base`, plus OpenAI's message framing.
        Cl100k = "cl100k",
    }
}

impl CounterKind {
    /// A counter of this kind. BPE counters share one process-wide cache per encoding, so runs
    /// in one process tokenize the same text once.
    pub fn counter(self) -> Arc<dyn TokenCounter> {
        match self {
            CounterKind::Chars4 => Arc::new(Chars4::new(Chars4Flavor::Js)),
            CounterKind::Chars4Py => Arc::new(Chars4::new(Chars4Flavor::Py)),
            CounterKind::O200k => Bpe::o200k(),
            CounterKind::Cl100k => Bpe::cl100k(),
        }
    }

    /// A counter of this kind for counting one history once (an agent's compactor fed a fresh
    /// body each call, the `compact` command): the same counts, with no process-wide cache of
    /// texts, which would only copy every text of the history.
    pub fn single_pass_counter(self) -> Arc<dyn TokenCounter> {
        match self {
            CounterKind::O200k => Bpe::o200k_single_pass(),
            CounterKind::Cl100k => Bpe::cl100k_single_pass(),
            other => other.counter(),
        }
    }
}

/// What a compactor decides with: a counter of its own, or the server's last count plus what
/// changed since (`usage`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Estimator {
    /// A counter of its own.
    Counter(CounterKind),
    /// The server's last count plus `chars4` of what changed since ([`usage::UsageEstimator`]).
    Usage,
}

impl Estimator {
    /// Parses a command-line name.
    pub fn parse(name: &str) -> Option<Estimator> {
        if name == "usage" {
            Some(Estimator::Usage)
        } else {
            CounterKind::parse(name).map(Estimator::Counter)
        }
    }

    /// The command-line name.
    pub fn as_str(self) -> &'static str {
        match self {
            Estimator::Counter(kind) => kind.as_str(),
            Estimator::Usage => "usage",
        }
    }

    /// A counter of this kind; `usage` gets a new one, which learns from the calls of one
    /// conversation ([`TokenCounter::observe`]).
    pub fn counter(self) -> Arc<dyn TokenCounter> {
        match self {
            Estimator::Counter(kind) => kind.counter(),
            Estimator::Usage => Arc::new(usage::UsageEstimator::default()),
        }
    }
}

/// A name that is not an estimator's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not an estimator; expected {names}, or usage", names = <CounterKind as crate::named::Named>::names().replace(" or ", ", "))]
pub struct UnknownEstimator(pub String);

impl std::str::FromStr for Estimator {
    type Err = UnknownEstimator;

    fn from_str(name: &str) -> Result<Estimator, UnknownEstimator> {
        Estimator::parse(name).ok_or_else(|| UnknownEstimator(name.to_owned()))
    }
}

impl fmt::Display for Estimator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
