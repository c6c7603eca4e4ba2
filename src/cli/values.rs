//! Parsers of numeric flags whose errors are in the user's words ("`abc` is not a whole
//! number"), not the standard library's ("invalid digit found in string").

use ctxbench_compact::compact::Retries;
use ctxbench_harness::verdict::Objective;

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

/// `--compaction-retries`: 0 to [`Retries::MOST`]; more retries of one summary call is a typo,
/// and against a live endpoint that keeps failing a run that never ends.
pub fn retries(text: &str) -> Result<u32, String> {
    let n: u64 = whole(text)?;
    if n > u64::from(Retries::MOST) {
        return Err(format!(
            "`{text}` is too many: a failed summary call is asked again 0 to {} times",
            Retries::MOST
        ));
    }
    Ok(n as u32)
}

/// A decimal number (like 0.8).
pub fn decimal(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        // `1e309` is a number, past the largest there is (`inf` is not one).
        Ok(_)
            if text
                .trim()
                .trim_start_matches(['+', '-'])
                .starts_with(|c: char| c.is_ascii_digit() || c == '.') =>
        {
            Err(format!("`{text}` is too large (the largest number is about 1.8e308)"))
        }
        _ => Err(format!("`{text}` is not a number (like 0.8)")),
    }
}

/// `--fact-cost`: dollars, one too large said with the range the flag takes (below 0 is left to
/// `Objective::resolve`, which says the same range).
pub fn fact_cost(text: &str) -> Result<f64, String> {
    let range = Objective::fact_cost_range();
    match text.trim().parse::<f64>() {
        Ok(usd) if usd > Objective::MOST_FACT_COST => Err(format!("`{text}` is too large: {range}")),
        Ok(usd) if !usd.is_nan() => Ok(usd),
        _ => Err(format!("`{text}` is not a number: {range}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_are_bounded() {
        assert_eq!(retries("2"), Ok(2));
        assert_eq!(retries("10"), Ok(10));
        assert!(retries("11").is_err_and(|e| e.contains("0 to 10")));
        assert!(retries("-1").is_err_and(|e| e.contains("below 0")));
    }

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
        assert_eq!(
            decimal("1e309"),
            Err("`1e309` is too large (the largest number is about 1.8e308)".into())
        );
        assert_eq!(decimal("inf"), Err("`inf` is not a number (like 0.8)".into()));
    }
}
