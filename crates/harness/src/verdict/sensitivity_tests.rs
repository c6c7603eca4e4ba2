//! A verdict's checks: under other prices and summarizer profiles, and on one draw.

use super::tests::{default, row, seeded};
use super::*;
use crate::billing::cache_mode::CacheMode;
use crate::row::ResultRow;

#[test]
fn one_draw_is_said_and_fragile() {
    let mut r = row("s", "summarize", 0.02, 0, true);
    r.metrics.summarizer_calls = 1;
    let rows = [r, row("s", "drop", 0.01, 1, true)];
    let v = &verdicts(&rows, &default())[0];
    assert!(v.one_draw);
    let s = sensitivities(std::slice::from_ref(v), &[], &[], &default());
    assert!(s[0].as_ref().is_some_and(|s| s.fragile && s.one_draw && s.of == 0));
    // Nothing drew: one run is the figure itself.
    let rows = [row("s", "truncate", 0.02, 0, true), row("s", "drop", 0.01, 1, true)];
    assert!(!verdicts(&rows, &default())[0].one_draw);
}

#[test]
fn alternatives_checked_out_of_order_say_what_checked_in_order_says() {
    // Three seeds; `drop` is cheaper as run, `mask` under the second and third alternatives.
    let main: Vec<ResultRow> = (0..3)
        .flat_map(|seed| {
            [
                seeded("s", "drop", seed, 0.01, 0, true),
                seeded("s", "mask", seed, 0.02, 0, true),
            ]
        })
        .collect();
    let flipped: Vec<ResultRow> = (0..3)
        .flat_map(|seed| {
            [
                seeded("s", "drop", seed, 0.03, 0, true),
                seeded("s", "mask", seed, 0.02, 0, true),
            ]
        })
        .collect();
    let none: CacheMode = "none".parse().expect("a cache");
    let alternative = |name: &str, rows: &[ResultRow], summarizer: bool| Alternative {
        name: name.to_owned(),
        cache: none.clone(),
        rows: Runs::Ran(rows.to_vec()),
        resimulated: Some(3),
        summarizer,
    };
    let alternatives = [
        alternative("a", &main, false),
        alternative("b", &flipped, false),
        alternative("summarizer c", &flipped, true),
    ];
    let objective = default();
    let v = verdicts(&main, &objective);
    let in_order = sensitivities(&v, &main, &alternatives, &objective);
    let mut checker = Checker::new(&v, &objective);
    for at in [2, 0, 1] {
        let Runs::Ran(rows) = &alternatives[at].rows else {
            unreachable!("ran")
        };
        checker.check(at, &Against::of(&alternatives[at]), rows);
    }
    let out_of_order = checker.finish();
    assert_eq!(in_order, out_of_order);
    let s = in_order[0].as_ref().expect("a pick");
    assert_eq!((s.holds, s.of, s.profiles_hold), (1, 2, 0));
    let flips: Vec<&str> = s.flips.iter().map(|f| f.price.as_str()).collect();
    assert_eq!(flips, ["b", "summarizer c"]);
}
