//! Which runs check a verdict under each other price: one rule for `compare` and the gate. A
//! price whose cache is the run's is re-priced from the run's own rows; one whose cache another
//! price simulated already is re-priced from those; any other has its cache simulated again.

use super::sensitivity::{Alternative, Runs};
use crate::billing::cache_mode::CacheMode;
use crate::billing::price::Price;

/// The caches simulated again so far, each with the alternative that holds its runs.
#[derive(Debug, Default)]
pub struct PriceChecks {
    simulated: Vec<(CacheMode, usize)>,
}

impl PriceChecks {
    /// Where a price with `cache` is checked from, the runs' own cache being `run`: `Some(None)`
    /// re-prices the runs themselves, `Some(Some(i))` alternative `i`'s; `None`: its cache is to
    /// be simulated again.
    pub fn source(&self, cache: &CacheMode, run: &CacheMode) -> Option<Option<usize>> {
        if cache == run {
            return Some(None);
        }
        self.simulated
            .iter()
            .find(|(simulated, _)| simulated == cache)
            .map(|&(_, at)| Some(at))
    }

    /// The alternative of price `name` billed from `from`'s runs (see [`PriceChecks::source`]),
    /// with what it says of the seeds simulated again.
    pub fn repriced(name: String, price: Price, from: Option<usize>, resimulated: Option<usize>) -> Alternative {
        Alternative {
            name,
            cache: price.cache.clone(),
            rows: Runs::Repriced { from, price },
            resimulated,
            summarizer: false,
        }
    }

    /// Notes that `cache` was simulated again, its runs those of alternative `at`: a later price
    /// with the same cache is re-priced from them.
    pub fn note(&mut self, cache: CacheMode, at: usize) {
        self.simulated.push((cache, at));
    }

    /// The alternative of price `name` whose cache was simulated again, into `rows` on `seeds`
    /// seeds; noted, so that a later price with the same cache is re-priced from it. `at` is
    /// the place it takes among the alternatives.
    pub fn simulated(
        &mut self,
        name: String,
        cache: CacheMode,
        rows: Vec<crate::row::ResultRow>,
        seeds: usize,
        at: usize,
    ) -> Alternative {
        self.note(cache.clone(), at);
        Alternative {
            name,
            cache,
            rows: Runs::Ran(rows),
            resimulated: Some(seeds),
            summarizer: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cache_is_simulated_once_and_the_run_s_own_never() {
        let run: CacheMode = "prefix".parse().expect("a cache");
        let other: CacheMode = "none".parse().expect("a cache");
        let mut checks = PriceChecks::default();
        assert_eq!(checks.source(&run, &run), Some(None));
        assert_eq!(checks.source(&other, &run), None);
        checks.simulated("cache none".into(), other.clone(), Vec::new(), 3, 4);
        assert_eq!(checks.source(&other, &run), Some(Some(4)));
    }
}
