//! `CompactReport`: what one compaction did, as the library's `Compaction` records it.

use ctxbench_compact::Compaction;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// What a compaction did: the estimate before and after against the limit, the messages
/// truncated, masked and dropped, the summary calls made, and each stage's part.
#[pyclass(module = "ctxbench._native", frozen, get_all)]
pub struct CompactReport {
    /// The strategy's canonical name.
    pub strategy: String,
    /// The estimator that decided (`chars4`, `o200k`, …).
    pub estimator: String,
    /// The estimate of the request before, in tokens.
    pub tokens_before: u64,
    /// The estimate after.
    pub tokens_after: u64,
    /// The limit the estimate is held under (the window × threshold, less the reply reserve).
    pub limit: u64,
    /// The context window.
    pub window: u64,
    /// Messages before and after (the system prompt counted).
    pub messages_before: usize,
    pub messages_after: usize,
    /// Tool results replaced by a truncation note.
    pub truncated: usize,
    /// Tool results replaced by a placeholder (`mask`, `clear-tool-uses`).
    pub masked: usize,
    /// Messages removed (by `drop`, `window`, a summary's span).
    pub dropped: usize,
    /// Summary calls made (`summarize`).
    pub summary_calls: usize,
    /// The pipeline did all it could and the estimate is still over the limit.
    pub cannot_fit: bool,
    /// The history changed.
    pub changed: bool,
    /// Each stage: its name, whether it ran, whether its loop guard held it back, and the
    /// estimate before and after it.
    pub stages: Py<PyList>,
    /// For chat messages: for each message returned, the index of the input message it came
    /// from (None for a summary); None for the other formats.
    pub sources: Option<crate::messages::Sources>,
}

impl CompactReport {
    pub fn new(
        py: Python<'_>,
        done: &Compaction,
        (strategy, estimator, window): (&str, &str, u64),
        system: usize,
        summary_calls: usize,
        sources: Option<crate::messages::Sources>,
    ) -> PyResult<CompactReport> {
        let stages = PyList::empty(py);
        for stage in &done.stages {
            let d = PyDict::new(py);
            d.set_item("stage", &stage.stage)?;
            d.set_item("ran", stage.ran)?;
            d.set_item("guarded", stage.guarded)?;
            d.set_item("tokens_before", stage.tokens_before)?;
            d.set_item("tokens_after", stage.tokens_after)?;
            stages.append(d)?;
        }
        Ok(CompactReport {
            strategy: strategy.to_owned(),
            estimator: estimator.to_owned(),
            tokens_before: done.tokens_before,
            tokens_after: done.tokens_after,
            limit: done.limit,
            window,
            messages_before: done.messages_before + system,
            messages_after: done.messages_after + system,
            truncated: done.counts.truncated,
            masked: done.counts.masked,
            dropped: done.counts.dropped,
            summary_calls,
            cannot_fit: done.cannot_fit,
            changed: done.changed(),
            stages: stages.unbind(),
            sources,
        })
    }
}

#[pymethods]
impl CompactReport {
    /// Every field, as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("strategy", &self.strategy)?;
        d.set_item("estimator", &self.estimator)?;
        d.set_item("tokens_before", self.tokens_before)?;
        d.set_item("tokens_after", self.tokens_after)?;
        d.set_item("limit", self.limit)?;
        d.set_item("window", self.window)?;
        d.set_item("messages_before", self.messages_before)?;
        d.set_item("messages_after", self.messages_after)?;
        d.set_item("truncated", self.truncated)?;
        d.set_item("masked", self.masked)?;
        d.set_item("dropped", self.dropped)?;
        d.set_item("summary_calls", self.summary_calls)?;
        d.set_item("cannot_fit", self.cannot_fit)?;
        d.set_item("changed", self.changed)?;
        d.set_item("stages", self.stages.bind(py))?;
        d.set_item("sources", self.sources.clone())?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "CompactReport({}: {} -> {} tokens, limit {}; {} truncated, {} masked, {} dropped, {} summary calls{})",
            self.strategy,
            self.tokens_before,
            self.tokens_after,
            self.limit,
            self.truncated,
            self.masked,
            self.dropped,
            self.summary_calls,
            if self.cannot_fit { "; cannot fit" } else { "" }
        )
    }
}
