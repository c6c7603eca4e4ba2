//! A request as a prompt cache sees it: its segments (the system prompt with the tool schemas,
//! then each message), each named by a hash chained through the segments before it, so that two
//! requests share a prefix exactly as far as their chains agree; and the true tokens up to each.

use std::hash::BuildHasher;

use ctxbench_compact::message::Message;
use ctxbench_compact::tokens::TokenCounter;
use ctxbench_compact::tool_schemas::ToolSchemas;
use ctxbench_compact::wire::CacheMarks;
use foldhash::fast::FixedState;

/// The segments of one request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Segments {
    /// `chain[k]` names the prefix of segments `0..=k`.
    chain: Vec<u64>,
    /// `tokens[k]`: the true tokens of segments `0..=k` (the reply's priming excluded).
    tokens: Vec<u64>,
    /// The segments the request marks as cache breakpoints itself (Anthropic's `cache_control`),
    /// ascending; `None` when it marks none.
    marks: Option<Vec<usize>>,
}

/// The true tokens of `units`, less the reply's priming every request carries once.
fn true_tokens(counter: &dyn TokenCounter, units: u64) -> u64 {
    counter.tokens(units).saturating_sub(counter.tokens(0))
}

/// Hashes two values into one, the same on every run.
fn mix(a: u64, b: u64) -> u64 {
    FixedState::with_seed(0x7072_6566_6978).hash_one((a, b))
}

impl Segments {
    /// The segments of the request `system`, `messages`, `tools`, counted with `counter`.
    pub fn of(
        counter: &dyn TokenCounter,
        system: Option<&Message>,
        messages: &[Message],
        tools: &ToolSchemas,
    ) -> Segments {
        let mut chain = Vec::with_capacity(messages.len() + 1);
        let mut tokens = Vec::with_capacity(messages.len() + 1);
        let mut units = counter.prefix_units(system, tools);
        chain.push(mix(system.map_or(0, Message::fingerprint), tools.fingerprint()));
        tokens.push(true_tokens(counter, units));
        for m in messages {
            units += counter.message_units(m);
            chain.push(mix(chain[chain.len() - 1], m.fingerprint()));
            tokens.push(true_tokens(counter, units));
        }
        Segments {
            chain,
            tokens,
            marks: None,
        }
    }

    /// These segments with the request's own breakpoints: after the head when `marks.head`, and
    /// after each marked message; `skip` messages were cut from the front of the request the marks
    /// were placed in (a server's truncation), and marks on them are gone.
    pub fn with_marks(mut self, marks: Option<&CacheMarks>, skip: usize) -> Segments {
        self.marks = marks.map(|marks| {
            let head = marks.head.then_some(0);
            let messages = marks.messages.iter().filter(|&&i| i >= skip).map(|&i| i - skip + 1);
            head.into_iter().chain(messages).filter(|&k| k < self.len()).collect()
        });
        self
    }

    /// The segments a breakpoint cache stores and reads at: the request's own marks, or
    /// ctxbench's (the head, and the last message).
    pub fn breakpoints(&self) -> Vec<usize> {
        match &self.marks {
            Some(marks) => marks.clone(),
            None => vec![0, self.len() - 1],
        }
    }

    /// How many segments (system prompt and tools first).
    pub fn len(&self) -> usize {
        self.chain.len()
    }

    /// Whether there are none (never, for a request built by [`Segments::of`]).
    pub fn is_empty(&self) -> bool {
        self.chain.is_empty()
    }

    /// The name of the prefix of segments `0..=k`.
    pub fn chain(&self, k: usize) -> u64 {
        self.chain[k]
    }

    /// The true tokens of segments `0..=k`.
    pub fn tokens(&self, k: usize) -> u64 {
        self.tokens[k]
    }

    /// The true tokens of every segment.
    pub fn total(&self) -> u64 {
        self.tokens.last().copied().unwrap_or(0)
    }

    /// This request with `message` appended (a reply stored with its request).
    pub fn with(&self, message: &Message, counter: &dyn TokenCounter) -> Segments {
        let mut next = self.clone();
        next.chain.push(mix(self.chain[self.len() - 1], message.fingerprint()));
        // A reply is billed as text (no message framing), like the completion it was.
        next.tokens.push(self.total() + counter.reply_tokens(message));
        next
    }

    /// A request of made-up segments `(fingerprint, true tokens)`, the system prompt with the
    /// tools first: what the cache's worked examples are written in.
    #[cfg(test)]
    pub(crate) fn made_up(parts: &[(u64, u64)]) -> Segments {
        let mut made = Segments::default();
        for &(fingerprint, tokens) in parts {
            made = made.with_part(fingerprint, tokens);
        }
        made
    }

    /// This request with one more made-up segment.
    #[cfg(test)]
    pub(crate) fn with_part(&self, fingerprint: u64, tokens: u64) -> Segments {
        let mut next = self.clone();
        next.chain
            .push(mix(self.chain.last().copied().unwrap_or(0), fingerprint));
        next.tokens.push(self.total() + tokens);
        next
    }

    /// How many leading segments this request shares with `other`.
    pub fn shared_with(&self, other: &Segments) -> usize {
        // Chains agree on a prefix and differ after: the last agreeing index is found by halving.
        let n = self.len().min(other.len());
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if self.chain[mid - 1] == other.chain[mid - 1] {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        lo
    }
}

/// Whether each request extends the one before it, and what it throws away when it does not.
#[derive(Clone, Debug, Default)]
pub struct PrefixTracker {
    previous: Option<Segments>,
}

/// A request measured against the one before it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrefixChange {
    /// It does not extend the previous request: something before the end of that one changed.
    pub broke: bool,
    /// The previous request's true tokens past what the two share.
    pub invalidated_tokens: u64,
}

impl PrefixTracker {
    /// Measures `request` against the previous one, and keeps it as the next one's previous.
    pub fn observe(&mut self, request: Segments) -> PrefixChange {
        let change = match &self.previous {
            None => PrefixChange::default(),
            Some(previous) => {
                let shared = request.shared_with(previous);
                if shared == previous.len() {
                    PrefixChange::default()
                } else {
                    let kept = if shared == 0 { 0 } else { previous.tokens(shared - 1) };
                    PrefixChange {
                        broke: true,
                        invalidated_tokens: previous.total() - kept,
                    }
                }
            }
        };
        self.previous = Some(request);
        change
    }
}

#[cfg(test)]
mod tests {
    use ctxbench_compact::{CounterKind, Role};

    use super::*;

    fn segments(texts: &[&str]) -> Segments {
        let messages: Vec<Message> = texts.iter().map(|t| Message::new(Role::User, *t)).collect();
        Segments::of(
            CounterKind::O200k.counter().as_ref(),
            None,
            &messages,
            &ToolSchemas::default(),
        )
    }

    #[test]
    fn requests_share_as_far_as_their_messages_agree() {
        let a = segments(&["one", "two", "three"]);
        let b = segments(&["one", "two", "three", "four"]);
        let c = segments(&["one", "TWO", "three", "four"]);
        assert_eq!(b.shared_with(&a), 4, "the head and three messages");
        assert_eq!(c.shared_with(&a), 2, "the head and the first message");
        assert_eq!(segments(&[]).shared_with(&a), 1, "the head alone");
        let mut tracker = PrefixTracker::default();
        assert_eq!(tracker.observe(a.clone()), PrefixChange::default());
        assert_eq!(tracker.observe(b.clone()), PrefixChange::default(), "an extension");
        let change = tracker.observe(c);
        assert!(change.broke);
        assert_eq!(
            change.invalidated_tokens,
            b.total() - b.tokens(1),
            "all of b past its first message"
        );
    }
}
