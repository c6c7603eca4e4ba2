//! The compactors people run, as presets: each a strategy name (`claude-code`, `codex`,
//! `anthropic-compact:trigger=100000`) that stands for the library's stages set as that
//! compactor behaves, declared once with its parameters, what it does, where each behaviour
//! comes from (the source, the date it was checked, how sure: primary, secondary, assumed) and
//! what ctxbench had to choose where the sources are silent.
//!
//! Token amounts are the vendor's, stated for the window of the model they were made for
//! (`native`): on a run with another window they scale with it, since a scenario's window
//! stands for a real one (Anthropic's 150,000 of 200,000 is 6,000 of an 8,000-token window).
//! `native=0` takes them as they are.
//!
//! One file each: `catalog` declares the presets (with `declare`'s macro), `source` says
//! how each fact is known, `parts` holds the parameter types and the stages they start from.

#[macro_use]
mod declare;
mod catalog;
mod parts;
mod source;

pub use catalog::{ANTHROPIC_MIN_TRIGGER, PRESETS, Preset};
pub use parts::{ClearAt, OpenaiMode};
pub use source::{Mark, PresetInfo, Source};

use super::stage_info::{StrategyError, brief_name};
use parts::err;

impl Preset {
    /// What `ctxbench presets` says of it.
    pub fn info(&self) -> &'static PresetInfo {
        let name = self.name();
        PRESETS.iter().find(|p| p.name == name).unwrap_or(&PRESETS[0])
    }

    /// Parses `name` or `name:key=value,…`; `Ok(None)` when `name` is not a preset's.
    pub(crate) fn parse(text: &str) -> Result<Option<Preset>, StrategyError> {
        let (name, params) = match text.split_once(':') {
            Some((name, params)) => (name.trim(), Some(params)),
            None => (text.trim(), None),
        };
        let Some(mut preset) = Preset::default_of(name) else {
            return Ok(None);
        };
        for param in params.into_iter().flat_map(|p| p.split(',')) {
            let Some((key, value)) = param.split_once('=') else {
                return Err(err(format!("`{param}` in preset `{name}` is not key=value")));
            };
            preset.set(key.trim(), value.trim())?;
        }
        preset.check()?;
        Ok(Some(preset))
    }

    /// A short name for people: only the parameters that differ from the defaults.
    pub fn brief(&self) -> String {
        let default = Preset::default_of(self.name())
            .map(|d| d.to_string())
            .unwrap_or_default();
        brief_name(self.name(), &self.to_string(), &default)
    }
}

/// The preset names, comma-separated.
pub fn preset_names() -> String {
    PRESETS.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compact::presets::parts::claude_code_threshold;

    #[test]
    fn every_preset_reads_its_canonical_name_back() {
        for info in PRESETS {
            let preset = Preset::default_of(info.name).expect("declared");
            assert!(std::ptr::eq(preset.info(), info));
            let canonical = preset.to_string();
            assert_eq!(Preset::parse(&canonical), Ok(Some(preset.clone())), "{canonical}");
            assert_eq!(preset.brief(), info.name);
            assert!(!preset.stages().is_empty(), "{}", info.name);
            assert!(
                !info.sources.is_empty() && !info.assumptions.is_empty(),
                "{}",
                info.name
            );
            for p in info.params {
                for example in p.examples {
                    let mut copy = preset.clone();
                    copy.set(p.key, example)
                        .unwrap_or_else(|e| panic!("{}.{}={example}: {e}", info.name, p.key));
                }
            }
        }
    }

    #[test]
    fn claude_codes_threshold_is_the_window_less_the_reserve_less_13000() {
        assert_eq!(claude_code_threshold(200_000, 32_000), 167_000);
        assert_eq!(claude_code_threshold(200_000, 8_000), 179_000);
        assert_eq!(claude_code_threshold(1_000_000, 32_000), 967_000);
        let preset = Preset::default_of("claude-code").expect("declared");
        assert_eq!(preset.level(200_000), Some(167_000));
        assert_eq!(preset.level(8_000), Some(6_680));
    }

    #[test]
    fn a_vendors_minimum_is_held() {
        let refused = Preset::parse("anthropic-compact:trigger=20000").map_err(|e| e.0);
        assert!(
            refused
                .as_ref()
                .is_err_and(|e| e.starts_with("anthropic-compact.trigger must be at least 50000")),
            "{refused:?}"
        );
        assert!(Preset::parse("anthropic-compact:trigger=50000").is_ok());
        assert_eq!(
            Preset::parse("codex:carry=x").map_err(|e| e.0),
            Err("codex.carry must be a whole number, not `x`".to_owned())
        );
        assert_eq!(
            Preset::parse("codex:window=5").map_err(|e| e.0),
            Err("preset `codex` has no parameter `window`; its parameters: limit, carry, native, remote".to_owned())
        );
        assert_eq!(Preset::parse("drop"), Ok(None));
    }
}
