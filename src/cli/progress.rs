//! The one progress display of the commands that work through many things (compare's runs,
//! sweep's configurations, import's files): a bar on stderr where someone watches it, with how
//! far, what is running, the rate and the time left. Nothing is drawn where stderr is not a
//! terminal (a CI log, a file): indicatif hides itself there.

use ctxbench_harness::human::thousands;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// A bar counting `what` (runs, configurations, files).
pub struct Progress(ProgressBar);

impl Progress {
    /// A bar of `total` things called `what`; hidden when `shown` is false (one file to import
    /// needs no bar).
    pub fn new(total: usize, what: &str, shown: bool) -> Progress {
        let template = format!("{{bar:40}} {{human_pos}}/{{human_len}} {what}{{msg}} · {{rate}} · {{eta}} left");
        let style = ProgressStyle::with_template(&template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            // Whole things a second, with thousands marked: "1,337/s", not "1,336.5634/s".
            .with_key("rate", |state: &ProgressState, out: &mut dyn std::fmt::Write| {
                let _ = write!(out, "{}/s", thousands(state.per_sec().round() as u64));
            });
        let bar = ProgressBar::new(total as u64).with_style(style);
        if !shown {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        Progress(bar)
    }

    /// One more done.
    pub fn inc(&self) {
        self.0.inc(1);
    }

    /// `done` of `total` in the part of the work `part` names (said after the count); a new
    /// part starts the rate and the time left again.
    pub fn at(&self, part: &str, done: usize, total: usize) {
        let message = format!(" · {part}");
        if self.0.message() != message || self.0.length() != Some(total as u64) {
            self.0.reset();
            self.0.set_message(message);
            self.0.set_length(total as u64);
        }
        self.0.set_position(done as u64);
    }

    /// `write` with the bar out of the way, so that what it prints is not drawn over.
    pub fn suspend<R>(&self, write: impl FnOnce() -> R) -> R {
        self.0.suspend(write)
    }

    /// Gone from the screen.
    pub fn clear(&self) {
        self.0.finish_and_clear();
    }
}
