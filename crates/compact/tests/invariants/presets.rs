//! Each preset's defining behaviour against its source (`ctxbench presets`): the call on which
//! it first compacts, what the history holds after it (where the summary sits, which user
//! messages or files are carried, the placeholder's text) and what its summary call reads.
//!
//! A conversation grows call by call as an agent's does: a request, then tool calls whose
//! results are a few thousand tokens each. The windows are the presets' own (200,000 for
//! Anthropic's and Claude Code's, 272,000 for OpenAI's), so their amounts are taken as stated.

use ctxbench_compact::compact::{Summarizer, SummaryRequest};
use ctxbench_compact::summaries;
use ctxbench_compact::{Compactor, Conversation, CounterKind, Message, Policy, Role, TokenCounter, ToolCall};
use serde_json::json;

/// A model that writes a short summary, and keeps what it was asked.
#[derive(Default)]
struct Notes {
    asked: Vec<SummaryRequest>,
}

impl Summarizer for Notes {
    fn summarize(&mut self, request: &SummaryRequest) -> Option<String> {
        self.asked.push(request.clone());
        Some(format!("Summary {}: order 4471 shipped.", self.asked.len()))
    }
}

/// `text` of about `tokens` chars4 tokens.
fn filler(tokens: usize, tag: usize) -> String {
    format!("{tag}: {}", "lorem ipsum ".repeat(tokens * 4 / 12))
}

/// An agent's conversation under one preset: requests and tool rounds added one call at a time,
/// the compactor run before each call and told what the server counted.
struct Agent {
    compactor: Compactor,
    conversation: Conversation,
    counter: std::sync::Arc<dyn TokenCounter>,
    model: Notes,
    calls: usize,
    /// What the server counted of each request, before its compaction.
    requests: Vec<u64>,
}

impl Agent {
    fn new(strategy: &str, window: u64) -> Agent {
        let counter = CounterKind::Chars4.counter();
        let compactor = Compactor::new(strategy.parse().unwrap(), Policy::new(window), counter.clone())
            .with_server_counter(counter.clone());
        Agent {
            compactor,
            conversation: Conversation {
                system: Some(Message::new(Role::System, "You are a support agent.")),
                system_index: 0,
                messages: Vec::new(),
                tools: Default::default(),
            },
            counter,
            model: Notes::default(),
            calls: 0,
            requests: Vec::new(),
        }
    }

    /// What the server counts of the request as it stands.
    fn tokens(&self) -> u64 {
        let c = &self.conversation;
        self.counter.count(c.system.as_ref(), &c.messages, &c.tools)
    }

    /// One model call: compaction first (whether it changed the history), then the reply.
    fn call(&mut self, reply: Message) -> bool {
        self.calls += 1;
        self.requests.push(self.tokens());
        let done = self.compactor.compact_with(&mut self.conversation, &mut self.model);
        let input = self.tokens();
        self.compactor.observe(&self.conversation, input);
        self.compactor.observe_reply(&reply, self.counter.reply_tokens(&reply));
        self.conversation.messages.push(reply);
        done.changed()
    }

    fn user(&mut self, text: &str) {
        self.conversation.messages.push(Message::new(Role::User, text));
    }

    /// A tool round: the call (reading `path`, when given) and its result of about `tokens`.
    fn tool_round(&mut self, tokens: usize, path: Option<&str>) -> bool {
        let id = format!("c{}", self.calls);
        let arguments = match path {
            Some(p) => json!({"file_path": p}).to_string(),
            None => json!({"query": self.calls}).to_string(),
        };
        let name = if path.is_some() { "Read" } else { "search" };
        let compacted = self.call(Message::assistant_calls([ToolCall {
            id: &id,
            name,
            arguments: &arguments,
        }]));
        let result = Message::tool_result(&id, filler(tokens, self.calls));
        self.conversation.messages.push(result);
        compacted
    }

    /// Tool rounds until the preset compacts: the request it compacted before, and the one
    /// before that, as the server counted them.
    fn until_compacted(&mut self, tokens: usize) -> (u64, u64) {
        for _ in 0..300 {
            if self.tool_round(tokens, None) {
                let n = self.requests.len();
                return (self.requests[n - 1], self.requests[n - 2]);
            }
        }
        panic!("never compacted: {} tokens", self.tokens());
    }

    fn texts(&self) -> Vec<String> {
        self.conversation
            .messages
            .iter()
            .map(|m| m.text().into_owned())
            .collect()
    }
}

#[test]
fn claude_code_compacts_at_the_window_less_the_reserve_less_13000() {
    let mut agent = Agent::new("claude-code", 200_000);
    agent.user("Fix the bug in src/lib.rs.");
    agent.tool_round(3_000, Some("src/lib.rs"));
    agent.tool_round(3_000, Some("src/big.rs"));
    // The request it compacted before had reached 167,000 (what the last call reported plus
    // what came since), the one before had not.
    let (at, before) = agent.until_compacted(4_000);
    assert!(before < 167_000 && at >= 167_000, "{before} then {at}");
    let texts = agent.texts();
    // The summary opens the history as Claude Code's continuation message; the files read come
    // back as the Read call and its result, newest first up to five.
    assert!(texts[0].starts_with(summaries::CLAUDE_CODE), "{}", texts[0]);
    assert!(texts[0].contains("Summary:\nSummary 1: order 4471 shipped."));
    assert_eq!(
        texts[1],
        format!("{}{}", summaries::REREAD_CALL, r#"{"file_path":"src/lib.rs"}"#)
    );
    assert!(texts[2].starts_with(summaries::REREAD_RESULT));
    assert_eq!(
        texts[3],
        format!("{}{}", summaries::REREAD_CALL, r#"{"file_path":"src/big.rs"}"#)
    );
    assert!(agent.conversation.messages[..5].iter().all(|m| !m.is_request()));
    // Its summary call is the agent's own request, tools and all, and the instruction.
    let asked = &agent.model.asked[0];
    assert_eq!(asked.messages[0].text(), "Fix the bug in src/lib.rs.");
    assert_eq!(asked.system, agent.conversation.system);
}

#[test]
fn a_new_request_stays_after_claude_codes_and_codexs_summary() {
    for preset in ["claude-code:files=0", "codex:native=0,carry=50"] {
        let mut agent = Agent::new(preset, 40_000);
        agent.user("First, look up order 4471.");
        for _ in 0..7 {
            assert!(!agent.tool_round(4_000, None), "{preset}: {:?}", agent.requests);
        }
        assert!(!agent.call(Message::new(Role::Assistant, "Done.")), "{preset}");
        // A long request takes it over the threshold: it compacts before the request's first
        // call, the request after the summary.
        let request = format!("Now the refund for order 4471, please. {}", filler(9_000, 0));
        agent.user(&request);
        assert!(agent.call(Message::new(Role::Assistant, "On it.")), "{preset}");
        let texts = agent.texts();
        let n = texts.len();
        assert_eq!(texts[n - 2], request, "{preset}");
        assert!(texts.iter().any(|t| summaries::is_summary_text(t)), "{preset}");
    }
}

#[test]
fn codex_compacts_at_90_percent_and_keeps_the_users_words() {
    let mut agent = Agent::new("codex", 272_000);
    agent.user("Refactor the parser.");
    let (at, before) = agent.until_compacted(5_000);
    // Its count reached 90% of 272,000 (244,800), the call before was under.
    assert!(before < 244_800 && at >= 244_800, "{before} then {at}");
    let texts = agent.texts();
    // The user's messages, then Codex's summary message; no tool call or result is left.
    assert_eq!(texts[0], "Refactor the parser.");
    assert!(texts[1].starts_with(summaries::CODEX), "{}", texts[1]);
    assert!(
        agent.conversation.messages[..2]
            .iter()
            .all(|m| !m.has_calls() && m.role() != Role::Tool)
    );
    // The request: the history and the prompt, no tools.
    let asked = &agent.model.asked[0];
    assert!(asked.tools.is_empty());
    assert!(
        asked
            .messages
            .last()
            .unwrap()
            .text()
            .starts_with("You are performing a CONTEXT CHECKPOINT COMPACTION.")
    );
}

#[test]
fn anthropic_compact_compacts_when_input_tokens_reach_the_trigger() {
    let mut agent = Agent::new("anthropic-compact", 200_000);
    agent.user("Where is order 4471?");
    let (at, before) = agent.until_compacted(5_000);
    assert!(before < 150_000 && at >= 150_000, "{before} then {at}");
    // Everything is the summary now: an assistant message, the compaction block.
    let texts = agent.texts();
    assert_eq!(texts.len(), 3, "the summary, then the call and its result");
    assert!(texts[0].starts_with("[Compaction]\nSummary 1"), "{}", texts[0]);
    assert_eq!(agent.conversation.messages[0].role(), Role::Assistant);
    // The compaction step reads the request as the agent sent it (its cached prefix).
    assert_eq!(agent.model.asked[0].system, agent.conversation.system);
    // A trigger under Anthropic's minimum is refused.
    let refused = "anthropic-compact:trigger=49999".parse::<ctxbench_compact::Strategy>();
    assert!(refused.is_err_and(|e| e.0.contains("at least 50000")));
}

#[test]
fn openai_compact_leaves_one_opaque_item() {
    let mut agent = Agent::new("openai-compact", 272_000);
    agent.user("Where is order 4471?");
    let (at, before) = agent.until_compacted(6_000);
    assert!(before < 200_000 && at >= 200_000, "{before} then {at}");
    assert!(agent.texts()[0].starts_with("[Compaction]\n"));
    // Standalone: the user's messages, then the item.
    let mut agent = Agent::new("openai-compact:mode=standalone", 272_000);
    agent.user("Where is order 4471?");
    agent.until_compacted(6_000);
    let texts = agent.texts();
    assert_eq!(texts[0], "Where is order 4471?");
    assert!(texts[1].starts_with("[Compaction]\n"));
}

#[test]
fn langchain_summarization_keeps_20_messages_and_reads_4000_tokens() {
    let mut agent = Agent::new("langchain-summarization", 100_000);
    agent.user("Plan the migration.");
    agent.until_compacted(3_000);
    let messages = &agent.conversation.messages;
    assert!(
        messages[0]
            .text()
            .starts_with("Here is a summary of the conversation to date:\n\n")
    );
    // The last 20 messages stay (the cut moved back so that no result loses its call).
    assert!((20..=21).contains(&(messages.len() - 2)), "{}", messages.len());
    assert_ne!(messages[1].role(), Role::Tool);
    // The summarizer read at most 4,000 tokens of the span.
    let asked = &agent.model.asked[0];
    assert!(
        CounterKind::Chars4
            .counter()
            .count(None, &asked.messages, &Default::default())
            <= 4_100
    );
}

#[test]
fn clearing_presets_clear_all_but_the_last_three_results_from_the_history_as_kept() {
    for (preset, window, trigger) in [
        ("anthropic-clear", 200_000, 100_000),
        ("langchain-clear", 200_000, 100_000),
    ] {
        let mut agent = Agent::new(preset, window);
        agent.user("Search everything.");
        let (at, before) = agent.until_compacted(5_000);
        assert!(
            before <= trigger && at > trigger,
            "{preset}: {before} then {at}: {:?}",
            agent.requests
        );
        let results: Vec<String> = agent
            .conversation
            .messages
            .iter()
            .filter(|m| m.role() == Role::Tool)
            .map(|m| m.text().into_owned())
            .collect();
        // Before that call, all but the last three results were cleared (the round's own result
        // came after it).
        let n = results.len();
        assert!(results[..n - 4].iter().all(|r| r == "[cleared]"), "{preset}");
        assert!(results[n - 4..].iter().all(|r| r != "[cleared]"), "{preset}");
        // Stateless: the next call clears from the history the client kept, the oldest kept
        // result now cleared too (the boundary moves with every new result).
        agent.tool_round(5_000, None);
        let cleared = agent
            .conversation
            .messages
            .iter()
            .filter(|m| m.role() == Role::Tool && m.text() == "[cleared]")
            .count();
        assert_eq!(cleared, n - 3, "{preset}");
    }
}

#[test]
fn anthropic_clear_thinking_keeps_the_last_thinking_turn() {
    let mut agent = Agent::new("anthropic-clear-thinking", 200_000);
    for k in 0..3 {
        agent.user(&format!("Question {k}"));
        let reply = Message::from_value(
            json!({"role": "assistant", "content": "An answer.", "reasoning_content": format!("Thinking {k}")}),
        )
        .unwrap();
        agent.call(reply);
    }
    agent.user("And?");
    agent.call(Message::new(Role::Assistant, "Yes."));
    let thinking: Vec<bool> = agent
        .conversation
        .messages
        .iter()
        .filter(|m| m.role() == Role::Assistant)
        .map(|m| m.has_field("reasoning_content"))
        .collect();
    assert_eq!(thinking, [false, false, true, false]);
}

#[test]
fn openhands_condenses_past_240_events_after_the_first_two() {
    let mut agent = Agent::new("openhands", 10_000_000);
    agent.user("Fix the failing test.");
    let mut events = 2; // the system prompt and the request
    loop {
        let compacted = agent.tool_round(10, None);
        if compacted {
            break;
        }
        events += 2;
        assert!(events < 400);
    }
    // It condensed on the call whose request held 242 events (more than 240)...
    assert_eq!(events, 242);
    let messages = &agent.conversation.messages;
    // ...keeping the first two (the system prompt and the request), then its summary...
    assert_eq!(messages[0].text(), "Fix the failing test.");
    assert!(messages[1].text().starts_with(summaries::CTXBENCH));
    // ...and at most the last 240/2 - 2 - 1 = 117 events: the cut moves on to the next call,
    // so 116 (58 calls with their results; the call and result after it came later).
    let tail = &messages[2..messages.len() - 2];
    assert_eq!(tail.len(), 116);
    assert_eq!(tail[0].role(), Role::Assistant);
}

#[test]
fn adk_summarizes_every_three_invocations_and_keeps_earlier_summaries() {
    let mut agent = Agent::new("adk", 1_048_576);
    let mut summaries_seen = Vec::new();
    for k in 0..7 {
        agent.user(&format!("Request {k}"));
        agent.tool_round(50, None);
        agent.call(Message::new(Role::Assistant, format!("Answer {k}")));
        summaries_seen.push(agent.model.asked.len());
    }
    // After three answered requests, then three more: two summaries, each of its own three.
    assert_eq!(summaries_seen, [0, 0, 0, 1, 1, 1, 2]);
    let texts = agent.texts();
    let kept: Vec<&String> = texts.iter().filter(|t| t.starts_with(summaries::CTXBENCH)).collect();
    assert_eq!(kept.len(), 2, "sliding summaries stay");
    // The second summary read a transcript of its three requests and the last one before them
    // again (overlap 1).
    let second = agent.model.asked[1].messages[0].text().into_owned();
    assert!(
        second.contains("user: Request 2") && second.contains("user: Request 5"),
        "{second}"
    );
    assert!(second.contains("agent called tool: search("), "{second}");
}

#[test]
fn swe_agent_masks_every_result_but_the_last_ten() {
    let mut agent = Agent::new("swe-agent-mask", 10_000_000);
    agent.user("Fix issue 4471.");
    for _ in 0..14 {
        agent.tool_round(30, None);
    }
    agent.call(Message::new(Role::Assistant, "ok"));
    let results: Vec<String> = agent
        .conversation
        .messages
        .iter()
        .filter(|m| m.role() == Role::Tool)
        .map(|m| m.text().into_owned())
        .collect();
    assert_eq!(results.len(), 14);
    assert!(
        results[..4]
            .iter()
            .all(|r| r == "Old environment output: (1 lines omitted)"),
        "{results:?}"
    );
    assert!(results[4..].iter().all(|r| !r.starts_with("Old environment output")));
}

#[test]
fn swe_agent_summary_checkpoints_21_turns_after_31() {
    for preset in ["swe-agent-summary", "swe-agent-hybrid"] {
        let mut agent = Agent::new(preset, 10_000_000);
        agent.user("Fix issue 4471.");
        let mut rounds = 0;
        while agent.model.asked.is_empty() {
            agent.tool_round(30, None);
            rounds += 1;
            assert!(rounds < 100);
        }
        rounds -= 1;
        // It fired when 31 turns were unsummarized.
        assert_eq!(rounds, 31, "{preset}");
        let messages = &agent.conversation.messages;
        assert_eq!(messages[0].text(), "Fix issue 4471.");
        assert!(
            messages[1].text().starts_with("Checkpoint for the last 21 turns:\n"),
            "{preset}"
        );
        assert_eq!(messages[1].role(), Role::Assistant);
        let turns = messages[2..].iter().filter(|m| m.role() == Role::Assistant).count();
        assert_eq!(turns, 11, "{preset}: the last 10 turns and the one just made");
    }
}
