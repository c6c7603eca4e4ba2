//! `Compactor`: one conversation's compactor, as the library's, for lists of message dicts.
//! Keep one per conversation: it remembers which stages were not worth trying again until
//! something new arrives (the library's loop guards).

use ctxbench_compact::compact::stages_help;
use ctxbench_compact::named::Named;
use ctxbench_compact::tokens::{CounterKind, Estimator};
use ctxbench_compact::wire::Format;
use ctxbench_compact::{Policy, Strategy};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyList};

use crate::args::{self, Arg};
use crate::messages::{format_arg, pairing_error, read};
use crate::policy::policy_of;
use crate::report::CompactReport;
use crate::summarize::PySummarizer;

/// Compacts a conversation before each model call, as ctxbench measured it.
///
/// `strategy` is a strategy string of the command line (`"truncate:trigger=cold+drop"`); the
/// policy is the window (tokens), the threshold (compact past this fraction of the window), the
/// target (work down to this fraction once compacting; default: the threshold), the requests
/// kept untouched at the end, and the tokens reserved for the reply. `estimator` decides when to
/// compact: `chars4` (the reference listing's estimate), `chars4-py`, `o200k` or `cl100k`.
/// `format` is the messages' form: `chat` (OpenAI chat completions), `anthropic` (Anthropic
/// Messages) or `responses` (OpenAI Responses input items).
#[pyclass(module = "ctxbench._native", subclass)]
pub struct Compactor {
    inner: ctxbench_compact::Compactor,
    format: Format,
    estimator: &'static str,
}

/// The threads a long history is counted on: the machine's cores, up to 8 (the counts, and so
/// every decision, are the same on any number; a history under 1,000 messages is counted on the
/// caller's thread).
fn count_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
}

/// The strategies' help: every stage, its parameters and their defaults.
#[pyfunction]
pub fn strategies() -> String {
    stages_help()
}

#[pymethods]
impl Compactor {
    #[new]
    #[pyo3(
        signature = (
            strategy,
            window,
            threshold = Arg::Absent,
            target = None,
            keep = Arg::Absent,
            reply_reserve = Arg::Absent,
            estimator = Arg::Absent,
            format = Arg::Absent,
        ),
        text_signature = "(strategy, window, threshold=0.8, target=None, keep=2, reply_reserve=0, \
                          estimator='chars4', format='chat')"
    )]
    #[allow(clippy::too_many_arguments)]
    fn new(
        strategy: &Bound<'_, PyAny>,
        window: &Bound<'_, PyAny>,
        threshold: Arg<'_>,
        target: Option<&Bound<'_, PyAny>>,
        keep: Arg<'_>,
        reply_reserve: Arg<'_>,
        estimator: Arg<'_>,
        format: Arg<'_>,
    ) -> PyResult<Compactor> {
        let strategy = args::text(
            strategy,
            "strategy",
            "a strategy string such as \"truncate+drop\" (ctxbench.strategies() lists the stages)",
        )?;
        let parsed: Strategy = strategy
            .parse()
            .map_err(|e| PyValueError::new_err(format!("strategy {strategy:?}: {e}")))?;
        let policy = policy_of(window, threshold, target, keep, reply_reserve)?;
        let estimator = estimator.read("chars4".to_owned(), |v| {
            args::text(
                v,
                "estimator",
                &format!("an estimator's name ({})", CounterKind::names()),
            )
        })?;
        let kind = match Estimator::parse(&estimator) {
            Some(Estimator::Counter(kind)) => kind,
            Some(Estimator::Usage) => {
                return Err(PyValueError::new_err(
                    "estimator \"usage\" needs the server's count of every call, which the Python package does not take; \
                     use chars4, chars4-py, o200k or cl100k",
                ));
            }
            None => {
                return Err(PyValueError::new_err(format!(
                    "estimator: {}",
                    ctxbench_compact::named::unknown::<CounterKind>(&estimator)
                )));
            }
        };
        Ok(Compactor {
            // Each call reads a new list: a process-wide cache of texts would only copy them.
            inner: ctxbench_compact::Compactor::new(parsed, policy, kind.single_pass_counter())
                .with_count_threads(count_threads()),
            format: format_arg(format)?,
            estimator: kind.as_str(),
        })
    }

    /// Compacts `messages` (a list of dicts; never changed) for the next model call; returns the
    /// list to send and a `CompactReport`. Messages the compaction left alone are the caller's own
    /// objects; a rewritten tool result is a copy with its new content; a summary a new dict.
    /// `cache_cold` says whether the provider's prompt cache has expired (a bool, or a
    /// `CacheClock`), for stages with `trigger=cold`; `summarize` writes summaries for the
    /// `summarize` stage (see the package's `Compactor`); `system` is Anthropic's `system` or
    /// Responses' `instructions`, `tools` the request's tool schemas (counted by exact
    /// estimators).
    #[pyo3(signature = (messages, *, cache_cold = None, summarize = None, system = None, tools = None))]
    fn compact<'py>(
        &mut self,
        py: Python<'py>,
        messages: &Bound<'py, PyAny>,
        cache_cold: Option<&Bound<'py, PyAny>>,
        summarize: Option<Bound<'py, PyAny>>,
        system: Option<&Bound<'py, PyAny>>,
        tools: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyList>, CompactReport)> {
        let cold = match cache_cold {
            None => false,
            Some(c) if c.is_none() => false,
            Some(c) if c.hasattr("cold")? => c.call_method0("cold")?.is_truthy()?,
            Some(c) if c.is_instance_of::<PyBool>() => c.is_truthy()?,
            Some(c) => {
                return Err(args::wrong_type(
                    "cache_cold",
                    "a bool or a CacheClock (whether the provider's prompt cache has expired), or None",
                    c,
                ));
            }
        };
        let summarize = summarize.filter(|s| !s.is_none());
        if let Some(function) = summarize.as_ref().filter(|s| !s.is_callable()) {
            return Err(args::wrong_type(
                "summarize",
                "a function that receives the summary request (a dict) and returns the summary's text or None",
                function,
            ));
        }
        let summarizes = self.inner.strategy().stages.iter().any(|s| s.name() == "summarize");
        if summarizes && summarize.is_none() {
            return Err(PyValueError::new_err(format!(
                "{} summarizes, and a summary needs a model: pass summarize=, a function that receives the \
                 summary request and returns the summary's text (docs/python.md)",
                self.inner.strategy().brief()
            )));
        }
        self.inner.set_cache_cold(cold);
        let mut read = read(messages, self.format, system, tools)?;
        // What the CLI refuses, refused here too: a result without its call, a call without its
        // result before the next message.
        ctxbench_compact::check_pairing(&read.conversation().messages).map_err(pairing_error)?;
        let system_count = usize::from(read.conversation().system.is_some());
        let (done, summary_calls) = match summarize {
            Some(function) => {
                let mut summarizer = PySummarizer::new(function);
                let done = self.inner.compact_with(read.conversation_mut(), &mut summarizer);
                if let Some(error) = summarizer.error {
                    return Err(error);
                }
                (done, summarizer.calls)
            }
            None => (self.inner.compact(read.conversation_mut()), 0),
        };
        let (list, sources) = read.write(py)?;
        let report = CompactReport::new(
            py,
            &done,
            (self.inner.name(), self.estimator, self.inner.policy().window),
            system_count,
            summary_calls,
            sources,
        )?;
        Ok((list, report))
    }

    /// The strategy's canonical name (every parameter spelt).
    #[getter]
    fn strategy(&self) -> &str {
        self.inner.name()
    }

    /// The context window, in tokens.
    #[getter]
    fn window(&self) -> u64 {
        self.inner.policy().window
    }

    /// Compact past this fraction of the window.
    #[getter]
    fn threshold(&self) -> f64 {
        self.inner.policy().threshold
    }

    /// Once compacting, work down to this fraction of the window (None: the threshold).
    #[getter]
    fn target(&self) -> Option<f64> {
        self.inner.policy().target
    }

    /// Requests at the end never touched.
    #[getter]
    fn keep(&self) -> usize {
        self.inner.policy().keep_recent_turns
    }

    /// Tokens kept free for the reply.
    #[getter]
    fn reply_reserve(&self) -> u64 {
        self.inner.policy().reply_reserve
    }

    /// The estimator's name.
    #[getter]
    fn estimator(&self) -> &str {
        self.estimator
    }

    /// The messages' form: `chat`, `anthropic` or `responses`.
    #[getter]
    fn format(&self) -> &str {
        self.format.as_str()
    }

    /// The limit the estimate is held under, in tokens.
    #[getter]
    fn limit(&self) -> u64 {
        self.inner.limit()
    }

    fn __repr__(&self) -> String {
        let policy = self.inner.policy();
        let mut args = vec![
            format!("{:?}", self.inner.strategy().brief()),
            format!("window={}", policy.window),
        ];
        if policy.threshold != Policy::DEFAULT_THRESHOLD {
            args.push(format!("threshold={}", policy.threshold));
        }
        if let Some(target) = policy.target {
            args.push(format!("target={target}"));
        }
        if policy.keep_recent_turns != Policy::DEFAULT_KEEP {
            args.push(format!("keep={}", policy.keep_recent_turns));
        }
        if policy.reply_reserve != Policy::DEFAULT_REPLY_RESERVE {
            args.push(format!("reply_reserve={}", policy.reply_reserve));
        }
        if self.estimator != "chars4" {
            args.push(format!("estimator={:?}", self.estimator));
        }
        if self.format != Format::Chat {
            args.push(format!("format={:?}", self.format.as_str()));
        }
        format!("Compactor({})", args.join(", "))
    }
}
