//! How each compactor asks for its summary and writes it into the history: the prompt its
//! summary call sends and the message the summary becomes (its role and the words around it).
//! The prompts are the frameworks' own where their source is open; each is sent as the summary
//! call's system prompt, the span as the user message after it (LangChain, Google ADK and
//! OpenHands put both in one user message: the same text, but for one message's framing).
//!
//! Sources (checked 2026-12-06): Codex's `templates/compact/prompt.md` as shipped in
//! `@openai/codex` 0.171.0; LangChain's `DEFAULT_SUMMARY_PROMPT` in `langchain` 1.5.2 (PyPI);
//! Google ADK's `LlmEventSummarizer._DEFAULT_PROMPT_TEMPLATE` in `google-adk` 2.13.0 (PyPI);
//! OpenHands' `summarizing_prompt.j2` (<https://github.com/OpenHands/software-agent-sdk>, at
//! 611629e6); the Complexity Trap's OpenHands-style `summary_system_template`
//! (<https://github.com/Recursive-Safeguarding/the-complexity-trap>, `config/*_openhands_N=21_M=10.yaml`
//! at 1b07decf). Claude Code's and the providers' prompts are not published: those send
//! ctxbench's.

use super::summarizer::SUMMARIZER_PROMPT;
use crate::message::{Message, Role};
use crate::summaries;

crate::named! {
    /// Whose summary a `summarize` stage writes: its prompt, and the message it becomes.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Style {
        /// ctxbench's: a user message `[Summary of earlier conversation]`.
        Ctxbench = "ctxbench",
        /// Claude Code's: a user message "This session is being continued from a previous
        /// conversation that ran out of context. …", then the summary.
        ClaudeCode = "claude-code",
        /// Codex's: its checkpoint prompt; a user message of its `SUMMARY_PREFIX` and the summary.
        Codex = "codex",
        /// LangChain's: its context-extraction prompt; a user message "Here is a summary of the
        /// conversation to date:".
        Langchain = "langchain",
        /// OpenHands': its state-summary prompt; a user message of the summary.
        Openhands = "openhands",
        /// SWE-agent's (the Complexity Trap's): an assistant message "Checkpoint for the last N
        /// turns:".
        SweAgent = "swe-agent",
        /// Google ADK's: its summarizer prompt; the summary as the model's content.
        Adk = "adk",
        /// A provider's server-side compaction (Anthropic's `compaction` block, OpenAI's
        /// `compaction` item): an assistant message the client sends back; the model reads the
        /// summary it holds.
        Compaction = "compaction",
    }
}

/// Codex's compaction prompt (`prompt.md`, 0.171.0).
const CODEX_PROMPT: &str = "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary for another LLM that will resume the task.

Include:
- Current progress and key decisions made
- Important context, constraints, or user preferences
- What remains to be done (clear next steps)
- Any critical data, examples, or references needed to continue

Be concise, structured, and focused on helping the next LLM seamlessly continue the work.
";

/// LangChain's `DEFAULT_SUMMARY_PROMPT` (1.5.2), its `{messages}` left to the span.
const LANGCHAIN_PROMPT: &str = include_str!("prompts/langchain.txt");

/// Google ADK's summarizer prompt (2.13.0), its `{conversation_history}` left to the span.
const ADK_PROMPT: &str = "The following is a conversation history between a user and an AI agent. It may or may not \
start from a compacted history. Please identify and reiterate the user request, summarize the context so far, focusing \
on key decisions made and information obtained, as well as any unresolved questions or tasks. CRITICAL INSTRUCTIONS: 1. \
Explicitly identify and state the primary language used by the user at the top of your summary (e.g., \"Conversation \
Language: English\"). 2. If the agent called any tools, accurately list the exact tool names used to maintain tool \
grounding. The rest of the summary should be concise and capture the essence of the interaction.";

/// OpenHands' `summarizing_prompt.j2`, its events left to the span.
const OPENHANDS_PROMPT: &str = include_str!("prompts/openhands.txt");

/// The Complexity Trap's OpenHands-style `summary_system_template` (the N=21, M=10 configs).
const SWE_AGENT_PROMPT: &str = include_str!("prompts/swe-agent.txt");

impl Style {
    /// The summary call's prompt.
    pub fn prompt(self) -> &'static str {
        match self {
            Style::Ctxbench | Style::ClaudeCode | Style::Compaction => SUMMARIZER_PROMPT,
            Style::Codex => CODEX_PROMPT,
            Style::Langchain => LANGCHAIN_PROMPT,
            Style::Openhands => OPENHANDS_PROMPT,
            Style::SweAgent => SWE_AGENT_PROMPT,
            Style::Adk => ADK_PROMPT,
        }
    }

    /// The message a summary `text` becomes; `turns`: how many turns it summarizes (SWE-agent
    /// says so).
    pub fn message(self, text: &str, turns: usize) -> Message {
        match self {
            Style::Ctxbench | Style::Openhands => Message::new(Role::User, format!("{}\n{text}", summaries::CTXBENCH)),
            Style::ClaudeCode => Message::new(
                Role::User,
                format!(
                    "{}\n\nSummary:\n{}\n{}",
                    summaries::CLAUDE_CODE,
                    text.trim(),
                    summaries::CLAUDE_CODE_CONTINUE
                ),
            ),
            Style::Codex => Message::new(Role::User, format!("{}\n{text}", summaries::CODEX)),
            Style::Langchain => Message::new(Role::User, format!("{}\n\n{text}", summaries::LANGCHAIN)),
            Style::SweAgent => Message::new(
                Role::Assistant,
                format!("{}{turns} turns:\n{text}", summaries::SWE_AGENT),
            ),
            Style::Adk => Message::new(Role::Assistant, format!("{}\n{text}", summaries::CTXBENCH)),
            Style::Compaction => Message::new(Role::Assistant, format!("{}\n{text}", summaries::COMPACTION)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_summary_is_known_as_one_and_opens_no_request() {
        for style in Style::ALL {
            let m = style.message("Key facts: order 4471.", 21);
            assert!(summaries::is_summary_text(&m.text()), "{style}");
            assert!(!m.is_request(), "{style}");
            assert!(m.text().contains("order 4471"), "{style}");
            assert!(!style.prompt().is_empty());
        }
        assert!(
            Style::SweAgent
                .message("s", 21)
                .text()
                .starts_with("Checkpoint for the last 21 turns:\ns")
        );
        assert!(!LANGCHAIN_PROMPT.contains("{messages}") && LANGCHAIN_PROMPT.contains("Messages to summarize:"));
        assert!(!OPENHANDS_PROMPT.contains("{%") && OPENHANDS_PROMPT.contains("Now summarize the events"));
    }
}
