//! The cache figures a provider reports in a chat-completions `usage` object.
//!
//! Providers name them differently (all checked 2026-12-03):
//! - OpenAI: `usage.prompt_tokens_details.cached_tokens`, part of `prompt_tokens`; writes are
//!   not reported (<https://platform.openai.com/docs/api-reference/chat/object>,
//!   <https://docs.rs/crate/openai-client-base/latest>,
//!   <https://docs.x.ai/developers/advanced-api-usage/prompt-caching/usage-and-pricing>).
//! - DeepSeek: `usage.prompt_cache_hit_tokens` and `usage.prompt_cache_miss_tokens`, which sum to
//!   `prompt_tokens` (<https://api-docs.deepseek.com/guides/kv_cache>; the call log in
//!   `tests/fixtures/traces/` carries both spellings).
//! - Anthropic: `usage.cache_read_input_tokens` and `usage.cache_creation_input_tokens`, *not*
//!   part of `input_tokens` (<https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching>).
//! - OpenAI Responses: `usage.input_tokens_details.cached_tokens`, part of `input_tokens`
//!   (<https://platform.openai.com/docs/api-reference/responses/object>, checked 2026-12-04).

use ctxbench_compact::wire::Format;
use serde_json::Value;

/// What a logged `usage` object says about one call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoggedUsage {
    /// Every prompt token, cached or not.
    pub prompt_tokens: Option<u64>,
    /// Prompt tokens read from the provider's cache.
    pub cache_read_tokens: u64,
    /// Prompt tokens written to the provider's cache (only Anthropic reports them).
    pub cache_write_tokens: u64,
    /// Tokens the model wrote.
    pub completion_tokens: Option<u64>,
}

impl LoggedUsage {
    /// Read a `usage` object in any of the spellings above; absent figures are zero or `None`.
    pub fn of(usage: &Value) -> LoggedUsage {
        let count = |pointer: &str| usage.pointer(pointer).and_then(Value::as_u64);
        let read = count("/prompt_tokens_details/cached_tokens")
            .or_else(|| count("/prompt_cache_hit_tokens"))
            .or_else(|| count("/cache_read_input_tokens"))
            .unwrap_or(0);
        let write = count("/cache_creation_input_tokens").unwrap_or(0);
        let prompt = count("/prompt_tokens").or_else(|| {
            // Anthropic's `input_tokens` leaves out what the cache read or wrote.
            count("/input_tokens").map(|fresh| fresh + read + write)
        });
        LoggedUsage {
            prompt_tokens: prompt,
            cache_read_tokens: read,
            cache_write_tokens: write,
            completion_tokens: count("/completion_tokens").or_else(|| count("/output_tokens")),
        }
    }

    /// Read the `usage` of a reply in `format`: a Responses `input_tokens` holds what the cache
    /// read (Anthropic's does not); chat and Anthropic as [`LoggedUsage::of`].
    pub fn in_format(usage: &Value, format: Format) -> LoggedUsage {
        if format != Format::Responses {
            return LoggedUsage::of(usage);
        }
        let count = |pointer: &str| usage.pointer(pointer).and_then(Value::as_u64);
        LoggedUsage {
            prompt_tokens: count("/input_tokens"),
            cache_read_tokens: count("/input_tokens_details/cached_tokens").unwrap_or(0),
            cache_write_tokens: count("/cache_creation_input_tokens").unwrap_or(0),
            completion_tokens: count("/output_tokens"),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reads_each_providers_spelling() {
        let openai = json!({"prompt_tokens": 1750, "completion_tokens": 74,
            "prompt_tokens_details": {"cached_tokens": 1664}});
        let deepseek = json!({"prompt_tokens": 1750, "completion_tokens": 74,
            "prompt_cache_hit_tokens": 1664, "prompt_cache_miss_tokens": 86});
        let anthropic = json!({"input_tokens": 50, "output_tokens": 74,
            "cache_read_input_tokens": 1664, "cache_creation_input_tokens": 36});
        let a = LoggedUsage::of(&openai);
        assert_eq!(
            (a.prompt_tokens, a.cache_read_tokens, a.cache_write_tokens),
            (Some(1750), 1664, 0)
        );
        assert_eq!(LoggedUsage::of(&deepseek), a);
        let c = LoggedUsage::of(&anthropic);
        assert_eq!(
            (c.prompt_tokens, c.cache_read_tokens, c.cache_write_tokens),
            (Some(1750), 1664, 36)
        );
        assert_eq!(c.completion_tokens, Some(74));
        assert_eq!(LoggedUsage::of(&Value::Null), LoggedUsage::default());
        let responses = json!({"input_tokens": 1750, "output_tokens": 74,
            "input_tokens_details": {"cached_tokens": 1664}});
        let r = LoggedUsage::in_format(&responses, Format::Responses);
        assert_eq!(
            (r.prompt_tokens, r.cache_read_tokens, r.completion_tokens),
            (Some(1750), 1664, Some(74))
        );
        assert_eq!(LoggedUsage::in_format(&anthropic, Format::Anthropic), c);
    }
}
