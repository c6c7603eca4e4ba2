//! Formatting for people, in one place: thousands separators, percentages, signed deltas.
//! Machine formats (JSON, CSV) write raw numbers instead.

/// `12345` → `12,345`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1` → `1 request`, `12345` → `12,345 requests`: a count of a regular noun, for people.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {noun}s", thousands(n as u64))
    }
}

/// `0.014248` → `$0.0142`: dollars to a hundredth of a cent, so that a column of runs that
/// cost cents still tells them apart.
pub fn dollars(usd: f64) -> String {
    format!("${usd:.4}")
}

/// Seconds for people: `3600` → `1 h`, `300` → `5 min`, `45` → `45 s`.
pub fn duration(seconds: u64) -> String {
    match seconds {
        s if s >= 3600 && s % 3600 == 0 => format!("{} h", s / 3600),
        s if s >= 60 && s % 60 == 0 => format!("{} min", s / 60),
        s => format!("{s} s"),
    }
}

/// `0.873` → `87%`; `0.0004` → `0.04%`, so that a rate barely above nothing does not read as 0.
pub fn percent(fraction: f64) -> String {
    let p = fraction * 100.0;
    if p == 0.0 || p >= 1.0 {
        format!("{p:.0}%")
    } else {
        format!("{p:.2}%")
    }
}

/// `after` relative to `before`: `-42.0%`, `+3.1%`, or `±0%`.
pub fn percent_change(before: u64, after: u64) -> String {
    if before == after || before == 0 {
        return "±0%".into();
    }
    let change = (after as f64 - before as f64) / before as f64 * 100.0;
    format!("{change:+.1}%")
}

/// `text` folded between words into lines of at most `width` characters, the first after
/// `first`, the rest after `rest`; each line ends with a newline.
pub fn wrap(text: &str, width: usize, first: &str, rest: &str) -> String {
    let mut out = String::new();
    let mut line = first.to_owned();
    let mut empty = true;
    for word in text.split(' ') {
        if !empty && line.chars().count() + 1 + word.chars().count() > width {
            out.push_str(&line);
            out.push('\n');
            line = rest.to_owned();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push_str(&line);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(
            (count(1, "row"), count(0, "row"), count(12_345, "row")),
            ("1 row".into(), "0 rows".into(), "12,345 rows".into())
        );
        assert_eq!(percent_change(200, 100), "-50.0%");
        assert_eq!(percent_change(100, 103), "+3.0%");
        assert_eq!(percent_change(100, 100), "±0%");
        assert_eq!(dollars(0.014248), "$0.0142");
        assert_eq!(wrap("one two three four", 9, "", "  "), "one two\n  three\n  four\n");
        assert_eq!(
            wrap("averyveryverylongword", 5, "> ", "  "),
            "> averyveryverylongword\n"
        );
        assert_eq!(dollars(12.5), "$12.5000");
        assert_eq!(
            (percent(0.873), percent(0.0), percent(0.0004)),
            ("87%".into(), "0%".into(), "0.04%".into())
        );
    }
}
