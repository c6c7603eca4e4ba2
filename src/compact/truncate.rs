//! `truncate` (the seed's level 1): old tool results become a one-line note with a preview.
//!
//! Oldest first, between the first request message and the protected tail; stops as soon as the
//! estimate fits. Skips results already starting with `[Truncated` and results whose content is
//! not a string. Like the seed, it rewrites a result even when the note is longer.

use super::spec::Flavor;
use super::work::Work;
use crate::conversation::{first_user, keep_from};
use crate::message::Role;

/// What every truncation note starts with; results starting so are never truncated again.
pub const TRUNCATED: &str = "[Truncated";

/// The seed's note: `[Truncated to save context: N chars. Preview: <first chars>…]`.
///
/// `Ts`: N and the cut in UTF-16 units, a cut that would split a surrogate pair stops one unit
/// earlier, `…`. `Py`: N and the cut in code points, `...`.
pub fn truncation_note(content: &str, preview: usize, flavor: Flavor) -> String {
    let (length, cut, ellipsis) = match flavor {
        Flavor::Ts => {
            let mut units = 0;
            let mut cut = None;
            for (byte, c) in content.char_indices() {
                if cut.is_none() && units + c.len_utf16() > preview {
                    cut = Some(byte);
                }
                units += c.len_utf16();
            }
            (units, cut.unwrap_or(content.len()), "…")
        }
        Flavor::Py => {
            let cut = content
                .char_indices()
                .nth(preview)
                .map_or(content.len(), |(byte, _)| byte);
            (content.chars().count(), cut, "...")
        }
    };
    format!(
        "[Truncated to save context: {length} chars. Preview: {}{ellipsis}]",
        &content[..cut]
    )
}

/// Runs the stage. `flavor` picks the note's semantics (the pipeline stage uses `Ts`).
pub(crate) fn truncate(work: &mut Work<'_>, preview: usize, flavor: Flavor) {
    let Some(first) = first_user(work.messages()) else {
        return;
    };
    let tail = keep_from(work.messages(), work.keep);
    for i in first + 1..tail {
        if !work.over() {
            return;
        }
        let m = &work.messages()[i];
        if m.role() != Role::Tool {
            continue;
        }
        let Some(content) = m.content_str().filter(|c| !c.starts_with(TRUNCATED)) else {
            continue;
        };
        let note = truncation_note(content, preview, flavor);
        work.rewrite(i, note);
        work.counts.truncated += 1;
    }
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
        check(
            "",
            150,
            Flavor::Ts,
            "[Truncated to save context: 0 chars. Preview: …]",
        );
    }
}
