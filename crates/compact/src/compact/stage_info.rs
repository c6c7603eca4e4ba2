//! What `--help` and the errors say of a stage and its parameters ([`StageInfo`], [`ParamInfo`]),
//! how a canonical name is cut to what differs from the defaults, and how a name and its help
//! are laid out.

use std::fmt;

/// What makes a guarded stage worth trying again: something new entering what it may compact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fresh {
    /// Exchanges enter when a new request moves the protected tail.
    Request,
    /// Results enter `truncate`'s reach when a new request moves the tail, and arrive with
    /// every tool call.
    RequestOrResult,
    /// `mask` and `clear-tool-uses` protect the last results: a new result pushes one out.
    ToolResult,
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

pub(crate) fn err(msg: impl Into<String>) -> StrategyError {
    StrategyError(msg.into())
}

/// What `--help` and the errors say of one stage.
#[derive(Debug)]
pub struct StageInfo {
    /// The name a strategy spells it by.
    pub name: &'static str,
    /// What it does, in one line.
    pub help: &'static str,
    /// Its parameters, in canonical order.
    pub params: &'static [ParamInfo],
    /// It cannot be part of a pipeline (`none`, `reference`).
    pub alone: bool,
    /// What new message lifts its loop guard.
    pub(crate) fresh: Fresh,
}

/// What `--help` and the errors say of one parameter.
#[derive(Debug)]
pub struct ParamInfo {
    /// Its key (`m` in `mask:m=5`).
    pub key: &'static str,
    /// What it sets, in one line.
    pub help: &'static str,
    /// What a value looks like (`a whole number`).
    pub expected: &'static str,
    /// Its default, as a strategy name spells it.
    pub default: fn() -> String,
    /// Values of every shape it takes, edges included (what the property tests draw from).
    pub examples: &'static [&'static str],
}

/// A canonical name (`name:key=value,…`) cut to the parameters that differ from those of the
/// default's canonical name: `truncate:trigger=cold`, or `name` alone.
pub(crate) fn brief_name(name: &str, canonical: &str, default: &str) -> String {
    let params = |text: &str| -> Vec<String> {
        text.split_once(':')
            .map(|(_, p)| p.split(',').map(str::to_owned).collect())
            .unwrap_or_default()
    };
    let defaults = params(default);
    let changed: Vec<String> = params(canonical)
        .into_iter()
        .filter(|p| !defaults.contains(p))
        .collect();
    if changed.is_empty() {
        name.to_owned()
    } else {
        format!("{name}:{}", changed.join(","))
    }
}

/// One parameter's [`ParamInfo`], from its declaration in `stages!` or `presets!`.
macro_rules! param_info {
    ($field:ident : $ty:ty = $default:expr, [$($pdoc:literal),*]) => {
        ParamInfo {
            key: stringify!($field),
            help: concat!($($pdoc),*),
            expected: <$ty as Param>::EXPECTED,
            examples: <$ty as Param>::EXAMPLES,
            default: || {
                let value: $ty = $default;
                let mut text = String::new();
                let _ = value.write(&mut text);
                text
            },
        }
    };
}
pub(crate) use param_info;

/// The error of a parameter `key` that the stage of `info` does not have, listing those it has.
pub(crate) fn unknown_param(info: &StageInfo, key: &str) -> StrategyError {
    let known: Vec<&str> = info.params.iter().map(|p| p.key).collect();
    let known = if known.is_empty() {
        "none".to_owned()
    } else {
        known.join(", ")
    };
    err(format!(
        "stage `{}` has no parameter `{key}`; its parameters: {known}",
        info.name
    ))
}

/// `text` after `head`, wrapped at 96 characters, later lines indented as far as `head`: how
/// `--help` and `ctxbench presets` lay out a name and what it means.
pub fn hanging(head: &str, text: &str) -> String {
    const WIDTH: usize = 96;
    let indent = head.chars().count();
    let mut out = head.to_owned();
    let mut column = indent;
    for (k, word) in text.split_whitespace().enumerate() {
        let len = word.chars().count();
        if k > 0 && column + 1 + len > WIDTH {
            out.push('\n');
            out.push_str(&" ".repeat(indent));
            column = indent;
        } else if k > 0 {
            out.push(' ');
            column += 1;
        }
        out.push_str(word);
        column += len;
    }
    out.push('\n');
    out
}
