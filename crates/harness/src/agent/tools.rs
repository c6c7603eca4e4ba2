//! The tools an agent calls: whatever runs a model's tool calls and answers them with tool
//! messages. A simulation answers from a scenario's fixtures (`scenario::FixtureTools`).

use ctxbench_compact::message::{Message, ToolCall};

/// Something that runs tool calls.
pub trait Tools {
    /// Runs one call and returns its result text.
    fn call(&mut self, name: &str, arguments: &str) -> String;

    /// Answers the calls of one assistant message with tool messages, in the order the results
    /// come back. By default each call in turn, as `{"role":"tool","tool_call_id":…,"content":…}`.
    fn answer(&mut self, calls: &[ToolCall<'_>]) -> Vec<Message> {
        calls
            .iter()
            .map(|c| Message::tool_result(c.id, self.call(c.name, c.arguments)))
            .collect()
    }
}
