//! `Compactor`'s policy from its arguments (`window`, `threshold`, `target`, `keep`,
//! `reply_reserve`), each read and checked under its Python name: the library's own check
//! ([`Policy::validate`]) then has nothing left to refuse, and a caller reads `keep must be a
//! whole number of requests, 1 or more…, got 0`, not the command line's words.

use ctxbench_compact::Policy;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::args::{self, Arg};

/// What `window` takes.
const WINDOW: &str = "a whole number of tokens greater than 0";

/// What `threshold` takes.
const THRESHOLD: &str = "a fraction of the window greater than 0 and at most 1";

/// What `keep` takes.
const KEEP: &str = "a whole number of requests, 1 or more (the request being answered is always kept)";

/// The policy the arguments make; the defaults are the library's.
pub fn policy_of(
    window: &Bound<'_, PyAny>,
    threshold: Arg<'_>,
    target: Option<&Bound<'_, PyAny>>,
    keep: Arg<'_>,
    reply_reserve: Arg<'_>,
) -> PyResult<Policy> {
    let window = args::whole(window, "window", WINDOW, 1)?;
    let threshold = threshold.read(Policy::DEFAULT_THRESHOLD, |value| {
        let x = args::real(value, "threshold", THRESHOLD)?;
        within(x > 0.0 && x <= 1.0, x, || {
            args::out_of_range("threshold", THRESHOLD, value)
        })
    })?;
    let target = match target.filter(|t| !t.is_none()) {
        None => None,
        Some(value) => {
            let takes =
                format!("a fraction of the window greater than 0 and at most the threshold ({threshold}), or None");
            let x = args::real(value, "target", &takes)?;
            Some(within(x > 0.0 && x <= threshold, x, || {
                args::out_of_range("target", &takes, value)
            })?)
        }
    };
    let keep = keep.read(Policy::DEFAULT_KEEP, |value| {
        let n = args::whole(value, "keep", KEEP, 1)?;
        usize::try_from(n).map_err(|_| args::out_of_range("keep", &format!("{KEEP}, at most {}", usize::MAX), value))
    })?;
    let reply_reserve = reply_reserve.read(Policy::DEFAULT_REPLY_RESERVE, |value| {
        let takes = format!("a whole number of tokens, 0 or more and smaller than the window ({window})");
        let n = args::whole(value, "reply_reserve", &takes, 0)?;
        within(n < window, n, || args::out_of_range("reply_reserve", &takes, value))
    })?;
    let policy = Policy {
        window,
        threshold,
        target,
        keep_recent_turns: keep,
        reply_reserve,
    };
    policy.validate().map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(policy)
}

/// `value` when `ok`, else the error.
fn within<T>(ok: bool, value: T, error: impl FnOnce() -> PyErr) -> PyResult<T> {
    if ok { Ok(value) } else { Err(error()) }
}
