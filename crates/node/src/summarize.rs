//! `summarize`: the caller's function as the library's [`Summarizer`]. The package hands it the
//! summary request as an object (`system`, `messages`, `tools`, `keep`, `ratio`, `span`,
//! `estimatedTokens`, `limit`, `attempt`: the Python package's dict, camelCased) and gets back
//! the summary's text, or nothing when the call failed (the history then stays as it was).
//!
//! Between the package and the addon a request is JSON text, and a reply a string tagged by its
//! first character: `s` and the summary's text, `n` for no summary, `x` when the function threw
//! or returned what is not text (the package keeps the error and throws it once the compaction
//! returns; no other summary is asked for). Two ways to call it: [`Inline`] calls a JavaScript
//! function on the JavaScript thread (`compact`); [`Remote`] asks from a worker thread through a
//! threadsafe function and waits for the package's [`answer`] (`compactAsync`, whose function
//! may return a promise).

use std::collections::HashMap;
use std::sync::mpsc::{Sender, channel};
use std::sync::{Mutex, PoisonError};

use ctxbench_compact::compact::{Summarizer, SummaryRequest};
use napi::bindgen_prelude::Function;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Status, bindgen_prelude::Unknown};
use napi_derive::napi;
use serde_json::{Value, json};

/// The threadsafe function a worker thread talks to the package through: called with one string
/// (an event: `q…` a question, `d…` done, `e…` an error; `compactor.rs`).
pub type Events = ThreadsafeFunction<String, Unknown<'static>, String, Status, false>;

/// The summary request as the package's JSON text.
pub fn request_json(request: &SummaryRequest) -> String {
    let system = request.system.as_ref().and_then(|m| m.content_str().map(str::to_owned));
    let messages: Vec<Value> = request.messages.iter().map(|m| m.clone().into_value()).collect();
    let keep: Vec<&str> = request.ask.keep.iter().map(|k| k.as_str()).collect();
    json!({
        "system": system,
        "messages": messages,
        "tools": request.tools.as_slice(),
        "keep": keep,
        "ratio": request.ask.ratio,
        "span": request.ask.span.as_ref().map(|r| [r.start, r.end]),
        "estimatedTokens": request.estimated_tokens,
        "limit": request.limit,
        "attempt": request.attempt,
    })
    .to_string()
}

/// What a tagged reply says: the summary, or none; `stop` when the package holds an error.
fn reply_of(reply: &str) -> (Option<String>, bool) {
    match reply.split_at_checked(1) {
        Some(("s", text)) => (Some(text.to_owned()), false),
        Some(("n", _)) => (None, false),
        _ => (None, true),
    }
}

/// Summary calls made, and whether the package holds an error that ends the compaction.
#[derive(Default)]
pub struct Calls {
    /// Summary calls made.
    pub made: usize,
    /// The function threw (or returned what is not text): no more calls.
    pub stopped: bool,
}

impl Calls {
    fn ask(&mut self, request: &SummaryRequest, send: impl FnOnce(String) -> Option<String>) -> Option<String> {
        if self.stopped {
            return None;
        }
        self.made += 1;
        let (text, stop) = match send(request_json(request)) {
            Some(reply) => reply_of(&reply),
            None => (None, true),
        };
        self.stopped = stop;
        text
    }
}

/// The package's function, called on the JavaScript thread.
pub struct Inline<'a, 'env> {
    /// The function: request text in, tagged reply out.
    pub function: &'a Function<'env, String, String>,
    /// The calls made.
    pub calls: Calls,
}

impl Summarizer for Inline<'_, '_> {
    fn summarize(&mut self, request: &SummaryRequest) -> Option<String> {
        let function = self.function;
        self.calls.ask(request, |text| function.call(text).ok())
    }
}

/// Replies awaited by worker threads, by question number.
static WAITING: Mutex<Option<HashMap<u32, Sender<String>>>> = Mutex::new(None);

/// The last question number given.
static LAST: Mutex<u32> = Mutex::new(0);

/// The package's answer to question `id` (a tagged reply); an answer nobody waits for is dropped.
#[napi]
pub fn answer(id: u32, reply: String) {
    let waiting = WAITING
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_mut()
        .and_then(|w| w.remove(&id));
    if let Some(sender) = waiting {
        // The worker may be gone (it ended on an error): then nobody needs the answer.
        let _ = sender.send(reply);
    }
}

/// The package's function, asked from a worker thread.
pub struct Remote<'a> {
    /// The package's events.
    pub events: &'a Events,
    /// The calls made.
    pub calls: Calls,
}

impl Summarizer for Remote<'_> {
    fn summarize(&mut self, request: &SummaryRequest) -> Option<String> {
        let events = self.events;
        self.calls.ask(request, |text| {
            let (sender, receiver) = channel();
            let id = {
                let mut last = LAST.lock().unwrap_or_else(PoisonError::into_inner);
                *last = last.wrapping_add(1);
                *last
            };
            WAITING
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get_or_insert_with(HashMap::new)
                .insert(id, sender);
            if events.call(format!("q{id}\n{text}"), ThreadsafeFunctionCallMode::NonBlocking) != Status::Ok {
                answer(id, "x".to_owned());
            }
            receiver.recv().ok()
        })
    }
}
