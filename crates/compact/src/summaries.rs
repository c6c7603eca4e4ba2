//! The texts a summary, or what a compaction brings back after it, opens with: ctxbench's own
//! and those of the compactors people run, each from its source. They are how a history shows
//! what is not the user's: such a user message opens no request, and a summary is found again
//! (to be summarized anew, or to count turns after it).
//!
//! Sources (checked 2026-12-06): Claude Code's strings read from its npm package
//! `@anthropic-ai/claude-code-linux-x64` 2.1.332 (published 2026-11-24); Codex's
//! `codex-rs/core/templates/compact/summary_prefix.md` as shipped in `@openai/codex` 0.171.0
//! (published 2026-11-20); LangChain's `SummarizationMiddleware._build_new_messages` in
//! `langchain` 1.5.2 (PyPI); the Complexity Trap's SWE-agent fork
//! (<https://github.com/Recursive-Safeguarding/the-complexity-trap>, `sweagent/agent/history_processors.py`
//! at 1b07decf).

/// ctxbench's summary (and the one it writes for OpenHands and Google ADK, which send the
/// summary's text alone: a few tokens more than theirs, so that it is known as a summary).
pub const CTXBENCH: &str = "[Summary of earlier conversation]";

/// What opens the user message Claude Code continues a compacted session with.
pub const CLAUDE_CODE: &str = "This session is being continued from a previous conversation that ran out of context. \
The summary below covers the earlier portion of the conversation.";

/// What Claude Code says after the summary, in an automatic compaction.
pub const CLAUDE_CODE_CONTINUE: &str = "Continue the conversation from where it left off without asking the user any \
further questions. Resume directly — do not acknowledge the summary, do not recap what was happening, do not preface \
with \"I'll continue\" or similar. Pick up the last task as if the break never happened.";

/// Codex's `SUMMARY_PREFIX`: the summary message opens with it, then a newline and the summary.
pub const CODEX: &str = "Another language model started to solve this problem and produced a summary of its \
thinking process. You also have access to the state of the tools that were used by that language model. Use this to \
build on the work that has already been done and avoid duplicating work. Here is the summary produced by the other \
language model, use the information in this summary to assist with your own analysis:";

/// What opens LangChain's summary message (then two newlines and the summary).
pub const LANGCHAIN: &str = "Here is a summary of the conversation to date:";

/// What opens SWE-agent's checkpoint (an assistant message): `Checkpoint for the last N turns:`.
pub const SWE_AGENT: &str = "Checkpoint for the last ";

/// What ctxbench writes a provider's compaction block or item as, in a chat history: the model
/// reads the summary it holds (Anthropic's `compaction` block, OpenAI's `compaction` item).
pub const COMPACTION: &str = "[Compaction]";

/// Claude Code's two messages for a file read again after a compaction: the call, then its
/// result.
pub const REREAD_CALL: &str = "Called the Read tool with the following input: ";

/// See [`REREAD_CALL`].
pub const REREAD_RESULT: &str = "Result of calling the Read tool:";

/// Claude Code's note for a file too large to read again (`Note: PATH was read before …`).
pub const REREAD_NOTE: &str = " was read before the last conversation was summarized, but the contents are too \
large to include. Use Read tool if you need to access it.";

/// Texts that open a user message that is not the user's: summaries and what comes with them.
const NOT_THE_USERS: [&str; 6] = [CTXBENCH, CLAUDE_CODE, CODEX, LANGCHAIN, REREAD_CALL, REREAD_RESULT];

/// Whether a user message's text is a summary or what a compaction brought back with one.
pub fn not_the_users(text: &str) -> bool {
    NOT_THE_USERS.iter().any(|p| text.starts_with(p)) || (text.starts_with("Note: ") && text.ends_with(REREAD_NOTE))
}

/// Whether a message's text is a summary, whoever wrote it (any role).
pub fn is_summary_text(text: &str) -> bool {
    [CTXBENCH, CLAUDE_CODE, CODEX, LANGCHAIN, SWE_AGENT, COMPACTION]
        .iter()
        .any(|p| text.starts_with(p))
}
