//! `compare`'s results as they come and in their final order, with none held: each row goes to
//! `results.csv.partial` as it is made (a crash keeps what was measured), and where its bytes
//! lie is noted under its configuration; at the end `results.csv` is those bytes copied in the
//! final order (each configuration's rows as they came, configurations in the first seed's
//! order). Memory is a range per configuration and block of seeds, not a row per run.

use std::cell::Cell;
use std::fs::File;
use std::io::{BufRead as _, BufReader, BufWriter, Read as _, Seek as _, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use anyhow::Context;
use ctxbench_harness::report::{CsvRows, ResultRow};

/// A file's writer that counts the bytes through it.
struct Counted {
    file: File,
    at: Rc<Cell<u64>>,
}

impl Write for Counted {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(bytes)?;
        self.at.set(self.at.get() + n as u64);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// The rows streamed to the partial file, and where each configuration's lie in it.
pub struct Streamed {
    partial: PathBuf,
    out: CsvRows<Counted>,
    at: Rc<Cell<u64>>,
    /// Per configuration (its place among the first seed's), the byte ranges of its rows in
    /// the order they came; adjacent rows share one range. A range from 0 starts at the header.
    ranges: Vec<Vec<Range<u64>>>,
    rows: usize,
}

impl Streamed {
    /// Rows into `partial`, created empty.
    pub fn create(partial: &Path) -> anyhow::Result<Streamed> {
        let file = File::create(partial).with_context(|| format!("cannot write {}", partial.display()))?;
        let at = Rc::new(Cell::new(0));
        Ok(Streamed {
            partial: partial.to_owned(),
            out: CsvRows::new(Counted { file, at: at.clone() }),
            at,
            ranges: Vec::new(),
            rows: 0,
        })
    }

    /// Writes `row` of configuration `config` (flushed: on disk when this returns).
    pub fn write(&mut self, config: usize, row: &ResultRow) -> anyhow::Result<()> {
        let start = self.at.get();
        self.out
            .write(row)
            .with_context(|| format!("cannot write {}", self.partial.display()))?;
        let end = self.at.get();
        if self.ranges.len() <= config {
            self.ranges.resize_with(config + 1, Vec::new);
        }
        let ranges = &mut self.ranges[config];
        match ranges.last_mut() {
            Some(last) if last.end == start => last.end = end,
            _ => ranges.push(start..end),
        }
        self.rows += 1;
        Ok(())
    }

    /// Rows written.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Writes `results` (through a temporary name) from the partial file in the final order,
    /// then removes the partial file. Returns the rows written.
    pub fn finish(self, results: &Path) -> anyhow::Result<usize> {
        let Streamed {
            partial,
            out,
            ranges,
            rows,
            ..
        } = self;
        drop(out);
        let cannot_read = || format!("cannot read {}", partial.display());
        let mut tmp = results.as_os_str().to_owned();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        let copied = (|| -> anyhow::Result<()> {
            let mut from = BufReader::new(File::open(&partial).with_context(cannot_read)?);
            let mut header = Vec::new();
            from.read_until(b'\n', &mut header).with_context(cannot_read)?;
            let file = File::create(&tmp).with_context(|| format!("cannot write {}", tmp.display()))?;
            let mut to = BufWriter::new(file);
            let cannot_write = || format!("cannot write {}", tmp.display());
            to.write_all(&header).with_context(cannot_write)?;
            for range in ranges.iter().flatten() {
                let start = range.start.max(header.len() as u64);
                from.seek(SeekFrom::Start(start)).with_context(cannot_read)?;
                let copied =
                    std::io::copy(&mut (&mut from).take(range.end - start), &mut to).with_context(cannot_write)?;
                if copied != range.end - start {
                    anyhow::bail!("{} was cut short while the run wrote it", partial.display());
                }
            }
            to.into_inner().map_err(|e| e.into_error()).with_context(cannot_write)?;
            std::fs::rename(&tmp, results)
                .with_context(|| format!("cannot move {} to {}", tmp.display(), results.display()))
        })();
        if copied.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        copied?;
        std::fs::remove_file(&partial).with_context(|| format!("cannot remove {}", partial.display()))?;
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxbench_harness::metrics::RunMetrics;
    use ctxbench_harness::settings::RunSettings;

    fn row(strategy: &str, seed: u64) -> ResultRow {
        ResultRow::new(
            "s",
            RunSettings {
                seed,
                ..RunSettings::new(strategy.parse().expect("a strategy"))
            },
            RunMetrics::default(),
        )
    }

    #[test]
    fn rows_come_out_by_configuration_in_the_order_they_came() {
        let dir = std::env::temp_dir().join(format!("ctxbench-results-order-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a folder");
        let (partial, results) = (dir.join("results.csv.partial"), dir.join("results.csv"));
        let mut streamed = Streamed::create(&partial).expect("created");
        // The first seed of each configuration, then blocks of seeds interleaved.
        let came = [
            (0, "none", 0),
            (1, "drop", 0),
            (0, "none", 1),
            (0, "none", 2),
            (1, "drop", 1),
            (1, "drop", 2),
            (0, "none", 3),
            (1, "drop", 3),
        ];
        for (config, strategy, seed) in came {
            streamed.write(config, &row(strategy, seed)).expect("written");
        }
        assert_eq!(streamed.rows(), 8);
        assert_eq!(streamed.finish(&results).expect("finished"), 8);
        let mut expected = Vec::new();
        let mut rows = CsvRows::new(&mut expected);
        for (strategy, seed) in [
            ("none", 0),
            ("none", 1),
            ("none", 2),
            ("none", 3),
            ("drop", 0),
            ("drop", 1),
            ("drop", 2),
            ("drop", 3),
        ] {
            rows.write(&row(strategy, seed)).expect("written");
        }
        drop(rows);
        assert_eq!(std::fs::read(&results).expect("results"), expected);
        assert!(!partial.exists(), "the partial file is gone");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
