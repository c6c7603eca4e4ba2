//! A scenario's work, estimated without running it, to balance the shards of a sweep
//! (`sweep::Plan`): what grows a run's time is each model call resending the history, so the
//! estimate is the characters the script's calls would send with nothing compacted.

use super::{FixtureTools, Scenario};

impl Scenario {
    /// The characters the script's model calls would send, summed over the calls, with nothing
    /// compacted: the system prompt, the messages so far, and each call's tool results as the
    /// fixtures give them (padding included).
    pub fn work(&self) -> u64 {
        let length = |text: &str| text.len() as u64;
        let mut tools = FixtureTools::new(&self.tools);
        let mut history = self.system.as_ref().map_or(0, |s| length(&s.text()))
            + self.preamble.iter().map(|m| length(&m.text())).sum::<u64>();
        let mut total: u64 = 0;
        for request in &self.requests {
            history += request.before.iter().map(|m| length(&m.text())).sum::<u64>() + length(&request.user.text());
            for step in &request.steps {
                total = total.saturating_add(history);
                history += step.content.as_deref().map_or(0, length);
                for call in &step.calls {
                    history += length(&call.arguments) + length(&tools.call_timed(&call.name, &call.arguments).0);
                }
            }
        }
        total
    }
}
