//! The shape of a summary, as `summarize`'s parameters give it: where its span starts and where
//! the summary goes (`place`), what stays after the span (`tail`), what the summarizer reads
//! (`reads`), and which files are read again after it (`reread`).
//!
//! `place=span, tail=fit, reads=span` is the reference listing's level 3: the oldest whole
//! exchanges after the first request, as few as make the request fit, summarized from a fixed
//! prompt and the span, the summary where they were. The others are what the compactors people
//! run do: everything summarized but a new request (Claude Code, Codex), the last 20 messages
//! kept (LangChain), the summary after the first message (SWE-agent, OpenHands), the summarizer
//! reading the agent's own request to read its cache (Claude Code) or only the span's last 4,000
//! tokens (LangChain).

use std::fmt::{self, Write};

use super::amount::Amount;
use super::params::Param;

/// Where the span starts, and so where the summary goes (in the span's place).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// After the first request message: the first request stays, the summary follows it.
    Span,
    /// At the history's start: the summary is the first message after the system prompt.
    First,
    /// After the first `K` messages.
    After(usize),
}

impl Param for Place {
    const EXPECTED: &'static str = "`span`, `first` or `after:K` (K messages)";
    const EXAMPLES: &'static [&'static str] = &["span", "first", "after:0", "after:1", "after:3"];

    fn parse(text: &str) -> Option<Place> {
        match text {
            "span" => Some(Place::Span),
            "first" => Some(Place::First),
            _ => text.strip_prefix("after:")?.parse().ok().map(Place::After),
        }
    }

    fn write(&self, out: &mut dyn Write) -> fmt::Result {
        match self {
            Place::Span => out.write_str("span"),
            Place::First => out.write_str("first"),
            Place::After(k) => write!(out, "after:{k}"),
        }
    }
}

/// What stays after the span. A final assistant message whose calls have no results yet always
/// stays, and a cut never separates a result from its call: it moves back to the call (forward
/// past its results for `events`, as OpenHands cuts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tail {
    /// The reference listing's: the span is the shortest run of whole exchanges whose summary
    /// makes the request fit, never into the policy's protected requests.
    Fit,
    /// Nothing but a request not answered yet (the history's last message, when it is one).
    New,
    /// Nothing: everything is summarized.
    Nothing,
    /// The last N requests.
    Requests(usize),
    /// The last N messages.
    Messages(usize),
    /// The last N assistant turns, with their results.
    Turns(usize),
    /// The last N events (each tool call an event, each other message one).
    Events(u64),
    /// The longest tail within this many tokens.
    Tokens(Amount),
}

impl Param for Tail {
    const EXPECTED: &'static str =
        "`fit`, `new`, `nothing`, or the last `requests:N`, `messages:N`, `turns:N`, `events:N` or `tokens:AMOUNT`";
    const EXAMPLES: &'static [&'static str] = &[
        "fit",
        "new",
        "nothing",
        "requests:1",
        "requests:2",
        "messages:0",
        "messages:4",
        "turns:2",
        "events:5",
        "tokens:25%",
        "tokens:400",
    ];

    fn parse(text: &str) -> Option<Tail> {
        match text {
            "fit" => return Some(Tail::Fit),
            "new" => return Some(Tail::New),
            "nothing" => return Some(Tail::Nothing),
            _ => {}
        }
        let (kind, n) = text.split_once(':')?;
        match kind {
            "requests" => n.parse().ok().map(Tail::Requests),
            "messages" => n.parse().ok().map(Tail::Messages),
            "turns" => n.parse().ok().map(Tail::Turns),
            "events" => n.parse().ok().map(Tail::Events),
            "tokens" => Amount::parse(n).map(Tail::Tokens),
            _ => None,
        }
    }

    fn write(&self, out: &mut dyn Write) -> fmt::Result {
        match self {
            Tail::Fit => out.write_str("fit"),
            Tail::New => out.write_str("new"),
            Tail::Nothing => out.write_str("nothing"),
            Tail::Requests(n) => write!(out, "requests:{n}"),
            Tail::Messages(n) => write!(out, "messages:{n}"),
            Tail::Turns(n) => write!(out, "turns:{n}"),
            Tail::Events(n) => write!(out, "events:{n}"),
            Tail::Tokens(a) => {
                out.write_str("tokens:")?;
                a.write(out)
            }
        }
    }
}

/// What the summary call reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reads {
    /// The summarizer's prompt and the span, its oldest messages left out until it fits the
    /// window.
    Span,
    /// The same, the span cut to its last this-many tokens, starting at a request where one is
    /// in them (LangChain's `trim_tokens_to_summarize`).
    Last(Amount),
    /// The span as Google ADK's summarizer writes it out: a line per text, tool call and
    /// result (`user: …`, `agent called tool: …`, `Tool response from …`).
    Transcript,
    /// The agent's own request (system prompt, tools, history up to the span's end) and the
    /// instruction, so it reads the prompt cache the agent's calls wrote.
    Agent,
    /// The agent's system prompt and history up to the span's end and the instruction, without
    /// its tools (Codex's local compaction).
    History,
}

impl Param for Reads {
    const EXPECTED: &'static str = "`span`, `last:AMOUNT`, `transcript`, `agent` or `history`";
    const EXAMPLES: &'static [&'static str] = &["span", "last:50", "last:4000", "transcript", "agent", "history"];

    fn parse(text: &str) -> Option<Reads> {
        match text {
            "span" => Some(Reads::Span),
            "transcript" => Some(Reads::Transcript),
            "agent" => Some(Reads::Agent),
            "history" => Some(Reads::History),
            _ => Amount::parse(text.strip_prefix("last:")?).map(Reads::Last),
        }
    }

    fn write(&self, out: &mut dyn Write) -> fmt::Result {
        match self {
            Reads::Span => out.write_str("span"),
            Reads::Transcript => out.write_str("transcript"),
            Reads::Agent => out.write_str("agent"),
            Reads::History => out.write_str("history"),
            Reads::Last(a) => {
                out.write_str("last:")?;
                a.write(out)
            }
        }
    }
}

/// Files read again after a summary: the span's last `files` files read (results of calls with
/// a `file_path` or `path` argument), newest first, each whole when within `tokens`, else its
/// path alone (Claude Code brings back up to five, each up to 5,000 tokens).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reread {
    /// How many files at most; 0: none.
    pub files: usize,
    /// Each file's content up to this many tokens.
    pub tokens: Amount,
}

impl Reread {
    /// No file read again.
    pub const NONE: Reread = Reread {
        files: 0,
        tokens: Amount::Tokens(0),
    };
}

impl Param for Reread {
    const EXPECTED: &'static str = "`0`, or `FILES:AMOUNT` (each file up to AMOUNT tokens)";
    const EXAMPLES: &'static [&'static str] = &["0", "1:100", "5:5000/200000", "2:10%"];

    fn parse(text: &str) -> Option<Reread> {
        if text == "0" {
            return Some(Reread::NONE);
        }
        let (files, tokens) = text.split_once(':')?;
        let files: usize = files.parse().ok().filter(|&f| f > 0)?;
        Some(Reread {
            files,
            tokens: Amount::parse(tokens)?,
        })
    }

    fn write(&self, out: &mut dyn Write) -> fmt::Result {
        if self.files == 0 {
            return out.write_str("0");
        }
        write!(out, "{}:", self.files)?;
        self.tokens.write(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<T: Param + fmt::Debug + PartialEq>(examples: &[&str]) {
        for text in examples {
            let value = T::parse(text).unwrap_or_else(|| panic!("{text} reads"));
            let mut back = String::new();
            value.write(&mut back).expect("writes");
            assert_eq!(&back, text);
        }
    }

    #[test]
    fn shapes_read_back_as_written() {
        round_trip::<Place>(Place::EXAMPLES);
        round_trip::<Tail>(Tail::EXAMPLES);
        round_trip::<Reads>(Reads::EXAMPLES);
        round_trip::<Reread>(Reread::EXAMPLES);
        for bad in ["after", "after:-1", "before:2"] {
            assert_eq!(Place::parse(bad), None, "{bad}");
        }
        for bad in ["messages", "messages:x", "tokens:", "all"] {
            assert_eq!(Tail::parse(bad), None, "{bad}");
        }
        for bad in ["0:5", "3", "3:", "x:5"] {
            assert_eq!(Reread::parse(bad), None, "{bad}");
        }
    }
}
