//! Result rows: what the exporters write, one row per run. CSV wants flat records, so a row is
//! written as its key's columns followed by the figures' columns, each defined once:
//! [`RunSettings`] in `settings.rs`, [`RunMetrics`] in `metrics.rs`.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::metrics::RunMetrics;
use crate::settings::RunSettings;

/// What the exporters need of a row: its columns, and what the tables show of it.
pub trait Row {
    /// The key's columns, in order.
    fn key(&self) -> Map<String, Value>;
    /// The scenario's name.
    fn scenario(&self) -> &str;
    /// What compacted, as the tables name it.
    fn label(&self) -> Cow<'_, str>;
    /// The figures.
    fn metrics(&self) -> &RunMetrics;

    /// Every column, key first: one flat JSON object.
    fn columns(&self) -> Map<String, Value> {
        let mut map = self.key();
        if let Ok(Value::Object(figures)) = serde_json::to_value(self.metrics()) {
            map.extend(figures);
        }
        map
    }
}

/// A row of `results.csv`: a scenario, the settings it ran with (window filled in), its figures.
#[derive(Clone, Debug, PartialEq)]
pub struct ResultRow {
    /// The scenario's name.
    pub scenario: String,
    /// The settings, with the window the run had.
    pub settings: RunSettings,
    /// The figures.
    pub metrics: RunMetrics,
    /// The strategy as the user named it, when tuning ran it with other parameters; `None`: the
    /// strategy of the settings. Verdicts compare strategies by it over a suite; results files
    /// do not keep it.
    pub family: Option<String>,
}

impl ResultRow {
    /// The row of one run with `settings` ([`RunSettings::resolved`]).
    pub fn new(scenario: &str, settings: RunSettings, metrics: RunMetrics) -> ResultRow {
        ResultRow {
            scenario: scenario.to_owned(),
            settings,
            metrics,
            family: None,
        }
    }
}

/// Whether a run with `settings` drew at random, so that another seed could give other figures:
/// the scripted model draws when it writes a summary, and, under a model profile that is not
/// certain, when a fact it needs is gone. (A scenario whose text is seeded draws too; its rows do
/// not say so.)
pub fn drew(settings: &RunSettings, m: &RunMetrics) -> bool {
    let model_drew = !settings.model_profile.0.certain() && m.needs_unmet + m.refetches + m.facts_wrong > 0;
    m.summarizer_calls > 0 || model_drew
}

impl<T: Row> Row for &T {
    fn key(&self) -> Map<String, Value> {
        (*self).key()
    }

    fn scenario(&self) -> &str {
        (*self).scenario()
    }

    fn label(&self) -> Cow<'_, str> {
        (*self).label()
    }

    fn metrics(&self) -> &RunMetrics {
        (*self).metrics()
    }
}

impl Row for ResultRow {
    fn key(&self) -> Map<String, Value> {
        let mut map = Map::new();
        map.insert("scenario".into(), Value::String(self.scenario.clone()));
        if let Ok(Value::Object(settings)) = serde_json::to_value(&self.settings) {
            map.extend(settings);
        }
        map
    }

    fn scenario(&self) -> &str {
        &self.scenario
    }

    fn label(&self) -> Cow<'_, str> {
        match &self.settings.run {
            Some(run) => Cow::Borrowed(run),
            None => Cow::Owned(self.settings.strategy.to_string()),
        }
    }

    fn metrics(&self) -> &RunMetrics {
        &self.metrics
    }
}

impl Serialize for ResultRow {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.columns().serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_setting_shares_its_column_with_a_figure() {
        let settings = serde_json::to_value(RunSettings::new(ctxbench_compact::compact::Strategy::none()));
        let figures = serde_json::to_value(RunMetrics::default());
        let (Ok(Value::Object(settings)), Ok(Value::Object(figures))) = (settings, figures) else {
            panic!("both are objects");
        };
        let shared: Vec<&String> = settings.keys().filter(|k| figures.contains_key(*k)).collect();
        assert!(shared.is_empty(), "a column would hold two values: {shared:?}");
    }
}
