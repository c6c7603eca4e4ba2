//! `summarize=`: the caller's function as the library's [`Summarizer`]. It receives the summary
//! request as dicts (the system prompt, the messages, the tool schemas, what to keep, the size
//! asked for, where the span is) and returns the summary's text, or None when the call failed
//! (the history then stays as it was). An exception it raises ends the compaction and reaches
//! the caller; an async function is awaited by the package's Python side.

use ctxbench_compact::compact::{Summarizer, SummaryRequest};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::convert::to_python;

/// The caller's function, and the first error it raised.
pub struct PySummarizer<'py> {
    function: Bound<'py, PyAny>,
    /// Summary calls made.
    pub calls: usize,
    /// The first exception raised (or a reply that is not text), which ends the compaction.
    pub error: Option<PyErr>,
}

impl<'py> PySummarizer<'py> {
    pub fn new(function: Bound<'py, PyAny>) -> PySummarizer<'py> {
        PySummarizer {
            function,
            calls: 0,
            error: None,
        }
    }

    fn request(&self, request: &SummaryRequest) -> PyResult<Bound<'py, PyDict>> {
        let py = self.function.py();
        let dict = PyDict::new(py);
        let system = request.system.as_ref().and_then(|m| m.content_str().map(str::to_owned));
        dict.set_item("system", system)?;
        let messages = PyList::empty(py);
        for message in &request.messages {
            messages.append(to_python(py, &message.clone().into_value())?)?;
        }
        dict.set_item("messages", messages)?;
        let tools = PyList::empty(py);
        for tool in request.tools.as_slice() {
            tools.append(to_python(py, tool)?)?;
        }
        dict.set_item("tools", tools)?;
        let keep: Vec<&str> = request.ask.keep.iter().map(|k| k.as_str()).collect();
        dict.set_item("keep", keep)?;
        dict.set_item("ratio", request.ask.ratio)?;
        dict.set_item("span", request.ask.span.as_ref().map(|r| (r.start, r.end)))?;
        dict.set_item("estimated_tokens", request.estimated_tokens)?;
        dict.set_item("limit", request.limit)?;
        dict.set_item("attempt", request.attempt)?;
        Ok(dict)
    }

    fn call(&mut self, request: &SummaryRequest) -> PyResult<Option<String>> {
        let request = self.request(request)?;
        let reply = self.function.call1((request,))?;
        if reply.is_none() {
            return Ok(None);
        }
        reply.extract::<String>().map(Some).map_err(|_| {
            PyTypeError::new_err(format!(
                "summarize returned a {}; it must return the summary's text (str) or None",
                reply
                    .get_type()
                    .name()
                    .map_or_else(|_| "value".to_owned(), |n| n.to_string())
            ))
        })
    }
}

impl Summarizer for PySummarizer<'_> {
    fn summarize(&mut self, request: &SummaryRequest) -> Option<String> {
        if self.error.is_some() {
            return None;
        }
        self.calls += 1;
        match self.call(request) {
            Ok(text) => text,
            Err(e) => {
                self.error = Some(e);
                None
            }
        }
    }
}
