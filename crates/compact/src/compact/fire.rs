//! A stage's own trigger: what it measures, and the amount that fires it. Where the policy's
//! limit is the textbook trigger (the estimate over 80% of the window), the compactors people run
//! count other things: the request's input tokens as the server counts them (Anthropic, OpenAI),
//! the last response's reported usage plus an estimate of what came since (Codex, Claude Code),
//! the messages alone (LangChain), or events, turns, requests and tool uses (OpenHands, SWE-agent,
//! Google ADK, Anthropic's `tool_uses`).
//!
//! Spelled `MEASURE>=AMOUNT` (fires once it reaches the amount) or `MEASURE>AMOUNT` (once it
//! passes it), several joined by `|` (any one fires): `events>240|input>100%`.

use std::fmt::{self, Write};

use super::amount::Amount;
use super::params::Param;

crate::named! {
    /// What a trigger measures.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Measure {
        /// The compactor's estimate of the whole request.
        Tokens = "tokens",
        /// The estimate of the messages alone, without the system prompt and tool schemas
        /// (LangChain counts its state's messages so).
        History = "history",
        /// The request's input tokens as the server counts them: exact when the compactor knows
        /// the server's counter, else as `reported`.
        Input = "input",
        /// The last response's reported usage (input and output) plus an estimate of what came
        /// since (Codex, Claude Code); before any response, the estimate.
        Reported = "reported",
        /// The last response's reported input tokens alone (Google ADK); before any, the estimate.
        LastInput = "last_input",
        /// Messages in the history.
        Messages = "messages",
        /// Events as OpenHands counts them: the system prompt, each tool call, each other message.
        Events = "events",
        /// Assistant turns since the last summary (SWE-agent's unprocessed turns).
        Turns = "turns",
        /// Requests answered since the last summary (Google ADK's invocations).
        Requests = "requests",
        /// Tool calls in the history (Anthropic's `tool_uses`).
        ToolUses = "tool_uses",
    }
}

impl Measure {
    /// Whether it counts things rather than tokens: its amount is a plain number.
    pub fn is_count(self) -> bool {
        matches!(
            self,
            Measure::Messages | Measure::Events | Measure::Turns | Measure::Requests | Measure::ToolUses
        )
    }
}

/// One condition: a measure reaching (`>=`) or passing (`>`) an amount.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cue {
    /// What is measured.
    pub measure: Measure,
    /// `>`: fires only past the amount; `>=`: from the amount on.
    pub strict: bool,
    /// The amount (a plain number for counts).
    pub amount: Amount,
}

impl Cue {
    /// Whether a reading fires it, the amount resolved on `window`.
    pub fn fires(&self, reading: u64, window: u64) -> bool {
        let amount = self.amount.resolve(window);
        if self.strict {
            reading > amount
        } else {
            reading >= amount
        }
    }
}

/// A stage's trigger: the policy's limit, or its own conditions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fire {
    /// Once the estimate passes the policy's limit, working down to its target.
    Limit,
    /// Whenever any of these holds.
    Any(Vec<Cue>),
}

impl Fire {
    /// `MEASURE>=AMOUNT` or `MEASURE>AMOUNT`.
    fn parse_cue(text: &str) -> Option<Cue> {
        let (name, strict, amount) = match text.split_once(">=") {
            Some((name, amount)) => (name, false, amount),
            None => {
                let (name, amount) = text.split_once('>')?;
                (name, true, amount)
            }
        };
        let measure = Measure::parse(name.trim())?;
        let amount = Amount::parse(amount.trim())?;
        if measure.is_count() && !matches!(amount, Amount::Tokens(_)) {
            return None;
        }
        Some(Cue {
            measure,
            strict,
            amount,
        })
    }
}

impl Param for Fire {
    const EXPECTED: &'static str = "`limit`, or conditions joined by `|`, each MEASURE>=AMOUNT or MEASURE>AMOUNT \
(measures: tokens, history, input, reported, last_input in tokens; messages, events, turns, requests, tool_uses counted)";
    const EXAMPLES: &'static [&'static str] = &[
        "limit",
        "tokens>=50%",
        "history>=80%",
        "input>=150000/200000",
        "reported>=90%",
        "last_input>=60%",
        "messages>=12",
        "events>40",
        "turns>=6",
        "requests>=2",
        "tool_uses>4",
        "tokens>=0",
        "events>30|input>100%",
    ];

    fn parse(text: &str) -> Option<Fire> {
        if text == "limit" {
            return Some(Fire::Limit);
        }
        let cues: Option<Vec<Cue>> = text.split('|').map(Fire::parse_cue).collect();
        cues.filter(|c| !c.is_empty()).map(Fire::Any)
    }

    fn write(&self, out: &mut dyn Write) -> fmt::Result {
        match self {
            Fire::Limit => out.write_str("limit"),
            Fire::Any(cues) => {
                for (k, cue) in cues.iter().enumerate() {
                    if k > 0 {
                        out.write_char('|')?;
                    }
                    let op = if cue.strict { ">" } else { ">=" };
                    write!(out, "{}{op}", cue.measure.as_str())?;
                    cue.amount.write(out)?;
                }
                Ok(())
            }
        }
    }
}

/// When `clear-tool-uses` starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClearTrigger {
    /// Once the estimate passes the policy's limit.
    Limit,
    /// Once the estimate passes this many tokens.
    Tokens(u64),
    /// Once the estimate passes the limit, or when the provider's cache went cold.
    Cold,
    /// Whenever its own conditions hold (`input>100000/200000`, `tool_uses>30`).
    Fire(Fire),
}

impl Param for ClearTrigger {
    const EXPECTED: &'static str = "`limit`, `cold`, a whole number of tokens the estimate passes, or conditions as `summarize.trigger` takes them";
    const EXAMPLES: &'static [&'static str] = &[
        "limit",
        "cold",
        "0",
        "500",
        "5000",
        "20000",
        "input>50%",
        "history>40%",
        "tool_uses>2",
    ];

    fn parse(text: &str) -> Option<ClearTrigger> {
        match text {
            "limit" => Some(ClearTrigger::Limit),
            "cold" => Some(ClearTrigger::Cold),
            _ => match text.parse() {
                Ok(n) => Some(ClearTrigger::Tokens(n)),
                Err(_) => match Fire::parse(text)? {
                    Fire::Limit => Some(ClearTrigger::Limit),
                    fire => Some(ClearTrigger::Fire(fire)),
                },
            },
        }
    }

    fn write(&self, out: &mut dyn Write) -> fmt::Result {
        match self {
            ClearTrigger::Tokens(n) => write!(out, "{n}"),
            ClearTrigger::Limit => out.write_str("limit"),
            ClearTrigger::Cold => out.write_str("cold"),
            ClearTrigger::Fire(fire) => fire.write(out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triggers_read_back_as_written() {
        for text in Fire::EXAMPLES {
            let fire = Fire::parse(text).unwrap_or_else(|| panic!("{text} reads"));
            let mut back = String::new();
            fire.write(&mut back).expect("writes");
            assert_eq!(&back, text);
        }
        for bad in [
            "",
            "tokens",
            "tokens=5",
            "turns>=50%",
            "events>2/3",
            "size>=4",
            "tokens>=5|",
            "cold",
        ] {
            assert_eq!(Fire::parse(bad), None, "{bad}");
        }
        let cue = |text| match Fire::parse(text) {
            Some(Fire::Any(cues)) => cues[0],
            other => panic!("{other:?}"),
        };
        assert!(cue("events>240").fires(241, 0) && !cue("events>240").fires(240, 0));
        assert!(cue("input>=150000/200000").fires(6000, 8000));
        assert!(!cue("input>=150000/200000").fires(5999, 8000));
    }
}
