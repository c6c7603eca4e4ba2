//! The policy every strategy shares: the window, the threshold, how many recent
//! requests are protected, and the room kept for the reply.

use std::fmt;

/// When to compact, and what never to touch.
#[derive(Clone, Debug, PartialEq)]
pub struct Policy {
    /// The model's context window, in tokens.
    pub window: u64,
    /// Compact once a request's estimate passes this fraction of the window (0 < t ≤ 1).
    pub threshold: f64,
    /// Once compacting, work the estimate down to this fraction of the window (the low
    /// watermark); `None` is the threshold: stop as soon as it fits.
    pub target: Option<f64>,
    /// The last N user requests, and everything after them, are never touched (N ≥ 1).
    pub keep_recent_turns: usize,
    /// Tokens kept free for the reply.
    pub reply_reserve: u64,
}

/// A policy no strategy can work with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyError(pub String);

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PolicyError {}

impl Policy {
    /// The threshold when none is given.
    pub const DEFAULT_THRESHOLD: f64 = 0.8;
    /// The requests protected when none is said.
    pub const DEFAULT_KEEP: usize = 2;
    /// The reply reserve when none is given.
    pub const DEFAULT_REPLY_RESERVE: u64 = 0;

    /// The defaults for a window: threshold 0.8, keep 2, no reply reserve.
    pub fn new(window: u64) -> Policy {
        Policy {
            window,
            threshold: Policy::DEFAULT_THRESHOLD,
            target: None,
            keep_recent_turns: Policy::DEFAULT_KEEP,
            reply_reserve: Policy::DEFAULT_REPLY_RESERVE,
        }
    }

    /// Checks the ranges: window > 0, 0 < threshold ≤ 1, keep ≥ 1, reserve < window.
    pub fn validate(&self) -> Result<(), PolicyError> {
        if self.window == 0 {
            return Err(PolicyError("the window must be at least 1 token".into()));
        }
        if !(self.threshold > 0.0 && self.threshold <= 1.0) {
            return Err(PolicyError(format!(
                "the threshold must be in (0, 1], a fraction of the window; got {}",
                self.threshold
            )));
        }
        if let Some(target) = self.target {
            if !(target > 0.0 && target <= self.threshold) {
                return Err(PolicyError(format!(
                    "the target must be in (0, threshold], a fraction of the window at most the threshold ({}); got {target}",
                    self.threshold
                )));
            }
        }
        if self.keep_recent_turns == 0 {
            return Err(PolicyError(
                "keep must be at least 1: the request being answered is always kept".into(),
            ));
        }
        if self.reply_reserve >= self.window {
            return Err(PolicyError(format!(
                "the reply reserve ({}) must be smaller than the window ({})",
                self.reply_reserve, self.window
            )));
        }
        Ok(())
    }

    /// The estimate a request may reach: `min(floor(window × threshold), window − reply_reserve)`,
    /// with the product taken on the threshold's decimal digits, not on its binary float.
    pub fn limit(&self) -> u64 {
        floor_times_decimal(self.window, self.threshold).min(self.hard_limit())
    }

    /// What a compaction works the estimate down to once it passed the limit: `floor(window ×
    /// target)`, at most the limit (the limit itself without a target).
    pub fn goal(&self) -> u64 {
        match self.target {
            Some(target) => floor_times_decimal(self.window, target).min(self.limit()),
            None => self.limit(),
        }
    }

    /// The most a request may hold and leave the reply its room: `window − reply_reserve`. What a
    /// compaction after an overflow works down to.
    pub fn hard_limit(&self) -> u64 {
        self.window.saturating_sub(self.reply_reserve)
    }
}

/// `floor(n × x)` where `x` is read as the shortest decimal that prints as it (`0.7` is 7/10).
fn floor_times_decimal(n: u64, x: f64) -> u64 {
    let text = format!("{x}");
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let digits: String = format!("{int}{frac}");
    let (Ok(numerator), Some(denominator)) = (digits.parse::<u128>(), 10u128.checked_pow(frac.len() as u32)) else {
        // Not a plain decimal (negative, or absurdly precise): fall back to the float product.
        return (n as f64 * x).floor().max(0.0) as u64;
    };
    u64::try_from(u128::from(n) * numerator / denominator).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_uses_decimal_threshold_and_reserve() {
        let limit = |window, threshold, reply_reserve| {
            Policy {
                window,
                threshold,
                target: None,
                keep_recent_turns: 2,
                reply_reserve,
            }
            .limit()
        };
        assert_eq!(limit(8000, 0.8, 0), 6400);
        // 0.7 × 8000 and 0.57 × 100 are not exact in binary floats; the decimal product is.
        assert_eq!(limit(8000, 0.7, 0), 5600);
        assert_eq!(limit(100, 0.57, 0), 57);
        assert_eq!(limit(1001, 0.5, 0), 500);
        assert_eq!(limit(8000, 1.0, 0), 8000);
        assert_eq!(limit(8000, 0.95, 1000), 7000);
    }

    #[test]
    fn validation_names_the_bad_value() {
        let mut p = Policy::new(8000);
        assert!(p.validate().is_ok());
        p.threshold = 1.5;
        assert_eq!(
            p.validate().map_err(|e| e.to_string()),
            Err("the threshold must be in (0, 1], a fraction of the window; got 1.5".into())
        );
        p.threshold = 0.8;
        p.target = Some(0.9);
        assert!(
            p.validate()
                .is_err_and(|e| e.to_string().contains("at most the threshold (0.8); got 0.9"))
        );
    }

    #[test]
    fn the_goal_is_the_target_below_the_limit() {
        let mut p = Policy::new(10_000);
        assert_eq!((p.limit(), p.goal()), (8000, 8000), "no target: the limit");
        p.target = Some(0.5);
        assert_eq!(p.goal(), 5000);
        p.reply_reserve = 6000;
        assert_eq!((p.limit(), p.goal()), (4000, 4000), "never above the limit");
    }
}
