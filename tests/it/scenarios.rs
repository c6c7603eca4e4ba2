//! The bundled scenarios: each one's expected outcome (its `description`) asserted, so that the
//! figures are explained, not just printed; and what must hold on every one of them.

use std::path::Path;

use ctxbench_compact::tokens::CounterKind;
use ctxbench_compact::tokens::Estimator;
use ctxbench_harness::agent::OnOverflow;
use ctxbench_harness::metrics::RunMetrics;
use ctxbench_harness::run::{RunResult, run_scenario};
use ctxbench_harness::scenario::{Scenario, files_in, load_scenario};
use ctxbench_harness::settings::RunSettings;
use ctxbench_harness::settings::STANDARD_STRATEGIES;
use ctxbench_harness::sim::provider::Overflow;
use ctxbench_harness::trace::CallRecord;

fn scenario(name: &str) -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(format!("{name}.json"));
    load_scenario(&path, 0).unwrap_or_else(|e| panic!("{e}"))
}

fn run_with(name: &str, strategy: &str, adjust: impl FnOnce(&mut RunSettings)) -> RunResult {
    let s = scenario(name);
    let mut settings = RunSettings::new(strategy.parse().expect("valid strategy"));
    adjust(&mut settings);
    run_scenario(&s, &settings, &mut |_| {}).expect("the scenario sets a window")
}

fn run(name: &str, strategy: &str) -> RunMetrics {
    run_with(name, strategy, |_| {}).metrics
}

/// Names of the facts lost in a run.
fn lost(trace: &[CallRecord]) -> Vec<String> {
    let mut lost: Vec<String> = trace.iter().flat_map(|r| r.lost.clone()).collect();
    lost.sort();
    lost
}

fn refetched(trace: &[CallRecord]) -> Vec<String> {
    let mut names: Vec<String> = trace.iter().flat_map(|r| r.refetched.clone()).collect();
    names.sort();
    names
}

fn fails(m: &RunMetrics) -> bool {
    !m.completed && m.overflows > 0
}

#[test]
fn every_scenario_with_every_standard_strategy_keeps_pairing() {
    let files = files_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios")).expect("scenarios/");
    assert!(files.len() >= 10, "at least ten bundled scenarios");
    for file in files {
        let s = load_scenario(&file, 0).unwrap_or_else(|e| panic!("{e}"));
        assert!(!s.description.is_empty(), "{}: a description of what it tests", s.name);
        for strategy in STANDARD_STRATEGIES {
            let settings = RunSettings::new(strategy.parse().expect("valid"));
            let m = run_scenario(&s, &settings, &mut |_| {}).expect("a window").metrics;
            assert_eq!(m.pairing_errors, 0, "{} with {strategy}", s.name);
            assert_eq!(m.model_calls, m.agent_calls + m.refetch_calls + m.summarizer_calls);
        }
    }
}

#[test]
fn bike_shop_return() {
    assert!(fails(&run("bike-shop-return", "none")));
    for strategy in ["truncate", "drop", "truncate+drop", "summarize", "mask+drop"] {
        let m = run("bike-shop-return", strategy);
        assert!(
            m.completed && m.overflows == 0 && m.facts_lost == 0,
            "{strategy}: {m:?}"
        );
    }
    for strategy in ["mask", "window", "clear-tool-uses"] {
        assert!(
            fails(&run("bike-shop-return", strategy)),
            "{strategy} protects too much to help"
        );
    }
}

#[test]
fn long_support_chat_refetches_early_ids_instead_of_losing_them() {
    assert!(fails(&run("long-support-chat", "none")));
    for strategy in ["truncate", "drop", "truncate+drop"] {
        let result = run_with("long-support-chat", strategy, |_| {});
        let m = &result.metrics;
        assert!(m.requests >= 20 && m.completed, "{strategy}");
        assert_eq!(m.facts_lost, 0, "{strategy}");
        assert!(m.refetches > 0, "{strategy}: the early lookups are repeated");
        assert!(
            refetched(&result.trace)
                .iter()
                .all(|f| f == "user_id" || f == "reservation"),
            "{strategy}"
        );
    }
}

#[test]
fn coding_agent_needs_masking_inside_one_request() {
    // One request: everything is in the protected tail of request-based strategies.
    let m = run("coding-agent", "truncate+drop");
    assert!(fails(&m) && m.messages_truncated == 0 && m.messages_dropped == 0);
    let m = run("coding-agent", "mask+drop");
    assert!(
        m.completed && m.overflows == 0 && m.messages_masked > 40 && m.facts_lost == 0,
        "{m:?}"
    );
    assert!(m.agent_calls >= 63, "62 tool calls and the answer");
}

#[test]
fn research_agent_chars4_undercounts_json() {
    let limit = 9_600; // 80% of the scenario's 12,000-token window.
    let chars4 = run("research-agent", "truncate+drop");
    assert!(
        chars4.peak_request_tokens > limit,
        "chars4 lets a request past the limit: {}",
        chars4.peak_request_tokens
    );
    let exact = run_with("research-agent", "truncate+drop", |c| {
        c.estimator = Estimator::Counter(CounterKind::O200k)
    });
    assert!(
        exact.metrics.peak_request_tokens <= limit,
        "{}",
        exact.metrics.peak_request_tokens
    );
}

#[test]
fn chinese_support_chars4_compacts_too_late_and_chars4_py_too_early() {
    let estimator = |kind| move |c: &mut RunSettings| c.estimator = Estimator::Counter(kind);
    let chars4 = run_with("chinese-support", "truncate+drop", estimator(CounterKind::Chars4)).metrics;
    assert!(
        fails(&chars4) && chars4.compactions == 0,
        "chars4 never sees it coming: {chars4:?}"
    );
    let exact = run_with("chinese-support", "truncate+drop", estimator(CounterKind::O200k)).metrics;
    assert!(exact.completed && exact.overflows == 0, "{exact:?}");
    let py = run_with("chinese-support", "truncate+drop", estimator(CounterKind::Chars4Py));
    let first = |trace: &[CallRecord]| {
        trace
            .iter()
            .position(|r| r.compaction.as_ref().is_some_and(|c| c.dropped + c.truncated > 0))
    };
    let exact_trace = run_with("chinese-support", "truncate+drop", estimator(CounterKind::O200k)).trace;
    let (py_first, exact_first) = (
        first(&py.trace).expect("chars4-py compacts"),
        first(&exact_trace).expect("o200k compacts"),
    );
    assert!(
        py_first < exact_first,
        "chars4-py starts compacting earlier: call {py_first} against {exact_first}"
    );
    assert!(py.metrics.refetches > 0, "and pays for it in refetches");
}

#[test]
fn parallel_calls_drop_whole_blocks() {
    assert!(fails(&run("parallel-calls", "none")));
    let m = run("parallel-calls", "drop");
    assert!(m.completed && m.pairing_errors == 0 && m.messages_dropped >= 5, "{m:?}");
}

#[test]
fn unfetchable_facts_survive_or_not_by_origin() {
    let truncate = run_with("unfetchable-facts", "truncate", |_| {});
    assert!(truncate.metrics.completed);
    // The user's code is not a tool result; the repeated receipt lives on in a reply.
    assert_eq!(lost(&truncate.trace), ["receipt"]);
    assert_eq!(refetched(&truncate.trace), ["total"]);
    let drop = run_with("unfetchable-facts", "drop", |_| {});
    assert!(drop.metrics.completed);
    assert_eq!(lost(&drop.trace), ["loyalty", "receipt", "receipt_repeated"]);
    assert_eq!(refetched(&drop.trace), ["total"]);
    assert_eq!(drop.metrics.answers_wrong, 1, "the last answer followed lost facts");
}

#[test]
fn no_tools_chat_nothing_to_truncate() {
    let m = run("no-tools-chat", "truncate");
    assert!(fails(&m) && m.messages_truncated == 0);
    let m = run("no-tools-chat", "drop");
    assert!(
        m.completed && m.messages_dropped > 0 && m.facts_lost == 0,
        "the name is in the first request: {m:?}"
    );
}

#[test]
fn heavy_prefix_leaves_nothing_to_compact() {
    let none = run("heavy-prefix", "none");
    assert!(
        none.prefix_tokens * 10 > none.tokens_sent * 7,
        "{} of {}",
        none.prefix_tokens,
        none.tokens_sent
    );
    for strategy in STANDARD_STRATEGIES {
        assert!(
            run("heavy-prefix", strategy).tokens_sent >= none.tokens_sent,
            "{strategy}"
        );
    }
}

#[test]
fn real_support_shape() {
    let s = scenario("real-support-shape");
    assert!((5..=11).contains(&s.requests.len()));
    assert!(fails(&run("real-support-shape", "none")));
    for strategy in ["truncate+drop", "mask+drop"] {
        let m = run("real-support-shape", strategy);
        assert!(m.completed && m.facts_lost == 0 && m.refetches > 0, "{strategy}: {m:?}");
        let per_request = m.agent_calls as f64 / m.requests as f64;
        assert!(
            (1.5..=2.2).contains(&per_request),
            "{strategy}: {per_request} calls per request"
        );
    }
}

#[test]
fn compact_retry_recovers_an_overflow_with_the_true_count() {
    let abort = run("chinese-support", "truncate+drop");
    assert!(fails(&abort));
    let retry = run_with("chinese-support", "truncate+drop", |c| {
        c.on_overflow = OnOverflow::CompactRetry
    });
    let m = &retry.metrics;
    assert!(m.completed && m.overflows >= 1, "rejected once, then resent: {m:?}");
    assert!(
        retry
            .trace
            .iter()
            .any(|r| r.retry && r.outcome == ctxbench_harness::trace::Outcome::Ok)
    );
}

#[test]
fn server_side_truncation_is_silent_and_loses_facts() {
    let result = run_with("unfetchable-facts", "none", |c| c.overflow = Overflow::Truncate);
    let m = &result.metrics;
    assert!(m.completed && m.overflows == 0 && m.silent_truncations > 0, "{m:?}");
    assert!(m.peak_request_tokens <= 4_000);
    // The server cut the oldest messages, the user's loyalty code among them, and said nothing.
    assert_eq!(lost(&result.trace), ["loyalty"]);
}

#[test]
fn usage_estimator_follows_the_true_count() {
    let chars4 = run("chinese-support", "truncate+drop");
    let usage = run_with("chinese-support", "truncate+drop", |c| c.estimator = Estimator::Usage).metrics;
    assert!(fails(&chars4));
    assert!(
        usage.completed && usage.overflows == 0,
        "anchored on the provider's counts: {usage:?}"
    );
}

#[test]
fn lunch_break_ranks_by_the_bill_not_by_the_tokens() {
    let standard: Vec<(&str, RunMetrics)> = STANDARD_STRATEGIES
        .iter()
        .map(|s| (*s, run("lunch-break", s)))
        .collect();
    for (s, m) in &standard {
        assert!(m.completed && m.facts_lost == 0 && m.overflows == 0, "{s}: {m:?}");
    }
    let cost = |m: &RunMetrics| m.cost_usd.expect("priced by default");
    let cheapest = standard
        .iter()
        .min_by(|a, b| cost(&a.1).total_cmp(&cost(&b.1)))
        .expect("runs");
    let fewest = standard.iter().min_by_key(|(_, m)| m.tokens_sent).expect("runs");
    let most = standard.iter().map(|(_, m)| m.tokens_sent).max().expect("runs");
    // Not compacting keeps the prefix, and the cache bills it at a tenth: the most tokens, the
    // smallest bill (`mask` at m=10 finds nothing to mask and ties with it).
    assert_eq!(cheapest.0, "none");
    assert_eq!(cheapest.1.tokens_sent, most);
    assert_eq!(fewest.0, "drop");
    assert!(
        cost(&fewest.1) > 1.15 * cost(&cheapest.1),
        "{} vs {}",
        cost(&fewest.1),
        cost(&cheapest.1)
    );
    assert!(fewest.1.cache_hit_rate < cheapest.1.cache_hit_rate);

    // A low watermark compacts rarely and keeps the prefix longer: cheaper than stopping as soon
    // as it fits.
    let at_threshold = run("lunch-break", "truncate+drop");
    let low = run_with("lunch-break", "truncate+drop", |s| s.target = Some(0.5)).metrics;
    assert!(
        cost(&low) < 0.9 * cost(&at_threshold),
        "{} vs {}",
        cost(&low),
        cost(&at_threshold)
    );
    assert!(low.prefix_breaks < at_threshold.prefix_breaks);

    // After the break the cache is cold whatever the strategy; `trigger=cold` compacts right
    // then, for nothing, and is the cheapest of all.
    let none = run_with("lunch-break", "none", |_| {});
    let cold = run_with("lunch-break", "truncate:trigger=cold+drop", |_| {});
    let after_break = |trace: &[CallRecord]| trace.iter().find(|r| r.request == 12).cloned().expect("request 12");
    let (plain, compacted) = (after_break(&none.trace), after_break(&cold.trace));
    assert_eq!(
        (plain.cache_read_tokens, compacted.cache_read_tokens),
        (0, 0),
        "both cold"
    );
    assert!(
        compacted.compaction.as_ref().is_some_and(|c| c.truncated > 0),
        "it truncates then"
    );
    assert!(compacted.cost_usd <= plain.cost_usd);
    assert!(cost(&cold.metrics) < cost(&cheapest.1));
    assert_eq!(cold.metrics.facts_lost, 0);
}
