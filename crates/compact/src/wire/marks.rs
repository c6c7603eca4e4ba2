//! Where a request asks to be cached: Anthropic's `cache_control` marks, as positions in the one
//! history (what the `breakpoints` cache of the harness reads).

use serde_json::{Map, Value};

use super::{Piece, Source};
use crate::message::Message;

/// The cache breakpoints a body sets itself: after the head (its tools or its system prompt carry
/// a mark), and after each message one of whose blocks carries one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheMarks {
    /// The tools or the system prompt carry a mark: the prefix ending with the system prompt is a
    /// breakpoint.
    pub head: bool,
    /// Indices, in the history (the system prompt held apart), of the messages that end at a
    /// mark, ascending.
    pub messages: Vec<usize>,
}

/// Whether a block (or a tool schema) carries a `cache_control` mark.
fn marked(value: &Value) -> bool {
    value.get("cache_control").is_some_and(|c| !c.is_null())
}

/// Whether any block of an array carries a mark.
fn any_marked(value: Option<&Value>) -> bool {
    value
        .and_then(Value::as_array)
        .is_some_and(|list| list.iter().any(marked))
}

impl Source {
    /// The marks of an Anthropic body, for `messages` (the history as it is now: a message a stage
    /// wrote keeps the piece it replaced); `None` when the body sets none, or is of another format.
    pub(crate) fn cache_marks(&self, messages: &[Message]) -> Option<CacheMarks> {
        if self.format != super::Format::Anthropic {
            return None;
        }
        let rest: Option<&Map<String, Value>> = self.rest.as_ref();
        let head = rest.is_some_and(|r| any_marked(r.get("system")) || any_marked(r.get("tools")));
        let blocks = |item: u32| self.items.get(item as usize).and_then(|m| m.get("content"));
        let marked_messages: Vec<usize> = messages
            .iter()
            .enumerate()
            .filter(|(_, m)| match self.piece(m) {
                Some(Piece::Whole { item }) => any_marked(blocks(item)),
                Some(Piece::Blocks { item, first, count, .. }) => blocks(item)
                    .and_then(Value::as_array)
                    .is_some_and(|list| list.iter().skip(first as usize).take(count as usize).any(marked)),
                Some(Piece::System | Piece::Items { .. }) | None => false,
            })
            .map(|(i, _)| i)
            .collect();
        (head || !marked_messages.is_empty()).then_some(CacheMarks {
            head,
            messages: marked_messages,
        })
    }
}
