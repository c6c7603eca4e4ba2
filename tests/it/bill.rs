//! The real bill's invariants, as properties: every call's input splits exactly into uncached,
//! cache read and cache write; a read never exceeds what the request shares with a request still
//! alive in the cache; without a cache, cost is tokens × the input price plus completion × the
//! output price; and a target equal to the threshold changes nothing.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use ctxbench_compact::tokens::TokenCounter;
use ctxbench_compact::{CounterKind, Message, Role};
use ctxbench_harness::agent::model::{FactReport, Model, ModelError, ModelReply, ModelRequest, Usage};
use ctxbench_harness::billing::cache_mode::CacheMode;
use ctxbench_harness::billing::price::{Price, Rate};
use ctxbench_harness::billing::segments::Segments;
use ctxbench_harness::run::run_scenario;
use ctxbench_harness::scenario::{Scenario, files_in, load_scenario};
use ctxbench_harness::settings::{RunSettings, STANDARD_STRATEGIES};
use ctxbench_harness::sim::latency::Latency;
use ctxbench_harness::sim::provider::Overflow;
use ctxbench_harness::sim::provider::{Provider, Server};
use ctxbench_harness::trace::CallKind;
use proptest::prelude::*;

use crate::generate::conversation;

/// A model that always answers the same short text.
struct Fixed;

impl Model for Fixed {
    fn complete(&mut self, _: ModelRequest<'_>) -> Result<ModelReply, ModelError> {
        Ok(ModelReply {
            message: Message::new(Role::Assistant, "Done: order 1042 is on its way."),
            kind: CallKind::Agent,
            usage: Usage::default(),
            facts: FactReport::default(),
        })
    }
}

/// Caches small enough that the generated histories hit them, in every mode.
fn cache_mode() -> impl Strategy<Value = CacheMode> {
    prop_oneof![
        Just("prefix:block=1,min=0,ttl=60,output=false"),
        Just("prefix:block=16,min=32,ttl=60,output=true"),
        Just("prefix:block=128,min=1024,ttl=300,output=false"),
        Just("breakpoints:min=0,ttl=60,lookback=3,write=1.25"),
        Just("breakpoints:min=64,ttl=600,lookback=20,write=2"),
    ]
    .prop_map(|spec| CacheMode::parse(spec).expect("a valid mode"))
}

/// One call of a sequence: how much of the history it sends, whether it clears a result first
/// (a compaction), and how long the user waited before it.
#[derive(Clone, Debug)]
struct Call {
    upto: prop::sample::Index,
    rewrite: Option<prop::sample::Index>,
    wait_s: f64,
}

fn calls() -> impl Strategy<Value = Vec<Call>> {
    let call = (
        any::<prop::sample::Index>(),
        prop::option::weighted(0.3, any::<prop::sample::Index>()),
        prop_oneof![4 => Just(1.0), 1 => 0.0..900.0f64],
    )
        .prop_map(|(upto, rewrite, wait_s)| Call { upto, rewrite, wait_s });
    prop::collection::vec(call, 1..12)
}

/// A request the server accepted, as the cache could have stored it.
struct Accepted {
    stored: Segments,
    ends_s: f64,
}

/// What one generated sequence of calls read from the cache, in tokens.
fn replay_calls(c: &ctxbench_compact::Conversation, mode: CacheMode, calls: &[Call]) -> Result<u64, TestCaseError> {
    let counter: Arc<dyn TokenCounter> = CounterKind::O200k.counter();
    let ttl = mode.ttl_s().expect("a cache") as f64;
    let output = matches!(mode, CacheMode::Prefix { output: true, .. });
    let server = Server {
        window: u64::MAX,
        overflow: Overflow::Reject,
        cache: mode,
        latency: Latency::default(),
    };
    let mut provider = Provider::new(Fixed, counter.clone(), server);
    let mut history: Vec<Message> = c.messages.clone();
    let mut accepted: Vec<Accepted> = Vec::new();
    let mut now_s = 0.0;
    let mut read = 0;
    for call in calls {
        if let Some(k) = &call.rewrite {
            // A compaction rewrites one message in place.
            let k = k.index(history.len().max(1));
            if let Some(m) = history.get_mut(k) {
                m.set_content("[cleared]".to_owned());
            }
        }
        let messages = &history[..(1 + call.upto.index(history.len().max(1))).min(history.len())];
        now_s += call.wait_s;
        let request = ModelRequest {
            kind: CallKind::Agent,
            system: c.system.as_ref(),
            messages,
            tools: &c.tools,
            request: 0,
            summary: None,
            at_s: now_s,
            marks: None,
        };
        let Ok(reply) = provider.complete(request) else {
            continue; // A history cut between a call and its result: rejected, nothing stored.
        };
        let u = &reply.usage;
        prop_assert!(
            u.cache_read_tokens + u.cache_write_tokens <= u.prompt_tokens,
            "read {} + write {} over the {} billed",
            u.cache_read_tokens,
            u.cache_write_tokens,
            u.prompt_tokens
        );
        let segments = Segments::of(counter.as_ref(), c.system.as_ref(), messages, &c.tools);
        // Whatever is alive was stored with a request that ended at most `ttl` ago.
        let bound = accepted
            .iter()
            .filter(|a| a.ends_s + ttl >= now_s)
            .map(|a| match segments.shared_with(&a.stored) {
                0 => 0,
                shared => segments.tokens(shared - 1),
            })
            .max()
            .unwrap_or(0);
        prop_assert!(
            u.cache_read_tokens <= bound,
            "read {} over the {} shared with a live request",
            u.cache_read_tokens,
            bound
        );
        read += u.cache_read_tokens;
        let stored = if output {
            segments.with(&reply.message, counter.as_ref())
        } else {
            segments
        };
        now_s += u.latency_s;
        accepted.push(Accepted { stored, ends_s: now_s });
    }
    Ok(read)
}

#[test]
fn every_call_splits_its_input_and_reads_only_what_a_live_request_shares() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(1000));
    let read = std::cell::Cell::new(0u64);
    runner
        .run(&(conversation(), cache_mode(), calls()), |(c, mode, calls)| {
            read.set(read.get() + replay_calls(&c, mode, &calls)?);
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        read.get() > 0,
        "the generated calls read from the cache: the bound was put to the test"
    );
}

fn bundled() -> &'static [Scenario] {
    static SCENARIOS: OnceLock<Vec<Scenario>> = OnceLock::new();
    SCENARIOS.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        files_in(&dir)
            .expect("scenarios/")
            .iter()
            .map(|f| load_scenario(f, 0).unwrap_or_else(|e| panic!("{e}")))
            // The longest one (60 calls under some strategies) is left to the other tests.
            .filter(|s| s.name != "coding-agent")
            .collect()
    })
}

fn run_case(scenario: prop::sample::Index, strategy: prop::sample::Index) -> (&'static Scenario, RunSettings) {
    let scenarios = bundled();
    let s = &scenarios[scenario.index(scenarios.len())];
    let strategy = STANDARD_STRATEGIES[strategy.index(STANDARD_STRATEGIES.len())];
    (s, RunSettings::new(strategy.parse().expect("a standard strategy")))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn without_a_cache_cost_is_tokens_times_the_input_price_plus_completion_times_the_output(
        scenario in any::<prop::sample::Index>(),
        strategy in any::<prop::sample::Index>(),
        input in 0u64..20_000_000,
        output in 0u64..80_000_000,
    ) {
        let (s, settings) = run_case(scenario, strategy);
        let price = Price {
            name: None,
            input: Rate(input),
            cache_read: Rate(input / 10),
            cache_write: None,
            output: Rate(output),
            cache: CacheMode::None,
            source: None,
        };
        let settings = RunSettings { price: Some(price.into()), cache: CacheMode::None, ..settings };
        let m = run_scenario(s, &settings, &mut |_| {}).expect("a window").metrics;
        prop_assert_eq!(m.cache_read_tokens + m.cache_write_tokens, 0);
        prop_assert_eq!(m.uncached_tokens, m.tokens_sent);
        let picodollars = u128::from(m.tokens_sent) * u128::from(input) + u128::from(m.tokens_received) * u128::from(output);
        prop_assert_eq!(m.cost_usd, Some(picodollars as f64 / 1e12));
    }

    #[test]
    fn a_target_at_the_threshold_changes_nothing(
        scenario in any::<prop::sample::Index>(),
        strategy in any::<prop::sample::Index>(),
        twentieths in 8u32..=20,
    ) {
        let (s, settings) = run_case(scenario, strategy);
        let threshold = f64::from(twentieths) / 20.0;
        let without = RunSettings { threshold, target: None, ..settings };
        let with = RunSettings { target: Some(threshold), ..without.clone() };
        let a = run_scenario(s, &without, &mut |_| {}).expect("a window");
        let b = run_scenario(s, &with, &mut |_| {}).expect("a window");
        prop_assert_eq!(a.trace, b.trace);
        prop_assert_eq!(a.metrics, b.metrics);
    }
}

#[test]
fn an_aligned_summary_reads_the_agents_cache_and_a_fixed_one_does_not() {
    let s = bundled().iter().find(|s| s.name == "lunch-break").expect("bundled");
    let summaries = |strategy: &str| {
        let settings = RunSettings::new(strategy.parse().expect("valid"));
        let trace = run_scenario(s, &settings, &mut |_| {}).expect("a window").trace;
        let mut pairs = Vec::new();
        for (k, r) in trace.iter().enumerate() {
            if r.kind == CallKind::Summary {
                let agent = trace[..k]
                    .iter()
                    .rev()
                    .find(|p| p.kind == CallKind::Agent)
                    .expect("an agent call first");
                pairs.push((r.clone(), agent.true_tokens));
            }
        }
        assert!(!pairs.is_empty(), "{strategy} summarizes on this scenario");
        pairs
    };
    for (summary, _) in summaries("summarize") {
        // Its own system prompt and no tools: nothing the agent's calls stored.
        assert_eq!(summary.cache_read_tokens, 0, "{summary:?}");
    }
    let aligned = summaries("summarize:aligned=true");
    for (summary, before) in &aligned {
        // The agent's system prompt, tools and history up to the span's end: a prefix of the
        // agent call before it, read in whole 128-token blocks from 1,024 on; all of it but the
        // instruction (under 100 tokens) and the last block's remainder.
        let read = summary.cache_read_tokens;
        assert!(read % 128 == 0 && read <= *before, "{summary:?}");
        if summary.true_tokens >= 1024 + 128 + 100 {
            assert!(read + 128 + 100 >= summary.true_tokens, "{summary:?}");
        } else {
            assert!(read == 0 || read >= 1024, "{summary:?}");
        }
    }
    assert!(
        aligned.iter().any(|(s, _)| s.cache_read_tokens > 0),
        "some summary reads the cache"
    );
}

/// The scripted model, with every summary call failing as a provider's outage would.
struct FailingSummaries<'a>(ctxbench_harness::sim::scripted::ScriptedModel<'a>);

impl Model for FailingSummaries<'_> {
    fn complete(&mut self, request: ModelRequest<'_>) -> Result<ModelReply, ModelError> {
        match request.kind {
            CallKind::Summary => Err(ModelError::Other("the summarizer is down".into())),
            _ => self.0.complete(request),
        }
    }
}

#[test]
fn a_failed_summary_is_counted_and_never_committed() {
    let s = bundled().iter().find(|s| s.name == "lunch-break").expect("bundled");
    let settings = RunSettings::new("summarize".parse().expect("valid"));
    let model = FailingSummaries(ctxbench_harness::sim::scripted::ScriptedModel::new(s, settings.seed));
    let failed = ctxbench_harness::run::run_with_model(s, &settings, model, &mut |_| {}).expect("a window");
    assert!(failed.metrics.summarizer_calls > 0);
    assert_eq!(failed.metrics.compaction_failures, failed.metrics.summarizer_calls);
    assert_eq!(failed.metrics.messages_dropped, 0, "no span was replaced");
    // With every summary failed, the history is the one `none` sends, call by call.
    let none = run_scenario(s, &RunSettings::new("none".parse().expect("valid")), &mut |_| {}).expect("a window");
    let sizes = |trace: &[ctxbench_harness::trace::CallRecord]| -> Vec<u64> {
        trace
            .iter()
            .filter(|r| r.kind == CallKind::Agent)
            .map(|r| r.true_tokens)
            .collect()
    };
    assert_eq!(sizes(&failed.trace), sizes(&none.trace));
    // And a summary that works is not a failure.
    let fine = run_scenario(s, &settings, &mut |_| {}).expect("a window").metrics;
    assert!(fine.summarizer_calls > 0 && fine.compaction_failures == 0);
}
