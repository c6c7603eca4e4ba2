//! What a verdict reads of each seed's run ([`SeedFigures`], a quarter of a row), and a
//! configuration's runs by seed ([`SeedRuns`]): what `compare` keeps of every seed past the
//! first, in place of its rows.

use std::fmt::Write;

use crate::billing::price::{Billed, Price, dollars};
use crate::metrics::RunMetrics;
use crate::row::ResultRow;
use crate::settings::RunSettings;

mod spill;

use spill::{Reader, Segment};

/// The figures of one run that the verdicts, their checks and the reports read seed by seed
/// (named as [`RunMetrics`] names them), and a digest of every figure, so that two
/// configurations with identical figures are still found alike. What is read only over every
/// seed at once (whether all completed, the largest request accepted) is in [`SeedRuns`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeedFigures {
    /// The seed it ran with.
    pub seed: u64,
    /// Model calls.
    pub model_calls: usize,
    /// Tokens sent.
    pub tokens_sent: u64,
    /// Tokens received.
    pub tokens_received: u64,
    /// Tokens billed at the input price.
    pub uncached_tokens: u64,
    /// Tokens read from the cache.
    pub cache_read_tokens: u64,
    /// Tokens written to the cache.
    pub cache_write_tokens: u64,
    /// The share of input tokens read from the cache.
    pub cache_hit_rate: f64,
    /// Compactions that broke the cached prefix.
    pub prefix_breaks: usize,
    /// Cached tokens a compaction invalidated.
    pub invalidated_tokens: u64,
    /// Tokens written to the cache and never read back.
    pub cache_write_unread_tokens: u64,
    /// What the run cost (`None`: no price).
    pub cost_usd: Option<f64>,
    /// The largest request.
    pub peak_request_tokens: u64,
    /// Compactions.
    pub compactions: usize,
    /// Facts lost or used wrong.
    missed: usize,
    /// Needs the run did not meet.
    pub needs_unmet: usize,
    /// Refetches.
    pub refetches: usize,
    /// Compactions undone by the next request's growth.
    pub thrash: usize,
    /// Whether it does not qualify ([`super::disqualified`]).
    pub out: bool,
    /// A digest of every figure of the run.
    digest: u64,
}

impl SeedFigures {
    /// What a verdict reads of the run `m`, made with `settings`.
    pub fn of(settings: &RunSettings, m: &RunMetrics) -> SeedFigures {
        SeedFigures::out_or_not(settings, m, super::disqualified(m).is_some())
    }

    /// [`SeedFigures::of`], told whether the run is out.
    fn out_or_not(settings: &RunSettings, m: &RunMetrics, out: bool) -> SeedFigures {
        let mut digest = Digest::default();
        // Every figure but the cost (compared on its own: a price re-bills it), as Debug prints
        // it (floats exactly; NaN alike and -0.0 apart from 0.0, neither a figure a run makes),
        // hashed as it is printed.
        let _ = write!(
            digest,
            "{:?}",
            RunMetrics {
                cost_usd: None,
                ..m.clone()
            }
        );
        SeedFigures {
            seed: settings.seed,
            model_calls: m.model_calls,
            tokens_sent: m.tokens_sent,
            tokens_received: m.tokens_received,
            uncached_tokens: m.uncached_tokens,
            cache_read_tokens: m.cache_read_tokens,
            cache_write_tokens: m.cache_write_tokens,
            cache_hit_rate: m.cache_hit_rate,
            prefix_breaks: m.prefix_breaks,
            invalidated_tokens: m.invalidated_tokens,
            cache_write_unread_tokens: m.cache_write_unread_tokens,
            cost_usd: m.cost_usd,
            peak_request_tokens: m.peak_request_tokens,
            compactions: m.compactions,
            missed: m.facts_missed(),
            needs_unmet: m.needs_unmet,
            refetches: m.refetches,
            thrash: m.thrash,
            out,
            digest: digest.0,
        }
    }

    /// Facts lost per run, those used wrong among them ([`RunMetrics::facts_missed`]).
    pub fn facts_missed(&self) -> usize {
        self.missed
    }

    /// Whether every figure of the two runs is the same (the seed aside).
    pub fn same_figures(&self, other: &SeedFigures) -> bool {
        self.digest == other.digest && self.cost_usd == other.cost_usd
    }

    /// Billed at `price` (same cache, so the same token parts).
    fn reprice(&mut self, price: &Price) {
        let billed = Billed {
            uncached: self.uncached_tokens,
            cache_read: self.cache_read_tokens,
            cache_write: self.cache_write_tokens,
            completion: self.tokens_received,
        };
        self.cost_usd = Some(dollars(price.cost(&billed)));
    }
}

/// A figure of a run whose mean over the seeds the reports and the checks print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Figure {
    /// Tokens sent.
    TokensSent,
    /// Model calls.
    ModelCalls,
    /// Needs the run did not meet.
    NeedsUnmet,
    /// Refetches.
    Refetches,
    /// The largest request.
    PeakRequest,
    /// The share of input tokens read from the cache.
    CacheHitRate,
    /// Tokens read from the cache.
    CacheRead,
    /// Tokens written to the cache.
    CacheWrite,
    /// Cached tokens a compaction invalidated.
    Invalidated,
    /// Tokens written to the cache and never read back.
    WrittenUnread,
    /// Compactions.
    Compactions,
    /// Compactions that broke the cached prefix.
    PrefixBreaks,
    /// Compactions undone by the next request's growth.
    Thrash,
    /// Facts lost or used wrong.
    FactsMissed,
}

impl Figure {
    /// Its value in the run `s`.
    pub fn of(self, s: &SeedFigures) -> f64 {
        match self {
            Figure::TokensSent => s.tokens_sent as f64,
            Figure::ModelCalls => s.model_calls as f64,
            Figure::NeedsUnmet => s.needs_unmet as f64,
            Figure::Refetches => s.refetches as f64,
            Figure::PeakRequest => s.peak_request_tokens as f64,
            Figure::CacheHitRate => s.cache_hit_rate,
            Figure::CacheRead => s.cache_read_tokens as f64,
            Figure::CacheWrite => s.cache_write_tokens as f64,
            Figure::Invalidated => s.invalidated_tokens as f64,
            Figure::WrittenUnread => s.cache_write_unread_tokens as f64,
            Figure::Compactions => s.compactions as f64,
            Figure::PrefixBreaks => s.prefix_breaks as f64,
            Figure::Thrash => s.thrash as f64,
            Figure::FactsMissed => s.missed as f64,
        }
    }
}

/// A 64-bit FNV-1a digest of text: deterministic, with no state to seed.
#[derive(Default)]
struct Digest(u64);

impl Write for Digest {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if self.0 == 0 {
            self.0 = 0xcbf2_9ce4_8422_2325;
        }
        for b in s.bytes() {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        Ok(())
    }
}

/// Seeds a configuration holds in memory: past them, the lower half is written out (to a
/// temporary file) and read back when asked for, so that memory stays flat in the seed count.
const HOLD: usize = 1024;

/// One configuration's runs, by seed: each seed's figures, why the lowest seed that does not
/// qualify is out, and what is read only over every seed at once. Up to 1,024 seeds are held
/// in memory; the rest are written out in segments, by seed, and read back in seed order.
#[derive(Clone, Debug)]
pub struct SeedRuns {
    /// In memory, by seed.
    held: Vec<SeedFigures>,
    /// Written out: each segment by seed, an equal seed in an earlier one having come first.
    written: Vec<Segment>,
    /// The most seeds held before the lower half is written out.
    hold: usize,
    /// Seeds out.
    outs: usize,
    /// The lowest and the highest seed.
    span: Option<(u64, u64)>,
    /// The lowest seed out, and why.
    first_out: Option<(u64, String)>,
    /// Over every seed: what the verdicts read of them all at once.
    over: Over,
}

impl Default for SeedRuns {
    fn default() -> SeedRuns {
        SeedRuns::holding(HOLD)
    }
}

/// What is read of a configuration's runs only over every seed at once.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Over {
    /// Whether a run stopped before answering every request.
    pub stopped: bool,
    /// Whether a run drew at random (a summary, or an uncertain model whose needs went unmet).
    pub drew: bool,
    /// Whether a run had a request refused (over the window).
    pub refused: bool,
    /// The largest request the server accepted.
    pub peak_accepted: u64,
    /// The run whose floor (what no compaction removes) was the highest over the limit, the
    /// lowest seed of those alike: its floor, its requests over the limit, its seed.
    pub worst_floor: Option<(u64, usize, u64)>,
}

impl Over {
    /// With the run `m`, made with `settings`, too.
    fn add(&mut self, settings: &RunSettings, m: &RunMetrics) {
        self.stopped |= !m.completed;
        self.drew |= crate::row::drew(settings, m);
        self.refused |= m.peak_request_tokens > m.peak_accepted_tokens;
        self.peak_accepted = self.peak_accepted.max(m.peak_accepted_tokens);
        if m.floor_over_limit > 0 {
            let this = (m.floor, m.floor_over_limit, settings.seed);
            let worse = |&(floor, _, seed): &(u64, usize, u64)| (floor, std::cmp::Reverse(seed));
            // A seed twice: the later run, as the last of the highest.
            if self.worst_floor.is_none_or(|w| worse(&this) >= worse(&w)) {
                self.worst_floor = Some(this);
            }
        }
    }
}

impl SeedRuns {
    /// The runs of `rows` (one configuration's, any order).
    pub fn of<'r>(rows: impl IntoIterator<Item = &'r ResultRow>) -> SeedRuns {
        let mut runs = SeedRuns::default();
        for row in rows {
            runs.push(row);
        }
        runs
    }

    /// None yet, holding up to `hold` seeds in memory (two at the least) before it writes the
    /// lower half out.
    pub fn holding(hold: usize) -> SeedRuns {
        SeedRuns {
            held: Vec::new(),
            written: Vec::new(),
            hold: hold.max(2),
            outs: 0,
            span: None,
            first_out: None,
            over: Over::default(),
        }
    }

    /// Room for `more` seeds besides those held, exactly (no more than it holds).
    pub fn reserve_exact(&mut self, more: usize) {
        self.held.reserve_exact(more.min(self.hold - self.held.len()));
    }

    /// Adds `row`'s run, in its place by seed.
    pub fn push(&mut self, row: &ResultRow) {
        let why = super::disqualified(&row.metrics);
        let figures = SeedFigures::out_or_not(&row.settings, &row.metrics, why.is_some());
        self.over.add(&row.settings, &row.metrics);
        if let Some(why) = why.filter(|_| self.first_out.as_ref().is_none_or(|(seed, _)| figures.seed < *seed)) {
            self.first_out = Some((figures.seed, why));
        }
        self.outs += usize::from(figures.out);
        let (low, high) = self.span.unwrap_or((figures.seed, figures.seed));
        self.span = Some((low.min(figures.seed), high.max(figures.seed)));
        match self.held.last() {
            Some(last) if last.seed > figures.seed => {
                // After any run of the same seed already held, as a stable sort would.
                let at = self.held.partition_point(|s| s.seed <= figures.seed);
                self.held.insert(at, figures);
            }
            _ => self.held.push(figures),
        }
        if self.held.len() >= self.hold {
            self.write_out();
        }
    }

    /// The lower half of the seeds held, written out. Where no temporary file can be written,
    /// every seed stays in memory.
    fn write_out(&mut self) {
        let half = self.held.len() / 2;
        match Segment::write(self.written.last_mut(), &self.held[..half]) {
            Ok(new) => {
                self.written.extend(new);
                self.held.drain(..half);
            }
            Err(_) => self.hold = usize::MAX,
        }
    }

    /// Each seed's figures, by seed (an equal seed in the order it came).
    pub fn iter(&self) -> Seeds<'_> {
        if self.written.is_empty() {
            return Seeds(Merge::Held(self.held.iter()));
        }
        let mut from: Vec<Source<'_>> = self.written.iter().map(|s| Source::Written(s.read())).collect();
        from.push(Source::Held(self.held.iter()));
        let next = from.iter_mut().map(Source::next).collect();
        Seeds(Merge::Merged { from, next })
    }

    /// Its lowest and highest seed (`None` when it has none).
    pub fn span(&self) -> Option<(u64, u64)> {
        self.span
    }

    /// What is read of them only over every seed at once.
    pub fn over(&self) -> &Over {
        &self.over
    }

    /// Seeds run.
    pub fn len(&self) -> usize {
        self.held.len() + self.written.iter().map(Segment::count).sum::<usize>()
    }

    /// Whether none ran.
    pub fn is_empty(&self) -> bool {
        self.span.is_none()
    }

    /// The lowest seed out and why, and how many seeds are out.
    pub fn out(&self) -> Option<(u64, &str, usize)> {
        let (seed, why) = self.first_out.as_ref()?;
        Some((*seed, why, self.outs))
    }

    /// The run of one seed alone, as seed 0, so that it pairs with any other's, for a verdict
    /// of that seed alone: out without its reason unless it is the lowest seed out, and nothing
    /// read over every seed at once (a verdict's pick reads neither).
    pub fn only(&self, seed: &SeedFigures) -> SeedRuns {
        let why = |(s, why): &(u64, String)| (*s == seed.seed).then(|| why.clone());
        SeedRuns {
            held: vec![SeedFigures { seed: 0, ..*seed }],
            outs: usize::from(seed.out),
            span: Some((0, 0)),
            first_out: seed
                .out
                .then(|| (seed.seed, self.first_out.as_ref().and_then(why).unwrap_or_default())),
            ..SeedRuns::default()
        }
    }

    /// Bills every run at `price` (same cache, so the same token parts).
    pub fn reprice(&mut self, price: &Price) {
        let price = price.for_cache(&price.cache);
        for seed in &mut self.held {
            seed.reprice(&price);
        }
        let price = std::sync::Arc::new(price);
        for segment in &mut self.written {
            segment.reprice(price.clone());
        }
    }
}

/// A configuration's runs by seed ([`SeedRuns::iter`]).
pub struct Seeds<'r>(Merge<'r>);

/// Runs held, or merged from where they are.
enum Merge<'r> {
    /// All held in memory.
    Held(std::slice::Iter<'r, SeedFigures>),
    /// Some written out: the segments and those held, merged by seed.
    Merged {
        /// The written segments, in the order written, then those held.
        from: Vec<Source<'r>>,
        /// The next run of each.
        next: Vec<Option<SeedFigures>>,
    },
}

/// Where [`Seeds`] reads runs from.
enum Source<'r> {
    /// A segment written out.
    Written(Reader<'r>),
    /// Those held.
    Held(std::slice::Iter<'r, SeedFigures>),
}

impl Source<'_> {
    fn next(&mut self) -> Option<SeedFigures> {
        match self {
            Source::Written(r) => r.next(),
            Source::Held(h) => h.next().copied(),
        }
    }
}

impl Iterator for Seeds<'_> {
    type Item = SeedFigures;

    fn next(&mut self) -> Option<SeedFigures> {
        match &mut self.0 {
            Merge::Held(h) => h.next().copied(),
            Merge::Merged { from, next } => {
                // The lowest seed; of equal seeds, the one from the source written first.
                let at = (0..next.len())
                    .filter(|&i| next[i].is_some())
                    .min_by_key(|&i| next[i].map(|r| r.seed))?;
                let run = next[at].take();
                next[at] = from[at].next();
                run
            }
        }
    }
}

/// A configuration as `compare` keeps it over many seeds: its lowest seed's row (the traces and
/// the settings) and every seed's figures, not every seed's row.
#[derive(Clone, Debug)]
pub struct Ran {
    /// The row of its lowest seed.
    pub first: ResultRow,
    /// Every seed's figures.
    pub runs: std::sync::Arc<SeedRuns>,
}

impl Ran {
    /// Bills every run at `price`, the first row's too (same cache, so the same token parts).
    pub fn reprice(&mut self, price: &Price) {
        super::reprice(std::slice::from_mut(&mut self.first), price);
        std::sync::Arc::make_mut(&mut self.runs).reprice(price);
    }
}

#[cfg(test)]
mod tests;
