//! Ctrl-C during `compare` or `sweep`: the runs under way finish, no new one starts, and the
//! command says how far it got and where the rows are, then exits 130 as a shell expects.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::output::errln;
use anyhow::Context;

/// Set once Ctrl-C was pressed.
#[derive(Clone, Debug)]
pub struct Interrupt(Arc<AtomicBool>);

impl Interrupt {
    /// Catches Ctrl-C for the rest of the process.
    pub fn catch() -> anyhow::Result<Interrupt> {
        let flag = Arc::new(AtomicBool::new(false));
        let on_signal = flag.clone();
        ctrlc::set_handler(move || on_signal.store(true, Ordering::SeqCst)).context("cannot catch Ctrl-C")?;
        Ok(Interrupt(flag))
    }

    /// The flag itself, for a loop that stops on it.
    pub fn flag(&self) -> &AtomicBool {
        &self.0
    }

    /// The exit once everything is written: 130 when Ctrl-C came after the runs (the reports were
    /// finished first, and say so), else success.
    pub fn exit(&self) -> ExitCode {
        if self.0.load(Ordering::SeqCst) {
            errln!("interrupted after the runs: the reports were finished first, and are complete");
            return ExitCode::from(130);
        }
        ExitCode::SUCCESS
    }
}

/// How far a stopped command got.
pub enum Stop<'a> {
    /// So many of so many (of what), all of them in the partial file.
    Of(usize, usize, &'a str),
    /// In the caller's words.
    Said(&'a str),
}

/// Says how far the runs got (`done` of `planned` `what`s in `partial`, or in words of the
/// caller's own with [`Stop::Said`]) and how to go on; the exit code.
pub fn stopped(how_far: Stop<'_>, partial: &Path, resume: Option<&str>) -> ExitCode {
    match how_far {
        Stop::Of(done, planned, what) => errln!(
            "interrupted: {} of {} in {}",
            ctxbench_harness::human::thousands(done as u64),
            ctxbench_harness::human::count(planned, what),
            partial.display()
        ),
        Stop::Said(words) => errln!("interrupted: {words}"),
    }
    if let Some(how) = resume {
        errln!("{how}");
    }
    let earlier = partial.with_file_name("results.csv");
    if earlier.exists() {
        errln!(
            "the other reports in {} are those of an earlier run",
            partial.parent().map_or_else(|| ".".into(), |d| d.display().to_string())
        );
    }
    ExitCode::from(super::exit::INTERRUPTED)
}
