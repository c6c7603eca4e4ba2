//! Facts found in a logged conversation: a value that first appears in a user message or a tool
//! result, and that a later model turn uses in a call's arguments or in what it writes.
//!
//! Values are words of the text made of ASCII letters, digits and `_ . / - ~`, kept when they
//! look like something a model cannot guess: ids and codes (letters with digits, `sara_doe_496`,
//! `ZFA04Y`, `R-2291`, or upper-case codes with a dash, `W-AKS`), numbers of four digits or more,
//! dates (`2024-05-20`) and file paths. Plain words, short numbers, ordinals and measures (`24th`,
//! `500ms`) and a few technical words with digits (`utf8`, `sha256`, `python3`) are not facts.
//! A use is the value standing as a word of its own: not inside a longer word.

use std::collections::{BTreeSet, HashMap};

use ctxbench_compact::fact::FactKind;

/// A fact found, with where it came from and which steps use it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundFact {
    /// The value (also the fact's name in the scenario).
    pub value: String,
    /// Its kind.
    pub kind: FactKind,
    /// Index of the message it first appeared in (in the conversation as logged).
    pub source: usize,
    /// The steps that use it, as `(request, step)`, 0-based.
    pub needed_by: Vec<(usize, usize)>,
}

/// Walks a conversation in order and collects its facts.
#[derive(Debug, Default)]
pub(crate) struct FactFinder {
    /// Every candidate value seen so far, whatever said it.
    seen: BTreeSet<String>,
    /// Candidates that first appeared in a user message or a tool result.
    found: Vec<FoundFact>,
    /// Where each of them is in `found` (looked up, never iterated).
    by_value: HashMap<String, usize>,
    /// The longest of them, in bytes.
    longest: usize,
}

impl FactFinder {
    /// A user message or a tool result: its new values are candidate facts.
    pub fn source(&mut self, text: &str, message: usize) {
        for (word, kind) in candidates(text) {
            if self.seen.insert(word.to_owned()) {
                self.by_value.insert(word.to_owned(), self.found.len());
                self.longest = self.longest.max(word.len());
                self.found.push(FoundFact {
                    value: word.to_owned(),
                    kind,
                    source: message,
                    needed_by: Vec::new(),
                });
            }
        }
    }

    /// Text that no step needs a fact from (a system prompt, a greeting): its values are
    /// known from then on, so none of them becomes a fact later.
    pub fn other(&mut self, text: &str) {
        for (word, _) in candidates(text) {
            self.seen.insert(word.to_owned());
        }
    }

    /// A model turn, `(request, step)`, writing `texts` (its content and its calls' arguments):
    /// each known fact it uses becomes one of its needs.
    pub fn step(&mut self, step: (usize, usize), texts: &[&str]) {
        // Each word the texts hold as a word of its own, looked up: one pass over the texts,
        // however many facts there are (a long log has tens of thousands of candidates).
        for text in texts {
            words_used(text, self.longest, |word| {
                if let Some(&i) = self.by_value.get(word) {
                    let needed_by = &mut self.found[i].needed_by;
                    if needed_by.last() != Some(&step) {
                        needed_by.push(step);
                    }
                }
            });
        }
        for text in texts {
            self.other(text);
        }
    }

    /// The facts some step needs, in order of first appearance.
    pub fn finish(self) -> Vec<FoundFact> {
        self.found.into_iter().filter(|f| !f.needed_by.is_empty()).collect()
    }
}

/// Technical words with digits that any model knows: never facts.
const COMMON: &[&str] = &[
    "amd64", "arm64", "base64", "float16", "float32", "float64", "html5", "http2", "i386", "int16", "int32", "int64",
    "ipv4", "ipv6", "oauth2", "python2", "python3", "sha256", "sha384", "sha512", "uint16", "uint32", "uint64",
    "utf-8", "utf-16", "utf16", "utf8", "win32", "win64", "x86_64",
];

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-' | '~')
}

/// A character that continues a word: a value next to one is part of a longer word.
fn joins(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The candidate values of a text and their kinds, in order, repeats included.
pub(crate) fn candidates(text: &str) -> impl Iterator<Item = (&str, FactKind)> {
    text.split(|c: char| !is_word_char(c)).filter_map(|word| {
        let word = word.strip_prefix("./").unwrap_or(word);
        let word = word.trim_start_matches(['.', '-']).trim_end_matches(['.', '-', '/']);
        classify(word).map(|kind| (word, kind))
    })
}

/// The kind of value a word is, if it is one.
pub(crate) fn classify(word: &str) -> Option<FactKind> {
    let digits = word.bytes().filter(u8::is_ascii_digit).count();
    let letters = word.bytes().filter(u8::is_ascii_alphabetic).count();
    if word.contains('/') {
        return is_path(word, letters).then_some(FactKind::Path);
    }
    if is_date(word) {
        return Some(FactKind::Detail);
    }
    if letters == 0 {
        let (int, frac) = word.split_once('.').unwrap_or((word, "0"));
        let number = int.len() >= 4
            && int.bytes().all(|b| b.is_ascii_digit())
            && !frac.is_empty()
            && frac.bytes().all(|b| b.is_ascii_digit());
        return number.then_some(FactKind::Number);
    }
    if word.contains('.') || COMMON.contains(&word.to_ascii_lowercase().as_str()) || is_measure(word) {
        return None;
    }
    let code = digits > 0 && word.len() >= 4;
    let dashed = word.len() >= 5
        && word.contains('-')
        && letters >= 2
        && word
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'-');
    (code || dashed).then_some(FactKind::Id)
}

/// `/abs/path`, `~/x`, `a/b/c`, or `dir/file.ext`; not `and/or`, `text/html` or a URL's `//host`.
fn is_path(word: &str, letters: usize) -> bool {
    if letters == 0 || word.len() < 4 || word.starts_with("//") {
        return false;
    }
    let last = word.rsplit('/').next().unwrap_or("");
    let extension = last
        .rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.is_empty() && ext.bytes().any(|b| b.is_ascii_alphabetic()));
    word.starts_with('/') || word.starts_with("~/") || word.matches('/').count() >= 2 || extension
}

/// A number with an ordinal or a unit: `24th`, `2nd`, `500ms`, `16kb`.
fn is_measure(word: &str) -> bool {
    let suffix = word.trim_start_matches(|c: char| c.is_ascii_digit());
    suffix.len() < word.len() && (1..=3).contains(&suffix.len()) && suffix.bytes().all(|b| b.is_ascii_lowercase())
}

/// `YYYY-MM-DD`.
fn is_date(word: &str) -> bool {
    let b = word.as_bytes();
    b.len() == 10 && b[4] == b'-' && b[7] == b'-' && [0, 1, 2, 3, 5, 6, 8, 9].iter().all(|&i| b[i].is_ascii_digit())
}

/// Calls `used` with every part of `text` of at most `longest` bytes that [`uses`] would find
/// there as a word of its own and that a value could be (only the characters of words, `_ . / -
/// ~` among them): parts of a run of such characters that start at the run's start or after one
/// of `. / - ~`, and end at the run's end or before one.
fn words_used<'t>(text: &'t str, longest: usize, mut used: impl FnMut(&'t str)) {
    let b = text.as_bytes();
    let word = |c: u8| is_word_char(char::from(c));
    let mut cuts: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !word(b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        cuts.clear();
        while i < b.len() && word(b[i]) {
            if !joins(Some(char::from(b[i]))) {
                cuts.push(i);
            }
            i += 1;
        }
        let end = i;
        // Each start with the first cut that may end a part from it.
        let after_cuts = cuts.iter().enumerate().map(|(j, &c)| (c + 1, j + 1));
        for (p, first) in std::iter::once((start, 0)).chain(after_cuts.filter(|&(p, _)| p < end)) {
            let ends = cuts[first..]
                .iter()
                .copied()
                .filter(|&q| q > p)
                .chain(std::iter::once(end));
            for q in ends.take_while(|&q| q - p <= longest) {
                used(&text[p..q]);
            }
        }
    }
}

/// Whether `text` holds `value` as a word of its own, at any of its places (overlapping ones
/// too: `~~~` stands alone in `a~~~~` from its second `~`): the definition [`words_used`] is
/// held to.
#[cfg(test)]
fn uses(text: &str, value: &str) -> bool {
    (0..=text.len().saturating_sub(value.len()))
        .filter(|&at| text.is_char_boundary(at) && text[at..].starts_with(value))
        .any(|at| !joins(text[..at].chars().next_back()) && !joins(text[at + value.len()..].chars().next()))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn by_value(facts: &[FoundFact]) -> BTreeMap<&str, &FoundFact> {
        facts.iter().map(|f| (f.value.as_str(), f)).collect()
    }

    fn kinds(text: &str) -> Vec<(&str, FactKind)> {
        candidates(text).collect()
    }

    #[test]
    fn ids_codes_numbers_dates_and_paths_are_candidates() {
        let text = r#"{"user_id": "sara_doe_496", "reservation_id": "ZFA04Y", "order": 4471, "return": "R-2291",
            "sku": "W-AKS", "date": "2024-05-20", "price": 1234.5, "file": "./django/forms/models.py"}"#;
        assert_eq!(
            kinds(text),
            vec![
                ("sara_doe_496", FactKind::Id),
                ("ZFA04Y", FactKind::Id),
                ("4471", FactKind::Number),
                ("R-2291", FactKind::Id),
                ("W-AKS", FactKind::Id),
                ("2024-05-20", FactKind::Detail),
                ("1234.5", FactKind::Number),
                ("django/forms/models.py", FactKind::Path),
            ]
        );
        assert_eq!(
            kinds("cat /testbed/setup.cfg ~/notes src/lib"),
            vec![("/testbed/setup.cfg", FactKind::Path), ("~/notes", FactKind::Path)]
        );
    }

    #[test]
    fn common_words_and_short_numbers_are_not() {
        for word in [
            "order",
            "reservation_id",
            "JFK",
            "ERROR",
            "123",
            "2.5",
            "v1.2.3",
            "python3",
            "UTF-8",
            "sha256",
            "x86_64",
            "and/or",
            "text/html",
            "//cdn",
            "0.001",
            "12.",
            "a1",
            "24th",
            "500ms",
        ] {
            assert_eq!(classify(word), None, "{word}");
        }
        // Sentence punctuation around a value is not part of it.
        assert_eq!(kinds("Order 4471."), vec![("4471", FactKind::Number)]);
        assert_eq!(kinds("订单4471的轮子"), vec![("4471", FactKind::Number)]);
    }

    #[test]
    fn a_use_is_a_whole_word() {
        assert!(uses(r#"{"order": 4471}"#, "4471"));
        assert!(uses("cat /testbed/django/forms/models.py", "django/forms/models.py"));
        assert!(!uses("order 44712", "4471"));
        assert!(!uses("id_4471", "4471"));
        assert!(!uses("models.pyc", "models.py"));
    }

    #[test]
    fn facts_come_from_users_and_tools_and_are_needed_later() {
        let mut finder = FactFinder::default();
        finder.other("You are the assistant. Office code HQ-NORTH.");
        finder.source("My order is 4471, account HQ-NORTH", 1);
        finder.step((0, 0), &[r#"{"order": 4471}"#]);
        finder.source(r#"{"order": 4471, "tracking": "TRK-99812"}"#, 3);
        finder.step((0, 1), &["It ships with TRK-99812; invented X-ABC-123 too"]);
        finder.source("Thanks. What was X-ABC-123?", 5);
        finder.step((1, 0), &["Order 4471: X-ABC-123"]);
        let facts = finder.finish();
        let by = by_value(&facts);
        assert_eq!(by.keys().copied().collect::<Vec<_>>(), ["4471", "TRK-99812"]);
        assert_eq!(by["4471"].source, 1);
        assert_eq!(by["4471"].needed_by, [(0, 0), (1, 0)]);
        assert_eq!(by["TRK-99812"].needed_by, [(0, 1)]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 2_000, ..Default::default() })]

        /// The parts looked up are exactly the values `uses` finds, among every part of every
        /// word of the text and of another.
        #[test]
        fn the_words_looked_up_are_the_values_uses_finds(
            text in "[a-zA-Z0-9_./~ -]{0,60}",
            values in "[a-zA-Z0-9_./~ -]{0,60}",
        ) {
            // The parts of the words of both texts: values the text holds, and others.
            let values: BTreeSet<&str> = [text.as_str(), values.as_str()]
                .into_iter()
                .flat_map(|t| t.split(|c: char| !is_word_char(c)))
                .flat_map(|w| (0..w.len()).flat_map(move |i| (i + 1..=w.len()).map(move |j| &w[i..j])))
                .collect();
            let longest = values.iter().map(|v| v.len()).max().unwrap_or(0);
            let mut looked_up = BTreeSet::new();
            words_used(&text, longest, |w| {
                if values.contains(w) {
                    looked_up.insert(w);
                }
            });
            let found: BTreeSet<&str> = values.iter().copied().filter(|v| uses(&text, v)).collect();
            proptest::prop_assert_eq!(looked_up, found);
        }
    }
}
