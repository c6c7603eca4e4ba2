use proptest::prelude::*;

use super::*;
use crate::settings::RunSettings;

fn row(scenario: &str, strategy: &str, cost: f64, facts_lost: usize, calls: usize, completed: bool) -> ResultRow {
    ResultRow::new(
        scenario,
        RunSettings::new(strategy.parse().expect("a strategy")),
        RunMetrics {
            requests: 3,
            requests_answered: if completed { 3 } else { 1 },
            cost_usd: Some(cost),
            tokens_sent: (cost * 1e6) as u64,
            facts_lost,
            facts_needed: 4,
            model_calls: calls,
            overflows: usize::from(!completed),
            completed,
            ..RunMetrics::default()
        },
    )
}

fn names(groups: &[Group<'_>]) -> Vec<Vec<String>> {
    groups
        .iter()
        .map(|g| g.rows.iter().map(|r| r.settings.strategy.brief()).collect())
        .collect()
}

#[test]
fn a_run_that_stopped_is_never_ranked_however_cheap() {
    let rows = [
        row("s", "none", 0.001, 0, 3, false),
        row("s", "drop", 0.009, 0, 6, true),
        row("s", "truncate", 0.008, 0, 6, true),
    ];
    let v = &verdicts(&rows, Objective::Cost)[0];
    assert_eq!(names(&v.ranked), [["truncate"], ["drop"]]);
    assert_eq!(names(&v.disqualified), [["none"]]);
    assert_eq!(
        v.disqualified[0].why.as_deref(),
        Some("overflow: 1 call over the window; stopped: answered 1 of 3 requests")
    );
    assert_eq!(v.pick().map(|r| r.settings.strategy.brief()), Some("truncate".into()));
    assert!(v.baseline().is_some_and(|r| r.settings.strategy.is_none()));
}

#[test]
fn ties_fall_to_facts_lost_then_calls_then_the_canonical_name() {
    let rows = [
        row("s", "window", 0.005, 0, 7, true),
        row("s", "drop", 0.005, 1, 6, true),
        row("s", "truncate", 0.005, 0, 6, true),
        row("s", "mask", 0.005, 0, 6, true),
    ];
    let v = &verdicts(&rows, Objective::Cost)[0];
    // mask and truncate have the same figures: one line, in canonical order.
    assert_eq!(
        names(&v.ranked),
        [vec!["mask", "truncate"], vec!["window"], vec!["drop"]]
    );
    let by_facts = &verdicts(&rows, Objective::Facts)[0];
    assert_eq!(
        by_facts.ranked.last().map(|g| g.rows[0].settings.strategy.brief()),
        Some("drop".into())
    );
}

#[test]
fn identical_figures_are_one_group_named_by_none_first() {
    let rows = [
        row("s", "mask", 0.004, 0, 6, true),
        row("s", "drop", 0.003, 0, 6, true),
        row("s", "none", 0.004, 0, 6, true),
    ];
    let v = &verdicts(&rows, Objective::Cost)[0];
    assert_eq!(names(&v.ranked), [vec!["drop"], vec!["none", "mask"]]);
}

#[test]
fn the_suite_picks_what_qualifies_most_and_compares_only_where_both_qualify() {
    // `drop` is cheaper wherever it finishes, but overflows on b, which `truncate` pays for.
    let rows = [
        row("a", "drop", 0.010, 0, 6, true),
        row("a", "truncate", 0.012, 0, 6, true),
        row("b", "drop", 0.001, 0, 2, false),
        row("b", "truncate", 0.030, 0, 9, true),
        row("c", "drop", 0.010, 0, 6, true),
        row("c", "truncate", 0.011, 0, 6, true),
    ];
    let v = verdicts(&rows, Objective::Cost);
    let s = suite(&v, Objective::Cost);
    assert_eq!(s.pick.as_deref(), Some("truncate:preview=150,trigger=threshold"));
    assert!(
        s.why
            .starts_with("it qualifies on 3 of 3 scenarios, more than any other strategy"),
        "{}",
        s.why
    );
    let drop = &s.leaderboard[1];
    assert_eq!((drop.strategy.as_str(), drop.qualified, drop.scenarios), ("drop", 2, 3));
    let against = drop.against_pick.expect("they share a and c");
    assert_eq!(against.scenarios, 2);
    assert!(
        (against.change() - (0.020 / 0.023 - 1.0)).abs() < 1e-9,
        "{}",
        against.change()
    );
    assert_eq!(s.leaderboard[0].ranks, [1, 2]);
    assert_eq!(drop.first(), 2);
}

#[test]
fn a_suite_where_nothing_qualifies_has_no_pick() {
    let rows = [row("a", "drop", 0.01, 0, 6, false), row("a", "none", 0.01, 0, 6, false)];
    let s = suite(&verdicts(&rows, Objective::Cost), Objective::Cost);
    assert_eq!(s.pick, None);
    assert!(s.why.starts_with("no strategy qualified"));
}

#[test]
fn the_objective_defaults_to_cost_when_priced() {
    assert_eq!(Objective::resolve(None, true), Ok(Objective::Cost));
    assert_eq!(Objective::resolve(None, false), Ok(Objective::Tokens));
    assert_eq!(Objective::resolve(Some("calls"), false), Ok(Objective::Calls));
    assert!(Objective::resolve(Some("cost"), false).is_err_and(|e| e.contains("--price none")));
    assert!(Objective::resolve(Some("speed"), true).is_err_and(|e| e.contains("cost, tokens, facts or calls")));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Whatever the figures, every ranked run qualifies, every disqualified one says why, each run
    /// is in exactly one group, and the groups are in the objective's order.
    #[test]
    fn rankings_hold_their_rules(
        runs in proptest::collection::vec((0u32..20, 0usize..3, 1usize..9, any::<bool>(), 0usize..2), 1..10),
    ) {
        let strategies = ["none", "drop", "truncate", "mask", "window", "summarize", "clear-tool-uses",
                          "mask+drop", "truncate+drop", "truncate+summarize"];
        let rows: Vec<ResultRow> = runs.iter().zip(strategies).map(|(&(cost, lost, calls, done, cut), s)| {
            let mut r = row("s", s, f64::from(cost) / 1000.0, lost, calls, done);
            r.metrics.silent_truncations = cut;
            r
        }).collect();
        let v = &verdicts(&rows, Objective::Cost)[0];
        prop_assert!(v.ranked.iter().all(|g| g.why.is_none() && disqualified(g.metrics()).is_none()));
        prop_assert!(v.disqualified.iter().all(|g| g.why.is_some()));
        prop_assert_eq!(v.groups().map(|g| g.rows.len()).sum::<usize>(), rows.len());
        for pair in v.ranked.windows(2) {
            prop_assert!(Objective::Cost.order(pair[0].metrics(), pair[1].metrics()).is_le());
        }
        for g in v.groups() {
            prop_assert!(g.rows.iter().all(|r| &r.metrics == g.metrics()));
        }
    }
}
