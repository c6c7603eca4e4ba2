//! `ctxbench profiles`: the behaviour profiles that ship with ctxbench, with their sources.

use std::process::ExitCode;

use clap::Args;
use ctxbench_harness::sim::profile::{Source, models, summarizers};

use super::output::sayln;

/// List the behaviour profiles: how the simulated summarizer keeps, alters and loses facts
/// (`--summarizer`), and what the scripted model does when a fact it needs is gone
/// (`--model-profile`), each number with its source or marked as an assumption.
///
/// To use your own, copy a profile of crates/harness/profiles.toml into a file and pass
/// `--summarizer FILE.toml` (or FILE.toml#NAME when it holds several). docs/behaviour.md says how
/// to fit one to your own model.
#[derive(Debug, Args)]
pub struct ProfilesArgs {}

pub fn run(_args: ProfilesArgs) -> anyhow::Result<ExitCode> {
    sayln!("summarizer profiles (--summarizer):");
    for (k, p) in summarizers().into_iter().enumerate() {
        let default = if k == 0 { " (default)" } else { "" };
        sayln!("\n  {}{default}: {}", p.name, p.about);
        let keep: Vec<String> = [
            "told", "decision", "path", "artifact", "number", "id", "detail", "command",
        ]
        .iter()
        .map(|kind| {
            let curve = p.keep.get(*kind).map(|c| {
                let points: Vec<[f64; 2]> = c.clone().into();
                points
                    .iter()
                    .map(|[r, q]| format!("{q} at {r}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            });
            format!("    keep {kind:<8} {}", curve.unwrap_or_default())
        })
        .collect();
        sayln!("    a fact kept, by kind, at the summary's size ratio:");
        for line in keep {
            sayln!("  {line}");
        }
        sayln!(
            "    distort {} · fail {} · length: {}× the size asked, an earlier summary repeated {}",
            p.distort,
            p.fail,
            p.length.scale,
            p.length.carry
        );
        sources(&p.sources)?;
    }
    sayln!("\nmodel profiles (--model-profile):");
    for (k, p) in models().into_iter().enumerate() {
        let default = if k == 0 { " (default)" } else { "" };
        sayln!("\n  {}{default}: {}", p.name, p.about);
        sayln!(
            "    when a needed fact is gone: notices {} (then fetches it again where it can); else guesses {} (wrong), or answers without it (lost)",
            p.notice,
            p.guess
        );
        sources(&p.sources)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Each source in two lines: which numbers, and the page or `assumption`.
fn sources(sources: &[Source]) -> anyhow::Result<()> {
    for s in sources {
        let url = if s.url.is_empty() { "assumption" } else { s.url.as_str() };
        sayln!("    {}: {url} (checked {})", s.figures, s.checked);
        sayln!("      {}", s.says);
    }
    Ok(())
}
