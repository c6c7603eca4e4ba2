//! The texts strategies write in place of what they remove, in one place, so that each stage
//! recognises the others' work and a pipeline run twice changes nothing the second time.

use std::fmt::Write;

use super::params::Flavor;
use crate::message::Message;

/// What every truncation note starts with; results starting so are never truncated again.
pub const TRUNCATED: &str = "[Truncated";

/// The reference listing's note: `[Truncated to save context: N chars. Preview: <first chars>…]`.
///
/// `Ts`: N and the cut in UTF-16 units, a cut that would split a surrogate pair stops one unit
/// earlier, `…`. `Py`: N and the cut in code points, `...`.
pub fn truncation_note(content: &str, preview: usize, flavor: Flavor) -> String {
    let length = match flavor {
        Flavor::Ts => crate::json_len::utf16_len(content),
        Flavor::Py => crate::json_len::code_points(content),
    };
    truncation_note_of_length(content, length, preview, flavor)
}

/// [`truncation_note`] of a content whose length (in the flavor's units) is known.
pub(crate) fn truncation_note_of_length(content: &str, length: u64, preview: usize, flavor: Flavor) -> String {
    let head = &content.as_bytes()[..preview.min(content.len())];
    let (cut, ellipsis) = match flavor {
        // ASCII: a byte is a unit and a code point, so the cut is the head's end.
        Flavor::Ts if head.is_ascii() => (head.len(), "…"),
        Flavor::Py if head.is_ascii() => (head.len(), "..."),
        Flavor::Ts => {
            // The cut: within the first `preview` units, never inside a surrogate pair.
            let mut units = 0;
            let mut cut = content.len();
            for (byte, c) in content.char_indices() {
                if units + c.len_utf16() > preview {
                    cut = byte;
                    break;
                }
                units += c.len_utf16();
            }
            (cut, "…")
        }
        Flavor::Py => {
            let cut = content
                .char_indices()
                .nth(preview)
                .map_or(content.len(), |(byte, _)| byte);
            (cut, "...")
        }
    };
    // Written piece by piece: one of these per old result, and `format!` was most of its cost.
    let mut note = String::with_capacity(64 + cut);
    note.push_str("[Truncated to save context: ");
    // A `String` takes any text: writing to it cannot fail.
    let _ = write!(note, "{length}");
    note.push_str(" chars. Preview: ");
    note.push_str(&content[..cut]);
    note.push_str(ellipsis);
    note.push(']');
    note
}

/// What every `mask` placeholder starts with.
pub const MASKED: &str = "[Output of ";

/// What `mask` writes in place of a result.
pub fn mask_placeholder(tool: &str, content: &str) -> String {
    mask_placeholder_of_length(tool, crate::json_len::utf16_len(content))
}

/// [`mask_placeholder`] of a content `units` UTF-16 units long.
pub(crate) fn mask_placeholder_of_length(tool: &str, units: u64) -> String {
    // Written piece by piece, as the truncation note: one per old result.
    let mut placeholder = String::with_capacity(MASKED.len() + tool.len() + 32);
    placeholder.push_str(MASKED);
    placeholder.push_str(tool);
    placeholder.push_str(" omitted: ");
    // A `String` takes any text: writing to it cannot fail.
    let _ = write!(placeholder, "{units}");
    placeholder.push_str(" chars]");
    placeholder
}

/// What `clear-tool-uses` writes in place of a result (LangChain's `DEFAULT_TOOL_PLACEHOLDER`;
/// Anthropic does not publish its own).
pub const CLEARED: &str = "[cleared]";

/// What SWE-agent's `LastNObservations` writes in place of an observation:
/// `Old environment output: (N lines omitted)` (`sweagent/agent/history_processors.py`).
pub const OLD_OUTPUT: &str = "Old environment output: (";

/// SWE-agent's placeholder for a result of `lines` lines.
pub fn old_output(lines: usize) -> String {
    format!("{OLD_OUTPUT}{lines} lines omitted)")
}

/// Whether a tool result is already a placeholder written by some stage; no stage rewrites one,
/// so a pipeline's stages never undo or redo each other's work.
pub fn is_placeholder(content: &str) -> bool {
    content.starts_with(TRUNCATED)
        || content.starts_with(MASKED)
        || content == CLEARED
        || (content.starts_with(OLD_OUTPUT) && content.ends_with(" lines omitted)"))
}

/// Whether a message is a summary, whoever wrote it and in whatever role
/// ([`crate::summaries::is_summary_text`]).
pub fn is_summary(message: &Message) -> bool {
    message.content_str().is_some_and(crate::summaries::is_summary_text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_follow_each_listing() {
        let check = |content: &str, preview, flavor, expect: &str| {
            assert_eq!(truncation_note(content, preview, flavor), expect);
        };
        check(
            "abcdef",
            3,
            Flavor::Ts,
            "[Truncated to save context: 6 chars. Preview: abc…]",
        );
        check(
            "abcdef",
            3,
            Flavor::Py,
            "[Truncated to save context: 6 chars. Preview: abc...]",
        );
        check(
            "ab",
            150,
            Flavor::Ts,
            "[Truncated to save context: 2 chars. Preview: ab…]",
        );
        // 😀 is two UTF-16 units: cutting at 2 would split it, so the cut stops one unit earlier.
        check(
            "a😀b",
            2,
            Flavor::Ts,
            "[Truncated to save context: 4 chars. Preview: a…]",
        );
        check(
            "a😀b",
            3,
            Flavor::Ts,
            "[Truncated to save context: 4 chars. Preview: a😀…]",
        );
        check(
            "a😀b",
            2,
            Flavor::Py,
            "[Truncated to save context: 3 chars. Preview: a😀...]",
        );
        check("", 150, Flavor::Ts, "[Truncated to save context: 0 chars. Preview: …]");
        assert_eq!(
            mask_placeholder("get_order", "a😀"),
            "[Output of get_order omitted: 3 chars]"
        );
    }
}
