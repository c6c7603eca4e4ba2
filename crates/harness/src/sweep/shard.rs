//! Shards of a sweep: which slice of the grid a process runs (`--shard i/n`, or read from a
//! scheduler's environment with `--shard auto`), the slices balanced by the scenarios' sizes, and
//! the fingerprint that tells the shards of one sweep from another's.
//!
//! The grid is scenario outermost, then the layout's configurations (`c` of `L`). A shard of `n`
//! takes configuration `c` of scenario `s` when `(o_s + c) mod n = i − 1`: every shard gets
//! `⌊L/n⌋` configurations of every scenario, and the `L mod n` left over of each go, largest
//! scenario first, to the shards with the least work so far (the offset `o_s`). A shard's
//! indices still rise through the grid, so each writes its rows in the order they are kept and
//! the shards merge a row at a time. Every shard computes the same plan from the same scenarios.

use super::GridError;

/// A shard `i/n` (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// Which slice, from 1.
    pub index: usize,
    /// How many slices.
    pub count: usize,
}

/// The scheduler variables `--shard auto` reads, for its error and the docs.
pub const SCHEDULER_VARIABLES: &str = "SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT (a Slurm job array), \
     or JOB_COMPLETION_INDEX with --shards N (a Kubernetes indexed Job)";

impl Shard {
    /// Parses `i/n` with 1 ≤ i ≤ n.
    pub fn parse(text: &str) -> Result<Shard, GridError> {
        let bad = || {
            GridError(format!(
                "--shard {text:?}: expected i/n with 1 ≤ i ≤ n, such as 2/4, or auto"
            ))
        };
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// The shard a scheduler gave this process, from its environment (`var` reads a variable):
    /// a Slurm job array's task (`SLURM_ARRAY_TASK_ID` less `SLURM_ARRAY_TASK_MIN`, of
    /// `SLURM_ARRAY_TASK_COUNT`), or a Kubernetes indexed Job's completion (`JOB_COMPLETION_INDEX`
    /// from 0, of `shards`, which the Job's spec knows and the pod is not told). Returns the shard
    /// and the words of where it came from.
    pub fn from_env(var: impl Fn(&str) -> Option<String>, shards: Option<usize>) -> Result<(Shard, String), GridError> {
        let number = |name: &str| -> Result<Option<usize>, GridError> {
            match var(name) {
                None => Ok(None),
                Some(text) => text
                    .trim()
                    .parse()
                    .map(Some)
                    .map_err(|_| GridError(format!("--shard auto: {name}={text:?} is not a whole number"))),
            }
        };
        if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
            let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            // An array with a step (`--array=0-6:2`) numbers its tasks min, min + step, …, and
            // sets SLURM_ARRAY_TASK_STEP (https://slurm.schedmd.com/job_array.html, checked
            // 2026-12-06).
            let step = number("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1);
            let count = match (number("SLURM_ARRAY_TASK_COUNT")?, number("SLURM_ARRAY_TASK_MAX")?) {
                (Some(count), _) => count,
                (None, Some(max)) if max >= min => (max - min) / step + 1,
                _ => {
                    return Err(GridError(
                        "--shard auto: SLURM_ARRAY_TASK_ID is set but not SLURM_ARRAY_TASK_COUNT; run the sweep as a job array (sbatch --array=1-N)".into(),
                    ));
                }
            };
            let offset = id.checked_sub(min);
            if offset.is_some_and(|k| k % step != 0) {
                return Err(GridError(format!(
                    "--shard auto: SLURM_ARRAY_TASK_ID={id} is not a task of an array from {min} in steps of {step} (SLURM_ARRAY_TASK_STEP)"
                )));
            }
            let shard = Shard::checked(offset.map(|k| k / step + 1), count, || {
                format!("SLURM_ARRAY_TASK_ID={id} with SLURM_ARRAY_TASK_MIN={min}, step {step} and {count} tasks")
            })?;
            if let Some(n) = shards.filter(|&n| n != count) {
                return Err(GridError(format!(
                    "--shards {n} disagrees with the Slurm array's {count} tasks; leave --shards out under Slurm"
                )));
            }
            let words = format!("SLURM_ARRAY_TASK_ID={id} of {count} tasks from {min}",);
            return Ok((shard, words));
        }
        if let Some(k) = number("JOB_COMPLETION_INDEX")? {
            let Some(count) = shards else {
                return Err(GridError(
                    "--shard auto: JOB_COMPLETION_INDEX is set; give the Job's completions with --shards N".into(),
                ));
            };
            let shard = Shard::checked(Some(k + 1), count, || {
                format!("JOB_COMPLETION_INDEX={k} of --shards {count}")
            })?;
            return Ok((shard, format!("JOB_COMPLETION_INDEX={k} of {count}")));
        }
        Err(GridError(format!(
            "--shard auto: no scheduler's variable is set; auto reads {SCHEDULER_VARIABLES}; elsewhere give --shard I/N (a CI matrix: --shard ${{{{ matrix.shard }}}}/N)"
        )))
    }

    fn checked(index: Option<usize>, count: usize, what: impl Fn() -> String) -> Result<Shard, GridError> {
        match index {
            Some(index) if count > 0 && index >= 1 && index <= count => Ok(Shard { index, count }),
            _ => Err(GridError(format!(
                "--shard auto: {} is not a shard (1 to the count)",
                what()
            ))),
        }
    }

    /// The folder a shard writes under the sweep's output: `shard-I-of-N`.
    pub fn folder(&self) -> String {
        format!("shard-{}-of-{}", self.index, self.count)
    }

    /// The shard a folder's name stands for (`shard-2-of-4`).
    pub fn of_folder(name: &str) -> Option<Shard> {
        let (i, n) = name.strip_prefix("shard-")?.split_once("-of-")?;
        Shard::parse(&format!("{i}/{n}")).ok()
    }
}

/// Which configurations of which scenario each shard runs, balanced by the scenarios' work.
#[derive(Clone, Debug)]
pub struct Plan {
    shard: Shard,
    /// Configurations per scenario.
    layout_len: usize,
    /// Each scenario's offset.
    offsets: Vec<usize>,
    /// This shard's configurations before each scenario's (one more entry: its total).
    before: Vec<usize>,
    /// Each shard's estimated work.
    loads: Vec<u128>,
}

impl Plan {
    /// The plan of `shard` over scenarios whose estimated work is `work` (in grid order), each
    /// with `layout_len` configurations.
    pub fn new(shard: Shard, work: &[u64], layout_len: usize) -> Plan {
        let n = shard.count;
        let (whole, left) = (layout_len / n, layout_len % n);
        let total: u128 = work.iter().map(|&w| u128::from(w)).sum();
        let mut loads = vec![total * whole as u128; n];
        let mut offsets = vec![0; work.len()];
        if left > 0 {
            let mut order: Vec<usize> = (0..work.len()).collect();
            order.sort_by(|&a, &b| work[b].cmp(&work[a]).then(a.cmp(&b)));
            for s in order {
                // The left-over configurations start at the least-loaded shard.
                let start = (0..n).min_by_key(|&k| (loads[k], k)).unwrap_or(0);
                for t in 0..left {
                    loads[(start + t) % n] += u128::from(work[s]);
                }
                // Configuration c goes to shard (o + c) mod n: c = 0 to the start.
                offsets[s] = start;
            }
        }
        let mut before = Vec::with_capacity(work.len() + 1);
        let mut sum = 0;
        before.push(0);
        for &o in &offsets {
            sum += taken(o, shard, layout_len);
            before.push(sum);
        }
        Plan {
            shard,
            layout_len,
            offsets,
            before,
            loads,
        }
    }

    /// Configurations this shard runs.
    pub fn len(&self) -> usize {
        self.before.last().copied().unwrap_or(0)
    }

    /// Whether it runs none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The grid index of this shard's `j`-th configuration (`j < len()`), rising with `j`.
    pub fn index(&self, j: usize) -> usize {
        let s = self.before.partition_point(|&b| b <= j) - 1;
        s * self.layout_len + first(self.offsets[s], self.shard) + (j - self.before[s]) * self.shard.count
    }

    /// This shard's share of the estimated work, and the largest shard's over the smallest's.
    pub fn share(&self) -> (f64, f64) {
        let total: u128 = self.loads.iter().sum();
        let mine = self.loads[self.shard.index - 1];
        let (most, least) = (
            self.loads.iter().copied().max().unwrap_or(0),
            self.loads.iter().copied().min().unwrap_or(0),
        );
        let share = if total == 0 { 0.0 } else { mine as f64 / total as f64 };
        let spread = if least == 0 { 1.0 } else { most as f64 / least as f64 };
        (share, spread)
    }
}

/// The first of a scenario's configurations shard `shard` takes at offset `o`: the `c` with
/// `(o + c) mod n = i − 1`.
fn first(o: usize, shard: Shard) -> usize {
    let n = shard.count;
    (shard.index - 1 + n - o % n) % n
}

/// How many of a scenario's `layout_len` configurations shard `shard` takes at offset `o`.
fn taken(o: usize, shard: Shard, layout_len: usize) -> usize {
    let first = first(o, shard);
    if first < layout_len {
        (layout_len - first - 1) / shard.count + 1
    } else {
        0
    }
}

/// A fingerprint of what a sweep runs (64-bit FNV-1a of its description): the shards of one
/// sweep share it, and `merge` refuses shards of different ones.
pub fn fingerprint(parts: &[&[u8]]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &byte in (part.len() as u64).to_le_bytes().iter().chain(part.iter()) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |name| pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn the_schedulers_say_which_shard() {
        let slurm = env(&[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
        ]);
        assert_eq!(
            Shard::from_env(&slurm, None).map(|s| s.0),
            Ok(Shard { index: 3, count: 4 })
        );
        let from_zero = env(&[
            ("SLURM_ARRAY_TASK_ID", "0"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
        ]);
        assert_eq!(
            Shard::from_env(&from_zero, None).map(|s| s.0),
            Ok(Shard { index: 1, count: 4 })
        );
        // An array with a step (`sbatch --array=0-6:2`): tasks 0, 2, 4, 6 are shards 1 to 4
        // (issue 46: task 2 ran shard 3 and tasks 4 and 6 failed).
        for (id, index) in [("0", 1), ("2", 2), ("4", 3), ("6", 4)] {
            let vars = [
                ("SLURM_ARRAY_TASK_ID", id),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
                ("SLURM_ARRAY_TASK_MIN", "0"),
                ("SLURM_ARRAY_TASK_STEP", "2"),
            ];
            let stepped = env(&vars);
            assert_eq!(
                Shard::from_env(&stepped, None).map(|s| s.0),
                Ok(Shard { index, count: 4 })
            );
        }
        let by_max = env(&[
            ("SLURM_ARRAY_TASK_ID", "6"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_MAX", "6"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
        ]);
        assert_eq!(
            Shard::from_env(&by_max, None).map(|s| s.0),
            Ok(Shard { index: 4, count: 4 })
        );
        let off_step = env(&[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
        ]);
        let e = Shard::from_env(&off_step, None).expect_err("not a task of the array");
        assert!(e.0.contains("in steps of 2"), "{}", e.0);
        let k8s = env(&[("JOB_COMPLETION_INDEX", "3")]);
        assert_eq!(
            Shard::from_env(&k8s, Some(4)).map(|s| s.0),
            Ok(Shard { index: 4, count: 4 })
        );
        let e = Shard::from_env(&k8s, None).expect_err("no count");
        assert!(e.0.contains("--shards N"), "{}", e.0);
        let e = Shard::from_env(env(&[]), None).expect_err("nothing set");
        assert!(
            e.0.contains("SLURM_ARRAY_TASK_ID") && e.0.contains("JOB_COMPLETION_INDEX"),
            "{}",
            e.0
        );
        let e = Shard::from_env(env(&[("JOB_COMPLETION_INDEX", "4")]), Some(4)).expect_err("past the count");
        assert!(e.0.contains("is not a shard"), "{}", e.0);
        assert_eq!(Shard::of_folder("shard-2-of-4"), Some(Shard { index: 2, count: 4 }));
        assert_eq!(Shard { index: 2, count: 4 }.folder(), "shard-2-of-4");
        assert_eq!(Shard::of_folder("shard-5-of-4"), None);
    }

    #[test]
    fn plans_partition_the_grid_in_rising_order_and_balance_the_work() {
        for (work, layout_len, n) in [
            (vec![5, 1, 1, 1, 9, 2], 1, 3),
            (vec![5, 1, 1, 1, 9, 2], 7, 4),
            (vec![1; 10], 3, 4),
            (vec![100, 1, 1, 1], 2, 4),
            (vec![3, 3], 5, 1),
        ] {
            let plans: Vec<Plan> = (1..=n)
                .map(|i| Plan::new(Shard { index: i, count: n }, &work, layout_len))
                .collect();
            let mut seen = vec![0; work.len() * layout_len];
            for plan in &plans {
                let indices: Vec<usize> = (0..plan.len()).map(|j| plan.index(j)).collect();
                assert!(indices.windows(2).all(|w| w[0] < w[1]), "rising: {indices:?}");
                for k in indices {
                    seen[k] += 1;
                }
            }
            assert!(seen.iter().all(|&c| c == 1), "every configuration once: {seen:?}");
            // The work each shard was planned, against what it runs.
            let runs: Vec<u64> = plans
                .iter()
                .map(|p| (0..p.len()).map(|j| work[p.index(j) / layout_len]).sum())
                .collect();
            let planned: Vec<u64> = plans.iter().map(|p| p.loads[p.shard.index - 1] as u64).collect();
            assert_eq!(runs, planned);
        }
        // One configuration a scenario: the scenarios are dealt by size (LPT), 9 and 5 apart.
        let plans: Vec<Plan> = (1..=3)
            .map(|i| Plan::new(Shard { index: i, count: 3 }, &[5, 1, 1, 1, 9, 2], 1))
            .collect();
        let loads: Vec<u128> = plans[0].loads.clone();
        assert_eq!(loads.iter().max(), Some(&9));
        assert_eq!(loads.iter().min(), Some(&5));
        assert_eq!(plans[0].share().1, 9.0 / 5.0);
    }

    #[test]
    fn fingerprints_tell_descriptions_apart() {
        assert_eq!(fingerprint(&[b"a", b"bc"]), fingerprint(&[b"a", b"bc"]));
        assert_ne!(fingerprint(&[b"a", b"bc"]), fingerprint(&[b"ab", b"c"]));
        assert_eq!(fingerprint(&[]).len(), 16);
    }
}
