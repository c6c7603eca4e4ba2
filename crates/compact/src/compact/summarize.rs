//! `summarize` (the reference listing's level 3): one model call summarises the oldest exchanges after the
//! first request, and one user message starting `[Summary of earlier conversation]` replaces
//! them where they began. Such a message is not a request.
//!
//! The span is the shortest run of whole exchanges (oldest first, never into the protected tail)
//! whose replacement by a summary of `ratio` × its size would fit; all of them when none would.
//! System messages inside the span stay. When the summary call fails, or the summary is no
//! smaller than the span, nothing changes (the call was still made, and billed): a failed summary
//! is never committed. Without a [`super::Summarizer`] the stage does not run.

use super::summarizer::{SummaryAsk, SummaryContext, SummaryRequest};
use super::work::{StageContext, Work};
use crate::conversation::{first_user, keep_from};
use crate::fact::FactKind;
use crate::message::{Message, Role, SUMMARY_PREFIX};

/// Runs the stage, protecting the policy's last requests; `false` without a summarizer.
pub(crate) fn summarize(
    work: &mut Work<'_>,
    keep: &[FactKind],
    (ratio, aligned): (f64, bool),
    cx: &mut StageContext<'_>,
) -> bool {
    let Some(summarizer) = cx.summarizer.as_mut() else {
        return false;
    };
    let ask = SummaryAsk {
        keep: keep.to_vec(),
        ratio,
        span: None,
    };
    let Some(first) = first_user(work.messages()) else {
        return true;
    };
    let tail = keep_from(work.messages(), work.keep);
    let start = first + 1;
    let boundaries: Vec<usize> = (start + 1..=tail)
        .filter(|&i| work.messages().get(i).is_some_and(Message::is_request))
        .collect();
    let Some(&last) = boundaries.last() else { return true };
    let span_units = |end: usize| -> u64 {
        (start..end)
            .filter(|&i| !work.messages()[i].role().is_instruction())
            .map(|i| work.units(i))
            .sum()
    };
    let fits_after = |end: usize| {
        let units = span_units(end);
        let summary = (units as f64 * ratio).ceil() as u64;
        work.estimate_without(units.saturating_sub(summary)) <= work.goal
    };
    let end = boundaries.iter().copied().find(|&b| fits_after(b)).unwrap_or(last);
    let span: Vec<Message> = (start..end)
        .map(|i| &work.messages()[i])
        .filter(|m| !m.role().is_instruction())
        .cloned()
        .collect();
    if span.is_empty() {
        return true;
    }
    let fit = SummaryContext {
        estimator: cx.estimator,
        window: cx.window,
        limit: cx.limit,
    };
    let request = if aligned {
        SummaryRequest::aligned((cx.system, cx.tools), work.messages(), start..end, ask, &fit)
    } else {
        SummaryRequest::fitted(&span, ask, &fit)
    };
    let Some(text) = summarizer.summarize(&request) else {
        return true;
    };
    let summary = Message::new(Role::User, format!("{SUMMARY_PREFIX}\n{text}"));
    // A summary no smaller than what it replaces would raise the estimate: keep the history.
    if work.message_units(&summary) >= span_units(end) {
        return true;
    }
    work.remove(start..end);
    work.apply_removals();
    // The span's system messages stayed at its start; the summary goes after them.
    let at = (start..)
        .find(|&i| work.messages().get(i).is_none_or(|m| !m.role().is_instruction()))
        .unwrap_or(start);
    work.insert(at, summary);
    true
}
