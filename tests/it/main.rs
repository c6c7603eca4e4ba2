//! The one integration test binary (ripgrep's habit): every module is a topic.

// A test crate: a failed unwrap is a failed test, with its place.
#![allow(clippy::unwrap_used)]

mod cmd;
// Shared with the library's own tests, where they live.
#[allow(dead_code)]
#[path = "../../crates/compact/tests/invariants/fixtures.rs"]
mod fixtures;
#[allow(dead_code)]
#[path = "../../crates/compact/tests/invariants/generate.rs"]
mod generate;

mod artifacts;
mod behaviour;
mod bill;
mod cli_compact;
mod cli_gate;
mod cli_replay;
mod cli_sweep;
mod fidelity;
mod fidelity_published;
mod flags;
mod fleet;
mod gate_markdown;
mod import;
mod import_sessions;
mod layers;
mod messages_said;
mod new_user;
mod page_charts;
mod plots;
mod presets;
mod probes;
mod render;
mod renders;
mod report_browser;
mod rough_edges;
mod scenario_files;
mod scenarios;
mod serve;
mod serve_context;
mod serve_formats;
mod serve_results;
mod serve_stream;
mod terminal_words;
mod verdicts;
mod verdicts_said;
