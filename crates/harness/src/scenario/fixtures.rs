//! A scenario's tools: [`FixtureTools`] answers from the scenario's fixtures (the agent's `Tools`
//! in the simulated world, `sim/tools.rs`), as the reference listing's loop would: results matched by tool name and arguments (compared as JSON values), several results
//! for one key returned in order with the last repeating, `Unknown tool: NAME` for a tool that
//! does not exist. The results of parallel calls come back in order of their delay.

use serde_json::Value;

use super::{DEFAULT_TOOL_LATENCY_S, FixtureResult, Tool};

/// The key a call's arguments look up a fixture by: their JSON value, or, for a free-form tool
/// whose input is text (a Responses `custom_tool_call`, Codex's `apply_patch`), that text as a
/// JSON string.
pub fn arguments_key(arguments: &str) -> Value {
    serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_owned()))
}

/// A scenario's fixture results.
#[derive(Clone, Debug)]
pub struct FixtureTools<'a> {
    tools: &'a [Tool],
    /// Per tool, per result: how many calls that result's key has served.
    served: Vec<Vec<usize>>,
    /// Tool messages carry the tool's `name`.
    pub(crate) named: bool,
}

/// What a call comes back with.
pub(crate) enum Answer<'a> {
    Fixture(&'a FixtureResult),
    Text(String),
}

impl<'a> FixtureTools<'a> {
    /// Tools answering from these fixtures.
    pub fn new(tools: &'a [Tool]) -> FixtureTools<'a> {
        let served = tools.iter().map(|t| vec![0; t.results.len()]).collect();
        FixtureTools {
            tools,
            served,
            named: false,
        }
    }

    /// Tool messages carry the tool's `name` between `tool_call_id` and `content`.
    pub fn named(mut self, named: bool) -> FixtureTools<'a> {
        self.named = named;
        self
    }

    /// The answer to one call: a fixture, or the text of an unknown tool or arguments.
    pub(crate) fn lookup(&mut self, name: &str, arguments: &str) -> Answer<'a> {
        let Some(t) = self.tools.iter().position(|t| t.name == name) else {
            return Answer::Text(format!("Unknown tool: {name}"));
        };
        let args = arguments_key(arguments);
        let tool = &self.tools[t];
        let matching: Vec<usize> = (0..tool.results.len())
            .filter(|&k| tool.results[k].args == args)
            .collect();
        let Some(&first) = matching.first() else {
            if args.is_string() {
                return Answer::Text(format!("Error: the arguments of {name} are not JSON: {arguments}"));
            }
            return Answer::Text(format!("Error: no result of {name} for {args}"));
        };
        // The key's call count lives on its first result.
        let n = self.served[t][first];
        self.served[t][first] += 1;
        Answer::Fixture(&tool.results[matching[n.min(matching.len() - 1)]])
    }
}

impl FixtureTools<'_> {
    /// Runs one call: its result's text, and the seconds it took.
    pub fn call_timed(&mut self, name: &str, arguments: &str) -> (String, f64) {
        match self.lookup(name, arguments) {
            Answer::Fixture(result) => (result.text.clone().unwrap_or_default(), result.latency_s),
            Answer::Text(text) => (text, DEFAULT_TOOL_LATENCY_S),
        }
    }
}
