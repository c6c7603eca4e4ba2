//! The compaction library's own invariants, run by `cargo test -p ctxbench-compact`: properties
//! over generated histories in every wire format, the reference listings' outputs byte for byte,
//! exact token counts against tiktoken's, and real conversations. The data is the repository's
//! `tests/fixtures/`.

// A test crate: a failed unwrap is a failed test, with its place.
#![allow(clippy::unwrap_used)]

mod fixtures;
mod generate;

mod conversations;
mod counts;
mod presets;
mod properties;
mod reference_listing;
mod wire;
mod wire_properties;
