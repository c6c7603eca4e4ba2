//! Standard output that a reader may close early (`ctxbench compare | head`): the command then
//! stops quietly with exit 0, as `cat` does, instead of panicking on the broken pipe. Standard
//! error likewise (`ctxbench compare 2>&1 | head`): what cannot be written there is let go.

use std::io::Write as _;

/// stdout was closed by its reader.
#[derive(Debug)]
pub struct ClosedPipe;

impl std::fmt::Display for ClosedPipe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("standard output was closed")
    }
}

impl std::error::Error for ClosedPipe {}

/// Writes `text` to stdout whole.
pub fn write_out(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(ClosedPipe.into()),
        other => Ok(other?),
    }
}

/// `print!` that stops quietly when stdout is closed (`?` in a function returning
/// `anyhow::Result`).
macro_rules! say {
    ($($arg:tt)*) => { $crate::cli::output::write_out(&format!($($arg)*))? };
}

/// `println!`, likewise.
macro_rules! sayln {
    () => { $crate::cli::output::write_out("\n")? };
    ($($arg:tt)*) => { $crate::cli::output::write_out(&(format!($($arg)*) + "\n"))? };
}

/// Writes `text` to stderr, letting it go when stderr is closed: notes, progress and errors are
/// for a reader, and one who has gone needs none of them (`eprint!` would panic instead).
pub fn write_err(text: &str) {
    let mut err = std::io::stderr().lock();
    let _gone = err.write_all(text.as_bytes()).and_then(|()| err.flush());
}

/// `eprintln!` that never panics: a closed stderr loses the line, not the run.
macro_rules! errln {
    () => { $crate::cli::output::write_err("\n") };
    ($($arg:tt)*) => { $crate::cli::output::write_err(&(format!($($arg)*) + "\n")) };
}

/// `eprint!`, likewise.
macro_rules! err {
    ($($arg:tt)*) => { $crate::cli::output::write_err(&format!($($arg)*)) };
}

pub(crate) use {err, errln, say, sayln};
