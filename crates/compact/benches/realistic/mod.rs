//! Realistic agent histories for the benches and the peer comparison (`benches/against-langchain.sh`):
//! a chat request body of distinct text, from a fixed seed.
//!
//! Each request is a user message (one in eight in Chinese), then one to four steps of an
//! assistant message with one to three parallel tool calls (some with a sentence before them),
//! each answered by a result of 40 to 900 characters in one of five shapes (a JSON record, log
//! lines, a file listing, prose, Chinese prose), and a reply. No two texts repeat: every word
//! carries a number or is drawn from a vocabulary of 160 words, so compressing or caching by
//! content cannot help. 100,000 messages are about 56 MB.
//!
//! Shared by the `peers` bench and the `realistic_history` example (which writes a body to a
//! file); not a bench target itself (no `main.rs`).

use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};

const WORDS: &str = "order refund shipment invoice customer warehouse delay package tracking address \
payment status ticket account carrier return label policy window receipt discount coupon balance \
credit debit charge dispute escalate manager approve reject pending review schedule pickup \
delivery route driver depot region stock inventory supplier quote contract renewal plan tier \
upgrade downgrade cancel pause resume migrate deploy build test release branch commit merge \
conflict patch diff file module function class method field index query cache latency error \
timeout retry backoff queue worker thread lock mutex channel socket request response header \
body token session cookie login logout password reset verify email phone message notify alert \
metric trace span log level debug info warn fatal config flag option default value limit quota \
usage bill price cost budget forecast report summary chart table column row filter sort group \
join select insert update delete schema table view trigger backup restore snapshot volume disk \
memory cpu node cluster pod service ingress gateway proxy route domain certificate expire renew \
the a of to and in for with on by from that this is was are be has";

const CJK: &[&str] = &[
    "订单",
    "退款",
    "物流",
    "客户",
    "仓库",
    "延迟",
    "包裹",
    "地址",
    "付款",
    "状态",
    "账户",
    "承运商",
    "发票",
    "库存",
    "优惠券",
    "余额",
    "审核",
    "配送",
    "司机",
    "区域",
    "合同",
    "升级",
    "取消",
    "错误",
    "超时",
    "重试",
    "队列",
    "缓存",
    "日志",
    "配置",
    "预算",
    "报告",
    "我们",
    "已经",
    "需要",
    "确认",
];

const TOOLS: &[&str] = &[
    "get_order",
    "search_orders",
    "read_file",
    "run_tests",
    "list_dir",
    "get_customer",
    "query_db",
    "fetch_logs",
    "grep",
    "get_shipment",
];

struct Text {
    rng: ChaCha8Rng,
    words: Vec<&'static str>,
}

impl Text {
    fn word(&mut self) -> String {
        let w = self.words[self.rng.random_range(0..self.words.len())];
        if self.rng.random_range(0..4) == 0 {
            format!("{w}{}", self.rng.random_range(0..99_999))
        } else {
            w.to_owned()
        }
    }

    /// About `chars` characters of English words, with numbers.
    fn english(&mut self, chars: usize) -> String {
        let mut out = String::with_capacity(chars + 16);
        while out.len() < chars {
            if !out.is_empty() {
                out.push(if self.rng.random_range(0..12) == 0 { '.' } else { ' ' });
                if out.ends_with('.') {
                    out.push(' ');
                }
            }
            out.push_str(&self.word());
        }
        out
    }

    /// English of a length drawn from `lo..hi` characters.
    fn words_of(&mut self, lo: usize, hi: usize) -> String {
        let chars = self.rng.random_range(lo..hi);
        self.english(chars)
    }

    /// About `chars` characters of Chinese, with numbers.
    fn chinese(&mut self, chars: usize) -> String {
        let mut out = String::new();
        let mut n = 0;
        while n < chars {
            let w = CJK[self.rng.random_range(0..CJK.len())];
            out.push_str(w);
            n += w.chars().count();
            match self.rng.random_range(0..10) {
                0 => out.push('，'),
                1 => out.push('。'),
                2 => out.push_str(&self.rng.random_range(0..9_999).to_string()),
                _ => {}
            }
        }
        out
    }

    fn request(&mut self) -> String {
        let n = self.rng.random_range(40..400);
        if self.rng.random_range(0..8) == 0 {
            self.chinese(n / 3)
        } else {
            self.english(n)
        }
    }

    /// A tool result of 40 to 900 characters in one of five shapes.
    fn result(&mut self) -> String {
        let chars = self.rng.random_range(40..=900);
        match self.rng.random_range(0..5) {
            0 => {
                let mut record = serde_json::Map::new();
                while serde_json::to_string(&record).map_or(0, |s| s.len()) < chars {
                    let key = self.word();
                    let value = match self.rng.random_range(0..3) {
                        0 => json!(self.rng.random_range(0..1_000_000)),
                        1 => json!(self.words_of(5, 60)),
                        _ => json!(self.rng.random_range(0..2) == 0),
                    };
                    record.insert(key, value);
                }
                Value::Object(record).to_string()
            }
            1 => {
                let mut out = String::new();
                while out.len() < chars {
                    let level = ["INFO", "WARN", "ERROR", "DEBUG"][self.rng.random_range(0..4)];
                    let t = self.rng.random_range(0..86_400);
                    let line = self.words_of(20, 90);
                    out.push_str(&format!(
                        "{:02}:{:02}:{:02} {level} {line}\n",
                        t / 3600,
                        t / 60 % 60,
                        t % 60
                    ));
                }
                out
            }
            2 => {
                let mut out = String::new();
                while out.len() < chars {
                    let size = self.rng.random_range(0..200_000);
                    out.push_str(&format!("{size:>8} src/{}/{}.rs\n", self.word(), self.word()));
                }
                out
            }
            3 => self.english(chars),
            _ => self.chinese(chars / 3),
        }
    }
}

/// A chat request body of at least `messages` messages (one system message, then whole requests),
/// compact JSON as agents send it.
pub fn body(messages: usize, seed: u64) -> String {
    let mut t = Text {
        rng: ChaCha8Rng::seed_from_u64(seed),
        words: WORDS.split_whitespace().collect(),
    };
    let mut out = vec![
        json!({"role": "system", "content": "You are the support and coding agent of a bike shop. Use the tools; answer briefly."}),
    ];
    let mut call = 0u64;
    while out.len() < messages {
        out.push(json!({"role": "user", "content": t.request()}));
        for _ in 0..t.rng.random_range(1..=4) {
            let parallel = t.rng.random_range(1..=3);
            let ids: Vec<String> = (0..parallel)
                .map(|k| format!("call_{:x}{k}", call * 7919 + 104_729))
                .collect();
            call += 1;
            let calls: Vec<Value> = ids
                .iter()
                .map(|id| {
                    let name = TOOLS[t.rng.random_range(0..TOOLS.len())];
                    let arguments = json!({"query": t.words_of(8, 40), "limit": t.rng.random_range(1..50)});
                    json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments.to_string()}})
                })
                .collect();
            let content = if t.rng.random_range(0..3) == 0 {
                json!(t.words_of(20, 120))
            } else {
                Value::Null
            };
            out.push(json!({"role": "assistant", "content": content, "tool_calls": calls}));
            for id in &ids {
                out.push(json!({"role": "tool", "tool_call_id": id, "content": t.result()}));
            }
        }
        out.push(json!({"role": "assistant", "content": t.words_of(60, 700)}));
    }
    json!({"model": "gpt-5.4-mini", "messages": out}).to_string()
}
