//! How a preset's facts are known: each behaviour with its source, the date it was checked and
//! how sure it is, and what `ctxbench presets` says of a preset.

use crate::compact::stage_info::ParamInfo;

/// How sure a preset's fact is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// From a primary source: the vendor's documentation, SDK or code.
    Primary,
    /// From a secondary source only: a blog, a user's report, a deobfuscated binary.
    Secondary,
    /// Found in no source: ctxbench's choice, a parameter.
    Assumed,
}

impl Mark {
    /// How `ctxbench presets` writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Mark::Primary => "primary",
            Mark::Secondary => "secondary",
            Mark::Assumed => "assumed",
        }
    }
}

/// One behaviour of a preset and where it comes from.
#[derive(Debug)]
pub struct Source {
    /// What it says.
    pub fact: &'static str,
    /// How sure it is.
    pub mark: Mark,
    /// Where it was read (an address; for a package, its name and version).
    pub at: &'static str,
    /// When it was checked.
    pub checked: &'static str,
}

/// What `ctxbench presets`, `--help` and errors say of one preset.
#[derive(Debug)]
pub struct PresetInfo {
    /// Its name.
    pub name: &'static str,
    /// What it does, in one line.
    pub help: &'static str,
    /// Its parameters, in canonical order.
    pub params: &'static [ParamInfo],
    /// Each behaviour with its source.
    pub sources: &'static [Source],
    /// What ctxbench chose where the sources are silent.
    pub assumptions: &'static [&'static str],
}

/// The date every preset's sources were checked (`../native-compaction.md`'s state).
pub(super) const CHECKED: &str = "2026-12-06";

pub(super) const fn primary(fact: &'static str, at: &'static str) -> Source {
    Source {
        fact,
        mark: Mark::Primary,
        at,
        checked: CHECKED,
    }
}

pub(super) const fn secondary(fact: &'static str, at: &'static str) -> Source {
    Source {
        fact,
        mark: Mark::Secondary,
        at,
        checked: CHECKED,
    }
}
