//! The scenario's fixtures as the agent's tools: each call of an assistant message answered by
//! [`FixtureTools`], the results in order of their delay, on the run's clock.

use ctxbench_compact::message::{Message, ToolCall};

use crate::agent::tools::{ToolResults, Tools};
use crate::scenario::DEFAULT_TOOL_LATENCY_S;
use crate::scenario::FixtureTools;
use crate::scenario::fixtures::Answer;

impl Tools for FixtureTools<'_> {
    fn call(&mut self, name: &str, arguments: &str) -> String {
        self.call_timed(name, arguments).0
    }

    fn answer(&mut self, calls: &[ToolCall<'_>]) -> ToolResults {
        let mut seconds: f64 = 0.0;
        let mut answers: Vec<(u64, Message)> = calls
            .iter()
            .map(|c| {
                let (delay, content, took) = match self.lookup(c.name, c.arguments) {
                    Answer::Fixture(result) => (result.delay, result.text.clone(), result.latency_s),
                    Answer::Text(text) => (0, Some(text), DEFAULT_TOOL_LATENCY_S),
                };
                seconds = seconds.max(took);
                let message = Message::tool_result_as(c.id, self.named.then_some(c.name), content);
                (delay, message)
            })
            .collect();
        // Stable: equal delays keep the order of the calls.
        answers.sort_by_key(|(delay, _)| *delay);
        ToolResults {
            messages: answers.into_iter().map(|(_, m)| m).collect(),
            seconds,
        }
    }
}
