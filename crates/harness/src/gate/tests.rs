//! The gate's rules on rows made by hand.

use super::*;

#[test]
fn tolerances() {
    assert_eq!(Tolerance::parse("5%"), Some(Tolerance::Relative(0.05)));
    assert_eq!(Tolerance::parse("+2%"), Some(Tolerance::Relative(0.02)));
    assert_eq!(Tolerance::parse("100"), Some(Tolerance::Absolute(100.0)));
    assert_eq!(Tolerance::parse("-1%"), None);
    assert_eq!(Tolerance::parse("lots"), None);
    assert_eq!(Tolerance::Relative(0.05).allowed(2000.0), 100.0);
}

#[test]
fn a_changed_pick_is_said_by_the_verdicts_rule() {
    let row = |strategy: &str, cost: f64, facts_lost: usize| {
        ResultRow::new(
            "s",
            crate::settings::RunSettings::new(strategy.parse().expect("a strategy")),
            crate::metrics::RunMetrics {
                requests: 1,
                requests_answered: 1,
                completed: true,
                cost_usd: Some(cost),
                facts: 2,
                facts_lost,
                ..Default::default()
            },
        )
    };
    let baseline = [row("drop", 0.010, 0), row("truncate", 0.012, 0)];
    let same = compare(&baseline, &baseline, &GateConfig::default());
    assert!(same.picks.is_empty());
    // drop now loses a fact: facts come first, so truncate is picked.
    let current = [row("drop", 0.009, 1), row("truncate", 0.012, 0)];
    let report = compare(&baseline, &current, &GateConfig::default());
    assert_eq!(
        report.picks,
        [PickChange {
            scenario: "s".into(),
            baseline: Some("drop".into()),
            current: Some("truncate:preview=150,trigger=threshold".into()),
        }]
    );
    assert!(report::gate_markdown(&report, "").contains("- s: drop → truncate:preview=150,trigger=threshold"));
}
