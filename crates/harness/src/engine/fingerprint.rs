//! A shard's fingerprint: what names the sweep it belongs to (the program's version, the grid,
//! the seeds, every scenario's file name and text, hashed), which shard it is, and how its best
//! is chosen, so that a shard run again when done does nothing, `merge` refuses a shard of
//! another sweep and ranks the merged rows as the sweep would have. Written as JSON, read back
//! typed: a field missing or of the wrong kind is refused, never filled with a default.

use serde::{Deserialize, Serialize};

use crate::sweep::{Shard, fingerprint};
use crate::verdict::{Objective, ObjectiveError};

/// The file each shard's folder holds its fingerprint in.
pub const FINGERPRINT: &str = "fingerprint.json";

/// A shard's fingerprint, as `fingerprint.json` holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fingerprint {
    /// The hash of what the sweep runs: the same for every shard of one sweep.
    pub fingerprint: String,
    /// Which shard, `i/n`.
    pub shard: String,
    /// Configurations in the whole grid.
    pub configurations: usize,
    /// The objective's keys, as `--objective` spells them.
    pub objective: String,
    /// Dollars a lost fact costs (`--fact-cost`), if given: `null` when not, never left out.
    #[serde(deserialize_with = "Option::deserialize")]
    pub fact_cost: Option<f64>,
    /// The tie (`--tie`).
    pub tie: f64,
    /// Whether the sweep was priced.
    pub priced: bool,
    /// The version of ctxbench that ran it (the workspace's, which the harness shares).
    pub version: String,
}

/// What a sweep is: everything its fingerprint is made of.
pub struct Identity<'a> {
    /// The grid, described.
    pub grid: &'a str,
    /// The seeds, as given, with the first.
    pub seeds: &'a str,
    /// Every scenario's file name and text.
    pub scenarios: &'a [(String, Vec<u8>)],
    /// Configurations in the whole grid.
    pub configurations: usize,
    /// How its best is chosen.
    pub objective: &'a Objective,
    /// Whether it is priced.
    pub priced: bool,
}

impl Fingerprint {
    /// The fingerprint of shard `shard` of the sweep `identity` names.
    pub fn new(identity: &Identity<'_>, shard: Shard) -> Fingerprint {
        let version = env!("CARGO_PKG_VERSION");
        let mut parts: Vec<&[u8]> = vec![version.as_bytes(), identity.grid.as_bytes(), identity.seeds.as_bytes()];
        for (name, text) in identity.scenarios {
            let file = std::path::Path::new(name)
                .file_name()
                .and_then(|f| f.to_str())
                .unwrap_or(name);
            parts.push(file.as_bytes());
            parts.push(text);
        }
        Fingerprint {
            fingerprint: fingerprint(&parts),
            shard: format!("{}/{}", shard.index, shard.count),
            configurations: identity.configurations,
            objective: identity.objective.keys_text(),
            fact_cost: identity.objective.fact_cost,
            tie: identity.objective.tie,
            priced: identity.priced,
            version: version.to_owned(),
        }
    }

    /// Reads a fingerprint from `text`, the file `file`; a field missing, unknown or of the
    /// wrong kind is refused in words, with its line and column.
    pub fn parse(text: &str, file: &str) -> Result<Fingerprint, FingerprintError> {
        let refused = |line: usize, column: usize, message: String| FingerprintError {
            file: file.to_owned(),
            line,
            column: column.max(1),
            message,
        };
        // serde would take an array of the fields' values in order as well: an object only.
        if text.trim().is_empty() {
            return Err(refused(1, 1, "the file is empty".to_owned()));
        }
        if !text.trim_start().starts_with('{') {
            return Err(refused(1, 1, "a JSON object {…} is expected".to_owned()));
        }
        serde_json::from_str(text).map_err(|e| {
            let message = match e.classify() {
                serde_json::error::Category::Eof => "the file ends before the object does".to_owned(),
                serde_json::error::Category::Syntax => "this is not JSON".to_owned(),
                _ => ctxbench_compact::plain(&strip_place(&e.to_string())),
            };
            refused(e.line(), e.column(), message)
        })
    }

    /// The fingerprint as its file holds it: pretty JSON and a newline.
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        Ok(format!("{}\n", serde_json::to_string_pretty(self)?))
    }

    /// How the sweep chose its best.
    pub fn objective(&self) -> Result<Objective, ObjectiveError> {
        Objective::resolve(Some(&self.objective), self.priced, self.fact_cost, self.tie)
    }
}

/// serde's message without its own " at line L column C" (the error says the place once).
fn strip_place(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message.to_owned(),
    }
}

/// A fingerprint file that does not read.
#[derive(Debug, thiserror::Error)]
#[error("{file}:{line}:{column}: not a fingerprint this ctxbench reads: {message}")]
pub struct FingerprintError {
    /// The file.
    pub file: String,
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1.
    pub column: usize,
    /// What is wrong, in words.
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity(objective: &Objective) -> Identity<'_> {
        Identity {
            grid: "none × window 4000",
            seeds: "auto from 0",
            scenarios: &[],
            configurations: 3,
            objective,
            priced: true,
        }
    }

    #[test]
    fn a_fingerprint_reads_back_as_written() {
        let objective = Objective::resolve(None, true, Some(0.5), 0.01).expect("valid");
        let print = Fingerprint::new(&identity(&objective), Shard { index: 2, count: 4 });
        let back = Fingerprint::parse(&print.to_json().expect("JSON"), "f.json").expect("reads");
        assert_eq!(back, print);
        assert_eq!(back.shard, "2/4");
        assert_eq!(back.objective().expect("valid").fact_cost, Some(0.5));
    }

    #[test]
    fn a_field_missing_or_of_the_wrong_kind_is_refused_not_defaulted() {
        let objective = Objective::resolve(None, true, None, 0.01).expect("valid");
        let print = Fingerprint::new(&identity(&objective), Shard { index: 1, count: 2 });
        let json = print.to_json().expect("JSON");
        let no_tie: String = json
            .lines()
            .filter(|l| !l.contains("\"tie\""))
            .collect::<Vec<_>>()
            .join("\n");
        let e = Fingerprint::parse(&no_tie, "f.json").expect_err("no tie");
        assert!(e.message.contains("tie"), "{e}");
        let priced = json.replace("\"priced\": true", "\"priced\": \"yes\"");
        let e = Fingerprint::parse(&priced, "f.json").expect_err("a string");
        assert!(e.to_string().starts_with("f.json:"), "{e}");
        assert!(!e.to_string().contains("expected a boolean at line"), "{e}");
        let extra = json.replace("\"tie\"", "\"ties\": 1, \"tie\"");
        assert!(Fingerprint::parse(&extra, "f.json").is_err());
        // Left out is not null: a fact cost missing is refused, not read as none.
        let no_cost: String = json
            .lines()
            .filter(|l| !l.contains("fact_cost"))
            .collect::<Vec<_>>()
            .join("\n");
        let e = Fingerprint::parse(&no_cost, "f.json").expect_err("no fact cost");
        assert!(e.message.contains("fact_cost"), "{e}");
        // Not JSON, cut short, or an array: said in words, at a column from 1.
        for (bad, said) in [
            ("", "empty"),
            ("{\"tie\": ", "ends before"),
            ("{tie}", "not JSON"),
            ("[1]", "object"),
        ] {
            let e = Fingerprint::parse(bad, "f.json").expect_err(bad);
            assert!(e.message.contains(said) && e.column >= 1, "{bad}: {e}");
        }
    }
}
