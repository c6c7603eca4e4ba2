//! The conversation as logged, cut into a scenario's parts: system prompt, preamble, requests
//! (messages before each user message, the user message, the steps) and the calls' results.

use ctxbench_compact::Error;
use ctxbench_compact::message::{Message, Role};
use serde_json::{Map, Value};

use super::facts::FactFinder;
use super::writes::Writes;

/// A logged conversation in a scenario's shape, each part remembering its message's index.
#[derive(Debug, Default)]
pub(crate) struct Walked {
    /// The system prompt, when the first message is a plain `{"role":"system","content":"…"}`.
    pub system: Option<String>,
    /// Messages before the first user message (the system prompt aside).
    pub preamble: Vec<Value>,
    pub requests: Vec<WalkedRequest>,
    /// Whether the tool results carry the tool's `name`.
    pub tool_result_name: bool,
    /// Quirks taken, for the person importing.
    pub notes: Vec<String>,
    /// The index of each step's assistant message, in order: where the model was called.
    pub calls_at: Vec<usize>,
    pub finder: FactFinder,
    /// The paths the model's calls wrote to.
    pub writes: Writes,
}

impl Walked {
    /// Requests a model turn answered (a last user message nothing answered is not one).
    pub(crate) fn answered_requests(&self) -> usize {
        self.requests.iter().filter(|r| !r.steps.is_empty()).count()
    }

    /// The last model turn, `(request, step)`.
    pub(crate) fn last_step(&self) -> Option<(usize, usize)> {
        let (r, request) = self.requests.iter().enumerate().rfind(|(_, r)| !r.steps.is_empty())?;
        Some((r, request.steps.len() - 1))
    }
}

#[derive(Debug)]
pub(crate) struct WalkedRequest {
    /// `(index, message)` of the messages replayed before the user message.
    pub before: Vec<(usize, Value)>,
    pub user_index: usize,
    /// The user message's content and its other fields.
    pub user: Value,
    pub user_extra: Map<String, Value>,
    pub steps: Vec<WalkedStep>,
}

#[derive(Debug)]
pub(crate) struct WalkedStep {
    pub index: usize,
    pub reply: Option<String>,
    pub extra: Map<String, Value>,
    pub calls: Vec<WalkedCall>,
}

#[derive(Debug)]
pub(crate) struct WalkedCall {
    pub id: String,
    pub name: String,
    /// The raw arguments, and their JSON value (the fixture's key).
    pub arguments: String,
    pub args: Value,
    /// The result: its index, its content (`None` for `null`), its place among the step's results.
    pub result: Option<(usize, Option<String>, u64)>,
}

/// Cuts `messages` (pairing already checked) into a scenario's parts.
pub(crate) fn walk(messages: &[Message], source_name: &str) -> Result<Walked, Error> {
    let input = |i: usize, at: &str, msg: &str| Error::Input {
        source_name: source_name.to_owned(),
        at: format!("messages[{i}]{at}"),
        msg: msg.to_owned(),
    };
    let mut w = Walked::default();
    let mut start = 0;
    if let Some(first) = messages.first() {
        let map = first.to_map();
        if first.role() == Role::System && map.len() == 2 && first.content_str().is_some() {
            w.system = first.content_str().map(str::to_owned);
            w.finder.other(&first.text());
            start = 1;
        }
    }
    // Messages waiting for the next request's `before`.
    let mut waiting: Vec<(usize, Value)> = Vec::new();
    // Whether the last request expects another model turn (its last message is not a reply).
    let mut open = false;
    for (i, m) in messages.iter().enumerate().skip(start) {
        let text = m.text();
        if w.requests.is_empty() && m.role() != Role::User {
            match m.role() {
                Role::Tool => w.finder.source(&text, i),
                _ => other(&mut w.finder, m),
            }
            w.preamble.push(m.to_map().into());
            continue;
        }
        match m.role() {
            Role::User => {
                w.finder.source(&text, i);
                // A user message no model turn answered is replayed before this one.
                let unanswered = match w.requests.last() {
                    Some(r) if r.steps.is_empty() => w.requests.pop(),
                    _ => None,
                };
                if let Some(unanswered) = unanswered {
                    let mut user = Map::new();
                    user.insert("role".into(), "user".into());
                    user.insert("content".into(), unanswered.user);
                    user.extend(unanswered.user_extra);
                    let mut before = unanswered.before;
                    before.push((unanswered.user_index, Value::Object(user)));
                    before.append(&mut waiting);
                    waiting = before;
                    w.notes.push(format!(
                        "messages[{}]: a user message no model turn answered is replayed before the next one",
                        unanswered.user_index
                    ));
                }
                let mut user_extra = m.to_map();
                user_extra.shift_remove("role");
                let user = user_extra.shift_remove("content").unwrap_or(Value::Null);
                w.requests.push(WalkedRequest {
                    before: std::mem::take(&mut waiting),
                    user_index: i,
                    user,
                    user_extra,
                    steps: Vec::new(),
                });
                open = true;
            }
            Role::Assistant if open => {
                let step = step(i, m).map_err(|(at, msg)| input(i, &at, &msg))?;
                let r = w.requests.len() - 1;
                let texts: Vec<&str> = std::iter::once(text.as_ref())
                    .chain(step.calls.iter().map(|c| c.arguments.as_str()))
                    .collect();
                let at = (r, w.requests[r].steps.len());
                w.finder.step(at, &texts);
                for call in &step.calls {
                    w.writes.call(&call.name, &call.arguments, i, at);
                }
                open = !step.calls.is_empty();
                w.calls_at.push(i);
                w.requests[r].steps.push(step);
            }
            Role::Assistant if m.has_calls() => {
                return Err(input(
                    i,
                    "",
                    "the assistant calls tools right after its own reply, with no user message between; \
                     ctxbench's loop ends a request at a reply",
                ));
            }
            Role::Tool => {
                w.finder.source(&text, i);
                w.tool_result_name |= m.name().is_some();
                let content = match m.content().as_deref() {
                    None | Some(Value::Null) => None,
                    Some(Value::String(s)) => Some(s.clone()),
                    Some(_) => {
                        return Err(input(
                            i,
                            ".content",
                            "a tool result made of content parts cannot be replayed; give it a string content",
                        ));
                    }
                };
                let id = m.tool_call_id().unwrap_or_default();
                // Pairing is checked, so the step before has this call, unanswered.
                if let Some(step) = w.requests.last_mut().and_then(|r| r.steps.last_mut()) {
                    let answered = step.calls.iter().filter(|c| c.result.is_some()).count() as u64;
                    if let Some(call) = step.calls.iter_mut().find(|c| c.id == id && c.result.is_none()) {
                        call.result = Some((i, content, answered));
                    }
                }
            }
            Role::System | Role::Developer if open => {
                return Err(input(
                    i,
                    "",
                    "an instruction in the middle of a request (before the model's next turn) cannot be replayed; \
                     ctxbench replays such messages only between a reply and the next user message",
                ));
            }
            Role::Assistant | Role::System | Role::Developer => {
                other(&mut w.finder, m);
                if m.role() == Role::Assistant {
                    w.notes.push(format!(
                        "messages[{i}]: an assistant message after a reply is replayed as it is, not as a model turn"
                    ));
                }
                waiting.push((i, m.to_map().into()));
            }
        }
    }
    if let Some((first, _)) = waiting.first() {
        w.notes.push(format!(
            "messages[{first}..]: after the last model turn, never sent to a model; not replayed"
        ));
    }
    Ok(w)
}

/// Text and arguments of a message no step needs facts from.
fn other(finder: &mut FactFinder, m: &Message) {
    finder.other(&m.text());
    for call in m.calls() {
        finder.other(call.arguments);
    }
}

/// An assistant message as a step; errors name the place in the message.
fn step(index: usize, m: &Message) -> Result<WalkedStep, (String, String)> {
    let reply = match m.content().as_deref() {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            return Err((
                ".content".into(),
                "an assistant content made of parts cannot be replayed; give it a string content".into(),
            ));
        }
    };
    let mut calls = Vec::new();
    for call in m.calls() {
        let args = crate::scenario::arguments_key(call.arguments);
        calls.push(WalkedCall {
            id: call.id.to_owned(),
            name: call.name.to_owned(),
            arguments: call.arguments.to_owned(),
            args,
            result: None,
        });
    }
    let mut extra = m.to_map();
    extra.shift_remove("role");
    extra.shift_remove("content");
    if !calls.is_empty() {
        extra.shift_remove("tool_calls");
    }
    Ok(WalkedStep {
        index,
        reply,
        extra,
        calls,
    })
}
