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

/// `after` relative to `before`: `-42.0%`, `+3.1%`, or `±0%`.
pub fn percent_change(before: u64, after: u64) -> String {
    if before == after || before == 0 {
        return "±0%".into();
    }
    let change = (after as f64 - before as f64) / before as f64 * 100.0;
    format!("{change:+.1}%")
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
        assert_eq!(percent_change(200, 100), "-50.0%");
        assert_eq!(percent_change(100, 103), "+3.0%");
        assert_eq!(percent_change(100, 100), "±0%");
    }
}
