//! How verdicts name strategies and write figures over seeds: short labels, means, dollars with
//! their interval. Shared by the tables, the verdict's words and `verdict.json`.

use std::collections::BTreeMap;

use crate::human::{dollars, thousands};
use crate::report::ResultRow;
use crate::verdict::{Config, Estimate, Figure, Key, Objective};

/// Short names for people, each unique: a strategy's brief name (only its parameters that differ
/// from their defaults), or its canonical one with `wide`.
pub struct Labels(pub(super) BTreeMap<String, String>);

impl Labels {
    /// The labels of every strategy in `rows`, and of the strategies they were tuned from.
    pub fn new(rows: &[ResultRow], wide: bool) -> Labels {
        let label = |strategy: &ctxbench_compact::compact::Strategy| {
            let canonical = strategy.to_string();
            let label = if wide { canonical.clone() } else { strategy.brief() };
            (canonical, label)
        };
        let families = rows
            .iter()
            .filter_map(|r| r.family.as_deref()?.parse::<ctxbench_compact::compact::Strategy>().ok());
        Labels(
            rows.iter()
                .map(|r| label(&r.settings.strategy))
                .chain(families.map(|s| label(&s)))
                .collect(),
        )
    }

    /// The label of a configuration: its strategy's, and its target when tuning lowered it
    /// (`truncate:trigger=cold+drop @0.4`).
    pub fn of_config(&self, c: &Config<'_>) -> String {
        let s = c.settings();
        match s.target.filter(|t| *t < s.threshold) {
            Some(t) => format!("{} @{t}", self.of(&s.strategy)),
            None => self.of(&s.strategy),
        }
    }

    /// The label of a strategy.
    pub fn of(&self, strategy: &ctxbench_compact::compact::Strategy) -> String {
        self.of_name(&strategy.to_string())
    }

    /// The label of a canonical name.
    pub fn of_name(&self, canonical: &str) -> String {
        self.0.get(canonical).cloned().unwrap_or_else(|| canonical.to_owned())
    }

    /// Each short label that is not its canonical name, with that name, by label.
    pub fn abbreviations(&self) -> Vec<(&str, &str)> {
        let mut pairs: Vec<(&str, &str)> = self
            .0
            .iter()
            .filter(|(c, l)| c != l)
            .map(|(c, l)| (l.as_str(), c.as_str()))
            .collect();
        pairs.sort();
        pairs
    }

    /// The legend of the abbreviations, for the terminal (empty when there is none).
    pub fn legend(&self) -> String {
        let pairs = self.abbreviations();
        if pairs.is_empty() {
            return String::new();
        }
        let width = pairs.iter().map(|(l, _)| l.chars().count()).max().unwrap_or(0);
        let mut out = String::from("short names, with the defaults they stand for:\n");
        for (label, canonical) in pairs {
            out.push_str(&wrapped(&format!("  {label:width$}  "), canonical));
        }
        out
    }
}

/// A canonical name after `head`, broken after its `,` and `+` to keep lines within 120
/// columns, later lines indented as far as `head` (or four columns, past 60).
fn wrapped(head: &str, canonical: &str) -> String {
    const WIDTH: usize = 120;
    let indent = head.chars().count();
    let indent = if indent > 60 { 4 } else { indent };
    let mut out = head.to_owned();
    let mut column = head.chars().count();
    for piece in canonical.split_inclusive([',', '+']) {
        let len = piece.chars().count();
        if column + len > WIDTH && column > indent {
            out.push('\n');
            out.push_str(&" ".repeat(indent));
            column = indent;
        }
        out.push_str(piece);
        column += len;
    }
    out.push('\n');
    out
}

/// A mean for people: whole when it is, else to a tenth (`12`, `12.4`).
pub(super) fn mean(e: Estimate) -> String {
    if e.mean.fract() == 0.0 || e.mean >= 100.0 {
        thousands(e.mean.round() as u64)
    } else if e.mean < 1.0 {
        format!("{:.2}", e.mean)
    } else {
        format!("{:.1}", e.mean)
    }
}

/// Dollars with the interval's half width when the seeds differ: `$0.0187 ±0.0004`.
pub(super) fn money(e: Estimate) -> String {
    if e.half_width() >= 0.00005 {
        format!("{} ±{:.4}", dollars(e.mean), e.half_width())
    } else {
        dollars(e.mean)
    }
}

/// The spend's mean, for comparisons (cost without any price on facts).
pub(super) fn spend_mean(objective: &Objective, c: &Config<'_>) -> f64 {
    match objective.spend() {
        Key::Cost => c.cost().map_or(f64::INFINITY, |e| e.mean),
        _ => c.mean(Figure::TokensSent).mean,
    }
}

/// How much less or more `value` is than `base`: "15% cheaper", "3.1% dearer".
pub(super) fn cheaper(value: f64, base: f64, objective: &Objective) -> String {
    let (less, more) = match objective.spend() {
        Key::Cost => ("cheaper", "dearer"),
        _ => ("fewer tokens", "more tokens"),
    };
    let share = |p: f64| {
        if p < 10.0 {
            format!("{p:.1}%")
        } else {
            format!("{p:.0}%")
        }
    };
    if base == 0.0 || value == base {
        return format!(
            "as {}",
            if objective.spend() == Key::Cost {
                "cheap"
            } else {
                "many tokens"
            }
        );
    }
    let p = (value - base).abs() / base * 100.0;
    if value < base {
        format!("{} {less}", share(p))
    } else {
        format!("{} {more}", share(p))
    }
}
