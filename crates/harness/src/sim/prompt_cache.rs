//! The simulated server's prompt cache, one per run: what each call reads from it and writes to
//! it, on the simulated clock.
//!
//! A request's segments are named by chained hashes ([`Segments`]); the cache stores prefixes by
//! those names, each with the time it expires (`ttl` seconds after it was
//! last written or read). Per call, `read + write ≤` the request's tokens, and the server bills
//! the rest as uncached.

use std::collections::HashMap;

use foldhash::fast::FixedState;

use crate::billing::cache_mode::CacheMode;
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
    /// Every write billed, in order: its tokens, and whether a later call read it.
    writes: Vec<(u64, bool)>,
    /// The writes no call read yet, by the prefix they ended at (an index into `writes`).
    unread: HashMap<u64, usize, FixedState>,
    /// The write of the call being served, billed once it is accepted ([`PromptCache::store`]):
    /// the segment it ends at, its tokens, and the first segment it writes.
    pending: Option<(usize, u64, usize)>,
}

impl PromptCache {
    /// An empty cache of `mode`.
    pub fn new(mode: CacheMode) -> PromptCache {
        PromptCache {
            mode,
            stored: HashMap::with_hasher(FixedState::with_seed(0x63616368)),
            writes: Vec::new(),
            unread: HashMap::with_hasher(FixedState::with_seed(0x77726974)),
            pending: None,
        }
    }

    /// Forgets every stored prefix: the writes billed stay, those not read yet never will be.
    pub fn clear(&mut self) {
        self.stored.clear();
        self.unread.clear();
        self.pending = None;
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
    /// longest stored breakpoint prefix within `lookback` segments of its marks (its own
    /// `cache_control` marks, else the end of the system prompt with the tools and its last
    /// message) and writes what lies between that and its last mark. A read refreshes what it read.
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
                let marks = request.breakpoints();
                let hit = marks
                    .iter()
                    .copied()
                    .filter_map(|mark| {
                        (mark.saturating_sub(lookback)..=mark)
                            .rev()
                            .find(|&k| self.alive(request.chain(k), now_s).is_some())
                    })
                    .max();
                let read = hit.map_or(0, |k| request.tokens(k));
                if let Some(k) = hit {
                    self.keep(request, k, now_s + ttl_s as f64);
                    self.read_writes(request, k, now_s);
                }
                // What lies between the read and the last mark is written (nothing past it).
                let end = marks.last().map_or(0, |&k| request.tokens(k));
                let write = if end >= min { end.saturating_sub(read) } else { 0 };
                self.pending = match (write > 0, marks.last()) {
                    (true, Some(&last)) => Some((last, write, hit.map_or(0, |k| k + 1))),
                    _ => None,
                };
                CacheUse { read, write }
            }
        }
    }

    /// A read of `request`'s prefix up to segment `k` at `now_s` reads every write that ended
    /// within it. A write whose prefix expired can never be read: it is let go unread first, so
    /// that the walk looks only for writes still alive and stops once they are all found.
    fn read_writes(&mut self, request: &Segments, k: usize, now_s: f64) {
        let stored = &self.stored;
        self.unread
            .retain(|chain, _| stored.get(chain).is_some_and(|s| s.expires_s >= now_s));
        for j in (0..=k).rev() {
            if self.unread.is_empty() {
                return;
            }
            if let Some(w) = self.unread.remove(&request.chain(j)) {
                self.writes[w].1 = true;
            }
        }
    }

    /// Bills `write` tokens of `request`, its segments `from..=last`: a write not read before,
    /// within what is written again, expired unread.
    fn bill_write(&mut self, request: &Segments, (from, last): (usize, usize), write: u64) {
        for j in from..=last {
            if self.unread.is_empty() {
                break;
            }
            self.unread.remove(&request.chain(j));
        }
        self.unread.insert(request.chain(last), self.writes.len());
        self.writes.push((write, false));
    }

    /// Each write billed so far, in order, with the tokens of it no call read: all of them, or
    /// none (a read of a prefix reads every write within it). A write whose prefix expired
    /// before a read, or that the run ended before any read, stays unread.
    pub fn unread_writes(&self) -> Vec<u64> {
        self.writes
            .iter()
            .map(|&(tokens, read)| if read { 0 } else { tokens })
            .collect()
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
                if let Some((last, write, from)) = self.pending.take() {
                    self.bill_write(request, (from, last), write);
                }
                let until = end_s + ttl_s as f64;
                for mark in request.breakpoints() {
                    if request.tokens(mark) >= min {
                        self.keep(request, mark, until);
                    }
                }
            }
        }
    }
}

/// Worked examples, one per mode, each figured by hand in its comments. Segments are made up:
/// `(name, true tokens)`, the system prompt with the tools first.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::billing::price::{Billed, Price};

    /// OpenAI's cache: 128-token blocks, nothing under 1,024 tokens, 5 minutes.
    fn openai() -> PromptCache {
        PromptCache::new(CacheMode::PREFIX)
    }

    /// Calls `request` at `at_s`, stores it as ending one second later, and says what it used.
    fn call(cache: &mut PromptCache, request: &Segments, at_s: f64) -> CacheUse {
        let used = cache.serve(request, at_s);
        cache.store(request, None, at_s + 1.0);
        used
    }

    #[test]
    fn prefix_an_append_only_chat_reads_the_previous_request_rounded_down_to_the_block() {
        let mut cache = openai();
        // head 600, then messages of 300, 400, 500, 100: totals 900, 1300, 1800, 1900.
        let r1 = Segments::made_up(&[(1, 600), (2, 300)]);
        let r2 = r1.with_part(3, 400);
        let r3 = r2.with_part(4, 500);
        let r4 = r3.with_part(5, 100);
        // Nothing is stored before the first call.
        assert_eq!(call(&mut cache, &r1, 0.0), CacheUse::default());
        // r2 shares all of r1, 900 tokens: 7 blocks of 128 = 896, under the 1,024 minimum.
        assert_eq!(call(&mut cache, &r2, 10.0), CacheUse::default());
        // r3 shares r2, 1,300 tokens: 10 blocks = 1,280.
        assert_eq!(call(&mut cache, &r3, 20.0), CacheUse { read: 1280, write: 0 });
        // r4 shares r3, 1,800 tokens: 14 blocks = 1,792.
        assert_eq!(call(&mut cache, &r4, 30.0), CacheUse { read: 1792, write: 0 });
    }

    #[test]
    fn prefix_a_compaction_at_message_k_stops_the_read_at_k() {
        let mut cache = openai();
        // head 1,000, then 500, 400, 300: the stored request has 2,200 tokens.
        let before = Segments::made_up(&[(1, 1000), (2, 500), (3, 400), (4, 300)]);
        call(&mut cache, &before, 0.0);
        // The compaction rewrote the second message (k = 2) down to 100 tokens: what is shared
        // is the head and the first message, 1,500 tokens, 11 blocks = 1,408.
        let after = Segments::made_up(&[(1, 1000), (2, 500), (30, 100), (4, 300)]);
        assert_eq!(call(&mut cache, &after, 10.0), CacheUse { read: 1408, write: 0 });
    }

    #[test]
    fn breakpoints_a_compaction_rewrites_the_rest_at_the_write_price() {
        let mut cache = PromptCache::new(CacheMode::BREAKPOINTS);
        // head 1,200 (a breakpoint, and over the 1,024 minimum), then 500, 400, 300.
        let r1 = Segments::made_up(&[(1, 1200), (2, 500), (3, 400), (4, 300)]);
        // First call: nothing to read; everything up to its last mark, 2,400, is written.
        assert_eq!(call(&mut cache, &r1, 0.0), CacheUse { read: 0, write: 2400 });
        // An appended message of 200: the lookback from the last mark finds r1's 2,400; the 200
        // after it are written.
        let r2 = r1.with_part(5, 200);
        assert_eq!(call(&mut cache, &r2, 10.0), CacheUse { read: 2400, write: 200 });
        // A compaction at k = 2 (the 400-token message cut to 100): of the stored breakpoints,
        // only the head's is still shared, so 1,200 are read; the request holds 1,200 + 500 +
        // 100 + 300 + 200 = 2,300 tokens, so the other 1,100 are written again.
        let compacted = Segments::made_up(&[(1, 1200), (2, 500), (30, 100), (4, 300), (5, 200)]);
        let used = call(&mut cache, &compacted, 20.0);
        assert_eq!(
            used,
            CacheUse {
                read: 1200,
                write: 1100
            }
        );
        // At Claude Sonnet 4.6's prices ($3 input, $0.30 read, $3.75 write per million), with
        // 50 reply tokens at $15: 1,200 × 0.30 + 1,100 × 3.75 + 50 × 15 = 360 + 4,125 + 750
        // = 5,235 millionths of a dollar, in picodollars × 10⁶.
        let sonnet = Price::named("claude-sonnet-4-6").expect("in the table");
        let billed = Billed {
            uncached: 0,
            cache_read: used.read,
            cache_write: used.write,
            completion: 50,
        };
        assert_eq!(sonnet.cost(&billed), 5_235_000_000);
    }

    #[test]
    fn breakpoints_a_write_no_later_call_reads_is_unread() {
        let mut cache = PromptCache::new(CacheMode::BREAKPOINTS);
        // As above: r1 writes 2,400; r2 reads them and writes 200 more.
        let r1 = Segments::made_up(&[(1, 1200), (2, 500), (3, 400), (4, 300)]);
        call(&mut cache, &r1, 0.0);
        let r2 = r1.with_part(5, 200);
        call(&mut cache, &r2, 10.0);
        // A compaction at k = 2: the head's 1,200 are read, 1,100 written; r2's 200 are never
        // read, and neither is this write, which the run ends on.
        let compacted = Segments::made_up(&[(1, 1200), (2, 500), (30, 100), (4, 300), (5, 200)]);
        call(&mut cache, &compacted, 20.0);
        assert_eq!(cache.unread_writes(), vec![0, 200, 1100]);
        // One more call that extends it reads the 1,100.
        call(&mut cache, &compacted.with_part(6, 50), 30.0);
        assert_eq!(cache.unread_writes(), vec![0, 200, 0, 50]);
    }

    #[test]
    fn breakpoints_a_write_that_expired_before_its_read_is_unread() {
        let mut cache = PromptCache::new(CacheMode::BREAKPOINTS);
        let r1 = Segments::made_up(&[(1, 1200), (2, 500)]);
        call(&mut cache, &r1, 0.0);
        // An hour later (the cache keeps five minutes), the same request writes it all again.
        call(&mut cache, &r1.with_part(3, 100), 3600.0);
        assert_eq!(cache.unread_writes(), vec![1700, 1800]);
    }

    #[test]
    fn breakpoints_the_requests_own_marks_replace_ctxbenchs() {
        use ctxbench_compact::wire::CacheMarks;
        let marked = |messages: Vec<usize>| CacheMarks { head: false, messages };
        let mut cache = PromptCache::new(CacheMode::BREAKPOINTS);
        // head 600 (unmarked, and under the minimum anyway), then 800, 300: totals 600, 1,400,
        // 1,700. The client marks only its first message (segment 1).
        let r1 = Segments::made_up(&[(1, 600), (2, 800), (3, 300)]).with_marks(Some(&marked(vec![0])), 0);
        // Nothing to read; written: up to the one mark, 1,400 (the 300 after it are not).
        assert_eq!(call(&mut cache, &r1, 0.0), CacheUse { read: 0, write: 1400 });
        // The next request keeps that mark and marks its last message too (index 2, segment 3):
        // looking back from it, the first stored prefix is the marked 1,400; then 1,900 - 1,400
        // = 500 are written.
        let r2 = Segments::made_up(&[(1, 600), (2, 800), (3, 300), (4, 200)]).with_marks(Some(&marked(vec![0, 2])), 0);
        assert_eq!(call(&mut cache, &r2, 10.0), CacheUse { read: 1400, write: 500 });
        // Without its marks, the same request is read where ctxbench marks (the head, the last
        // message): what r2 stored at its last mark, all 1,900.
        let plain = Segments::made_up(&[(1, 600), (2, 800), (3, 300), (4, 200)]);
        assert_eq!(call(&mut cache, &plain, 20.0), CacheUse { read: 1900, write: 0 });
        // A server that cut the first message (skip 1) drops the mark on it; the one on the
        // last message (2, now 1) stays: segment 2 of the cut request.
        let cut = Segments::made_up(&[(1, 600), (3, 300), (4, 200)]).with_marks(Some(&marked(vec![0, 2])), 1);
        assert_eq!(cut.breakpoints(), vec![2]);
    }

    #[test]
    fn an_idle_gap_past_the_ttl_finds_the_cache_cold() {
        let mut cache = openai();
        let r1 = Segments::made_up(&[(1, 2000)]);
        let r2 = r1.with_part(2, 100);
        // Stored at the end of the first call, t = 1 s, alive until 301 s.
        call(&mut cache, &r1, 0.0);
        // At 250 s it is alive: 2,000 tokens, 15 blocks = 1,920. The read keeps it to 550 s.
        assert_eq!(call(&mut cache, &r2, 250.0).read, 1920);
        // r2 itself was stored at 251 s, alive until 551 s: at 600 s everything has expired.
        let r3 = r2.with_part(3, 100);
        assert_eq!(call(&mut cache, &r3, 600.0), CacheUse::default());
    }

    #[test]
    fn a_summary_call_reads_the_cache_only_when_aligned() {
        let mut cache = openai();
        // The agent's last call: head 1,500 (system prompt and tools), then four messages of
        // 400: 3,100 tokens, stored whole.
        let agent = Segments::made_up(&[(1, 1500), (2, 400), (3, 400), (4, 400), (5, 400)]);
        call(&mut cache, &agent, 0.0);
        // Aligned, the summary of the first three messages is the agent's own request up to the
        // span's end, then the instruction (60): it shares the head and three messages, 2,700
        // tokens, 21 blocks = 2,688.
        let aligned = Segments::made_up(&[(1, 1500), (2, 400), (3, 400), (4, 400), (99, 60)]);
        assert_eq!(call(&mut cache, &aligned, 10.0).read, 2688);
        // Not aligned, it has its own system prompt (40) and the span as one message (1,150):
        // its head differs, so nothing is shared.
        let fixed = Segments::made_up(&[(7, 40), (8, 1150)]);
        assert_eq!(call(&mut cache, &fixed, 20.0), CacheUse::default());
    }

    #[test]
    fn output_true_stores_the_reply_with_its_request() {
        // DeepSeek's cache: 64-token blocks from 64 tokens, replies stored too.
        let deepseek = CacheMode::parse("prefix:block=64,min=64,ttl=3600,output=true").expect("valid");
        let without = CacheMode::parse("prefix:block=64,min=64,ttl=3600,output=false").expect("valid");
        for (mode, expect) in [(deepseek, 192), (without, 128)] {
            let mut cache = PromptCache::new(mode);
            // head 100, user 50; the reply has 80 tokens.
            let r1 = Segments::made_up(&[(1, 100), (2, 50)]);
            let with_reply = r1.with_part(3, 80);
            cache.serve(&r1, 0.0);
            let stored = cache.stores_replies().then_some(&with_reply);
            cache.store(&r1, stored, 1.0);
            // The next request holds the reply and a new user message of 40 tokens. With the
            // reply stored, 230 tokens are shared: 3 blocks = 192; without, 150: 2 blocks = 128.
            let r2 = with_reply.with_part(4, 40);
            assert_eq!(cache.serve(&r2, 10.0).read, expect);
        }
    }
}
