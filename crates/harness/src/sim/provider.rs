//! The simulated server in front of a model: counts each request with the true
//! counter, rejects a broken history as real APIs do, and enforces the window, either by
//! rejecting the request (`reject`, OpenAI's behaviour) or by cutting the oldest messages until
//! it fits (`truncate`, as some local servers do; the model sees only what is left).

use std::sync::Arc;

use ctxbench_compact::message::{Message, Role};
use ctxbench_compact::pairing::check_pairing;
use ctxbench_compact::tokens::TokenCounter;

use crate::agent::model::{Model, ModelError, ModelReply, ModelRequest};
use crate::settings::Overflow;

/// A model behind a server with a context window.
pub struct Provider<M> {
    inner: M,
    counter: Arc<dyn TokenCounter>,
    window: u64,
    overflow: Overflow,
}

impl<M: Model> Provider<M> {
    /// A server with this true counter, window and overflow behaviour.
    pub fn new(inner: M, counter: Arc<dyn TokenCounter>, window: u64, overflow: Overflow) -> Provider<M> {
        Provider {
            inner,
            counter,
            window,
            overflow,
        }
    }

    /// The model behind the server.
    pub fn inner(&self) -> &M {
        &self.inner
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
        let (req, truncated) = if needed <= self.window {
            (req, false)
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
                        true,
                    )
                }
            }
        };
        let prompt_tokens = if truncated { count(req.messages) } else { needed };
        if prompt_tokens > self.window {
            // Even the newest message alone does not fit.
            return Err(ModelError::ContextWindowExceeded {
                needed: prompt_tokens,
                limit: self.window,
            });
        }
        let mut reply = self.inner.complete(req)?;
        reply.usage.prompt_tokens = prompt_tokens;
        reply.usage.completion_tokens = self.counter.reply_tokens(&reply.message);
        reply.usage.truncated = truncated;
        Ok(reply)
    }
}
