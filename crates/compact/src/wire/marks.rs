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
    /// wrote keeps the piece it replaced); `None` for a body of another format. An Anthropic body
    /// without a mark has none (Anthropic caches nothing it was not asked to); a `cache_control` at
    /// the top of the body marks the last message, the automatic form ("when set at the top level,
    /// the system automatically applies cache breakpoints to the last cacheable block",
    /// <https://openrouter.ai/docs/client-sdks/python/components/anthropiccachecontroldirective>,
    /// read 2026-12-04).
    pub(crate) fn cache_marks(&self, messages: &[Message]) -> Option<CacheMarks> {
        if self.format != super::Format::Anthropic {
            return None;
        }
        let rest: Option<&Map<String, Value>> = self.rest.as_ref();
        let head = rest.is_some_and(|r| any_marked(r.get("system")) || any_marked(r.get("tools")));
        let blocks = |item: u32| self.items.get(item as usize).and_then(|m| m.get("content"));
        let mut marked_messages: Vec<usize> = messages
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
        let automatic = rest.is_some_and(|r| r.get("cache_control").is_some_and(|c| !c.is_null()));
        if automatic && !messages.is_empty() && marked_messages.last() != Some(&(messages.len() - 1)) {
            marked_messages.push(messages.len() - 1);
        }
        Some(CacheMarks {
            head,
            messages: marked_messages,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::request_body::RequestBody;
    use crate::wire::{CacheMarks, Format};

    fn marks(body: &str, format: Format) -> Option<CacheMarks> {
        RequestBody::parse_as(body, "body.json", Some(format))
            .expect("a valid body")
            .cache_marks()
    }

    const EPHEMERAL: &str = r#"{"type": "ephemeral"}"#;

    #[test]
    fn an_anthropic_body_says_where_it_asks_to_be_cached() {
        // A marked system block, and a mark on the second block of the first user turn: the head,
        // and message 0 (the system prompt is held apart).
        let body = format!(
            r#"{{"system": [{{"type": "text", "text": "Be brief.", "cache_control": {EPHEMERAL}}}],
                "messages": [
                  {{"role": "user", "content": [{{"type": "text", "text": "a"}}, {{"type": "text", "text": "b", "cache_control": {EPHEMERAL}}}]}},
                  {{"role": "assistant", "content": "ok"}},
                  {{"role": "user", "content": "c"}}]}}"#
        );
        assert_eq!(
            marks(&body, Format::Anthropic),
            Some(CacheMarks {
                head: true,
                messages: vec![0]
            })
        );
        // No mark: nothing is cached.
        let bare = r#"{"system": "Be brief.", "messages": [{"role": "user", "content": "a"}]}"#;
        assert_eq!(marks(bare, Format::Anthropic), Some(CacheMarks::default()));
        // The top-level mark: the last message.
        let automatic = format!(
            r#"{{"cache_control": {EPHEMERAL}, "messages": [{{"role": "user", "content": "a"}}, {{"role": "assistant", "content": "b"}}, {{"role": "user", "content": "c"}}]}}"#
        );
        assert_eq!(
            marks(&automatic, Format::Anthropic),
            Some(CacheMarks {
                head: false,
                messages: vec![2]
            })
        );
        // Chat sets none: its provider caches by itself.
        assert_eq!(
            marks(r#"{"messages": [{"role": "user", "content": "a"}]}"#, Format::Chat),
            None
        );
    }
}
