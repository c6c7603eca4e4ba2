//! The published results ctxbench is held against (docs/fidelity.md), as directions on the
//! repository's SWE-style scenarios (`scenarios/swe/`: eleven real mini-swe-agent runs, each
//! with the window its raw run just fits in). Each test runs two strategies on every scenario
//! through the library (two seeds, their mean), prints the figures (`cargo test --test it
//! fidelity_published -- --nocapture`) and asserts only which side is cheaper or smaller, never
//! a number: the Complexity Trap's masking cheaper than the raw agent without a cache and its
//! hybrid cheaper than its summary; masking on every call dearer than the raw agent under a
//! cache that reads at a tenth of the input price; OpenHands' condenser dearer than no
//! condenser under Anthropic's cache, though it sends fewer tokens; Anthropic's tool-result
//! clearing sending fewer tokens.

use std::path::Path;
use std::sync::OnceLock;

use ctxbench_harness::billing::cache_mode::CacheMode;
use ctxbench_harness::billing::price::Price;
use ctxbench_harness::run::run_scenario;
use ctxbench_harness::scenario::{Scenario, files_in, load_scenario};
use ctxbench_harness::settings::RunSettings;

/// Seeds each configuration runs (the simulated summarizer fails a call now and then).
const SEEDS: u64 = 2;

/// The SWE-style scenarios, loaded once.
fn swe() -> &'static [Scenario] {
    static SCENARIOS: OnceLock<Vec<Scenario>> = OnceLock::new();
    SCENARIOS.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/swe");
        let files = files_in(&dir).expect("scenarios/swe/");
        assert!(files.len() >= 5, "at least five SWE-style scenarios: {files:?}");
        files
            .iter()
            .map(|f| load_scenario(f, 0).expect("a valid scenario"))
            .collect()
    })
}

/// A price of the table, by name.
fn price(name: &str) -> Price {
    Price::named(name)
        .cloned()
        .unwrap_or_else(|| panic!("{name} is in prices.toml"))
}

/// What one strategy cost on one scenario: the means over the seeds.
#[derive(Clone, Copy, Debug)]
struct Bill {
    cost_usd: f64,
    tokens_sent: f64,
}

/// Runs `strategy` on every SWE scenario at `price` with `cache`; one bill per scenario, in the
/// order of [`swe`]. Every run completes: a run cut short would be cheap for the wrong reason.
fn bills(strategy: &str, price: &Price, cache: &CacheMode) -> Vec<Bill> {
    swe()
        .iter()
        .map(|s| {
            let mut bill = Bill {
                cost_usd: 0.0,
                tokens_sent: 0.0,
            };
            for seed in 0..SEEDS {
                let settings = RunSettings {
                    price: Some(price.clone().into()),
                    cache: cache.clone(),
                    seed,
                    ..RunSettings::new(strategy.parse().expect("a valid strategy"))
                };
                let m = run_scenario(s, &settings, &mut |_| {})
                    .expect("the scenario's window")
                    .metrics;
                assert!(
                    m.completed && m.overflows == 0,
                    "{} with {strategy} completes: {m:?}",
                    s.name
                );
                bill.cost_usd += m.cost_usd.expect("a price") / SEEDS as f64;
                bill.tokens_sent += m.tokens_sent as f64 / SEEDS as f64;
            }
            bill
        })
        .collect()
}

/// Prints two strategies' bills side by side, per scenario and summed, and returns the sums.
fn show(label: &str, (a, a_bills): (&str, &[Bill]), (b, b_bills): (&str, &[Bill])) -> (Bill, Bill) {
    println!("{label}\n  scenario  {a}: cost, tokens sent  |  {b}: cost, tokens sent");
    let mut sums = (
        Bill {
            cost_usd: 0.0,
            tokens_sent: 0.0,
        },
        Bill {
            cost_usd: 0.0,
            tokens_sent: 0.0,
        },
    );
    for ((s, x), y) in swe().iter().zip(a_bills).zip(b_bills) {
        println!(
            "  {}  ${:.4}, {:.0}  |  ${:.4}, {:.0}",
            s.name, x.cost_usd, x.tokens_sent, y.cost_usd, y.tokens_sent
        );
        sums.0.cost_usd += x.cost_usd;
        sums.0.tokens_sent += x.tokens_sent;
        sums.1.cost_usd += y.cost_usd;
        sums.1.tokens_sent += y.tokens_sent;
    }
    println!(
        "  all  ${:.4}, {:.0}  |  ${:.4}, {:.0}  ({a} over {b}: cost {:.2}x, tokens {:.2}x)",
        sums.0.cost_usd,
        sums.0.tokens_sent,
        sums.1.cost_usd,
        sums.1.tokens_sent,
        sums.0.cost_usd / sums.1.cost_usd,
        sums.0.tokens_sent / sums.1.tokens_sent
    );
    sums
}

/// The names of the scenarios where `holds` fails for the pair of bills.
fn failing(a: &[Bill], b: &[Bill], holds: impl Fn(&Bill, &Bill) -> bool) -> Vec<&'static str> {
    swe()
        .iter()
        .zip(a.iter().zip(b))
        .filter(|(_, (x, y))| !holds(x, y))
        .map(|(s, _)| s.name.as_str())
        .collect()
}

/// The Complexity Trap: SWE-agent's observation masking (M=10) costs less than the raw agent
/// when every input token is billed (no cache), on every scenario.
#[test]
fn masking_costs_less_than_the_raw_agent_without_a_cache() {
    let price = price(RunSettings::DEFAULT_PRICE);
    let none = bills("none", &price, &CacheMode::None);
    let mask = bills("swe-agent-mask", &price, &CacheMode::None);
    show("no cache", ("swe-agent-mask", &mask), ("none", &none));
    let dearer = failing(&mask, &none, |m, n| m.cost_usd < n.cost_usd);
    assert!(dearer.is_empty(), "masking is not cheaper than none on {dearer:?}");
}

/// Masking on every call rewrites the history each call, so under a cache that reads at a tenth
/// of the input price it costs more than the raw agent, whose prefix only grows: on every
/// scenario.
#[test]
fn masking_on_every_call_costs_more_than_the_raw_agent_under_a_tenth_price_cache() {
    let price = price("gpt-5.4-mini");
    assert_eq!(
        price.cache_read.0 * 10,
        price.input.0,
        "a cache read at a tenth of the input price"
    );
    let mask_stage = "swe-agent-mask"
        .parse::<ctxbench_compact::compact::Strategy>()
        .expect("a preset");
    assert!(
        mask_stage.to_string().starts_with("swe-agent-mask:m=10"),
        "the preset masks all but 10 results: {mask_stage}"
    );
    let none = bills("none", &price, &price.cache);
    let mask = bills("swe-agent-mask", &price, &price.cache);
    show(
        &format!("{} with its cache {}", price_name(&price), price.cache),
        ("swe-agent-mask", &mask),
        ("none", &none),
    );
    let cheaper = failing(&mask, &none, |m, n| m.cost_usd > n.cost_usd);
    assert!(cheaper.is_empty(), "masking is not dearer than none on {cheaper:?}");
    let fewer = failing(&mask, &none, |m, n| m.tokens_sent < n.tokens_sent);
    assert!(
        fewer.is_empty(),
        "masking sends fewer tokens everywhere: not on {fewer:?}"
    );
}

/// The Complexity Trap's hybrid (its summary with masking) costs less than its summary alone
/// when every input token is billed, on every scenario.
#[test]
fn the_hybrid_costs_less_than_the_summary_alone_without_a_cache() {
    let price = price(RunSettings::DEFAULT_PRICE);
    let summary = bills("swe-agent-summary", &price, &CacheMode::None);
    let hybrid = bills("swe-agent-hybrid", &price, &CacheMode::None);
    show(
        "no cache",
        ("swe-agent-hybrid", &hybrid),
        ("swe-agent-summary", &summary),
    );
    let dearer = failing(&hybrid, &summary, |h, s| h.cost_usd < s.cost_usd);
    assert!(
        dearer.is_empty(),
        "the hybrid is not cheaper than the summary on {dearer:?}"
    );
}

/// OpenHands PR 6597: its summarizing condenser cost more than no condenser, through the cache
/// reads it lost. Under Anthropic's cache the condenser (at the SDK class's `max_size` of 120
/// events, which fires on these runs) sends fewer tokens and costs more, over the suite.
#[test]
fn the_openhands_condenser_sends_fewer_tokens_and_costs_more_under_anthropics_cache() {
    let price = price("claude-sonnet-4-6");
    let none = bills("none", &price, &price.cache);
    let condenser = bills("openhands:max_size=120", &price, &price.cache);
    let (c, n) = show(
        &format!("{} with its cache {}", price_name(&price), price.cache),
        ("openhands:max_size=120", &condenser),
        ("none", &none),
    );
    assert!(
        c.tokens_sent < n.tokens_sent,
        "the condenser sends fewer tokens: {c:?} {n:?}"
    );
    assert!(c.cost_usd > n.cost_usd, "the condenser costs more: {c:?} {n:?}");
}

/// Anthropic's context editing: clearing old tool results (`clear_tool_uses_20250919`, its
/// trigger scaled to the window) sends fewer tokens than the raw agent, on every scenario.
#[test]
fn clearing_old_tool_results_sends_fewer_tokens_than_the_raw_agent() {
    let price = price("claude-sonnet-4-6");
    let none = bills("none", &price, &price.cache);
    let clear = bills("anthropic-clear", &price, &price.cache);
    show(
        &format!("{} with its cache {}", price_name(&price), price.cache),
        ("anthropic-clear", &clear),
        ("none", &none),
    );
    let more = failing(&clear, &none, |c, n| c.tokens_sent < n.tokens_sent);
    assert!(more.is_empty(), "clearing does not send fewer tokens on {more:?}");
}

fn price_name(price: &Price) -> &str {
    price.name.as_deref().unwrap_or("the price")
}
