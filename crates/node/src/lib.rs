//! The native addon of the npm package `ctxbench` (node/): the Rust compactor for Node. The
//! package's JavaScript (node/index.js) wraps it: it reads and checks every argument (a wrong one
//! named, in the Python package's words), hands messages over as JSON text, and turns what comes
//! back into the caller's objects. Nothing here decides how to compact: the strategy strings,
//! defaults and errors are the library's own.
//!
//! Every function takes strings and numbers and returns a string of JSON or a number. An error
//! is thrown as a JavaScript `Error` whose message opens with the class the package throws
//! (`PairingError: messages[2]: …`, `errors`); the package strips that word and throws its own
//! class. Layout: `compactor` (the `Compactor` class), `messages` (JSON text to the library's
//! conversation and back, `countTokens`, `checkPairing`), `summarize` (the caller's function as
//! the library's summarizer, on the JavaScript thread or from a worker thread), `report` (what a
//! compaction did, as JSON), `prices` (a price's cache lifetime), `errors`.

use napi_derive::napi;

mod compactor;
mod errors;
mod messages;
mod prices;
mod report;
mod summarize;

/// The allocator of the addon's own memory (JavaScript's objects keep V8's): with glibc's, a
/// quarter of a 100,000-message compaction went to allocating and freeing.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The strategies' help: every stage, its parameters and their defaults.
#[napi]
pub fn strategies() -> String {
    ctxbench_compact::compact::stages_help()
}

/// The names the package's errors list, as JSON text: `counters` (the estimators and
/// tokenizers: `chars4, chars4-py, o200k or cl100k`) and `formats`.
#[napi]
pub fn names() -> String {
    use ctxbench_compact::named::Named;
    serde_json::json!({
        "counters": ctxbench_compact::tokens::CounterKind::names(),
        "formats": ctxbench_compact::wire::Format::names(),
    })
    .to_string()
}

/// The addon's version (the workspace's).
#[napi]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}
