//! The kinds of value a stage parameter takes: how each is read from a strategy name, written in
//! a canonical one, and described in errors and `--help`.

use std::fmt::{self, Write};

use crate::fact::FactKind;

/// A stage parameter's value type.
pub(crate) trait Param: Sized {
    /// What a value looks like, for errors and `--help` (`a whole number`).
    const EXPECTED: &'static str;

    /// Values of every shape it takes, edges included: what the property tests draw a stage's
    /// parameters from, so a new stage or parameter is tested without a list to keep.
    const EXAMPLES: &'static [&'static str];

    /// Reads a value; `None` when `text` is not one.
    fn parse(text: &str) -> Option<Self>;

    /// Writes the value as a canonical strategy name spells it.
    fn write(&self, out: &mut dyn Write) -> fmt::Result;
}

impl Param for usize {
    const EXPECTED: &'static str = "a whole number";
    const EXAMPLES: &'static [&'static str] = &["0", "1", "2", "5", "10", "150"];

    fn parse(text: &str) -> Option<usize> {
        text.parse().ok()
    }

    fn write(&self, out: &mut dyn Write) -> fmt::Result {
        write!(out, "{self}")
    }
}

impl Param for u64 {
    const EXPECTED: &'static str = "a whole number";
    const EXAMPLES: &'static [&'static str] = &["0", "1", "100", "2000", "20000"];

    fn parse(text: &str) -> Option<u64> {
        text.parse().ok()
    }

    fn write(&self, out: &mut dyn Write) -> fmt::Result {
        write!(out, "{self}")
    }
}

/// When `clear-tool-uses` starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClearTrigger {
    /// Once the estimate passes the policy's limit.
    Limit,
    /// Once the estimate passes this many tokens.
    Tokens(u64),
    /// Once the estimate passes the limit, or when the provider's cache went cold.
    Cold,
}

impl Param for ClearTrigger {
    const EXPECTED: &'static str = "`limit`, `cold` or a whole number of tokens";
    const EXAMPLES: &'static [&'static str] = &["limit", "cold", "0", "500", "5000", "20000"];

    fn parse(text: &str) -> Option<ClearTrigger> {
        match text {
            "limit" => Some(ClearTrigger::Limit),
            "cold" => Some(ClearTrigger::Cold),
            _ => text.parse().ok().map(ClearTrigger::Tokens),
        }
    }

    fn write(&self, out: &mut dyn Write) -> fmt::Result {
        match self {
            ClearTrigger::Tokens(n) => write!(out, "{n}"),
            ClearTrigger::Limit => out.write_str("limit"),
            ClearTrigger::Cold => out.write_str("cold"),
        }
    }
}

/// `true` or `false`.
impl Param for bool {
    const EXPECTED: &'static str = "`true` or `false`";
    const EXAMPLES: &'static [&'static str] = &["true", "false"];

    fn parse(text: &str) -> Option<bool> {
        match text {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    }

    fn write(&self, out: &mut dyn Write) -> fmt::Result {
        write!(out, "{self}")
    }
}

/// A fraction in (0, 1].
impl Param for f64 {
    const EXPECTED: &'static str = "a fraction in (0, 1]";
    const EXAMPLES: &'static [&'static str] = &["0.05", "0.1", "0.5", "1"];

    fn parse(text: &str) -> Option<f64> {
        text.parse::<f64>().ok().filter(|r| *r > 0.0 && *r <= 1.0)
    }

    fn write(&self, out: &mut dyn Write) -> fmt::Result {
        write!(out, "{self}")
    }
}

/// Tool names separated by `/` (possibly none).
impl Param for Vec<String> {
    const EXPECTED: &'static str = "tool names separated by `/`";
    const EXAMPLES: &'static [&'static str] = &["", "get_receipt", "get_order/read_file"];

    fn parse(text: &str) -> Option<Vec<String>> {
        Some(text.split('/').filter(|s| !s.is_empty()).map(str::to_owned).collect())
    }

    fn write(&self, out: &mut dyn Write) -> fmt::Result {
        out.write_str(&self.join("/"))
    }
}

/// Fact kinds separated by `/`.
impl Param for Vec<FactKind> {
    const EXPECTED: &'static str = "fact kinds separated by `/` (id, number, decision, path, command, detail)";
    const EXAMPLES: &'static [&'static str] = &["", "id", "id/number/decision", "path/command/detail"];

    fn parse(text: &str) -> Option<Vec<FactKind>> {
        text.split('/').filter(|s| !s.is_empty()).map(FactKind::parse).collect()
    }

    fn write(&self, out: &mut dyn Write) -> fmt::Result {
        let names: Vec<&str> = self.iter().map(|k| k.as_str()).collect();
        out.write_str(&names.join("/"))
    }
}

/// When a threshold-triggered stage runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// Only while the estimate is over the limit, stopping as soon as it fits (the target).
    Threshold,
    /// Before every call, whatever the estimate.
    Always,
    /// While over the limit, and also, as far as it can, before a call that would find the
    /// provider's cache cold (rewriting then costs no cache it would break).
    Cold,
}

impl Param for Trigger {
    const EXPECTED: &'static str = "`threshold`, `always` or `cold`";
    const EXAMPLES: &'static [&'static str] = &["threshold", "always", "cold"];

    fn parse(text: &str) -> Option<Trigger> {
        match text {
            "threshold" => Some(Trigger::Threshold),
            "always" => Some(Trigger::Always),
            "cold" => Some(Trigger::Cold),
            _ => None,
        }
    }

    fn write(&self, out: &mut dyn Write) -> fmt::Result {
        out.write_str(match self {
            Trigger::Threshold => "threshold",
            Trigger::Always => "always",
            Trigger::Cold => "cold",
        })
    }
}

/// Which reference listing `reference` ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// The TypeScript listing: `chars4`, UTF-16 lengths, `…`.
    Ts,
    /// The Python listing: `chars4-py`, code-point lengths, `...`.
    Py,
}

impl Param for Flavor {
    const EXPECTED: &'static str = "`ts` or `py`";
    const EXAMPLES: &'static [&'static str] = &["ts", "py"];

    fn parse(text: &str) -> Option<Flavor> {
        match text {
            "ts" => Some(Flavor::Ts),
            "py" => Some(Flavor::Py),
            _ => None,
        }
    }

    fn write(&self, out: &mut dyn Write) -> fmt::Result {
        out.write_str(match self {
            Flavor::Ts => "ts",
            Flavor::Py => "py",
        })
    }
}
