//! `summarize` (the reference listing's level 3): one model call summarises a span of the
//! history, and the summary replaces it where it began. Such a message is not a request.
//!
//! By default the span is the shortest run of whole exchanges after the first request (oldest
//! first, never into the protected tail) whose replacement by a summary of `ratio` × its size
//! would fit; all of them when none would. The other parameters ([`super::shape`]) give the
//! spans, summaries and companions of the compactors people run: everything but a new request
//! (Claude Code, Codex), the last messages or turns or events (LangChain, SWE-agent, OpenHands),
//! the user's messages carried over (Codex), files read again (Claude Code), earlier summaries
//! kept (Google ADK's sliding window).
//!
//! System messages inside the span stay, at its start (after what replaces it when the span
//! starts the history, so that none reads as the system prompt). When the summary call fails, or what
//! replaces the span is no smaller than it, nothing changes (the call was still made, and
//! billed): a failed summary is never committed. Without a [`super::Summarizer`] the stage does
//! not run.

use std::ops::Range;

use super::amount::Amount;
use super::carry;
use super::notes::is_summary;
use super::shape::{Place, Reads, Reread, Tail};
use super::styles::Style;
use super::summarizer::{SummaryAsk, SummaryContext, SummaryRequest};
use super::tally;
use super::work::{StageContext, Work};
use crate::conversation::{first_user, keep_from};
use crate::fact::FactKind;
use crate::message::{Message, Role};
use crate::tool_schemas::ToolSchemas;

/// `summarize`'s parameters.
pub(crate) struct Params<'a> {
    pub keep: &'a [FactKind],
    pub ratio: f64,
    pub place: Place,
    pub tail: Tail,
    pub reads: Reads,
    pub carry: Amount,
    pub reread: Reread,
    pub resummarize: bool,
    pub overlap: usize,
    pub style: Style,
}

/// Where the span starts: after the first request, at the history's start, or after its first
/// K messages; past the last summary when summaries are kept; never on a result whose call
/// stays before it. `None` without the request `place=span` needs.
fn span_start(messages: &[Message], p: &Params<'_>) -> Option<usize> {
    let mut start = match p.place {
        Place::Span => first_user(messages)? + 1,
        Place::First => 0,
        Place::After(k) => k.min(messages.len()),
    };
    if !p.resummarize {
        if let Some(at) = tally::last_summary(messages) {
            start = start.max(at + 1);
        }
    }
    Some(tally::start_at(messages, start))
}

/// Where the span ends for the tails that do not depend on the summary's size (all but `fit`).
fn span_end(work: &Work<'_>, tail: Tail, start: usize, window: u64) -> usize {
    let messages = work.messages();
    let len = messages.len();
    let end = match tail {
        Tail::Fit | Tail::Nothing => len,
        Tail::New => match messages.last() {
            Some(last) if last.is_request() => len - 1,
            _ => len,
        },
        Tail::Requests(0) | Tail::Messages(0) | Tail::Turns(0) | Tail::Events(0) => len,
        Tail::Requests(n) => keep_from(messages, n),
        Tail::Messages(n) => len.saturating_sub(n),
        Tail::Turns(n) => tally::last_turns(messages, n),
        // OpenHands cuts at the next place that keeps a call with its results: the tail is
        // at most its events.
        Tail::Events(n) => tally::start_at(messages, tally::last_events(messages, n)),
        Tail::Tokens(budget) => {
            let budget = budget.resolve(window);
            let mut units = 0;
            let mut at = len;
            while at > start && work.tokens_of(units + work.units(at - 1)) <= budget {
                units += work.units(at - 1);
                at -= 1;
            }
            at
        }
    };
    tally::end_at(messages, start, end.min(tally::pending_from(messages)))
}

/// The reference listing's span: the shortest run of whole exchanges from `start` whose summary
/// would make the request fit the goal, never into the last `keep` requests; all of them when
/// none would. `None` when there is no exchange to summarize.
fn fitting_end(work: &Work<'_>, start: usize, ratio: f64) -> Option<usize> {
    let messages = work.messages();
    let tail = keep_from(messages, work.keep);
    let boundaries: Vec<usize> = (start + 1..=tail)
        .filter(|&i| messages.get(i).is_some_and(Message::is_request))
        .collect();
    let &last = boundaries.last()?;
    let fits_after = |end: usize| {
        let units = span_units(work, start..end);
        let summary = (units as f64 * ratio).ceil() as u64;
        work.estimate_without(units.saturating_sub(summary)) <= work.goal
    };
    Some(boundaries.iter().copied().find(|&b| fits_after(b)).unwrap_or(last))
}

/// What the span's messages cost, its instructions (which stay) left out.
fn span_units(work: &Work<'_>, span: Range<usize>) -> u64 {
    span.filter(|&i| !work.messages()[i].role().is_instruction())
        .map(|i| work.units(i))
        .sum()
}

/// Runs the stage; `false` without a summarizer.
pub(crate) fn summarize(work: &mut Work<'_>, p: &Params<'_>, cx: &mut StageContext<'_>) -> bool {
    if cx.summarizer.is_none() {
        return false;
    }
    let Some(start) = span_start(work.messages(), p) else {
        return true;
    };
    let end = match p.tail {
        Tail::Fit => fitting_end(work, start, p.ratio),
        tail => Some(span_end(work, tail, start, cx.window)),
    };
    let Some(end) = end.filter(|&end| end > start) else {
        return true;
    };
    let span: Vec<Message> = work.messages()[start..end]
        .iter()
        .filter(|m| !m.role().is_instruction())
        .cloned()
        .collect();
    if span.is_empty() {
        return true;
    }
    let window = cx.window;
    let carried = if p.carry.is_zero() {
        Vec::new()
    } else {
        carry::carried(&span, p.carry.resolve(window))
    };
    let reread = match p.reread {
        Reread { files: 0, .. } => Vec::new(),
        Reread { files, tokens } => carry::reread(&span, files, tokens.resolve(window), cx.estimator),
    };
    let Some(text) = ask(work, p, cx, (&span, start..end)) else {
        return true;
    };
    // The span's last requests, which the next summary reads again (Google ADK's overlap).
    if p.overlap > 0 {
        cx.stash = span[keep_from(&span, p.overlap)..].to_vec();
    }
    let turns = span
        .iter()
        .filter(|m| m.role() == Role::Assistant && !is_summary(m))
        .count();
    let mut new = carried;
    new.push(p.style.message(&text, turns));
    new.extend(reread);
    // What replaces the span no smaller than it would raise the estimate: keep the history.
    let new_units: u64 = new.iter().map(|m| work.message_units(m)).sum();
    if new_units >= span_units(work, start..end) {
        return true;
    }
    work.remove(start..end);
    work.apply_removals();
    // The span's system messages stayed at its start; what replaces it goes after them, but at
    // the history's very start, where a system message would read as the system prompt.
    let at = if start == 0 {
        0
    } else {
        (start..)
            .find(|&i| work.messages().get(i).is_none_or(|m| !m.role().is_instruction()))
            .unwrap_or(start)
    };
    for (k, message) in new.into_iter().enumerate() {
        work.insert(at + k, message);
    }
    true
}

/// Asks the summarizer for the span's summary, reading what `reads` says, again after a failed
/// call up to the retries; `None` when every call failed.
fn ask(
    work: &Work<'_>,
    p: &Params<'_>,
    cx: &mut StageContext<'_>,
    (span, range): (&[Message], Range<usize>),
) -> Option<String> {
    let ask = SummaryAsk {
        keep: p.keep.to_vec(),
        ratio: p.ratio,
        span: None,
    };
    let fit = SummaryContext {
        estimator: cx.estimator,
        window: cx.window,
        limit: cx.limit,
    };
    let prompt = p.style.prompt();
    // The previous span's last requests first, when the summarizer reads them again.
    let read: Vec<Message> = cx.stash.iter().chain(span).cloned().collect();
    let no_tools = ToolSchemas::default();
    let mut request = match p.reads {
        Reads::Span => SummaryRequest::fitted(prompt, &read, ask, &fit),
        Reads::Last(budget) => SummaryRequest::trimmed(prompt, &read, budget.resolve(cx.window), ask, &fit),
        Reads::Transcript => SummaryRequest::transcript(prompt, &read, ask, &fit),
        Reads::Agent => SummaryRequest::aligned((cx.system, cx.tools), work.messages(), range, (prompt, ask), &fit),
        Reads::History => SummaryRequest::aligned((cx.system, &no_tools), work.messages(), range, (prompt, ask), &fit),
    };
    for attempt in 0..=cx.retries {
        request.attempt = attempt;
        if let Some(text) = cx.summarizer.as_mut()?.summarize(&request) {
            cx.summarized += 1;
            return Some(text);
        }
    }
    cx.failures += 1;
    None
}
