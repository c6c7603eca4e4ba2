//! Every kind of chart, in one list: the stem its files are named with, what it shows, and who
//! draws it. `ctxbench plot --help` is written from this list and the chart builders name their
//! charts from it, so that what the help promises and what is drawn cannot drift apart. A chart a
//! scenario's runs do not allow is [`Missing`], with the sentence the page says in its place.

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
        let mut name = format!("{}-{}", self.stem, safe(scenario));
        for part in more {
            name.push('-');
            name.push_str(&safe(part));
        }
        name
    }

    /// Whether the chart named `name` is of this kind.
    pub fn is(&self, name: &str) -> bool {
        name.strip_prefix(self.stem).is_some_and(|rest| rest.starts_with('-'))
    }
}

/// `name` as a file name's part: letters, digits and `-` kept, anything else `_`.
pub(super) fn safe(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' })
        .collect()
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
            its means, the Pareto front joined and labelled; drawn where facts lost differ",
    plot: true,
    compare: false,
};

/// The verdict's chart.
pub const VERDICT: Kind = Kind {
    stem: "verdict",
    shows: "the verdict's cost against facts lost: each ranked configuration at its means with their 95% \
            intervals, the front joined, the pick marked; drawn where facts lost differ",
    plot: false,
    compare: true,
};

/// The cache waste.
pub const WASTE: Kind = Kind {
    stem: "waste",
    shows: "the cached tokens each configuration's compactions invalidated against the cache writes no \
            later call read, a point per configuration that completed at its means over the seeds with \
            their 95% intervals",
    plot: false,
    compare: true,
};

/// Every kind, in the order a scenario's charts come.
pub const KINDS: [Kind; 8] = [VERDICT, WASTE, WELL, BILL, SWEEP_TOKENS, SWEEP_FACTS, COST, FRONTIER];

/// The kind of the chart named `name`, if any.
pub fn kind_of(name: &str) -> Option<Kind> {
    KINDS.iter().copied().find(|k| k.is(name))
}

/// A chart a scenario's runs do not allow, and why: said on the page where it would be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Missing {
    /// The scenario.
    pub scenario: String,
    /// The kind of chart.
    pub kind: Kind,
    /// Why, as a sentence.
    pub why: String,
}

impl Missing {
    pub(super) fn new(scenario: &str, kind: Kind, why: String) -> Missing {
        Missing {
            scenario: scenario.to_owned(),
            kind,
            why,
        }
    }
}

/// Why a chart of `spend` against facts lost, of the configurations of `scenario` that `which`
/// ("qualifies", "completed") losing `facts` (a mean a run each), is not drawn, if it is not:
/// fewer than two of them, or all losing as many facts (one flat row of points, the chart most of
/// it empty grid).
pub(super) fn no_facts_chart(scenario: &str, kind: Kind, spend: &str, which: &str, facts: &[f64]) -> Option<Missing> {
    let no_chart = format!("no chart of {spend} against facts lost");
    let why = match facts {
        [] => format!("On {scenario}, no configuration {which}: {no_chart}."),
        [_] => format!("On {scenario}, only one configuration {which}: {no_chart}."),
        [first, rest @ ..] if rest.iter().all(|f| (f - first).abs() < 1e-9) => {
            if *first == 0.0 {
                format!("On {scenario}, no configuration that {which} loses a fact: {no_chart}.")
            } else {
                format!(
                    "On {scenario}, every configuration that {which} loses as many facts ({} a run): {no_chart}.",
                    crate::verdict::fraction(*first)
                )
            }
        }
        _ => return None,
    };
    Some(Missing::new(scenario, kind, why))
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

    #[test]
    fn a_chart_against_facts_lost_needs_facts_that_differ() {
        let why = |facts: &[f64]| no_facts_chart("x", VERDICT, "cost", "qualifies", facts).map(|m| m.why);
        assert_eq!(why(&[0.0, 0.5]), None);
        assert_eq!(
            why(&[0.0, 0.0, 0.0]).as_deref(),
            Some("On x, no configuration that qualifies loses a fact: no chart of cost against facts lost.")
        );
        assert_eq!(
            why(&[1.5, 1.5]).as_deref(),
            Some(
                "On x, every configuration that qualifies loses as many facts (1.5 a run): no chart of cost against \
                 facts lost."
            )
        );
        assert!(why(&[0.3]).is_some_and(|w| w.contains("only one configuration qualifies")));
        assert!(why(&[]).is_some_and(|w| w.contains("no configuration qualifies")));
    }
}
