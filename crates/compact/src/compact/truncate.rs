//! `truncate` (the reference listing's level 1): old tool results become a one-line note with a preview.
//!
//! Oldest first, between the first request message and the protected tail; stops as soon as the
//! estimate fits. Skips results already starting with `[Truncated` (or holding another stage's
//! placeholder) and results whose content is not a string. Like the reference listing, it rewrites a result
//! even when the note is longer, while the estimate is over the limit; run for its trigger alone
//! (`always`, or a cold cache, under the limit) it never lengthens a result.

use super::notes::{is_placeholder, truncation_note_of_length};
use super::params::Flavor;
use super::work::Work;
use crate::conversation::{first_user, keep_from};
use crate::message::Role;

/// How far a note may go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Notes {
    /// Every result, a note longer than it too (the reference listing, over the limit).
    Always,
    /// Only where the note costs less than the result (run under the limit, for a trigger).
    Shorter,
}

/// Runs the stage. `flavor` picks the note's semantics (the pipeline stage uses `Ts`).
pub(crate) fn truncate(work: &mut Work<'_>, preview: usize, flavor: Flavor, notes: Notes) {
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
        let Some(content) = m.content_str().filter(|c| !is_placeholder(c)) else {
            continue;
        };
        // The length is known when the estimator counted the message (chars4 notes it).
        let length = match flavor {
            Flavor::Ts => m.text_utf16_len(),
            Flavor::Py => m.text_code_points(),
        };
        let note = truncation_note_of_length(content, length, preview, flavor);
        match notes {
            Notes::Always => work.rewrite(i, note),
            Notes::Shorter if work.rewrite_if_smaller(i, note) => {}
            Notes::Shorter => continue,
        }
        work.counts.truncated += 1;
    }
}
