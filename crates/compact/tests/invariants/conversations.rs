//! Every strategy on real conversations: the six of `tests/fixtures/traces/`, and the project's
//! own fixtures (`tests/fixtures/`, with the same quirks).

use std::path::{Path, PathBuf};

use ctxbench_compact::conversation::first_user;
use ctxbench_compact::{Compactor, CounterKind, Policy, RequestBody, Strategy, check_pairing};

use crate::fixtures::{fixture, json_files};

const STRATEGIES: &[&str] = &[
    "none",
    "truncate",
    "drop",
    "truncate+drop",
    "mask",
    "mask+drop",
    "mask:m=3,trigger=always+drop",
    "window",
    "window:n=1",
    "clear-tool-uses",
    "clear-tool-uses:keep=1,clear_at_least=500,exclude=get_order+drop",
    "reference",
    "reference:flavor=py",
];

const WINDOWS: &[u64] = &[2_000, 4_000, 8_000, 16_000, 64_000];

fn fixtures() -> Vec<PathBuf> {
    json_files(&fixture(""))
}

/// Compacts `file` with every strategy at every window and checks what must always hold.
/// Returns how many runs changed the history.
fn check_file(file: &Path) -> usize {
    let text = std::fs::read_to_string(file).expect("readable");
    let body = RequestBody::parse(&text, &file.display().to_string()).expect("real conversations parse");
    let original = body.conversation;
    let pending = check_pairing(&original.messages)
        .expect("real conversations keep pairing")
        .pending_calls;
    let head = first_user(&original.messages).map_or(original.messages.len(), |i| i + 1);
    let mut changed = 0;
    for &window in WINDOWS {
        for keep in [1, 2] {
            let policy = Policy {
                keep_recent_turns: keep,
                ..Policy::new(window)
            };
            for &name in STRATEGIES {
                let strategy: Strategy = name.parse().expect("valid strategy");
                let mut c = original.clone();
                let done = Compactor::new(strategy, policy.clone(), CounterKind::Chars4.counter()).compact(&mut c);
                let at = format!("{} with {name} at window {window}, keep {keep}", file.display());
                assert_eq!(check_pairing(&c.messages).map(|p| p.pending_calls), Ok(pending), "{at}");
                assert_eq!(c.system, original.system, "{at}");
                assert_eq!(c.messages[..head], original.messages[..head], "{at}");
                assert!(done.tokens_after <= done.tokens_before || done.cannot_fit, "{at}");
                changed += usize::from(done.changed());
            }
        }
    }
    changed
}

#[test]
fn project_fixtures() {
    let files = fixtures();
    assert!(files.len() >= 2, "tests/fixtures holds the project's own conversations");
    for file in files {
        assert!(
            check_file(&file) > 0,
            "{}: no strategy changed anything at any window",
            file.display()
        );
    }
}

#[test]
fn real_traces() {
    let files = json_files(&fixture("traces"));
    assert_eq!(files.len(), 6, "the six real conversations of tests/fixtures/traces");
    for file in files {
        assert!(
            check_file(&file) > 0,
            "{}: no strategy changed anything at any window",
            file.display()
        );
    }
}

/// `compact` parses as it reads: the same body, and the same errors at the same places, as
/// parsing the whole text.
#[test]
fn parsing_while_reading_equals_parsing_the_text() {
    let mut files = fixtures();
    files.extend(json_files(&fixture("traces")));
    assert!(files.len() >= 8);
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable");
        let name = file.display().to_string();
        let whole = RequestBody::parse(&text, &name).expect("parses");
        let read = RequestBody::parse_reader(std::io::BufReader::with_capacity(64, text.as_bytes()), &name)
            .expect("parses while reading");
        assert_eq!(whole, read, "{name}");
    }
    let bad = [
        "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"},\n  {\"role\": \"robot\"}]}",
        "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}",
        "{\"messages\": {}}",
        "[{\"role\": \"tool\", \"tool_call_id\": \"x\", \"content\": \"orphan\"}]",
        "{\"messages\": [], \"tools\": 3}",
    ];
    for text in bad {
        let whole = RequestBody::parse(text, "bad.json").expect_err("an error").to_string();
        let read = RequestBody::parse_reader(text.as_bytes(), "bad.json")
            .expect_err("an error")
            .to_string();
        assert_eq!(whole, read, "{text}");
    }
}

/// Counting ahead on two threads finds the costs counting one by one finds.
#[test]
fn counting_ahead_on_threads_finds_the_same_costs() {
    let text =
        std::fs::read_to_string(fixture("traces/mini-swe-deepseek__django__django-14915.json")).expect("readable");
    let body = RequestBody::parse(&text, "trace").expect("parses");
    // Long enough to be split between threads.
    let mut messages = Vec::new();
    while messages.len() < 3_000 {
        messages.extend(body.conversation.messages.iter().cloned());
    }
    for kind in [CounterKind::Chars4, CounterKind::O200k, CounterKind::Cl100k] {
        let counter = kind.single_pass_counter();
        let ahead = messages.clone();
        ctxbench_compact::tokens::count_ahead(counter.as_ref(), &ahead, 2);
        let one_by_one: Vec<u64> = messages.clone().iter().map(|m| counter.message_units(m)).collect();
        let found: Vec<u64> = ahead.iter().map(|m| counter.message_units(m)).collect();
        assert_eq!(found, one_by_one, "{kind}");
        assert_eq!(
            counter.count(None, &ahead, &Default::default()),
            kind.counter().count(None, &messages.clone(), &Default::default()),
            "{kind}: the cached counter agrees"
        );
    }
}
