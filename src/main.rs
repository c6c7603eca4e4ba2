//! The `ctxbench` command: a thin shell over the library. Parses, calls, prints `error: …`,
//! and returns an exit code CI can rely on (0 done, 1 a measured failure, 2 unusable input).

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::main()
}
