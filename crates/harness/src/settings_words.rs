//! The run settings in words, as results echo them: every one (`summary.md`, the page,
//! `verdict.json`), or only those that differ from the defaults (the terminal's short line).

use serde_json::Value;

use crate::billing::cache_mode::CacheMode;
use crate::human::wrap;
use crate::settings::{RunSettings, price_text};

impl RunSettings {
    /// Every setting a run depends on besides its strategy, in the settings line's order: its
    /// name and its value in words (`("threshold", "0.8")`).
    pub fn parts(&self) -> Vec<(&'static str, String)> {
        let per = |what: &str| format!("per {what}");
        vec![
            ("window", self.window.map_or(per("scenario"), |w| w.to_string())),
            ("threshold", self.threshold.to_string()),
            (
                "target",
                self.target.map_or("= threshold".to_owned(), |t| t.to_string()),
            ),
            ("keep", self.keep_recent_turns.to_string()),
            ("reply reserve", self.reply_reserve.to_string()),
            ("estimator", self.estimator.to_string()),
            ("tokenizer", self.tokenizer.to_string()),
            ("overflow", self.overflow.to_string()),
            ("on-overflow", self.on_overflow.to_string()),
            ("compaction retries", self.retries_per_compaction.to_string()),
            ("max turns", self.max_turns.map_or(per("scenario"), |n| n.to_string())),
            ("price", price_text(&self.price)),
            ("cache", self.cache.to_string()),
            ("idle", self.idle_s.map_or(per("request"), |s| format!("{s} s"))),
            ("latency", self.latency.to_string()),
            ("summarizer", self.summarizer.0.brief()),
            ("model", self.model_profile.0.brief()),
            ("seed", self.seed.to_string()),
        ]
    }

    /// The line that echoes every setting with the results (`settings: window per scenario ·
    /// threshold 0.8 · …`); the strategy apart, since a table names it on every row.
    pub fn describe(&self) -> String {
        format!("settings: {}", words(&self.parts()))
    }

    /// The settings that differ from the defaults, in words (`threshold 0.7`): the cache counts
    /// as one only when it is not the one the price implies.
    pub fn changed(&self) -> Vec<String> {
        let defaults = RunSettings {
            cache: self.price.as_ref().map_or(CacheMode::None, |p| p.cache.clone()),
            ..RunSettings::new((*self.strategy).clone())
        };
        self.parts()
            .into_iter()
            .zip(defaults.parts())
            .filter(|(given, default)| given != default)
            .map(|((name, value), _)| format!("{name} {value}"))
            .collect()
    }

    /// Every setting for machines, by the names of `results.csv`'s columns, the strategy (named
    /// on each run) apart.
    pub fn settings_json(&self) -> Value {
        let mut value = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Some(fields) = value.as_object_mut() {
            fields.shift_remove("strategy");
        }
        value
    }
}

/// Parts joined as the settings line joins them.
fn words(parts: &[(&str, String)]) -> String {
    parts
        .iter()
        .map(|(name, value)| format!("{name} {value}"))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The settings line for the terminal, within 120 columns: only what differs from the defaults
/// (`changed`), and where every setting is.
pub fn short_line(changed: &[String]) -> String {
    let text = if changed.is_empty() {
        "settings: the defaults (all of them in summary.md and verdict.json)".to_owned()
    } else {
        format!(
            "settings: {} (the rest the defaults; all of them in summary.md and verdict.json)",
            changed.join(" · ")
        )
    };
    wrap(&text, 120, "", "  ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::billing::price::Price;
    use ctxbench_compact::compact::Strategy;

    #[test]
    fn only_what_differs_from_the_defaults_is_changed_and_a_price_brings_its_cache() {
        let defaults = RunSettings::new(Strategy::none());
        assert_eq!(defaults.changed(), Vec::<String>::new());
        let Some(sonnet) = Price::named("claude-sonnet-4-6").cloned() else {
            panic!("claude-sonnet-4-6 is a model of the price table");
        };
        let priced = RunSettings {
            threshold: 0.7,
            cache: sonnet.cache.clone(),
            price: Some(sonnet.clone().into()),
            ..defaults.clone()
        };
        assert_eq!(priced.changed(), ["threshold 0.7", "price claude-sonnet-4-6"]);
        let uncached = RunSettings {
            cache: CacheMode::None,
            ..priced
        };
        assert_eq!(
            uncached.changed(),
            ["threshold 0.7", "price claude-sonnet-4-6", "cache none"]
        );
        let unpriced = RunSettings {
            price: None,
            cache: CacheMode::None,
            max_turns: Some(9),
            ..defaults
        };
        assert_eq!(unpriced.changed(), ["max turns 9", "price none"]);
    }

    #[test]
    fn the_short_line_says_where_every_setting_is() {
        assert_eq!(
            short_line(&[]),
            "settings: the defaults (all of them in summary.md and verdict.json)\n"
        );
        let long: Vec<String> = (0..20).map(|k| format!("setting{k} value")).collect();
        let line = short_line(&long);
        assert!(line.lines().all(|l| l.chars().count() <= 120), "{line}");
        assert!(line.ends_with("(the rest the defaults; all of them in summary.md and verdict.json)\n"));
    }
}
