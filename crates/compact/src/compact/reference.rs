//! `reference`: the compaction pattern's own `compact()` (the reference listing's), exactly.
//!
//! The reference listing returns early when the estimate fits, then runs level 1 (truncate old tool results,
//! oldest first, returning as soon as it fits) and level 2 (drop the oldest exchanges while over,
//! never past `keepFrom`). Those are the `truncate` and `drop` stages, so `reference` runs them
//! with the reference listing's own estimate, whatever `--estimator` says, and no loop guards. With a preamble
//! it keeps the preamble and the first request (the reference listing keeps only message 0).
//!
//! The reference listings are checked byte for byte against this port in `tests/invariants/reference_listing.rs`.

use super::drop::drop_exchanges;
use super::params::Flavor;
use super::truncate::{Notes, truncate};
use super::work::{Counts, Work};
use crate::message::Message;
use crate::tokens::{Chars4, Chars4Flavor, TokenCounter};
use crate::tool_schemas::NO_TOOLS;

/// The estimator each listing uses.
pub(crate) fn seed_estimator(flavor: Flavor) -> Chars4 {
    Chars4::new(match flavor {
        Flavor::Ts => Chars4Flavor::Js,
        Flavor::Py => Chars4Flavor::Py,
    })
}

/// The reference listing's prefix: its system prompt alone (it ignores tool schemas).
pub(crate) fn seed_prefix(counter: &dyn TokenCounter, system: Option<&Message>) -> u64 {
    counter.prefix_units(system, &NO_TOOLS)
}

/// Compacts `work` as the reference listing's `compact()` does (deciding with the reference listing's own estimate, or
/// the true counter on a retry after an overflow); returns what it did and the estimates
/// before and after.
pub(crate) fn reference(work: &mut Work<'_>, flavor: Flavor) -> (Counts, u64, u64) {
    let before = work.estimate();
    truncate(work, 150, flavor, Notes::Always);
    let keep = work.keep;
    drop_exchanges(work, keep);
    (work.counts, before, work.estimate())
}
