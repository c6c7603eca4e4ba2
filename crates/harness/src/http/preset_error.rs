//! Why `serve --strategy` cannot make a strategy's edits on a route: a strategy no server
//! makes, a preset that compacts in the client, or another API's preset.

/// Why a strategy is not a server's context management on a route.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PresetError {
    /// Not a preset at all.
    #[error(
        "{strategy} is not a server's: serve compacts only as a provider does (anthropic-compact, anthropic-clear, anthropic-clear-thinking, openai-compact)"
    )]
    NotAServers {
        /// The strategy, as written.
        strategy: String,
    },
    /// A preset that a client runs (Claude Code, Codex, the frameworks).
    #[error(
        "{name} compacts in the client, not on the server: run it in process (`ctxbench run --strategy {name}`), or point the agent itself at serve"
    )]
    InTheClient {
        /// The preset's name.
        name: String,
    },
    /// A server's preset of another API than the request's.
    #[error("{name} is the {api} API's; it does not apply to {asked} requests (POST {path})")]
    OtherRoute {
        /// The preset's name.
        name: String,
        /// The API it belongs to.
        api: String,
        /// The API the request came by.
        asked: String,
        /// That API's path.
        path: String,
    },
}
