//! The one progress display of the commands that work through many things (compare's runs,
//! sweep's configurations, import's files): a bar on stderr where someone watches it, with how
//! far, what is running, the rate and the time left. Nothing is drawn where stderr is not a
//! terminal (a CI log, a file): indicatif hides itself there.

use std::cell::Cell;

use ctxbench_harness::human::thousands;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// A bar counting `what` (runs, configurations, files).
pub struct Progress {
    bar: ProgressBar,
    /// Shown once a total is known: hidden until then, as a bar of nothing is drawn full.
    waiting: Cell<bool>,
}

impl Progress {
    /// A bar of `total` things called `what`; hidden when `shown` is false (one file to import
    /// needs no bar), and until [`Progress::at`] says how many when `total` is 0 (a bar of
    /// nothing is drawn full, as if the work were done).
    pub fn new(total: usize, what: &str, shown: bool) -> Progress {
        let template = format!("{{bar:40}} {{human_pos}}/{{human_len}} {what}{{msg}} · {{rate}} · {{eta}} left");
        let style = ProgressStyle::with_template(&template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            // Whole things a second, with thousands marked: "1,337/s", not "1,336.5634/s".
            .with_key("rate", |state: &ProgressState, out: &mut dyn std::fmt::Write| {
                let _ = write!(out, "{}/s", thousands(state.per_sec().round() as u64));
            });
        let bar = ProgressBar::new(total as u64).with_style(style);
        if !shown || total == 0 {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        Progress {
            bar,
            waiting: Cell::new(shown && total == 0),
        }
    }

    /// One more done.
    pub fn inc(&self) {
        self.bar.inc(1);
    }

    /// `done` of `total` in the part of the work `part` names (said after the count); a new
    /// part starts the rate and the time left again.
    pub fn at(&self, part: &str, done: usize, total: usize) {
        let message = format!(" · {part}");
        if self.bar.message() != message || self.bar.length() != Some(total as u64) {
            self.bar.reset();
            self.bar.set_message(message);
            self.bar.set_length(total as u64);
        }
        if total > 0 && self.waiting.replace(false) {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        self.bar.set_position(done as u64);
    }

    /// `write` with the bar out of the way, so that what it prints is not drawn over.
    pub fn suspend<R>(&self, write: impl FnOnce() -> R) -> R {
        self.bar.suspend(write)
    }

    /// Gone from the screen.
    pub fn clear(&self) {
        self.bar.finish_and_clear();
    }
}
