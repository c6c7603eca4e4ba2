//! What a sweep keeps of its rows as they pass: each scenario's best, by the verdicts' rule, in
//! memory that does not grow with the grid.

use ctxbench_harness::human::thousands;
use ctxbench_harness::report::{ResultRow, figures, markdown};
use ctxbench_harness::sweep::{self, Objective};
use ctxbench_harness::verdict::Config;

/// Configurations whose rows are held in memory for the charts; past this many the sweep holds
/// none (its rows are on disk, in order, and its JSON is read back from there) and draws no
/// per-configuration chart.
pub(super) const HOLD_UP_TO: usize = 2_000;

/// Rows held at most, whatever the configurations: every seed of [`HOLD_UP_TO`] of them.
const HOLD_ROWS: usize = HOLD_UP_TO * ctxbench_harness::replicate::Seeds::AUTO;

/// What a sweep keeps of its rows as they pass: the best configuration so far of the scenario
/// under way (every seed's row), the configuration under way (its seeds come one after another),
/// the best of each scenario done, and every row while there are few enough to chart. Each
/// configuration, once whole, meets the best so far in a verdict of the two: the verdicts' rule,
/// in memory that does not grow with the grid.
pub(super) struct Kept<'o> {
    objective: &'o Objective,
    leader: Vec<ResultRow>,
    current: Vec<ResultRow>,
    best: Vec<Vec<ResultRow>>,
    held: Option<Vec<ResultRow>>,
    configurations: usize,
}

impl<'o> Kept<'o> {
    pub(super) fn new(objective: &'o Objective) -> Kept<'o> {
        Kept {
            objective,
            leader: Vec::new(),
            current: Vec::new(),
            best: Vec::new(),
            held: Some(Vec::new()),
            configurations: 0,
        }
    }

    pub(super) fn add(&mut self, row: ResultRow) {
        if self.current.is_empty() {
            self.configurations += 1;
        }
        if let Some(first) = self.current.first() {
            let scenario_done = first.scenario != row.scenario;
            if scenario_done || !first.settings.same_but_seed(&row.settings) {
                self.close();
                self.configurations += 1;
            }
            if scenario_done {
                self.settle();
            }
        }
        if let Some(held) = &mut self.held {
            if self.configurations <= HOLD_UP_TO && held.len() < HOLD_ROWS {
                held.push(row.clone());
            } else {
                self.held = None;
            }
        }
        self.current.push(row);
    }

    /// The configuration under way against the best so far.
    fn close(&mut self) {
        let current = std::mem::take(&mut self.current);
        let wins =
            sweep::best(self.objective, &self.leader, &current).is_some_and(|c| std::ptr::eq(c.rows[0], &current[0]));
        if wins {
            self.leader = current;
        }
    }

    /// The scenario under way is done: its best's rows.
    fn settle(&mut self) {
        if !self.leader.is_empty() {
            self.best.push(std::mem::take(&mut self.leader));
        }
    }

    /// The best configuration of each scenario (its rows, by seed), and the rows held.
    pub(super) fn finish(mut self) -> (Vec<Vec<ResultRow>>, Option<Vec<ResultRow>>) {
        if !self.current.is_empty() {
            self.close();
        }
        self.settle();
        (self.best, self.held)
    }
}

/// A winning configuration and its figures over its seeds, on one line.
pub(super) fn best_line(rows: &[ResultRow]) -> String {
    let k = &rows[0].settings;
    let config = Config::new(rows.iter().collect());
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
        charted: held.unwrap_or(&[]),
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
