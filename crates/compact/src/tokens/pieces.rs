//! Counting a text piece by piece, with a cache of the short pieces.
//!
//! The tokenizer first splits a text into pieces (words with their leading space, runs of up to
//! three digits, punctuation), then encodes each piece alone. Distinct texts share most of their
//! pieces (" the", " order", "123"), and a piece's count depends on its bytes alone, so the count
//! of each short piece is kept: the encoder runs once per distinct piece per thread, not once per
//! occurrence. Long pieces (runs of Chinese, long identifiers) are rarely repeated and are
//! encoded each time. The counts are the tokenizer's own (tested against tiktoken's).

use std::cell::RefCell;
use std::collections::HashMap;

use bpe_openai::Tokenizer;
use foldhash::fast::FixedState;

/// Pieces up to this many bytes are cached (a word with its space, a number, punctuation).
const SHORT: usize = 24;
/// Pieces with other than ASCII up to this many bytes are cached too (five Chinese characters:
/// a word or two, which recur; longer runs rarely do, and would only fill the cache).
const SHORT_WIDE: usize = 16;
/// Entries kept per encoding and thread before the cache starts over (some 2 MB).
const ENTRIES: usize = 1 << 16;

/// A short piece, inline: its bytes, zero-padded, and its length (pieces are not empty, and
/// the length tells "a" from "a\0").
#[derive(Clone, Copy, PartialEq, Eq)]
struct Piece([u64; 3], u8);

impl std::hash::Hash for Piece {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // One word for the hasher to mix: hashing the 25 bytes as a slice cost as much as the
        // lookup itself. A collision costs a comparison, never a wrong count.
        let [a, b, c] = self.0;
        state.write_u64(a ^ b.rotate_left(21) ^ c.rotate_left(42) ^ u64::from(self.1) << 59);
    }
}

impl Piece {
    fn new(bytes: &[u8]) -> Piece {
        // Word by word, byte by byte: for so few, cheaper than a call to copy them.
        let mut words = [0u64; 3];
        for (word, chunk) in words.iter_mut().zip(bytes.chunks(8)) {
            *word = chunk.iter().rev().fold(0, |w, &b| w << 8 | u64::from(b));
        }
        Piece(words, bytes.len() as u8)
    }
}

/// Pieces up to this many bytes (most words with their space, numbers, punctuation) are keyed
/// by one word, their bytes below their length: entries of 16 bytes, not 40, so more of the
/// cache stays in the processor's (with the keys built byte by byte, the count of a realistic
/// history took 270 ms where it took 370: the `in_process` example, docs/performance.md).
const TINY: usize = 7;

#[derive(Default)]
struct Cache {
    tiny: HashMap<u64, u32, FixedState>,
    short: HashMap<Piece, u32, FixedState>,
}

impl Cache {
    fn count(&mut self, bytes: &[u8], encode: impl FnOnce() -> usize) -> usize {
        let encoded = || u32::try_from(encode()).unwrap_or(u32::MAX);
        let n = if bytes.len() <= TINY {
            // Byte by byte: for so few, cheaper than a call to copy them.
            let key = bytes
                .iter()
                .rev()
                .fold(bytes.len() as u64, |key, &b| key << 8 | u64::from(b));
            *self.tiny.entry(key).or_insert_with(encoded)
        } else {
            *self.short.entry(Piece::new(bytes)).or_insert_with(encoded)
        };
        n as usize
    }

    fn len(&self) -> usize {
        self.tiny.len() + self.short.len()
    }

    fn clear(&mut self) {
        self.tiny.clear();
        self.short.clear();
    }
}

thread_local! {
    /// One cache per encoding slot (see [`count`]). Never iterated.
    static PIECES: RefCell<[Cache; 2]> = RefCell::new([Cache::default(), Cache::default()]);
}

/// The cache of o200k's pieces, whose texts of ASCII, Latin-1 letters, Chinese and common
/// punctuation are split by hand (`o200k_split.rs`).
pub(super) const O200K: usize = 0;
/// The cache of cl100k's pieces.
pub(super) const CL100K: usize = 1;

/// The tokens of `text` with `tokenizer`, whose cache of pieces is `which` ([`O200K`] or
/// [`CL100K`]). The same count as `tokenizer.count(text)` for a tokenizer without normalization.
pub(super) fn count(tokenizer: &Tokenizer, which: usize, text: &str) -> usize {
    let mut n = 0;
    each(tokenizer, which, text, |_, tokens| n += tokens);
    n
}

/// Each piece of `text` as `tokenizer` splits it, in order: its length in bytes and its tokens
/// (the pieces' lengths add up to the text's, their tokens to [`count`]'s).
pub(super) fn each(tokenizer: &Tokenizer, which: usize, text: &str, mut each: impl FnMut(usize, usize)) {
    PIECES.with_borrow_mut(|caches| {
        let cache = &mut caches[which];
        if cache.len() >= ENTRIES {
            cache.clear();
        }
        let mut piece = |bytes: &[u8]| -> usize {
            // Long pieces (runs of Chinese, long identifiers) are rarely repeated: encoded each time.
            if bytes.len() > SHORT || (bytes.len() > SHORT_WIDE && !bytes.is_ascii()) {
                return tokenizer.bpe.count(bytes);
            }
            cache.count(bytes, || tokenizer.bpe.count(bytes))
        };
        if which == O200K && text.is_ascii() {
            super::o200k_split::split_ascii(text.as_bytes(), |p| each(p.len(), piece(p)));
        } else if which == O200K && super::o200k_split::known(text) {
            super::o200k_split::split_known(text, |p| each(p.len(), piece(p)));
        } else {
            for p in tokenizer.split(text) {
                each(p.len(), piece(p.as_bytes()));
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_equal_the_tokenizers_own_on_mixed_text() {
        let tokenizer = bpe_openai::o200k_base();
        let texts = [
            "The order 123456 shipped to 42 Main St. on 2026-12-03; refund pending.",
            "订单已经发货，退款正在处理。库存4255队列",
            "fn main() {\n    println!(\"{}\", x_very_long_identifier_name_here_and_more);\n}\n",
            "   leading spaces and trailing   ",
            // Pieces of 8 to 24 bytes, and tiny ones that differ only by length or a zero byte.
            " identifier_name ConfigurationLoader 2026-12-03T11:22:33",
            "\u{2}\u{1} \u{2} \u{0}\u{2} \u{2}\u{0} a\u{0} a",
            "",
        ];
        for _ in 0..2 {
            // The second round reads every short piece from the cache.
            for text in texts {
                assert_eq!(count(tokenizer, O200K, text), tokenizer.count(text), "{text:?}");
            }
        }
    }
}
