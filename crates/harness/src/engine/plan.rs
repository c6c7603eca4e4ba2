//! What [`replicate`](super::replicate) is asked to do besides running ([`Plan`]), the part of
//! the work a progress report is about ([`Phase`]), and what it ran ([`Replicated`]).

use crate::billing::cache_mode::CacheMode;
use crate::billing::price::Price;
use crate::row::ResultRow;
use crate::seeds::Seeds;
use crate::trace::CallRecord;
use crate::verdict::{Objective, Ran, Sensitivity};

/// What [`replicate`](super::replicate) does besides running: the seeds, tuning, the ranking the tuning picks by,
/// threads, and the price to check the verdicts' sensitivity against.
pub struct Plan<'a> {
    /// The seeds.
    pub seeds: &'a Seeds,
    /// The seed of the first runs (`--seed`).
    pub base: u64,
    /// Whether each strategy runs over its tuning grid ([`crate::tune::variants`]).
    pub tune: bool,
    /// How tuning picks a strategy's best variant.
    pub objective: &'a Objective,
    /// Threads (0: every core).
    pub threads: usize,
    /// The run's price, to check the verdicts under the table's others; `None`: unpriced.
    pub price: Option<&'a Price>,
    /// The cache the runs have.
    pub cache: &'a CacheMode,
}

/// Which part of the work a progress report is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Every configuration (every tuned variant) on the first seed.
    First,
    /// The ranked configurations on the other seeds.
    Seeds,
    /// The ranked configurations under another price's cache.
    Prices,
}

/// What [`replicate`](super::replicate) ran.
#[derive(Debug, Default)]
pub struct Replicated {
    /// The configurations the verdicts rank: each strategy at its chosen variant, its first
    /// seed's row (with its family set when tuning chose another variant than the strategy as
    /// given) and every seed's figures.
    pub ranked: Vec<Ran>,
    /// The first seed's row and trace of each ranked configuration, for the charts.
    pub traces: Vec<(ResultRow, Vec<CallRecord>)>,
    /// Each verdict of the ranked configurations (in the order [`crate::verdict::verdicts_of`]
    /// gives them):
    /// whether it holds under the table's other prices and the other summarizer profiles, and
    /// seed by seed. Those runs are let go once checked.
    pub sensitivity: Vec<Option<Sensitivity>>,
    /// Ranked configurations, and how many of them ran every seed.
    pub configurations: usize,
    /// Of those, the ones replicated over the seeds.
    pub replicated: usize,
    /// The seeds.
    pub seeds: Vec<u64>,
    /// Runs made, and whether Ctrl-C cut them short.
    pub runs: usize,
    /// Set when stopped before the end: the runs made and planned in the phase it stopped in.
    pub stopped: Option<(usize, usize)>,
    /// Each scenario's name and description, in order.
    pub descriptions: Vec<(String, String)>,
}
