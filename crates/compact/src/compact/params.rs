//! The kinds of value a stage parameter takes: how each is read from a strategy name, written in
//! a canonical one, and described in errors and `--help`.

use std::fmt::{self, Write};

use crate::fact::FactKind;

/// A stage parameter's value type.
pub(crate) trait Param: Sized {
    /// What a value looks like, for errors and `--help` (`a whole number`).
    const EXPECTED: &'static str;

    /// Reads a value; `None` when `text` is not one.
    fn parse(text: &str) -> Option<Self>;

    /// Writes the value as a canonical strategy name spells it.
    fn write(&self, out: &mut dyn Write) -> fmt::Result;
}

impl Param for usize {
    const EXPECTED: &'static str = "a whole number";

    fn parse(text: &str) -> Option<usize> {
        text.parse().ok()
    }

    fn write(&self, out: &mut dyn Write) -> fmt::Result {
        write!(out, "{self}")
    }
}

impl Param for u64 {
    const EXPECTED: &'static str = "a whole number";

    fn parse(text: &str) -> Option<u64> {
        text.parse().ok()
    }

    fn write(&self, out: &mut dyn Write) -> fmt::Result {
        write!(out, "{self}")
    }
}

/// A number of tokens, or `limit`: the policy's limit.
impl Param for Option<u64> {
    const EXPECTED: &'static str = "`limit` or a whole number of tokens";

    fn parse(text: &str) -> Option<Option<u64>> {
        match text {
            "limit" => Some(None),
            _ => text.parse().ok().map(Some),
        }
    }

    fn write(&self, out: &mut dyn Write) -> fmt::Result {
        match self {
            Some(n) => write!(out, "{n}"),
            None => out.write_str("limit"),
        }
    }
}

/// A fraction in (0, 1].
impl Param for f64 {
    const EXPECTED: &'static str = "a fraction in (0, 1]";

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
    /// Only while the estimate is over the limit, stopping as soon as it fits.
    Threshold,
    /// Before every call, whatever the estimate.
    Always,
}

impl Param for Trigger {
    const EXPECTED: &'static str = "`threshold` or `always`";

    fn parse(text: &str) -> Option<Trigger> {
        match text {
            "threshold" => Some(Trigger::Threshold),
            "always" => Some(Trigger::Always),
            _ => None,
        }
    }

    fn write(&self, out: &mut dyn Write) -> fmt::Result {
        out.write_str(match self {
            Trigger::Threshold => "threshold",
            Trigger::Always => "always",
        })
    }
}

/// Which listing of the seed `reference` ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// The TypeScript listing: `chars4`, UTF-16 lengths, `…`.
    Ts,
    /// The Python listing: `chars4-py`, code-point lengths, `...`.
    Py,
}

impl Param for Flavor {
    const EXPECTED: &'static str = "`ts` or `py`";

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
