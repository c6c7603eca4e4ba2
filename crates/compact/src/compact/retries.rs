//! What a compactor does when a summary call fails: it asks again, up to a number of retries;
//! after a run of compactions that failed even so, it rests (no summary is asked for) for a
//! number of calls, as a circuit breaker. A failed compaction leaves the history as it was.

/// How failed summary calls are retried, and when the compactor stops asking for a while.
///
/// Claude Code stops auto-compacting after three consecutive failures (its CHANGELOG.md, line
/// 3485 at 5cfc0a1905ce0c0a9bd81d8a90fe6b62ff614357, checked 2026-12-06, cited in
/// `native-compaction.md`). How long it rests before trying again is not published: the ten
/// calls of [`Retries::DEFAULT`] are an assumption, a parameter for that reason. The two retries
/// are ctxbench's default for a harness that retries a failed call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Retries {
    /// Summary calls made again after a failed one, within one compaction.
    pub retries: u32,
    /// Consecutive failed compactions (every retry failed) that open the breaker; 0: never.
    pub breaker_after: u32,
    /// Compactions (one before each model call) the breaker then stays open: no summary is
    /// asked for; the other stages run.
    pub breaker_rest: u32,
}

impl Retries {
    /// The most retries a caller may ask for (`--compaction-retries`): more of one call is a
    /// typo, and against a model that keeps failing, a compaction that never ends.
    pub const MOST: u32 = 10;

    /// Two retries; the breaker opens after three failed compactions in a row, for ten calls.
    pub const DEFAULT: Retries = Retries {
        retries: 2,
        breaker_after: 3,
        breaker_rest: 10,
    };
}

impl Default for Retries {
    fn default() -> Retries {
        Retries::DEFAULT
    }
}

/// The breaker's state across one conversation's compactions.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Breaker {
    /// Compactions that failed in a row.
    failed_in_row: u32,
    /// Compactions left before summaries are asked for again.
    resting: u32,
}

impl Breaker {
    /// Before a compaction: whether summaries may be asked for in it (`false` while resting,
    /// which this compaction counts down).
    pub(crate) fn allows(&mut self) -> bool {
        if self.resting > 0 {
            self.resting -= 1;
            return false;
        }
        true
    }

    /// After a compaction that asked for summaries: `failed`, whether one failed after every
    /// retry. Opens the breaker at the `breaker_after`th failure in a row.
    pub(crate) fn after(&mut self, failed: bool, retries: &Retries) {
        if !failed {
            self.failed_in_row = 0;
            return;
        }
        self.failed_in_row += 1;
        if retries.breaker_after > 0 && self.failed_in_row >= retries.breaker_after {
            self.failed_in_row = 0;
            self.resting = retries.breaker_rest;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_breaker_opens_at_the_third_failure_in_a_row_and_rests_ten_compactions() {
        let retries = Retries::DEFAULT;
        let mut breaker = Breaker::default();
        // Two failures, a success: the count starts again.
        for failed in [true, true, false, true, true] {
            assert!(breaker.allows());
            breaker.after(failed, &retries);
        }
        assert!(breaker.allows());
        breaker.after(true, &retries);
        let rested = (0..12).take_while(|_| !breaker.allows()).count();
        assert_eq!(rested, 10);
    }

    #[test]
    fn a_breaker_after_zero_never_opens() {
        let retries = Retries {
            breaker_after: 0,
            ..Retries::DEFAULT
        };
        let mut breaker = Breaker::default();
        for _ in 0..20 {
            assert!(breaker.allows());
            breaker.after(true, &retries);
        }
    }
}
