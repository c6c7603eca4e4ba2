//! Reports: result rows turned into bytes. Each exporter only formats; none runs anything.
//! Machine formats (CSV, JSON) carry raw numbers with the unit in the field name; the table and
//! Markdown format numbers for people through [`crate::human`].

mod row;
mod table;

pub use row::ResultRow;
pub use table::{markdown, table};

use crate::fact::{FactKind, KEPT_WHEN_TOLD};

/// Rows as CSV, with a header.
pub fn csv(rows: &[ResultRow]) -> Result<Vec<u8>, csv::Error> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    for row in rows {
        writer.serialize(row)?;
    }
    writer.into_inner().map_err(|e| csv::Error::from(e.into_error()))
}

/// Rows as one JSON document, with the assumptions every figure rests on.
pub fn json(rows: &[ResultRow]) -> serde_json::Value {
    let untold: serde_json::Map<String, serde_json::Value> = FactKind::ALL
        .iter()
        .map(|k| (k.as_str().to_owned(), serde_json::json!(k.kept_untold())))
        .collect();
    serde_json::json!({
        "schema_version": 1,
        "summary_retention": {"told_to_keep": KEPT_WHEN_TOLD, "not_told": untold},
        "results": rows,
    })
}
