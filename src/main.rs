//! The `ctxbench` command over the libraries: it holds the flags, the files and the printing,
//! hands loaders and runners to the harness, prints `error: …`,
//! and returns an exit code CI can rely on (0 done, 1 a measured failure, 2 unusable input).

mod cli;
mod huge_pages;

use std::process::ExitCode;

/// mimalloc frees a large history several times faster than glibc's allocator (Cargo.toml).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    cli::main()
}
