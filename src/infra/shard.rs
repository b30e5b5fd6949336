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
    /// Returns the shard, reading the engine's variables through `var` for `env`
    /// (docs/surveys.md, "Past one machine: batch engines"): a Slurm array
    /// (`SLURM_ARRAY_TASK_ID`, `_MIN`, `_COUNT`), a Grid Engine array (`SGE_TASK_ID`,
    /// `SGE_TASK_FIRST`, `SGE_TASK_LAST`, `SGE_TASK_STEPSIZE`), an LSF array
    /// (`LSB_JOBINDEX`, `LSB_JOBINDEX_END`), a PBS Pro or Torque array
    /// (`PBS_ARRAY_INDEX` or `PBS_ARRAYID`, with N given as `env/N`), an AWS Batch
    /// array (`AWS_BATCH_JOB_ARRAY_INDEX`, `AWS_BATCH_JOB_ARRAY_SIZE`) or a
    /// Kubernetes Indexed Job (`JOB_COMPLETION_INDEX`, with N given as `env/N`). The
    /// first engine whose index variable is set is the one read.
    pub fn resolve(
        self,
        var: impl Fn(&str) -> Option<String>,
    ) -> std::result::Result<Shard, UsageError> {
        let n_given = match self {
            ShardSpec::Given(shard) => return Ok(shard),
            ShardSpec::FromEnv { n } => n,
        };
        let env = Env { var: &var, n_given };
        let engines: [Engine; 6] = [slurm, grid_engine, lsf, pbs, aws_batch, kubernetes];
        for engine in engines {
            if let Some((k, n, from)) = engine(&env)? {
                return Shard::new(k, n).map_err(|why| fail(format!("{from}: {why}")));
            }
        }
        Err(fail(
            "none of SLURM_ARRAY_TASK_ID, SGE_TASK_ID, LSB_JOBINDEX, PBS_ARRAY_INDEX, \
             PBS_ARRAYID, AWS_BATCH_JOB_ARRAY_INDEX or JOB_COMPLETION_INDEX is set; \
             give the shard as K/N"
                .into(),
        ))
    }
}

/// Reads one engine's variables: `Ok(None)` when its index variable is not set, else
/// K, N and the engine's name for messages.
type Engine = fn(&Env) -> std::result::Result<Option<(usize, usize, &'static str)>, UsageError>;

/// The variables of the process, and the N given as `env/N`.
struct Env<'a> {
    var: &'a dyn Fn(&str) -> Option<String>,
    n_given: Option<usize>,
}

impl Env<'_> {
    /// Returns the whole number in variable `name`, `None` when it is unset or holds
    /// one of `unset` (the spellings an engine uses for "not an array").
    fn number(&self, name: &str, unset: &[&str]) -> std::result::Result<Option<usize>, UsageError> {
        match (self.var)(name) {
            None => Ok(None),
            Some(v) if unset.contains(&v.trim()) => Ok(None),
            Some(v) => v
                .trim()
                .parse()
                .map(Some)
                .map_err(|_| fail(format!("{name}='{v}' is not a whole number"))),
        }
    }

    /// Returns N: as given with `env/N`, else from variable `name`, else an error
    /// saying that `index` is set without it.
    fn count(&self, index: &str, name: Option<&str>) -> std::result::Result<usize, UsageError> {
        if let Some(n) = self.n_given {
            return Ok(n);
        }
        if let Some(name) = name {
            if let Some(n) = self.number(name, &[])? {
                return Ok(n);
            }
            return Err(fail(format!("{index} is set but {name} is not")));
        }
        Err(fail(format!(
            "{index} is set; give the number of shards as --shard env/N"
        )))
    }
}

fn fail(why: String) -> UsageError {
    UsageError(format!("--shard env: {why}"))
}

fn slurm(env: &Env) -> std::result::Result<Option<(usize, usize, &'static str)>, UsageError> {
    let Some(id) = env.number("SLURM_ARRAY_TASK_ID", &[])? else {
        return Ok(None);
    };
    let min = env.number("SLURM_ARRAY_TASK_MIN", &[])?.unwrap_or(0);
    let count = env.count("SLURM_ARRAY_TASK_ID", Some("SLURM_ARRAY_TASK_COUNT"))?;
    let index = id.checked_sub(min).ok_or_else(|| {
        fail(format!(
            "SLURM_ARRAY_TASK_ID {id} is below SLURM_ARRAY_TASK_MIN {min}"
        ))
    })?;
    Ok(Some((index + 1, count, "a Slurm array")))
}

/// Grid Engine (`qsub -t FIRST-LAST:STEP`) sets `SGE_TASK_ID` to `undefined` outside
/// an array; its tasks are numbered FIRST, FIRST+STEP, ... LAST.
fn grid_engine(env: &Env) -> std::result::Result<Option<(usize, usize, &'static str)>, UsageError> {
    let undefined = ["undefined", ""];
    let Some(id) = env.number("SGE_TASK_ID", &undefined)? else {
        return Ok(None);
    };
    let first = env.number("SGE_TASK_FIRST", &undefined)?.unwrap_or(1);
    let step = env
        .number("SGE_TASK_STEPSIZE", &undefined)?
        .unwrap_or(1)
        .max(1);
    let offset = id
        .checked_sub(first)
        .filter(|offset| offset % step == 0)
        .ok_or_else(|| {
            fail(format!(
                "SGE_TASK_ID {id} is not a task of the array from {first} by {step}"
            ))
        })?;
    let n = match env.n_given {
        Some(n) => n,
        None => {
            let last = env
                .number("SGE_TASK_LAST", &undefined)?
                .ok_or_else(|| fail("SGE_TASK_ID is set but SGE_TASK_LAST is not".into()))?;
            last.saturating_sub(first) / step + 1
        }
    };
    Ok(Some((offset / step + 1, n, "a Grid Engine array")))
}

/// LSF (`bsub -J "name[1-N]"`) sets `LSB_JOBINDEX` to 0 outside an array; the array
/// must start at 1, as LSF names no first index.
fn lsf(env: &Env) -> std::result::Result<Option<(usize, usize, &'static str)>, UsageError> {
    let Some(index) = env.number("LSB_JOBINDEX", &["0"])? else {
        return Ok(None);
    };
    let n = env.count("LSB_JOBINDEX", Some("LSB_JOBINDEX_END"))?;
    Ok(Some((index, n, "an LSF array")))
}

/// PBS Pro (`qsub -J 1-N`, `PBS_ARRAY_INDEX`) and Torque (`qsub -t 1-N`,
/// `PBS_ARRAYID`) give the index alone; the array must start at 1.
fn pbs(env: &Env) -> std::result::Result<Option<(usize, usize, &'static str)>, UsageError> {
    for name in ["PBS_ARRAY_INDEX", "PBS_ARRAYID"] {
        if let Some(index) = env.number(name, &[])? {
            let n = env.count(name, None)?;
            return Ok(Some((index, n, "a PBS array")));
        }
    }
    Ok(None)
}

fn aws_batch(env: &Env) -> std::result::Result<Option<(usize, usize, &'static str)>, UsageError> {
    let Some(index) = env.number("AWS_BATCH_JOB_ARRAY_INDEX", &[])? else {
        return Ok(None);
    };
    let n = env.count(
        "AWS_BATCH_JOB_ARRAY_INDEX",
        Some("AWS_BATCH_JOB_ARRAY_SIZE"),
    )?;
    Ok(Some((index + 1, n, "an AWS Batch array")))
}

fn kubernetes(env: &Env) -> std::result::Result<Option<(usize, usize, &'static str)>, UsageError> {
    let Some(index) = env.number("JOB_COMPLETION_INDEX", &[])? else {
        return Ok(None);
    };
    let n = env.count("JOB_COMPLETION_INDEX", None).map_err(|_| {
        fail("JOB_COMPLETION_INDEX is set; give the number of shards as --shard env/N (the Job's completions)".into())
    })?;
    Ok(Some((index + 1, n, "a Kubernetes Indexed Job")))
}
