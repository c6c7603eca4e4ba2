//! Each scenario's best as rows pass, for the commands that stream them (`sweep`, `merge`): the
//! verdicts' own rule over every configuration of the scenario, not a running contest of two at
//! a time, which, ties being intransitive, could name another winner than `compare` on the same
//! rows.

use std::cmp::Ordering;
use std::ops::Range;

use super::config::{Config, disqualified};
use super::objective::Objective;
use super::rule::{choose, figures_tie};
use crate::row::{ResultRow, Row};

/// The best configuration of each scenario, from rows in the order every command writes them
/// (a scenario's rows together, sorted by their settings, a configuration's seeds together).
///
/// Of each qualifying configuration of the scenario under way it keeps what the rule reads —
/// its figures on the objective's keys seed by seed, its simplicity and its name, some 64 bytes
/// a run — and takes the rule's pick when the scenario ends; a configuration that does not
/// qualify can never be picked and is let go. The rows of the best so far, two at a time, are
/// held too; when the pick is another (ties do not chain), its rows are read back from the
/// results file by position ([`Best::finish`]).
pub struct Best<'o> {
    objective: &'o Objective,
    /// The configuration under way.
    current: Vec<ResultRow>,
    /// Rows seen before it.
    seen: usize,
    /// The qualifying configurations of the scenario under way.
    entries: Vec<Entry>,
    /// Their figures: per configuration, per key, per seed (NaN: a seed without the figure).
    values: Vec<f64>,
    /// Their seeds, per configuration.
    seeds: Vec<u64>,
    /// Their names, each once.
    names: Vec<String>,
    /// The best so far, two at a time, with its rows.
    leader: Option<(usize, Vec<ResultRow>)>,
    /// Each scenario's pick: its rows, or where they are.
    best: Vec<Winner>,
}

/// One qualifying configuration, as the rule reads it.
struct Entry {
    /// Where its figures start in `values`, and its seeds in `seeds`.
    values: usize,
    seeds: Range<usize>,
    simplicity: (usize, usize),
    name: usize,
    /// The position of its first row among all rows seen.
    first_row: usize,
}

/// A configuration's figures on one key, `(seed, figure)` by seed; `None` when a seed has none.
type Figures = Option<Vec<(u64, f64)>>;

/// The rows at the given positions among all rows seen: how [`Best::finish`] reads back a pick
/// whose rows were let go.
pub type ReadBack<'a, E> = dyn FnMut(&[Range<usize>]) -> Result<Vec<Vec<ResultRow>>, E> + 'a;

/// A scenario's pick: its rows, or their positions among the rows seen.
enum Winner {
    Held(Vec<ResultRow>),
    At(Range<usize>),
}

impl<'o> Best<'o> {
    /// Nothing seen yet; picks by `objective`.
    pub fn new(objective: &'o Objective) -> Best<'o> {
        Best {
            objective,
            current: Vec::new(),
            seen: 0,
            entries: Vec::new(),
            values: Vec::new(),
            seeds: Vec::new(),
            names: Vec::new(),
            leader: None,
            best: Vec::new(),
        }
    }

    /// The next row. Whether it began a new configuration.
    pub fn add(&mut self, row: ResultRow) -> bool {
        let mut begins = self.current.is_empty();
        if let Some(first) = self.current.first() {
            let scenario_done = first.scenario != row.scenario;
            if scenario_done || !first.settings.same_but_seed(&row.settings) {
                self.close();
                begins = true;
            }
            if scenario_done {
                self.settle();
            }
        }
        self.current.push(row);
        begins
    }

    /// The configuration under way is whole: kept as the rule reads it, when it qualifies.
    fn close(&mut self) {
        let mut rows = std::mem::take(&mut self.current);
        let first_row = self.seen;
        self.seen += rows.len();
        if rows.iter().any(|r| disqualified(&r.metrics).is_some()) {
            return;
        }
        rows.sort_by_key(|r| r.settings.seed);
        let config = Config::of(&rows.iter().collect::<Vec<_>>());
        let label = rows[0].label();
        let name = match self.names.iter().rposition(|n| *n == label) {
            Some(at) => at,
            None => {
                self.names.push(label.into_owned());
                self.names.len() - 1
            }
        };
        let entry = Entry {
            values: self.values.len(),
            seeds: self.seeds.len()..self.seeds.len() + rows.len(),
            simplicity: config.simplicity(),
            name,
            first_row,
        };
        for &key in &self.objective.keys {
            self.values
                .extend(config.runs().map(|m| self.objective.value(key, &m).unwrap_or(f64::NAN)));
        }
        self.seeds.extend(rows.iter().map(|r| r.settings.seed));
        self.entries.push(entry);
        let at = self.entries.len() - 1;
        let wins = match &self.leader {
            None => true,
            Some((leader, _)) => self.pick_among(&[*leader, at]) == at,
        };
        if wins {
            self.leader = Some((at, rows));
        }
    }

    /// The `i`th configuration's figures on the `k`th key, `(seed, figure)` by seed; `None`
    /// when a seed has none.
    fn figures(&self, i: usize, k: usize) -> Figures {
        let e = &self.entries[i];
        let n = e.seeds.len();
        let values = &self.values[e.values + k * n..e.values + (k + 1) * n];
        let seeds = &self.seeds[e.seeds.clone()];
        seeds
            .iter()
            .zip(values)
            .map(|(&s, &v)| (!v.is_nan()).then_some((s, v)))
            .collect()
    }

    /// The rule's pick among the configurations `among` (positions in `entries`).
    fn pick_among(&self, among: &[usize]) -> usize {
        let figures: Vec<Vec<Figures>> = among
            .iter()
            .map(|&i| (0..self.objective.keys.len()).map(|k| self.figures(i, k)).collect())
            .collect();
        let mean = |i: usize, k: usize| {
            figures[i][k].as_ref().map_or(f64::INFINITY, |v| {
                v.iter().map(|&(_, x)| x).sum::<f64>() / v.len() as f64
            })
        };
        let ties = |i: usize, j: usize, k: usize| {
            figures_tie(
                figures[i][k].as_deref(),
                figures[j][k].as_deref(),
                self.objective.keys[k],
                self.objective,
            )
        };
        let entry = |i: usize| &self.entries[among[i]];
        // Simpler first, then the canonical name, then the settings: rows come sorted by their
        // settings, so the first row's position stands for them.
        let simpler = |i: usize, j: usize| -> Ordering {
            let (a, b) = (entry(i), entry(j));
            a.simplicity
                .cmp(&b.simplicity)
                .then_with(|| self.names[a.name].cmp(&self.names[b.name]))
                .then(a.first_row.cmp(&b.first_row))
        };
        let as_simple = |i: usize, j: usize| entry(i).simplicity == entry(j).simplicity;
        let (at, _, _) = choose(
            among.len(),
            self.objective.keys.len(),
            &mean,
            &ties,
            &simpler,
            &as_simple,
        );
        among[at]
    }

    /// The scenario under way is done: the rule's pick among all its configurations.
    fn settle(&mut self) {
        if !self.entries.is_empty() {
            let every: Vec<usize> = (0..self.entries.len()).collect();
            let at = self.pick_among(&every);
            let winner = match self.leader.take() {
                Some((leader, rows)) if leader == at => Winner::Held(rows),
                _ => {
                    let e = &self.entries[at];
                    Winner::At(e.first_row..e.first_row + e.seeds.len())
                }
            };
            self.best.push(winner);
        }
        self.entries.clear();
        self.values.clear();
        self.seeds.clear();
        self.leader = None;
    }

    /// The best configuration of each scenario (its rows, by seed), in the order the scenarios
    /// came; a scenario where nothing qualified has none. `read_back` is asked, once, for the
    /// rows at the given positions among all rows seen (sorted), when a pick's rows were not
    /// held: the results file the rows were written to has them.
    pub fn finish<E>(mut self, read_back: &mut ReadBack<'_, E>) -> Result<Vec<Vec<ResultRow>>, E> {
        if !self.current.is_empty() {
            self.close();
        }
        self.settle();
        let mut wanted: Vec<Range<usize>> = self
            .best
            .iter()
            .filter_map(|w| match w {
                Winner::At(range) => Some(range.clone()),
                Winner::Held(_) => None,
            })
            .collect();
        wanted.sort_by_key(|r| r.start);
        let mut found = if wanted.is_empty() {
            Vec::new()
        } else {
            read_back(&wanted)?
        };
        let mut out = Vec::with_capacity(self.best.len());
        for winner in self.best {
            match winner {
                Winner::Held(rows) => out.push(rows),
                Winner::At(range) => {
                    let at = wanted.iter().position(|r| *r == range);
                    let mut rows = at
                        .and_then(|at| found.get_mut(at))
                        .map(std::mem::take)
                        .unwrap_or_default();
                    rows.sort_by_key(|r| r.settings.seed);
                    // Rows the file no longer holds cannot be named: the scenario has none.
                    if !rows.is_empty() {
                        out.push(rows);
                    }
                }
            }
        }
        Ok(out)
    }
}

/// The rows at `ranges` (sorted positions) among `rows`: what [`Best::finish`] reads back when
/// the rows are at hand.
pub fn rows_at<E>(
    rows: impl IntoIterator<Item = Result<ResultRow, E>>,
    ranges: &[Range<usize>],
) -> Result<Vec<Vec<ResultRow>>, E> {
    let mut out: Vec<Vec<ResultRow>> = vec![Vec::new(); ranges.len()];
    let mut next = 0;
    for (i, row) in rows.into_iter().enumerate() {
        while next < ranges.len() && ranges[next].end <= i {
            next += 1;
        }
        if next == ranges.len() {
            break;
        }
        if ranges[next].contains(&i) {
            out[next].push(row?);
        }
    }
    Ok(out)
}
