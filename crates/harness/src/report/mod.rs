//! Reports: result rows turned into bytes. Each exporter only formats; none runs anything.
//! Machine formats (CSV, JSON) carry raw numbers with the unit in the field name; the table and
//! Markdown format numbers for people through [`crate::human`].

mod html;
mod row;
mod table;
mod verdict;

pub use html::html;
pub use row::{ResultRow, Row};
pub use table::{markdown, table};
pub use verdict::{
    Labels, Style, scenario_markdown, scenario_text, suite_markdown, suite_text, verdict_json, verdict_line,
    verdict_markdown, verdict_text,
};

use ctxbench_compact::fact::FactKind;

use crate::settings::RunSettings;
use crate::sim::retention::{KEPT_WHEN_TOLD, kept_untold};

/// Rows as CSV, with a header.
pub fn csv<R: Row>(rows: &[R]) -> Result<Vec<u8>, csv::Error> {
    let mut writer = CsvRows::new(Vec::new());
    for row in rows {
        writer.write(row)?;
    }
    writer.0.into_inner().map_err(|e| csv::Error::from(e.into_error()))
}

/// A CSV writer of result rows: the header before the first row, raw numbers, empty for none.
pub struct CsvRows<W: std::io::Write>(csv::Writer<W>, bool);

impl<W: std::io::Write> CsvRows<W> {
    /// A writer into `out`.
    pub fn new(out: W) -> CsvRows<W> {
        CsvRows(csv::WriterBuilder::new().has_headers(false).from_writer(out), false)
    }

    /// Writes one row (and the header first), and flushes it.
    pub fn write(&mut self, row: &impl Row) -> Result<(), csv::Error> {
        let map = row.columns();
        if !self.1 {
            self.0.write_record(map.keys())?;
            self.1 = true;
        }
        self.0.write_record(map.values().map(|v| match v {
            serde_json::Value::Null => String::new(),
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        }))?;
        Ok(self.0.flush()?)
    }
}

/// Reads rows back from CSV text (the figures' columns by name; unknown columns ignored).
pub fn read_csv(text: &str) -> Result<Vec<ResultRow>, csv::Error> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader.headers()?.clone();
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record?;
        let Scenario { scenario } = record.deserialize(Some(&headers))?;
        let settings: RunSettings = record.deserialize(Some(&headers))?;
        let metrics: crate::metrics::RunMetrics = record.deserialize(Some(&headers))?;
        rows.push(ResultRow {
            scenario,
            settings,
            metrics,
        });
    }
    Ok(rows)
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

/// Rows as one JSON document, with the assumptions every figure rests on.
pub fn json<R: Row>(rows: &[R]) -> serde_json::Value {
    let rows: Vec<serde_json::Map<String, serde_json::Value>> = rows.iter().map(Row::columns).collect();
    let untold: serde_json::Map<String, serde_json::Value> = FactKind::ALL
        .iter()
        .map(|k| (k.as_str().to_owned(), serde_json::json!(kept_untold(*k))))
        .collect();
    serde_json::json!({
        "schema_version": 1,
        "summary_retention": {"told_to_keep": KEPT_WHEN_TOLD, "not_told": untold},
        "results": rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::RunMetrics;

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
            text.contains("\"mask:m=10,trigger=threshold+drop\""),
            "a comma in a name is quoted"
        );
        assert_eq!(read_csv(&text).expect("reads"), rows);
    }
}
