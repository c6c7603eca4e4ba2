//! `ctxbench._native`: the Rust compactor for Python. The package `ctxbench` (python/ctxbench)
//! wraps it: `Compactor` (dicts in, dicts out, in OpenAI chat, Anthropic Messages or OpenAI
//! Responses form), `count_tokens`, `check_pairing` and its `PairingError`, and the cache
//! lifetime of a price of ctxbench's table. The strategy strings, defaults and errors are the
//! library's own; nothing here decides how to compact. Its type stubs are
//! `python/ctxbench/_native.pyi`: a name or argument added here goes there too (a test compares
//! them). Arguments are read by `args` (a wrong one named, with what it takes).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

mod args;
mod compactor;
mod convert;
mod messages;
mod policy;
mod prices;
mod report;
mod summarize;

/// The allocator of the module's own memory (Python's objects keep Python's): with glibc's, a
/// quarter of a 100,000-message compaction went to allocating and freeing.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

pyo3::create_exception!(
    _native,
    PairingError,
    PyValueError,
    "A history that breaks the pairing rule: a tool result that answers no call of the assistant \
     message before it, a call left without its result, or a format's own rule; the message says \
     which message."
);

/// The module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<compactor::Compactor>()?;
    m.add_class::<report::CompactReport>()?;
    m.add_function(wrap_pyfunction!(messages::count_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(messages::check_pairing, m)?)?;
    m.add_function(wrap_pyfunction!(prices::cache_ttl, m)?)?;
    m.add_function(wrap_pyfunction!(compactor::strategies, m)?)?;
    m.add("PairingError", m.py().get_type::<PairingError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
