//! The ctxbench harness: measures what a compaction strategy costs and breaks by replaying
//! scenarios through the real agent loop, with a scripted model behind a simulated server, and
//! turns the calls into figures, reports, charts and a CI gate. The compactor itself is the
//! `ctxbench_compact` crate; this one never prints, reads files only to load scenarios and a
//! user's profiles, and writes none (the command writes what it returns).
//!
//! # Layout, in the order data flows
//!
//! - [`settings`]: [`RunSettings`], everything a run depends on besides its scenario; the row
//!   key of every results file; [`settings_words`]: the same in words, every setting or those
//!   changed. [`billing`]: its prices and prompt cache modes.
//! - [`scenario`]: scenario files (parsed, padded, validated) and their fixture tools.
//! - [`agent`]: the loop a Rust agent embeds ([`agent::Agent`]), the [`agent::model::Model`] and
//!   [`agent::tools::Tools`] it is generic over, and the trace line of each call.
//! - [`sim`]: the simulated world: the scripted model, the fixtures as tools, the server in front
//!   of them, its prompt cache and its clock.
//! - [`run`]: one scenario × one [`RunSettings`], simulated or against a live model.
//! - [`trace`] and [`metrics`]: one line per call, and the figures, a pure function of them.
//! - [`verdict`]: which runs qualify, how they rank, the suite's pick.
//! - [`engine`]: many configurations over their seeds, on threads, for every command that runs
//!   them (`compare`'s tuning and checks, `sweep`'s grids and shards, resuming).
//! - [`report`], [`plot`], [`gate`], [`sweep`]: rows and their exporters (verdicts among them),
//!   charts, the baseline gate, grids of settings.
//! - [`import`] and [`http`]: logged conversations to scenarios; live endpoints both ways.
//! - [`usage`]: the usage a provider reports, in each provider's spelling.
//! - [`human`]: numbers for people.

pub mod agent;
pub mod billing;
pub mod engine;
mod error;
pub mod gate;
pub mod http;
pub mod human;
pub mod import;
pub mod metrics;
pub mod plot;
pub mod report;
mod row;
pub mod run;
pub mod scenario;
mod seeds;
pub mod settings;
pub mod settings_words;
pub mod sim;
pub mod sweep;
mod toml_words;
pub mod trace;
pub mod tune;
pub mod usage;
pub mod verdict;

pub use error::Error;
pub use settings::RunSettings;

/// The README's example, held true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExample;
