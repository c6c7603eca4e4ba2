//! What one compaction did, as the JSON object the package returns as `report`: the Python
//! package's `CompactReport` fields in camelCase (`tokensBefore`, `summaryCalls`, `cannotFit`, …).

use ctxbench_compact::Compaction;
use serde_json::{Value, json};

use crate::messages::Sources;

/// The strategy's canonical name, the estimator's name and the window: what the report echoes.
pub struct Echo<'a> {
    pub strategy: &'a str,
    pub estimator: &'a str,
    pub window: u64,
}

/// The report of `done`. `system` is 1 when the system prompt was held apart from the messages
/// (it is counted among them, as the caller sees it); `sources`, for chat, the input message each
/// returned one came from (null for a summary).
pub fn report(
    done: &Compaction,
    echo: &Echo<'_>,
    system: usize,
    summary_calls: usize,
    sources: Option<&Sources>,
) -> Value {
    let stages: Vec<Value> = done
        .stages
        .iter()
        .map(|stage| {
            json!({
                "stage": stage.stage,
                "ran": stage.ran,
                "guarded": stage.guarded,
                "tokensBefore": stage.tokens_before,
                "tokensAfter": stage.tokens_after,
            })
        })
        .collect();
    json!({
        "strategy": echo.strategy,
        "estimator": echo.estimator,
        "tokensBefore": done.tokens_before,
        "tokensAfter": done.tokens_after,
        "limit": done.limit,
        "window": echo.window,
        "messagesBefore": done.messages_before + system,
        "messagesAfter": done.messages_after + system,
        "truncated": done.counts.truncated,
        "masked": done.counts.masked,
        "dropped": done.counts.dropped,
        "summaryCalls": summary_calls,
        "cannotFit": done.cannot_fit,
        "changed": done.changed(),
        "stages": stages,
        "sources": sources,
    })
}
