//! Why a results file does not read back as rows: one variant per mistake, each said with its
//! line and column by name, in words rather than in the `csv` crate's.

use std::fmt;

/// Where in a results file something is wrong: its line and column, when known.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CsvPlace {
    /// The line (1-based; 1 is the header).
    pub line: Option<u64>,
    /// The column, by the header's name for it.
    pub column: Option<String>,
}

impl fmt::Display for CsvPlace {
    /// `line 3: column `tokens_sent`: `, as much as is known.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        if let Some(column) = &self.column {
            write!(f, "column `{column}`: ")?;
        }
        Ok(())
    }
}

/// Why a results file (CSV) does not read back as rows.
#[derive(Debug, thiserror::Error)]
pub enum CsvError {
    /// A figure's column is missing from the header (an older ctxbench, or not a results file).
    #[error(
        "line 1 (the header): the column `{column}` is missing; a results file is what compare, sweep or serve wrote"
    )]
    MissingColumn {
        /// The column.
        column: String,
    },
    /// A value that should be a number.
    #[error("{at}`{value}` is not a number")]
    NotANumber {
        /// Where.
        at: CsvPlace,
        /// The value.
        value: String,
    },
    /// A value that should be a whole number.
    #[error("{at}`{value}` is not a whole number")]
    NotWhole {
        /// Where.
        at: CsvPlace,
        /// The value.
        value: String,
    },
    /// A value that should be `true` or `false`.
    #[error("{at}`{value}` is not true or false")]
    NotBool {
        /// Where.
        at: CsvPlace,
        /// The value.
        value: String,
    },
    /// A value its column does not take (a setting that does not parse, say).
    #[error("{at}`{value}`: {message}")]
    Invalid {
        /// Where.
        at: CsvPlace,
        /// The value.
        value: String,
        /// What is wrong with it.
        message: String,
    },
    /// A row of another length than the header.
    #[error("{at}{fields} fields where the header has {header}")]
    FieldCount {
        /// Where (its line).
        at: CsvPlace,
        /// The row's fields.
        fields: usize,
        /// The header's.
        header: usize,
    },
    /// Bytes that are not UTF-8.
    #[error("{at}not UTF-8 text")]
    NotUtf8 {
        /// Where (its line).
        at: CsvPlace,
    },
    /// Reading failed.
    #[error("{at}{}", crate::error::io_words(error))]
    Unread {
        /// Where (its line).
        at: CsvPlace,
        /// The OS error (said in this message, so not its source).
        error: std::io::Error,
    },
    /// Anything else the CSV reader refuses, in its words.
    #[error("{at}{message}")]
    Other {
        /// Where.
        at: CsvPlace,
        /// The reader's words.
        message: String,
    },
}

impl CsvError {
    /// A CSV error in words: the line, the column by name, its value and what was wrong.
    pub(super) fn of(
        e: csv::Error,
        headers: Option<&csv::StringRecord>,
        record: Option<&csv::StringRecord>,
    ) -> CsvError {
        let line = e.position().map(|p| p.line());
        let at = CsvPlace { line, column: None };
        let message = e.to_string();
        match e.into_kind() {
            csv::ErrorKind::Deserialize { err, .. } => {
                let field = err.field().map(|f| f as usize);
                let at = CsvPlace {
                    line,
                    column: field.and_then(|f| headers.and_then(|h| h.get(f))).map(str::to_owned),
                };
                let value = field
                    .and_then(|f| record.and_then(|r| r.get(f)))
                    .unwrap_or("")
                    .to_owned();
                match err.kind() {
                    csv::DeserializeErrorKind::ParseFloat(_) => CsvError::NotANumber { at, value },
                    csv::DeserializeErrorKind::ParseInt(_) => CsvError::NotWhole { at, value },
                    csv::DeserializeErrorKind::ParseBool(_) => CsvError::NotBool { at, value },
                    csv::DeserializeErrorKind::Message(m) => match m.strip_prefix("missing field `") {
                        // A column is missing from the header, whatever row found it out.
                        Some(name) => CsvError::MissingColumn {
                            column: name.trim_end_matches('`').to_owned(),
                        },
                        None => CsvError::Invalid {
                            at,
                            value,
                            message: m.clone(),
                        },
                    },
                    other => CsvError::Other {
                        at,
                        message: other.to_string(),
                    },
                }
            }
            csv::ErrorKind::UnequalLengths { expected_len, len, .. } => CsvError::FieldCount {
                at,
                fields: len as usize,
                header: expected_len as usize,
            },
            csv::ErrorKind::Utf8 { .. } => CsvError::NotUtf8 { at },
            csv::ErrorKind::Io(error) => CsvError::Unread { at, error },
            _ => CsvError::Other { at, message },
        }
    }
}
