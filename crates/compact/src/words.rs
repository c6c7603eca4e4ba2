//! Names the user misspelled: the nearest known one, for "did you mean …?" in messages.

/// The known name closest to `name`, when one is close: at most two edits, or one starts with
/// the other. For "did you mean …?" in messages.
pub fn nearest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    let lower = name.to_lowercase();
    known
        .iter()
        .map(|k| (edits(&lower, &k.to_lowercase()), *k))
        .filter(|(d, k)| *d <= 2.min(k.len() / 2) || (lower.len() >= 3 && k.starts_with(lower.as_str())))
        .min()
        .map(|(_, k)| k)
}

/// Levenshtein distance.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let here = row[j + 1];
            row[j + 1] = (previous + usize::from(ca != *cb)).min(row[j] + 1).min(here + 1);
            previous = here;
        }
    }
    row[b.len()]
}
