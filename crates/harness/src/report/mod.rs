//! Reports: result rows turned into bytes. Each exporter only formats; none runs anything.
//! Machine formats (CSV, JSON) carry raw numbers with the unit in the field name; the table and
//! Markdown format numbers for people through [`crate::human`].

mod assumptions;
pub mod colour;
mod csv_error;
mod html;
mod inline;
mod labels;
mod natives;
mod table;
mod use_lines;
mod verdict;
mod verdict_json;
mod verdict_line;

pub use crate::row::{ResultRow, Row};
pub use assumptions::{profiles_in, profiles_json};
pub use csv_error::{CsvError, CsvPlace};
pub use html::{InlineChart, NoChart, Page, html};
pub use inline::{png_element, svg_element};
pub use natives::{Standing, against_natives, standings};
pub use table::{markdown, table};
pub use use_lines::{UseLines, use_lines};
pub use verdict::{
    Labels, Style, scenario_markdown, scenario_text, suite_markdown, suite_text, verdict_markdown, verdict_text,
};
pub use verdict_json::{Echo, verdict_json};
pub use verdict_line::{figures, holds, trade, verdict_line};

use crate::settings::RunSettings;

/// Rows as CSV, with a header.
pub fn csv<R: Row>(rows: &[R]) -> Result<Vec<u8>, csv::Error> {
    let mut writer = CsvRows::new(Vec::new());
    for row in rows {
        writer.write(row)?;
    }
    writer.out.into_inner().map_err(|e| csv::Error::from(e.into_error()))
}

/// A CSV writer of result rows: the header before the first row, raw numbers, empty for none.
pub struct CsvRows<W: std::io::Write> {
    out: csv::Writer<W>,
    /// Whether the file has its header.
    has_header: bool,
    /// The header this writer wrote, which every later row must fit.
    header: Option<Vec<String>>,
}

impl<W: std::io::Write> CsvRows<W> {
    /// A writer into `out`.
    pub fn new(out: W) -> CsvRows<W> {
        CsvRows::continuing(out, false)
    }

    /// A writer that continues a file: its header is there already when `has_header`.
    pub fn continuing(out: W, has_header: bool) -> CsvRows<W> {
        CsvRows {
            out: csv::WriterBuilder::new().has_headers(false).from_writer(out),
            has_header,
            header: None,
        }
    }

    /// Writes one row (and the header first), and flushes it. A row whose columns are not the
    /// header's (a served run's among the loop's, which lack `run` and `format`) is refused.
    pub fn write(&mut self, row: &impl Row) -> Result<(), csv::Error> {
        let map = row.columns();
        if !self.has_header {
            self.out.write_record(map.keys())?;
            self.header = Some(map.keys().cloned().collect());
            self.has_header = true;
        } else if let Some(header) = &self.header
            && !header.iter().eq(map.keys())
        {
            let kind = |served: bool| {
                if served {
                    "serve's runs"
                } else {
                    "compare's or sweep's runs"
                }
            };
            return Err(csv::Error::from(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "{} cannot share a results file with {}: their columns differ (serve's have `run` and `format`)",
                    kind(map.contains_key("run")),
                    kind(header.iter().any(|c| c == "run"))
                ),
            )));
        }
        self.out.write_record(map.values().map(|v| match v {
            serde_json::Value::Null => String::new(),
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        }))?;
        Ok(self.out.flush()?)
    }
}

/// Reads rows back from CSV text (the figures' columns by name; unknown columns ignored). The
/// error names the line and the column, in words.
pub fn read_csv(text: &str) -> Result<Vec<ResultRow>, CsvError> {
    csv_rows(text.as_bytes())?.collect()
}

/// The rows of a results file one at a time, holding one row in memory whatever the file's
/// size.
pub fn csv_rows<R: std::io::Read>(input: R) -> Result<impl Iterator<Item = Result<ResultRow, CsvError>>, CsvError> {
    let mut reader = csv::Reader::from_reader(input);
    let headers = reader.headers().map_err(|e| CsvError::of(e, None, None))?.clone();
    Ok(reader.into_records().map(move |record| {
        let record = record.map_err(|e| CsvError::of(e, None, None))?;
        let words = |e: csv::Error| CsvError::of(e, Some(&headers), Some(&record));
        let Scenario { scenario } = record.deserialize(Some(&headers)).map_err(words)?;
        let settings: RunSettings = record.deserialize(Some(&headers)).map_err(words)?;
        let metrics: crate::metrics::RunMetrics = record.deserialize(Some(&headers)).map_err(words)?;
        Ok(ResultRow {
            scenario,
            settings,
            metrics,
            family: None,
        })
    }))
}

/// The figures a results file's header lacks (it was written by an older ctxbench), in the
/// order of the figures.
pub fn absent_figures(text: &str) -> Vec<String> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let Ok(headers) = reader.headers() else {
        return Vec::new();
    };
    let figures = serde_json::to_value(crate::metrics::RunMetrics::default()).unwrap_or_default();
    figures
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, _)| name)
        .filter(|name| !headers.iter().any(|h| h == name.as_str()))
        .cloned()
        .collect()
}

/// The scenario column of a row.
#[derive(serde::Deserialize)]
struct Scenario {
    scenario: String,
}

/// Past this many rows, results are written as JSON lines (`results.jsonl`), one row per line,
/// instead of one `results.json` document that a reader must hold whole (about 2 kB a row: the
/// default `compare`, some 10,500 rows, stays a document).
pub const JSON_LINES_PAST: usize = 20_000;

/// The JSON results file of `rows` rows, and the other one (a stale copy of which is removed).
pub fn json_names(rows: usize) -> (&'static str, &'static str) {
    if rows > JSON_LINES_PAST {
        ("results.jsonl", "results.json")
    } else {
        ("results.json", "results.jsonl")
    }
}

/// The assumptions every figure rests on, as the head of a JSON results file: the shipped
/// behaviour profiles with their numbers and sources (each row names the ones it ran with).
fn json_head() -> serde_json::Map<String, serde_json::Value> {
    let mut head = serde_json::Map::new();
    head.insert("schema_version".into(), serde_json::json!(2));
    head.insert(
        "profiles".into(),
        serde_json::json!({
            "summarizer": crate::sim::profile::summarizers(),
            "model": crate::sim::profile::models(),
        }),
    );
    head
}

/// Rows as one JSON document, with the assumptions every figure rests on.
pub fn json<R: Row>(rows: &[R]) -> serde_json::Value {
    let rows: Vec<serde_json::Map<String, serde_json::Value>> = rows.iter().map(Row::columns).collect();
    let mut doc = json_head();
    doc.insert("results".into(), serde_json::json!(rows));
    serde_json::Value::Object(doc)
}

/// The same document as [`json`], pretty-printed into `out` as the rows come, holding one at a
/// time: the bytes `serde_json::to_writer_pretty(out, &json(rows))` writes.
pub fn json_document<R: Row, W: std::io::Write>(
    rows: impl IntoIterator<Item = R>,
    out: W,
) -> Result<(), serde_json::Error> {
    use serde::ser::{SerializeMap, SerializeSeq};
    /// The rows, serialized as a sequence once.
    struct Rows<I>(std::cell::RefCell<Option<I>>);
    impl<R: Row, I: Iterator<Item = R>> serde::Serialize for Rows<I> {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut seq = serializer.serialize_seq(None)?;
            for row in self.0.borrow_mut().take().into_iter().flatten() {
                seq.serialize_element(&row.columns())?;
            }
            seq.end()
        }
    }
    struct Document<I>(serde_json::Map<String, serde_json::Value>, Rows<I>);
    impl<R: Row, I: Iterator<Item = R>> serde::Serialize for Document<I> {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut map = serializer.serialize_map(None)?;
            for (k, v) in &self.0 {
                map.serialize_entry(k, v)?;
            }
            map.serialize_entry("results", &self.1)?;
            map.end()
        }
    }
    let document = Document(json_head(), Rows(std::cell::RefCell::new(Some(rows.into_iter()))));
    serde_json::to_writer_pretty(out, &document)
}

/// Rows as JSON lines into `out`: the head ([`json`] without its results) on the first line,
/// then one row per line, as they come.
pub fn json_lines<R: Row, W: std::io::Write>(
    rows: impl IntoIterator<Item = R>,
    mut out: W,
) -> Result<(), serde_json::Error> {
    serde_json::to_writer(&mut out, &json_head())?;
    out.write_all(b"\n").map_err(serde_json::Error::io)?;
    for row in rows {
        serde_json::to_writer(&mut out, &row.columns())?;
        out.write_all(b"\n").map_err(serde_json::Error::io)?;
    }
    out.flush().map_err(serde_json::Error::io)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::RunMetrics;

    #[test]
    fn the_streamed_document_is_the_whole_one() {
        let rows = vec![
            ResultRow::new(
                "a",
                RunSettings::new("drop".parse().expect("valid")),
                RunMetrics::default(),
            ),
            ResultRow::new(
                "b",
                RunSettings::new("mask".parse().expect("valid")),
                RunMetrics::default(),
            ),
        ];
        let mut streamed = Vec::new();
        json_document(&rows, &mut streamed).expect("writes");
        let whole = serde_json::to_string_pretty(&json(&rows)).expect("writes");
        assert_eq!(String::from_utf8(streamed).expect("UTF-8"), whole);
        let mut empty = Vec::new();
        json_document(Vec::<ResultRow>::new(), &mut empty).expect("writes");
        assert_eq!(
            String::from_utf8(empty).expect("UTF-8"),
            serde_json::to_string_pretty(&json::<ResultRow>(&[])).expect("writes")
        );
    }

    #[test]
    fn csv_round_trips() {
        let settings = RunSettings {
            window: Some(8000),
            seed: 7,
            ..RunSettings::new("mask+drop".parse().expect("valid"))
        };
        let metrics = RunMetrics {
            tokens_sent: 12_345,
            facts_lost: 2,
            completed: true,
            ..RunMetrics::default()
        };
        let rows = vec![
            ResultRow::new("s", settings.clone(), metrics.clone()),
            ResultRow::new(
                "s",
                RunSettings {
                    max_turns: Some(4),
                    ..settings
                },
                metrics,
            ),
        ];
        let text = String::from_utf8(csv(&rows).expect("writes")).expect("UTF-8");
        assert!(text.starts_with("scenario,strategy,window,threshold,"), "{text}");
        assert!(
            text.contains("\"mask:m=10,trigger=threshold,style=ctxbench+drop\""),
            "a comma in a name is quoted"
        );
        assert_eq!(read_csv(&text).expect("reads"), rows);
    }

    #[test]
    fn a_results_file_that_does_not_read_says_what_and_where() {
        let row = ResultRow::new(
            "s",
            RunSettings::new("none".parse().expect("valid")),
            RunMetrics::default(),
        );
        let text = String::from_utf8(csv(&[row]).expect("writes")).expect("UTF-8");
        // A figure's value changed: its line, its column and its value.
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let header = reader.headers().expect("a header").clone();
        let at = header.iter().position(|c| c == "tokens_sent").expect("the column");
        let record = reader.records().next().expect("a row").expect("reads");
        let changed: Vec<&str> = record
            .iter()
            .enumerate()
            .map(|(i, v)| if i == at { "many" } else { v })
            .collect();
        let mut writer = csv::Writer::from_writer(Vec::new());
        writer.write_record(&header).expect("writes");
        writer.write_record(&changed).expect("writes");
        let bad = String::from_utf8(writer.into_inner().expect("writes")).expect("UTF-8");
        let e = read_csv(&bad).expect_err("not a number");
        assert!(
            matches!(
                &e,
                CsvError::NotWhole { at: CsvPlace { line: Some(2), column: Some(c) }, value }
                    if c == "tokens_sent" && value == "many"
            ),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "line 2: column `tokens_sent`: `many` is not a whole number"
        );
        // A figure's column gone from the header.
        let e = read_csv(&text.replacen("tokens_sent", "tokens", 1)).expect_err("a column missing");
        assert!(
            matches!(&e, CsvError::MissingColumn { column } if column == "tokens_sent"),
            "{e:?}"
        );
        // A row shorter than the header.
        let short = format!("{}\ns,none\n", text.lines().next().expect("a header"));
        let e = read_csv(&short).expect_err("short");
        assert!(matches!(e, CsvError::FieldCount { fields: 2, .. }), "{e:?}");
    }
}
