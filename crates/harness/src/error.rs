//! The harness's one error type: input that cannot be measured. Each variant says what happened
//! and where; the messages end with what to do when that is not obvious.

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
