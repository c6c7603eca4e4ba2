//! What a compaction did besides shrinking the request: the headroom it left, the floor it could
//! not go under, and unchanged messages it put behind new content (whose cache it lost for
//! nothing). DESIGN §23; `docs/figures.md` says how the run's figures are read from them.

use std::collections::HashSet;

use ctxbench_compact::conversation::{Conversation, keep_from};
use ctxbench_compact::message::Message;
use ctxbench_compact::tokens::TokenCounter;
use foldhash::fast::FixedState;

use crate::trace::CompactionRecord;

/// The history's fingerprints before a compaction, to see afterwards what it moved.
pub(crate) fn fingerprints(messages: &[Message]) -> Vec<u64> {
    messages.iter().map(Message::fingerprint).collect()
}

/// Fills in `record`'s headroom, floor and moved tokens, the history now as the compaction left
/// it, `before` the fingerprints it started from; `keep` requests are protected.
pub(crate) fn note(
    record: &mut CompactionRecord,
    (limit, keep): (u64, usize),
    counter: &dyn TokenCounter,
    conversation: &Conversation,
    before: &[u64],
) {
    let changed = record.changed();
    if changed || record.cannot_fit {
        record.floor = Some(floor(counter, conversation, keep));
    }
    if changed {
        record.headroom = Some(headroom(limit, record.tokens_after));
        record.unchanged_moved_tokens = unchanged_moved(counter, before, &conversation.messages);
    }
}

/// What is left below `limit` after a request of `tokens`, over the limit, to the millionth.
pub(crate) fn headroom(limit: u64, tokens: u64) -> f64 {
    let left = limit as f64 - tokens as f64;
    (left / limit.max(1) as f64 * 1e6).round() / 1e6
}

/// What no compaction may remove, in `counter`'s tokens: the system prompt and tools, the
/// history up to and including its first request, system messages, and the protected tail (the
/// last `keep` requests and what follows them).
pub(crate) fn floor(counter: &dyn TokenCounter, conversation: &Conversation, keep: usize) -> u64 {
    let messages = &conversation.messages;
    let first = messages.iter().position(Message::is_request).unwrap_or(0);
    let tail = keep_from(messages, keep).max(first + 1);
    let kept = messages
        .iter()
        .enumerate()
        .filter(|&(i, m)| i <= first || i >= tail || m.role().is_instruction());
    let units = counter.prefix_units(conversation.system.as_ref(), &conversation.tools)
        + kept.map(|(_, m)| counter.message_units(m)).sum::<u64>();
    counter.tokens(units)
}

/// Tokens of messages the compaction left unchanged but put after new content, where the
/// history before it (`before`, fingerprints) and after it (`after`) first differ: the stable
/// part a summary placed first pushes out of the cached prefix. 0 when what comes first is
/// old (a drop), or when the old messages there are gone or changed (the summary took their
/// place, as it should).
pub(crate) fn unchanged_moved(counter: &dyn TokenCounter, before: &[u64], after: &[Message]) -> u64 {
    let shared = before
        .iter()
        .zip(after)
        .take_while(|(b, a)| **b == a.fingerprint())
        .count();
    let (Some(old_next), Some(first_new)) = (before.get(shared), after.get(shared)) else {
        return 0;
    };
    let old: HashSet<u64, FixedState> = before[shared..].iter().copied().collect();
    if old.contains(&first_new.fingerprint()) {
        return 0;
    }
    let now: HashSet<u64, FixedState> = after[shared..].iter().map(Message::fingerprint).collect();
    if !now.contains(old_next) {
        return 0;
    }
    // The old messages from `shared` on that are still there unchanged, up to the first gone.
    let moved: HashSet<u64, FixedState> = before[shared..]
        .iter()
        .take_while(|f| now.contains(f))
        .copied()
        .collect();
    let units: u64 = after[shared..]
        .iter()
        .filter(|m| moved.contains(&m.fingerprint()))
        .map(|m| counter.message_units(m))
        .sum();
    counter.tokens(units).saturating_sub(counter.tokens(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxbench_compact::message::Role;
    use ctxbench_compact::tokens::CounterKind;

    fn texts(texts: &[&str]) -> Vec<Message> {
        texts.iter().map(|t| Message::new(Role::User, *t)).collect()
    }

    #[test]
    fn a_summary_placed_first_moves_the_unchanged_head_and_one_in_its_place_moves_nothing() {
        let counter = CounterKind::O200k.counter();
        let before = texts(&["rules of the house", "first request", "old 1", "old 2", "recent"]);
        let fps = fingerprints(&before);
        // In the span's place: the head stays first, the summary replaces the old ones.
        let span = texts(&["rules of the house", "first request", "SUMMARY", "recent"]);
        assert_eq!(unchanged_moved(counter.as_ref(), &fps, &span), 0);
        // First: the head goes behind the summary, its cache lost for nothing.
        let first = texts(&["SUMMARY", "rules of the house", "first request", "recent"]);
        let head = counter.count(
            None,
            &texts(&["rules of the house", "first request"]),
            &Default::default(),
        ) - counter.count(None, &[], &Default::default());
        assert_eq!(unchanged_moved(counter.as_ref(), &fps, &first), head);
        assert!(head > 0);
        // A drop puts nothing new first.
        let dropped = texts(&["rules of the house", "first request", "recent"]);
        assert_eq!(unchanged_moved(counter.as_ref(), &fps, &dropped), 0);
    }

    #[test]
    fn headroom_is_what_is_left_over_the_limit() {
        assert_eq!(headroom(1000, 800), 0.2);
        assert_eq!(headroom(1000, 1100), -0.1);
    }
}
