//! What a sweep keeps of its rows as they pass: each scenario's best, by the verdicts' rule, in
//! memory that does not grow with the grid.

use ctxbench_harness::report::ResultRow;
use ctxbench_harness::sweep::{self, Objective};

/// Rows held in memory for the charts; past this many the sweep holds none (its rows are on
/// disk, in order, and its JSON is read back from there) and draws no per-configuration chart.
pub(super) const HOLD_UP_TO: usize = 2_000;

/// What a sweep keeps of its rows as they pass: the best configuration so far of the scenario
/// under way (every seed's row), the configuration under way (its seeds come one after another),
/// the best of each scenario done, and every row while there are few enough to chart. Each
/// configuration, once whole, meets the best so far in a verdict of the two: the verdicts' rule,
/// in memory that does not grow with the grid.
pub(super) struct Kept<'o> {
    objective: &'o Objective,
    leader: Vec<ResultRow>,
    current: Vec<ResultRow>,
    best: Vec<ResultRow>,
    held: Option<Vec<ResultRow>>,
}

impl<'o> Kept<'o> {
    pub(super) fn new(objective: &'o Objective) -> Kept<'o> {
        Kept {
            objective,
            leader: Vec::new(),
            current: Vec::new(),
            best: Vec::new(),
            held: Some(Vec::new()),
        }
    }

    pub(super) fn add(&mut self, row: ResultRow) {
        if let Some(first) = self.current.first() {
            let scenario_done = first.scenario != row.scenario;
            if scenario_done || !first.settings.same_but_seed(&row.settings) {
                self.close();
            }
            if scenario_done {
                self.settle();
            }
        }
        if let Some(held) = &mut self.held {
            if held.len() < HOLD_UP_TO {
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

    /// The scenario under way is done: its best's first row.
    fn settle(&mut self) {
        if let Some(first) = self.leader.first() {
            self.best.push(first.clone());
        }
        self.leader.clear();
    }

    /// The best row of each scenario, and the rows held.
    pub(super) fn finish(mut self) -> (Vec<ResultRow>, Option<Vec<ResultRow>>) {
        if !self.current.is_empty() {
            self.close();
        }
        self.settle();
        (self.best, self.held)
    }
}
