//! `usage`: the estimator most real agents use (codex, goose). The true count the provider
//! reported for the last accepted agent call, plus `chars4` of what changed since; before any
//! call, `chars4` of the whole request.
//!
//! It measures in `chars4` units, so a change since the last call (messages added, removed or
//! rewritten) moves the estimate by its `chars4` size. The agent loop reports each accepted
//! call through [`TokenCounter::observe`] (`Compactor::observe`).

use std::sync::Mutex;

use super::{Chars4, Chars4Flavor, TokenCounter};
use crate::message::Message;
use crate::tool_schemas::ToolSchemas;

/// The last accepted call: its true tokens, and its size in `chars4` units then.
#[derive(Clone, Copy, Debug)]
struct Anchor {
    true_tokens: u64,
    units: u64,
}

/// The provider's last count plus `chars4` of the difference.
pub struct UsageEstimator {
    chars4: Chars4,
    anchor: Mutex<Option<Anchor>>,
}

impl Default for UsageEstimator {
    fn default() -> Self {
        UsageEstimator {
            chars4: Chars4::new(Chars4Flavor::Js),
            anchor: Mutex::new(None),
        }
    }
}

impl TokenCounter for UsageEstimator {
    /// Records an accepted agent call: the provider counted `true_tokens` for this request.
    fn observe(&self, true_tokens: u64, system: Option<&Message>, messages: &[Message], tools: &ToolSchemas) {
        let units = self.prefix_units(system, tools) + messages.iter().map(|m| self.message_units(m)).sum::<u64>();
        *self.anchor.lock().unwrap_or_else(|p| p.into_inner()) = Some(Anchor { true_tokens, units });
    }

    fn name(&self) -> &'static str {
        "usage"
    }

    fn prefix_units(&self, system: Option<&Message>, tools: &ToolSchemas) -> u64 {
        self.chars4.prefix_units(system, tools)
    }

    fn message_units(&self, message: &Message) -> u64 {
        self.chars4.message_units(message)
    }

    fn units_with_content(&self, message: &Message, content: &str) -> u64 {
        self.chars4.units_with_content(message, content)
    }

    fn text_tokens(&self, text: &str) -> u64 {
        self.chars4.text_tokens(text)
    }

    fn tokens(&self, units: u64) -> u64 {
        match *self.anchor.lock().unwrap_or_else(|p| p.into_inner()) {
            None => units.div_ceil(4),
            Some(Anchor {
                true_tokens,
                units: base,
            }) => {
                let delta = units as i64 - base as i64;
                // ceil(delta / 4), for either sign.
                let delta_tokens = if delta >= 0 { (delta + 3) / 4 } else { -((-delta) / 4) };
                (true_tokens as i64 + delta_tokens).max(0) as u64
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::Role;
    use crate::tool_schemas::NO_TOOLS;

    #[test]
    fn anchors_on_the_last_true_count() {
        let usage = UsageEstimator::default();
        let m = Message::new(Role::User, "x".repeat(100));
        let units = usage.message_units(&m);
        assert_eq!(
            usage.count(None, std::slice::from_ref(&m), &NO_TOOLS),
            units.div_ceil(4)
        );
        usage.observe(500, None, std::slice::from_ref(&m), &NO_TOOLS);
        assert_eq!(usage.tokens(units), 500);
        assert_eq!(usage.tokens(units + 40), 510);
        assert_eq!(usage.tokens(units - 40), 490);
    }
}
