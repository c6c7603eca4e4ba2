//! A provider's compaction as a chat history holds it, and back: the summary the model reads,
//! opened by [`crate::summaries::COMPACTION`]. Anthropic's `compaction` block carries it as
//! `content`; OpenAI's `compaction` item only as `encrypted_content`, which ctxbench writes as
//! `ctxb1.` and the summary in URL-safe base64 (its own "encryption", so that `serve` reads
//! back what it gave). An item encrypted by OpenAI reads as its encrypted text: what travels.

use crate::summaries::COMPACTION;

/// What opens ctxbench's encrypted content.
const MARK: &str = "ctxb1.";

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// The summary a compaction message holds, when it is one (`[Compaction]\n…`).
pub(crate) fn summary_of(text: &str) -> Option<&str> {
    text.strip_prefix(COMPACTION)?.strip_prefix('\n')
}

/// A compaction's summary as the chat message text that holds it.
pub(crate) fn message_text(summary: &str) -> String {
    format!("{COMPACTION}\n{summary}")
}

/// The summary as `encrypted_content`.
pub(crate) fn encrypt(summary: &str) -> String {
    let bytes = summary.as_bytes();
    let mut out = String::with_capacity(MARK.len() + bytes.len().div_ceil(3) * 4);
    out.push_str(MARK);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (k, &b)| n | (u32::from(b) << (16 - 8 * k)));
        for k in 0..=chunk.len() {
            out.push(ALPHABET[(n >> (18 - 6 * k) & 63) as usize] as char);
        }
    }
    out
}

/// A compaction as Anthropic's `compaction` block: the summary as `content` and, as the API
/// sends it beside, sealed as `encrypted_content`.
pub(crate) fn anthropic_block(summary: &str) -> serde_json::Value {
    serde_json::json!({"type": "compaction", "content": summary, "encrypted_content": encrypt(summary)})
}

/// OpenAI's `compaction` item: the summary only as `encrypted_content`.
pub(crate) fn responses_item(summary: &str) -> serde_json::Value {
    serde_json::json!({"type": "compaction", "encrypted_content": encrypt(summary)})
}

/// The summary `encrypted_content` holds: ctxbench's decoded, another's as it is.
pub(crate) fn decrypt(content: &str) -> String {
    let Some(coded) = content.strip_prefix(MARK) else {
        return content.to_owned();
    };
    let value = |c: u8| ALPHABET.iter().position(|&a| a == c).map(|v| v as u32);
    let mut bytes = Vec::with_capacity(coded.len() / 4 * 3);
    for chunk in coded.as_bytes().chunks(4) {
        let Some(values) = chunk.iter().map(|&c| value(c)).collect::<Option<Vec<u32>>>() else {
            return content.to_owned();
        };
        let n = values
            .iter()
            .enumerate()
            .fold(0u32, |n, (k, &v)| n | (v << (18 - 6 * k)));
        for k in 0..values.len().saturating_sub(1) {
            bytes.push((n >> (16 - 8 * k)) as u8);
        }
    }
    String::from_utf8(bytes).unwrap_or_else(|_| content.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encrypted_content_reads_back() {
        for text in ["", "a", "ab", "abc", "abcd", "Key facts: order 4471; é 订单 🚲."] {
            let coded = encrypt(text);
            assert!(
                coded.starts_with(MARK) && coded.bytes().all(|b| b.is_ascii_graphic()),
                "{coded}"
            );
            assert_eq!(decrypt(&coded), text);
        }
        assert_eq!(encrypt("abc"), "ctxb1.YWJj");
        assert_eq!(decrypt("gAAAAB-opaque"), "gAAAAB-opaque");
        assert_eq!(summary_of("[Compaction]\nsum"), Some("sum"));
        assert_eq!(summary_of("[Compaction] sum"), None);
    }
}
