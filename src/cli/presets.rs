//! `ctxbench presets`: the compactors people run, each a strategy name, with its parameters and
//! their defaults, what it does, the stages it stands for, its sources and its assumptions.

use std::process::ExitCode;

use anyhow::bail;
use clap::Args;
use ctxbench_compact::compact::{PRESETS, Preset, PresetInfo, Strategy, hanging};

use super::output::{sayln, write_out};

/// List the presets: the compactors of Anthropic, OpenAI, Claude Code, Codex, OpenHands,
/// LangChain, Google ADK and SWE-agent as they run, each a strategy name usable wherever a
/// strategy is (`--strategies claude-code,codex`, `anthropic-compact:trigger=100000`).
///
/// Each with its parameters and defaults, the library's stages it stands for, where each
/// behaviour comes from (the source and the date it was checked: primary, secondary) and what
/// ctxbench assumed where the sources are silent. Token amounts are the vendor's, stated for
/// the window of the model they were made for (`native`); on a run with another window they
/// scale with it (`native=0`: as they are).
#[derive(Debug, Args)]
pub struct PresetsArgs {
    /// Show only this preset.
    #[arg(value_name = "NAME")]
    name: Option<String>,
}

pub fn run(args: PresetsArgs) -> anyhow::Result<ExitCode> {
    let chosen: Vec<&PresetInfo> = match &args.name {
        None => PRESETS.iter().collect(),
        Some(name) => match PRESETS.iter().find(|p| p.name == name) {
            Some(info) => vec![info],
            None => {
                let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
                let near = ctxbench_compact::nearest(name, &names)
                    .map(|n| format!("did you mean `{n}`? "))
                    .unwrap_or_default();
                bail!("no preset `{name}`; {near}the presets: {}", names.join(", "));
            }
        },
    };
    if args.name.is_none() {
        sayln!(
            "The compactors people run, as presets: strategy names for compare, sweep, run, compact and serve,\n\
             and for the Rust and Python libraries. Token amounts are stated for the model's window (native)\n\
             and scale with the run's; `ctxbench presets NAME` shows one.\n"
        );
        for info in &chosen {
            write_out(&hanging(&format!("  {:<26}", info.name), first_sentence(info.help)))?;
        }
    }
    for info in chosen {
        describe(info)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A help text's first sentence (up to its first `: ` or `. `).
fn first_sentence(help: &str) -> &str {
    let end = [help.find(": "), help.find(". ")].into_iter().flatten().min();
    end.map_or(help, |e| &help[..e])
}

/// Everything about one preset.
fn describe(info: &PresetInfo) -> anyhow::Result<()> {
    let preset = Preset::default_of(info.name).ok_or_else(|| anyhow::anyhow!("preset {} is declared", info.name))?;
    sayln!("\n{}", info.name);
    write_out(&hanging("  ", info.help))?;
    sayln!("  parameters (default):");
    for p in info.params {
        write_out(&hanging(
            &format!("    {:<28} ", format!("{}={}", p.key, (p.default)())),
            p.help,
        ))?;
    }
    sayln!("  canonical name: {preset}");
    let stages: Vec<String> = Strategy::preset(preset)
        .stages
        .iter()
        .map(ToString::to_string)
        .collect();
    sayln!("  runs as: {}", stages.join(" + "));
    sayln!("  sources:");
    for s in info.sources {
        write_out(&hanging(
            &format!("    {:<10} ", s.mark.as_str()),
            &format!("{} ({}, checked {})", s.fact, s.at, s.checked),
        ))?;
    }
    sayln!("  assumptions (ctxbench's choices where the sources are silent):");
    for a in info.assumptions {
        write_out(&hanging("    - ", a))?;
    }
    Ok(())
}
