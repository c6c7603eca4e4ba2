//! `mask` (observation masking) and `clear-tool-uses` (Anthropic's tool-result clearing): replace
//! old tool results by a short placeholder, oldest first.
//!
//! Both protect the last tool results rather than the last requests, so they work inside one
//! long request. Neither touches the preamble, results whose content is not a string, results
//! that already hold a placeholder (theirs or another stage's), or a result whose placeholder
//! would not cost less: they never raise the estimate.

use super::notes::{CLEARED, is_placeholder, mask_placeholder_of_length};
use super::work::Work;
use crate::conversation::first_user;
use crate::json_len::code_points;
use crate::message::{Message, Role};

/// Where the tool results that may be replaced lie: after the first request message, before
/// the last `protect` results. `None` without a request message.
fn reach(messages: &[Message], protect: usize) -> Option<std::ops::Range<usize>> {
    let first = first_user(messages)?;
    let mut end = messages.len();
    if protect > 0 {
        // The oldest protected result, found from the end: every result is protected when
        // there are fewer.
        let mut results = messages
            .iter()
            .enumerate()
            .rev()
            .filter(|(_, m)| m.role() == Role::Tool);
        end = results.nth(protect - 1).map_or(0, |(i, _)| i);
    }
    Some(first + 1..end.max(first + 1))
}

/// The tool results [`reach`] gives, oldest first, each with the nearest assistant message before
/// it (where [`tool_name`] finds its call). Only roles are read: names are looked up as needed.
fn old_results(messages: &[Message], protect: usize) -> Vec<(usize, Option<usize>)> {
    let Some(reach) = reach(messages, protect) else {
        return Vec::new();
    };
    let mut assistant = None;
    let mut results = Vec::new();
    for (i, message) in messages[..reach.end].iter().enumerate() {
        match message.role() {
            Role::Assistant => assistant = Some(i),
            Role::Tool if reach.contains(&i) => results.push((i, assistant)),
            _ => {}
        }
    }
    results
}

/// The name of the tool a result answers: from the call of `assistant` (the nearest assistant
/// message before it) with its id, else the result's own `name`, else `tool`.
fn tool_name<'m>(result: &'m Message, assistant: Option<&'m Message>) -> &'m str {
    let id = result.tool_call_id();
    let from_call = assistant
        .and_then(|a| a.calls().find(|c| Some(c.id) == id))
        .map(|c| c.name);
    from_call.or(result.name()).unwrap_or("tool")
}

/// Whether `content` has more code points than `placeholder`; without counting them when its
/// bytes alone say so (a code point is at most four bytes), as most results are long.
fn longer(content: &str, placeholder: &str) -> bool {
    content.len() > 4 * placeholder.len() || code_points(content) > code_points(placeholder)
}

/// Masks results older than the last `m`; while over the limit only, unless `always`. Each
/// result's tool is looked up as it is masked.
pub(crate) fn mask(work: &mut Work<'_>, m: usize, always: bool) {
    for (i, assistant) in old_results(work.messages(), m) {
        if !always && !work.over() {
            return;
        }
        let message = &work.messages()[i];
        let Some(content) = message.content_str().filter(|c| !is_placeholder(c)) else {
            continue;
        };
        let tool = tool_name(message, assistant.map(|a| &work.messages()[a]));
        let placeholder = mask_placeholder_of_length(tool, message.text_utf16_len());
        if longer(content, &placeholder) && work.rewrite_if_smaller(i, placeholder) {
            work.counts.masked += 1;
        }
    }
}

/// Parameters of `clear-tool-uses`, resolved against the policy.
pub(crate) struct Clear<'a> {
    /// Runs when the estimate exceeds this.
    pub trigger: u64,
    /// How many recent results are never cleared.
    pub keep: usize,
    /// Does nothing unless it can free at least this many tokens.
    pub clear_at_least: u64,
    /// Tools whose results are never cleared.
    pub exclude: &'a [String],
}

/// Once the estimate exceeds the trigger, clears old results, oldest first, until the estimate
/// is under both the trigger and the limit and at least `clear_at_least` tokens are freed; does
/// nothing when it cannot free that much. Ending under its own trigger, it does not fire again
/// on the same history.
pub(crate) fn clear_tool_uses(work: &mut Work<'_>, p: &Clear<'_>) {
    if work.estimate() <= p.trigger {
        return;
    }
    let target = p.trigger.min(work.goal);
    let before = work.estimate();
    let done = |work: &Work<'_>| work.estimate() <= target && before - work.estimate() >= p.clear_at_least;
    // One pass: results wait until clearing them all is known to free `clear_at_least` (when
    // it never is, nothing is cleared); from then on each is cleared as it comes, until done.
    let (mut waiting, mut possible, mut clearing) = (Vec::new(), 0, false);
    for (i, assistant) in old_results(work.messages(), p.keep) {
        let message = &work.messages()[i];
        if message.content_str().is_none_or(is_placeholder) {
            continue;
        }
        // Tool names are looked up only to exclude some: most runs need none.
        if !p.exclude.is_empty() {
            let tool = tool_name(message, assistant.map(|a| &work.messages()[a]));
            if p.exclude.iter().any(|e| e == tool) {
                continue;
            }
        }
        let saved = work.saving(i, CLEARED);
        if saved == 0 {
            continue;
        }
        waiting.push((i, saved));
        possible += saved;
        clearing = clearing || before - work.estimate_without(possible) >= p.clear_at_least;
        if clearing {
            for (i, saved) in waiting.drain(..) {
                if done(work) {
                    return;
                }
                work.rewrite_saving(i, CLEARED.to_owned(), saved);
                work.counts.masked += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longer_is_a_comparison_of_code_points() {
        let placeholder = "[Output of get_order omitted: 1200 chars]";
        for content in [
            "short",
            &"é".repeat(41),
            &"é".repeat(42),
            &"😀".repeat(42),
            &"x".repeat(200),
            "",
        ] {
            assert_eq!(
                longer(content, placeholder),
                code_points(content) > code_points(placeholder),
                "{content}"
            );
        }
    }
}
