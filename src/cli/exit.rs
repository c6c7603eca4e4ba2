//! The exit codes CI can rely on: 0 done, 1 a measured failure (`gate`), 2 unusable input, 130
//! interrupted by Ctrl-C.

/// Input that cannot be used (bad file, bad flag value).
pub const BAD_INPUT: u8 = 2;

/// A command stopped by Ctrl-C (128 + SIGINT).
pub const INTERRUPTED: u8 = 130;
