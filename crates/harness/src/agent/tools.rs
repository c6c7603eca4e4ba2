//! The tools an agent calls: whatever runs a model's tool calls and answers them with tool
//! messages. A simulation answers from a scenario's fixtures (`scenario::FixtureTools`, in `sim/tools.rs`).

use ctxbench_compact::message::{Message, ToolCall};

/// The answer to one assistant message's calls.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolResults {
    /// One tool message per call, in the order the results came back.
    pub messages: Vec<Message>,
    /// Seconds until the last result came back (the calls run at once).
    pub seconds: f64,
}

/// Something that runs tool calls.
pub trait Tools {
    /// Runs one call and returns its result text.
    fn call(&mut self, name: &str, arguments: &str) -> String;

    /// Answers the calls of one assistant message with tool messages, in the order the results
    /// come back. By default each call in turn, as `{"role":"tool","tool_call_id":…,"content":…}`,
    /// taking no time.
    fn answer(&mut self, calls: &[ToolCall<'_>]) -> ToolResults {
        let messages = calls
            .iter()
            .map(|c| Message::tool_result(c.id, self.call(c.name, c.arguments)))
            .collect();
        ToolResults { messages, seconds: 0.0 }
    }
}
