//! Strategies: one or more stages joined by `+` (`mask:m=5,trigger=always+drop`), lists of them,
//! and their canonical names.
//!
//! Stages compose with `+`; a stage's parameters follow a colon, separated by `,`. In a list of
//! strategies a `,` followed by `key=value` continues the current stage's parameters; any other
//! `,` starts the next strategy. The canonical name spells every parameter in a fixed order, so
//! `mask` and `mask:trigger=threshold,m=10` are both `mask:m=10,trigger=threshold`.

use std::fmt;
use std::str::FromStr;

use super::presets::Preset;
use super::stage_info::{StrategyError, brief_name};
use super::stages::StageSpec;
use crate::policy::Policy;

/// A strategy: one or more stages run left to right before every model call, or a preset (a
/// compactor people run, [`super::presets`]) which stands for stages of its own.
#[derive(Clone, Debug, PartialEq)]
pub struct Strategy {
    /// The stages, in order (a preset's, when it is one).
    pub stages: Vec<StageSpec>,
    /// The preset it is, if it is one: its name and parameters are the strategy's.
    pub preset: Option<Preset>,
}

impl FromStr for Strategy {
    type Err = StrategyError;

    fn from_str(text: &str) -> Result<Strategy, StrategyError> {
        let pieces: Vec<&str> = text.split('+').collect();
        for piece in &pieces {
            if let Some(preset) = Preset::parse(piece)? {
                if pieces.len() > 1 {
                    return Err(StrategyError(format!(
                        "`{}` is a preset (a compactor as its vendor runs it); it cannot be part of a pipeline",
                        preset.name()
                    )));
                }
                return Ok(Strategy::preset(preset));
            }
        }
        let stages = pieces
            .into_iter()
            .map(StageSpec::parse)
            .collect::<Result<Vec<_>, _>>()?;
        if stages.len() > 1 {
            if let Some(s) = stages.iter().find(|s| s.info().alone) {
                return Err(StrategyError(format!(
                    "`{}` stands alone; it cannot be part of a pipeline",
                    s.name()
                )));
            }
        }
        Ok(Strategy { stages, preset: None })
    }
}

impl Strategy {
    /// The `none` baseline: no compaction.
    pub fn none() -> Strategy {
        Strategy {
            stages: vec![StageSpec::None {}],
            preset: None,
        }
    }

    /// A preset, with the stages it stands for.
    pub fn preset(preset: Preset) -> Strategy {
        Strategy {
            stages: preset.stages(),
            preset: Some(preset),
        }
    }

    /// Whether it is a preset.
    pub fn is_preset(&self) -> bool {
        self.preset.is_some()
    }

    /// Whether `name` is one of its stages, or the preset it is: what `--param NAME.KEY=…` and
    /// [`Strategy::set_param`] set.
    pub fn has_stage(&self, name: &str) -> bool {
        match &self.preset {
            Some(preset) => preset.name() == name,
            None => self.stages.iter().any(|s| s.name() == name),
        }
    }

    /// The estimate its compactor holds a request to: a preset's own level where it has one
    /// (what `cannot_fit` is measured against), the window less the reply reserve for a preset
    /// that compacts on counts, else the policy's limit.
    pub fn limit(&self, policy: &Policy) -> u64 {
        match &self.preset {
            Some(preset) => preset
                .level(policy.window)
                .map_or_else(|| policy.hard_limit(), |level| level.min(policy.hard_limit())),
            None => policy.limit(),
        }
    }

    /// Sets `key=value` on every stage named `stage` (or on the preset of that name, its stages
    /// made anew); `Ok(false)` when it has no such stage.
    pub fn set_param(&mut self, stage: &str, key: &str, value: &str) -> Result<bool, StrategyError> {
        if let Some(preset) = self.preset.as_mut() {
            if preset.name() != stage {
                return Ok(false);
            }
            preset.set(key, value)?;
            preset.check()?;
            self.stages = preset.stages();
            return Ok(true);
        }
        let mut found = false;
        for s in self.stages.iter_mut().filter(|s| s.name() == stage) {
            s.set(key, value)?;
            found = true;
        }
        Ok(found)
    }

    /// A short name for people: each stage with only the parameters that differ from their
    /// defaults (`truncate:trigger=cold+drop`). Not unique across spellings of a default; the
    /// canonical name (`Display`) is the one to key results by.
    pub fn brief(&self) -> String {
        if let Some(preset) = &self.preset {
            return preset.brief();
        }
        let stages: Vec<String> = self
            .stages
            .iter()
            .map(|stage| {
                let default = StageSpec::default_of(stage.name())
                    .map(|d| d.to_string())
                    .unwrap_or_default();
                brief_name(stage.name(), &stage.to_string(), &default)
            })
            .collect();
        stages.join("+")
    }

    /// Whether this is the `none` baseline.
    pub fn is_none(&self) -> bool {
        matches!(self.stages.as_slice(), [StageSpec::None {}])
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(preset) = &self.preset {
            return write!(f, "{preset}");
        }
        for (k, stage) in self.stages.iter().enumerate() {
            if k > 0 {
                f.write_str("+")?;
            }
            write!(f, "{stage}")?;
        }
        Ok(())
    }
}

/// Parses a comma-separated list of strategies (`truncate,mask:m=5,trigger=always+drop`).
pub fn parse_strategy_list(text: &str) -> Result<Vec<Strategy>, StrategyError> {
    let mut names: Vec<String> = Vec::new();
    for piece in text.split(',') {
        let continues = piece
            .split_once('=')
            .is_some_and(|(key, _)| !key.is_empty() && key.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
        match names.last_mut() {
            Some(last) if continues => {
                last.push(',');
                last.push_str(piece);
            }
            _ => names.push(piece.to_owned()),
        }
    }
    names.iter().map(|name| name.parse()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canonical(text: &str) -> String {
        text.parse::<Strategy>()
            .map(|s| s.to_string())
            .unwrap_or_else(|e| format!("error: {e}"))
    }

    #[test]
    fn canonical_names() {
        let cases = [
            ("none", "none"),
            ("truncate+drop", "truncate:preview=150,trigger=threshold+drop"),
            (
                "mask:trigger=always,m=5+drop",
                "mask:m=5,trigger=always,style=ctxbench+drop",
            ),
            ("window", "window:n=4"),
            (
                "clear-tool-uses",
                "clear-tool-uses:trigger=limit,keep=3,clear_at_least=0,exclude=,inputs=false,until=fit,stateless=false",
            ),
            (
                "clear-tool-uses:exclude=get_order/search,trigger=5000",
                "clear-tool-uses:trigger=5000,keep=3,clear_at_least=0,exclude=get_order/search,inputs=false,until=fit,stateless=false",
            ),
            ("reference:flavor=py", "reference:flavor=py"),
            (
                "mask:n=3",
                "error: stage `mask` has no parameter `n`; its parameters: m, trigger, style",
            ),
            (
                "trim",
                "error: unknown strategy stage `trim`; expected one of: none, truncate, drop, summarize, mask, window, clear-tool-uses, clear-thinking, reference",
            ),
            (
                "truncat+drop",
                "error: unknown strategy stage `truncat`; did you mean `truncate`? expected one of: none, truncate, drop, summarize, mask, window, clear-tool-uses, clear-thinking, reference",
            ),
            (
                "truncate+summarize",
                "truncate:preview=150,trigger=threshold+summarize:keep=id/number/decision,ratio=0.1,trigger=limit,place=span,tail=fit,reads=span,carry=0,reread=0,resummarize=true,overlap=0,style=ctxbench",
            ),
            (
                "summarize:ratio=0.25,keep=path",
                "summarize:keep=path,ratio=0.25,trigger=limit,place=span,tail=fit,reads=span,carry=0,reread=0,resummarize=true,overlap=0,style=ctxbench",
            ),
            ("truncate:trigger=cold", "truncate:preview=150,trigger=cold"),
            (
                "summarize:aligned=true",
                "summarize:keep=id/number/decision,ratio=0.1,trigger=limit,place=span,tail=fit,reads=agent,carry=0,reread=0,resummarize=true,overlap=0,style=ctxbench",
            ),
            (
                "clear-tool-uses:trigger=cold",
                "clear-tool-uses:trigger=cold,keep=3,clear_at_least=0,exclude=,inputs=false,until=fit,stateless=false",
            ),
            (
                "reference+drop",
                "error: `reference` stands alone; it cannot be part of a pipeline",
            ),
            (
                "claude-code",
                "claude-code:max_output=32000,native=200000,files=5,file_tokens=5000,pct=100",
            ),
            (
                "anthropic-compact:trigger=100000",
                "anthropic-compact:trigger=100000,native=200000",
            ),
            (
                "claude-code+drop",
                "error: `claude-code` is a preset (a compactor as its vendor runs it); it cannot be part of a pipeline",
            ),
            (
                "truncate:preview=-1",
                "error: truncate.preview must be a whole number, not `-1`",
            ),
        ];
        for (input, expect) in cases {
            assert_eq!(canonical(input), expect, "{input}");
            // A canonical name parses back to itself.
            if !expect.starts_with("error") {
                assert_eq!(canonical(expect), expect);
            }
        }
    }

    #[test]
    fn brief_names_keep_what_differs_from_the_defaults() {
        let brief = |text: &str| {
            text.parse::<Strategy>()
                .map(|s| s.brief())
                .unwrap_or_else(|e| e.to_string())
        };
        assert_eq!(brief("truncate:preview=150,trigger=threshold+drop"), "truncate+drop");
        assert_eq!(brief("truncate:trigger=cold+drop"), "truncate:trigger=cold+drop");
        assert_eq!(brief("mask:m=2,trigger=cold+drop"), "mask:m=2,trigger=cold+drop");
        assert_eq!(brief("summarize:aligned=true"), "summarize:reads=agent");
        assert_eq!(brief("claude-code"), "claude-code");
        assert_eq!(brief("codex:limit=80%"), "codex:limit=80%");
        assert_eq!(brief("clear-tool-uses:exclude=a/b"), "clear-tool-uses:exclude=a/b");
        assert_eq!(brief("none"), "none");
    }

    #[test]
    fn lists_split_on_commas_that_do_not_continue_parameters() {
        let list = parse_strategy_list("truncate,mask:m=5,trigger=always+drop,clear-tool-uses:keep=1,exclude=a/b,drop")
            .expect("valid list");
        let names: Vec<String> = list.iter().map(ToString::to_string).collect();
        assert_eq!(
            names,
            [
                "truncate:preview=150,trigger=threshold",
                "mask:m=5,trigger=always,style=ctxbench+drop",
                "clear-tool-uses:trigger=limit,keep=1,clear_at_least=0,exclude=a/b,inputs=false,until=fit,stateless=false",
                "drop",
            ]
        );
    }
}
