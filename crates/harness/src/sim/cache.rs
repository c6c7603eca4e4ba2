//! The simulated server's prompt cache, one per run: what each call reads from it and writes to
//! it, on the simulated clock.
//!
//! A request's segments are named by chained hashes ([`Segments`]); the cache stores prefixes by
//! those names, each with the time it expires (`ttl` seconds after it was
//! last written or read). Per call, `read + write ≤` the request's tokens, and the server bills
//! the rest as uncached.

use std::collections::HashMap;

use foldhash::fast::FixedState;

use crate::billing::cache::CacheMode;
use crate::billing::segments::Segments;

/// A stored prefix.
#[derive(Clone, Copy, Debug)]
struct Stored {
    /// When it expires, in simulated seconds.
    expires_s: f64,
}

/// What a call took from the cache and put in it, in true tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheUse {
    /// Tokens read from the cache.
    pub read: u64,
    /// Tokens written to it, billed at the write price (`breakpoints` only).
    pub write: u64,
}

/// A run's prompt cache.
#[derive(Clone, Debug)]
pub struct PromptCache {
    mode: CacheMode,
    stored: HashMap<u64, Stored, FixedState>,
}

impl PromptCache {
    /// An empty cache of `mode`.
    pub fn new(mode: CacheMode) -> PromptCache {
        PromptCache {
            mode,
            stored: HashMap::with_hasher(FixedState::with_seed(0x63616368)),
        }
    }

    /// The mode.
    pub fn mode(&self) -> &CacheMode {
        &self.mode
    }

    /// Whether a reply is stored with its request (`prefix:output=true`).
    pub fn stores_replies(&self) -> bool {
        matches!(self.mode, CacheMode::Prefix { output: true, .. })
    }

    /// The stored prefix named `chain`, if it is alive at `now_s`.
    fn alive(&self, chain: u64, now_s: f64) -> Option<Stored> {
        self.stored.get(&chain).copied().filter(|s| s.expires_s >= now_s)
    }

    /// Keeps (or refreshes) the prefix `k` of `request` until `until_s`.
    fn keep(&mut self, request: &Segments, k: usize, until_s: f64) {
        let entry = self
            .stored
            .entry(request.chain(k))
            .or_insert(Stored { expires_s: until_s });
        entry.expires_s = entry.expires_s.max(until_s);
    }

    /// What a request arriving at `now_s` reads, and writes: `prefix` reads the longest stored
    /// prefix it shares, rounded down to the block, if at least `min`; `breakpoints` reads the
    /// longest stored breakpoint prefix within `lookback` segments of its marks (the end of the
    /// system prompt with the tools, and its last message) and writes what lies between that and
    /// its last mark. A read refreshes what it read.
    pub fn serve(&mut self, request: &Segments, now_s: f64) -> CacheUse {
        let last = request.len() - 1;
        match self.mode.clone() {
            CacheMode::None => CacheUse::default(),
            CacheMode::Prefix { block, min, ttl_s, .. } => {
                // Every prefix of a stored request is stored with it, so the stored ones are the
                // first ones.
                let shared = (0..=last)
                    .take_while(|&k| self.alive(request.chain(k), now_s).is_some())
                    .count();
                if shared == 0 {
                    return CacheUse::default();
                }
                let read = request.tokens(shared - 1) / block * block;
                if read < min {
                    return CacheUse::default();
                }
                for k in 0..shared {
                    self.keep(request, k, now_s + ttl_s as f64);
                }
                CacheUse { read, write: 0 }
            }
            CacheMode::Breakpoints {
                min, ttl_s, lookback, ..
            } => {
                let hit = [0, last]
                    .into_iter()
                    .filter_map(|mark| {
                        (mark.saturating_sub(lookback)..=mark)
                            .rev()
                            .find(|&k| self.alive(request.chain(k), now_s).is_some())
                    })
                    .max();
                let read = hit.map_or(0, |k| request.tokens(k));
                if let Some(k) = hit {
                    self.keep(request, k, now_s + ttl_s as f64);
                }
                let write = if request.total() >= min {
                    request.total() - read
                } else {
                    0
                };
                CacheUse { read, write }
            }
        }
    }

    /// After an accepted call that ended at `end_s`: `prefix` stores every prefix of its request
    /// (with `output`, the request with its reply too, given as `with_reply`); `breakpoints`
    /// stores the prefixes ending at its marks that are at least `min`.
    pub fn store(&mut self, request: &Segments, with_reply: Option<&Segments>, end_s: f64) {
        let last = request.len() - 1;
        match self.mode.clone() {
            CacheMode::None => {}
            CacheMode::Prefix { ttl_s, output, .. } => {
                let until = end_s + ttl_s as f64;
                for k in 0..=last {
                    self.keep(request, k, until);
                }
                if let (true, Some(full)) = (output, with_reply) {
                    self.keep(full, full.len() - 1, until);
                }
            }
            CacheMode::Breakpoints { min, ttl_s, .. } => {
                let until = end_s + ttl_s as f64;
                for mark in [0, last] {
                    if request.tokens(mark) >= min {
                        self.keep(request, mark, until);
                    }
                }
            }
        }
    }
}
