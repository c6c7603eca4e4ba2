//! Scenarios: a conversation the scripted model replays, the tool fixtures it calls,
//! and the facts its steps depend on. Loading parses, pads (seeded) and validates; nothing runs
//! on an invalid scenario.

pub(crate) mod artifact;
mod file;
pub(crate) mod fixtures;
mod load;
pub(crate) mod padding;
mod work;

use ctxbench_compact::message::Message;
use ctxbench_compact::tool_schemas::ToolSchemas;

use serde_json::Value;

use crate::usage::LoggedUsage;

pub use ctxbench_compact::fact::FactKind;
pub use fixtures::{FixtureTools, arguments_key};
pub use load::{load_scenario, parse_scenario};

/// The scenario files of a folder: every `*.json` but `schema.json`, sorted by name.
pub fn files_in(dir: &std::path::Path) -> Result<Vec<std::path::PathBuf>, crate::error::Error> {
    let io = |error| crate::error::Error::Io {
        path: dir.to_owned(),
        error,
    };
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.extension().is_some_and(|e| e == "json") && !path.ends_with("schema.json") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// `tokens` o200k tokens of generated text shaped like `style` (what scenario padding is made
/// of), for benchmarks and tests that need realistic text.
pub fn sample_text(style: PadStyle, tokens: u64, seed: u64) -> String {
    padding::padding(style, tokens, seed)
}

ctxbench_compact::named! {
    /// Shapes of generated padding, by their names in scenario files.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum PadStyle {
        /// English sentences.
        Prose = "prose",
        /// Records of a JSON API response.
        Json = "json",
        /// Source code.
        Code = "code",
        /// Server log lines.
        Log = "log",
        /// Chinese text.
        Cjk = "cjk",
    }
}

/// A value a later step needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fact {
    /// The fact's name in the scenario.
    pub name: String,
    /// The value, matched case-sensitively as a substring.
    pub value: String,
    /// Its kind.
    pub kind: FactKind,
    /// The call that can fetch it again, when its first appearance is the result of a tool
    /// marked `refetchable`: `(tool, arguments)`.
    pub refetch: Option<(String, String)>,
    /// The fact this one replaces (its index): a step that needs this one and finds only the
    /// older value uses a stale value.
    pub supersedes: Option<usize>,
    /// A decision the user gave that must survive: losing it counts in `decisions_lost`.
    pub binding: bool,
}

/// One call the scripted model makes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedCall {
    /// The call's id (the scenario's original, or `call_<request>_<step>_<k>`).
    pub id: String,
    /// The tool.
    pub name: String,
    /// The arguments as sent (the original raw string, or compact JSON).
    pub arguments: String,
}

/// One step of the script: one model call's output.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// Tool calls, possibly several at once.
    pub calls: Vec<PlannedCall>,
    /// Text content (a reply, or words alongside the calls), padded.
    pub content: Option<String>,
    /// Indices into [`Scenario::facts`] of the facts the step needs.
    pub needs: Vec<usize>,
    /// Extra fields of the assistant message.
    pub extra: serde_json::Map<String, Value>,
    /// What the provider billed for this call when it was logged (an imported call log).
    pub logged: Option<LoggedUsage>,
}

/// One request: the user's message and the steps that answer it.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// Messages replayed verbatim just before the user message.
    pub before: Vec<Message>,
    /// The user message.
    pub user: Message,
    /// The script.
    pub steps: Vec<Step>,
    /// Agent and refetch calls allowed (the file's, else steps plus needs).
    pub max_turns: usize,
    /// Seconds between the previous request's end and this one's start (the first request
    /// starts the clock at 0).
    pub idle_s: f64,
}

/// A request's idle time when its file says none, in seconds.
pub const DEFAULT_IDLE_S: f64 = 30.0;

/// A tool call's time when its fixture says none, in seconds.
pub const DEFAULT_TOOL_LATENCY_S: f64 = 0.2;

/// A tool's fixture results, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Tool {
    /// The tool's name.
    pub name: String,
    /// Whether calling it again is safe (a lookup, not a payment).
    pub refetchable: bool,
    /// Fixture results, in order.
    pub results: Vec<FixtureResult>,
}

/// One fixture result of a tool.
#[derive(Clone, Debug, PartialEq)]
pub struct FixtureResult {
    /// The arguments it answers, compared as JSON values.
    pub args: Value,
    /// The result text, padded (`Error: …` for errors); `None` for a `null` content.
    pub text: Option<String>,
    /// Among one step's parallel calls, results come back in order of delay (ties in call order).
    pub delay: u64,
    /// Seconds the call takes on the simulated clock.
    pub latency_s: f64,
}

/// A loaded, padded, validated scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// Its name.
    pub name: String,
    /// What it tests and the outcome it expects.
    pub description: String,
    /// Where it was read from.
    pub path: String,
    /// The system prompt.
    pub system: Option<Message>,
    /// The scenario's window, if it sets one.
    pub window: Option<u64>,
    /// Messages before the first request.
    pub preamble: Vec<Message>,
    /// Tools, sorted by name.
    pub tools: Vec<Tool>,
    /// Tool messages carry the tool's `name`.
    pub tool_result_name: bool,
    /// Tool schemas as sent to the model (OpenAI function format), sorted by name.
    pub tool_schemas: ToolSchemas,
    /// Facts, sorted by name.
    pub facts: Vec<Fact>,
    /// The requests.
    pub requests: Vec<Request>,
    /// Whether its content depends on the seed (some text is padded with seeded text).
    pub seeded: bool,
}
