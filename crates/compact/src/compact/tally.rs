//! A history counted as the compactors people run count it (messages, OpenHands' events,
//! SWE-agent's turns, Google ADK's invocations, Anthropic's tool uses), and the places where it
//! may be cut without separating a tool call from its result.
//!
//! A tool result follows its call's assistant message, with only other results between them (the
//! pairing rule), so a cut that does not fall on a result keeps every pair on one side.

use super::notes::is_summary;
use crate::message::{Message, Role};

/// OpenHands' events of one message: each tool call is an event (a response's calls are one
/// batch of action events), any other message one.
pub(crate) fn events_of(message: &Message) -> u64 {
    if message.role() == Role::Assistant {
        (message.calls().count() as u64).max(1)
    } else {
        1
    }
}

/// Events of a request as OpenHands' view holds them: the system prompt, then the history's.
pub(crate) fn events(system: bool, messages: &[Message]) -> u64 {
    u64::from(system) + messages.iter().map(events_of).sum::<u64>()
}

/// Where the last summary message is, if any.
pub(crate) fn last_summary(messages: &[Message]) -> Option<usize> {
    messages.iter().rposition(is_summary)
}

/// What comes after the last summary (the whole history when there is none).
fn since_summary(messages: &[Message]) -> &[Message] {
    match last_summary(messages) {
        Some(at) => &messages[at + 1..],
        None => messages,
    }
}

/// Assistant turns since the last summary: SWE-agent's turns not yet summarized.
pub(crate) fn turns(messages: &[Message]) -> u64 {
    since_summary(messages)
        .iter()
        .filter(|m| m.role() == Role::Assistant)
        .count() as u64
}

/// Requests answered since the last summary: each request followed by another, and the last one
/// too when the history ends with a reply (an assistant message without calls).
pub(crate) fn requests(messages: &[Message]) -> u64 {
    let since = since_summary(messages);
    let opened = since.iter().filter(|m| m.is_request()).count() as u64;
    let last_answered = since
        .last()
        .is_some_and(|m| m.role() == Role::Assistant && !m.has_calls());
    if last_answered || opened == 0 {
        opened
    } else {
        opened - 1
    }
}

/// Tool calls in the history.
pub(crate) fn tool_uses(messages: &[Message]) -> u64 {
    messages.iter().map(|m| m.calls().count() as u64).sum()
}

/// Where the history's pending calls begin: a last assistant message with calls and no results
/// after it (kept, never summarized); the history's end otherwise.
pub(crate) fn pending_from(messages: &[Message]) -> usize {
    match messages.last() {
        Some(last) if last.role() == Role::Assistant && last.has_calls() => messages.len() - 1,
        _ => messages.len(),
    }
}

/// `at` moved forward past tool results, so that a span starting there takes no result whose
/// call stays before it.
pub(crate) fn start_at(messages: &[Message], mut at: usize) -> usize {
    while messages.get(at).is_some_and(|m| m.role() == Role::Tool) {
        at += 1;
    }
    at
}

/// `at` moved back past tool results to the assistant message that called them, so that a tail
/// starting there keeps every result with its call.
pub(crate) fn end_at(messages: &[Message], floor: usize, mut at: usize) -> usize {
    while at > floor && messages.get(at).is_some_and(|m| m.role() == Role::Tool) {
        at -= 1;
    }
    at
}

/// Where the last `n` assistant turns (with their results) begin; 0 when there are fewer.
pub(crate) fn last_turns(messages: &[Message], n: usize) -> usize {
    if n == 0 {
        return messages.len();
    }
    messages
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, m)| m.role() == Role::Assistant && !is_summary(m))
        .nth(n - 1)
        .map_or(0, |(i, _)| i)
}

/// Where the last `n` events begin: the latest message boundary with at most `n` events after it.
pub(crate) fn last_events(messages: &[Message], n: u64) -> usize {
    let mut kept = 0;
    let mut at = messages.len();
    while at > 0 {
        let next = kept + events_of(&messages[at - 1]);
        if next > n {
            break;
        }
        kept = next;
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;

    fn history() -> Vec<Message> {
        let call = |id| ToolCall {
            id,
            name: "read_file",
            arguments: "{}",
        };
        vec![
            Message::new(Role::User, "fix the bug"),
            Message::assistant_calls([call("a"), call("b")]),
            Message::tool_result("a", "one"),
            Message::tool_result("b", "two"),
            Message::new(Role::Assistant, "done"),
            Message::new(Role::User, "thanks; now the docs"),
            Message::assistant_calls([call("c")]),
            Message::tool_result("c", "three"),
        ]
    }

    #[test]
    fn a_history_counted_as_each_framework_counts_it() {
        let h = history();
        assert_eq!(events(true, &h), 1 + 1 + 2 + 2 + 1 + 1 + 1 + 1);
        assert_eq!(turns(&h), 3);
        assert_eq!(requests(&h), 1, "the second request is under way");
        assert_eq!(requests(&h[..5]), 1, "the first one answered");
        assert_eq!(tool_uses(&h), 3);
        assert_eq!(pending_from(&h[..7]), 6);
        assert_eq!(pending_from(&h), 8);
    }

    #[test]
    fn cuts_never_fall_between_a_call_and_its_result() {
        let h = history();
        assert_eq!(start_at(&h, 2), 4);
        assert_eq!(end_at(&h, 0, 3), 1);
        assert_eq!(end_at(&h, 0, 7), 6);
        assert_eq!(last_turns(&h, 1), 6);
        assert_eq!(last_turns(&h, 2), 4);
        assert_eq!(last_turns(&h, 9), 0);
        // The last three events are the call c, its result and the request before them.
        assert_eq!(last_events(&h, 3), 5);
        assert_eq!(last_events(&h, 2), 6);
        assert_eq!(last_events(&h, 0), 8);
    }
}
