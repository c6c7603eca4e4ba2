//! What `--help` says for the commands that take strategies, read from the stages' declaration.

/// `--help`'s closing text for the commands that take strategies: the examples, then every
/// stage with its parameters and their defaults, read from the stages' declaration.
pub fn with_stages(examples: &str) -> String {
    format!("{examples}\n\n{}", ctxbench_compact::compact::stages_help())
}

/// The help of `--strategies`, with the list it defaults to.
pub fn strategies_help(default: &str) -> String {
    use ctxbench_harness::settings::{NATIVE_DEFAULTS, STANDARD_STRATEGIES};
    format!(
        "Strategies, comma-separated (a `,` followed by key=value continues a stage's parameters): \
         stages joined by `+` (listed under --help), or presets, the compactors people run (`ctxbench \
         presets`). The words `standard` ({}), `native` ({}) and `presets` (every preset) stand for \
         their lists. Default: {default}",
        STANDARD_STRATEGIES.join(", "),
        NATIVE_DEFAULTS.join(", ")
    )
}
