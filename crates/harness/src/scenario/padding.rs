//! Seeded padding with the shapes of real text, so that estimators err on it as they do on real
//! data (`chars4` undercounts JSON and Chinese, overcounts prose).
//!
//! A padding is exactly `tokens` o200k tokens, whatever `--tokenizer` says. It is drawn from a
//! ChaCha8 stream seeded from the run's seed and the padding's place in the scenario, and drawn
//! again (with the next attempt number) while it, or the text it follows, contains a fact's value.

use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

use super::PadStyle;

/// Mixes numbers into one seed (SplitMix64 steps), so that each padding has its own stream.
pub(crate) fn mix(parts: &[u64]) -> u64 {
    let mut h: u64 = 0x9E37_79B9_7F4A_7C15;
    for &p in parts {
        h ^= p
            .wrapping_add(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(h << 6)
            .wrapping_add(h >> 2);
        h = h.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = h;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        h = z ^ (z >> 31);
    }
    h
}

/// A stable number for a name, to seed from it.
pub(crate) fn name_seed(name: &str) -> u64 {
    mix(&name.bytes().map(u64::from).collect::<Vec<_>>())
}

const WORDS: &[&str] = &[
    "order",
    "wheel",
    "shipping",
    "customer",
    "invoice",
    "return",
    "stock",
    "warehouse",
    "delivery",
    "the",
    "a",
    "of",
    "and",
    "is",
    "was",
    "to",
    "for",
    "with",
    "on",
    "in",
    "at",
    "by",
    "from",
    "this",
    "that",
    "which",
    "after",
    "before",
    "because",
    "every",
    "item",
    "price",
    "week",
    "day",
    "team",
    "service",
    "account",
    "payment",
    "address",
    "request",
    "update",
    "status",
    "note",
    "report",
    "quickly",
    "carefully",
    "recently",
    "usually",
    "still",
    "already",
    "never",
    "often",
    "new",
    "old",
    "large",
    "small",
    "first",
    "last",
    "next",
    "same",
    "other",
    "checked",
    "confirmed",
    "shipped",
    "arrived",
    "opened",
    "closed",
    "changed",
    "asked",
    "said",
    "found",
    "needed",
];

const CJK: &[&str] = &[
    "我们", "可以", "这个", "没有", "什么", "一个", "他们", "因为", "所以", "已经", "需要", "问题", "时候", "现在",
    "工作", "公司", "服务", "客户", "订单", "发货", "退货", "价格", "地址", "支付", "今天", "明天", "知道", "如果",
    "自己", "还是", "这样", "时间", "信息", "处理", "确认", "联系", "快递", "包裹", "商品", "质量",
];

const IDENTS: &[&str] = &[
    "order", "item", "total", "count", "buffer", "index", "result", "config", "client", "request", "response", "cache",
    "entry", "value", "parts", "stock", "ship", "parse", "render", "queue",
];

struct Gen {
    rng: ChaCha8Rng,
}

impl Gen {
    fn pick<'a>(&mut self, list: &[&'a str]) -> &'a str {
        list[self.rng.random_range(0..list.len())]
    }

    fn number(&mut self, digits: u32) -> u64 {
        self.rng.random_range(10u64.pow(digits - 1)..10u64.pow(digits))
    }

    fn sentence(&mut self) -> String {
        let n = self.rng.random_range(6..16);
        let mut words: Vec<&str> = (0..n).map(|_| self.pick(WORDS)).collect();
        let first = words[0];
        let capital = first[..1].to_uppercase() + &first[1..];
        words[0] = "";
        let rest = words[1..].join(" ");
        let comma = if self.rng.random_range(0..4) == 0 { "," } else { "" };
        format!("{capital}{comma} {rest}. ")
    }

    fn chunk(&mut self, style: PadStyle) -> String {
        match style {
            PadStyle::Prose => {
                let mut s = self.sentence();
                if self.rng.random_range(0..6) == 0 {
                    s.push('\n');
                }
                s
            }
            PadStyle::Json => {
                let id = self.number(5);
                let name = format!("{} {}", self.pick(WORDS), self.pick(WORDS));
                let price = self.number(4) as f64 / 100.0;
                let stock = self.rng.random_range(0..40);
                let tags = format!("\"{}\", \"{}\"", self.pick(WORDS), self.pick(WORDS));
                let note = self.sentence();
                format!(
                    "{{\"id\": {id}, \"sku\": \"P-{}\", \"name\": \"{name}\", \"price\": {price}, \"stock\": {stock}, \"tags\": [{tags}], \"note\": \"{}\"}}, ",
                    self.number(4),
                    note.trim_end()
                )
            }
            PadStyle::Code => {
                let f = format!("{}_{}", self.pick(IDENTS), self.pick(IDENTS));
                let a = self.pick(IDENTS);
                let b = self.pick(IDENTS);
                let k = self.number(2);
                format!(
                    "fn {f}({a}: &mut Vec<u32>, {b}: usize) -> Option<u32> {{\n    let {a}_{k} = {a}.get({b})?;\n    if *{a}_{k} > {k} {{\n        return Some({a}_{k}.wrapping_mul({k}));\n    }}\n    None\n}}\n\n"
                )
            }
            PadStyle::Log => {
                let level = ["INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"][self.rng.random_range(0..6)];
                format!(
                    "2024-05-{:02}T{:02}:{:02}:{:02}.{:03}Z {level:<5} shop::{}: {} {} {}={} ms={}\n",
                    self.rng.random_range(1..29),
                    self.rng.random_range(0..24),
                    self.rng.random_range(0..60),
                    self.rng.random_range(0..60),
                    self.rng.random_range(0..1000),
                    self.pick(IDENTS),
                    self.pick(WORDS),
                    self.pick(WORDS),
                    self.pick(IDENTS),
                    self.number(5),
                    self.rng.random_range(1..900)
                )
            }
            PadStyle::Cjk => {
                let n = self.rng.random_range(8..20);
                let mut s: String = (0..n).map(|_| self.pick(CJK)).collect();
                s.push(if self.rng.random_range(0..3) == 0 { '。' } else { '，' });
                s
            }
        }
    }
}

/// `tokens` o200k tokens of `style`-shaped text, seeded by `seed`. Exact: the count of the
/// result under o200k is `tokens`.
///
/// Text is drawn in batches until it holds `tokens` and 8 more, then cut at the last piece (as
/// the tokenizer splits it) that stays within `tokens`, its trailing space trimmed, and topped up
/// or cut a character at a time to the count. Each piece is counted once: a piece depends on the
/// text up to one character past it, so the pieces before the last are final as the text grows,
/// and a change at the end only needs its last pieces counted again.
pub(crate) fn padding(style: PadStyle, tokens: u64, seed: u64) -> String {
    if tokens == 0 {
        return String::new();
    }
    // The library's o200k: its pre-tokenizer by hand and its short pieces' counts kept per
    // thread (the expression and the encoder over every piece were most of a summary's cost).
    let bpe = ctxbench_compact::tokens::Bpe::o200k();
    let mut generator = Gen {
        rng: ChaCha8Rng::seed_from_u64(seed),
    };
    let mut text = String::new();
    // The final pieces so far: each one's end and its tokens.
    let mut pieces: Vec<(usize, u64)> = Vec::new();
    let mut counted = 0u64;
    while counted < tokens + 8 {
        for _ in 0..(tokens / 8 + 4) {
            text.push_str(&generator.chunk(style));
        }
        let from = pieces.last().map_or(0, |&(end, _)| end);
        let mut fresh: Vec<(usize, u64)> = Vec::new();
        bpe.pieces(&text[from..], |len, n| fresh.push((len, n as u64)));
        // The last piece may grow with the next batch.
        fresh.pop();
        let mut end = from;
        for (len, n) in fresh {
            end += len;
            pieces.push((end, n));
            counted += n;
        }
    }
    // Cut at the last piece boundary that stays within `tokens`.
    let (mut total, mut cut) = (0u64, 0usize);
    for &(end, n) in &pieces {
        if total + n > tokens {
            break;
        }
        total += n;
        cut = end;
    }
    let mut out = text[..cut].trim_end().to_owned();
    // The pieces before `safe` stay as they are whatever happens after the last character kept
    // (the character at `safe` is one of those kept): only the rest is counted again.
    let last_kept = out.char_indices().next_back().map_or(0, |(at, _)| at);
    let (safe, before) = pieces
        .iter()
        .take_while(|&&(end, _)| end <= last_kept)
        .fold((0, 0), |(_, sum), &(end, n)| (end, sum + n));
    let recount = |out: &str| {
        if out.len() > safe {
            before + bpe.count_uncached(&out[safe..]) as u64
        } else {
            bpe.count_uncached(out) as u64
        }
    };
    // Top up one token at a time; " a" after a word is one token of its own.
    let mut total = recount(&out);
    while total < tokens {
        out.push_str(if out.is_empty() { "a" } else { " a" });
        total = recount(&out);
    }
    while total > tokens {
        out.pop();
        total = recount(&out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The padding as it was first written, counting the whole text at each step: what the
    /// faster one must give, byte for byte.
    fn padding_counting_whole(style: PadStyle, tokens: u64, seed: u64) -> String {
        if tokens == 0 {
            return String::new();
        }
        let bpe = bpe_openai::o200k_base();
        let mut generator = Gen {
            rng: ChaCha8Rng::seed_from_u64(seed),
        };
        let mut text = String::new();
        while (bpe.count(text.as_str()) as u64) < tokens + 8 {
            for _ in 0..(tokens / 8 + 4) {
                text.push_str(&generator.chunk(style));
            }
        }
        let mut total = 0u64;
        let mut cut = 0;
        for piece in bpe.split(&text) {
            let n = bpe.bpe.count(piece.as_bytes()) as u64;
            if total + n > tokens {
                break;
            }
            total += n;
            cut += piece.len();
        }
        let mut out = text[..cut].trim_end().to_owned();
        let mut count = bpe.count(out.as_str()) as u64;
        while count < tokens {
            out.push_str(if out.is_empty() { "a" } else { " a" });
            count = bpe.count(out.as_str()) as u64;
        }
        while count > tokens {
            out.pop();
            count = bpe.count(out.as_str()) as u64;
        }
        out
    }

    #[test]
    fn counting_each_piece_once_gives_the_same_padding() {
        for style in PadStyle::ALL {
            for tokens in (1..40).chain([63, 100, 257, 1000, 2400]) {
                for seed in 0..6 {
                    let seed = mix(&[seed, tokens]);
                    assert_eq!(
                        padding(style, tokens, seed),
                        padding_counting_whole(style, tokens, seed),
                        "{style:?} {tokens} {seed}"
                    );
                }
            }
        }
    }

    #[test]
    fn padding_is_exact_and_deterministic() {
        for style in PadStyle::ALL {
            for tokens in [1, 7, 100, 1000] {
                let text = padding(style, tokens, 42);
                assert_eq!(
                    bpe_openai::o200k_base().count(text.as_str()) as u64,
                    tokens,
                    "{style:?} {tokens}"
                );
                assert_eq!(text, padding(style, tokens, 42));
            }
            assert_ne!(padding(style, 100, 1), padding(style, 100, 2));
        }
    }

    #[test]
    fn styles_fool_chars4_the_way_real_text_does() {
        // chars per token: JSON and code dense in punctuation, Chinese well under 4.
        let ratio = |style| padding(style, 2000, 7).chars().count() as f64 / 2000.0;
        // Chinese: chars4 sees about half the tokens, the Python flavor (\uXXXX escapes) about three times.
        let cjk = ratio(PadStyle::Cjk);
        assert!((0.35..0.6).contains(&(cjk / 4.0)), "cjk {cjk} chars per token");
        assert!((2.0..3.5).contains(&(cjk * 6.0 / 4.0)), "cjk {cjk} chars per token");
        assert!(ratio(PadStyle::Prose) > 4.0, "prose {}", ratio(PadStyle::Prose));
        assert!(
            ratio(PadStyle::Json) < ratio(PadStyle::Prose),
            "json {}",
            ratio(PadStyle::Json)
        );
    }
}
