//! Exact counts with OpenAI's BPE encodings (`bpe-openai`, the same token ids as tiktoken) and
//! OpenAI's published message framing.
//!
//! A message costs 3 + BPE(role) + BPE(content text) + [1 + BPE(name)] + Σ over its tool calls of
//! [BPE(function name) + BPE(arguments) + 3]; a request adds 3 (the cookbook's
//! `num_tokens_from_messages`, with ctxbench's tool-call term). Ids and other fields cost 0.
//!
//! Every text is tokenized once per process while the texts fit a budget: counts are cached by
//! text in a map shared by all counters of the same encoding, in two generations of at most
//! half of [`TEXT_BUDGET`] each: when the newer is full the older is let go, and a text found in
//! the older is moved to the newer (a run over many seeds counts new texts every seed, and its
//! memory must not grow with them; what is counted again and again stays). The cache holds
//! exact counts only.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use bpe_openai::Tokenizer;
use foldhash::fast::FixedState;

use super::TokenCounter;
use super::tools::{ToolConstants, tool_schema_tokens};
use crate::message::Message;
use crate::tool_schemas::ToolSchemas;

/// Tokens per message, per name, and to prime the reply, as in OpenAI's cookbook.
const PER_MESSAGE: u64 = 3;
const PER_NAME: u64 = 1;
const PER_REQUEST: u64 = 3;
/// ctxbench's convention for the framing of one tool call.
const PER_CALL: u64 = 3;

/// An exact counter for one encoding.
pub struct Bpe {
    name: &'static str,
    /// Where messages keep this encoding's cost (see `Message::cost`).
    slot: usize,
    /// Which cache of pieces is this encoding's (`pieces.rs`).
    pieces: usize,
    /// The encoding's tables, loaded on the first count (38 ms and some 80 MB for o200k): a
    /// process that never counts exactly never loads them.
    tokenizer: fn() -> &'static Tokenizer,
    tools: ToolConstants,
    /// Counts by text, shared by every run in the process; `None` for a counter that counts a
    /// history once, where a cache would only copy every text.
    cache: Option<Mutex<TextCache>>,
}

/// The bytes of text the cache of counts may hold, its two generations together. The bundled
/// suite's texts take a few megabytes; a run over 100,000 seeds, about 60 KB a seed, would hold
/// gigabytes.
const TEXT_BUDGET: usize = 128 << 20;

/// Counts by text in two generations, and the bytes of text each holds. foldhash, not SipHash:
/// every text a run counts is hashed here, and SipHash over a long tool result cost a tenth of
/// what tokenizing it does. Never iterated into output.
struct TextCache {
    newer: HashMap<Box<str>, u32, FixedState>,
    older: HashMap<Box<str>, u32, FixedState>,
    /// The bytes of text in `newer`, and in `older`.
    bytes: (usize, usize),
    /// [`TEXT_BUDGET`], but for tests.
    budget: usize,
}

impl Default for TextCache {
    fn default() -> TextCache {
        TextCache {
            newer: HashMap::default(),
            older: HashMap::default(),
            bytes: (0, 0),
            budget: TEXT_BUDGET,
        }
    }
}

impl TextCache {
    /// The count of `text`, when kept; one found in the older generation moves to the newer.
    fn get(&mut self, text: &str) -> Option<u32> {
        if let Some(&n) = self.newer.get(text) {
            return Some(n);
        }
        let (key, n) = self.older.remove_entry(text)?;
        self.bytes.1 -= key.len();
        self.keep(key, n);
        Some(n)
    }

    /// Keeps `text`'s count in the newer generation.
    fn insert(&mut self, text: &str, n: u32) {
        if !self.newer.contains_key(text) {
            self.keep(text.into(), n);
        }
    }

    /// Puts `key` in the newer generation, which becomes the older first when it is full.
    fn keep(&mut self, key: Box<str>, n: u32) {
        if self.bytes.0 + key.len() > self.budget / 2 {
            self.older = std::mem::take(&mut self.newer);
            self.bytes = (0, self.bytes.0);
        }
        self.bytes.0 += key.len();
        self.newer.insert(key, n);
    }

    /// The bytes of text held.
    #[cfg(test)]
    fn held(&self) -> usize {
        self.bytes.0 + self.bytes.1
    }

    fn clear(&mut self) {
        *self = TextCache {
            budget: self.budget,
            ..TextCache::default()
        };
    }
}

impl Bpe {
    /// GPT-4o's encoding, with gpt-4o's tool-schema constants. One shared instance per process.
    pub fn o200k() -> Arc<Bpe> {
        static SHARED: OnceLock<Arc<Bpe>> = OnceLock::new();
        SHARED
            .get_or_init(|| {
                Arc::new(Bpe::new(
                    "o200k",
                    2,
                    bpe_openai::o200k_base,
                    ToolConstants::GPT_4O,
                    true,
                ))
            })
            .clone()
    }

    /// GPT-4o's encoding with no cache of texts: for counting a history once (the `compact`
    /// command), where every text is new and a cache would hold a second copy of it.
    pub fn o200k_single_pass() -> Arc<Bpe> {
        Arc::new(Bpe::new(
            "o200k",
            2,
            bpe_openai::o200k_base,
            ToolConstants::GPT_4O,
            false,
        ))
    }

    /// GPT-4's encoding with no cache of texts, as [`Bpe::o200k_single_pass`].
    pub fn cl100k_single_pass() -> Arc<Bpe> {
        Arc::new(Bpe::new(
            "cl100k",
            3,
            bpe_openai::cl100k_base,
            ToolConstants::GPT_4,
            false,
        ))
    }

    /// GPT-4's encoding, with gpt-4's tool-schema constants. One shared instance per process.
    pub fn cl100k() -> Arc<Bpe> {
        static SHARED: OnceLock<Arc<Bpe>> = OnceLock::new();
        SHARED
            .get_or_init(|| {
                Arc::new(Bpe::new(
                    "cl100k",
                    3,
                    bpe_openai::cl100k_base,
                    ToolConstants::GPT_4,
                    true,
                ))
            })
            .clone()
    }

    fn new(
        name: &'static str,
        slot: usize,
        tokenizer: fn() -> &'static Tokenizer,
        tools: ToolConstants,
        cached: bool,
    ) -> Bpe {
        Bpe {
            name,
            slot,
            pieces: if name == "o200k" {
                super::pieces::O200K
            } else {
                super::pieces::CL100K
            },
            tokenizer,
            tools,
            cache: cached.then(|| Mutex::new(TextCache::default())),
        }
    }

    /// Tokens of a plain text, with no framing.
    pub fn text(&self, text: &str) -> u64 {
        if text.is_empty() {
            return 0;
        }
        let Some(cache) = &self.cache else {
            return self.count_uncached(text) as u64;
        };
        if let Some(n) = lock(cache).get(text) {
            return u64::from(n);
        }
        // Tokenize outside the lock so parallel runs do not wait on each other.
        let n = self.count_uncached(text);
        let n32 = u32::try_from(n).unwrap_or(u32::MAX);
        lock(cache).insert(text, n32);
        n as u64
    }

    /// Forgets every cached count, so that the next counts tokenize again (for benchmarks that
    /// measure a cold run).
    pub fn clear_cache(&self) {
        if let Some(cache) = &self.cache {
            lock(cache).clear();
        }
    }

    /// Every distinct text counted since the cache was last cleared, sorted: the least a run
    /// had to tokenize (for benchmarks that compare a run with that floor).
    pub fn cached_texts(&self) -> Vec<String> {
        let Some(cache) = &self.cache else {
            return Vec::new();
        };
        let cache = lock(cache);
        let mut texts: Vec<String> = cache
            .newer
            .keys()
            .chain(cache.older.keys())
            .map(|k| k.to_string())
            .collect();
        texts.sort();
        texts
    }

    /// Tokens of a text with no cache of texts (what the floor costs): the tokenizer's count,
    /// its short pieces cached per thread (`pieces.rs`).
    pub fn count_uncached(&self, text: &str) -> usize {
        super::pieces::count((self.tokenizer)(), self.pieces, text)
    }

    /// Each piece of `text` as the encoding's pre-tokenizer splits it, in order: its length in
    /// bytes and its tokens. The lengths add up to the text's and the tokens to its count; text
    /// built to a count (seeded padding) is cut at these pieces.
    pub fn pieces(&self, text: &str, each: impl FnMut(usize, usize)) {
        super::pieces::each((self.tokenizer)(), self.pieces, text, each);
    }
}

fn lock(cache: &Mutex<TextCache>) -> std::sync::MutexGuard<'_, TextCache> {
    // A panic while holding the lock cannot leave a wrong count behind: entries are whole.
    cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Bpe {
    /// 3 + role + content (+ 1 + name) + Σ (call name + arguments + 3).
    fn count_message(&self, message: &Message) -> u64 {
        self.count_message_with(message, &message.text())
    }

    /// The message's cost with `text` for its content's text.
    fn count_message_with(&self, message: &Message, text: &str) -> u64 {
        let mut n = PER_MESSAGE + self.text(message.role().as_str()) + self.text(text);
        if let Some(name) = message.name() {
            n += PER_NAME + self.text(name);
        }
        for call in message.calls() {
            n += self.text(call.name) + self.text(call.arguments) + PER_CALL;
        }
        n
    }
}

impl TokenCounter for Bpe {
    fn name(&self) -> &'static str {
        self.name
    }

    fn prefix_units(&self, system: Option<&Message>, tools: &ToolSchemas) -> u64 {
        let system = system.map_or(0, |m| self.message_units(m));
        system + tools.cost(self.slot, || tool_schema_tokens(tools, self.tools, &|t| self.text(t)))
    }

    fn message_units(&self, message: &Message) -> u64 {
        message.cost(self.slot, || self.count_message(message))
    }

    fn units_with_content(&self, message: &Message, content: &str) -> u64 {
        self.count_message_with(message, content)
    }

    fn text_tokens(&self, text: &str) -> u64 {
        self.text(text)
    }

    fn tokens(&self, units: u64) -> u64 {
        units + PER_REQUEST
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_of_counts_holds_no_more_text_than_its_budget() {
        let mut cache = TextCache {
            budget: 1000,
            ..TextCache::default()
        };
        let text = |k: usize| format!("seed {k}: a text no other seed has");
        for k in 0..10_000 {
            cache.insert(&text(k), 9);
            assert!(cache.held() <= 1000, "{} bytes held after {k} texts", cache.held());
            assert_eq!(cache.get(&text(k)), Some(9), "the newest count is kept");
            // A text counted again and again stays, however many new ones pass.
            if cache.get("the system prompt").is_none() {
                cache.insert("the system prompt", 3);
            }
        }
        let held = |c: &TextCache| c.newer.keys().chain(c.older.keys()).map(|k| k.len()).sum::<usize>();
        assert_eq!(cache.held(), held(&cache));
        assert_eq!(cache.get("the system prompt"), Some(3));
        // A text counted again adds nothing.
        let before = cache.held();
        cache.insert(&text(9999), 9);
        assert_eq!(cache.held(), before);
        // A text of the older generation is found, and moves to the newer.
        let older = cache.older.keys().next().expect("an older generation").to_string();
        assert_eq!(cache.get(&older), Some(9));
        assert!(cache.newer.contains_key(older.as_str()) && !cache.older.contains_key(older.as_str()));
        assert_eq!(cache.held(), held(&cache));
    }

    use crate::tool_schemas::NO_TOOLS;
    use serde_json::json;

    /// The example conversation of OpenAI's cookbook "How to count tokens with tiktoken".
    fn cookbook() -> Vec<Message> {
        let v = json!([
            {"role": "system", "content": "You are a helpful, pattern-following assistant that translates corporate jargon into plain English."},
            {"role": "system", "name": "example_user", "content": "New synergies will help drive top-line growth."},
            {"role": "system", "name": "example_assistant", "content": "Things working well together will increase revenue."},
            {"role": "system", "name": "example_user", "content": "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage."},
            {"role": "system", "name": "example_assistant", "content": "Let's talk later when we're less busy about how to do better."},
            {"role": "user", "content": "This late pivot means we don't have time to boil the ocean for the client deliverable."},
        ]);
        serde_json::from_value(v).expect("valid messages")
    }

    #[test]
    fn cookbook_example_counts_as_published() {
        let messages = cookbook();
        let (system, rest) = messages.split_first().expect("non-empty");
        assert_eq!(Bpe::o200k().count(Some(system), rest, &NO_TOOLS), 124);
        assert_eq!(Bpe::cl100k().count(Some(system), rest, &NO_TOOLS), 129);
    }

    #[test]
    fn cookbook_weather_tool_counts_as_published() {
        // The cookbook's function-calling example: 101 tokens for gpt-4o, 105 for gpt-4.
        let messages: Vec<Message> = serde_json::from_value(json!([
            {"role": "system", "content": "You are a helpful assistant that can answer to questions about the weather."},
            {"role": "user", "content": "What's the weather like in San Francisco?"},
        ]))
        .expect("valid");
        let tools = json!([{
            "type": "function",
            "function": {
                "name": "get_current_weather",
                "description": "Get the current weather in a given location",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                        "unit": {"type": "string", "description": "The unit of temperature to return", "enum": ["celsius", "fahrenheit"]},
                    },
                    "required": ["location"],
                },
            }
        }]);
        let tools = ToolSchemas::new(tools.as_array().expect("array").clone());
        let (system, rest) = messages.split_first().expect("non-empty");
        assert_eq!(Bpe::o200k().count(Some(system), rest, &tools), 101);
        assert_eq!(Bpe::cl100k().count(Some(system), rest, &tools), 105);
    }

    #[test]
    fn a_request_is_the_sum_of_its_messages() {
        let messages = cookbook();
        let bpe = Bpe::o200k();
        let parts: u64 = messages.iter().map(|m| bpe.message_units(m)).sum();
        assert_eq!(bpe.count(None, &messages, &NO_TOOLS), parts + PER_REQUEST);
    }
}
