//! The kinds of value a stage parameter takes: how each is read from a strategy name, written in
//! a canonical one, and described in errors and `--help`.

use std::fmt::{self, Write};

use super::styles::Style;
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

/// Which tool calls `clear-tool-uses` empties besides their results (Anthropic's
/// `clear_tool_inputs`): none, all, or those of some tools.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClearInputs {
    /// Calls keep their arguments.
    None,
    /// Every cleared result's call is emptied too (`{}`).
    All,
    /// Only the calls of these tools.
    Tools(Vec<String>),
}

impl ClearInputs {
    /// Whether a call of `tool` is emptied with its result.
    pub fn covers(&self, tool: &str) -> bool {
        match self {
            ClearInputs::None => false,
            ClearInputs::All => true,
            ClearInputs::Tools(tools) => tools.iter().any(|t| t == tool),
        }
    }
}

impl Param for ClearInputs {
    const EXPECTED: &'static str = "`false`, `true`, or tool names separated by `/`";
    const EXAMPLES: &'static [&'static str] = &["false", "true", "get_order/read_file"];

    fn parse(text: &str) -> Option<ClearInputs> {
        match text {
            "false" | "" => Some(ClearInputs::None),
            "true" => Some(ClearInputs::All),
            _ => Some(ClearInputs::Tools(
                text.split('/').filter(|s| !s.is_empty()).map(str::to_owned).collect(),
            )),
        }
    }

    fn write(&self, out: &mut dyn Write) -> fmt::Result {
        match self {
            ClearInputs::None => out.write_str("false"),
            ClearInputs::All => out.write_str("true"),
            ClearInputs::Tools(tools) => out.write_str(&tools.join("/")),
        }
    }
}

crate::named! {
    /// How far `clear-tool-uses` clears once it runs.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Until {
        /// Until the request is under its trigger and the policy's target.
        Fit = "fit",
        /// Every result it may clear (stopping once `clear_at_least` is freed, when set), as
        /// Anthropic's context editing and LangChain's `ClearToolUsesEdit` do.
        All = "all",
    }
}

crate::named! {
    /// The placeholder `mask` writes.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum MaskStyle {
        /// `[Output of TOOL omitted: N chars]`, only where it is shorter than the result.
        Ctxbench = "ctxbench",
        /// SWE-agent's `Old environment output: (N lines omitted)`, in place of every old result.
        SweAgent = "swe-agent",
    }
}

/// How many assistant turns keep their thinking (`clear-thinking`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThinkingKeep {
    /// The last N turns that think.
    Turns(usize),
    /// Every turn: nothing is cleared.
    All,
}

impl Param for ThinkingKeep {
    const EXPECTED: &'static str = "a whole number of turns, or `all`";
    const EXAMPLES: &'static [&'static str] = &["0", "1", "2", "all"];

    fn parse(text: &str) -> Option<ThinkingKeep> {
        match text {
            "all" => Some(ThinkingKeep::All),
            _ => text.parse().ok().map(ThinkingKeep::Turns),
        }
    }

    fn write(&self, out: &mut dyn Write) -> fmt::Result {
        match self {
            ThinkingKeep::Turns(n) => write!(out, "{n}"),
            ThinkingKeep::All => out.write_str("all"),
        }
    }
}

/// A named enum ([`crate::named!`]) is a parameter by its names; `EXPECTED` and `EXAMPLES`
/// list them (a test holds them to the enum's own).
macro_rules! named_params {
    ($($t:ty: $expected:literal, [$($name:literal),*];)*) => {$(
        impl Param for $t {
            const EXPECTED: &'static str = $expected;
            const EXAMPLES: &'static [&'static str] = &[$($name),*];

            fn parse(text: &str) -> Option<$t> {
                <$t>::parse(text)
            }

            fn write(&self, out: &mut dyn Write) -> fmt::Result {
                out.write_str(self.as_str())
            }
        }
    )*};
}

named_params! {
    Until: "`fit` or `all`", ["fit", "all"];
    MaskStyle: "`ctxbench` or `swe-agent`", ["ctxbench", "swe-agent"];
    Style: "`ctxbench`, `claude-code`, `codex`, `langchain`, `openhands`, `swe-agent`, `adk` or `compaction`",
        ["ctxbench", "claude-code", "codex", "langchain", "openhands", "swe-agent", "adk", "compaction"];
}

#[cfg(test)]
mod named_tests {
    use super::*;
    use crate::named::Named;

    fn names<T: Named>() -> Vec<&'static str> {
        T::ALL.iter().map(|v| v.name()).collect()
    }

    #[test]
    fn named_parameters_list_every_name() {
        assert_eq!(Until::EXAMPLES, names::<Until>().as_slice());
        assert_eq!(MaskStyle::EXAMPLES, names::<MaskStyle>().as_slice());
        assert_eq!(Style::EXAMPLES, names::<Style>().as_slice());
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
    const EXPECTED: &'static str =
        "fact kinds separated by `/` (id, number, decision, path, artifact, command, detail)";
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
