//! What the presets are built from: the parameter types only they take (when Anthropic's
//! clearing starts, how OpenAI's Responses API compacts) and the conditions and stages they
//! start from.

use std::fmt;

use crate::compact::amount::Amount;
use crate::compact::fire::{Cue, Fire, Measure};
use crate::compact::params::Param;
use crate::compact::shape::{Place, Reads, Reread, Tail};
use crate::compact::stage_info::StrategyError;
use crate::compact::stages::StageSpec;
use crate::compact::styles::Style;
use crate::fact::FactKind;

/// When Anthropic's tool-result clearing starts: input tokens, or tool uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClearAt {
    /// The request's input tokens pass this many.
    InputTokens(u64),
    /// Its tool uses pass this many.
    ToolUses(u64),
}

impl Param for ClearAt {
    const EXPECTED: &'static str = "input tokens (a whole number), or `tool_uses:N`";
    const EXAMPLES: &'static [&'static str] = &["100000", "60000", "tool_uses:4"];

    fn parse(text: &str) -> Option<ClearAt> {
        match text.strip_prefix("tool_uses:") {
            Some(n) => n.parse().ok().map(ClearAt::ToolUses),
            None => text.parse().ok().map(ClearAt::InputTokens),
        }
    }

    fn write(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        match self {
            ClearAt::InputTokens(n) => write!(out, "{n}"),
            ClearAt::ToolUses(n) => write!(out, "tool_uses:{n}"),
        }
    }
}

crate::named! {
    /// How OpenAI's Responses API compacts.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum OpenaiMode {
        /// Server-side: `context_management: [{"type": "compaction", "compact_threshold": N}]`.
        Server = "server",
        /// The client calls `POST /v1/responses/compact` once its own count reaches the threshold.
        Standalone = "standalone",
    }
}

impl Param for OpenaiMode {
    const EXPECTED: &'static str = "`server` or `standalone`";
    const EXAMPLES: &'static [&'static str] = &["server", "standalone"];

    fn parse(text: &str) -> Option<OpenaiMode> {
        OpenaiMode::parse(text)
    }

    fn write(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        out.write_str(self.as_str())
    }
}

/// A preset's error.
pub(super) fn err(msg: impl Into<String>) -> StrategyError {
    StrategyError(msg.into())
}

/// `tokens` of a `native` window, as an amount scaled to the run's.
pub(super) fn scaled(tokens: u64, native: u64) -> Amount {
    Amount::scaled(tokens, native)
}

/// A condition: `measure` reaching (`>=`) the amount.
pub(super) fn reaches(measure: Measure, amount: Amount) -> Fire {
    Fire::Any(vec![Cue {
        measure,
        strict: false,
        amount,
    }])
}

/// A condition: `measure` passing (`>`) the amount.
pub(super) fn passes(measure: Measure, amount: Amount) -> Fire {
    Fire::Any(vec![Cue {
        measure,
        strict: true,
        amount,
    }])
}

/// A `summarize` stage as the presets start from: ctxbench's defaults but for the trigger,
/// whose style and shape each preset sets.
pub(super) fn summary(trigger: Fire, style: Style, (place, tail, reads): (Place, Tail, Reads)) -> StageSpec {
    StageSpec::Summarize {
        keep: vec![FactKind::Id, FactKind::Number, FactKind::Decision],
        ratio: 0.1,
        trigger,
        place,
        tail,
        reads,
        carry: Amount::Tokens(0),
        reread: Reread::NONE,
        resummarize: true,
        overlap: 0,
        style,
    }
}

/// `stage` (a `summarize`) carrying the span's user messages over, up to `carry` tokens.
pub(super) fn with_carry(mut stage: StageSpec, amount: Amount) -> StageSpec {
    if let StageSpec::Summarize { carry, .. } = &mut stage {
        *carry = amount;
    }
    stage
}

/// Claude Code's threshold on a `window`: the window less min(max output, 20,000) less 13,000.
pub(super) fn claude_code_threshold(window: u64, max_output: u64) -> u64 {
    window.saturating_sub(max_output.min(20_000)).saturating_sub(13_000)
}

/// The Complexity Trap's summary stage: `n + m` turns fire it, the last `m` stay.
pub(super) fn swe_summary(n: usize, m: usize) -> StageSpec {
    summary(
        reaches(Measure::Turns, Amount::Tokens((n + m) as u64)),
        Style::SweAgent,
        (Place::After(1), Tail::Turns(m), Reads::Span),
    )
}
