//! Parsers of numeric flags whose errors are in the user's words ("`abc` is not a whole
//! number"), not the standard library's ("invalid digit found in string"); and [`Values`], the
//! value of a flag that `sweep` takes as a list or range and the other commands as one value.

use std::ffi::OsStr;
use std::fmt;

use clap::builder::TypedValueParser;
use ctxbench_compact::compact::Retries;
use ctxbench_harness::sweep::{parse_decimals, parse_integers};
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

/// A flag's values: one (`--threshold 0.7`), or a list or range (`--threshold 0.5:0.95:0.05`),
/// which `sweep` runs and a command that takes one configuration refuses ([`Values::one`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Values<T> {
    /// The values, in the order given (a range's from its lower end).
    list: Vec<T>,
    /// `--threshold 0.5,0.7`: the flag and its text, when given as a list or range.
    listed: Option<String>,
    /// What `sweep` takes instead, for the words that send a list there: `lists and ranges such
    /// as --keep 1..4`.
    in_sweep: String,
}

impl<T: Clone> Values<T> {
    /// The values, for `sweep`.
    pub fn list(&self) -> &[T] {
        &self.list
    }

    /// The one value, for `command` (`compare`, `run`, …); a list or range is refused in words
    /// that say where it runs: "compare takes one --threshold, not `0.5,0.7`; `ctxbench sweep`
    /// runs lists and ranges such as --threshold 0.5:0.95:0.05".
    pub fn one(&self, command: &str) -> anyhow::Result<T> {
        match (&self.listed, self.list.as_slice()) {
            (None, [value]) => Ok(value.clone()),
            (listed, _) => {
                let (flag, text) = listed
                    .as_deref()
                    .and_then(|l| l.split_once(' '))
                    .unwrap_or(("the flag", ""));
                anyhow::bail!(
                    "{command} takes one {flag}, not `{text}`; `ctxbench sweep` runs {}",
                    self.in_sweep
                )
            }
        }
    }
}

/// One value, as a flag's default is written: `default_value_t = Values::from(0.8)`.
impl<T> From<T> for Values<T> {
    fn from(value: T) -> Values<T> {
        Values {
            list: vec![value],
            listed: None,
            in_sweep: String::new(),
        }
    }
}

/// The values joined by commas: the default `--help` shows, which parses back to them.
impl<T: fmt::Display> fmt::Display for Values<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, value) in self.list.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{value}")?;
        }
        Ok(())
    }
}

/// Reads a list or range of values.
type ReadList<T> = fn(&str) -> Result<Vec<T>, String>;

/// Reads a flag's [`Values`]: one value with the flag's own parser (its words, as in any
/// command), a list or range with `sweep`'s ([`parse_decimals`], [`parse_integers`]).
#[derive(Clone, Copy)]
pub struct ValuesParser<T> {
    /// Reads one value.
    one: fn(&str) -> Result<T, String>,
    /// Reads a list or range; `None`: a comma-separated list of `one`'s values, no ranges.
    many: Option<ReadList<T>>,
    /// Values `sweep` runs, in `--help`'s and the errors' examples: `0.5:0.95:0.05`.
    example: &'static str,
}

impl<T: Clone + Send + Sync + 'static> TypedValueParser for ValuesParser<T> {
    type Value = Values<T>;

    fn parse_ref(&self, cmd: &clap::Command, arg: Option<&clap::Arg>, value: &OsStr) -> Result<Values<T>, clap::Error> {
        let text = value.to_string_lossy();
        let flag = arg.and_then(clap::Arg::get_long).unwrap_or("value");
        let kinds = if self.many.is_some() {
            "lists and ranges"
        } else {
            "lists"
        };
        let in_sweep = format!("{kinds} such as --{flag} {}", self.example);
        if !(text.contains([',', ':']) || text.contains("..")) {
            let one = self.one.parse_ref(cmd, arg, value)?;
            return Ok(Values {
                list: vec![one],
                listed: None,
                in_sweep,
            });
        }
        let one = self.one;
        let list = match self.many {
            Some(many) => many.parse_ref(cmd, arg, value)?,
            None => (move |t: &str| t.split(',').map(|v| one(v.trim())).collect::<Result<Vec<T>, String>>())
                .parse_ref(cmd, arg, value)?,
        };
        Ok(Values {
            list,
            listed: Some(format!("--{flag} {text}")),
            in_sweep,
        })
    }
}

/// `--threshold`, `--target`: decimals; in `sweep` a list or start:end:step, such as `example`.
pub fn decimals(example: &'static str) -> ValuesParser<f64> {
    let many = |text: &str| {
        let list = parse_decimals(text).map_err(|e| e.to_string())?;
        match list.iter().find(|x| !x.is_finite()) {
            Some(x) => Err(format!("`{x}` in `{text}` is not a number (like 0.8)")),
            None => Ok(list),
        }
    };
    ValuesParser {
        one: decimal,
        many: Some(many),
        example,
    }
}

/// `--keep`, `--reply-reserve`: whole numbers of 0 or more; in `sweep` a list or range, such as
/// `example`.
pub fn wholes<T: TryFrom<u64>>(example: &'static str) -> ValuesParser<T> {
    ValuesParser {
        one: whole::<T>,
        many: Some(integers::<T, 0>),
        example,
    }
}

/// `--window`: whole numbers of 1 or more; in `sweep` a list or range, such as `example`.
pub fn positives<T: TryFrom<u64>>(example: &'static str) -> ValuesParser<T> {
    ValuesParser {
        one: positive::<T>,
        many: Some(integers::<T, 1>),
        example,
    }
}

/// `--estimator`: names, each read by `one`; in `sweep` a comma-separated list, such as `example`.
pub fn names<T>(one: fn(&str) -> Result<T, String>, example: &'static str) -> ValuesParser<T> {
    ValuesParser {
        one,
        many: None,
        example,
    }
}

/// A list or range of whole numbers of `LEAST` or more ([`parse_integers`]).
fn integers<T: TryFrom<u64>, const LEAST: u64>(text: &str) -> Result<Vec<T>, String> {
    parse_integers(text)
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|n| {
            if n < LEAST {
                return Err(format!("`{n}` in `{text}` is below {LEAST}"));
            }
            T::try_from(n).map_err(|_| format!("`{n}` in `{text}` is too large"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A command with one flag of each kind of [`Values`].
    #[derive(clap::Parser)]
    struct Flags {
        #[arg(long, default_value_t = Values::from(0.8), value_parser = decimals("0.5:0.95:0.05"))]
        threshold: Values<f64>,
        #[arg(long, default_value_t = Values::from(2), value_parser = wholes::<usize>("1..4"))]
        keep: Values<usize>,
        #[arg(long, value_parser = positives::<u64>("4000,8000"))]
        window: Option<Values<u64>>,
        #[arg(long, default_value = "a", value_parser = names(|t: &str| Ok(t.to_owned()), "a,b"))]
        name: Values<String>,
    }

    fn flags(args: &[&str]) -> Result<Flags, String> {
        use clap::Parser as _;
        Flags::try_parse_from(std::iter::once("x").chain(args.iter().copied())).map_err(|e| e.to_string())
    }

    #[test]
    fn values_are_one_or_a_list_or_range() {
        let given = flags(&[
            "--threshold",
            "0.5:0.7:0.1",
            "--keep",
            "1..3",
            "--window",
            "4000",
            "--name",
            "a, b",
        ])
        .unwrap();
        assert_eq!(given.threshold.list(), [0.5, 0.6, 0.7]);
        assert_eq!(given.keep.list(), [1, 2, 3]);
        assert_eq!(given.window.unwrap().one("x").unwrap(), 4000);
        assert_eq!(given.name.list(), ["a", "b"]);

        let defaults = flags(&[]).unwrap();
        assert_eq!(defaults.threshold.one("x").unwrap(), 0.8);
        assert_eq!(defaults.keep.one("x").unwrap(), 2);
        assert_eq!(defaults.threshold.to_string(), "0.8");
        assert_eq!(given.keep.to_string(), "1,2,3");

        let refused = |values: Result<usize, anyhow::Error>| values.unwrap_err().to_string();
        assert_eq!(
            refused(given.keep.one("run")),
            "run takes one --keep, not `1..3`; `ctxbench sweep` runs lists and ranges such as --keep 1..4"
        );
        // A list of one value is a list still: it says the user meant `sweep`.
        let one_listed = flags(&["--keep", "2,2"]).unwrap();
        assert!(refused(one_listed.keep.one("compare")).starts_with("compare takes one --keep, not `2,2`"));
        assert!(
            given
                .name
                .one("compare")
                .unwrap_err()
                .to_string()
                .ends_with("runs lists such as --name a,b")
        );
    }

    #[test]
    fn a_bad_value_in_a_list_is_named() {
        let said = |args: &[&str]| flags(args).err().unwrap_or_default();
        assert!(said(&["--window", "0,4000"]).contains("`0` in `0,4000` is below 1"));
        assert!(said(&["--window", "0"]).contains("must be at least 1"));
        assert!(said(&["--threshold", "0.5,inf"]).contains("`inf` in `0.5,inf` is not a number"));
        assert!(said(&["--threshold", "abc"]).contains("`abc` is not a number (like 0.8)"));
        assert!(said(&["--keep", "4..1"]).contains("the range runs down"));
    }

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
