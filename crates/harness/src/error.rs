//! The harness's error for input that cannot be measured ([`Error`]: a scenario, a body or a file
//! that cannot be read). Each variant says what happened and where; the messages end with what
//! to do when that is not obvious.
//!
//! Each other area has an error type of its own, beside the code that fails with it, whose
//! variants name what went wrong:
//!
//! - settings: [`crate::billing::PriceError`] (`--price`, price tables) and
//!   [`crate::billing::CacheError`] (`--cache`); [`crate::sim::latency::LatencyError`]
//!   (`--latency`); [`crate::sim::profile::ProfileError`] (`--summarizer`, `--model-profile`)
//!   and [`crate::sim::profile::CurveError`] (a profile's curves);
//!   [`crate::settings::NameError`] (`--estimator`, `--tokenizer`);
//!   [`crate::settings::SettingsError`] (settings that cannot run a scenario);
//!   [`crate::engine::SeedsError`] (`--seeds`);
//!   [`crate::sweep::GridError`] (a sweep's value lists and shards);
//! - the run: [`crate::agent::model::ModelError`] (a model call),
//!   [`crate::sim::scripted::PlaceError`] (a history `serve` cannot place in its script);
//! - results: [`crate::report::CsvError`] (a results file read back),
//!   [`crate::verdict::ObjectiveError`] (`--objective`, `--fact-cost`, `--tie`),
//!   [`crate::plot::DrawError`] and [`crate::plot::PlotError`] (a chart);
//! - [`crate::import::FidelityError`]: where an imported scenario's replay first differs from
//!   its log.
//!
//! Their messages are the words the command prints after `error:`.

use std::path::PathBuf;

pub(crate) use ctxbench_compact::input::io_words;

/// Everything the harness can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A body, a message, a policy or a strategy that does not parse or breaks a rule.
    #[error(transparent)]
    Input(#[from] ctxbench_compact::Error),
    /// A scenario file that cannot run; `request` and `step` are 1-based.
    #[error("{path}: {}{msg}", place(*request, *step))]
    Scenario {
        /// The file.
        path: String,
        /// The request (1-based), when the problem is in one.
        request: Option<usize>,
        /// The step (1-based), when the problem is in one.
        step: Option<usize>,
        /// What is wrong and what to do.
        msg: String,
    },
    /// Reading or writing a file failed.
    #[error("{}: {}", path.display(), io_words(error))]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error (not a `source`: the message says it already, once).
        error: std::io::Error,
    },
}

fn place(request: Option<usize>, step: Option<usize>) -> String {
    match (request, step) {
        (Some(r), Some(s)) => format!("request {r}, step {s}: "),
        (Some(r), None) => format!("request {r}: "),
        _ => String::new(),
    }
}
