//! The library's one error type: input that cannot be compacted. Each variant says what happened
//! and where; the messages end with what to do when that is not obvious.

use crate::compact::StrategyError;
use crate::pairing::PairingError;
use crate::policy::PolicyError;
use crate::words::nearest;

/// Everything the library can fail with: a body, a message, a policy or a strategy that does
/// not parse or breaks a rule.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input is not JSON, or not JSON of the expected shape, at a known place.
    #[error("{source_name}:{line}:{column}: {msg}")]
    Json {
        /// The file (or `<stdin>`).
        source_name: String,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// What is wrong (`invalid JSON: …`, or what the format expected).
        msg: String,
    },
    /// The input is JSON but not of the expected shape.
    #[error("{source_name}: {at}: {msg}")]
    Input {
        /// The file (or `<stdin>`).
        source_name: String,
        /// Where in the document (`messages[3].role`).
        at: String,
        /// What is wrong.
        msg: String,
    },
    /// The file itself, before its content: a folder, an empty file, one that cannot be read.
    #[error("{source_name}: {msg}")]
    File {
        /// The file.
        source_name: String,
        /// What is wrong.
        msg: String,
    },
    /// A history breaks the pairing rule between tool calls and results.
    #[error(
        "{source_name}: {broken}; every tool result must answer a call of the assistant message just before it, \
         and every call needs its result before the next message"
    )]
    Pairing {
        /// The file (or `<stdin>`).
        source_name: String,
        /// Where and how the rule is broken.
        broken: PairingError,
    },
    /// A policy value out of range.
    #[error(transparent)]
    Policy(#[from] PolicyError),
    /// A strategy name that does not parse.
    #[error(transparent)]
    Strategy(#[from] StrategyError),
}

impl Error {
    /// An error of serde_json at its line and column: `invalid JSON` for syntax, `what` for
    /// JSON that is well formed but not of the expected shape.
    pub fn json(source_name: &str, e: &serde_json::Error, what: &str) -> Error {
        let text = e.to_string();
        let bare = text.rsplit_once(" at line ").map_or(text.as_str(), |(m, _)| m);
        let msg = match e.classify() {
            serde_json::error::Category::Data => format!("{what}: {}", plain(bare)),
            _ => format!("invalid JSON: {bare}"),
        };
        Error::Json {
            source_name: source_name.to_owned(),
            line: e.line(),
            column: e.column(),
            msg,
        }
    }
}

impl Error {
    /// [`Error::json`] for one line of a JSON-lines file: placed at that line of the file.
    pub fn json_line(source_name: &str, e: &serde_json::Error, what: &str, line: usize) -> Error {
        match Error::json(source_name, e, what) {
            Error::Json {
                source_name,
                column,
                msg,
                ..
            } => Error::Json {
                source_name,
                line,
                column,
                msg,
            },
            other => other,
        }
    }
}

/// serde's message in the user's words: `invalid type: string "6000", expected u64` becomes
/// `the text "6000" where a whole number of 0 or more is expected`, and an unknown field gets the
/// nearest known name ("did you mean `window`?").
pub fn plain(message: &str) -> String {
    if let Some(rest) = message
        .strip_prefix("unknown field `")
        .or_else(|| message.strip_prefix("unknown variant `"))
    {
        let field = message.starts_with("unknown field");
        let (name, known) = rest.split_once('`').unwrap_or((rest, ""));
        let known: Vec<&str> = known.split('`').skip(1).step_by(2).collect();
        let what = if field { "field" } else { "value" };
        let mut out = format!("unknown {what} `{name}`");
        if let Some(near) = nearest(name, &known) {
            out.push_str(&format!("; did you mean `{near}`?"));
        }
        if !known.is_empty() {
            out.push_str(&format!(
                " ({}: {})",
                if field { "the fields are" } else { "one of" },
                known.join(", ")
            ));
        }
        return out;
    }
    if let Some(rest) = message.strip_prefix("missing field `") {
        return format!("the field `{}` is missing", rest.trim_end_matches('`'));
    }
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = message.strip_prefix(prefix) {
            if let Some((found, expected)) = rest.split_once(", expected ") {
                return format!("{} where {} is expected", thing(found), thing(expected));
            }
        }
    }
    if let Some(rest) = message.strip_prefix("invalid length ") {
        if let Some((n, expected)) = rest.split_once(", expected ") {
            return format!("{n} items where {} is expected", thing(expected));
        }
    }
    message.to_owned()
}

/// One side of serde's "invalid type" in words.
fn thing(text: &str) -> String {
    let text = text.trim();
    let quoted = |t: &str| t.trim_matches('`').to_owned();
    match text {
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" => "a whole number of 0 or more".into(),
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => "a whole number".into(),
        "f32" | "f64" => "a number".into(),
        "a boolean" => "true or false".into(),
        "map" | "a map" => "an object".into(),
        "sequence" | "a sequence" => "a list".into(),
        "unit value" | "null" => "null".into(),
        _ => {
            if let Some(v) = text
                .strip_prefix("integer ")
                .or_else(|| text.strip_prefix("floating point "))
            {
                format!("the number {}", quoted(v))
            } else if let Some(v) = text.strip_prefix("string ") {
                format!("the text {v}")
            } else if let Some(v) = text.strip_prefix("boolean ") {
                quoted(v)
            } else if let Some(v) = text.strip_prefix("struct ") {
                format!("an object ({v})")
            } else {
                text.to_owned()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::plain;

    #[test]
    fn serde_in_words() {
        assert_eq!(
            plain("invalid type: string \"6000\", expected u64"),
            "the text \"6000\" where a whole number of 0 or more is expected"
        );
        assert_eq!(
            plain("invalid value: integer `-5`, expected u64"),
            "the number -5 where a whole number of 0 or more is expected"
        );
        assert_eq!(
            plain("unknown field `windw`, expected one of `name`, `window`, `tools`"),
            "unknown field `windw`; did you mean `window`? (the fields are: name, window, tools)"
        );
        assert_eq!(
            plain("unknown field `zzz`, expected `name` or `window`"),
            "unknown field `zzz` (the fields are: name, window)"
        );
        assert_eq!(plain("missing field `name`"), "the field `name` is missing");
        assert_eq!(plain("something else"), "something else");
    }
}
