//! Runs a census: every tree of a corpus, fetched and counted in parallel, written
//! as commit-stamped tables.
//!
//! This module wires the stages together and owns the rule that one tree's failure
//! never stops the others: a tree that fails becomes an error row with empty counts.
//! The counting, fetching and formatting live in their own modules.

use std::fs;
use std::io::{self, Write};
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use rayon::prelude::*;

use crate::cli::CensusArgs;
use crate::corpus::{self, Corpus, Tree};
use crate::count::Matcher;
use crate::fetch::{FetchOptions, Fetcher};
use crate::merge::Shard;
use crate::progress::Bars;
use crate::report::{self, Counted, Row, Table};
use crate::{date, ExitStatus, UsageError};

/// Runs `census` and returns its exit status.
pub fn run(args: &CensusArgs) -> Result<ExitStatus> {
    let mut corpus = corpus::load(args.corpus.as_deref())?;
    if let Some(shard) = &args.shard {
        corpus = Shard::parse(shard)?.select(&corpus);
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
        timeout: Duration::from_secs(args.timeout.max(1)),
        backoff: Duration::from_millis(500),
    })?;
    let table = count_corpus(&corpus, &fetcher, usize::from(args.jobs), &date, args.quiet)?;
    write_tables(&args.out, &table)?;
    report::print_table(io::stdout().lock(), &table)?;
    let failed = table.rows.iter().filter(|r| r.outcome.is_err()).count();
    if failed > 0 {
        let _ = writeln!(
            io::stderr(),
            "mcp-hint-census: {failed} of {} trees failed; their rows say why",
            table.rows.len()
        );
        return Ok(ExitStatus::Failed);
    }
    Ok(ExitStatus::Ok)
}

/// Counts every tree of `corpus`, at most `jobs` at once, and returns the table
/// in corpus order.
pub fn count_corpus(
    corpus: &Corpus,
    fetcher: &Fetcher,
    jobs: usize,
    date: &str,
    is_quiet: bool,
) -> Result<Table> {
    let terms: Vec<&String> = corpus.terms.iter().chain(&corpus.controls).collect();
    let matcher = Matcher::new(&terms).map_err(|e| UsageError(format!("{e:#}")))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .thread_name(|i| format!("census-{i}"))
        .build()
        .context("starting the worker threads")?;
    let bars = Bars::new(is_quiet, corpus.trees.len());
    let rows: Vec<Row> = pool.install(|| {
        corpus
            .trees
            .par_iter()
            .map(|tree| count_tree(tree, fetcher, &matcher, &bars))
            .collect()
    });
    bars.finish();
    Ok(Table {
        terms: corpus.terms.clone(),
        controls: corpus.controls.clone(),
        date: date.to_string(),
        rows,
    })
}

/// Counts one tree; a failure becomes the row's error, never a partial count.
fn count_tree(tree: &Tree, fetcher: &Fetcher, matcher: &Matcher, bars: &Bars) -> Row {
    let bar = bars.tree(&format!(
        "{}@{}",
        tree.repo,
        &tree.commit[..tree.commit.len().min(7)]
    ));
    let outcome = fetcher
        .count_tree(tree, matcher, &bar)
        .map(|fetched| Counted {
            commit: fetched.commit,
            commit_source: fetched.commit_source,
            count: fetched
                .count
                .trees
                .into_iter()
                .next()
                .expect("one tree per subfolder asked"),
            sha256: fetched.sha256,
        })
        .map_err(|err| format!("fetching '{}': {err:#}", tree.label()));
    bar.finish(outcome.is_ok());
    Row {
        repo: tree.repo.clone(),
        pinned: tree.commit.clone(),
        note: tree.note.clone(),
        outcome,
    }
}

/// Writes `census-DATE.csv`, `files-DATE.csv` and `census-DATE.md` into `out`, each
/// through a temporary file renamed into place, so no half-written table is left.
pub fn write_tables(out: &Path, table: &Table) -> Result<()> {
    fs::create_dir_all(out).with_context(|| format!("creating '{}'", out.display()))?;
    let date = &table.date;
    write_atomic(&out.join(format!("census-{date}.csv")), |w| {
        report::write_census_csv(w, table)
    })?;
    write_atomic(&out.join(format!("files-{date}.csv")), |w| {
        report::write_files_csv(w, table)
    })?;
    write_atomic(&out.join(format!("census-{date}.md")), |w| {
        Ok(report::write_markdown(w, table)?)
    })?;
    Ok(())
}

/// Writes a file through a temporary sibling renamed into place.
fn write_atomic(path: &Path, write: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut temp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("writing to '{}'", dir.display()))?;
    {
        let mut w = io::BufWriter::new(temp.as_file_mut());
        write(&mut w).with_context(|| format!("writing '{}'", path.display()))?;
        w.flush()
            .with_context(|| format!("writing '{}'", path.display()))?;
    }
    // A temporary file is private (0600); a table is for everyone to read.
    set_readable(temp.as_file())?;
    temp.persist(path)
        .with_context(|| format!("writing '{}'", path.display()))?;
    Ok(())
}

#[cfg(unix)]
fn set_readable(file: &fs::File) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(fs::Permissions::from_mode(0o644))?;
    Ok(())
}

#[cfg(not(unix))]
fn set_readable(_: &fs::File) -> Result<()> {
    Ok(())
}
