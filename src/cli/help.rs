//! What `--help` says in more than one command, written once: the closing text of the commands
//! that take strategies (the stage catalogue itself is `ctxbench strategies`, in one place), the
//! help of `--strategies`, and `--model-profile`'s in `run`. A flag's own help is on its one
//! declaration (settings_args.rs, verdict_args.rs).

/// `--help`'s closing text for the commands that take strategies: the examples, then where the
/// stages and presets are listed.
pub fn with_stages(examples: &str) -> String {
    format!(
        "{examples}\n\nThe stages, their parameters and defaults: `ctxbench strategies`; the presets: `ctxbench presets`."
    )
}

/// The help of `--strategies`, with the list it defaults to.
pub fn strategies_help(default: &str) -> String {
    use ctxbench_harness::settings::{NATIVE_DEFAULTS, STANDARD_STRATEGIES};
    format!(
        "Strategies, comma-separated (a `,` followed by key=value continues a stage's parameters): \
         stages joined by `+` (`ctxbench strategies` lists them), or presets, the compactors people \
         run (`ctxbench presets`). The words `standard` ({}), `native` ({}) and `presets` (every \
         preset) stand for their lists. Default: {default}",
        STANDARD_STRATEGIES.join(", "),
        NATIVE_DEFAULTS.join(", ")
    )
}

/// `--model-profile`'s help in `run`, the one command that also has `--model` (a live model's
/// name): the shared help, and which is which.
pub const MODEL_PROFILE_IN_RUN: &str = "What the scripted model does when a fact it needs is gone: a \
    shipped profile (`ctxbench profiles` lists them), FILE.toml or FILE.toml#NAME. Not the live \
    model's name, which is --model (with --endpoint, where no profile applies)";
