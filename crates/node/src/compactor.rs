//! `Compactor`: one conversation's compactor, as the library's, for messages as JSON text. Keep
//! one per conversation: it remembers which stages were not worth trying again until something
//! new arrives (the library's loop guards). The package (node/index.js) checks the arguments'
//! types and ranges first; what is left to refuse here is the library's: an unknown strategy,
//! estimator or format, a malformed message, a broken pairing.
//!
//! `compact` runs on the JavaScript thread. `compactAsync` runs on a thread of its own (never
//! libuv's pool, which a summary's network call may need) and talks to the package through one
//! threadsafe function, called with a string: `q{id}\n{request}` a summary wanted (the package
//! answers with `answer(id, reply)`), `d{result}` done, `e{tagged error}` refused.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, TryLockError};

use ctxbench_compact::tokens::{CounterKind, Estimator};
use ctxbench_compact::wire::Format;
use ctxbench_compact::{Policy, Strategy};
use napi::bindgen_prelude::Function;
use napi::threadsafe_function::ThreadsafeFunctionCallMode;
use napi_derive::napi;
use serde_json::json;

use crate::errors::{Refusal, Refused};
use crate::messages::{format_of, pairing_error, read};
use crate::report::{Echo, report};
use crate::summarize::{Calls, Events, Inline, Remote};

/// The threads a long history is counted on: the machine's cores, up to 8 (the counts, and so
/// every decision, are the same on any number; a history under 1,000 messages is counted on the
/// caller's thread).
fn count_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
}

/// What one call of `compact` is given, past the messages.
struct Call {
    messages: String,
    cold: bool,
    system: Option<String>,
    tools: Option<String>,
    summarizes: bool,
}

/// The library's compactor and the settings it echoes.
struct Inner {
    compactor: ctxbench_compact::Compactor,
    format: Format,
    estimator: &'static str,
}

impl Inner {
    /// Compacts `call.messages` with `summarizer` when summarizing; the result as the package's
    /// JSON text (`{"messages": …, "report": …}`).
    fn compact(&mut self, call: &Call, summarizer: Option<&mut dyn SummarizerCalls>) -> Refused<String> {
        let strategy = self.compactor.strategy();
        let summarizes = strategy.stages.iter().any(|s| s.name() == "summarize");
        if summarizes && !call.summarizes {
            return Err(Refusal::plain(format!(
                "{} summarizes, and a summary needs a model: pass summarize, a function that receives the \
                 summary request and returns the summary's text (docs/node.md)",
                strategy.brief()
            )));
        }
        let mut read = read(
            &call.messages,
            self.format,
            call.system.as_deref(),
            call.tools.as_deref(),
        )?;
        // What the CLI refuses, refused here too: a result without its call, a call without its
        // result before the next message.
        ctxbench_compact::check_pairing(&read.conversation().messages).map_err(pairing_error)?;
        let system = usize::from(read.conversation().system.is_some());
        self.compactor.set_cache_cold(call.cold);
        let (done, calls) = match summarizer {
            Some(summarizer) => {
                let done = summarizer.compact_with(&mut self.compactor, read.conversation_mut());
                (done, summarizer.calls().made)
            }
            None => (self.compactor.compact(read.conversation_mut()), 0),
        };
        let (messages, sources) = read.write();
        let echo = Echo {
            strategy: self.compactor.name(),
            estimator: self.estimator,
            window: self.compactor.policy().window,
        };
        let report = report(&done, &echo, system, calls, sources.as_ref());
        Ok(json!({ "messages": messages, "report": report }).to_string())
    }
}

/// A summarizer whose calls are counted.
trait SummarizerCalls {
    fn compact_with(
        &mut self,
        compactor: &mut ctxbench_compact::Compactor,
        conversation: &mut ctxbench_compact::Conversation,
    ) -> ctxbench_compact::Compaction;
    fn calls(&self) -> &Calls;
}

impl SummarizerCalls for Inline<'_, '_> {
    fn compact_with(
        &mut self,
        compactor: &mut ctxbench_compact::Compactor,
        conversation: &mut ctxbench_compact::Conversation,
    ) -> ctxbench_compact::Compaction {
        compactor.compact_with(conversation, self)
    }
    fn calls(&self) -> &Calls {
        &self.calls
    }
}

impl SummarizerCalls for Remote<'_> {
    fn compact_with(
        &mut self,
        compactor: &mut ctxbench_compact::Compactor,
        conversation: &mut ctxbench_compact::Conversation,
    ) -> ctxbench_compact::Compaction {
        compactor.compact_with(conversation, self)
    }
    fn calls(&self) -> &Calls {
        &self.calls
    }
}

/// Compacts a conversation before each model call, as ctxbench measured it (the package's
/// `Compactor` wraps it).
#[napi(js_name = "Compactor")]
pub struct NativeCompactor {
    inner: Arc<Mutex<Inner>>,
    /// A `compactAsync` is under way.
    busy: Arc<AtomicBool>,
    settings: String,
}

/// The refusal of a second compaction while one is under way.
fn busy() -> Refusal {
    Refusal::plain(
        "this compactor is still compacting (a compactAsync not awaited yet, or a summarize that \
         calls it back): await it first, and keep one Compactor per conversation",
    )
}

#[napi]
impl NativeCompactor {
    /// `strategy` a strategy string; the policy's numbers as the package checked them
    /// (`target` undefined for the threshold); `estimator` and `format` names.
    #[napi(constructor)]
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        strategy: String,
        window: f64,
        threshold: f64,
        target: Option<f64>,
        keep: u32,
        reply_reserve: f64,
        estimator: String,
        format: String,
    ) -> napi::Result<NativeCompactor> {
        Ok(Self::made(
            &strategy,
            window,
            threshold,
            target,
            keep,
            reply_reserve,
            &estimator,
            &format,
        )?)
    }

    #[allow(clippy::too_many_arguments)]
    fn made(
        strategy: &str,
        window: f64,
        threshold: f64,
        target: Option<f64>,
        keep: u32,
        reply_reserve: f64,
        estimator: &str,
        format: &str,
    ) -> Refused<NativeCompactor> {
        let parsed: Strategy = strategy
            .parse()
            .map_err(|e| Refusal::plain(format!("strategy {strategy:?}: {e}")))?;
        // Whole numbers, checked by the package (at most 2^53).
        let policy = Policy {
            window: window as u64,
            threshold,
            target,
            keep_recent_turns: keep as usize,
            reply_reserve: reply_reserve as u64,
        };
        policy.validate().map_err(|e| Refusal::plain(e.to_string()))?;
        let kind = match Estimator::parse(estimator) {
            Some(Estimator::Counter(kind)) => kind,
            Some(Estimator::Usage) => {
                return Err(Refusal::plain(
                    "estimator \"usage\" needs the server's count of every call, which the Node package does not take; \
                     use chars4, chars4-py, o200k or cl100k",
                ));
            }
            None => {
                return Err(Refusal::plain(format!(
                    "estimator: {}",
                    ctxbench_compact::named::unknown::<CounterKind>(estimator)
                )));
            }
        };
        let format = format_of(format)?;
        let compactor = ctxbench_compact::Compactor::new(parsed, policy, kind.single_pass_counter())
            .with_count_threads(count_threads());
        let policy = compactor.policy();
        let settings = json!({
            "strategy": compactor.name(),
            "brief": compactor.strategy().brief(),
            "window": policy.window,
            "threshold": policy.threshold,
            "target": policy.target,
            "keep": policy.keep_recent_turns,
            "replyReserve": policy.reply_reserve,
            "estimator": kind.as_str(),
            "format": format.as_str(),
            "limit": compactor.limit(),
        })
        .to_string();
        Ok(NativeCompactor {
            inner: Arc::new(Mutex::new(Inner {
                compactor,
                format,
                estimator: kind.as_str(),
            })),
            busy: Arc::new(AtomicBool::new(false)),
            settings,
        })
    }

    /// The settings, as JSON text: the canonical strategy and its brief spelling, the policy,
    /// the estimator, the format and the limit.
    #[napi]
    pub fn settings(&self) -> String {
        self.settings.clone()
    }

    /// Compacts the messages (JSON text) on this thread; `summarize`, when given, is called with
    /// each request's JSON text and returns a tagged reply (`summarize.rs`). A panic of the library
    /// is a JavaScript error, never the process's end (as on `compactAsync`'s thread).
    #[napi(catch_unwind)]
    pub fn compact(
        &self,
        messages: String,
        cold: bool,
        system: Option<String>,
        tools: Option<String>,
        summarize: Option<Function<'_, String, String>>,
    ) -> napi::Result<String> {
        if self.busy.load(Ordering::Acquire) {
            return Err(busy().into());
        }
        // Held by this thread already when `summarize` calls back into its own compactor.
        let mut inner = match self.inner.try_lock() {
            Ok(inner) => inner,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => return Err(busy().into()),
        };
        let call = Call {
            messages,
            cold,
            system,
            tools,
            summarizes: summarize.is_some(),
        };
        let result = match &summarize {
            Some(function) => {
                let mut inline = Inline {
                    function,
                    calls: Calls::default(),
                };
                inner.compact(&call, Some(&mut inline))
            }
            None => inner.compact(&call, None),
        };
        Ok(result?)
    }

    /// Compacts the messages (JSON text) on a thread of its own; `events` hears the summaries
    /// wanted and the result (the module's doc). `summarizes`: the package has a function.
    #[napi(js_name = "compactAsync")]
    pub fn compact_async(
        &self,
        messages: String,
        cold: bool,
        system: Option<String>,
        tools: Option<String>,
        summarizes: bool,
        #[napi(ts_arg_type = "(event: string) => void")] events: Events,
    ) -> napi::Result<()> {
        if self.busy.swap(true, Ordering::AcqRel) {
            return Err(busy().into());
        }
        let inner = Arc::clone(&self.inner);
        let flag = Arc::clone(&self.busy);
        let call = Call {
            messages,
            cold,
            system,
            tools,
            summarizes,
        };
        let spawned = std::thread::Builder::new()
            .name("ctxbench-compact".into())
            .spawn(move || {
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let mut inner = inner.lock().unwrap_or_else(PoisonError::into_inner);
                    let mut remote = Remote {
                        events: &events,
                        calls: Calls::default(),
                    };
                    let summarizer: Option<&mut dyn SummarizerCalls> =
                        if call.summarizes { Some(&mut remote) } else { None };
                    inner.compact(&call, summarizer)
                }));
                let event = match result {
                    Ok(Ok(text)) => format!("d{text}"),
                    Ok(Err(refusal)) => format!("e{}", refusal.tagged()),
                    Err(_) => format!(
                        "e{}",
                        Refusal::plain("the compaction failed unexpectedly; please report it with the messages")
                            .tagged()
                    ),
                };
                flag.store(false, Ordering::Release);
                events.call(event, ThreadsafeFunctionCallMode::NonBlocking);
            });
        if spawned.is_err() {
            self.busy.store(false, Ordering::Release);
            return Err(Refusal::plain("could not start a thread to compact on").into());
        }
        Ok(())
    }
}
