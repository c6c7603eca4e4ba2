//! Figures over seeds: a mean with its 95% interval (Student's t), a rate with Wilson's.

use serde::Serialize;

/// A figure over the seeds a configuration ran with: its mean and a 95% interval around it.
/// With one seed (or every seed alike) the interval is the mean itself.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// The mean over the seeds.
    pub mean: f64,
    /// The interval's lower end.
    pub low: f64,
    /// Its upper end.
    pub high: f64,
}

impl Estimate {
    /// The mean of `values` with Student's t interval at 95% (`values` must not be empty).
    pub fn of(values: &[f64]) -> Estimate {
        let n = values.len();
        let mean = values.iter().sum::<f64>() / n.max(1) as f64;
        if n < 2 {
            return Estimate::exact(mean);
        }
        let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let half = t975(n - 1) * (variance / n as f64).sqrt();
        Estimate {
            mean,
            low: mean - half,
            high: mean + half,
        }
    }

    /// A figure known exactly.
    pub fn exact(value: f64) -> Estimate {
        Estimate {
            mean: value,
            low: value,
            high: value,
        }
    }

    /// Half the interval's width: the `±` printed after the mean.
    pub fn half_width(&self) -> f64 {
        (self.high - self.low) / 2.0
    }

    /// Whether the interval has any width.
    pub fn varies(&self) -> bool {
        self.high > self.low
    }

    /// Whether two figures cannot be told apart: their intervals overlap, or their means differ
    /// by less than `tolerance` of the larger.
    pub fn ties(&self, other: &Estimate, tolerance: f64) -> bool {
        let overlap = self.low <= other.high && other.low <= self.high;
        let scale = self.mean.abs().max(other.mean.abs());
        overlap || (self.mean - other.mean).abs() <= tolerance * scale
    }
}

/// The 97.5% quantile of Student's t with `df` degrees of freedom (two-sided 95%): the table's
/// values to 30, then the Cornish-Fisher expansion (within 0.003 of the exact value past 30).
pub fn t975(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => TABLE[df - 1],
        _ => {
            let (z, n) = (1.959_964_f64, df as f64);
            z + (z.powi(3) + z) / (4.0 * n) + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * n * n)
        }
    }
}

/// How often something happened: `k` of `n` seeds, with Wilson's 95% interval of the rate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rate {
    /// Seeds where it happened.
    pub k: usize,
    /// Seeds run.
    pub n: usize,
    /// The interval's lower end, a fraction.
    pub low: f64,
    /// Its upper end.
    pub high: f64,
}

impl Rate {
    /// `k` of `n`, with its interval.
    pub fn new(k: usize, n: usize) -> Rate {
        if n == 0 {
            return Rate {
                k,
                n,
                low: 0.0,
                high: 1.0,
            };
        }
        let (z, nf) = (1.959_964_f64, n as f64);
        let p = k as f64 / nf;
        let z2 = z * z;
        let centre = (p + z2 / (2.0 * nf)) / (1.0 + z2 / nf);
        let half = z / (1.0 + z2 / nf) * (p * (1.0 - p) / nf + z2 / (4.0 * nf * nf)).sqrt();
        Rate {
            k,
            n,
            low: (centre - half).max(0.0),
            high: (centre + half).min(1.0),
        }
    }

    /// The observed rate.
    pub fn share(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.k as f64 / self.n as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_t_interval_matches_a_worked_example() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sample sd 2.138, t(7) = 2.365 → ±1.788.
        let e = Estimate::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!(e.mean, 5.0);
        assert!((e.half_width() - 1.7875).abs() < 1e-3, "{e:?}");
        assert_eq!(Estimate::of(&[3.0]), Estimate::exact(3.0));
        assert!(!Estimate::of(&[3.0, 3.0]).varies());
    }

    #[test]
    fn the_t_quantile_joins_its_expansion() {
        assert!((t975(31) - 2.040).abs() < 0.003);
        assert!((t975(60) - 2.000).abs() < 0.003);
        assert!((t975(1000) - 1.962).abs() < 0.003);
    }

    #[test]
    fn wilson_intervals_of_worked_examples() {
        // 0 of 20: [0, 0.161]; 20 of 20: [0.839, 1]; 10 of 20: [0.299, 0.701].
        let r = Rate::new(0, 20);
        assert!(r.low == 0.0 && (r.high - 0.1611).abs() < 1e-3, "{r:?}");
        let r = Rate::new(20, 20);
        assert!((r.low - 0.8389).abs() < 1e-3 && r.high == 1.0, "{r:?}");
        let r = Rate::new(10, 20);
        assert!((r.low - 0.2993).abs() < 1e-3 && (r.high - 0.7007).abs() < 1e-3, "{r:?}");
    }

    #[test]
    fn ties_by_overlap_or_tolerance() {
        let a = Estimate {
            mean: 1.0,
            low: 0.9,
            high: 1.1,
        };
        let b = Estimate {
            mean: 1.15,
            low: 1.05,
            high: 1.25,
        };
        assert!(a.ties(&b, 0.0));
        let c = Estimate::exact(1.005);
        assert!(Estimate::exact(1.0).ties(&c, 0.01));
        assert!(!Estimate::exact(1.0).ties(&c, 0.001));
    }
}
