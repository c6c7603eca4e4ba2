//! Parsers of numeric flags whose errors are in the user's words ("`abc` is not a whole
//! number"), not the standard library's ("invalid digit found in string").

/// A whole number of 0 or more.
pub fn whole<T: TryFrom<u64>>(text: &str) -> Result<T, String> {
    let digits = text.trim().replace('_', "");
    let n: u64 = digits.parse().map_err(|_| {
        if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
            format!("`{text}` is too large (at most {})", u64::MAX)
        } else if digits.starts_with('-') {
            format!("`{text}` is below 0; give a whole number of 0 or more")
        } else {
            format!("`{text}` is not a whole number (like 6000)")
        }
    })?;
    T::try_from(n).map_err(|_| format!("{n} is too large"))
}

/// A whole number of 1 or more.
pub fn positive<T: TryFrom<u64>>(text: &str) -> Result<T, String> {
    let n: u64 = whole(text)?;
    if n == 0 {
        return Err("must be at least 1".into());
    }
    T::try_from(n).map_err(|_| format!("{n} is too large"))
}

/// A decimal number (like 0.8).
pub fn decimal(text: &str) -> Result<f64, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| format!("`{text}` is not a number (like 0.8)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn says_what_is_wrong_in_words() {
        assert_eq!(whole::<u64>("6_000"), Ok(6000));
        assert_eq!(
            whole::<u64>("abc"),
            Err("`abc` is not a whole number (like 6000)".into())
        );
        assert_eq!(
            whole::<u64>("-5"),
            Err("`-5` is below 0; give a whole number of 0 or more".into())
        );
        assert_eq!(
            whole::<u64>("99999999999999999999"),
            Err("`99999999999999999999` is too large (at most 18446744073709551615)".into())
        );
        assert_eq!(whole::<u16>("70000"), Err("70000 is too large".into()));
        assert_eq!(positive::<usize>("0"), Err("must be at least 1".into()));
        assert_eq!(decimal("0.8"), Ok(0.8));
        assert!(decimal("NaN").is_err() && decimal("x").is_err());
    }
}
