//! The simulated server in front of a model: counts each request with the true counter, rejects
//! a broken history as real APIs do, and enforces the window, either by rejecting the request
//! (`reject`, OpenAI's behaviour) or by cutting the oldest messages until it fits (`truncate`,
//! as some local servers do; the model sees only what is left). It runs the prompt cache and
//! says how long each call took on the simulated clock.

use std::sync::Arc;

use ctxbench_compact::message::{Message, Role};
use ctxbench_compact::pairing::check_pairing;
use ctxbench_compact::tokens::TokenCounter;

use super::prompt_cache::PromptCache;
use crate::agent::model::{Model, ModelError, ModelReply, ModelRequest};
use crate::billing::cache_mode::CacheMode;
use crate::billing::segments::Segments;
use crate::sim::latency::Latency;

ctxbench_compact::named! {
    /// What the server does with a request over the window (`--overflow`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Overflow {
        /// Reject it with a context-length error, as OpenAI does.
        Reject = "reject",
        /// Drop whole messages, oldest first, until it fits, as some local servers do.
        Truncate = "truncate",
    }
}

/// How the simulated server behaves.
#[derive(Clone, Debug)]
pub struct Server {
    /// The context window it enforces, in tokens.
    pub window: u64,
    /// What it does with a request over the window.
    pub overflow: Overflow,
    /// The prompt cache it runs.
    pub cache: CacheMode,
    /// How long its calls take.
    pub latency: Latency,
}

/// A model behind a server with a context window.
pub struct Provider<M> {
    inner: M,
    counter: Arc<dyn TokenCounter>,
    window: u64,
    overflow: Overflow,
    cache: PromptCache,
    latency: Latency,
}

impl<M: Model> Provider<M> {
    /// A server counting and billing with `counter`.
    pub fn new(inner: M, counter: Arc<dyn TokenCounter>, server: Server) -> Provider<M> {
        Provider {
            inner,
            counter,
            window: server.window,
            overflow: server.overflow,
            cache: PromptCache::new(server.cache),
            latency: server.latency,
        }
    }

    /// The model behind the server.
    pub fn inner(&self) -> &M {
        &self.inner
    }

    /// Forgets everything the prompt cache holds (what it wrote stays written, and unread).
    pub fn clear_cache(&mut self) {
        self.cache.clear();
    }

    /// The model behind the server, to change.
    pub fn inner_mut(&mut self) -> &mut M {
        &mut self.inner
    }
}

/// Drops messages oldest first (never the newest), then results left without their call, until
/// the request fits; returns the index of the first message kept.
fn cut_to_fit(counter: &dyn TokenCounter, req: &ModelRequest<'_>, window: u64) -> usize {
    let units: Vec<u64> = req.messages.iter().map(|m| counter.message_units(m)).collect();
    let mut total = counter.prefix_units(req.system, req.tools) + units.iter().sum::<u64>();
    let last = req.messages.len().saturating_sub(1);
    let mut start = 0;
    while start < last && counter.tokens(total) > window {
        total -= units[start];
        start += 1;
        while start < last && req.messages[start].role() == Role::Tool {
            total -= units[start];
            start += 1;
        }
    }
    start
}

impl<M: Model> Model for Provider<M> {
    fn complete(&mut self, req: ModelRequest<'_>) -> Result<ModelReply, ModelError> {
        check_pairing(req.messages).map_err(ModelError::Pairing)?;
        let prefix = self.counter.prefix_units(req.system, req.tools);
        let count = |messages: &[Message]| {
            self.counter
                .tokens(prefix + messages.iter().map(|m| self.counter.message_units(m)).sum::<u64>())
        };
        let needed = count(req.messages);
        let (req, skipped) = if needed <= self.window {
            (req, 0)
        } else {
            match self.overflow {
                Overflow::Reject => {
                    return Err(ModelError::ContextWindowExceeded {
                        needed,
                        limit: self.window,
                    });
                }
                Overflow::Truncate => {
                    let start = cut_to_fit(self.counter.as_ref(), &req, self.window);
                    (
                        ModelRequest {
                            messages: &req.messages[start..],
                            ..req
                        },
                        start,
                    )
                }
            }
        };
        let truncated = skipped > 0;
        let prompt_tokens = if truncated { count(req.messages) } else { needed };
        if prompt_tokens > self.window {
            // Even the newest message alone does not fit.
            return Err(ModelError::ContextWindowExceeded {
                needed: prompt_tokens,
                limit: self.window,
            });
        }
        let cached = !matches!(self.cache.mode(), CacheMode::None);
        let segments = cached.then(|| {
            Segments::of(self.counter.as_ref(), req.system, req.messages, req.tools).with_marks(req.marks, skipped)
        });
        let used = segments
            .as_ref()
            .map_or_else(Default::default, |s| self.cache.serve(s, req.at_s));
        let mut reply = self.inner.complete(req)?;
        let completion_tokens = self.counter.reply_tokens(&reply.message);
        let latency_s = self.latency.of(prompt_tokens - used.read, completion_tokens);
        if let Some(segments) = &segments {
            let with_reply = self
                .cache
                .stores_replies()
                .then(|| segments.with(&reply.message, self.counter.as_ref()));
            self.cache.store(segments, with_reply.as_ref(), req.at_s + latency_s);
        }
        reply.usage = crate::agent::model::Usage {
            prompt_tokens,
            cache_read_tokens: used.read,
            cache_write_tokens: used.write,
            completion_tokens,
            truncated,
            latency_s,
        };
        Ok(reply)
    }

    fn unread_cache_writes(&self) -> Vec<u64> {
        self.cache.unread_writes()
    }
}
