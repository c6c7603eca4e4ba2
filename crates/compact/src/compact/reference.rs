//! `reference`: the seed's `compact()` (`../shared/seed/compaction-pattern.md`), exactly.
//!
//! The seed returns early when the estimate fits, then runs level 1 (truncate old tool results,
//! oldest first, returning as soon as it fits) and level 2 (drop the oldest exchanges while over,
//! never past `keepFrom`). Those are the `truncate` and `drop` stages, so `reference` runs them
//! with the seed's own estimate, whatever `--estimator` says, and no loop guards. With a preamble
//! it keeps the preamble and the first request (the seed keeps only message 0).
//!
//! The seed's listings are checked byte for byte against this port in `tests/it/seed.rs`.

use super::drop::drop_exchanges;
use super::params::Flavor;
use super::truncate::truncate;
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

/// Compacts `messages` as the seed's `compact()` does, deciding with `counter` (the seed's own
/// estimate, or the true counter on a retry after an overflow); returns what it did and the
/// estimates before and after.
pub(crate) fn reference(
    messages: &mut Vec<Message>,
    system: Option<&Message>,
    counter: &dyn TokenCounter,
    limit: u64,
    keep: usize,
    flavor: Flavor,
) -> (Counts, u64, u64) {
    let prefix = counter.prefix_units(system, &NO_TOOLS);
    let mut work = Work::new(messages, prefix, counter, limit, keep);
    let before = work.estimate();
    truncate(&mut work, 150, flavor);
    drop_exchanges(&mut work, keep);
    (work.counts, before, work.estimate())
}
