//! `verdict.json`: the verdicts for machines, canonical names, every figure a mean with its
//! interval. The verdicts come first (each scenario's pick and verdict line before its ranking),
//! then the suite's, then what they were measured with: the settings and the profiles.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::labels::Labels;
use super::use_lines::pick_lines;
use super::verdict_line::{trade, verdict_line};
use crate::settings::RunSettings;
use crate::verdict::{Config, Decider, Estimate, Figure, Group, Paired, Settled, Suite, Verdict};

/// What `compare` ran with, for `verdict.json`'s `settings`: every setting.
pub struct Echo<'a> {
    /// Every setting in words: the settings line of `summary.md` and the page.
    pub line: &'a str,
    /// The settings every configuration shares: its strategy (and a target tuning chose) apart.
    pub settings: &'a RunSettings,
    /// `--seeds` as given: `auto`, a count or a range.
    pub seeds: &'a str,
    /// The seeds a configuration ran that could vary.
    pub seeds_run: &'a [u64],
    /// Whether each strategy ran at its best of its tuned variants (false with `--no-tune`).
    pub tuned: bool,
}

/// `verdict.json`'s `settings`: the run settings by the names of `results.csv`'s columns, the
/// seeds, the tuning, and the line in words.
fn echo_json(echo: &Echo<'_>) -> Value {
    let mut value = echo.settings.settings_json();
    if let Some(fields) = value.as_object_mut() {
        fields.insert("seeds".into(), json!(echo.seeds));
        fields.insert("seeds_run".into(), json!(echo.seeds_run));
        fields.insert("tuned".into(), json!(echo.tuned));
        fields.insert("line".into(), json!(echo.line));
    }
    value
}

/// A figure over seeds in `verdict.json`.
fn estimate_json(e: Option<Estimate>) -> Value {
    e.map_or(Value::Null, |e| json!({"mean": e.mean, "low": e.low, "high": e.high}))
}

/// The lines that construct a pick, in Python, Node and Rust.
fn use_json(pick: &Config<'_>) -> Value {
    let lines = pick_lines(pick);
    json!({"python": lines.python, "node": lines.node, "rust": lines.rust})
}

/// `verdict.json`: every scenario's pick and verdict, ranking, front, trade and ties; the suite's
/// pick and leaderboard; then the objective, the settings and the profiles. Canonical names.
pub fn verdict_json(verdicts: &[Verdict<'_>], suite: &Suite, echo: &Echo<'_>) -> Value {
    let objective = &suite.objective;
    let labels = Labels(BTreeMap::new());
    let entry = |g: &Group<'_>, pick: Option<&Config<'_>>| -> Value {
        let c = g.lead();
        let lost = c.lost_in();
        let mut e = json!({
            "strategy": c.strategy(),
            "strategies": g.strategies(),
            "target": c.settings().target,
            "seeds": c.seeds(),
            "cost_usd": estimate_json(c.cost()),
            "tokens_sent": estimate_json(Some(c.mean(Figure::TokensSent))),
            "model_calls": estimate_json(Some(c.mean(Figure::ModelCalls))),
            "facts_lost": estimate_json(Some(c.facts_lost())),
            "facts": c.facts(),
            "lost_in": {"seeds": lost.k, "of": lost.n, "low": lost.low, "high": lost.high},
            "needs_unmet": estimate_json(Some(c.mean(Figure::NeedsUnmet))),
            "completed": c.completed(),
        });
        if let Some(pick) = pick.filter(|p| p.settings() != c.settings() || p.scenario() != c.scenario()) {
            let paired: serde_json::Map<String, Value> = objective
                .keys
                .iter()
                .filter_map(|&k| Some((k.figure().to_owned(), json!(Paired::on(c, pick, objective, k)?))))
                .collect();
            e["against_pick"] = Value::Object(paired);
        }
        if let Some(why) = &g.why {
            e["why"] = json!(why);
        }
        e
    };
    let scenarios: Vec<Value> = verdicts
        .iter()
        .map(|v| {
            json!({
                "scenario": v.scenario,
                "pick": v.pick().map(Config::strategy),
                "verdict": verdict_line(v, objective, &labels),
                "loops": super::verdict_line::loops(v, &labels),
                "use": v.pick().map(use_json),
                "ranked": v.ranked.iter().map(|g| entry(g, v.pick())).collect::<Vec<_>>(),
                "disqualified": v.disqualified.iter().map(|g| entry(g, None)).collect::<Vec<_>>(),
                "front": v.front.iter().map(|&i| v.ranked[i].lead().strategy()).collect::<Vec<_>>(),
                "trade": trade(v, objective, &labels),
                "natives": super::natives::standings(v, objective),
                "ties": v.tie.as_ref().map(|t| json!({
                    "on": t.on.iter().map(|(k, with)| json!({"key": k.figure(), "with": with})).collect::<Vec<_>>(),
                    "decided_by": match t.decided {
                        Decider::Key(k) => k.figure(),
                        Decider::Simpler => "simpler strategy",
                        Decider::Name => "canonical name",
                    },
                })),
                "discriminates": v.discriminates,
                "sensitivity": v.sensitivity.as_ref().map(|s| json!({
                    "prices": s.prices,
                    "holds": s.holds,
                    "of": s.of,
                    "summarizer_profiles": s.profiles,
                    "summarizer_profiles_hold": s.profiles_hold,
                    "flips": s.flips,
                    "seed_win_rate": s.seed_win_rate,
                    "seeds": s.seeds,
                    "one_draw": s.one_draw,
                    "fragile": s.fragile,
                })),
            })
        })
        .collect();
    let leaderboard: Vec<Value> = suite
        .leaderboard
        .iter()
        .map(|s| {
            json!({
                "strategy": s.strategy,
                "alike": s.alike,
                "qualified": s.qualified,
                "scenarios": s.scenarios,
                "over": s.over,
                "facts_lost": s.facts_lost,
                "regret": {"median": s.median_regret, "worst": s.worst_regret},
                "first": s.first,
            })
        })
        .collect();
    let pick = suite.leaderboard.first().filter(|_| suite.pick.is_some());
    let rows = verdicts
        .iter()
        .flat_map(|v| v.ranked.iter().chain(&v.disqualified))
        .flat_map(|g| &g.configs)
        .map(Config::first_row);
    json!({
        "scenarios": scenarios,
        "suite": {
            "pick": suite.pick,
            "why": suite.why,
            "run": suite.run.as_ref().map(|(settings, on, of)| {
                let lines = super::use_lines::use_lines(settings, "WINDOW");
                json!({
                    "strategy": settings.strategy.to_string(),
                    "threshold": settings.threshold,
                    "target": settings.target,
                    "chosen_on": on,
                    "of": of,
                    "use": {
                        "python": lines.python,
                        "node": lines.node,
                        "rust": lines.rust,
                        "window": "WINDOW: your model's context window",
                    },
                })
            }),
            "leaderboard": leaderboard,
            "ties": suite.tie.as_ref().map(|(with, settled)| json!({
                "with": with,
                "decided_by": match settled {
                    Settled::Key(_) => "worst regret",
                    Settled::Simpler => "simpler strategy",
                    Settled::Name => "canonical name",
                },
            })),
            "coverage": pick.map(|s| s.qualified),
            "regret": pick.map(|s| json!({"median": s.median_regret, "worst": s.worst_regret})),
            "not_discriminating": suite.not_discriminating,
        },
        "schema_version": 3,
        "objective": objective.figures(),
        "fact_cost_usd": objective.fact_cost,
        "tie": objective.tie,
        "settings": echo_json(echo),
        "profiles": super::assumptions::profiles_json(rows),
    })
}
