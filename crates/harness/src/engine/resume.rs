//! Resuming an interrupted run from its partial results file: the whole configurations it holds
//! (a configuration's rows one after another), each checked against what the run plans, and
//! how much of the file to keep. The caller reads and truncates the file.

use crate::report::read_csv;
use crate::row::ResultRow;
use crate::settings::SettingsError;

/// Why a partial file cannot be resumed; each message names the file and says what to do.
#[derive(Debug, thiserror::Error)]
pub enum ResumeError {
    /// The file's rows do not read as a results file.
    #[error("cannot resume: {file}: {message}")]
    Unreadable {
        /// The file.
        file: String,
        /// What is wrong with it.
        message: String,
    },
    /// More configurations than the run plans.
    #[error(
        "cannot resume: {file} holds more configurations than this sweep plans; resume with the flags of the interrupted sweep, or run without --resume"
    )]
    MoreThanPlanned {
        /// The file.
        file: String,
    },
    /// A configuration before the last one lacks seeds.
    #[error("cannot resume: {file} lacks seeds of configuration {configuration}; run without --resume to start over")]
    Lacks {
        /// The file.
        file: String,
        /// The configuration, from 1.
        configuration: usize,
    },
    /// The rows are of another configuration than the one planned at their place (the file is
    /// named by [`resume`]).
    #[error(
        "cannot resume: {file} does not hold the runs this sweep plans (configuration {configuration} is {scenario} · {strategy}); resume with the flags of the interrupted sweep, or run without --resume"
    )]
    Other {
        /// The file.
        file: String,
        /// The configuration, from 1.
        configuration: usize,
        /// The scenario its rows are of.
        scenario: String,
        /// And their strategy.
        strategy: String,
    },
    /// A planned configuration's settings do not resolve.
    #[error(transparent)]
    Settings(#[from] SettingsError),
}

impl ResumeError {
    /// The same error about `file`.
    fn about(mut self, name: &str) -> ResumeError {
        if let ResumeError::Unreadable { file, .. }
        | ResumeError::MoreThanPlanned { file }
        | ResumeError::Lacks { file, .. }
        | ResumeError::Other { file, .. } = &mut self
        {
            name.clone_into(file);
        }
        self
    }
}

/// Says of a configuration's rows (with its position) whether they are whole, or refuses them.
pub type Check<'c> = dyn FnMut(usize, &[ResultRow]) -> Result<bool, ResumeError> + 'c;

/// What a partial file holds of a run to resume.
#[derive(Debug, PartialEq)]
pub struct Resumed {
    /// The rows of the whole configurations, in the file's order.
    pub kept: Vec<ResultRow>,
    /// Whole configurations kept.
    pub configurations: usize,
    /// Their rows.
    pub rows: usize,
    /// The bytes of the file to keep (its header and those rows; none when no row is kept, so
    /// that a first line that is not the header is not kept as one).
    pub keep: usize,
}

/// The whole configurations of `text`, a partial results file named `file`, each handed to
/// `check` with its position (from 0), which says whether it is whole (only the last may not be:
/// it is dropped) or refuses it ([`ResumeError::Other`]; its file is filled in here). At most
/// `planned` configurations.
pub fn resume(text: &str, file: &str, planned: usize, check: &mut Check<'_>) -> Result<Resumed, ResumeError> {
    // A line cut by the interruption is not a row: keep the whole lines only.
    let lines = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
    let rows = read_csv(lines).map_err(|e| ResumeError::Unreadable {
        file: file.to_owned(),
        message: e.to_string(),
    })?;
    let mut groups: Vec<Vec<ResultRow>> = Vec::new();
    for row in rows {
        match groups.last_mut() {
            Some(g) if g[0].scenario == row.scenario && g[0].settings.same_but_seed(&row.settings) => g.push(row),
            _ => groups.push(vec![row]),
        }
    }
    if groups.len() > planned {
        return Err(ResumeError::MoreThanPlanned { file: file.to_owned() });
    }
    let (mut configurations, mut kept) = (0, Vec::new());
    let last = groups.len().saturating_sub(1);
    for (j, rows) in groups.into_iter().enumerate() {
        if !check(j, &rows).map_err(|e| e.about(file))? {
            if j < last {
                return Err(ResumeError::Lacks {
                    file: file.to_owned(),
                    configuration: j + 1,
                });
            }
            break;
        }
        configurations += 1;
        kept.extend(rows);
    }
    // The whole configurations' lines: the header and one line a row.
    let keep = if kept.is_empty() {
        0
    } else {
        lines.split_inclusive('\n').take(kept.len() + 1).map(str::len).sum()
    };
    Ok(Resumed {
        configurations,
        rows: kept.len(),
        keep,
        kept,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::csv;
    use crate::settings::RunSettings;

    fn rows(strategies: &[(&str, u64)]) -> String {
        let rows: Vec<ResultRow> = strategies
            .iter()
            .map(|&(s, seed)| {
                ResultRow::new(
                    "s",
                    RunSettings {
                        seed,
                        ..RunSettings::new(s.parse().expect("a strategy"))
                    },
                    Default::default(),
                )
            })
            .collect();
        String::from_utf8(csv(&rows).expect("csv")).expect("utf-8")
    }

    #[test]
    fn whole_configurations_are_kept_and_a_cut_one_dropped() {
        let text = rows(&[("none", 0), ("none", 1), ("drop", 0)]);
        // The second configuration ran one seed of two: cut short, dropped with what follows.
        let mut seen = Vec::new();
        let r = resume(&text, "p.csv", 5, &mut |j, rows| {
            seen.push((j, rows.len()));
            Ok(j == 0)
        })
        .expect("resumes");
        assert_eq!(seen, [(0, 2), (1, 1)]);
        assert_eq!((r.configurations, r.rows), (1, 2));
        assert_eq!(text[..r.keep].lines().count(), 3, "the header and two rows");
        // A line cut by the interruption is not read.
        let cut = format!("{}none,", &text[..r.keep]);
        assert_eq!(resume(&cut, "p.csv", 5, &mut |_, _| Ok(true)).expect("resumes").rows, 2);
        // No row kept: nothing of the file is, so its header is written anew (a first line that
        // is not one was once kept as the header).
        for text in ["", "\n", "garbage\n", &text[..text.find('\n').expect("a header") + 1]] {
            let r = resume(text, "p.csv", 5, &mut |_, _| Ok(true)).expect("resumes");
            assert_eq!((r.rows, r.keep), (0, 0), "{text:?}");
        }
    }

    #[test]
    fn refusals_name_the_file_and_the_configuration() {
        let text = rows(&[("none", 0), ("drop", 0), ("mask", 0)]);
        let e = resume(&text, "p.csv", 2, &mut |_, _| Ok(true)).expect_err("too many");
        assert!(matches!(e, ResumeError::MoreThanPlanned { .. }), "{e}");
        let e = resume(&text, "p.csv", 3, &mut |j, _| Ok(j != 1)).expect_err("a gap");
        assert!(matches!(e, ResumeError::Lacks { configuration: 2, .. }), "{e}");
        let other = |_: usize, rows: &[ResultRow]| {
            Err(ResumeError::Other {
                file: String::new(),
                configuration: 1,
                scenario: rows[0].scenario.clone(),
                strategy: rows[0].settings.strategy.to_string(),
            })
        };
        let e = resume(&text, "p.csv", 3, &mut { other }).expect_err("another sweep's");
        assert!(e.to_string().starts_with("cannot resume: p.csv does not hold"), "{e}");
    }
}
