//! A sweep past one machine: shards read from a scheduler's environment (`--shard auto`), each
//! written to its own folder under the sweep's output, a shard done already not run again, and
//! `merge FOLDER` refusing what is not every shard of one sweep, naming what is missing.

use std::path::Path;

use crate::cmd::{ctxbench, read, scratch};

const GRID: [&str; 10] = [
    "scenarios/bike-shop-return.json",
    "scenarios/lunch-break.json",
    "scenarios/coding-agent.json",
    "--strategies",
    "drop,truncate+drop",
    "--threshold",
    "0.6,0.8",
    "--seeds",
    "1",
    "--no-plots",
];

/// `ctxbench sweep GRID EXTRA --out OUT` with `env`: (exit code, stdout, stderr).
fn sweep(out: &Path, extra: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = ctxbench();
    cmd.arg("sweep").args(GRID).args(extra).arg("--out").arg(out);
    for var in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_COUNT",
        "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_TASK_MAX",
        "JOB_COMPLETION_INDEX",
    ] {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let output = cmd.output().expect("runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn merge(folder: &Path) -> (i32, String, String) {
    let output = ctxbench().arg("merge").arg(folder).output().expect("runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_schedulers_shards_merge_into_the_whole_and_run_once() {
    let dir = scratch("fleet");
    let whole = dir.join("whole");
    assert_eq!(sweep(&whole, &[], &[]).0, 0);
    let fleet = dir.join("fleet");
    // A Slurm array of three tasks numbered from 1, and nothing set: the variables are named.
    let (code, _, said) = sweep(&fleet, &["--shard", "auto"], &[]);
    assert_eq!(code, 2, "{said}");
    assert!(
        said.contains("SLURM_ARRAY_TASK_ID") && said.contains("JOB_COMPLETION_INDEX"),
        "{said}"
    );
    for task in ["1", "2"] {
        let slurm = [
            ("SLURM_ARRAY_TASK_ID", task),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
        ];
        let (code, stdout, said) = sweep(&fleet, &["--shard", "auto"], &slurm);
        assert_eq!(code, 0, "{said}");
        assert!(
            said.contains(&format!(
                "shard {task}/3 (from SLURM_ARRAY_TASK_ID={task} of 3 tasks from 1)"
            )),
            "{said}"
        );
        assert!(said.contains("% of the estimated work"), "{said}");
        assert!(
            stdout.contains(&format!("best per scenario in shard {task}/3 alone")),
            "{stdout}"
        );
        assert!(fleet.join(format!("shard-{task}-of-3/results.csv")).exists());
    }
    // The third, unfinished: merge names it and what to do.
    std::fs::create_dir_all(fleet.join("shard-3-of-3.partial")).expect("a folder");
    let (code, _, said) = merge(&fleet);
    assert_eq!(code, 2, "{said}");
    assert!(said.contains("shard 3/3 (unfinished: run it again"), "{said}");
    // A Kubernetes indexed Job's last completion (from 0) finishes the sweep.
    let (code, _, said) = sweep(
        &fleet,
        &["--shard", "auto", "--shards", "3"],
        &[("JOB_COMPLETION_INDEX", "2")],
    );
    assert_eq!(code, 0, "{said}");
    assert!(
        !fleet.join("shard-3-of-3.partial").exists(),
        "the partial folder became the shard's"
    );
    // Run again, a shard done does nothing.
    let before = read(fleet.join("shard-2-of-3/results.csv"));
    let slurm = [
        ("SLURM_ARRAY_TASK_ID", "2"),
        ("SLURM_ARRAY_TASK_COUNT", "3"),
        ("SLURM_ARRAY_TASK_MIN", "1"),
    ];
    let (code, _, said) = sweep(&fleet, &["--shard", "auto"], &slurm);
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("shard 2/3 of this sweep is done already"), "{said}");
    assert!(!said.contains("swept "), "nothing ran: {said}");
    assert_eq!(read(fleet.join("shard-2-of-3/results.csv")), before);
    // Every shard there: the merge is the whole sweep's file, and its best.
    let (code, stdout, said) = merge(&fleet);
    assert_eq!(code, 0, "{said}");
    assert_eq!(read(fleet.join("results.csv")), read(whole.join("results.csv")));
    assert!(
        stdout.contains("best per scenario (") && stdout.contains("lunch-break: "),
        "{stdout}"
    );
    assert!(said.contains("from 3 shards of one sweep"), "{said}");

    // Another grid into the same folder: its shard is refused there, not mixed in.
    let (code, _, said) = sweep(&fleet, &["--shard", "2/3", "--keep", "1"], &[]);
    assert_eq!(code, 2, "{said}");
    assert!(said.contains("holds shard 2/3 of another sweep"), "{said}");
}

#[test]
fn merge_refuses_what_is_not_one_sweeps_every_shard() {
    let dir = scratch("fleet-refused");
    let fleet = dir.join("fleet");
    assert_eq!(sweep(&fleet, &["--shard", "1/2"], &[]).0, 0);
    let (code, _, said) = merge(&fleet);
    assert_eq!(code, 2, "{said}");
    assert!(said.contains("1 of 2 shards: shard 2/2 (missing: run it"), "{said}");
    // Shard 2 of another grid, put in by hand: two fingerprints.
    let other = dir.join("other");
    assert_eq!(sweep(&other, &["--shard", "2/2", "--keep", "1"], &[]).0, 0);
    std::fs::rename(other.join("shard-2-of-2"), fleet.join("shard-2-of-2")).expect("moved");
    let (code, _, said) = merge(&fleet);
    assert_eq!(code, 2, "{said}");
    assert!(
        said.contains("the shards are of different sweeps: 1/2 (fingerprint"),
        "{said}"
    );
    // No shard at all, and flags that disagree.
    let (code, _, said) = merge(&dir);
    assert_eq!(code, 2, "{said}");
    assert!(said.contains("no shard of a sweep in this folder"), "{said}");
    let (code, _, said) = sweep(&fleet, &["--shard", "1/2", "--shards", "3"], &[]);
    assert_eq!(code, 2, "{said}");
    assert!(said.contains("--shards 3 disagrees with --shard 1/2"), "{said}");
    let slurm = [("SLURM_ARRAY_TASK_ID", "1"), ("SLURM_ARRAY_TASK_COUNT", "2")];
    let (code, _, said) = sweep(&fleet, &["--shard", "auto", "--shards", "3"], &slurm);
    assert_eq!(code, 2, "{said}");
    assert!(
        said.contains("--shards 3 disagrees with the Slurm array's 2 tasks"),
        "{said}"
    );
}

#[test]
fn a_fingerprint_is_read_typed_not_filled_with_defaults() {
    let dir = scratch("fleet-fingerprint");
    let fleet = dir.join("fleet");
    assert_eq!(sweep(&fleet, &["--shard", "1/2"], &[]).0, 0);
    assert_eq!(sweep(&fleet, &["--shard", "2/2"], &[]).0, 0);
    let file = fleet.join("shard-2-of-2/fingerprint.json");
    let written = String::from_utf8(read(&file)).expect("utf-8");
    // A tie that is not a number was once read as the default tie and merged.
    std::fs::write(&file, written.replace("\"tie\": 0.01", "\"tie\": \"close\"")).expect("written");
    let (code, _, said) = merge(&fleet);
    assert_eq!(code, 2, "{said}");
    assert!(said.contains("fingerprint.json:"), "the file and its place: {said}");
    assert!(said.contains("not a fingerprint this ctxbench reads"), "{said}");
    assert!(!said.contains("expected f64"), "words, not serde's: {said}");
    assert!(said.contains("run shard 2/2 again into"), "what to do: {said}");
    // A field missing is refused too; running the shard again says so, and how to run it anew
    // (running it again as it is would only say the same).
    let no_priced: String = written
        .lines()
        .filter(|l| !l.contains("\"priced\""))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&file, no_priced).expect("written");
    let (code, _, said) = merge(&fleet);
    assert_eq!(code, 2, "{said}");
    assert!(said.contains("priced"), "names the field: {said}");
    let (code, _, said) = sweep(&fleet, &["--shard", "2/2"], &[]);
    assert_eq!(code, 2, "{said}");
    assert!(said.contains("not a fingerprint this ctxbench reads"), "{said}");
    assert!(
        said.contains("(or give another --out) to run shard 2/2 there again"),
        "{said}"
    );
    std::fs::remove_dir_all(fleet.join("shard-2-of-2")).expect("removed");
    let (code, _, said) = sweep(&fleet, &["--shard", "2/2"], &[]);
    assert_eq!(code, 0, "as the words said: {said}");
    assert_eq!(merge(&fleet).0, 0);
}

#[test]
fn a_shard_stopped_before_any_configuration_resumes_from_nothing() {
    let dir = scratch("fleet-nothing-yet");
    let fleet = dir.join("fleet");
    assert_eq!(sweep(&fleet, &["--shard", "1/2"], &[]).0, 0);
    // As a shard stopped while loading leaves it: its folder and fingerprint, no rows file.
    let work = fleet.join("shard-1-of-2.partial");
    std::fs::create_dir_all(&work).expect("made");
    std::fs::copy(
        fleet.join("shard-1-of-2/fingerprint.json"),
        work.join("fingerprint.json"),
    )
    .expect("copied");
    let before = read(fleet.join("shard-1-of-2/results.csv"));
    std::fs::remove_dir_all(fleet.join("shard-1-of-2")).expect("removed");
    let (code, _, said) = sweep(&fleet, &["--shard", "1/2", "--resume"], &[]);
    assert_eq!(code, 0, "once: cannot read results.csv.partial; {said}");
    assert!(said.contains("resuming: nothing of"), "{said}");
    assert_eq!(read(fleet.join("shard-1-of-2/results.csv")), before);
}
