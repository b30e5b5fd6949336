//! Runs a census: every tree of a corpus, fetched and counted in parallel, written
//! as commit-stamped tables.
//!
//! This module wires the stages together and owns two rules: one tree's failure
//! never stops the others (a tree that fails becomes an error row with empty
//! counts), and the commit stamped on a row is the archive's own full id, which must
//! start with the pin (docs/method.md, "Which commit"). Fetching, reading archives,
//! counting and formatting live in their own modules.

use std::io::{self, Read, Write};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use rayon::prelude::*;

use crate::archive::{self, ArchiveCount};
use crate::cli::CensusArgs;
use crate::corpus::{self, Corpus, Tree};
use crate::count::Matcher;
use crate::fetch::{FetchOptions, Fetcher};
use crate::progress::{Bars, Display, Progress};
use crate::report;
use crate::sanitize::sanitize;
use crate::table::{CommitSource, Counted, Row, Table};
use crate::tee::Limits;
use crate::{date, ExitStatus, UsageError};

/// Runs `census` and returns its exit status.
pub fn run(args: &CensusArgs) -> Result<ExitStatus> {
    let mut corpus = corpus::load(args.corpus.as_deref())?;
    if let Some(spec) = args.shard {
        corpus = spec
            .resolve(|name| std::env::var(name).ok())?
            .select(&corpus);
    }
    let date = date::resolve(args.date.as_deref())?;
    let cache = args
        .cache
        .clone()
        .or_else(|| dirs::cache_dir().map(|dir| dir.join("mcp-hint-census")));
    let fetcher = Fetcher::new(FetchOptions {
        cache,
        is_offline: args.offline,
        retries: args.retries,
        timeout: Duration::from_secs(args.timeout),
        backoff: Duration::from_millis(500),
        limits: Limits {
            max_bytes: args.max_archive.0,
            max_time: Some(Duration::from_secs(args.max_time)),
        },
    })?;
    let mut err = io::stderr().lock();
    writeln!(
        err,
        "mcp-hint-census: counting {} {} of {}",
        corpus.trees.len(),
        if corpus.trees.len() == 1 {
            "tree"
        } else {
            "trees"
        },
        sanitize(&corpus.source)
    )?;
    drop(err);
    let display = match args.quiet {
        true => Display::Quiet,
        false => Display::Auto {
            interval: Duration::from_secs(args.progress_every),
        },
    };
    let table = count_corpus(&corpus, &fetcher, usize::from(args.jobs), &date, display)?;
    let failed = table.failed_rows().count();
    if failed == table.rows.len() && !table.rows.is_empty() {
        report::print_table(io::stdout().lock(), &table)?;
        let mut err = io::stderr().lock();
        // A table of nothing but errors is no result: nothing is written, so that
        // results/ keeps what it had and `compare` is not misled.
        writeln!(
            err,
            "mcp-hint-census: no tree could be counted, so no table was written"
        )?;
        if table.failed_rows().any(|(_, why)| is_network_error(why)) {
            writeln!(
                err,
                "hint: the downloads failed for network reasons; with archives already in a \
                 cache folder, rerun with --offline (and --cache DIR), or point the corpus at a \
                 reachable mirror with archive_url"
            )?;
        }
        return Ok(ExitStatus::Failed);
    }
    // The tables are written before anything is printed, so that a reader who
    // stops early (`census | head`) still leaves them complete.
    let written = report::write_tables(&args.out, &table)?;
    report::print_table(io::stdout().lock(), &table)?;
    let mut err = io::stderr().lock();
    for path in &written {
        writeln!(
            err,
            "mcp-hint-census: wrote {}",
            sanitize(path.display().to_string())
        )?;
    }
    if failed > 0 {
        writeln!(
            err,
            "mcp-hint-census: {failed} of {} trees failed; their rows say why",
            table.rows.len()
        )?;
        return Ok(ExitStatus::Failed);
    }
    Ok(ExitStatus::Ok)
}

/// Returns true when a row's error says the network failed (not the archive).
fn is_network_error(why: &str) -> bool {
    [
        "dns error",
        "connect",
        "timed out",
        "gave up after",
        "broke off",
    ]
    .iter()
    .any(|needle| why.contains(needle))
}

/// Counts every tree of `corpus`, at most `jobs` at once, and returns the table
/// in corpus order.
pub fn count_corpus(
    corpus: &Corpus,
    fetcher: &Fetcher,
    jobs: usize,
    date: &str,
    display: Display,
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
    let rows: Vec<Row> = pool.install(|| {
        corpus
            .trees
            .par_iter()
            .map(|tree| count_tree(tree, fetcher, &matcher, &bars))
            .collect()
    });
    bars.finish();
    Ok(Table {
        columns: corpus.columns.clone(),
        date: date.to_string(),
        rows,
    })
}

/// Counts one tree; a failure becomes the row's error, never a partial count.
fn count_tree(tree: &Tree, fetcher: &Fetcher, matcher: &Matcher, bars: &Bars) -> Row {
    let bar = bars.tree(&sanitize(
        crate::table::TreeKey {
            pinned: report::short(&tree.commit).to_string(),
            ..tree.key()
        }
        .label(),
    ));
    let consume = |reader: &mut (dyn Read + Send)| -> Result<Counted> {
        let ArchiveCount {
            commit,
            tree: count,
        } = archive::count_archive(reader, matcher, &mut |_| bar.file())?;
        let (commit, commit_source) = stamp(tree, commit)?;
        Ok(Counted {
            commit,
            commit_source,
            count,
            sha256: String::new(),
        })
    };
    let outcome = fetcher
        .fetch(tree, &bar, &consume)
        .map(|fetched| {
            let mut counted = fetched.value;
            counted.sha256 = fetched.sha256;
            counted.count.sort_files();
            counted
        })
        .map_err(|err| format!("fetching '{}': {err:#}", tree.label()));
    bar.finish(outcome.is_ok());
    Row {
        key: tree.key(),
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
