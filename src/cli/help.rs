//! What `--help` says for the commands that take strategies, read from the stages' declaration.

/// `--help`'s closing text for the commands that take strategies: the examples, then every
/// stage with its parameters and their defaults, read from the stages' declaration.
pub fn with_stages(examples: &str) -> String {
    format!("{examples}\n\n{}", ctxbench_compact::compact::stages_help())
}

/// The help of `--strategies`, with the standard list it defaults to.
pub fn strategies_help() -> String {
    format!(
        "Strategies, comma-separated (a `,` followed by key=value continues a stage's parameters); \
         the stages are listed under --help. Default: {}",
        ctxbench_harness::settings::STANDARD_STRATEGIES.join(", ")
    )
}
