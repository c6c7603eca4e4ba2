//! What a `summarize` stage asks of the agent that embeds the compactor: a [`Summarizer`] sends
//! a [`SummaryRequest`] to its model and returns the summary's text.
//!
//! The request is built here, the same for every agent. By default it is a fixed system prompt
//! ([`SUMMARIZER_PROMPT`], or the style's own) and the span as one user message, whose oldest
//! messages are left out until the request fits the window, measured on the very text that is
//! sent; or only the span's last tokens, or its transcript. Reading the agent's request
//! (`summarize:reads=agent`), it is the agent's own request (its system prompt, tools and
//! history up to the span's end) with the instruction as a last user message, so that it reads
//! the prompt cache the agent's calls wrote; it is sent as it is.

use std::borrow::Cow;
use std::ops::Range;

use crate::fact::FactKind;
use crate::message::{Message, Role};
use crate::tokens::TokenCounter;
use crate::tool_schemas::ToolSchemas;

/// The system prompt of a summary call, and the instruction that ends an aligned one.
pub const SUMMARIZER_PROMPT: &str = "You summarize the earlier part of a conversation between a user and an assistant \
so that the assistant can go on without it. Keep every identifier, number and decision exactly.";

/// What a summary is asked to keep, and its size.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryAsk {
    /// Kinds of facts the summary is told to keep.
    pub keep: Vec<FactKind>,
    /// The summary's size as a fraction of the span's.
    pub ratio: f64,
    /// Which of the request's messages are the span to summarise; `None`: all of them.
    pub span: Option<Range<usize>>,
}

/// One summary call, ready to send.
#[derive(Clone, Debug)]
pub struct SummaryRequest {
    /// The system prompt: [`SUMMARIZER_PROMPT`], or the agent's own when aligned.
    pub system: Option<Message>,
    /// The span as one user message; aligned, the agent's history up to the span's end and the
    /// instruction.
    pub messages: Vec<Message>,
    /// The tool schemas: none, or the agent's when aligned.
    pub tools: ToolSchemas,
    /// What the summary should keep, its size, and where the span is in `messages`.
    pub ask: SummaryAsk,
    /// The estimator's count of this request, in tokens.
    pub estimated_tokens: u64,
    /// The limit of the compaction that asks for it.
    pub limit: u64,
    /// 0 for the first call; each retry of a failed call counts one up.
    pub attempt: u32,
}

/// Whatever makes the summary call: the agent, through its model.
pub trait Summarizer {
    /// Sends `request` and returns the summary's text; `None` when the call failed (then the
    /// history stays as it was).
    fn summarize(&mut self, request: &SummaryRequest) -> Option<String>;
}

/// What a summary request is made from besides its span.
pub(crate) struct SummaryContext<'a> {
    /// The compactor's estimator.
    pub estimator: &'a dyn TokenCounter,
    /// The context window.
    pub window: u64,
    /// The limit of the compaction that asks for it.
    pub limit: u64,
}

/// Each tool call's arguments and each result at most this many characters in a transcript, as
/// Google ADK's summarizer cuts them (`_MAX_TOOL_CONTENT_CHARS`).
const TRANSCRIPT_TOOL_CHARS: usize = 2000;

impl SummaryRequest {
    /// `prompt` as the system prompt and `texts` joined as one user message, its oldest texts
    /// left out until the request fits the window as the estimator counts it.
    fn of_texts(prompt: &str, texts: &[Cow<'_, str>], ask: SummaryAsk, cx: &SummaryContext<'_>) -> SummaryRequest {
        let system = Message::new(Role::System, prompt);
        let tools = ToolSchemas::default();
        let body = |from: usize| vec![Message::new(Role::User, texts[from..].join("\n"))];
        let mut from = 0;
        let mut messages = body(from);
        while from + 1 < texts.len() && cx.estimator.count(Some(&system), &messages, &tools) > cx.window {
            from += 1;
            messages = body(from);
        }
        let estimated_tokens = cx.estimator.count(Some(&system), &messages, &tools);
        SummaryRequest {
            system: Some(system),
            messages,
            tools,
            ask,
            estimated_tokens,
            limit: cx.limit,
            attempt: 0,
        }
    }

    /// The summarizer's `prompt` and `span` as one user message, its oldest messages left out
    /// until the request fits the window as the estimator counts it.
    pub(crate) fn fitted(prompt: &str, span: &[Message], ask: SummaryAsk, cx: &SummaryContext<'_>) -> SummaryRequest {
        let texts: Vec<Cow<'_, str>> = span.iter().map(Message::text).collect();
        SummaryRequest::of_texts(prompt, &texts, ask, cx)
    }

    /// As [`SummaryRequest::fitted`], the span cut to the most recent whole messages within
    /// `budget` tokens, and then to those from its first request on (LangChain's
    /// `trim_messages(strategy="last", start_on="human")`; a message is never cut in part).
    pub(crate) fn trimmed(
        prompt: &str,
        span: &[Message],
        budget: u64,
        ask: SummaryAsk,
        cx: &SummaryContext<'_>,
    ) -> SummaryRequest {
        let mut used = 0;
        let mut from = span.len();
        while from > 0 {
            let cost = cx.estimator.tokens(cx.estimator.message_units(&span[from - 1]));
            if used + cost > budget {
                break;
            }
            used += cost;
            from -= 1;
        }
        let kept = &span[from..];
        let start = kept.iter().position(Message::is_request).unwrap_or(kept.len());
        SummaryRequest::fitted(prompt, &kept[start..], ask, cx)
    }

    /// The span as Google ADK's summarizer writes it out: a line per text (`user: …`,
    /// `agent: …`), per tool call (`agent called tool: NAME(ARGS)`) and per result (`Tool
    /// response from NAME: …`), tools' texts cut to 2,000 characters.
    pub(crate) fn transcript(
        prompt: &str,
        span: &[Message],
        ask: SummaryAsk,
        cx: &SummaryContext<'_>,
    ) -> SummaryRequest {
        let mut texts: Vec<Cow<'_, str>> = Vec::new();
        let mut names: Vec<(&str, &str)> = Vec::new();
        for message in span {
            let text = message.text();
            match message.role() {
                Role::Tool => {
                    let id = message.tool_call_id().unwrap_or_default();
                    let name = names
                        .iter()
                        .rev()
                        .find(|(i, _)| *i == id)
                        .map(|(_, n)| *n)
                        .or(message.name())
                        .unwrap_or("tool");
                    texts.push(format!("Tool response from {name}: {}", capped(&text)).into());
                }
                Role::Assistant => {
                    if !text.is_empty() {
                        texts.push(format!("agent: {text}").into());
                    }
                    for call in message.calls() {
                        names.push((call.id, call.name));
                        texts.push(format!("agent called tool: {}({})", call.name, capped(call.arguments)).into());
                    }
                }
                _ if !text.is_empty() => texts.push(format!("user: {text}").into()),
                _ => {}
            }
        }
        SummaryRequest::of_texts(prompt, &texts, ask, cx)
    }

    /// The agent's own request up to the span's end (`history[..span.end]`, with the agent's
    /// system prompt and `tools`: its own, or none), then `prompt` as a last user message. When
    /// that would not fit the window, its oldest messages are left out (a call with its results)
    /// until it does, as Codex does when its compaction request is too long.
    pub(crate) fn aligned(
        (system, tools): (Option<&Message>, &ToolSchemas),
        history: &[Message],
        span: Range<usize>,
        (prompt, ask): (&str, SummaryAsk),
        cx: &SummaryContext<'_>,
    ) -> SummaryRequest {
        let instruction = Message::new(Role::User, prompt);
        let units = |m: &Message| cx.estimator.message_units(m);
        let mut total = cx.estimator.prefix_units(system, tools)
            + units(&instruction)
            + history[..span.end].iter().map(units).sum::<u64>();
        let mut from = 0;
        while from < span.end && cx.estimator.tokens(total) > cx.window {
            // The oldest message goes, and the results that answer it with it.
            total -= units(&history[from]);
            from += 1;
            while from < span.end && history[from].role() == Role::Tool {
                total -= units(&history[from]);
                from += 1;
            }
        }
        let mut messages = history[from..span.end].to_vec();
        messages.push(instruction);
        let estimated_tokens = cx.estimator.tokens(total);
        SummaryRequest {
            system: system.cloned(),
            messages,
            tools: tools.clone(),
            ask: SummaryAsk {
                span: Some(span.start.saturating_sub(from)..span.end - from),
                ..ask
            },
            estimated_tokens,
            limit: cx.limit,
            attempt: 0,
        }
    }
}

/// A tool's text as a transcript shows it: whole up to 2,000 characters, else its head and
/// `... [truncated N chars]`.
fn capped(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(TRANSCRIPT_TOOL_CHARS) {
        None => Cow::Borrowed(text),
        Some((cut, _)) => {
            let rest = text[cut..].chars().count();
            Cow::Owned(format!("{}... [truncated {rest} chars]", &text[..cut]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;
    use crate::tokens::CounterKind;

    fn ask() -> SummaryAsk {
        SummaryAsk {
            keep: vec![],
            ratio: 0.1,
            span: None,
        }
    }

    #[test]
    fn a_transcript_is_adks() {
        let counter = CounterKind::Chars4.counter();
        let cx = SummaryContext {
            estimator: counter.as_ref(),
            window: 100_000,
            limit: 80_000,
        };
        let span = vec![
            Message::new(Role::User, "Where is order 4471?"),
            Message::assistant_calls([ToolCall {
                id: "c1",
                name: "get_order",
                arguments: r#"{"order":4471}"#,
            }]),
            Message::tool_result("c1", "x".repeat(2003)),
            Message::new(Role::Assistant, "It shipped."),
        ];
        let request = SummaryRequest::transcript("P", &span, ask(), &cx);
        assert_eq!(
            request.messages[0].text(),
            format!(
                "user: Where is order 4471?\nagent called tool: get_order({{\"order\":4471}})\nTool response from get_order: {}... [truncated 3 chars]\nagent: It shipped.",
                "x".repeat(2000)
            )
        );
    }

    #[test]
    fn a_trimmed_span_is_its_last_messages_from_a_request_on() {
        let counter = CounterKind::Chars4.counter();
        let cx = SummaryContext {
            estimator: counter.as_ref(),
            window: 100_000,
            limit: 80_000,
        };
        let span = vec![
            Message::new(Role::User, "first"),
            Message::new(Role::Assistant, "a".repeat(400)),
            Message::new(Role::User, "second"),
            Message::new(Role::Assistant, "b".repeat(40)),
        ];
        let texts = |budget| {
            SummaryRequest::trimmed("P", &span, budget, ask(), &cx).messages[0]
                .text()
                .into_owned()
        };
        assert_eq!(
            texts(1000),
            span.iter()
                .map(|m| m.text().into_owned())
                .collect::<Vec<_>>()
                .join("\n")
        );
        assert_eq!(texts(40), format!("second\n{}", "b".repeat(40)));
        assert_eq!(texts(10), "", "the last message alone, no request in it: nothing");
    }
}
