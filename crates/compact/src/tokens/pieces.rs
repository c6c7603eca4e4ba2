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
        let mut padded = [0u8; SHORT];
        padded[..bytes.len()].copy_from_slice(bytes);
        let word = |i: usize| u64::from_le_bytes(padded[i * 8..i * 8 + 8].try_into().unwrap_or_default());
        Piece([word(0), word(1), word(2)], bytes.len() as u8)
    }
}

type Cache = HashMap<Piece, u32, FixedState>;

thread_local! {
    /// One cache per encoding slot (see [`count`]). Never iterated.
    static PIECES: RefCell<[Cache; 2]> = RefCell::new([Cache::default(), Cache::default()]);
}

/// The cache of o200k's pieces, whose ASCII texts are split by hand (`o200k_split.rs`).
pub(super) const O200K: usize = 0;
/// The cache of cl100k's pieces.
pub(super) const CL100K: usize = 1;

/// The tokens of `text` with `tokenizer`, whose cache of pieces is `which` ([`O200K`] or
/// [`CL100K`]). The same count as `tokenizer.count(text)` for a tokenizer without normalization.
pub(super) fn count(tokenizer: &Tokenizer, which: usize, text: &str) -> usize {
    PIECES.with_borrow_mut(|caches| {
        let cache = &mut caches[which];
        if cache.len() >= ENTRIES {
            cache.clear();
        }
        let mut piece = |bytes: &[u8]| -> usize {
            // Chinese and other long pieces are rarely repeated: encoded each time.
            if bytes.len() > SHORT || !bytes.is_ascii() {
                return tokenizer.bpe.count(bytes);
            }
            *cache
                .entry(Piece::new(bytes))
                .or_insert_with(|| u32::try_from(tokenizer.bpe.count(bytes)).unwrap_or(u32::MAX)) as usize
        };
        if which == O200K && text.is_ascii() {
            let mut n = 0;
            super::o200k_split::split_ascii(text.as_bytes(), |p| n += piece(p));
            n
        } else {
            tokenizer.split(text).map(|p| piece(p.as_bytes())).sum()
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
