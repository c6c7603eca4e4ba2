//! `ctxbench prices`: the price table that ships with ctxbench.

use std::process::ExitCode;

use super::output::{errln, sayln};
use clap::Args;
use ctxbench_harness::billing::price::Price;
use ctxbench_harness::settings::RunSettings;

/// List the models of the price table: their prices in US dollars per million tokens, the
/// prompt cache their provider runs, and where and when the figures were checked.
///
/// `--price NAME` takes one of them (the cache comes with it; `--cache` overrides it). To price
/// a model of your own, copy an entry of crates/harness/prices.toml into a file and pass
/// `--price FILE.toml`, or give the numbers: `--price input=3,cache_read=0.3,output=15`.
#[derive(Debug, Args)]
pub struct PricesArgs {
    /// Also print each entry's source.
    #[arg(long)]
    sources: bool,
}

pub fn run(args: PricesArgs) -> anyhow::Result<ExitCode> {
    let table = Price::table();
    let header = [
        "model",
        "provider",
        "input",
        "cache read",
        "cache write",
        "output",
        "cache",
        "checked",
    ];
    let rows: Vec<[String; 8]> = table
        .iter()
        .map(|p| {
            let source = p.source.as_ref();
            let mut name = p.name.clone().unwrap_or_default();
            if name == RunSettings::DEFAULT_PRICE {
                name.push_str(" (default)");
            }
            [
                name,
                source.map(|s| s.provider.clone()).unwrap_or_default(),
                p.input.to_string(),
                p.cache_read.to_string(),
                p.cache_write.unwrap_or(p.input).to_string(),
                p.output.to_string(),
                p.cache.to_string(),
                source.map(|s| s.checked.clone()).unwrap_or_default(),
            ]
        })
        .collect();
    let width = |c: usize| {
        rows.iter()
            .map(|r| r[c].chars().count())
            .chain([header[c].len()])
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..header.len()).map(width).collect();
    let line = |cells: &[String]| {
        let mut out = String::new();
        for (c, cell) in cells.iter().enumerate() {
            let pad = " ".repeat(widths[c] - cell.chars().count());
            // Prices are numbers: right-aligned.
            if (2..=5).contains(&c) {
                out.push_str(&format!("{pad}{cell}  "));
            } else {
                out.push_str(&format!("{cell}{pad}  "));
            }
        }
        out.trim_end().to_owned()
    };
    sayln!("{}", line(&header.map(String::from)));
    for (row, price) in rows.iter().zip(table) {
        sayln!("{}", line(row));
        if let (true, Some(source)) = (args.sources, &price.source) {
            sayln!("    {}", source.url);
        }
    }
    errln!("prices in US dollars per million tokens; --price NAME picks one, --price none leaves cost out");
    Ok(ExitCode::SUCCESS)
}
