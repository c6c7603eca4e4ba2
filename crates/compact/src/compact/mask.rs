//! `mask` (observation masking) and `clear-tool-uses` (Anthropic's tool-result clearing): replace
//! old tool results by a short placeholder, oldest first.
//!
//! Both protect the last tool results rather than the last requests, so they work inside one
//! long request. Neither touches the preamble, results whose content is not a string, results
//! that already hold a placeholder (theirs or another stage's), or a result whose placeholder
//! would not cost less: they never raise the estimate.

use super::notes::{CLEARED, is_placeholder, mask_placeholder_of_length, old_output};
use super::params::{ClearInputs, MaskStyle, Until};
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
/// result's tool is looked up as it is masked. SWE-agent's style replaces every old result,
/// whatever it costs, as `LastNObservations` does.
pub(crate) fn mask(work: &mut Work<'_>, m: usize, always: bool, style: MaskStyle) {
    for (i, assistant) in old_results(work.messages(), m) {
        if !always && !work.over() {
            return;
        }
        let message = &work.messages()[i];
        let Some(content) = message.content_str().filter(|c| !is_placeholder(c)) else {
            continue;
        };
        if style == MaskStyle::SweAgent {
            let placeholder = old_output(python_lines(content));
            work.rewrite(i, placeholder);
            work.counts.masked += 1;
            continue;
        }
        let tool = tool_name(message, assistant.map(|a| &work.messages()[a]));
        let placeholder = mask_placeholder_of_length(tool, message.text_utf16_len());
        if longer(content, &placeholder) && work.rewrite_if_smaller(i, placeholder) {
            work.counts.masked += 1;
        }
    }
}

/// How many lines Python's `str.splitlines()` finds in `text` (SWE-agent counts them so).
fn python_lines(text: &str) -> usize {
    let mut lines = 0;
    let mut chars = text.chars().peekable();
    let mut open = false;
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                lines += 1;
                open = false;
            }
            '\n' | '\u{b}' | '\u{c}' | '\u{1c}' | '\u{1d}' | '\u{1e}' | '\u{85}' | '\u{2028}' | '\u{2029}' => {
                lines += 1;
                open = false;
            }
            _ => open = true,
        }
    }
    lines + usize::from(open)
}

/// Parameters of `clear-tool-uses`, resolved against the policy.
pub(crate) struct Clear<'a> {
    /// Runs when the estimate exceeds this; `None`: its own conditions fired already.
    pub trigger: Option<u64>,
    /// How many recent results are never cleared.
    pub keep: usize,
    /// Does nothing unless it can free at least this many tokens.
    pub clear_at_least: u64,
    /// Tools whose results are never cleared.
    pub exclude: &'a [String],
    /// The calls emptied with their results.
    pub inputs: &'a ClearInputs,
    /// How far it clears.
    pub until: Until,
}

/// Once the estimate exceeds the trigger, clears old results, oldest first, until the estimate
/// is under both the trigger and the goal (`until=fit`), or every result it may (`until=all`),
/// and at least `clear_at_least` tokens are freed (with `all`, it stops once they are); does
/// nothing when it cannot free that much. Ending under its own trigger, it does not fire again
/// on the same history.
pub(crate) fn clear_tool_uses(work: &mut Work<'_>, p: &Clear<'_>) {
    if p.trigger.is_some_and(|t| work.estimate() <= t) {
        return;
    }
    let target = p.trigger.unwrap_or(u64::MAX).min(work.goal);
    let before = work.estimate();
    // Its own conditions fired, but the request is under the target already: nothing to fit.
    if p.until == Until::Fit && before <= target {
        return;
    }
    let done = |work: &Work<'_>| {
        let freed = before - work.estimate().min(before);
        match p.until {
            Until::Fit => work.estimate() <= target && freed >= p.clear_at_least,
            Until::All => p.clear_at_least > 0 && freed >= p.clear_at_least,
        }
    };
    // One pass: results wait until clearing them all is known to free `clear_at_least` (when
    // it never is, nothing is cleared); from then on each is cleared as it comes, until done.
    let (mut waiting, mut possible, mut clearing) = (Vec::new(), 0, false);
    for (i, assistant) in old_results(work.messages(), p.keep) {
        let message = &work.messages()[i];
        if message.content_str().is_none_or(is_placeholder) {
            continue;
        }
        // Tool names are looked up only to exclude some or empty their calls: most runs need none.
        let tool = (!p.exclude.is_empty() || *p.inputs != ClearInputs::None)
            .then(|| tool_name(message, assistant.map(|a| &work.messages()[a])).to_owned());
        if tool.as_ref().is_some_and(|t| p.exclude.iter().any(|e| e == t)) {
            continue;
        }
        let saved = work.saving(i, CLEARED);
        if saved == 0 {
            continue;
        }
        let call = tool
            .filter(|t| p.inputs.covers(t))
            .and(assistant)
            .zip(message.tool_call_id().map(str::to_owned));
        waiting.push((i, saved, call));
        possible += saved;
        clearing = clearing || before - work.estimate_without(possible) >= p.clear_at_least;
        if clearing {
            for (i, saved, call) in waiting.drain(..) {
                if done(work) {
                    return;
                }
                work.rewrite_saving(i, CLEARED.to_owned(), saved);
                work.counts.masked += 1;
                if let Some((assistant, id)) = call {
                    empty_call(work, assistant, &id);
                }
            }
        }
    }
}

/// The call `id` of assistant message `at`, its arguments emptied (`{}`), as LangChain's
/// `ClearToolUsesEdit` does with `clear_tool_inputs` (Anthropic's shape is not published).
fn empty_call(work: &mut Work<'_>, at: usize, id: &str) {
    if work.messages()[at].calls().any(|c| c.id == id && c.arguments == "{}") {
        return;
    }
    let calls: Vec<(String, String, String)> = work.messages()[at]
        .calls()
        .map(|c| {
            let arguments = if c.id == id { "{}" } else { c.arguments };
            (c.id.to_owned(), c.name.to_owned(), arguments.to_owned())
        })
        .collect();
    work.edit(at, |m| {
        // An assistant message's calls, rewritten as calls: it stays valid.
        let _ = m.set_tool_calls(calls);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_counted_as_python_splits_them() {
        for (text, lines) in [
            ("", 0),
            ("a", 1),
            ("a\n", 1),
            ("a\nb", 2),
            ("a\r\nb\r", 2),
            ("\n\n", 2),
            ("a\u{2028}b", 2),
        ] {
            assert_eq!(python_lines(text), lines, "{text:?}");
        }
    }

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
