use proptest::prelude::*;

use super::*;
use crate::metrics::RunMetrics;
use crate::row::ResultRow;
use crate::settings::RunSettings;

/// A run of one seed: its cost, facts lost of 4, calls, and whether it completed.
pub(super) fn seeded(
    scenario: &str,
    strategy: &str,
    seed: u64,
    cost: f64,
    facts_lost: usize,
    completed: bool,
) -> ResultRow {
    ResultRow::new(
        scenario,
        RunSettings {
            seed,
            ..RunSettings::new(strategy.parse().expect("a strategy"))
        },
        RunMetrics {
            requests: 3,
            requests_answered: if completed { 3 } else { 1 },
            cost_usd: Some(cost),
            tokens_sent: (cost * 1e6) as u64,
            facts: 4,
            facts_lost,
            model_calls: 6,
            overflows: usize::from(!completed),
            completed,
            ..RunMetrics::default()
        },
    )
}

pub(super) fn row(scenario: &str, strategy: &str, cost: f64, facts_lost: usize, completed: bool) -> ResultRow {
    seeded(scenario, strategy, 0, cost, facts_lost, completed)
}

pub(super) fn default() -> Objective {
    Objective::default_priced()
}

fn cost_only() -> Objective {
    Objective::resolve(Some("cost"), true, None, Objective::DEFAULT_TIE).expect("valid")
}

fn names(groups: &[Group<'_>]) -> Vec<Vec<String>> {
    groups
        .iter()
        .map(|g| g.configs.iter().map(|c| c.settings().strategy.brief()).collect())
        .collect()
}

#[test]
fn a_run_that_stopped_is_never_ranked_however_cheap() {
    let rows = [
        row("s", "none", 0.001, 0, false),
        row("s", "drop", 0.009, 0, true),
        row("s", "truncate", 0.008, 0, true),
    ];
    let v = &verdicts(&rows, &default())[0];
    assert_eq!(names(&v.ranked), [["truncate"], ["drop"]]);
    assert_eq!(names(&v.disqualified), [["none"]]);
    assert!(v.disqualified[0].why.as_deref().is_some_and(|w| w.contains("overflow")));
}

#[test]
fn facts_come_before_cents_unless_asked() {
    // The shape of unfetchable-facts: drop is cheapest and loses 3 of 4 facts.
    let rows = [
        row("s", "drop", 0.0158, 3, true),
        row("s", "truncate", 0.0161, 1, true),
        row("s", "summarize", 0.0187, 0, true),
    ];
    let v = &verdicts(&rows, &default())[0];
    assert_eq!(
        v.pick().map(Config::strategy).as_deref(),
        Some(
            "summarize:keep=id/number/decision,ratio=0.1,trigger=limit,place=span,tail=fit,reads=span,carry=0,reread=0,resummarize=true,overlap=0,style=ctxbench"
        )
    );
    // The front: every run here is on it, cheapest first.
    let front: Vec<String> = v
        .front
        .iter()
        .map(|&i| v.ranked[i].lead().settings().strategy.brief())
        .collect();
    assert_eq!(front, ["drop", "truncate", "summarize"]);
    let v = &verdicts(&rows, &cost_only())[0];
    assert_eq!(names(&v.ranked[..1]), [["drop"]]);
}

#[test]
fn a_fact_cost_trades_facts_for_dollars() {
    let rows = [
        row("s", "drop", 0.0158, 3, true),
        row("s", "summarize", 0.0187, 0, true),
    ];
    let cheap = Objective::resolve(None, true, Some(0.0001), 0.01).expect("valid");
    assert_eq!(names(&verdicts(&rows, &cheap)[0].ranked[..1]), [["drop"]]);
    let dear = Objective::resolve(None, true, Some(0.01), 0.01).expect("valid");
    assert_eq!(names(&verdicts(&rows, &dear)[0].ranked[..1]), [["summarize"]]);
}

#[test]
fn runs_within_the_tolerance_tie_and_the_simpler_strategy_wins() {
    // truncate+drop is 0.5% cheaper than drop: nothing a reader is shown tells them apart.
    let rows = [
        row("s", "truncate+drop", 0.01000, 0, true),
        row("s", "drop", 0.01005, 0, true),
    ];
    let v = &verdicts(&rows, &default())[0];
    assert_eq!(names(&v.ranked), [["drop"], ["truncate+drop"]]);
    let tie = v.tie.as_ref().expect("a tie");
    let with = vec![v.ranked[1].lead().strategy()];
    assert_eq!(tie.on, [(Key::Facts, with.clone()), (Key::Cost, with)]);
    assert_eq!(tie.decided, Decider::Simpler);
    assert!(!v.discriminates, "every run ties with the pick on every key");
    // With no tolerance and no spread, the cheaper wins.
    let exact = Objective::resolve(None, true, None, 0.0).expect("valid");
    let rows = [
        row("s", "truncate+drop", 0.0100, 0, true),
        row("s", "drop", 0.0110, 0, true),
    ];
    assert_eq!(names(&verdicts(&rows, &exact)[0].ranked[..1]), [["truncate+drop"]]);
}

#[test]
fn overlapping_intervals_over_seeds_tie() {
    // mask: 0.010 or 0.014 by seed; drop: 0.012 always. Their intervals overlap: a tie, and
    // the simpler (drop: one stage, no parameter changed) wins.
    let mut rows = Vec::new();
    for seed in 0..10 {
        rows.push(seeded(
            "s",
            "mask:m=3",
            seed,
            if seed % 2 == 0 { 0.010 } else { 0.014 },
            0,
            true,
        ));
        rows.push(seeded("s", "drop", seed, 0.012, 0, true));
    }
    let v = &verdicts(&rows, &default())[0];
    assert_eq!(v.ranked[0].lead().seeds(), 10);
    assert_eq!(names(&v.ranked[..1]), [["drop"]]);
    let cost = v.ranked[1].lead().cost().expect("priced");
    assert!(cost.low < 0.012 && cost.high > 0.012, "{cost:?}");
}

#[test]
fn a_config_out_in_one_seed_is_out() {
    let rows = [
        seeded("s", "drop", 0, 0.01, 0, true),
        seeded("s", "drop", 1, 0.01, 0, false),
        seeded("s", "truncate", 0, 0.02, 0, true),
        seeded("s", "truncate", 1, 0.02, 0, true),
    ];
    let v = &verdicts(&rows, &default())[0];
    assert_eq!(names(&v.ranked), [["truncate"]]);
    assert!(
        v.disqualified[0]
            .why
            .as_deref()
            .is_some_and(|w| w.contains("1 of 2 seeds"))
    );
}

#[test]
fn facts_lost_over_seeds_are_a_rate_and_a_count_of_seeds() {
    let rows: Vec<ResultRow> = (0..20)
        .map(|seed| seeded("s", "summarize", seed, 0.02, usize::from(seed < 5), true))
        .collect();
    let v = &verdicts(&rows, &default())[0];
    let c = v.ranked[0].lead();
    assert_eq!(c.facts_lost().mean, 0.25);
    let r = c.lost_in();
    assert_eq!((r.k, r.n), (5, 20));
    assert!(r.low < 0.25 && r.high > 0.25);
}

#[test]
fn the_suite_ranks_by_coverage_then_facts_then_regret() {
    let rows = [
        row("a", "drop", 0.010, 0, true),
        row("a", "mask+drop", 0.012, 0, true),
        row("a", "summarize", 0.020, 0, true),
        row("b", "drop", 0.010, 2, true),
        row("b", "mask+drop", 0.015, 0, true),
        row("b", "summarize", 0.030, 0, true),
        row("c", "drop", 0.010, 0, false),
        row("c", "mask+drop", 0.020, 0, true),
        row("c", "summarize", 0.025, 0, true),
    ];
    let v = verdicts(&rows, &default());
    let s = suite(&v, &default());
    // mask+drop and summarize qualify on all three; mask+drop's cost is nearer each pick.
    assert_eq!(
        s.pick.as_deref(),
        Some("mask:m=10,trigger=threshold,style=ctxbench+drop")
    );
    let board: Vec<(&str, usize, usize)> = s
        .leaderboard
        .iter()
        .map(|l| (l.strategy.as_str(), l.qualified, l.over))
        .collect();
    assert_eq!(
        board[1].0,
        "summarize:keep=id/number/decision,ratio=0.1,trigger=limit,place=span,tail=fit,reads=span,carry=0,reread=0,resummarize=true,overlap=0,style=ctxbench"
    );
    assert_eq!(board[2], ("drop", 2, 2));
    // No figure is a sum over different sets: drop's facts lost are a mean over the 2 scenarios
    // it shares with the pick (0 and 2), beside the pick's over its 3.
    assert_eq!(s.leaderboard[2].facts_lost, Some(1.0));
    assert_eq!((s.leaderboard[0].over, s.leaderboard[0].facts_lost), (3, Some(0.0)));
    let pick = &s.leaderboard[0];
    // a: 0.012/0.010 - 1 = 20%; b: the pick; c: the pick.
    assert_eq!(pick.median_regret, Some(0.0));
    assert!((pick.worst_regret.expect("a regret") - 0.2).abs() < 1e-9);
}

#[test]
fn a_scenario_where_everything_ties_changes_nothing() {
    let base = vec![
        row("a", "drop", 0.010, 0, true),
        row("a", "mask+drop", 0.012, 0, true),
        row("b", "drop", 0.020, 0, true),
        row("b", "mask+drop", 0.015, 0, true),
    ];
    let mut more = base.clone();
    more.push(row("flat", "drop", 0.010, 0, true));
    more.push(row("flat", "mask+drop", 0.010, 0, true));
    let (v1, v2) = (verdicts(&base, &default()), verdicts(&more, &default()));
    let (s1, s2) = (suite(&v1, &default()), suite(&v2, &default()));
    assert_eq!(s1.pick, s2.pick);
    assert_eq!(s1.leaderboard, s2.leaderboard);
    assert_eq!(s2.not_discriminating, ["flat"]);
}

#[test]
fn strategies_alike_everywhere_are_one_line() {
    let rows = [
        row("a", "drop", 0.010, 0, true),
        row("a", "mask+drop", 0.010, 0, true),
        row("a", "summarize", 0.020, 0, true),
    ];
    let s = suite(&verdicts(&rows, &default()), &default());
    assert_eq!(s.leaderboard.len(), 2);
    assert_eq!(
        s.leaderboard[0].alike,
        ["mask:m=10,trigger=threshold,style=ctxbench+drop"]
    );
}

#[test]
fn a_suite_where_nothing_qualifies_has_no_pick() {
    let rows = [row("a", "none", 0.01, 0, false), row("a", "drop", 0.02, 0, false)];
    let s = suite(&verdicts(&rows, &default()), &default());
    assert_eq!(s.pick, None);
    assert_eq!(s.not_discriminating, ["a"]);
}

#[test]
fn the_suite_ties_what_prints_alike_and_the_simpler_wins() {
    // none wins a, mask:m=1 wins b, each +30% on the other: the same median and worst regret,
    // paired over the scenarios a tie, which the simpler (none) wins, and says so.
    let rows = [
        row("a", "none", 0.0100, 0, true),
        row("a", "mask:m=1,trigger=cold", 0.0130, 0, true),
        row("b", "none", 0.0130, 0, true),
        row("b", "mask:m=1,trigger=cold", 0.0100, 0, true),
    ];
    let s = suite(&verdicts(&rows, &default()), &default());
    assert_eq!(s.pick.as_deref(), Some("none"));
    let (with, settled) = s.tie.as_ref().expect("a tie");
    assert_eq!((with.len(), *settled), (1, Settled::Simpler));
    assert!(s.why.contains("the simpler wins"), "{}", s.why);
}

#[test]
fn the_suite_names_a_configuration_to_run_and_the_trade_in_words() {
    // drop qualifies everywhere and loses facts; summarize keeps them but overflows on c.
    let rows = [
        row("a", "drop", 0.010, 2, true),
        row("a", "summarize", 0.020, 0, true),
        row("b", "drop", 0.010, 2, true),
        row("b", "summarize", 0.020, 0, true),
        row("c", "drop", 0.010, 0, true),
        row("c", "truncate", 0.020, 0, true),
        row("c", "summarize", 0.001, 0, false),
    ];
    let s = suite(&verdicts(&rows, &default()), &default());
    assert_eq!(s.pick.as_deref(), Some("drop"));
    let (run, on, of) = s.run.as_ref().expect("a configuration");
    assert_eq!((run.strategy.brief().as_str(), *on, *of), ("drop", 3, 3));
    assert!(
        s.why.contains("choosing it loses 0 facts a run instead of 2.0 on the 2 scenarios both qualify on, but qualifies on 1 scenario fewer"),
        "{}",
        s.why
    );
}

/// Rows of one configuration over seeds 0.., from its facts lost and costs per seed.
fn over_seeds(scenario: &str, strategy: &str, facts: &[usize], costs: &[f64]) -> Vec<ResultRow> {
    facts
        .iter()
        .zip(costs)
        .enumerate()
        .map(|(seed, (&f, &c))| seeded(scenario, strategy, seed as u64, c, f, true))
        .collect()
}

#[test]
fn ties_are_said_per_key_and_only_with_runs_tied_on_every_key_before() {
    // The shape of no-tools-chat: summarize keeps the facts drop keeps but costs 40% more.
    let rows = [
        row("s", "drop", 0.0294, 0, true),
        row("s", "summarize", 0.0416, 0, true),
        row("s", "window", 0.0296, 1, true),
    ];
    let v = &verdicts(&rows, &default())[0];
    assert_eq!(names(&v.ranked[..1]), [["drop"]]);
    let tie = v.tie.as_ref().expect("summarize ties on facts");
    let summarize = v.ranked[1].lead().strategy();
    assert_eq!(tie.on, [(Key::Facts, vec![summarize.clone()]), (Key::Cost, vec![])]);
    assert_eq!(tie.decided, Decider::Key(Key::Cost));
    assert_eq!(tie.tied_throughout(), (vec![Key::Facts], &[summarize][..]));
}

#[test]
fn the_name_decides_where_both_are_as_simple() {
    let rows = [row("s", "mask", 0.01000, 0, true), row("s", "drop", 0.01003, 0, true)];
    let v = &verdicts(&rows, &default())[0];
    assert_eq!(names(&v.ranked[..1]), [["drop"]]);
    assert_eq!(v.tie.as_ref().map(|t| t.decided), Some(Decider::Name));
    // One stage with a parameter changed is less simple: there, simplicity decides.
    let rows = [
        row("s", "drop", 0.01003, 0, true),
        row("s", "mask:m=3", 0.01000, 0, true),
    ];
    let v = &verdicts(&rows, &default())[0];
    assert_eq!(v.tie.as_ref().map(|t| t.decided), Some(Decider::Simpler));
}

#[test]
fn seeds_are_paired_so_a_difference_in_every_seed_decides() {
    // summarize at ratio 0.3 loses fewer facts than at 0.1 in 9 seeds of 10 and more in none:
    // alone, their intervals overlap; paired, 0.3 wins though 0.1 is the simpler.
    let low = [1, 4, 1, 4, 1, 4, 1, 4, 1, 2];
    let high = [0, 3, 0, 3, 0, 3, 0, 3, 0, 2];
    let mut rows = over_seeds("s", "summarize", &low, &[0.02; 10]);
    rows.extend(over_seeds("s", "summarize:ratio=0.3", &high, &[0.021; 10]));
    let v = &verdicts(&rows, &default())[0];
    let (a, b) = (v.ranked[0].lead(), v.ranked[1].lead());
    assert!(
        a.facts_lost().ties(&b.facts_lost(), 0.0),
        "each alone overlaps the other"
    );
    assert_eq!(a.settings().strategy.brief(), "summarize:ratio=0.3");
    let p = Paired::of(a, b, |m| Some(m.facts_missed() as f64)).expect("paired");
    assert_eq!((p.lower_in, p.higher_in), (9, 0));
    assert_eq!(v.tie, None);
}

/// The pick of each scenario as `compare`'s verdicts name it, and as the sweep and `merge` keep
/// it while the rows pass ([`Best`]).
fn both_picks(rows: &[ResultRow], objective: &Objective) -> (Vec<Option<String>>, Vec<Option<String>>) {
    let verdicts = verdicts(rows, objective);
    let from_verdicts: Vec<Option<String>> = verdicts.iter().map(|v| v.pick().map(Config::strategy)).collect();
    let mut best = Best::new(objective);
    for r in rows {
        best.add(r.clone());
    }
    let kept = best
        .finish(&mut |ranges| rows_at(rows.iter().cloned().map(Ok::<_, ()>), ranges))
        .expect("read back");
    let streamed = verdicts
        .iter()
        .map(|v| {
            kept.iter()
                .find(|rows| rows[0].scenario == v.scenario)
                .map(|rows| rows[0].settings.strategy.to_string())
        })
        .collect();
    (from_verdicts, streamed)
}

#[test]
fn three_configurations_whose_ties_do_not_chain_have_one_winner_everywhere() {
    // facts 0,0,0,0 at cost 10; 0,1,0,1 at 1; 1,1,1,1 at 0.5. Two at a time, each beats the one
    // before; the verdict's rule ties the first two on facts, leaves the third out, and the
    // cheaper of the two wins.
    let mut rows = over_seeds("s", "summarize", &[0, 0, 0, 0], &[10.0; 4]);
    rows.extend(over_seeds("s", "drop", &[0, 1, 0, 1], &[1.0; 4]));
    rows.extend(over_seeds("s", "mask", &[1, 1, 1, 1], &[0.5; 4]));
    let (verdict, streamed) = both_picks(&rows, &default());
    assert_eq!(verdict, [Some("drop".to_owned())]);
    assert_eq!(streamed, verdict);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Random configurations over random seeds, facts and costs, in several scenarios:
    /// `compare`'s verdicts and the streamed best (the sweep's, `merge`'s) name the same winner.
    #[test]
    fn every_command_names_the_same_winner(
        scenarios in proptest::collection::vec(
            proptest::collection::vec((proptest::collection::vec((0usize..3, 1u32..40), 1..6), any::<bool>()), 1..7),
            1..4,
        ),
        seeds in 1usize..6,
    ) {
        let strategies = ["none", "drop", "truncate", "mask", "window", "summarize", "mask+drop"];
        let mut rows = Vec::new();
        for (k, configs) in scenarios.iter().enumerate() {
            let name = format!("s{k}");
            for ((draws, done), s) in configs.iter().zip(strategies) {
                for seed in 0..seeds {
                    let (lost, cost) = draws[seed % draws.len()];
                    let done = *done || seed > 0;
                    rows.push(seeded(&name, s, seed as u64, f64::from(cost) / 100.0, lost, done));
                }
            }
        }
        // In the order every command writes them: scenario, then settings.
        rows.sort_by(|a, b| a.scenario.cmp(&b.scenario).then_with(|| a.settings.order(&b.settings)));
        let (verdict, streamed) = both_picks(&rows, &default());
        prop_assert_eq!(&verdict, &streamed);
        let tokens = Objective::resolve(Some("tokens,facts"), true, None, 0.0).expect("valid");
        let (verdict, streamed) = both_picks(&rows, &tokens);
        prop_assert_eq!(verdict, streamed);
    }

    /// Whatever the figures: every ranked group qualifies, every disqualified one says why, each
    /// configuration is in exactly one group, the pick never loses more facts than a qualifying
    /// run outside its tie, and the order of the rows changes nothing.
    #[test]
    fn rankings_hold_their_rules(
        runs in proptest::collection::vec((0u32..20, 0usize..3, any::<bool>(), 0usize..2), 1..10),
        seeds in 1u64..4,
    ) {
        let strategies = ["none", "drop", "truncate", "mask", "window", "summarize", "clear-tool-uses",
                          "mask+drop", "truncate+drop", "truncate+summarize"];
        let mut rows = Vec::new();
        for (&(cost, lost, done, cut), s) in runs.iter().zip(strategies) {
            for seed in 0..seeds {
                let mut r = seeded("s", s, seed, f64::from(cost + seed as u32) / 1000.0, lost, done);
                r.metrics.silent_truncations = cut;
                rows.push(r);
            }
        }
        let objective = default();
        let v = &verdicts(&rows, &objective)[0];
        prop_assert!(v.ranked.iter().all(|g| g.why.is_none()));
        prop_assert!(v.disqualified.iter().all(|g| g.why.is_some()));
        prop_assert_eq!(v.groups().map(|g| g.configs.len()).sum::<usize>(), runs.len());
        if let Some(pick) = v.pick() {
            let least = v.ranked.iter().map(|g| g.lead().facts_lost()).min_by(|a, b| a.mean.total_cmp(&b.mean));
            let least = least.expect("a ranked group");
            prop_assert!(pick.facts_lost().ties(&least, objective.tie) || pick.facts_lost().mean <= least.mean);
        }
        let mut reversed = rows.clone();
        reversed.reverse();
        let w = &verdicts(&reversed, &objective)[0];
        let strategies = |v: &Verdict<'_>| v.groups().map(|g| g.strategies()).collect::<Vec<_>>();
        prop_assert_eq!(strategies(v), strategies(w));
    }
}

#[test]
fn counts_of_seeds_past_a_thousand_are_said_with_separators() {
    let rows: Vec<ResultRow> = (0..1200)
        .map(|seed| seeded("s", "drop", seed, 0.01, usize::from(seed < 1100), seed >= 1000))
        .collect();
    let config = Config::of(&rows.iter().collect::<Vec<_>>());
    let why = config.why.expect("out in some seeds");
    assert!(why.ends_with("(seed 0; out in 1,000 of 1,200 seeds)"), "{why}");
}
