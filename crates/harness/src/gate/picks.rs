//! Which scenarios' pick changed between the baseline and the current results, each side picked
//! by the verdicts' one rule with the gate's objective (said in the report, not gated: the
//! figures are).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::report::ResultRow;

/// The scenarios whose pick differs between the two sides, each picked by the verdicts' one
/// rule (the default objective: facts lost, then cost, or tokens where a side is unpriced).
pub(super) fn picks_changed(baseline: &[ResultRow], current: &[ResultRow]) -> Vec<PickChange> {
    let picks = |rows: &[ResultRow]| -> BTreeMap<String, Option<String>> {
        crate::verdict::verdicts(rows, &objective(rows))
            .iter()
            .map(|v| (v.scenario.to_owned(), v.pick().map(|p| p.strategy())))
            .collect()
    };
    let (before, after) = (picks(baseline), picks(current));
    before
        .iter()
        .filter_map(|(scenario, was)| {
            let now = after.get(scenario)?;
            (was != now).then(|| PickChange {
                scenario: scenario.clone(),
                baseline: was.clone(),
                current: now.clone(),
            })
        })
        .collect()
}

/// The objective the gate picks by: the default, facts lost then cost, or facts lost then tokens
/// where some row is unpriced.
pub fn objective(rows: &[ResultRow]) -> crate::verdict::Objective {
    if rows.iter().all(|r| r.settings.price.is_some()) {
        crate::verdict::Objective::default_priced()
    } else {
        crate::verdict::Objective {
            keys: vec![crate::verdict::Key::Facts, crate::verdict::Key::Tokens],
            ..crate::verdict::Objective::default_priced()
        }
    }
}

/// A scenario whose pick changed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PickChange {
    /// The scenario.
    pub scenario: String,
    /// The baseline's pick (`None`: nothing qualified).
    pub baseline: Option<String>,
    /// The current pick.
    pub current: Option<String>,
}
