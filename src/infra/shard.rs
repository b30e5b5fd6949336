//! Which part of a corpus one run counts: shard K of N, given on the command line or
//! read from a batch engine's own variables.
//!
//! Only the numbers live here, so the command line can parse them without reaching
//! into the corpus; selecting the trees of a shard is the corpus's job.

use crate::infra::error::UsageError;

/// Holds one shard of N: trees whose 1-based position p has `(p - 1) % n == k - 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub k: usize,
    pub n: usize,
}

impl Shard {
    /// Returns shard `k` of `n`, checking 1 <= k <= n.
    pub fn new(k: usize, n: usize) -> std::result::Result<Shard, String> {
        if n == 0 || k == 0 || k > n {
            return Err(format!("shard {k} of {n} does not exist (1 <= K <= N)"));
        }
        Ok(Shard { k, n })
    }

    /// Says whether the item at 0-based `index` of a list belongs to this shard.
    pub fn holds(self, index: usize) -> bool {
        index % self.n == self.k - 1
    }

    /// Returns the shard that holds the item at 0-based `index` of a list.
    pub fn of(index: usize, n: usize) -> Shard {
        Shard {
            k: index % n + 1,
            n,
        }
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

/// Says which shard to count: given as `K/N`, or read from a batch engine's own
/// variables (`env`, or `env/N` where the engine gives only the index).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShardSpec {
    Given(Shard),
    FromEnv { n: Option<usize> },
}

impl std::str::FromStr for ShardSpec {
    type Err = String;

    fn from_str(text: &str) -> std::result::Result<ShardSpec, String> {
        let bad = || format!("'{text}' is not K/N (1 <= K <= N), env, or env/N");
        let number = |s: &str| s.trim().parse::<usize>().map_err(|_| bad());
        match text.split_once('/') {
            None if text == "env" => Ok(ShardSpec::FromEnv { n: None }),
            Some(("env", n)) => match number(n)? {
                0 => Err(bad()),
                n => Ok(ShardSpec::FromEnv { n: Some(n) }),
            },
            Some((k, n)) => Shard::new(number(k)?, number(n)?)
                .map(ShardSpec::Given)
                .map_err(|_| bad()),
            None => Err(bad()),
        }
    }
}

impl ShardSpec {
    /// Returns the shard, reading the engine's variables through `var` for `env`:
    /// a Slurm array (`SLURM_ARRAY_TASK_ID`, `SLURM_ARRAY_TASK_MIN`,
    /// `SLURM_ARRAY_TASK_COUNT`), an AWS Batch array (`AWS_BATCH_JOB_ARRAY_INDEX`,
    /// `AWS_BATCH_JOB_ARRAY_SIZE`) or a Kubernetes Indexed Job
    /// (`JOB_COMPLETION_INDEX`, with N given as `env/N`).
    pub fn resolve(
        self,
        var: impl Fn(&str) -> Option<String>,
    ) -> std::result::Result<Shard, UsageError> {
        let n_given = match self {
            ShardSpec::Given(shard) => return Ok(shard),
            ShardSpec::FromEnv { n } => n,
        };
        let read = |name: &str| -> std::result::Result<Option<usize>, UsageError> {
            match var(name) {
                None => Ok(None),
                Some(v) => v.trim().parse().map(Some).map_err(|_| {
                    UsageError(format!("--shard env: {name}='{v}' is not a whole number"))
                }),
            }
        };
        let fail = |why: String| UsageError(format!("--shard env: {why}"));
        let (k, n, from) = if let Some(id) = read("SLURM_ARRAY_TASK_ID")? {
            let min = read("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            let count = match (n_given, read("SLURM_ARRAY_TASK_COUNT")?) {
                (Some(n), _) | (None, Some(n)) => n,
                (None, None) => {
                    return Err(fail(
                        "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not".into(),
                    ))
                }
            };
            let index = id.checked_sub(min).ok_or_else(|| {
                fail(format!(
                    "SLURM_ARRAY_TASK_ID {id} is below SLURM_ARRAY_TASK_MIN {min}"
                ))
            })?;
            (index + 1, count, "a Slurm array")
        } else if let Some(index) = read("AWS_BATCH_JOB_ARRAY_INDEX")? {
            let size = match (n_given, read("AWS_BATCH_JOB_ARRAY_SIZE")?) {
                (Some(n), _) | (None, Some(n)) => n,
                (None, None) => {
                    return Err(fail(
                        "AWS_BATCH_JOB_ARRAY_INDEX is set but AWS_BATCH_JOB_ARRAY_SIZE is not"
                            .into(),
                    ))
                }
            };
            (index + 1, size, "an AWS Batch array")
        } else if let Some(index) = read("JOB_COMPLETION_INDEX")? {
            let n = n_given.ok_or_else(|| {
                fail("JOB_COMPLETION_INDEX is set; give the number of shards as --shard env/N (the Job's completions)".into())
            })?;
            (index + 1, n, "a Kubernetes Indexed Job")
        } else {
            return Err(fail(
                "none of SLURM_ARRAY_TASK_ID, AWS_BATCH_JOB_ARRAY_INDEX or JOB_COMPLETION_INDEX is set; \
                 give the shard as K/N"
                    .into(),
            ));
        };
        Shard::new(k, n).map_err(|why| fail(format!("{from}: {why}")))
    }
}
