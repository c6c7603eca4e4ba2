//! `clear-thinking` (Anthropic's `clear_thinking_20251015`): an assistant turn's thinking is
//! removed from all but the last `keep` turns that think. In a chat history, thinking is an
//! assistant message's `reasoning_content` (DeepSeek, vLLM), `reasoning` (OpenRouter) or
//! `thinking` field; a message with none is left alone, so the stage never raises the estimate,
//! and a message cleared has nothing left to clear.

use super::params::ThinkingKeep;
use super::work::Work;
use crate::message::{Message, Role};

/// The fields a chat message carries its thinking in.
pub const THINKING_FIELDS: [&str; 3] = ["reasoning_content", "reasoning", "thinking"];

/// Whether an assistant message carries thinking.
fn thinks(message: &Message) -> bool {
    message.role() == Role::Assistant && THINKING_FIELDS.iter().any(|f| message.has_field(f))
}

/// Removes the thinking of every thinking turn but the last `keep`.
pub(crate) fn clear_thinking(work: &mut Work<'_>, keep: ThinkingKeep) {
    let ThinkingKeep::Turns(keep) = keep else {
        return;
    };
    let thinking: Vec<usize> = (0..work.messages().len())
        .filter(|&i| thinks(&work.messages()[i]))
        .collect();
    let clear = thinking.len().saturating_sub(keep);
    for &i in &thinking[..clear] {
        work.edit(i, |m| {
            for field in THINKING_FIELDS {
                m.remove_field(field);
            }
        });
        work.counts.masked += 1;
    }
}
