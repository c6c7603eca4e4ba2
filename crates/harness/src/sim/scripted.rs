//! The scripted model: plays a scenario's steps, checking before each one that the facts it
//! needs are in the request it actually received (`docs/scenarios.md`).
//!
//! A missing fact whose source can be fetched again costs one `refetch` call (the source calls
//! again, in one assistant message); one that cannot is *lost*, and the step runs with that value
//! replaced by `[unknown]` everywhere in its output, so a loss does not heal itself. It also
//! writes summaries for `summarize`, keeping each fact of the span with a seeded probability.
//! It checks the pairing rule on every request it receives.

use std::collections::{BTreeMap, BTreeSet};

use ctxbench_compact::compact::is_summary;
use ctxbench_compact::message::{Message, Role};
use ctxbench_compact::pairing::check_pairing;
use ctxbench_compact::tokens::Bpe;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use serde_json::{Map, Value, json};

use crate::agent::model::{FactReport, Model, ModelError, ModelReply, ModelRequest, Usage};
use crate::scenario::padding::{mix, padding};
use crate::scenario::{PadStyle, Scenario, Step};
use crate::sim::profile::{Behaviour, Summarizer};
use crate::trace::CallKind;
use ctxbench_compact::message::SUMMARY_PREFIX;

/// How the ids of a refetch call's tool calls begin (`refetch_<request>_<step>_<k>`): what tells
/// a refetch from an agent turn, in a history and over the wire.
pub const REFETCH_ID_PREFIX: &str = "refetch_";

/// Whether an assistant message is a refetch: it has calls, all with refetch ids.
pub fn is_refetch(message: &Message) -> bool {
    message.has_calls() && message.calls().all(|c| c.id.starts_with(REFETCH_ID_PREFIX))
}

/// What a lost value becomes in the model's output.
pub const UNKNOWN: &str = "[unknown]";

/// Why a history has no place in the script ([`ScriptedModel::place`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlaceError {
    /// No user message at all.
    #[error("the request has no user message")]
    NoUserMessage,
    /// The last user message is none of the scenario's requests.
    #[error("messages[{at}]: the last user message is not one of the requests of scenario {scenario:?}")]
    NotARequest {
        /// The message's index in the history.
        at: usize,
        /// The scenario's name.
        scenario: String,
    },
}

/// A model that follows a scenario's script.
pub struct ScriptedModel<'a> {
    scenario: &'a Scenario,
    seed: u64,
    request: usize,
    step: usize,
    /// Facts already refetched for the current step.
    refetched: BTreeSet<usize>,
    summaries: u64,
    summarizer: Summarizer,
    behaviour: Behaviour,
    /// Facts a summary wrote altered, with the text it wrote.
    distorted: BTreeMap<usize, String>,
}

impl<'a> ScriptedModel<'a> {
    /// A model at the start of the scenario.
    pub fn new(scenario: &'a Scenario, seed: u64) -> ScriptedModel<'a> {
        ScriptedModel {
            scenario,
            seed,
            request: 0,
            step: 0,
            refetched: BTreeSet::new(),
            summaries: 0,
            summarizer: Summarizer::default(),
            behaviour: Behaviour::default(),
            distorted: BTreeMap::new(),
        }
    }

    /// The same model with these profiles for its summaries and for a missing fact.
    pub fn with_profiles(mut self, summarizer: &Summarizer, behaviour: &Behaviour) -> ScriptedModel<'a> {
        self.summarizer = summarizer.clone();
        self.behaviour = behaviour.clone();
        self
    }

    /// The step it will play next, as `(request, step)`.
    pub fn position(&self) -> (usize, usize) {
        (self.request, self.step)
    }

    /// Finds where a history stands in the script, for a caller that keeps no state between
    /// calls (`ctxbench serve`): the request is the one whose user message is the history's last
    /// (the first such at or after the current one), the step is the number of assistant turns
    /// after it that were not refetches, and the facts already refetched for that step are those
    /// whose source the refetches after the last step called. Returns the request.
    pub fn place(&mut self, messages: &[Message]) -> Result<usize, PlaceError> {
        let Some(at) = messages.iter().rposition(Message::is_request) else {
            return Err(PlaceError::NoUserMessage);
        };
        // A request sent as blocks of text (Anthropic's, to carry a `cache_control` mark) is the
        // request whose text it holds.
        let same = |r: &usize| {
            let user = &self.scenario.requests[*r].user;
            user.same_content(&messages[at])
                || (messages[at].content_str().is_none() && user.text() == messages[at].text())
        };
        // Failing that, the request whose text it contains, beside what a coding agent adds of
        // its own (Claude Code's `<system-reminder>` blocks).
        let within = |r: &usize| {
            let user = self.scenario.requests[*r].user.text();
            !user.is_empty() && messages[at].text().contains(user.as_ref())
        };
        let requests = 0..self.scenario.requests.len();
        let find = |matches: &dyn Fn(&usize) -> bool| {
            (self.request..requests.end)
                .find(|r| matches(r))
                .or_else(|| requests.clone().find(|r| matches(r)))
        };
        let Some(request) = find(&same).or_else(|| find(&within)) else {
            return Err(PlaceError::NotARequest {
                at,
                scenario: self.scenario.name.clone(),
            });
        };
        // A compaction the server gave back (its block or item) is no turn of the script.
        let turns: Vec<&Message> = messages[at + 1..]
            .iter()
            .filter(|m| m.role() == Role::Assistant && !is_summary(m))
            .collect();
        let step = turns.iter().filter(|m| !is_refetch(m)).count();
        let since_step = turns.iter().rposition(|m| !is_refetch(m)).map_or(0, |i| i + 1);
        let fetched: Vec<(String, String)> = turns[since_step..]
            .iter()
            .flat_map(|m| m.calls())
            .map(|c| (c.name.to_owned(), c.arguments.to_owned()))
            .collect();
        self.request = request;
        self.step = step;
        self.refetched = self.scenario.requests[request]
            .steps
            .get(step)
            .map(|s| {
                s.needs
                    .iter()
                    .copied()
                    .filter(|&f| {
                        self.scenario.facts[f]
                            .refetch
                            .as_ref()
                            .is_some_and(|src| fetched.contains(src))
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(request)
    }

    fn agent(&mut self, req: &ModelRequest<'_>) -> Result<ModelReply, ModelError> {
        if req.request != self.request {
            self.request = req.request;
            self.step = 0;
            self.refetched.clear();
        }
        let request = self
            .scenario
            .requests
            .get(self.request)
            .ok_or(ModelError::ScriptEnded)?;
        let step = request.steps.get(self.step).ok_or(ModelError::ScriptEnded)?;
        let missing: Vec<usize> = step.needs.iter().copied().filter(|&f| !self.present(f, req)).collect();
        // What the model makes of each missing fact: an altered value it reads as the fact
        // (wrong); else, when it notices, a fetch again where the tool can run; else a guess
        // (wrong) or an answer without it (lost). Draws per request, step and fact.
        let (mut refetch, mut lost, mut wrong, mut stale) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for &f in &missing {
            let fact = &self.scenario.facts[f];
            // The value it replaced is there: the model takes it for the fact, and nothing tells
            // it otherwise.
            if let Some(old) = fact.supersedes.filter(|&o| self.present(o, req)) {
                stale.push((f, old));
                continue;
            }
            let mut rng = ChaCha8Rng::seed_from_u64(mix(&[
                self.seed,
                0x7u64,
                self.request as u64,
                self.step as u64,
                f as u64,
            ]));
            let model = &self.behaviour.0;
            let (notice, guess) = (draw(&mut rng, model.notice), draw(&mut rng, model.guess));
            if self.distorted.get(&f).is_some_and(|d| self.text_present(d, req)) {
                wrong.push(f);
            } else if notice && fact.refetch.is_some() && !self.refetched.contains(&f) {
                refetch.push(f);
            } else if !notice && guess {
                wrong.push(f);
            } else {
                lost.push(f);
            }
        }
        if !refetch.is_empty() {
            return Ok(self.refetch_reply(&refetch));
        }
        let facts_of = &self.scenario.facts;
        let mut swaps: Vec<(&str, &str)> = lost
            .iter()
            .chain(&wrong)
            .map(|&f| (facts_of[f].value.as_str(), UNKNOWN))
            .collect();
        swaps.extend(
            stale
                .iter()
                .map(|&(f, o)| (facts_of[f].value.as_str(), facts_of[o].value.as_str())),
        );
        let message = step_message(step, &swaps);
        let stale: Vec<usize> = stale.into_iter().map(|(f, _)| f).collect();
        let names = |fs: &[usize]| -> Vec<String> { fs.iter().map(|&f| facts_of[f].name.clone()).collect() };
        let facts = FactReport {
            step: Some((self.request, self.step)),
            needed: names(&step.needs),
            lost: names(&lost),
            wrong: names(&wrong),
            stale: names(&stale),
            refetched: Vec::new(),
            summary: None,
        };
        self.step += 1;
        self.refetched.clear();
        Ok(ModelReply {
            message,
            kind: CallKind::Agent,
            usage: Usage::default(),
            facts,
        })
    }

    /// Whether a fact's value is in the request: system prompt, any content, any arguments.
    fn present(&self, fact: usize, req: &ModelRequest<'_>) -> bool {
        self.text_present(&self.scenario.facts[fact].value, req)
    }

    /// Whether `value` is in the request: system prompt, any content, any arguments.
    fn text_present(&self, value: &str, req: &ModelRequest<'_>) -> bool {
        req.system.is_some_and(|s| s.text().contains(value))
            || req
                .messages
                .iter()
                .any(|m| m.text().contains(value) || m.calls().any(|c| c.arguments.contains(value)))
    }

    fn refetch_reply(&mut self, facts: &[usize]) -> ModelReply {
        let mut calls: Vec<(String, String)> = Vec::new();
        for &f in facts {
            self.refetched.insert(f);
            if let Some(source) = &self.scenario.facts[f].refetch {
                if !calls.contains(source) {
                    calls.push(source.clone());
                }
            }
        }
        let tool_calls: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(k, (name, arguments))| {
                let id = format!("{REFETCH_ID_PREFIX}{}_{}_{k}", self.request + 1, self.step + 1);
                json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
            })
            .collect();
        let message = Message::from_value(json!({"role": "assistant", "content": null, "tool_calls": tool_calls}))
            .unwrap_or_else(|_| Message::new(Role::Assistant, ""));
        let facts = FactReport {
            step: Some((self.request, self.step)),
            refetched: facts.iter().map(|&f| self.scenario.facts[f].name.clone()).collect(),
            ..FactReport::default()
        };
        ModelReply {
            message,
            kind: CallKind::Refetch,
            usage: Usage::default(),
            facts,
        }
    }

    /// A summary of the span, as the summarizer profile writes it: its length from the span
    /// (earlier summaries in it repeated by `length.carry`), each fact of the span kept by the
    /// profile's curve at the summary's size ratio and sometimes altered; or nothing usable, by
    /// `fail`. Draws come from the seed and the summary's number.
    fn summary(&mut self, req: &ModelRequest<'_>) -> Result<ModelReply, ModelError> {
        let ask = req.summary.cloned().unwrap_or(ctxbench_compact::compact::SummaryAsk {
            keep: vec![],
            ratio: 0.1,
            span: None,
        });
        // An aligned request carries the history before the span and an instruction after it:
        // the summary is of the span alone.
        let messages = match &ask.span {
            Some(span) if span.end <= req.messages.len() => &req.messages[span.clone()],
            _ => req.messages,
        };
        let texts: Vec<String> = messages.iter().map(|m| m.text().into_owned()).collect();
        let span = texts.join("\n");
        let o200k = Bpe::o200k();
        let earlier: u64 = texts
            .iter()
            .filter(|t| t.starts_with(SUMMARY_PREFIX))
            .map(|t| o200k.text(t))
            .sum();
        let span_tokens = o200k.text(&span);
        // What the summarizer reads of the span: its texts and the arguments of its calls (a
        // file the agent wrote is named there only), as a fact is present in a request.
        let read = {
            let mut read = span.clone();
            for call in messages.iter().flat_map(|m| m.calls()) {
                read.push('\n');
                read.push_str(call.arguments);
            }
            read
        };
        let profile = self.summarizer.0.clone();
        let asked = ask.ratio * span_tokens.saturating_sub(earlier) as f64 + profile.length.carry * earlier as f64;
        let target = (asked * profile.length.scale).ceil() as u64;
        let ratio = target as f64 / span_tokens.max(1) as f64;
        self.summaries += 1;
        let mut rng = ChaCha8Rng::seed_from_u64(mix(&[self.seed, 0x5u64, self.summaries]));
        if draw(&mut rng, profile.fail) {
            return Err(ModelError::Other(format!(
                "the summary came back unusable (summarizer profile {}: fail {})",
                profile.name, profile.fail
            )));
        }
        let mut kept = Vec::new();
        let mut cycle = crate::trace::SummaryCycle {
            cycle: self.summaries,
            ratio: (ratio * 1e6).round() / 1e6,
            span_tokens,
            ..Default::default()
        };
        for (f, fact) in self.scenario.facts.iter().enumerate() {
            // Draws per fact, present or not, so that one fact's presence does not shift another's luck.
            let (keep, alter): (f64, f64) = (rng.random(), rng.random());
            let altered = self.distorted.get(&f).filter(|d| read.contains(d.as_str())).cloned();
            if !read.contains(&fact.value) && altered.is_none() {
                continue;
            }
            if keep >= profile.keeps(fact.kind, ask.keep.contains(&fact.kind), ratio) {
                cycle.dropped.push(fact.name.clone());
                continue;
            }
            cycle.kept.push(fact.name.clone());
            // An altered value stays altered; a true one is altered by `distort`.
            let written = match altered {
                Some(d) => d,
                None if alter < profile.distort => {
                    let d = distort(&fact.value);
                    self.distorted.insert(f, d.clone());
                    d
                }
                None => fact.value.clone(),
            };
            kept.push(written);
        }
        let mut text = if kept.is_empty() {
            "The user and the assistant discussed earlier requests.".to_owned()
        } else {
            format!("Key facts: {}.", kept.join("; "))
        };
        let used = o200k.text(&text);
        if target > used {
            let mut body = padding(
                PadStyle::Prose,
                target - used,
                mix(&[self.seed, 0x6u64, self.summaries]),
            );
            // The filler must not bring back a fact the summary dropped.
            for fact in &self.scenario.facts {
                body = body.replace(&fact.value, "");
            }
            text.push(' ');
            text.push_str(&body);
        }
        Ok(ModelReply {
            message: Message::new(Role::Assistant, text),
            kind: CallKind::Summary,
            usage: Usage::default(),
            facts: FactReport {
                summary: Some(cycle),
                ..FactReport::default()
            },
        })
    }
}

/// A draw that comes out true with probability `p`; none is made when `p` is 0 or 1, so that a
/// certain profile leaves the seed's stream as it was.
fn draw(rng: &mut ChaCha8Rng, p: f64) -> bool {
    if p <= 0.0 {
        false
    } else if p >= 1.0 {
        true
    } else {
        rng.random::<f64>() < p
    }
}

/// A value as a summary might garble it: its last letter or digit changed (`A-1234` → `A-1235`).
fn distort(value: &str) -> String {
    let mut chars: Vec<char> = value.chars().collect();
    if let Some(c) = chars.iter_mut().rev().find(|c| c.is_ascii_alphanumeric()) {
        *c = match *c {
            '9' => '0',
            'z' => 'a',
            'Z' => 'A',
            c => (c as u8 + 1) as char,
        };
        chars.into_iter().collect()
    } else {
        format!("{value}?")
    }
}

/// The assistant message a step writes, each `(value, instead)` swapped: a lost value for
/// `[unknown]`, a stale one for the value it superseded.
fn step_message(step: &Step, swaps: &[(&str, &str)]) -> Message {
    let hide = |text: &str| {
        swaps
            .iter()
            .fold(text.to_owned(), |t, (value, instead)| t.replace(value, instead))
    };
    let mut body = Map::new();
    body.insert("role".into(), Value::String("assistant".into()));
    body.insert(
        "content".into(),
        step.content.as_deref().map_or(Value::Null, |c| Value::String(hide(c))),
    );
    if !step.calls.is_empty() {
        let calls: Vec<Value> = step
            .calls
            .iter()
            .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": hide(&c.arguments)}}))
            .collect();
        body.insert("tool_calls".into(), Value::Array(calls));
    }
    for (k, v) in &step.extra {
        body.insert(k.clone(), v.clone());
    }
    Message::from_value(Value::Object(body)).unwrap_or_else(|_| Message::new(Role::Assistant, ""))
}

impl Model for ScriptedModel<'_> {
    fn complete(&mut self, request: ModelRequest<'_>) -> Result<ModelReply, ModelError> {
        check_pairing(request.messages).map_err(ModelError::Pairing)?;
        match request.kind {
            CallKind::Summary => self.summary(&request),
            CallKind::Agent | CallKind::Refetch => self.agent(&request),
        }
    }
}
