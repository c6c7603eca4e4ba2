//! What a verdict keeps of each seed, held and written out.

use super::*;

fn row(seed: u64, facts_lost: usize, overflows: usize) -> ResultRow {
    let settings = RunSettings {
        seed,
        ..RunSettings::new("drop".parse().expect("a strategy"))
    };
    let metrics = RunMetrics {
        facts_lost,
        overflows,
        completed: true,
        uncached_tokens: 1_000,
        tokens_received: 100,
        ..RunMetrics::default()
    };
    ResultRow::new("s", settings, metrics)
}

#[test]
fn runs_come_in_any_order_and_stay_by_seed_with_the_lowest_seed_out_named() {
    let rows = [row(5, 0, 1), row(2, 1, 0), row(9, 0, 0), row(3, 0, 2)];
    let runs = SeedRuns::of(&rows);
    let seeds: Vec<u64> = runs.iter().map(|s| s.seed).collect();
    assert_eq!(seeds, [2, 3, 5, 9]);
    let (seed, why, out) = runs.out().expect("two seeds are out");
    assert_eq!((seed, out), (3, 2));
    assert!(why.contains("overflow: 2 calls"), "{why}");
    assert_eq!(runs.iter().next().map(|s| s.facts_missed()), Some(1));
    // The same seed twice (results files read together), late: after the one held, as a
    // stable sort keeps them.
    let twice = [row(3, 0, 0), row(5, 0, 0), row(3, 2, 0)];
    let facts: Vec<(u64, usize)> = SeedRuns::of(&twice)
        .iter()
        .map(|s| (s.seed, s.facts_missed()))
        .collect();
    assert_eq!(facts, [(3, 0), (3, 2), (5, 0)]);
}

#[test]
fn a_seed_keeps_a_quarter_of_a_row_and_what_is_read_over_every_seed_is_kept_once() {
    assert!(
        4 * std::mem::size_of::<SeedFigures>() <= std::mem::size_of::<ResultRow>(),
        "{} bytes a seed against a row's {}",
        std::mem::size_of::<SeedFigures>(),
        std::mem::size_of::<ResultRow>()
    );
    let mut rows = [row(4, 0, 0), row(1, 0, 0), row(7, 0, 0)];
    rows[0].metrics.floor_over_limit = 2;
    rows[0].metrics.floor = 900;
    rows[2].metrics.floor_over_limit = 1;
    rows[2].metrics.floor = 900;
    rows[1].metrics.completed = false;
    rows[1].metrics.peak_accepted_tokens = 5_000;
    let over = *SeedRuns::of(&rows).over();
    assert!(over.stopped && !over.refused);
    assert_eq!(over.peak_accepted, 5_000);
    // Two runs alike in floor: the lower seed is named.
    assert_eq!(over.worst_floor, Some((900, 2, 4)));
}

#[test]
fn the_digest_tells_any_figure_apart_and_repricing_keeps_alike_runs_alike() {
    let (a, b) = (row(0, 0, 0), row(0, 0, 0));
    let mut c = row(0, 0, 0);
    c.metrics.elapsed_s = 0.5;
    let figures = |r: &ResultRow| SeedFigures::of(&r.settings, &r.metrics);
    assert!(figures(&a).same_figures(&figures(&b)));
    // A figure no verdict reads still tells two runs apart, as their rows would.
    assert!(!figures(&a).same_figures(&figures(&c)));
    let price = crate::billing::price::Price::table()[0].clone();
    let (mut x, mut y) = (SeedRuns::of([&a]), SeedRuns::of([&b]));
    x.reprice(&price);
    y.reprice(&price);
    let first = |r: &SeedRuns| r.iter().next().expect("a run");
    assert!(first(&x).same_figures(&first(&y)));
    assert!(first(&x).cost_usd.is_some_and(|c| c > 0.0));
    assert!(!first(&x).same_figures(&figures(&a)));
    // Runs that differed only in what they cost are alike once billed at one price.
    let mut d = row(0, 0, 0);
    d.metrics.cost_usd = Some(1.0);
    assert!(!figures(&a).same_figures(&figures(&d)));
    let mut z = SeedRuns::of([&d]);
    z.reprice(&price);
    assert!(first(&x).same_figures(&first(&z)));
}

/// A run whose figures vary with its seed, some large (many bytes written out), some without a
/// price; `arrived` tells apart two runs of one seed.
fn varied(seed: u64, arrived: usize) -> ResultRow {
    let mut r = row(seed, (seed % 3) as usize, usize::from(seed % 17 == 5));
    r.metrics.tokens_sent = seed.wrapping_mul(977) % 100_003;
    r.metrics.cache_hit_rate = (seed % 10) as f64 / 10.0;
    r.metrics.cost_usd = (seed % 4 != 0).then_some((seed % 1000) as f64 * 1e-4);
    r.metrics.peak_request_tokens = u64::MAX - seed % 1000;
    r.metrics.thrash = (seed % 5) as usize;
    r.metrics.refetches = arrived;
    r
}

/// Seeds 0..300 in a scrambled order, three of them twice, and two near the last seed.
fn scrambled() -> Vec<ResultRow> {
    let mut seeds: Vec<u64> = (0..300).map(|i| i * 7919 % 300).collect();
    seeds.extend([17, 42, 299, u64::MAX, u64::MAX - 1]);
    seeds.iter().enumerate().map(|(i, &s)| varied(s, i)).collect()
}

fn all(runs: &SeedRuns) -> Vec<SeedFigures> {
    runs.iter().collect()
}

#[test]
fn runs_written_out_read_back_as_those_held_in_any_order_of_arrival() {
    let rows = scrambled();
    let held = SeedRuns::of(&rows);
    assert!(held.written.is_empty(), "{} seeds fit in memory", rows.len());
    let mut small = SeedRuns::holding(8);
    for r in &rows {
        small.push(r);
    }
    assert!(
        !small.written.is_empty() && small.held.len() < 8,
        "{} held",
        small.held.len()
    );
    let read = all(&small);
    assert_eq!(read, all(&held));
    assert_eq!(read.len(), rows.len());
    // By seed; a seed twice in the order it came.
    assert!(
        read.windows(2)
            .all(|w| (w[0].seed, w[0].refetches) < (w[1].seed, w[1].refetches))
    );
    let first = rows.iter().position(|r| r.settings.seed == 42);
    let twice: Vec<usize> = read.iter().filter(|s| s.seed == 42).map(|s| s.refetches).collect();
    assert_eq!(twice, first.into_iter().chain([301]).collect::<Vec<_>>());
    assert_eq!(
        (small.len(), small.span(), small.over()),
        (held.len(), held.span(), held.over())
    );
    assert_eq!(small.out(), held.out());
    // Seeds in order, as `compare` gives them: the same figures.
    let mut in_order = SeedRuns::holding(4);
    for seed in 0..100 {
        in_order.push(&varied(seed, 0));
    }
    assert_eq!(
        all(&in_order),
        all(&SeedRuns::of(&(0..100).map(|s| varied(s, 0)).collect::<Vec<_>>()))
    );
}

#[test]
fn a_price_reaches_runs_written_out_and_not_those_that_come_after() {
    let rows = scrambled();
    let (mut held, mut small) = (SeedRuns::of(&rows), SeedRuns::holding(8));
    for r in &rows {
        small.push(r);
    }
    let price = crate::billing::price::Price::table()[0].clone();
    held.reprice(&price);
    small.reprice(&price);
    assert_eq!(all(&small), all(&held));
    assert!(all(&small).iter().all(|s| s.cost_usd.is_some()));
    // Later runs keep their own price, held or written out.
    for seed in 400..440 {
        held.push(&varied(seed, 0));
        small.push(&varied(seed, 0));
    }
    assert_eq!(all(&small), all(&held));
    assert!(all(&small).iter().any(|s| s.cost_usd.is_none()));
    // A copy goes on alone.
    let mut copy = small.clone();
    copy.push(&varied(500, 1));
    small.push(&varied(500, 2));
    for _ in 0..20 {
        copy.push(&varied(501, 1));
    }
    assert_eq!(all(&copy).len(), all(&small).len() + 20);
    let late = |r: &SeedRuns| {
        r.iter()
            .filter(|s| s.seed == 500)
            .map(|s| s.refetches)
            .collect::<Vec<_>>()
    };
    assert_eq!((late(&copy), late(&small)), (vec![1], vec![2]));
}

#[test]
fn figures_read_back_whole_however_large() {
    let mut r = varied(u64::MAX, usize::MAX);
    r.metrics.tokens_received = u64::MAX;
    r.metrics.cache_hit_rate = f64::MIN_POSITIVE;
    r.metrics.cost_usd = Some(-0.0);
    let mut runs = SeedRuns::holding(2);
    runs.push(&varied(0, 0));
    runs.push(&r);
    runs.push(&r);
    let read = all(&runs);
    assert!(!runs.written.is_empty());
    let whole = SeedFigures::of(&r.settings, &r.metrics);
    assert_eq!(read[1..], [whole, whole]);
    assert_eq!(read[1].cost_usd.map(f64::to_bits), Some((-0.0f64).to_bits()));
}

#[test]
fn a_verdict_over_runs_written_out_is_the_verdict_over_runs_held() {
    use crate::verdict::{Config, Figure, Objective, Paired, sensitivities, verdicts_of};
    // Three strategies over 60 seeds, close enough that pairing, ties and seed wins all count.
    let rows = |strategy: &str, shift: u64| -> Vec<ResultRow> {
        (0..60)
            .map(|seed| {
                let mut r = varied(seed, 0);
                r.settings = RunSettings {
                    seed,
                    ..RunSettings::new(strategy.parse().expect("a strategy"))
                };
                r.metrics.facts_lost = ((seed * 7 + shift) % 5 / 3) as usize;
                r.metrics.cost_usd = Some(0.01 + ((seed * 13 + shift * 5) % 11) as f64 * 1e-3);
                r.metrics.overflows = 0;
                r
            })
            .collect()
    };
    let all_rows: Vec<Vec<ResultRow>> = vec![rows("drop", 0), rows("mask", 1), rows("summarize", 2)];
    let ran = |hold: usize| -> Vec<Ran> {
        all_rows
            .iter()
            .map(|rows| {
                let mut runs = SeedRuns::holding(hold);
                for r in rows {
                    runs.push(r);
                }
                assert_eq!(runs.written.is_empty(), hold > rows.len());
                Ran {
                    first: rows[0].clone(),
                    runs: std::sync::Arc::new(runs),
                }
            })
            .collect()
    };
    let (held, written) = (ran(usize::MAX), ran(4));
    let objective = Objective::default_priced();
    let (a, b) = (
        &verdicts_of(&held, &objective)[0],
        &verdicts_of(&written, &objective)[0],
    );
    let said = |v: &crate::verdict::Verdict<'_>| {
        let configs: Vec<&Config<'_>> = v.ranked.iter().map(|g| g.lead()).collect();
        let figures: Vec<_> = configs
            .iter()
            .map(|c| {
                let means: Vec<_> = [
                    Figure::TokensSent,
                    Figure::FactsMissed,
                    Figure::Thrash,
                    Figure::CacheHitRate,
                ]
                .map(|f| c.mean(f))
                .to_vec();
                (c.strategy(), means, c.cost(), c.lost_in(), c.seed_span(), c.why.clone())
            })
            .collect();
        let paired: Vec<_> = configs
            .iter()
            .flat_map(|x| configs.iter().map(|y| Paired::on(x, y, &objective, objective.keys[0])))
            .collect();
        (figures, paired, format!("{:?}", v.tie), v.pick().map(Config::strategy))
    };
    assert_eq!(said(a), said(b));
    assert!(a.tie.is_some(), "the case ties somewhere: {:?}", said(a).0);
    let (sa, sb) = (
        sensitivities(std::slice::from_ref(a), &[], &[], &objective),
        sensitivities(std::slice::from_ref(b), &[], &[], &objective),
    );
    assert_eq!(sa, sb);
    assert!(sa[0].as_ref().and_then(|s| s.seed_win_rate).is_some(), "{sa:?}");
}

#[test]
fn a_segment_longer_than_a_read_is_read_back_whole() {
    // 1,500 seeds in order, 64 held: one segment grown in place to well past the 16 KiB read at
    // a time, so that seeds cut by the end of a read are put back together.
    let rows: Vec<ResultRow> = (0..1500).map(|s| varied(s * 1_000_003, s as usize)).collect();
    let mut small = SeedRuns::holding(64);
    for r in &rows {
        small.push(r);
    }
    let bytes: u64 = small.written.iter().map(|s| s.bytes()).sum();
    assert!(bytes > 2 * 16 * 1024, "{bytes} bytes written");
    assert_eq!(all(&small), all(&SeedRuns::of(&rows)));
}
