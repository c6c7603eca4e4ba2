//! The one engine that runs many configurations, for every command that does: the jobs on
//! threads with their results in the jobs' order ([`run_jobs`]), a stop (Ctrl-C) that lets the
//! runs under way finish and starts no other, seeds by the one rule ([`Seeds::of`]) and loaded
//! a block at a time past the first, what `compare` runs ([`replicate`]: tuning, seeds, other
//! prices), what `sweep` runs ([`Sweep`]: a grid, whole or one shard's slice, configurations
//! handed over whole), resuming from a partial results file ([`resume`]) and a shard's typed
//! [`Fingerprint`]. The best of each scenario is the verdicts' ([`crate::verdict::choose`],
//! streamed by [`crate::verdict::Best`]), so every command names the same winner.
//!
//! The engine reads no file and writes none: the commands hand it loaders and take its rows;
//! the CLI keeps the flags, the files and the printing.

mod checks;
mod fingerprint;
mod grid;
mod jobs;
mod plan;
mod replicate;
mod resume;
mod seeded;
mod sweep;

pub use crate::seeds::{Seeds, SeedsError};
pub use fingerprint::{FINGERPRINT, Fingerprint, FingerprintError, Identity};
pub use jobs::{Job, run_jobs};
pub use plan::{Phase, Plan, Replicated};
pub use replicate::replicate;
pub use resume::{Check, ResumeError, Resumed, resume};
pub use sweep::{Loaded, Sweep, Swept};
