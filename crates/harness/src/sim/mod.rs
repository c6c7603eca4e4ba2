//! The simulated world a scenario runs in: the scripted model that plays it, the tools that
//! answer from its fixtures, the server in front of it that counts, bills and enforces the
//! window, its prompt cache and its clock, and the behaviour profiles of the summarizer and the
//! model.

mod bounded;
pub mod latency;
pub mod profile;
pub mod prompt_cache;
pub mod provider;
pub mod scripted;
mod tools;
