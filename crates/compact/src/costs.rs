//! What each counter found a value costs, kept in the value until it changes: how a history (and
//! its tool schemas) is counted once per run, not once per call.

use std::sync::atomic::{AtomicU32, Ordering};

/// How many values are cached: the costs of `chars4`, `chars4-py`, `o200k` and `cl100k`, a
/// message's text length in UTF-16 units and in code points ([`TEXT_UTF16`], [`TEXT_CODE_POINTS`]),
/// its string content's part of each `chars4` cost ([`CONTENT_JS`], [`CONTENT_PY`]), and the
/// two halves of its fingerprint ([`FINGERPRINT`]).
const SLOTS: usize = 10;

/// The slot of a message's text length in UTF-16 units (JavaScript's `.length`): `chars4`'s
/// cost of a system prompt, and the `N chars` of `truncate`'s and `mask`'s notes.
pub(crate) const TEXT_UTF16: usize = 4;
/// The slot of a message's text length in code points (Python's `len`), as [`TEXT_UTF16`].
pub(crate) const TEXT_CODE_POINTS: usize = 5;
/// The slot of a string content's JSON length (quotes and escapes included) as `chars4` counts
/// it: what rewriting the content takes off the message's cost, without reading it again.
pub(crate) const CONTENT_JS: usize = 6;
/// The slot of a string content's JSON length as `chars4-py` counts it, as [`CONTENT_JS`].
pub(crate) const CONTENT_PY: usize = 7;

/// The first of the two slots of a value's fingerprint: the hash of its canonical JSON, which
/// prefix caches key on.
pub(crate) const FINGERPRINT: usize = 8;

/// A slot with no cost in it. A cost this large (four billion units in one message) is never
/// cached: it is computed each time, so the cache stays exact.
const UNKNOWN: u32 = u32::MAX;

/// One cached cost per counter slot, computed the first time it is asked for. Four bytes a slot:
/// a history of 100,000 messages carries eight of them per message.
#[derive(Debug)]
pub(crate) struct Costs([AtomicU32; SLOTS]);

impl Costs {
    /// No cost known yet.
    pub(crate) const fn new() -> Costs {
        Costs([const { AtomicU32::new(UNKNOWN) }; SLOTS])
    }

    /// The cost in `slot`, computing it the first time. Two threads asking at once may both
    /// compute it; they find the same value, as a cost depends on the value alone.
    pub(crate) fn get(&self, slot: usize, compute: impl FnOnce() -> u64) -> u64 {
        if let Some(known) = self.known(slot) {
            return known;
        }
        let cost = compute();
        if let Ok(small) = u32::try_from(cost) {
            if small != UNKNOWN {
                self.0[slot].store(small, Ordering::Relaxed);
            }
        }
        cost
    }

    /// A 64-bit value kept in slots `slot` and `slot + 1`, computed the first time. A value with
    /// a half equal to the empty mark is computed each time, so the cache stays exact.
    pub(crate) fn get_wide(&self, slot: usize, compute: impl FnOnce() -> u64) -> u64 {
        if let (Some(lo), Some(hi)) = (self.known(slot), self.known(slot + 1)) {
            return lo | hi << 32;
        }
        let value = compute();
        let (lo, hi) = (value as u32, (value >> 32) as u32);
        if lo != UNKNOWN && hi != UNKNOWN {
            self.0[slot].store(lo, Ordering::Relaxed);
            self.0[slot + 1].store(hi, Ordering::Relaxed);
        }
        value
    }

    /// The cost in `slot` if it is known.
    pub(crate) fn known(&self, slot: usize) -> Option<u64> {
        let known = self.0[slot].load(Ordering::Relaxed);
        (known != UNKNOWN).then_some(u64::from(known))
    }

    /// Forgets every cost (the value changed).
    pub(crate) fn forget(&mut self) {
        *self = Costs::new();
    }
}

/// The fingerprint of a value: foldhash, with a fixed seed, of its compact JSON.
pub(crate) fn fingerprint_of<T: serde::Serialize + ?Sized>(value: &T) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    thread_local! {
        /// The JSON of the last value, its room kept: a long tool result is written once into
        /// room already there, not into a buffer grown and copied as it goes.
        static JSON: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    JSON.with_borrow_mut(|bytes| {
        bytes.clear();
        if serde_json::to_writer(&mut *bytes, value).is_err() {
            bytes.clear();
        }
        let mut hasher = foldhash::fast::FixedState::with_seed(0x6374_7862_656e_6368).build_hasher();
        hasher.write(bytes);
        // Past a megabyte the room goes back: one huge value does not hold it for the thread.
        if bytes.capacity() > 1 << 20 {
            *bytes = Vec::new();
        }
        hasher.finish()
    })
}

impl Default for Costs {
    fn default() -> Costs {
        Costs::new()
    }
}

impl Clone for Costs {
    fn clone(&self) -> Costs {
        Costs(std::array::from_fn(|slot| {
            AtomicU32::new(self.0[slot].load(Ordering::Relaxed))
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cost_is_computed_once_and_forgotten_on_change() {
        let mut costs = Costs::new();
        let mut computed = 0;
        for _ in 0..3 {
            assert_eq!(
                costs.get(2, || {
                    computed += 1;
                    41
                }),
                41
            );
        }
        assert_eq!(computed, 1);
        assert_eq!(costs.clone().get(2, || 0), 41, "a copy keeps what is known");
        costs.forget();
        assert_eq!(costs.get(2, || 7), 7);
        let huge = u64::from(u32::MAX) + 5;
        assert_eq!(costs.get(3, || huge), huge);
        assert_eq!(
            costs.get(3, || huge + 1),
            huge + 1,
            "too large to cache: computed each time"
        );
    }
}
