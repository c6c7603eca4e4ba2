//! `drop` (the reference listing's level 2) and `window`: remove the oldest whole exchanges.
//!
//! The first request message stays; its replies go first (as in the reference listing), then each later
//! exchange whole, up to the protected tail, until the estimate fits. An exchange runs from a
//! user message to the next, so no tool call is ever separated from its result. `window` is the
//! same with a tail of `max(n, keep_recent_turns)` exchanges. System and developer messages
//! inside a dropped exchange stay.

use super::work::Work;
use crate::conversation::{first_user, keep_from};

/// Drops exchanges while over the limit, protecting the last `keep` requests.
pub(crate) fn drop_exchanges(work: &mut Work<'_>, keep: usize) {
    let Some(first) = first_user(work.messages()) else {
        return;
    };
    let tail = keep_from(work.messages(), keep);
    let len = work.messages().len();
    // `start` is where the oldest droppable span begins: the reference listing's `out[1]`.
    let mut start = first + 1;
    while work.over() {
        let next = (start + 1..len).find(|&i| work.messages()[i].is_request());
        let Some(next) = next.filter(|&next| next <= tail) else {
            break;
        };
        work.remove(start..next);
        start = next;
    }
    work.apply_removals();
}
