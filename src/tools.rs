//! The tools an agent calls. [`FixtureTools`] answers from a scenario's fixtures, as the seed's
//! loop would: results matched by tool name and arguments (compared as JSON values), several
//! results for one key returned in order with the last repeating, `Unknown tool: NAME` for a
//! tool that does not exist.

use serde_json::Value;

use crate::scenario::Tool;

/// Something that runs tool calls.
pub trait Tools {
    /// Runs one call and returns its result text.
    fn call(&mut self, name: &str, arguments: &str) -> String;
}

/// A scenario's fixture results.
#[derive(Clone, Debug)]
pub struct FixtureTools<'a> {
    tools: &'a [Tool],
    /// Per tool, per result: how many calls that result's key has served.
    served: Vec<Vec<usize>>,
}

impl<'a> FixtureTools<'a> {
    /// Tools answering from these fixtures.
    pub fn new(tools: &'a [Tool]) -> FixtureTools<'a> {
        let served = tools.iter().map(|t| vec![0; t.results.len()]).collect();
        FixtureTools { tools, served }
    }
}

impl Tools for FixtureTools<'_> {
    fn call(&mut self, name: &str, arguments: &str) -> String {
        let Some(t) = self.tools.iter().position(|t| t.name == name) else {
            return format!("Unknown tool: {name}");
        };
        let Ok(args) = serde_json::from_str::<Value>(arguments) else {
            return format!("Error: the arguments of {name} are not JSON: {arguments}");
        };
        let tool = &self.tools[t];
        let matching: Vec<usize> = (0..tool.results.len()).filter(|&k| tool.results[k].0 == args).collect();
        let Some(&first) = matching.first() else {
            return format!("Error: no result of {name} for {args}");
        };
        // The key's call count lives on its first result.
        let n = self.served[t][first];
        self.served[t][first] += 1;
        let k = matching[n.min(matching.len() - 1)];
        tool.results[k].1.clone()
    }
}
