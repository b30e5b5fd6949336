//! Runs a census: every tree of a corpus, fetched and counted in parallel, written
//! as commit-stamped tables.
//!
//! This module wires the stages together and owns two rules: one tree's failure
//! never stops the others (a tree that fails becomes an error row with empty
//! counts), and the commit stamped on a row is the archive's own full id, which must
//! start with the pin (docs/method.md, "Which commit"). Fetching, reading archives,
//! counting and formatting live in their own modules.

use std::collections::HashMap;
use std::io::{self, Read};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use rayon::prelude::*;

use crate::archive::{self, ArchiveCount};
use crate::cli::CensusArgs;
use crate::corpus::{self, Corpus, Tree};
use crate::count::{Matcher, TreeCount};
use crate::date;
use crate::error::{ExitStatus, UsageError};
use crate::fetch::{FetchOptions, Fetcher};
use crate::http::{self, Retry, Token};
use crate::intake::Limits;
use crate::messages;
use crate::progress::{Bars, Display, Progress};
use crate::report;
use crate::sanitize::sanitize;
use crate::table::{CommitSource, Counted, Failure, FailureKind, Row, Table, Tagged};
use crate::tools::FoundTools;

/// Holds a validated `census` command line: what to count, how, and where to.
#[derive(Debug)]
struct Config {
    /// The corpus, already cut to the shard asked for.
    corpus: Corpus,
    date: String,
    fetch: FetchOptions,
    jobs: usize,
    display: Display,
    out: std::path::PathBuf,
    /// Whether the tool finder reads the files (`--no-tools` turns it off).
    find_tools: bool,
}

/// Returns the validated configuration of `args`, reading the environment through
/// `env` (the shard variables, the cache folder's default, a token); a wrong
/// corpus, shard or date is a [`UsageError`]. Nothing is fetched or written.
fn configure(args: &CensusArgs, env: impl Fn(&str) -> Option<String>) -> Result<Config> {
    let mut corpus = corpus::load(args.corpus.as_deref())?;
    if let Some(spec) = args.shard {
        corpus = spec.resolve(&env)?.select(&corpus);
    }
    let date = date::resolve(args.date.as_deref())?;
    let cache = args
        .cache
        .clone()
        .or_else(|| dirs::cache_dir().map(|dir| dir.join("mcp-hint-census")));
    let fetch = FetchOptions {
        cache,
        is_offline: args.offline,
        retry: Retry {
            retries: args.retries,
            backoff: Duration::from_millis(500),
            max_wait: Duration::from_secs(60),
        },
        timeout: Duration::from_secs(args.timeout),
        give_up_after: args.give_up_after,
        token: Token::from_env(&env),
        limits: Limits {
            max_bytes: args.max_archive.0,
            max_time: Some(Duration::from_secs(args.max_time)),
        },
    };
    let display = match args.quiet {
        true => Display::Quiet,
        false => Display::Auto {
            interval: Duration::from_secs(args.progress_every),
        },
    };
    Ok(Config {
        corpus,
        date,
        fetch,
        jobs: usize::from(args.jobs),
        display,
        out: args.out.clone(),
        find_tools: !args.no_tools,
    })
}

/// Runs `census` and returns its exit status.
pub fn run(args: &CensusArgs) -> Result<ExitStatus> {
    let Config {
        corpus,
        date,
        fetch,
        jobs,
        display,
        out,
        find_tools,
    } = configure(args, |name| std::env::var(name).ok())?;
    let fetcher = Fetcher::new(fetch)?;
    messages::note(format!(
        "counting {} of {}",
        messages::count(corpus.trees.len() as u64, "tree", "trees"),
        sanitize(&corpus.source)
    ));
    let table = count_corpus(&corpus, &fetcher, jobs, &date, display, find_tools)?;
    let failed = table.failed_rows().count();
    let stopped = fetcher.breaker.cause();
    if failed == table.rows.len() && !table.rows.is_empty() {
        report::print_table(io::stdout().lock(), &table)?;
        report::announce_failures(&table);
        // A table of nothing but errors is no result: nothing is written, so that
        // results/ keeps what it had and `compare` is not misled.
        messages::note("no tree could be counted, so no table was written");
        if let Some(cause) = &stopped {
            messages::note(format!("the downloads stopped after {cause}"));
        }
        let is_network =
            |row: &Row| matches!(&row.outcome, Err(f) if f.kind == FailureKind::Network);
        if table.rows.iter().any(is_network) {
            messages::hint(
                "the downloads failed for network reasons; with archives already in a cache \
                 folder, rerun with --offline (and --cache DIR), or point the corpus at a \
                 reachable mirror with archive_url",
            );
        }
        return Ok(ExitStatus::Failed);
    }
    report::write_and_print(&out, &table)?;
    if failed > 0 {
        report::announce_failures(&table);
        if let Some(cause) = &stopped {
            messages::note(format!(
                "the downloads stopped after {cause}; the trees not tried fail as such"
            ));
        }
        messages::note(format!(
            "{failed} of {} failed; their rows say why",
            messages::count(table.rows.len() as u64, "tree", "trees")
        ));
        return Ok(ExitStatus::Failed);
    }
    Ok(ExitStatus::Ok)
}

/// Counts every tree of `corpus`, at most `jobs` at once, and returns the table
/// in corpus order; with `find_tools`, the tool finder reads every file too.
pub fn count_corpus(
    corpus: &Corpus,
    fetcher: &Fetcher,
    jobs: usize,
    date: &str,
    display: Display,
    find_tools: bool,
) -> Result<Table> {
    let matcher = corpus
        .columns
        .matcher()
        .map_err(|e| UsageError(format!("{e:#}")))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .thread_name(|i| format!("census-{i}"))
        .build()
        .context("starting the worker threads")?;
    let bars = Bars::new(display, corpus.trees.len());
    let groups = archive_groups(&corpus.trees);
    // Each row goes to its corpus position as soon as its group is counted.
    let slots: Vec<std::sync::Mutex<Option<Row>>> = (0..corpus.trees.len())
        .map(|_| Default::default())
        .collect();
    pool.install(|| {
        groups.par_iter().for_each(|group| {
            for (i, row) in count_group(&corpus.trees, group, fetcher, &matcher, find_tools, &bars)
            {
                if let Ok(mut slot) = slots[i].lock() {
                    *slot = Some(row);
                }
            }
        })
    });
    bars.finish();
    let rows: Vec<Row> = slots
        .into_iter()
        .filter_map(|slot| slot.into_inner().ok().flatten())
        .collect();
    if rows.len() != corpus.trees.len() {
        anyhow::bail!("a worker thread stopped before its trees were counted");
    }
    Ok(Table {
        columns: corpus.columns.clone(),
        date: date.to_string(),
        rows,
    })
}

/// Returns the trees grouped by the archive they are counted from: one group per
/// (repository, pin, archive URL), in corpus order, each listing its trees'
/// indices. A monorepo's servers (one tree per subfolder) make one group, and so do
/// the dates that resolved to one commit, so their archive is downloaded once and
/// read once (docs/method.md, "Subfolders" and "Dates").
fn archive_groups(trees: &[Tree]) -> Vec<Vec<usize>> {
    let mut index: HashMap<(String, String, &str), usize> = HashMap::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, tree) in trees.iter().enumerate() {
        let key = (
            tree.repo.to_ascii_lowercase(),
            tree.commit.to_ascii_lowercase(),
            tree.archive_url.as_str(),
        );
        let at = *index.entry(key).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[at].push(i);
    }
    groups
}

/// Counts the trees of one group from one read of their archive; a failure
/// becomes every one of their rows' error, never a partial count.
fn count_group(
    trees: &[Tree],
    group: &[usize],
    fetcher: &Fetcher,
    matcher: &Matcher,
    find_tools: bool,
    bars: &Bars,
) -> Vec<(usize, Row)> {
    let first = &trees[group[0]];
    let label = match group.len() {
        1 => first.label(),
        n => format!("{}@{} ({n} trees)", first.repo, first.commit),
    };
    let bar = bars.tree(&sanitize(&label));
    // Each subfolder is counted once, however many dates share it.
    let mut subfolders: Vec<Vec<u8>> = Vec::new();
    let slot: Vec<usize> = group
        .iter()
        .map(|&i| {
            let sub = trees[i].subfolder.as_bytes();
            match subfolders.iter().position(|s| s == sub) {
                Some(at) => at,
                None => {
                    subfolders.push(sub.to_vec());
                    subfolders.len() - 1
                }
            }
        })
        .collect();
    let consume = |reader: &mut (dyn Read + Send)| -> Result<(String, CommitSource, ArchiveCount)> {
        let counted = archive::count_archive_and_tools(
            reader,
            matcher,
            &subfolders,
            find_tools,
            &mut |_| bar.file(),
        )?;
        // Every forge archive names its commit; a comment that does not is not the
        // archive of a pinned tree (docs/method.md, "Which commit").
        if let Some(problem) = &counted.comment_problem {
            bail!("{problem}");
        }
        let (commit, commit_source) = stamp(first, counted.commit.clone())?;
        Ok((commit, commit_source, counted))
    };
    let fetched = fetcher.fetch(first, &bar, &consume);
    bar.finish_trees(group.len() as u64, fetched.is_ok());
    match fetched {
        Ok(fetched) => {
            let (commit, commit_source, counted) = fetched.value;
            let variants = counted.case_variants;
            let mut counts: Vec<Option<TreeCount>> = counted.trees.into_iter().map(Some).collect();
            let mut tools: Vec<Option<FoundTools>> = match counted.tools {
                Some(tools) => tools.into_iter().map(Some).collect(),
                None => vec![None; counts.len()],
            };
            let mut uses = vec![0usize; counts.len()];
            for &at in &slot {
                uses[at] += 1;
            }
            group
                .iter()
                .zip(&slot)
                .map(|(&i, &at)| {
                    // The last tree of a subfolder takes its count; the others a copy.
                    uses[at] -= 1;
                    let is_empty = counts[at].as_ref().is_some_and(|c| c.files_walked == 0);
                    if !subfolders[at].is_empty() && is_empty {
                        let why = no_file_in(&subfolders[at], variants[at].as_deref());
                        let failure = Failure::new(FailureKind::Archive, why);
                        return (i, row(&trees[i], Err(failure)));
                    }
                    let (mut count, found) = match uses[at] {
                        0 => (
                            counts[at].take().unwrap_or_else(|| TreeCount::new(0)),
                            tools[at].take(),
                        ),
                        _ => (
                            counts[at].clone().unwrap_or_else(|| TreeCount::new(0)),
                            tools[at].clone(),
                        ),
                    };
                    count.sort_files();
                    let counted = Counted {
                        commit: commit.clone(),
                        commit_source,
                        count,
                        sha256: fetched.sha256.clone(),
                        tools: found,
                    };
                    (i, row(&trees[i], Ok(counted)))
                })
                .collect()
        }
        Err(err) => group
            .iter()
            .map(|&i| {
                let failure = Failure::new(
                    failure_kind(&err),
                    format!("fetching '{}': {err:#}", trees[i].label()),
                );
                (i, row(&trees[i], Err(failure)))
            })
            .collect(),
    }
}

/// Returns why a tree whose `subfolder` holds no file of the archive fails:
/// a stale subfolder would read as a server without hints (docs/method.md,
/// "Subfolders"). `variant` is a folder of the archive that differs only in case.
fn no_file_in(subfolder: &[u8], variant: Option<&[u8]>) -> String {
    let shown = sanitize(subfolder);
    match variant {
        Some(variant) => format!(
            "subfolder '{shown}' matches no file of the archive; '{}' differs only in case",
            sanitize(variant)
        ),
        None => format!("subfolder '{shown}' matches no file of the archive"),
    }
}

/// Returns the kind of a failed fetch for its row: the tag fetch put on it, else
/// what the HTTP layer says went wrong, else (the bytes were read, from the
/// network or the cache, and refused) the archive's.
fn failure_kind(err: &anyhow::Error) -> FailureKind {
    if let Some(tagged) = err.downcast_ref::<Tagged>() {
        return tagged.kind;
    }
    match http::kind_of(err) {
        Some(kind) if kind.is_network() => FailureKind::Network,
        Some(http::Kind::NotFound | http::Kind::Refused) => FailureKind::Refused,
        Some(http::Kind::Local) => FailureKind::Other,
        Some(_) | None => FailureKind::Archive,
    }
}

/// Returns the row of `tree`.
fn row(tree: &Tree, outcome: std::result::Result<Counted, Failure>) -> Row {
    Row {
        key: tree.key(),
        server: tree.name.clone(),
        note: tree.note.clone(),
        outcome,
    }
}

/// Returns the commit to stamp: the archive's own full id when it starts with the
/// pin (hex, any case), the pin when the archive names no commit; an error when
/// they disagree, with both values escaped.
fn stamp(tree: &Tree, archive_commit: Option<String>) -> Result<(String, CommitSource)> {
    match archive_commit {
        Some(full) => {
            let pin = tree.commit.to_ascii_lowercase();
            if full.to_ascii_lowercase().starts_with(&pin) {
                Ok((full, CommitSource::Archive))
            } else {
                bail!(
                    "the archive is of commit '{}', which does not start with the pinned '{}'",
                    sanitize(&full),
                    sanitize(&tree.commit)
                )
            }
        }
        None => Ok((tree.commit.clone(), CommitSource::Pinned)),
    }
}

#[cfg(test)]
mod config_tests {
    use super::*;
    use clap::Parser;

    fn args(line: &[&str]) -> CensusArgs {
        let cli = crate::cli::Cli::try_parse_from(
            ["mcp-hint-census", "census"].iter().chain(line.iter()),
        )
        .expect("the test's command line parses");
        match cli.command {
            crate::cli::Command::Census(args) => args,
            other => panic!("not a census: {other:?}"),
        }
    }

    #[test]
    fn the_options_become_one_config() {
        let config = configure(
            &args(&["--date", "2026-01-02", "-j", "3", "--retries", "5", "-q"]),
            |_| None,
        )
        .unwrap();
        assert_eq!(config.date, "2026-01-02");
        assert_eq!(config.jobs, 3);
        assert_eq!(config.fetch.retry.retries, 5);
        assert_eq!(config.display, Display::Quiet);
        assert_eq!(config.out, std::path::PathBuf::from("results"));
    }

    #[test]
    fn a_shard_is_cut_from_the_environment_given() {
        let whole = configure(&args(&[]), |_| None).unwrap().corpus;
        let env = |name: &str| match name {
            "SLURM_ARRAY_TASK_ID" => Some("0".to_string()),
            "SLURM_ARRAY_TASK_COUNT" => Some("2".to_string()),
            _ => None,
        };
        let shard = configure(&args(&["--shard", "env"]), env).unwrap().corpus;
        assert_eq!(shard.trees.len(), whole.trees.len().div_ceil(2));
        assert_eq!(shard.trees[0], whole.trees[0]);
        let err = configure(&args(&["--shard", "env"]), |_| None).unwrap_err();
        assert!(err.downcast_ref::<UsageError>().is_some(), "{err:#}");
    }
}
