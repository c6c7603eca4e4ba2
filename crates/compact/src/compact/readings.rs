//! What a stage's own trigger reads ([`super::fire`]): the estimate, the server's count, the
//! provider's reported usage, and the history's counts.
//!
//! Reported usage is what an agent learns after each call: the input tokens the provider counted
//! and the output it wrote. `reported` adds an estimate of what entered the history since (tool
//! results, a new request), as Codex does (`get_total_token_usage`: the last response's total
//! plus a byte estimate of the items after it), in `chars4` units, moving by what a compaction
//! removed too; before any call it is the `chars4` estimate of the whole request.

use std::sync::Mutex;

use super::fire::{Cue, Fire, Measure};
use super::tally;
use super::work::Work;
use crate::message::Message;
use crate::tokens::{Chars4, Chars4Flavor, TokenCounter};
use crate::tool_schemas::ToolSchemas;

/// The last call the provider reported: its tokens (input, then input and output) and the
/// history's size then, in `chars4` units.
#[derive(Clone, Copy, Debug, Default)]
struct Anchor {
    input: u64,
    output: u64,
    units: u64,
}

/// The provider's reported usage, as a compactor keeps it between calls.
pub(crate) struct Reported {
    chars4: Chars4,
    anchor: Mutex<Option<Anchor>>,
}

impl Default for Reported {
    fn default() -> Reported {
        Reported {
            chars4: Chars4::new(Chars4Flavor::Js),
            anchor: Mutex::new(None),
        }
    }
}

impl Reported {
    fn units(&self, system: Option<&Message>, messages: &[Message], tools: &ToolSchemas) -> u64 {
        self.chars4.prefix_units(system, tools) + messages.iter().map(|m| self.chars4.message_units(m)).sum::<u64>()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Anchor>> {
        self.anchor.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The provider counted `input` tokens for this request.
    pub(crate) fn input(&self, input: u64, system: Option<&Message>, messages: &[Message], tools: &ToolSchemas) {
        let units = self.units(system, messages, tools);
        *self.lock() = Some(Anchor {
            input,
            output: 0,
            units,
        });
    }

    /// The reply to the last reported request: `output` tokens, which the history now holds.
    pub(crate) fn output(&self, output: u64, reply: &Message) {
        let units = self.chars4.message_units(reply);
        if let Some(anchor) = self.lock().as_mut() {
            anchor.output = output;
            anchor.units += units;
        }
    }

    /// The last reported input tokens; `None` before any call.
    pub(crate) fn last_input(&self) -> Option<u64> {
        self.lock().map(|a| a.input)
    }

    /// The last reported usage plus the estimate of what changed since.
    pub(crate) fn level(&self, system: Option<&Message>, messages: &[Message], tools: &ToolSchemas) -> u64 {
        let units = self.units(system, messages, tools);
        match *self.lock() {
            None => units.div_ceil(4),
            Some(a) => {
                let delta = units as i64 - a.units as i64;
                // ceil(delta / 4), for either sign, as the `usage` estimator moves.
                let delta = if delta >= 0 { (delta + 3) / 4 } else { -((-delta) / 4) };
                ((a.input + a.output) as i64 + delta).max(0) as u64
            }
        }
    }
}

/// What a trigger is read against during one pass.
pub(crate) struct Readings<'a> {
    /// The provider's reported usage.
    pub reported: &'a Reported,
    /// The server's own counter, when the compactor knows it (`input` is then exact).
    pub server: Option<&'a dyn TokenCounter>,
    /// The system prompt and the tools the request carries.
    pub system: Option<&'a Message>,
    /// See [`Readings::system`].
    pub tools: &'a ToolSchemas,
    /// The context window, which shares and scaled amounts are resolved on.
    pub window: u64,
}

impl Readings<'_> {
    /// What `measure` reads on the history as `work` holds it now.
    pub(crate) fn read(&self, measure: Measure, work: &Work<'_>) -> u64 {
        let messages = work.messages();
        match measure {
            Measure::Tokens => work.estimate(),
            Measure::History => work.history_estimate(),
            Measure::Input => match self.server {
                Some(server) => server.count(self.system, messages, self.tools),
                None => self.reported.level(self.system, messages, self.tools),
            },
            Measure::Reported => self.reported.level(self.system, messages, self.tools),
            Measure::LastInput => self.reported.last_input().unwrap_or_else(|| work.estimate()),
            Measure::Messages => messages.len() as u64,
            Measure::Events => tally::events(self.system.is_some(), messages),
            Measure::Turns => tally::turns(messages),
            Measure::Requests => tally::requests(messages),
            Measure::ToolUses => tally::tool_uses(messages),
        }
    }

    /// Whether `fire` fires on the history as `work` holds it now (`limit`: never; the policy's
    /// limit is the compactor's to check).
    pub(crate) fn fires(&self, fire: &Fire, work: &Work<'_>) -> bool {
        match fire {
            Fire::Limit => false,
            Fire::Any(cues) => cues
                .iter()
                .any(|cue: &Cue| cue.fires(self.read(cue.measure, work), self.window)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::Role;
    use crate::tool_schemas::NO_TOOLS;

    #[test]
    fn reported_usage_moves_with_what_came_since() {
        let reported = Reported::default();
        let request = vec![Message::new(Role::User, "x".repeat(400))];
        let fresh = reported.level(None, &request, &NO_TOOLS);
        assert_eq!(reported.last_input(), None);
        reported.input(1000, None, &request, &NO_TOOLS);
        assert_eq!(reported.level(None, &request, &NO_TOOLS), 1000);
        let reply = Message::new(Role::Assistant, "y".repeat(40));
        reported.output(30, &reply);
        let mut after = request.clone();
        after.push(reply);
        assert_eq!(
            reported.level(None, &after, &NO_TOOLS),
            1030,
            "the reply counted as reported"
        );
        after.push(Message::tool_result("c", "z".repeat(400)));
        let result_units = reported.chars4.message_units(&after[2]);
        assert_eq!(reported.level(None, &after, &NO_TOOLS), 1030 + result_units.div_ceil(4));
        assert_eq!(reported.last_input(), Some(1000));
        assert!(fresh > 0);
    }
}
