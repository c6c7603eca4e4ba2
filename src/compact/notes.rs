//! The texts strategies write in place of what they remove, in one place, so that each stage
//! recognises the others' work and a pipeline run twice changes nothing the second time.

use super::spec::Flavor;

/// What every truncation note starts with; results starting so are never truncated again.
pub const TRUNCATED: &str = "[Truncated";

/// The seed's note: `[Truncated to save context: N chars. Preview: <first chars>…]`.
///
/// `Ts`: N and the cut in UTF-16 units, a cut that would split a surrogate pair stops one unit
/// earlier, `…`. `Py`: N and the cut in code points, `...`.
pub fn truncation_note(content: &str, preview: usize, flavor: Flavor) -> String {
    let (length, cut, ellipsis) = match flavor {
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
            (crate::tokens::json_len::utf16_len(content), cut, "…")
        }
        Flavor::Py => {
            let cut = content
                .char_indices()
                .nth(preview)
                .map_or(content.len(), |(byte, _)| byte);
            (crate::tokens::json_len::code_points(content), cut, "...")
        }
    };
    format!(
        "[Truncated to save context: {length} chars. Preview: {}{ellipsis}]",
        &content[..cut]
    )
}

/// What every `mask` placeholder starts with.
pub const MASKED: &str = "[Output of ";

/// What `mask` writes in place of a result.
pub fn mask_placeholder(tool: &str, content: &str) -> String {
    let chars = crate::tokens::json_len::utf16_len(content);
    format!("{MASKED}{tool} omitted: {chars} chars]")
}

/// What `clear-tool-uses` writes in place of a result.
pub const CLEARED: &str = "[cleared]";

/// Whether a tool result is already a placeholder written by some stage; no stage rewrites one,
/// so a pipeline's stages never undo or redo each other's work.
pub fn is_placeholder(content: &str) -> bool {
    content.starts_with(TRUNCATED) || content.starts_with(MASKED) || content == CLEARED
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
    }
}
