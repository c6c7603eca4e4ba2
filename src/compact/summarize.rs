//! `summarize` (the seed's level 3): one model call summarises the oldest exchanges after the
//! first request, and one user message starting `[Summary of earlier conversation]` replaces
//! them where they began. Such a message is not a request.
//!
//! The span is the shortest run of whole exchanges (oldest first, never into the protected tail)
//! whose replacement by a summary of `ratio` × its size would fit; all of them when none would.
//! System messages inside the span stay. When the summary call fails, or the summary is no
//! smaller than the span, nothing changes (the call was still made, and billed).

use super::work::Work;
use crate::conversation::{first_user, keep_from};
use crate::fact::FactKind;
use crate::message::{Message, Role, SUMMARY_PREFIX};

/// What the summary call is asked for.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryAsk {
    /// Kinds of facts the summary is told to keep.
    pub keep: Vec<FactKind>,
    /// The summary's size as a fraction of the span's.
    pub ratio: f64,
}

/// Whatever makes the summary call (the agent loop, through its model).
pub trait Summarizer {
    /// Summarises `span`; `None` when the call failed (then the stage changes nothing).
    fn summarize(&mut self, span: &[Message], ask: &SummaryAsk) -> Option<String>;
}

/// Runs the stage, protecting the last `keep` requests.
pub(crate) fn summarize(work: &mut Work<'_>, keep: usize, ask: &SummaryAsk, summarizer: &mut dyn Summarizer) {
    let Some(first) = first_user(work.messages()) else {
        return;
    };
    let tail = keep_from(work.messages(), keep);
    let start = first + 1;
    let boundaries: Vec<usize> = (start + 1..=tail)
        .filter(|&i| work.messages().get(i).is_some_and(Message::is_request))
        .collect();
    let Some(&last) = boundaries.last() else { return };
    let span_units = |end: usize| -> u64 {
        (start..end)
            .filter(|&i| !work.messages()[i].role().is_instruction())
            .map(|i| work.units(i))
            .sum()
    };
    let fits_after = |end: usize| {
        let units = span_units(end);
        let summary = (units as f64 * ask.ratio).ceil() as u64;
        work.estimate_without(units.saturating_sub(summary)) <= work.limit
    };
    let end = boundaries.iter().copied().find(|&b| fits_after(b)).unwrap_or(last);
    let span: Vec<Message> = (start..end)
        .map(|i| &work.messages()[i])
        .filter(|m| !m.role().is_instruction())
        .cloned()
        .collect();
    if span.is_empty() {
        return;
    }
    let Some(text) = summarizer.summarize(&span, ask) else {
        return;
    };
    let summary = Message::new(Role::User, format!("{SUMMARY_PREFIX}\n{text}"));
    // A summary no smaller than what it replaces would raise the estimate: keep the history.
    if work.message_units(&summary) >= span_units(end) {
        return;
    }
    work.remove(start..end);
    work.apply_removals();
    // The span's system messages stayed at its start; the summary goes after them.
    let at = (start..)
        .find(|&i| work.messages().get(i).is_none_or(|m| !m.role().is_instruction()))
        .unwrap_or(start);
    work.insert(at, summary);
}
