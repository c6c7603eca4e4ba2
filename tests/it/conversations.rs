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
