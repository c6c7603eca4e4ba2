//! What a sweep keeps of its rows as they pass: each scenario's best, by the verdicts' own pick,
//! and the rows to chart while they are few.

use anyhow::Context;
use ctxbench_harness::human::thousands;
use ctxbench_harness::report::{ResultRow, csv_rows, figures, markdown};
use ctxbench_harness::sweep::Objective;
use ctxbench_harness::verdict::{Best, Config, rows_at};

/// Configurations whose rows are held in memory for the charts; past this many the sweep holds
/// none (its rows are on disk, in order, and its JSON is read back from there) and draws no
/// per-configuration chart.
pub(super) const HOLD_UP_TO: usize = 2_000;

/// Rows held at most, whatever the configurations: every seed of [`HOLD_UP_TO`] of them.
const HOLD_ROWS: usize = HOLD_UP_TO * ctxbench_harness::engine::Seeds::AUTO;

/// The rows held for the charts; `None` past [`HOLD_UP_TO`] configurations.
type Held = Option<Vec<ResultRow>>;

/// What a sweep keeps of its rows as they pass: each scenario's best by the verdicts' own pick
/// ([`Best`]), and every row while there are few enough to chart.
pub(super) struct Kept<'o> {
    best: Best<'o>,
    held: Option<Vec<ResultRow>>,
    configurations: usize,
}

impl<'o> Kept<'o> {
    pub(super) fn new(objective: &'o Objective) -> Kept<'o> {
        Kept {
            best: Best::new(objective),
            held: Some(Vec::new()),
            configurations: 0,
        }
    }

    pub(super) fn add(&mut self, row: ResultRow) {
        if let Some(held) = &mut self.held {
            if self.configurations < HOLD_UP_TO && held.len() < HOLD_ROWS {
                held.push(row.clone());
            } else {
                self.held = None;
            }
        }
        if self.best.add(row) {
            self.configurations += 1;
        }
    }

    /// The best configuration of each scenario (its rows, by seed), and the rows held. A pick
    /// whose rows were let go is read back from `results`, where every row went in order.
    pub(super) fn finish(self, results: &std::path::Path) -> anyhow::Result<(Vec<Vec<ResultRow>>, Held)> {
        let best = self.best.finish(&mut |ranges| {
            let file = std::fs::File::open(results).with_context(|| format!("cannot read {}", results.display()))?;
            let rows = csv_rows(std::io::BufReader::new(file))
                .map_err(|e| anyhow::anyhow!("{}: {e}", results.display()))?
                .map(|r| r.map_err(|e| anyhow::anyhow!("{}: {e}", results.display())));
            rows_at(rows, ranges)
        })?;
        Ok((best, self.held))
    }
}

/// A winning configuration and its figures over its seeds, on one line.
pub(super) fn best_line(rows: &[ResultRow]) -> String {
    let k = &rows[0].settings;
    let config = Config::of(&rows.iter().collect::<Vec<_>>());
    let seeds = match rows {
        [one] => format!("seed {}", one.settings.seed),
        many => format!("{} seeds from {}", many.len(), k.seed),
    };
    format!(
        "{}: {} · window {} · threshold {} · target {} · keep {} · reserve {} · {}: {} ({seeds})",
        rows[0].scenario,
        k.strategy,
        thousands(k.window.unwrap_or(0)),
        k.threshold,
        k.target.unwrap_or(k.threshold),
        k.keep_recent_turns,
        k.reply_reserve,
        k.estimator,
        figures(&config),
    )
}

/// Writes a sweep's reports into `out` beside the `results.csv` written there (its `written`
/// rows): the best of each scenario in `summary.md` and `index.html`, the rows `held` (none
/// past [`HOLD_UP_TO`] configurations) as JSON and, with `plots`, as charts.
pub(super) fn write_sweep_reports(
    out: &std::path::Path,
    (best, held): (&[Vec<ResultRow>], Option<&[ResultRow]>),
    written: usize,
    settings: &str,
    plots: bool,
    descriptions: Vec<(String, String)>,
) -> anyhow::Result<usize> {
    let firsts: Vec<ResultRow> = best.iter().map(|rows| rows[0].clone()).collect();
    super::reports::write_reports(super::reports::Reports {
        out,
        rows: held.unwrap_or(&[]),
        written: Some(written),
        traces: &[],
        summary: summary(best, settings),
        title: "ctxbench sweep",
        settings,
        table: &firsts,
        charted: &ctxbench_harness::plot::configs(held.unwrap_or(&[])),
        trace_names: &[],
        plots: plots && held.is_some(),
        verdicts: None,
        descriptions,
        note: "The best configuration of this scenario (its first seed's run); every run is in results.csv.",
    })
}

/// The best configuration of each scenario, in scenario order.
pub(super) fn summary(best: &[Vec<ResultRow>], settings: &str) -> String {
    let lines: String = best.iter().map(|b| format!("- {}\n", best_line(b))).collect();
    let firsts: Vec<ResultRow> = best.iter().map(|rows| rows[0].clone()).collect();
    format!(
        "# ctxbench sweep\n\n{settings}; every run is in `results.csv`.\n\n## Best per scenario\n\n{lines}\nThe first seed's run of each:\n\n{}",
        markdown(&firsts)
    )
}
