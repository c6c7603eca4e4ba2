//! What each counter found a value costs, kept in the value until it changes: how a history (and
//! its tool schemas) is counted once per run, not once per call.

use std::sync::OnceLock;

/// How many counters can cache a cost (`chars4` and `chars4-py` for messages and for system
/// prompts as plain text, `o200k`, `cl100k`); each counter owns one slot.
const SLOTS: usize = 6;

/// One cached cost per counter slot, computed the first time it is asked for.
#[derive(Clone, Debug, Default)]
pub(crate) struct Costs([OnceLock<u64>; SLOTS]);

impl Costs {
    /// No cost known yet.
    pub(crate) const fn new() -> Costs {
        Costs([const { OnceLock::new() }; SLOTS])
    }

    /// The cost in `slot`, computing it the first time.
    pub(crate) fn get(&self, slot: usize, compute: impl FnOnce() -> u64) -> u64 {
        *self.0[slot].get_or_init(compute)
    }

    /// Forgets every cost (the value changed).
    pub(crate) fn forget(&mut self) {
        *self = Costs::new();
    }
}
