//! What a binding holds of each chat message it read, to tell after a compaction whether a stage
//! rewrote the message: the Python and Node packages hand back a message no stage touched as the
//! caller's own object, one whose content alone was rewritten as a copy with its new content,
//! and any other as the library wrote it.

use super::THINKING_FIELDS;
use crate::message::Message;

/// A chat message as read: where its content lies, where its calls' arguments lie
/// (`clear-tool-uses` with `inputs=true` empties them) and which thinking fields it has
/// (`clear-thinking` removes them). Stages that rewrite text give it new storage, so an address
/// that moved is a rewrite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AsRead {
    content: Option<(usize, usize)>,
    calls: usize,
    thinking: u8,
}

/// What a stage did to a message, against how it was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rewritten {
    /// Nothing: the caller's own message stands.
    Not,
    /// Its content, and nothing else.
    Content,
    /// More than its content (its calls' arguments, its thinking).
    Whole,
}

impl AsRead {
    /// The message as it is now.
    pub fn of(message: &Message) -> AsRead {
        let calls = message.calls().fold(0usize, |h, c| {
            h.wrapping_mul(31).wrapping_add(c.arguments.as_ptr() as usize)
        });
        let thinking = THINKING_FIELDS
            .iter()
            .enumerate()
            .fold(0u8, |bits, (k, f)| bits | (u8::from(message.has_field(f)) << k));
        AsRead {
            content: message.content_str().map(|s| (s.as_ptr() as usize, s.len())),
            calls,
            thinking,
        }
    }

    /// What was rewritten of the message read as `self`, now `message`.
    pub fn rewritten(&self, message: &Message) -> Rewritten {
        let now = AsRead::of(message);
        if (now.calls, now.thinking) != (self.calls, self.thinking) {
            Rewritten::Whole
        } else if now.content != self.content {
            Rewritten::Content
        } else {
            Rewritten::Not
        }
    }
}
