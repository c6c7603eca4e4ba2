//! `ctxbench plot`: PNG and SVG charts from results files, traces, or a reports folder.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Args;
use ctxbench_harness::plot::kinds::kind_of;
use ctxbench_harness::plot::{Chart, KINDS, charts_and_missing, configs, png, points, svg, verdict_chart, waste_chart};
use ctxbench_harness::report::{InlineChart, NoChart, ResultRow, png_element, read_csv, svg_element};
use ctxbench_harness::trace::CallRecord;
use ctxbench_harness::verdict::{Config, Objective, Verdict};

use super::files::write_atomic;
use super::output::{errln, sayln};

/// Draw charts (PNG and SVG) from results files, traces, or a reports folder.
#[derive(Debug, Args)]
#[command(
    long_about = long_about(),
    after_help = "Example:\n  ctxbench compare --out reports && ctxbench plot reports --out reports/plots"
)]
pub struct PlotArgs {
    /// results.csv files, trace .jsonl files, or folders holding results.csv and traces/.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,

    /// Where to write the charts.
    #[arg(short, long, default_value = "reports/plots", value_name = "DIR")]
    out: PathBuf,
}

/// The help: the charts `plot` draws, and those `compare`'s page draws besides or not, all from
/// the one list of kinds.
fn long_about() -> String {
    use ctxbench_harness::human::wrap;
    use ctxbench_harness::plot::{KINDS, Kind};
    let entry = |k: &Kind| wrap(&format!("{:<13} {}", k.stem, k.shows), 96, "  ", &" ".repeat(16));
    let mut out = String::from(
        "Draw charts (PNG and SVG) from results files, traces, or a reports folder. Each chart is a file \
         <kind>-<scenario>.png and .svg, drawn for each scenario whose runs allow it:\n\n",
    );
    for kind in KINDS.iter().filter(|k| k.plot) {
        out.push_str(&entry(kind));
    }
    let not_on_page: Vec<&str> = KINDS.iter().filter(|k| k.plot && !k.compare).map(|k| k.stem).collect();
    let page_only: Vec<&Kind> = KINDS.iter().filter(|k| k.compare && !k.plot).collect();
    if !not_on_page.is_empty() || !page_only.is_empty() {
        out.push_str(&format!(
            "\n`compare`'s page (index.html, and plots/ beside it) draws these{}{}\n",
            if not_on_page.is_empty() {
                String::new()
            } else {
                format!(" (but not {})", not_on_page.join(", "))
            },
            if page_only.is_empty() { "." } else { ", and also:" }
        ));
        for kind in page_only {
            out.push_str(&entry(kind));
        }
    }
    out
}

/// Reads what the paths hold: result rows and traces.
pub fn inputs(paths: &[PathBuf]) -> anyhow::Result<(Vec<ResultRow>, Vec<Vec<CallRecord>>)> {
    let mut rows = Vec::new();
    let mut traces = Vec::new();
    for path in paths {
        if path.is_dir() {
            let results = path.join("results.csv");
            if results.exists() {
                rows.extend(read_rows(&results)?);
            }
            let dir = path.join("traces");
            if dir.is_dir() {
                let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
                    .with_context(|| format!("cannot read {}", dir.display()))?
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
                    .collect();
                files.sort();
                for file in files {
                    traces.push(read_trace(&file)?);
                }
            }
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            traces.push(read_trace(path)?);
        } else {
            rows.extend(read_rows(path)?);
        }
    }
    Ok((rows, traces))
}

fn read_rows(path: &Path) -> anyhow::Result<Vec<ResultRow>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    read_csv(&text).map_err(|e| anyhow::anyhow!("{}: not a results file: {e}", path.display()))
}

fn read_trace(path: &Path) -> anyhow::Result<Vec<CallRecord>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, line)| {
            serde_json::from_str(line).with_context(|| format!("{}:{}: not a trace line", path.display(), n + 1))
        })
        .collect()
}

/// Writes every chart as `<name>.png` and `<name>.svg`; returns the SVG texts, in order.
pub fn write_charts(charts: &[Chart], out: &Path) -> anyhow::Result<Vec<String>> {
    // Drawn on every core (a PNG's compression was the longest part of a report written after
    // the runs), each chart's files written by the thread that drew it; the SVGs come back in
    // the charts' order.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<anyhow::Result<String>>>> =
        charts.iter().map(|_| std::sync::Mutex::new(None)).collect();
    let draw = |chart: &Chart| -> anyhow::Result<String> {
        let text = svg(chart)?;
        write_atomic(&out.join(format!("{}.svg", chart.name)), text.as_bytes())?;
        write_atomic(&out.join(format!("{}.png", chart.name)), &png(chart)?)?;
        Ok(text)
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(charts.len());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(chart) = charts.get(k) else { break };
                    let drawn = draw(chart);
                    if let Ok(mut slot) = slots[k].lock() {
                        *slot = Some(drawn);
                    }
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .ok()
                .flatten()
                .unwrap_or_else(|| Err(anyhow::anyhow!("a chart was not drawn")))
        })
        .collect()
}

pub fn run(args: PlotArgs) -> anyhow::Result<ExitCode> {
    // Replicates over seeds are one point at their means, as the table and the page show them.
    let (rows, traces) = inputs(&args.files)?;
    let (charts, missing) = charts_and_missing(&traces, &configs(&rows));
    if charts.is_empty() {
        bail!("nothing to draw: give results.csv files, trace .jsonl files, or a reports folder");
    }
    write_charts(&charts, &args.out)?;
    for chart in &charts {
        sayln!("{}/{}.png  {}", args.out.display(), chart.name, chart.title);
    }
    for m in &missing {
        errln!("{}", m.why);
    }
    errln!(
        "wrote {} (PNG and SVG) to {}",
        ctxbench_harness::human::count(charts.len(), "chart"),
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The charts of a report: the Markdown that embeds them, the charts of the HTML page and those
/// its scenarios' runs do not allow, and the names of the files written under plots/.
#[derive(Default)]
pub struct ReportCharts {
    pub markdown: String,
    pub inline: Vec<InlineChart>,
    pub missing: Vec<NoChart>,
    pub files: Vec<String>,
}

/// Past this many configurations (points of a chart), the page shows each chart as its PNG: an
/// SVG of every configuration of a large sweep would weigh megabytes.
const SVG_UP_TO_POINTS: usize = 2_000;

/// Draws the charts of a run into `out/plots`: with verdicts, each scenario's chart of cost
/// against facts lost first, in place of the frontier of one seed's rows.
pub fn report_charts(
    traces: &[Vec<CallRecord>],
    configs: &[Config<'_>],
    verdicts: Option<(&[Verdict<'_>], &Objective)>,
    out: &Path,
) -> anyhow::Result<ReportCharts> {
    let (mut charts, mut missing) = charts_and_missing(traces, configs);
    if let Some((verdicts, objective)) = verdicts {
        // The page draws the kinds the list says it does: the verdict's chart, not the frontier.
        charts.retain(|c| kind_of(&c.name).is_some_and(|k| k.compare));
        missing.retain(|m| m.kind.compare);
        let mut first: Vec<Chart> = Vec::new();
        for verdict in verdicts {
            for chart in [verdict_chart(verdict, objective), waste_chart(verdict)] {
                match chart {
                    Ok(chart) => first.push(chart),
                    Err(why) => missing.push(why),
                }
            }
        }
        first.append(&mut charts);
        charts = first;
    }
    // In the order of the kinds, as the charts come.
    missing.sort_by_key(|m| KINDS.iter().position(|k| *k == m.kind));
    let svgs = write_charts(&charts, &out.join("plots"))?;
    let configurations = points(configs).len();
    let mut markdown = String::from("\n## Charts\n\n");
    let mut inline = Vec::with_capacity(charts.len());
    for (chart, text) in charts.iter().zip(svgs) {
        markdown.push_str(&format!("![{}](plots/{}.svg)\n\n", chart.title, chart.name));
        let body = if configurations > SVG_UP_TO_POINTS {
            png_element(&png(chart)?, &chart.title)
        } else {
            svg_element(&text)
        };
        inline.push(InlineChart {
            name: chart.name.clone(),
            scenario: chart.scenario.clone(),
            title: chart.title.clone(),
            body,
        });
    }
    for m in &missing {
        markdown.push_str(&format!("{}\n\n", m.why));
    }
    let files = charts
        .iter()
        .flat_map(|c| [format!("{}.svg", c.name), format!("{}.png", c.name)])
        .collect();
    Ok(ReportCharts {
        markdown,
        inline,
        missing: missing
            .into_iter()
            .map(|m| NoChart {
                scenario: m.scenario,
                why: m.why,
            })
            .collect(),
        files,
    })
}
