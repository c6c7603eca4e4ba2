//! Every strategy stage, declared once: its name, what it does, its parameters with their
//! defaults and help, what triggers it, what lifts its loop guard, and the call into its
//! implementation. Parsing, canonical names, `--help` and parse errors all read from here, so a
//! new stage is one entry below and one file for how it compacts.
//!
//! A stage's canonical name spells every parameter in the declared order
//! (`mask:m=10,trigger=threshold`); a stage without parameters is its bare name (`drop`).

use super::amount::Amount;
use super::fire::{ClearTrigger, Fire};
use super::params::{ClearInputs, Flavor, MaskStyle, Param, ThinkingKeep, Trigger, Until};
use super::shape::{Place, Reads, Reread, Tail};
use super::stage_info::{Fresh, ParamInfo, StageInfo, StrategyError, err, hanging, param_info, unknown_param};
use super::stage_macro::stages;
use super::styles::Style;
use super::work::{StageContext, Work};
use super::{drop, mask, summarize, thinking, truncate};
use crate::fact::FactKind;

/// When a stage runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum When {
    /// Once the estimate passes the limit, while it is over the target.
    OverLimit,
    /// As [`When::OverLimit`], and also, as far as it can, when the provider's cache went cold.
    OverLimitOrCold,
    /// Before every call.
    Always,
    /// Before every call; the stage checks its own trigger (`clear-tool-uses:trigger=N`).
    OwnTrigger,
    /// When its own conditions fire ([`StageSpec::fire`]), which the compactor reads.
    Own,
}

impl When {
    /// What a [`Trigger`] means.
    fn of(trigger: Trigger) -> When {
        match trigger {
            Trigger::Threshold => When::OverLimit,
            Trigger::Always => When::Always,
            Trigger::Cold => When::OverLimitOrCold,
        }
    }
}

stages! {
    /// Does nothing: the baseline.
    None = "none" {}
    alone: true,
    fresh: ToolResult,
    when: When::OverLimit,
    run: |work, cx| true;

    /// Level 1: replaces old tool results, oldest first, by `[Truncated to save context: N chars.
    /// Preview: …]`, until the request fits.
    Truncate = "truncate" {
        /// The preview kept in the note, in UTF-16 units.
        preview: usize = 150,
        /// `threshold`: while over the limit, down to the target; `always`: before every call;
        /// `cold`: also before a call that would find the provider's cache cold.
        trigger: Trigger = Trigger::Threshold,
    }
    alone: false,
    fresh: RequestOrResult,
    when: When::of(*trigger),
    run: |work, cx| {
        let notes = if cx.over {
            truncate::Notes::Always
        } else {
            truncate::Notes::Shorter
        };
        truncate::truncate(work, *preview, Flavor::Ts, notes);
        true
    };

    /// Level 2: drops the oldest whole exchanges after the first request, until the request fits.
    Drop = "drop" {}
    alone: false,
    fresh: Request,
    when: When::OverLimit,
    run: |work, cx| {
        let keep = work.keep;
        drop::drop_exchanges(work, keep);
        true
    };

    /// Level 3: one `summary` call summarises the oldest exchanges after the first request; a
    /// user message `[Summary of earlier conversation]` replaces them. Its other parameters are
    /// how the compactors people run summarize (their presets set them).
    Summarize = "summarize" {
        /// Kinds of facts the summary is told to keep.
        keep: Vec<FactKind> = vec![FactKind::Id, FactKind::Number, FactKind::Decision],
        /// The summary's size as a fraction of the span's.
        ratio: f64 = 0.1,
        /// `limit`: once the estimate passes the policy's limit; else its own conditions
        /// (`reported>=90%`, `input>=150000/200000`, `turns>=31`, `events>240|input>100%`).
        trigger: Fire = Fire::Limit,
        /// Where the span starts and the summary goes: `span` after the first request, `first`
        /// at the history's start, `after:K` after its first K messages.
        place: Place = Place::Span,
        /// What stays after the span: `fit` as few exchanges summarized as make it fit, or
        /// `new`, `nothing`, the last `requests:N`, `messages:N`, `turns:N`, `events:N` or
        /// `tokens:AMOUNT`.
        tail: Tail = Tail::Fit,
        /// What the summary call reads: `span` (a fixed prompt and the span), `last:AMOUNT` (the
        /// span's last tokens), `transcript` (Google ADK's), `agent` (the agent's own request,
        /// which reads its cache) or `history` (the same without its tools).
        reads: Reads = Reads::Span,
        /// The span's user messages carried over before the summary, newest first, up to this
        /// many tokens (Codex's 20,000).
        carry: Amount = Amount::Tokens(0),
        /// Files read again after the summary: `FILES:AMOUNT`, each up to AMOUNT tokens.
        reread: Reread = Reread::NONE,
        /// `true`: an earlier summary in the span is summarized again; `false`: summaries stay
        /// and the span starts after the last.
        resummarize: bool = true,
        /// Requests of the previous span the summarizer reads again (Google ADK's overlap).
        overlap: usize = 0,
        /// Whose prompt and summary message: `ctxbench`, `claude-code`, `codex`, `langchain`,
        /// `openhands`, `swe-agent`, `adk` or `compaction` (a provider's compaction block).
        style: Style = Style::Ctxbench,
    }
    alone: false,
    fresh: Request,
    when: if *trigger == Fire::Limit { When::OverLimit } else { When::Own },
    run: |work, cx| {
        let params = summarize::Params {
            keep,
            ratio: *ratio,
            place: *place,
            tail: *tail,
            reads: *reads,
            carry: *carry,
            reread: *reread,
            resummarize: *resummarize,
            overlap: *overlap,
            style: *style,
        };
        summarize::summarize(work, &params, cx)
    };

    /// Observation masking: replaces tool results older than the last `m` by `[Output of <tool>
    /// omitted: N chars]`, oldest first.
    Mask = "mask" {
        /// How many recent tool results are never masked.
        m: usize = 10,
        /// `threshold`: while over the limit, down to the target; `always`: before every call;
        /// `cold`: also before a call that would find the provider's cache cold.
        trigger: Trigger = Trigger::Threshold,
        /// `ctxbench`: `[Output of TOOL omitted: N chars]` where shorter; `swe-agent`: SWE-agent's
        /// `Old environment output: (N lines omitted)` in place of every old result.
        style: MaskStyle = MaskStyle::Ctxbench,
    }
    alone: false,
    fresh: ToolResult,
    when: When::of(*trigger),
    run: |work, cx| {
        mask::mask(work, *m, *trigger == Trigger::Always, *style);
        true
    };

    /// Sliding window: drops the oldest exchanges until the request fits or only the last
    /// max(`n`, keep) remain.
    Window = "window" {
        /// How many recent exchanges always stay.
        n: usize = 4,
    }
    alone: false,
    fresh: Request,
    when: When::OverLimit,
    run: |work, cx| {
        let keep = (*n).max(work.keep);
        drop::drop_exchanges(work, keep);
        true
    };

    /// Tool-result clearing as in Anthropic's context editing: replaces results older than the
    /// last `keep` by `[cleared]`, oldest first, once the estimate passes `trigger`.
    ClearToolUses = "clear-tool-uses" {
        /// Start when the estimate passes this many tokens; `limit`: the policy's limit; `cold`:
        /// the limit, or a call that would find the provider's cache cold; or conditions as
        /// `summarize.trigger` takes them (`input>100000/200000`, `tool_uses>30`).
        trigger: ClearTrigger = ClearTrigger::Limit,
        /// How many recent tool results are never cleared.
        keep: usize = 3,
        /// Clear nothing unless at least this many tokens are freed.
        clear_at_least: Amount = Amount::Tokens(0),
        /// Tools whose results are never cleared.
        exclude: Vec<String> = Vec::new(),
        /// The calls emptied with their results (`{}`): `false`, `true`, or tools' names.
        inputs: ClearInputs = ClearInputs::None,
        /// `fit`: until under the trigger and the target; `all`: every result it may clear,
        /// stopping once `clear_at_least` is freed when that is set.
        until: Until = Until::Fit,
        /// `true`: each call clears from the history as the client keeps it, untouched (a
        /// server's context editing, LangChain's middleware); `false`: what it cleared stays so.
        stateless: bool = false,
    }
    alone: false,
    fresh: ToolResult,
    when: match trigger {
        ClearTrigger::Limit => When::OverLimit,
        ClearTrigger::Cold => When::OverLimitOrCold,
        ClearTrigger::Tokens(_) => When::OwnTrigger,
        ClearTrigger::Fire(_) => When::Own,
    },
    run: |work, cx| {
        let clear = mask::Clear {
            trigger: match trigger {
                _ if cx.cold_run => Some(0),
                ClearTrigger::Tokens(n) => Some(*n),
                ClearTrigger::Limit | ClearTrigger::Cold => Some(cx.limit),
                // Its conditions fired: it runs, down to the policy's target.
                ClearTrigger::Fire(_) => None,
            },
            keep: *keep,
            clear_at_least: clear_at_least.resolve(cx.window),
            exclude,
            inputs,
            until: *until,
        };
        mask::clear_tool_uses(work, &clear);
        true
    };

    /// Thinking clearing as in Anthropic's context editing: an assistant turn's thinking
    /// (`reasoning_content`, `reasoning` or `thinking` of a chat message) is removed from all
    /// but the last `keep` turns that think.
    ClearThinking = "clear-thinking" {
        /// How many recent thinking turns keep it: a number, or `all`.
        keep: ThinkingKeep = ThinkingKeep::Turns(1),
    }
    alone: false,
    fresh: Request,
    when: When::Always,
    run: |work, cx| {
        thinking::clear_thinking(work, *keep);
        true
    };

    /// The compaction pattern's own code (its TypeScript and Python `compact()`), ported line by
    /// line: truncate then drop, with that code's own estimate whatever `--estimator` says.
    Reference = "reference" {
        /// `ts` follows the pattern's TypeScript code, `py` its Python code.
        flavor: Flavor = Flavor::Ts,
    }
    alone: true,
    fresh: ToolResult,
    when: When::OverLimit,
    run: |work, cx| true;
}

/// The stage names, comma-separated, as errors list them.
pub fn stage_names() -> String {
    STAGES.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
}

/// Every stage and its parameters with their defaults, for `--help`: lines of at most 96
/// characters, so that a help printer wrapping at 100 leaves them as they are.
pub fn stages_help() -> String {
    let mut out = String::from(
        "Strategies: stages joined by `+`, run left to right before every call; a stage's\n\
         parameters follow a colon, separated by `,` (mask:m=5,trigger=always+drop). Levels 1 to 3\n\
         are those of the compaction pattern ctxbench measures (docs/strategies.md).\n",
    );
    for stage in STAGES {
        out.push('\n');
        out.push_str(&hanging(&format!("  {:<18}", stage.name), stage.help));
        for p in stage.params {
            let key = format!("{}={}", p.key, (p.default)());
            out.push_str(&hanging(&format!("      {key:<26} "), p.help));
        }
    }
    out
}

impl StageSpec {
    /// What `--help` says of it.
    pub fn info(&self) -> &'static StageInfo {
        let name = self.name();
        STAGES.iter().find(|s| s.name == name).unwrap_or(&STAGES[0])
    }

    /// Its own conditions, when they and not the policy's limit start it.
    pub(crate) fn fire(&self) -> Option<&Fire> {
        match self {
            StageSpec::Summarize {
                trigger: fire @ Fire::Any(_),
                ..
            }
            | StageSpec::ClearToolUses {
                trigger: ClearTrigger::Fire(fire),
                ..
            } => Some(fire),
            _ => None,
        }
    }

    /// Whether each call works from the history as the client keeps it, untouched by this
    /// stage's earlier calls (`clear-tool-uses:stateless=true`).
    pub(crate) fn stateless(&self) -> bool {
        matches!(self, StageSpec::ClearToolUses { stateless: true, .. })
    }

    /// Parses one stage: `name` or `name:key=value,key=value`.
    pub(crate) fn parse(text: &str) -> Result<StageSpec, StrategyError> {
        let (name, params) = match text.split_once(':') {
            Some((name, params)) => (name.trim(), Some(params)),
            None => (text.trim(), None),
        };
        let mut stage = StageSpec::default_of(name).ok_or_else(|| {
            if name.is_empty() {
                err(format!("empty strategy stage; expected one of: {}", stage_names()))
            } else {
                let names: Vec<&str> = STAGES.iter().map(|s| s.name).collect();
                let near = crate::words::nearest(name, &names)
                    .map(|n| format!("did you mean `{n}`? "))
                    .unwrap_or_default();
                err(format!(
                    "unknown strategy stage `{name}`; {near}expected one of: {}",
                    stage_names()
                ))
            }
        })?;
        for param in params.into_iter().flat_map(|p| p.split(',')) {
            let Some((key, value)) = param.split_once('=') else {
                return Err(err(format!("`{param}` in stage `{name}` is not key=value")));
            };
            // `summarize:aligned=` is what `reads` was called before it had more than two values.
            let (key, value) = match (name, key.trim(), value.trim()) {
                ("summarize", "aligned", "true") => ("reads", "agent"),
                ("summarize", "aligned", "false") => ("reads", "span"),
                (_, key, value) => (key, value),
            };
            stage.set(key, value)?;
        }
        Ok(stage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stage_reads_its_help_and_canonical_name_from_its_declaration() {
        let help = stages_help();
        for info in STAGES {
            let stage = StageSpec::default_of(info.name).expect("declared");
            assert_eq!(stage.name(), info.name);
            assert!(std::ptr::eq(stage.info(), info));
            let canonical = stage.to_string();
            let expect: Vec<String> = info
                .params
                .iter()
                .map(|p| format!("{}={}", p.key, (p.default)()))
                .collect();
            let spelled = if expect.is_empty() {
                info.name.to_owned()
            } else {
                format!("{}:{}", info.name, expect.join(","))
            };
            assert_eq!(canonical, spelled);
            assert_eq!(StageSpec::parse(&canonical).as_ref(), Ok(&stage), "{canonical}");
            assert!(help.contains(&format!("\n  {:<18}", info.name)), "{}", info.name);
            for line in &expect {
                assert!(help.contains(&format!("      {line:<26} ")), "{line}");
            }
            for p in info.params {
                let bad = StageSpec::default_of(info.name).expect("declared").set(p.key, "\u{1}");
                if p.expected.contains("tool names") {
                    continue;
                }
                assert_eq!(
                    bad.map_err(|e| e.0),
                    Err(format!("{}.{} must be {}, not `\u{1}`", info.name, p.key, p.expected))
                );
            }
        }
        assert!(help.lines().all(|l| l.chars().count() <= 96), "{help}");
    }
}
