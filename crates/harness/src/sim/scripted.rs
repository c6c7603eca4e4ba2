//! The scripted model: plays a scenario's steps, checking before each one that the facts it
//! needs are in the request it actually received (`docs/scenarios.md`).
//!
//! A missing fact whose source can be fetched again costs one `refetch` call (the source calls
//! again, in one assistant message); one that cannot is *lost*, and the step runs with that value
//! replaced by `[unknown]` everywhere in its output, so a loss does not heal itself. It also
//! writes summaries for `summarize`, keeping each fact of the span with a seeded probability.
//! It checks the pairing rule on every request it receives.

use std::collections::BTreeSet;

use ctxbench_compact::message::{Message, Role};
use ctxbench_compact::pairing::check_pairing;
use ctxbench_compact::tokens::Bpe;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use serde_json::{Map, Value, json};

use crate::agent::model::{FactReport, Model, ModelError, ModelReply, ModelRequest, Usage};
use crate::scenario::padding::{mix, padding};
use crate::scenario::{PadStyle, Scenario, Step};
use crate::sim::retention::{KEPT_WHEN_TOLD, kept_untold};
use crate::trace::CallKind;

/// How the ids of a refetch call's tool calls begin (`refetch_<request>_<step>_<k>`): what tells
/// a refetch from an agent turn, in a history and over the wire.
pub const REFETCH_ID_PREFIX: &str = "refetch_";

/// Whether an assistant message is a refetch: it has calls, all with refetch ids.
pub fn is_refetch(message: &Message) -> bool {
    message.has_calls() && message.calls().all(|c| c.id.starts_with(REFETCH_ID_PREFIX))
}

/// What a lost value becomes in the model's output.
pub const UNKNOWN: &str = "[unknown]";

/// A model that follows a scenario's script.
pub struct ScriptedModel<'a> {
    scenario: &'a Scenario,
    seed: u64,
    request: usize,
    step: usize,
    /// Facts already refetched for the current step.
    refetched: BTreeSet<usize>,
    summaries: u64,
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
        }
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
    pub fn place(&mut self, messages: &[Message]) -> Result<usize, String> {
        let Some(at) = messages.iter().rposition(Message::is_request) else {
            return Err("the request has no user message".into());
        };
        // A request sent as blocks of text (Anthropic's, to carry a `cache_control` mark) is the
        // request whose text it holds.
        let same = |r: &usize| {
            let user = &self.scenario.requests[*r].user;
            user.same_content(&messages[at])
                || (messages[at].content_str().is_none() && user.text() == messages[at].text())
        };
        let requests = 0..self.scenario.requests.len();
        let Some(request) = (self.request..requests.end)
            .find(same)
            .or_else(|| requests.clone().find(same))
        else {
            return Err(format!(
                "messages[{at}]: the last user message is not one of the requests of scenario {:?}",
                self.scenario.name
            ));
        };
        let turns: Vec<&Message> = messages[at + 1..]
            .iter()
            .filter(|m| m.role() == Role::Assistant)
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
        let refetch: Vec<usize> = missing
            .iter()
            .copied()
            .filter(|f| self.scenario.facts[*f].refetch.is_some() && !self.refetched.contains(f))
            .collect();
        if !refetch.is_empty() {
            return Ok(self.refetch_reply(&refetch));
        }
        let lost: Vec<&str> = missing.iter().map(|&f| self.scenario.facts[f].value.as_str()).collect();
        let message = step_message(step, &lost);
        let facts = FactReport {
            step: Some((self.request, self.step)),
            needed: step
                .needs
                .iter()
                .map(|&f| self.scenario.facts[f].name.clone())
                .collect(),
            lost: missing.iter().map(|&f| self.scenario.facts[f].name.clone()).collect(),
            refetched: Vec::new(),
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
        let value = self.scenario.facts[fact].value.as_str();
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

    fn summary(&mut self, req: &ModelRequest<'_>) -> ModelReply {
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
        let span: String = messages
            .iter()
            .map(|m| m.text().into_owned())
            .collect::<Vec<_>>()
            .join("\n");
        let span_tokens = Bpe::o200k().text(&span);
        let target = (span_tokens as f64 * ask.ratio).ceil() as u64;
        self.summaries += 1;
        let mut rng = ChaCha8Rng::seed_from_u64(mix(&[self.seed, 0x5u64, self.summaries]));
        let mut kept = Vec::new();
        for fact in &self.scenario.facts {
            // One draw per fact, present or not, so that one fact's presence does not shift another's luck.
            let draw: f64 = rng.random();
            if !span.contains(&fact.value) {
                continue;
            }
            let p = if ask.keep.contains(&fact.kind) {
                KEPT_WHEN_TOLD
            } else {
                kept_untold(fact.kind)
            };
            if draw < p {
                kept.push(fact.value.clone());
            }
        }
        let mut text = if kept.is_empty() {
            "The user and the assistant discussed earlier requests.".to_owned()
        } else {
            format!("Key facts: {}.", kept.join("; "))
        };
        let used = Bpe::o200k().text(&text);
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
        let facts = FactReport::default();
        ModelReply {
            message: Message::new(Role::Assistant, text),
            kind: CallKind::Summary,
            usage: Usage::default(),
            facts,
        }
    }
}

/// The assistant message a step writes, with every lost value replaced by `[unknown]`.
fn step_message(step: &Step, lost: &[&str]) -> Message {
    let hide = |text: &str| lost.iter().fold(text.to_owned(), |t, value| t.replace(value, UNKNOWN));
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
            CallKind::Summary => Ok(self.summary(&request)),
            CallKind::Agent | CallKind::Refetch => self.agent(&request),
        }
    }
}
