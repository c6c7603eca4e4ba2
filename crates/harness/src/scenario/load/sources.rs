//! Where each fact first appears: the script replayed as written (no compaction), and every
//! need checked to appear before its step.

use super::Loader;
use crate::error::Error;
use crate::scenario::{FixtureTools, Scenario};

impl Loader<'_> {
    /// Replays the script as written, to find each fact's first appearance and to check that
    /// every need appears before its step.
    pub(super) fn find_sources(&self, scenario: &mut Scenario) -> Result<(), Error> {
        let mut first_seen: Vec<Option<Option<(String, String)>>> = vec![None; scenario.facts.len()];
        let see =
            |text: &str, source: Option<(String, String)>, first_seen: &mut Vec<Option<Option<(String, String)>>>| {
                for (f, fact) in scenario.facts.iter().enumerate() {
                    if first_seen[f].is_none() && text.contains(&fact.value) {
                        first_seen[f] = Some(source.clone());
                    }
                }
            };
        if let Some(system) = &scenario.system {
            see(&system.text(), None, &mut first_seen);
        }
        for m in &scenario.preamble {
            see(&m.text(), None, &mut first_seen);
            for c in m.calls() {
                see(c.arguments, None, &mut first_seen);
            }
        }
        let mut tools = FixtureTools::new(&scenario.tools).named(scenario.tool_result_name);
        for (r, request) in scenario.requests.iter().enumerate() {
            for m in &request.before {
                see(&m.text(), None, &mut first_seen);
            }
            see(&request.user.text(), None, &mut first_seen);
            for (s, step) in request.steps.iter().enumerate() {
                for &need in &step.needs {
                    if first_seen[need].is_none() {
                        let fact = &scenario.facts[need];
                        return Err(self.err(
                            Some(r),
                            Some(s),
                            format!(
                                "needs fact {:?} ({:?}) before it appears anywhere",
                                fact.name, fact.value
                            ),
                        ));
                    }
                }
                if let Some(content) = &step.content {
                    see(content, None, &mut first_seen);
                }
                for call in &step.calls {
                    see(&call.arguments, None, &mut first_seen);
                }
                for call in &step.calls {
                    let (result, _) = tools.call_timed(&call.name, &call.arguments);
                    let refetchable = scenario.tools.iter().any(|t| t.name == call.name && t.refetchable);
                    let source = refetchable.then(|| (call.name.clone(), call.arguments.clone()));
                    see(&result, source, &mut first_seen);
                }
            }
        }
        for (fact, seen) in scenario.facts.iter_mut().zip(first_seen) {
            fact.refetch = seen.flatten();
        }
        Ok(())
    }
}
