//! Strategy names: parsing `mask:m=5,trigger=always+drop`, lists of them, and canonical names.
//!
//! Stages compose with `+`; a stage's parameters follow a colon, separated by `,`. In a list of
//! strategies a `,` followed by `key=value` continues the current stage's parameters; any other
//! `,` starts the next strategy. The canonical name spells every parameter in a fixed order, so
//! `mask` and `mask:trigger=threshold,m=10` are both `mask:m=10,trigger=threshold`.

use std::fmt;
use std::str::FromStr;

use crate::fact::FactKind;

/// When a threshold-triggered stage runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// Only while the estimate is over the limit, stopping as soon as it fits.
    Threshold,
    /// Before every call, whatever the estimate.
    Always,
}

/// Which listing of the seed `reference` ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// The TypeScript listing: `chars4`, UTF-16 lengths, `…`.
    Ts,
    /// The Python listing: `chars4-py`, code-point lengths, `...`.
    Py,
}

/// One stage of a pipeline, with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum StageSpec {
    /// Does nothing: the baseline.
    None,
    /// Replaces old tool results by a one-line note with a preview of `preview` UTF-16 units.
    Truncate {
        /// Length of the preview kept in the note.
        preview: usize,
    },
    /// Drops the oldest whole exchanges after the first request message.
    Drop,
    /// Replaces tool results older than the last `m` by `[Output of <tool> omitted: N chars]`.
    Mask {
        /// How many recent tool results are never masked.
        m: usize,
        /// Whether it waits for the threshold.
        trigger: Trigger,
    },
    /// Drops the oldest exchanges, keeping the last `max(n, keep_recent_turns)`.
    Window {
        /// How many recent exchanges always stay.
        n: usize,
    },
    /// Replaces old tool results by `[cleared]`, as Anthropic's context editing does.
    ClearToolUses {
        /// Start when the estimate exceeds this many tokens; `None` is the policy's limit.
        trigger: Option<u64>,
        /// How many recent tool results are never cleared.
        keep: usize,
        /// Do nothing unless at least this many tokens can be freed.
        clear_at_least: u64,
        /// Tools whose results are never cleared.
        exclude: Vec<String>,
    },
    /// One model call summarises the oldest exchanges; a summary message replaces them.
    Summarize {
        /// Kinds of facts the summary is told to keep.
        keep: Vec<FactKind>,
        /// The summary's size as a fraction of the span's.
        ratio: f64,
    },
    /// The seed's `compact()`, ported line by line.
    Reference {
        /// Which listing.
        flavor: Flavor,
    },
}

/// A strategy: one or more stages run left to right before every model call.
#[derive(Clone, Debug, PartialEq)]
pub struct Strategy {
    /// The stages, in order.
    pub stages: Vec<StageSpec>,
}

/// A strategy name that cannot be parsed; the message says what to write instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StrategyError(pub String);

impl fmt::Display for StrategyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StrategyError {}

/// The stage names, as `--help` lists them.
pub const STAGE_NAMES: &str = "none, truncate, drop, mask, window, clear-tool-uses, summarize, reference";

fn err(msg: impl Into<String>) -> StrategyError {
    StrategyError(msg.into())
}

impl StageSpec {
    /// The stage's name without parameters.
    pub fn name(&self) -> &'static str {
        match self {
            StageSpec::None => "none",
            StageSpec::Truncate { .. } => "truncate",
            StageSpec::Drop => "drop",
            StageSpec::Mask { .. } => "mask",
            StageSpec::Window { .. } => "window",
            StageSpec::ClearToolUses { .. } => "clear-tool-uses",
            StageSpec::Summarize { .. } => "summarize",
            StageSpec::Reference { .. } => "reference",
        }
    }

    fn parse(text: &str) -> Result<StageSpec, StrategyError> {
        let (name, params) = match text.split_once(':') {
            Some((name, params)) => (name.trim(), Some(params)),
            None => (text.trim(), None),
        };
        let mut stage = match name {
            "none" => StageSpec::None,
            "truncate" => StageSpec::Truncate { preview: 150 },
            "drop" => StageSpec::Drop,
            "mask" => StageSpec::Mask {
                m: 10,
                trigger: Trigger::Threshold,
            },
            "window" => StageSpec::Window { n: 4 },
            "clear-tool-uses" => StageSpec::ClearToolUses {
                trigger: None,
                keep: 3,
                clear_at_least: 0,
                exclude: vec![],
            },
            "reference" => StageSpec::Reference { flavor: Flavor::Ts },
            "summarize" => StageSpec::Summarize {
                keep: vec![FactKind::Id, FactKind::Number, FactKind::Decision],
                ratio: 0.1,
            },
            "" => {
                return Err(err(format!("empty strategy stage; expected one of: {STAGE_NAMES}")));
            }
            other => {
                return Err(err(format!(
                    "unknown strategy stage `{other}`; expected one of: {STAGE_NAMES}"
                )));
            }
        };
        for param in params.into_iter().flat_map(|p| p.split(',')) {
            let Some((key, value)) = param.split_once('=') else {
                return Err(err(format!("`{param}` in stage `{name}` is not key=value")));
            };
            stage.set(key.trim(), value.trim())?;
        }
        Ok(stage)
    }

    pub(crate) fn set(&mut self, key: &str, value: &str) -> Result<(), StrategyError> {
        let name = self.name();
        let number = |value: &str| -> Result<u64, StrategyError> {
            value
                .parse()
                .map_err(|_| err(format!("{name}.{key} must be a whole number, not `{value}`")))
        };
        let unknown = || {
            let known = match name {
                "truncate" => "preview",
                "mask" => "m, trigger",
                "window" => "n",
                "clear-tool-uses" => "trigger, keep, clear_at_least, exclude",
                "reference" => "flavor",
                "summarize" => "keep, ratio",
                _ => "none",
            };
            err(format!(
                "stage `{name}` has no parameter `{key}`; its parameters: {known}"
            ))
        };
        match self {
            StageSpec::Truncate { preview } if key == "preview" => *preview = number(value)? as usize,
            StageSpec::Mask { m, .. } if key == "m" => *m = number(value)? as usize,
            StageSpec::Mask { trigger, .. } if key == "trigger" => {
                *trigger = match value {
                    "threshold" => Trigger::Threshold,
                    "always" => Trigger::Always,
                    _ => {
                        return Err(err(format!("mask.trigger is `threshold` or `always`, not `{value}`")));
                    }
                }
            }
            StageSpec::Window { n } if key == "n" => *n = number(value)? as usize,
            StageSpec::ClearToolUses { trigger, .. } if key == "trigger" => {
                *trigger = if value == "limit" { None } else { Some(number(value)?) }
            }
            StageSpec::ClearToolUses { keep, .. } if key == "keep" => *keep = number(value)? as usize,
            StageSpec::ClearToolUses { clear_at_least, .. } if key == "clear_at_least" => {
                *clear_at_least = number(value)?
            }
            StageSpec::ClearToolUses { exclude, .. } if key == "exclude" => {
                *exclude = value.split('/').filter(|s| !s.is_empty()).map(str::to_owned).collect()
            }
            StageSpec::Summarize { keep, .. } if key == "keep" => {
                *keep = value
                    .split('/')
                    .filter(|s| !s.is_empty())
                    .map(|k| {
                        FactKind::parse(k).ok_or_else(|| {
                        err(format!(
                            "summarize.keep takes fact kinds (id, number, decision, path, command, detail), not `{k}`"
                        ))
                    })
                    })
                    .collect::<Result<_, _>>()?
            }
            StageSpec::Summarize { ratio, .. } if key == "ratio" => {
                *ratio = value
                    .parse::<f64>()
                    .ok()
                    .filter(|r| *r > 0.0 && *r <= 1.0)
                    .ok_or_else(|| err(format!("summarize.ratio is a fraction in (0, 1], not `{value}`")))?
            }
            StageSpec::Reference { flavor } if key == "flavor" => {
                *flavor = match value {
                    "ts" => Flavor::Ts,
                    "py" => Flavor::Py,
                    _ => {
                        return Err(err(format!("reference.flavor is `ts` or `py`, not `{value}`")));
                    }
                }
            }
            _ => return Err(unknown()),
        }
        Ok(())
    }
}

impl fmt::Display for StageSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StageSpec::None | StageSpec::Drop => f.write_str(self.name()),
            StageSpec::Truncate { preview } => write!(f, "truncate:preview={preview}"),
            StageSpec::Mask { m, trigger } => {
                let trigger = match trigger {
                    Trigger::Threshold => "threshold",
                    Trigger::Always => "always",
                };
                write!(f, "mask:m={m},trigger={trigger}")
            }
            StageSpec::Window { n } => write!(f, "window:n={n}"),
            StageSpec::ClearToolUses {
                trigger,
                keep,
                clear_at_least,
                exclude,
            } => {
                f.write_str("clear-tool-uses:trigger=")?;
                match trigger {
                    Some(n) => write!(f, "{n}")?,
                    None => f.write_str("limit")?,
                }
                write!(
                    f,
                    ",keep={keep},clear_at_least={clear_at_least},exclude={}",
                    exclude.join("/")
                )
            }
            StageSpec::Summarize { keep, ratio } => {
                let keep: Vec<&str> = keep.iter().map(|k| k.as_str()).collect();
                write!(f, "summarize:keep={},ratio={ratio}", keep.join("/"))
            }
            StageSpec::Reference { flavor: Flavor::Ts } => f.write_str("reference:flavor=ts"),
            StageSpec::Reference { flavor: Flavor::Py } => f.write_str("reference:flavor=py"),
        }
    }
}

impl FromStr for Strategy {
    type Err = StrategyError;

    fn from_str(text: &str) -> Result<Strategy, StrategyError> {
        let stages = text.split('+').map(StageSpec::parse).collect::<Result<Vec<_>, _>>()?;
        let alone = |s: &StageSpec| matches!(s, StageSpec::None | StageSpec::Reference { .. });
        if stages.len() > 1 {
            if let Some(s) = stages.iter().find(|s| alone(s)) {
                return Err(err(format!(
                    "`{}` stands alone; it cannot be part of a pipeline",
                    s.name()
                )));
            }
        }
        Ok(Strategy { stages })
    }
}

impl Strategy {
    /// Sets `key=value` on every stage named `stage`; `Ok(false)` when it has no such stage.
    pub fn set_param(&mut self, stage: &str, key: &str, value: &str) -> Result<bool, StrategyError> {
        let mut found = false;
        for s in self.stages.iter_mut().filter(|s| s.name() == stage) {
            s.set(key, value)?;
            found = true;
        }
        Ok(found)
    }

    /// Whether this is the `none` baseline.
    pub fn is_none(&self) -> bool {
        matches!(self.stages.as_slice(), [StageSpec::None])
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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
            ("truncate+drop", "truncate:preview=150+drop"),
            ("mask:trigger=always,m=5+drop", "mask:m=5,trigger=always+drop"),
            ("window", "window:n=4"),
            (
                "clear-tool-uses",
                "clear-tool-uses:trigger=limit,keep=3,clear_at_least=0,exclude=",
            ),
            (
                "clear-tool-uses:exclude=get_order/search,trigger=5000",
                "clear-tool-uses:trigger=5000,keep=3,clear_at_least=0,exclude=get_order/search",
            ),
            ("reference:flavor=py", "reference:flavor=py"),
            (
                "mask:n=3",
                "error: stage `mask` has no parameter `n`; its parameters: m, trigger",
            ),
            (
                "trim",
                "error: unknown strategy stage `trim`; expected one of: none, truncate, drop, mask, window, clear-tool-uses, summarize, reference",
            ),
            (
                "truncate+summarize",
                "truncate:preview=150+summarize:keep=id/number/decision,ratio=0.1",
            ),
            ("summarize:ratio=0.25,keep=path", "summarize:keep=path,ratio=0.25"),
            (
                "reference+drop",
                "error: `reference` stands alone; it cannot be part of a pipeline",
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
    fn lists_split_on_commas_that_do_not_continue_parameters() {
        let list = parse_strategy_list("truncate,mask:m=5,trigger=always+drop,clear-tool-uses:keep=1,exclude=a/b,drop")
            .expect("valid list");
        let names: Vec<String> = list.iter().map(ToString::to_string).collect();
        assert_eq!(
            names,
            [
                "truncate:preview=150",
                "mask:m=5,trigger=always+drop",
                "clear-tool-uses:trigger=limit,keep=1,clear_at_least=0,exclude=a/b",
                "drop",
            ]
        );
    }
}
