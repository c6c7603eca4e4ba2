//! Every kind of chart, in one list: the stem its files are named with, what it shows, and who
//! draws it. `ctxbench plot --help` is written from this list and the chart builders name their
//! charts from it, so that what the help promises and what is drawn cannot drift apart.

/// One kind of chart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    /// The stem of its files' names: `cost` in `plots/cost-lunch-break.svg`.
    pub stem: &'static str,
    /// What it shows, as the help says it.
    pub shows: &'static str,
    /// Whether `ctxbench plot` draws it (and a sweep's page, which draws what `plot` does).
    pub plot: bool,
    /// Whether `compare`'s page draws it.
    pub compare: bool,
}

impl Kind {
    /// The file-name stem of this kind's chart of `scenario` (`cost-lunch-break`), with more
    /// parts after it (a sweep curve's strategy).
    pub fn name(&self, scenario: &str, more: &[&str]) -> String {
        let mut name = format!("{}-{}", self.stem, super::chart::safe(scenario));
        for part in more {
            name.push('-');
            name.push_str(&super::chart::safe(part));
        }
        name
    }

    /// Whether the chart named `name` is of this kind.
    pub fn is(&self, name: &str) -> bool {
        name.strip_prefix(self.stem).is_some_and(|rest| rest.starts_with('-'))
    }
}

/// The well.
pub const WELL: Kind = Kind {
    stem: "well",
    shows: "request size per model call, one line per strategy, with the window and the threshold, \
            compactions and overflows marked (from traces: one run each)",
    plot: true,
    compare: true,
};

/// The bill.
pub const BILL: Kind = Kind {
    stem: "bill",
    shows: "each call's cost stacked as uncached input, cache write, cache read and output, a panel \
            per strategy, beside the cost so far (in tokens when unpriced; from traces: one run each)",
    plot: true,
    compare: true,
};

/// Tokens sent against cost.
pub const COST: Kind = Kind {
    stem: "cost",
    shows: "tokens sent against cost, a point per completed configuration at its means over the seeds \
            with its cost's 95% interval, a colour per strategy, the fewest tokens and the cheapest labelled",
    plot: true,
    compare: true,
};

/// Tokens sent by threshold.
pub const SWEEP_TOKENS: Kind = Kind {
    stem: "sweep-tokens",
    shows: "tokens sent against the threshold, a line per keep, per strategy whose threshold a sweep varied",
    plot: true,
    compare: true,
};

/// Facts lost by threshold.
pub const SWEEP_FACTS: Kind = Kind {
    stem: "sweep-facts",
    shows: "facts lost against the threshold, a line per keep, per strategy whose threshold a sweep varied",
    plot: true,
    compare: true,
};

/// The frontier.
pub const FRONTIER: Kind = Kind {
    stem: "frontier",
    shows: "cost (tokens sent when unpriced) against facts lost, a point per completed configuration at \
            its means, the Pareto front joined and labelled",
    plot: true,
    compare: false,
};

/// The verdict's chart.
pub const VERDICT: Kind = Kind {
    stem: "verdict",
    shows: "the verdict's cost against facts lost: each ranked configuration at its means with their 95% \
            intervals, the front joined, the pick marked",
    plot: false,
    compare: true,
};

/// Every kind, in the order a scenario's charts come.
pub const KINDS: [Kind; 7] = [VERDICT, WELL, BILL, SWEEP_TOKENS, SWEEP_FACTS, COST, FRONTIER];

/// The kind of the chart named `name`, if any.
pub fn kind_of(name: &str) -> Option<Kind> {
    KINDS.iter().copied().find(|k| k.is(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_of_one_kind_only() {
        for kind in KINDS {
            let name = kind.name("lunch-break", &["drop"]);
            let of: Vec<&str> = KINDS.iter().filter(|k| k.is(&name)).map(|k| k.stem).collect();
            assert_eq!(of, [kind.stem], "{name}");
        }
        assert_eq!(kind_of("costly-x"), None);
    }
}
