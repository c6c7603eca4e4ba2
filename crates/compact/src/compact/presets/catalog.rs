//! The compactors people run, each declared once: its parameters, what its vendor accepts, the
//! library's stages it stands for, the level it compacts at, where each behaviour comes from,
//! and what ctxbench chose where the sources are silent.

use std::fmt;

use super::parts::{
    ClearAt, OpenaiMode, claude_code_threshold, err, passes, reaches, scaled, summary, swe_summary, with_carry,
};
use super::source::{PresetInfo, primary, secondary};
use crate::compact::amount::Amount;
use crate::compact::fire::{ClearTrigger, Measure};
use crate::compact::params::{ClearInputs, MaskStyle, Param, ThinkingKeep, Trigger, Until};
use crate::compact::shape::{Place, Reads, Reread, Tail};
use crate::compact::stage_info::{ParamInfo, StrategyError, param_info};
use crate::compact::stages::StageSpec;
use crate::compact::styles::Style;
use crate::fact::FactKind;

/// Anthropic's smallest `compact_20260112` trigger.
pub const ANTHROPIC_MIN_TRIGGER: u64 = 50_000;

const A_COMPACT_DOCS: &str = "https://platform.claude.com/docs/en/build-with-claude/compaction-threshold";
const A_SDK: &str = "https://github.com/anthropics/anthropic-sdk-python (types/beta, at 009b0353)";
const A_EDITING_DOCS: &str = "https://platform.claude.com/docs/en/build-with-claude/context-editing";
const VELOG: &str = "https://velog.io/@jungseonw00/claude-compaction-usage-iterations";
const O_COMPACT_GUIDE: &str = "https://developers.openai.com/api/docs/guides/compaction";
const O_SDK: &str = "https://github.com/openai/openai-python (types/responses, at e43b4224)";
const CODEX: &str = "https://github.com/openai/codex (codex-rs/core, @openai/codex 0.171.0)";
const CC_CHANGELOG: &str = "https://github.com/anthropics/claude-code/blob/main/CHANGELOG.md (v2.1.240)";
const CC_31806: &str = "https://github.com/anthropics/claude-code/issues/31806";
const CC_PACKAGE: &str = "@anthropic-ai/claude-code-linux-x64 2.1.332 (npm), its strings";
const CC_CONTEXT_DOCS: &str = "https://code.claude.com/docs/en/context-window (as quoted by dev.to/jgravelle)";
const OH_SDK: &str = "https://github.com/OpenHands/software-agent-sdk (llm_summarizing_condenser.py, at 611629e6)";
const LC_SUMMARY: &str = "langchain 1.5.2 (PyPI), langchain/agents/middleware/summarization.py";
const LC_EDITING: &str = "https://github.com/langchain-ai/langchain (libs/langchain_v1/langchain/agents/middleware/context_editing.py, at 925aa15f)";
const ADK_DOCS: &str = "https://github.com/google/adk-docs (docs/context/compaction.md, at 979a8fa9)";
const ADK: &str = "google-adk 2.13.0 (PyPI), google/adk/apps/compaction.py and llm_event_summarizer.py";
const SWEA: &str = "https://github.com/SWE-agent/SWE-agent (sweagent/agent/history_processors.py, at 3ea751c0)";
const CTRAP: &str = "https://github.com/Recursive-Safeguarding/the-complexity-trap (config/, at 1b07decf)";

presets! {
    /// Anthropic's server-side compaction (`compact_20260112`): once the request's input tokens
    /// reach the trigger, the server summarizes the whole conversation in an extra sampling step
    /// and drops everything before the `compaction` block on later requests.
    AnthropicCompact = "anthropic-compact" {
        /// Compact once the request's input tokens reach this many (at least 50,000).
        trigger: u64 = 150_000,
        /// The window the token amounts are stated for (0: as they are).
        native: u64 = 200_000,
    }
    check: if *trigger < ANTHROPIC_MIN_TRIGGER {
        Err(err(format!(
            "anthropic-compact.trigger must be at least 50000 (Anthropic's minimum for compact_20260112), not {trigger}; \
             it counts tokens of a window of `native` tokens, scaled to the run's window"
        )))
    } else {
        Ok(())
    },
    stages: vec![summary(
        reaches(Measure::Input, scaled(*trigger, *native)),
        Style::Compaction,
        (Place::First, Tail::Nothing, Reads::Agent),
    )],
    level: |window| Some(scaled(*trigger, *native).resolve(window)),
    sources: [
        primary("the trigger: 150,000 input tokens by default, `input_tokens` the only kind", A_SDK),
        primary("compacts when the request's input tokens reach the trigger, counted on the server", A_COMPACT_DOCS),
        secondary("the trigger's minimum: 50,000 tokens", VELOG),
        primary("the summary is a `compaction` block opening the assistant turn; later requests drop everything before it", A_COMPACT_DOCS),
        primary("the summary is an extra sampling iteration, billed and reported in `usage.iterations` only", A_SDK),
        secondary("the compaction iteration reads the request's cached prefix (its counts are mostly cache reads)", A_SDK),
    ],
    assumptions: [
        "The summary prompt is not published: ctxbench's is sent, and the summary is 10% of what it replaces (ratio).",
        "The compaction step reads the whole request as the agent sent it (summarize:reads=agent), so its prefix is cache reads.",
        "The request being answered is summarized with the rest: nothing stays after the summary (the server continues from it).",
        "'Reach' is read as >= (the docs do not say which).",
    ];

    /// Anthropic's tool-result clearing (`clear_tool_uses_20250919`): on each request over the
    /// trigger, the server clears the oldest tool results but the last `keep`, from the history
    /// as the client keeps it.
    AnthropicClear = "anthropic-clear" {
        /// Clear once the request's input tokens pass this many, or `tool_uses:N`.
        trigger: ClearAt = ClearAt::InputTokens(100_000),
        /// How many recent tool uses keep their results.
        keep: usize = 3,
        /// Clear nothing unless at least this many input tokens are freed.
        clear_at_least: u64 = 0,
        /// Tools whose results are never cleared.
        exclude: Vec<String> = Vec::new(),
        /// Tool calls emptied with their results: `false`, `true`, or tools' names.
        clear_inputs: ClearInputs = ClearInputs::None,
        /// The window the token amounts are stated for (0: as they are).
        native: u64 = 200_000,
    }
    check: Ok(()),
    stages: vec![StageSpec::ClearToolUses {
        trigger: ClearTrigger::Fire(match trigger {
            ClearAt::InputTokens(n) => passes(Measure::Input, scaled(*n, *native)),
            ClearAt::ToolUses(n) => passes(Measure::ToolUses, Amount::Tokens(*n)),
        }),
        keep: *keep,
        clear_at_least: scaled(*clear_at_least, *native),
        exclude: exclude.clone(),
        inputs: clear_inputs.clone(),
        until: Until::All,
        stateless: true,
    }],
    level: |window| match trigger {
        ClearAt::InputTokens(n) => Some(scaled(*n, *native).resolve(window)),
        ClearAt::ToolUses(_) => None,
    },
    sources: [
        primary("the trigger is input tokens or tool uses; keep, clear_at_least, exclude_tools, clear_tool_inputs", A_SDK),
        primary("the oldest results are cleared first, each replaced by placeholder text; calls stay, so pairs stay", A_EDITING_DOCS),
        primary("edits are made per request from the client's full, unmodified history", A_EDITING_DOCS),
        primary("clearing invalidates the cached prefix: each clearing pays cache writes", A_EDITING_DOCS),
        secondary("defaults: a trigger of 100,000 input tokens, keep 3 tool uses", LC_EDITING),
    ],
    assumptions: [
        "The placeholder is not published: ctxbench writes LangChain's `[cleared]`.",
        "It clears every result it may (stopping once clear_at_least is freed, when set), as LangChain's clone does.",
        "'Passes' is read as > (the docs do not say).",
        "A cleared call's input becomes {} (its shape is not published).",
    ];

    /// Anthropic's thinking clearing (`clear_thinking_20251015`): the thinking of all but the last
    /// `keep` assistant turns that think is removed.
    AnthropicClearThinking = "anthropic-clear-thinking" {
        /// How many recent thinking turns keep it: a number, or `all`.
        keep: ThinkingKeep = ThinkingKeep::Turns(1),
    }
    check: Ok(()),
    stages: vec![StageSpec::ClearThinking { keep: *keep }],
    level: |_window| None,
    sources: [
        primary("keep: thinking_turns N, or all; by default only the last assistant turn's thinking", A_EDITING_DOCS),
        primary("clearing thinking invalidates the cache where blocks are cleared", A_EDITING_DOCS),
    ],
    assumptions: [
        "In a chat history, thinking is an assistant message's reasoning_content, reasoning or thinking field.",
    ];

    /// OpenAI's Responses compaction: server-side (`context_management` with a
    /// `compact_threshold`) or the client calling `POST /v1/responses/compact`; the history
    /// becomes an opaque `compaction` item (standalone: after the user's messages).
    OpenaiCompact = "openai-compact" {
        /// Compact once the rendered input reaches this many tokens.
        threshold: u64 = 200_000,
        /// The window the token amounts are stated for (0: as they are).
        native: u64 = 272_000,
        /// `server`: the server compacts; `standalone`: the client calls `/responses/compact`.
        mode: OpenaiMode = OpenaiMode::Server,
    }
    check: Ok(()),
    stages: match mode {
        OpenaiMode::Server => vec![summary(
            reaches(Measure::Input, scaled(*threshold, *native)),
            Style::Compaction,
            (Place::First, Tail::Nothing, Reads::Agent),
        )],
        OpenaiMode::Standalone => vec![with_carry(
            summary(
                reaches(Measure::Reported, scaled(*threshold, *native)),
                Style::Compaction,
                (Place::First, Tail::New, Reads::History),
            ),
            Amount::Share(1_000_000),
        )],
    },
    level: |window| Some(scaled(*threshold, *native).resolve(window)),
    sources: [
        primary("server-side: compacts when the rendered token count crosses compact_threshold", O_COMPACT_GUIDE),
        primary("the compaction item is opaque (encrypted_content) and stands in place of the history it replaces", O_SDK),
        primary("/responses/compact returns all user messages, then one compaction item", O_SDK),
        primary("items before the latest compaction item may be dropped", O_COMPACT_GUIDE),
    ],
    assumptions: [
        "No default compact_threshold is documented: 200,000 (the examples' value) of GPT-5's 272,000-token input window.",
        "No minimum is documented, so none is enforced.",
        "The encrypted item is billed as the summary it holds, and the summary is 10% of what it replaces; ctxbench's prompt.",
        "Server-side, the compaction pass reads the request as sent (its cache); standalone sends the history without tools.",
        "Where the server-side pass shows in usage is not documented: ctxbench bills it as its own call.",
    ];

    /// Codex's auto-compact: once the last response's total tokens plus an estimate of what came
    /// since reach 90% of the window, a summary call on the whole history; the history becomes
    /// the user's messages (newest first, up to 20,000 tokens) and the summary.
    Codex = "codex" {
        /// Compact once the count reaches this (`model_auto_compact_token_limit`).
        limit: Amount = Amount::Share(900_000),
        /// The user's messages carried over, in tokens (`COMPACT_USER_MESSAGE_MAX_TOKENS`).
        carry: u64 = 20_000,
        /// The window the token amounts are stated for (0: as they are).
        native: u64 = 272_000,
        /// `true`: OpenAI's `/responses/compact` (an opaque item after all user messages).
        remote: bool = false,
    }
    check: Ok(()),
    stages: {
        let (style, carried) = if *remote {
            (Style::Compaction, Amount::Share(1_000_000))
        } else {
            (Style::Codex, scaled(*carry, *native))
        };
        vec![with_carry(
            summary(reaches(Measure::Reported, *limit), style, (Place::First, Tail::New, Reads::History)),
            carried,
        )]
    },
    level: |window| Some(limit.resolve(window)),
    sources: [
        primary("the limit: 90% of the context window unless the model sets one", CODEX),
        primary("the count: the last response's total tokens plus a byte estimate of the items after it", CODEX),
        primary("checked before each turn and after a sampling request that must continue", CODEX),
        primary("the request: the whole history and the compact prompt as a user message, without tools", CODEX),
        primary("the new history: the user's messages newest first within 20,000 tokens (the oldest cut), then the summary", CODEX),
        primary("remote (OpenAI): /responses/compact, its user messages and compaction item kept", CODEX),
    ],
    assumptions: [
        "The pre-turn check counts the new request too (Codex counts it only after recording it).",
        "The summary is 10% of what it replaces (ratio).",
    ];

    /// Claude Code's auto-compact: once the last reported usage plus an estimate of what came
    /// since reaches the window less the output reserve less 13,000, a summary of everything;
    /// the summary opens the history, the last files read come back after it.
    ClaudeCode = "claude-code" {
        /// The model's output limit; the reserve is min(max_output, 20,000).
        max_output: u64 = 32_000,
        /// The window the token amounts are stated for (0: as they are).
        native: u64 = 200_000,
        /// Files read again after a compaction.
        files: usize = 5,
        /// Each file's content up to this many tokens, else a note naming it.
        file_tokens: u64 = 5_000,
        /// `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`: a percentage of the window that can only lower the
        /// threshold (100: no override).
        pct: u64 = 100,
    }
    check: if *pct == 0 || *pct > 100 {
        Err(err(format!("claude-code.pct must be a percentage from 1 to 100, not {pct}")))
    } else {
        Ok(())
    },
    stages: {
        let threshold = claude_code_threshold(*native, *max_output).min(*native * *pct / 100);
        let mut stage = summary(
            reaches(Measure::Reported, scaled(threshold, *native)),
            Style::ClaudeCode,
            (Place::First, Tail::New, Reads::Agent),
        );
        if let StageSpec::Summarize { keep, reread, .. } = &mut stage {
            keep.push(FactKind::Path);
            if *files > 0 {
                *reread = Reread { files: *files, tokens: scaled(*file_tokens, *native) };
            }
        }
        vec![stage]
    },
    level: |window| {
        let threshold = claude_code_threshold(*native, *max_output).min(*native * *pct / 100);
        Some(scaled(threshold, *native).resolve(window))
    },
    sources: [
        secondary("the threshold: the window less min(max output, 20,000) less 13,000 (167,000 of 200,000)", CC_31806),
        primary("compacts automatically; the summarizer is a fork reusing the session's prefix (its cache)", CC_CHANGELOG),
        primary("the summary opens a user message 'This session is being continued from a previous conversation…'", CC_PACKAGE),
        primary("files read again as a Read call and its result; a file too large as a note", CC_PACKAGE),
        secondary("up to 5 files come back, each up to 5,000 tokens", CC_CONTEXT_DOCS),
        secondary("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE can only lower it: min(window × pct / 100, the threshold)", CC_31806),
        primary("stops after 3 failed compactions in a row", CC_CHANGELOG),
    ],
    assumptions: [
        "max_output defaults to 32,000, so the reserve is 20,000 and the threshold 167,000 on a 200,000 window.",
        "The count is the last reported usage plus an estimate of what came since (Claude Code's is not published).",
        "A request not answered yet stays after the summary; everything before it is summarized.",
        "The summary prompt is not published: ctxbench's, told to keep paths too (its prompt asks for files); ratio 0.1.",
        "Files are the span's last read results (calls with a file_path or path), newest first; the lighter tiers (old results cleared) are left out.",
    ];

    /// OpenHands' `LLMSummarizingCondenser`: past `max_size` events, or past the model's input
    /// limit, the events after the first `keep_first` down to a tail are summarized into one
    /// user message placed after them; the previous summary is summarized again.
    Openhands = "openhands" {
        /// Condense once the view holds more events than this.
        max_size: usize = 240,
        /// Events kept at the start (the system prompt is one).
        keep_first: usize = 2,
        /// Condense once the request's tokens pass this many (0: the window).
        max_tokens: u64 = 0,
    }
    check: if *keep_first == 0 {
        Err(err("openhands.keep_first must be at least 1: the system prompt is the first event"))
    } else if *max_size / 2 <= *keep_first + 1 {
        Err(err(format!(
            "openhands.max_size must be at least {}, not {max_size}: it keeps max_size/2 − keep_first − 1 events",
            2 * (keep_first + 2)
        )))
    } else {
        Ok(())
    },
    stages: {
        let (limit, half) = match max_tokens {
            0 => (Amount::Share(1_000_000), Amount::Share(500_000)),
            n => (Amount::Tokens(*n), Amount::Tokens(n / 2)),
        };
        let head = Place::After(keep_first.saturating_sub(1));
        let tail = max_size / 2 - (keep_first + 1).min(max_size / 2);
        vec![
            summary(passes(Measure::Input, limit), Style::Openhands, (head, Tail::Tokens(half), Reads::Span)),
            summary(
                passes(Measure::Events, Amount::Tokens(*max_size as u64)),
                Style::Openhands,
                (head, Tail::Events(tail as u64), Reads::Span),
            ),
        ]
    },
    level: |window| Some(if *max_tokens == 0 { window } else { (*max_tokens).min(window) }),
    sources: [
        primary("max_size 240 events and keep_first 2 (the CLI's and the app's defaults)", OH_SDK),
        primary("condenses when the view has more than max_size events, or its tokens pass the model's input limit", OH_SDK),
        primary("events: keeps max_size/2 − keep_first − 1 from the tail; tokens: forgets until half the limit is left", OH_SDK),
        primary("the summary is a user message placed after the first keep_first events; earlier summaries are summarized again", OH_SDK),
        primary("cuts never split a call from its result nor a response's batch of calls", OH_SDK),
    ],
    assumptions: [
        "A message is one event, an assistant message one per tool call; the head counts the system prompt as one.",
        "The token mode keeps the longest tail within half the limit (OpenHands forgets until the whole is half).",
        "The summary's text alone, as OpenHands sends it, is opened with ctxbench's marker (a few tokens) so it is known as one.",
        "The progress check (minimum_progress) and the hard reset are left out; ratio 0.1.",
    ];

    /// LangChain's `SummarizationMiddleware`: once the messages' approximate tokens reach the
    /// trigger, everything but the last `keep` messages is summarized from its last `trim`
    /// tokens into one user message that opens the history.
    LangchainSummarization = "langchain-summarization" {
        /// Summarize once the messages' tokens reach this (a share of the window, or tokens).
        trigger: Amount = Amount::Share(800_000),
        /// Messages kept after the summary.
        keep: usize = 20,
        /// The summarizer reads the span's last this-many tokens (0: all of it).
        trim: u64 = 4_000,
    }
    check: Ok(()),
    stages: {
        let reads = if *trim == 0 { Reads::Span } else { Reads::Last(Amount::Tokens(*trim)) };
        vec![summary(
            reaches(Measure::History, *trigger),
            Style::Langchain,
            (Place::First, Tail::Messages(*keep), reads),
        )]
    },
    level: |window| Some(trigger.resolve(window)),
    sources: [
        primary("trigger None never summarizes; fractions, tokens or messages, any of them", LC_SUMMARY),
        primary("keep 20 messages; the cut moves back so a kept result keeps its call", LC_SUMMARY),
        primary("the summarizer reads the span's last 4,000 tokens, from a human message on", LC_SUMMARY),
        primary("the summary is a user message 'Here is a summary of the conversation to date:' opening the history", LC_SUMMARY),
        primary("the messages are counted approximately (4 characters a token), without the system prompt", LC_SUMMARY),
    ],
    assumptions: [
        "Its default trigger never fires, so the preset summarizes at 80% of the window.",
        "The messages are counted with the run's estimator; a message is never cut in part when trimmed; ratio 0.1.",
    ];

    /// LangChain's `ContextEditingMiddleware` with `ClearToolUsesEdit` (mirroring Anthropic's
    /// defaults): on each call whose messages pass the trigger, every result but the last
    /// `keep` becomes `[cleared]`, on a copy (the state keeps them).
    LangchainClear = "langchain-clear" {
        /// Clear once the messages' approximate tokens pass this many.
        trigger: u64 = 100_000,
        /// How many recent tool results are kept.
        keep: usize = 3,
        /// Stop once this many tokens are freed (0: clear every result it may).
        clear_at_least: u64 = 0,
        /// Tools whose results are never cleared.
        exclude: Vec<String> = Vec::new(),
        /// Tool calls emptied with their results: `false`, `true`, or tools' names.
        clear_inputs: ClearInputs = ClearInputs::None,
        /// The window the token amounts are stated for (0: as they are).
        native: u64 = 200_000,
    }
    check: Ok(()),
    stages: vec![StageSpec::ClearToolUses {
        trigger: ClearTrigger::Fire(passes(Measure::History, scaled(*trigger, *native))),
        keep: *keep,
        clear_at_least: scaled(*clear_at_least, *native),
        exclude: exclude.clone(),
        inputs: clear_inputs.clone(),
        until: Until::All,
        stateless: true,
    }],
    level: |window| Some(scaled(*trigger, *native).resolve(window)),
    sources: [
        primary("trigger 100,000 tokens, keep 3, clear_at_least 0, placeholder [cleared]", LC_EDITING),
        primary("edits a copy of the request's messages on each call; the state is not changed", LC_EDITING),
        primary("with clear_at_least 0 every eligible result is cleared", LC_EDITING),
    ],
    assumptions: [
        "Its 100,000 tokens mirror Anthropic's default, so they are read as of a 200,000-token window and scale with the run's.",
        "The messages are counted with the run's estimator.",
    ];

    /// Google ADK's events compaction: after every `interval` new invocations, their events are
    /// summarized (reading `overlap` earlier ones again); with a token threshold, before any
    /// call whose last reported input reaches it, all but the last `retention` events are.
    Adk = "adk" {
        /// Summarize once this many invocations are new since the last summary.
        interval: usize = 3,
        /// Invocations of the previous summary read again.
        overlap: usize = 1,
        /// Also summarize once the last reported input reaches this many tokens (0: never).
        threshold: u64 = 0,
        /// Events kept after a token-mode summary.
        retention: usize = 10,
        /// The window the token amounts are stated for (0: as they are).
        native: u64 = 1_048_576,
    }
    check: if *interval == 0 { Err(err("adk.interval must be at least 1")) } else { Ok(()) },
    stages: {
        let mut stages = Vec::new();
        if *threshold > 0 {
            stages.push(summary(
                reaches(Measure::LastInput, scaled(*threshold, *native)),
                Style::Adk,
                (Place::First, Tail::Messages(*retention), Reads::Transcript),
            ));
        }
        let mut sliding = summary(
            reaches(Measure::Requests, Amount::Tokens(*interval as u64)),
            Style::Adk,
            (Place::First, Tail::New, Reads::Transcript),
        );
        if let StageSpec::Summarize { resummarize, overlap: o, .. } = &mut sliding {
            *resummarize = false;
            *o = *overlap;
        }
        stages.push(sliding);
        stages
    },
    level: |window| (*threshold > 0).then(|| scaled(*threshold, *native).resolve(window)),
    sources: [
        primary("compaction_interval invocations trigger a summary once complete; overlap_size earlier ones are included", ADK_DOCS),
        primary("token_threshold: the last response's prompt token count; all but event_retention_size events summarized", ADK_DOCS),
        primary("the summarizer reads a transcript (texts, tool calls, tool responses cut to 2,000 characters)", ADK),
        primary("the summary is the model's content, in place of the events it covers; earlier sliding summaries stay", ADK),
    ],
    assumptions: [
        "interval 3 and overlap 1 are the docs' example (ADK has no default); token mode is off.",
        "ADK re-reads the overlap from its session's raw events; ctxbench keeps the previous span's last invocations for it.",
        "An event is a message; event_retention_size defaults to 10 here; ratio 0.1.",
        "The summary's text is opened with ctxbench's marker (a few tokens) so it is known as one.",
    ];

    /// SWE-agent's `LastNObservations` (the Complexity Trap's observation masking, M=10): before
    /// every call, every tool result but the last `m` becomes `Old environment output: (N lines
    /// omitted)`.
    SweAgentMask = "swe-agent-mask" {
        /// How many recent tool results are kept.
        m: usize = 10,
    }
    check: Ok(()),
    stages: vec![StageSpec::Mask { m: *m, trigger: Trigger::Always, style: MaskStyle::SweAgent }],
    level: |_window| None,
    sources: [
        primary("applied on every query to the full history; all observations but the last n elided", SWEA),
        primary("the placeholder: Old environment output: (N lines omitted)", SWEA),
        primary("the Complexity Trap's masking runs n = 10", CTRAP),
    ],
    assumptions: [
        "An observation is a tool result (the instance message, SWE-agent's first observation, is a request and never masked).",
    ];

    /// The Complexity Trap's LLM summary (N=21, M=10): once 31 turns are unsummarized, the
    /// oldest 21 become one checkpoint after the first message; the last 10 stay.
    SweAgentSummary = "swe-agent-summary" {
        /// Turns summarized at once.
        n: usize = 21,
        /// Turns kept after the checkpoint.
        m: usize = 10,
    }
    check: if *n == 0 { Err(err("swe-agent-summary.n must be at least 1")) } else { Ok(()) },
    stages: vec![swe_summary(*n, *m)],
    level: |_window| None,
    sources: [
        primary("summarize_every_n_turns n 21, keep_last_m_turns 10, static checkpointing", CTRAP),
        primary("fires when unprocessed turns reach n + m; the checkpoint follows the system prompt and the instance", CTRAP),
        primary("the checkpoint: an assistant message 'Checkpoint for the last N turns:'; only the latest kept", CTRAP),
        primary("the summary request: its state-summary system prompt, the previous checkpoint and the turns", CTRAP),
    ],
    assumptions: [
        "A turn is an assistant message with its results; the summary is 10% of what it replaces.",
    ];

    /// The Complexity Trap's hybrid: the LLM summary (N=21, M=10) and observation masking (M=10)
    /// together.
    SweAgentHybrid = "swe-agent-hybrid" {
        /// Turns summarized at once.
        n: usize = 21,
        /// Turns kept after the checkpoint.
        m: usize = 10,
        /// Tool results kept unmasked.
        mask: usize = 10,
    }
    check: if *n == 0 { Err(err("swe-agent-hybrid.n must be at least 1")) } else { Ok(()) },
    stages: vec![
        swe_summary(*n, *m),
        StageSpec::Mask { m: *mask, trigger: Trigger::Always, style: MaskStyle::SweAgent },
    ],
    level: |_window| None,
    sources: [
        primary("the summarizer followed by last_n_observations n 10 (…_N=21_M=10_masking_M=10.yaml)", CTRAP),
    ],
    assumptions: [
        "The N=21 variant (the paper's headline hybrid is not pinned to N=21 or N=43).",
    ];
}
