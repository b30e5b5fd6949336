//! Runs a census: every tree of a corpus, fetched and counted in parallel, written
//! as commit-stamped tables.
//!
//! This module wires the stages together and owns two rules: one tree's failure
//! never stops the others (a tree that fails becomes an error row with empty
//! counts), and the commit stamped on a row is the archive's own full id, which must
//! start with the pin (docs/method.md, "Which commit"). Fetching, reading archives,
//! counting and formatting live in their own modules; here, [`slots`] keeps the
//! downloads apart from the counts, and [`journal`] records the trees counted so
//! that a rerun resumes.
//!
//! A command: it may import every stage, `cli`, `infra` and the corpus file
//! (`corpus::file`); nothing but the binary imports it.

mod journal;
mod slots;

use std::collections::HashMap;
use std::io::{self, Read};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{bail, Context, Result};

use crate::archive::{self, ArchiveCount};
use crate::cli::CensusArgs;
use crate::corpus::default_cache;
use crate::corpus::file::{self, Corpus, Package, Pin, Tree};
use crate::count::{Matcher, TreeCount};
use crate::fetch::http::{self, Credential, Retry, Token};
use crate::fetch::intake::Limits;
use crate::fetch::{Artifact, FetchOptions, Fetcher, Request};
use crate::infra::date;
use crate::infra::error::{ExitStatus, UsageError};
use crate::infra::error::{FailureKind, Tagged};
use crate::infra::messages;
use crate::infra::mirrors::Mirrors;
use crate::infra::progress::{Bars, Display, Progress};
use crate::infra::sanitize::sanitize;
use crate::registry;
use crate::report;
use crate::table::{CommitSource, Counted, Failure, Row, Table, TreeKey};
use crate::tools::FoundTools;
use crate::tools::Roles;

/// Holds a validated `census` command line: what to count, how, and where to.
#[derive(Debug)]
struct Config {
    /// The corpus, already cut to the shard asked for.
    corpus: Corpus,
    date: String,
    fetch: FetchOptions,
    width: Width,
    display: Display,
    out: std::path::PathBuf,
    /// Whether the tool finder reads the files (`--no-tools` turns it off).
    find_tools: Option<Roles>,
    /// Whether the run keeps a journal and skips the trees it holds (`--resume`).
    resume: bool,
}

/// How many trees are downloaded, and how many counted, at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Width {
    /// Trees counted at once (`--jobs`).
    pub jobs: usize,
    /// Archives downloaded at once (`--downloads`); never fewer than `jobs`.
    pub downloads: usize,
}

/// Returns the validated configuration of `args`, reading the environment through
/// `env` (the shard variables, the cache folder's default, a token); a wrong
/// corpus, shard or date is a [`UsageError`]. Nothing is fetched or written.
fn configure(args: &CensusArgs, env: impl Fn(&str) -> Option<String>) -> Result<Config> {
    let mut corpus = file::load(args.corpus.as_deref())?;
    if let Some(spec) = args.shard {
        corpus = spec.resolve(&env)?.select(&corpus);
    }
    let date = date::resolve(args.date.as_deref())?;
    let cache = match args.no_cache {
        true => None,
        false => args.cache.clone().or_else(default_cache),
    };
    let fetch = FetchOptions {
        cache,
        is_offline: args.offline,
        retry: Retry::new(args.retries),
        timeout: Duration::from_secs(args.timeout),
        give_up_after: args.give_up_after,
        token: Token::from_env(&env),
        limits: Limits {
            max_bytes: args.max_archive.0,
            max_time: Some(Duration::from_secs(args.max_time)),
        },
        mirrors: match &args.mirrors {
            Some(dir) => Some(Arc::new(Mirrors::open_arg(dir)?)),
            None => None,
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
        width: Width {
            jobs: usize::from(args.jobs),
            downloads: usize::from(args.downloads.max(args.jobs)),
        },
        display,
        out: args.out.clone(),
        find_tools: (!args.no_tools).then_some(args.tool_roles),
        resume: args.resume,
    })
}

/// Runs `census` and returns its exit status.
pub fn run(args: &CensusArgs) -> Result<ExitStatus> {
    let Config {
        corpus,
        date,
        fetch,
        width,
        display,
        out,
        find_tools,
        resume,
    } = configure(args, |name| std::env::var(name).ok())?;
    let max_archive = fetch.limits.max_bytes;
    let fetcher = Fetcher::new(fetch)?;
    let journal_path = journal::path_in(&out);
    let (journal, done) = match resume {
        true => {
            let run = journal::RunId {
                corpus: &corpus,
                date: &date,
                find_tools,
                max_archive,
            };
            let (journal, done) = journal::open(&journal_path, &run)?;
            (Some(journal), done)
        }
        false => {
            if journal_path.is_file() {
                messages::note(format!(
                    "'{}' is the journal of an unfinished run; this run neither reads nor \
                     writes it (--resume does)",
                    sanitize(journal_path.display().to_string())
                ));
            }
            (None, HashMap::new())
        }
    };
    match done.len() {
        0 => messages::note(format!(
            "counting {} of {}",
            messages::count(corpus.trees.len() as u64, "tree", "trees"),
            sanitize(&corpus.source)
        )),
        n => messages::note(format!(
            "counting {} of {}: {} already counted in '{}'",
            messages::count(corpus.trees.len() as u64, "tree", "trees"),
            sanitize(&corpus.source),
            n,
            sanitize(journal_path.display().to_string())
        )),
    }
    let work = Work {
        fetcher: &fetcher,
        width,
        find_tools,
        journal: journal.as_ref(),
        done: &done,
    };
    let table = count_corpus(&corpus, &work, &date, display)?;
    let failed = table.failed_rows().count();
    let shown_journal = journal
        .as_ref()
        .map(|j| sanitize(j.path().display().to_string()));
    let keeps_journal = || {
        if let Some(shown) = &shown_journal {
            messages::note(format!(
                "'{shown}' keeps the trees counted; the same command tries only the {failed} \
                 that failed"
            ));
        }
    };
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
        keeps_journal();
        return Ok(ExitStatus::Failed);
    }
    report::write_and_print(&out, &table)?;
    if let (Some(journal), 0) = (&journal, failed) {
        // Every tree is in the tables, written whole: the journal has done its job.
        std::fs::remove_file(journal.path()).with_context(|| {
            format!(
                "removing '{}'",
                sanitize(journal.path().display().to_string())
            )
        })?;
    }
    if failed > 0 {
        keeps_journal();
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

/// Holds what counting a corpus takes besides the corpus.
pub struct Work<'w> {
    pub fetcher: &'w Fetcher,
    pub width: Width,
    /// Whether the tool finder reads every file too.
    pub find_tools: Option<Roles>,
    /// Where each counted tree is recorded as soon as it is done.
    pub journal: Option<&'w journal::Journal>,
    /// The rows a journal already holds: their trees are not counted again.
    pub done: &'w HashMap<TreeKey, Row>,
}

/// Counts every tree of `corpus` and returns the table in corpus order:
/// `work.width.downloads` threads download, at most `work.width.jobs` of them count
/// at once (see [`slots`]).
pub fn count_corpus(
    corpus: &Corpus,
    work: &Work<'_>,
    date: &str,
    display: Display,
) -> Result<Table> {
    let matcher = corpus
        .columns
        .matcher()
        .map_err(|e| UsageError(format!("{e:#}")))?;
    let bars = Bars::new(display, corpus.trees.len());
    let groups = in_counting_order(archive_groups(&corpus.trees), &corpus.trees, work.fetcher);
    let slots = slots::Slots::new(work.width.jobs);
    let next = AtomicUsize::new(0);
    // Each row goes to its corpus position as soon as its group is counted.
    let rows: Vec<Mutex<Option<Row>>> = (0..corpus.trees.len())
        .map(|_| Default::default())
        .collect();
    let download = |thread: usize| {
        if thread >= work.width.jobs {
            wait_for_an_answer(work.fetcher, &next, groups.len());
        }
        loop {
            let at = next.fetch_add(1, Ordering::Relaxed);
            let Some(group) = groups.get(at) else { return };
            let counted = match resumed(&corpus.trees, group, work.done) {
                Some(rows) => {
                    bars.tree("").finish_trees(rows.len() as u64, true);
                    rows
                }
                None => {
                    let counted = count_group(&corpus.trees, group, work, &slots, &matcher, &bars);
                    if let Some(journal) = work.journal {
                        journal.record(counted.iter().map(|(_, row)| row));
                    }
                    counted
                }
            };
            for (i, row) in counted {
                if let Ok(mut slot) = rows[i].lock() {
                    *slot = Some(row);
                }
            }
        }
    };
    std::thread::scope(|scope| -> Result<()> {
        for thread in 0..work.width.downloads.max(1) {
            let download = &download;
            std::thread::Builder::new()
                .name(format!("census-{thread}"))
                .spawn_scoped(scope, move || download(thread))
                .context("starting the download threads")?;
        }
        Ok(())
    })?;
    bars.finish();
    let rows: Vec<Row> = rows
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
        dating: corpus.dating(),
        packages: corpus.shipped(),
    })
}

/// Waits until the network has answered a download, the run has stopped, or no
/// group is left: against a dead network only `--jobs` downloads run, so that it
/// costs no more tries than `--jobs` downloads would.
fn wait_for_an_answer(fetcher: &Fetcher, next: &AtomicUsize, groups: usize) {
    while !fetcher.breaker.has_answered()
        && fetcher.breaker.cause().is_none()
        && next.load(Ordering::Relaxed) < groups
    {
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Returns the rows of `group` from the journal's, when it holds every one.
fn resumed(
    trees: &[Tree],
    group: &[usize],
    done: &HashMap<TreeKey, Row>,
) -> Option<Vec<(usize, Row)>> {
    group
        .iter()
        .map(|&i| done.get(&trees[i].key()).map(|row| (i, row.clone())))
        .collect()
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
            tree.pin_text().to_ascii_lowercase(),
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

/// Orders the groups to count: those to download first, in corpus order (the
/// network's wait overlaps the counting), then those in the cache, the largest
/// archive first, so that the last to finish is a small one and no core idles long
/// at the end. The table is in corpus order whatever the counting order.
fn in_counting_order(
    groups: Vec<Vec<usize>>,
    trees: &[Tree],
    fetcher: &Fetcher,
) -> Vec<Vec<usize>> {
    let mut sized: Vec<(Option<u64>, Vec<usize>)> = groups
        .into_iter()
        .map(|group| {
            let first = &trees[group[0]];
            let folder = first.package().map(cache_folder).unwrap_or_default();
            let size = fetcher.cached_size(request(first, &folder, &|| None));
            (size, group)
        })
        .collect();
    // Stable: downloads keep their order, and so do archives of one size.
    sized.sort_by_key(|(size, _)| size.map(std::cmp::Reverse));
    sized.into_iter().map(|(_, group)| group).collect()
}

/// Counts the trees of one group from one read of their archive; a failure
/// becomes every one of their rows' error, never a partial count.
fn count_group(
    trees: &[Tree],
    group: &[usize],
    work: &Work<'_>,
    slots: &slots::Slots,
    matcher: &Matcher,
    bars: &Bars,
) -> Vec<(usize, Row)> {
    let find_tools = work.find_tools;
    let first = &trees[group[0]];
    let label = match group.len() {
        1 => first.label(),
        n => format!("{}@{} ({n} trees)", first.repo, first.pin_text()),
    };
    let bar = bars.tree(&sanitize(&label));
    // Each subfolder is counted once, however many dates share it.
    let mut subfolders: Vec<Vec<u8>> = Vec::new();
    let slot: Vec<usize> = group
        .iter()
        .map(|&i| {
            let sub = trees[i].subfolder.as_deref().unwrap_or_default().as_bytes();
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
        // The download reads ahead before it takes a counting slot, so that a slot
        // is spent on the CPU, not on waiting for the network.
        let ahead = slots::read_ahead(reader, slots::READ_AHEAD)?;
        let _slot = slots.take();
        let counted =
            archive::count_archive_and_tools(ahead, matcher, &subfolders, find_tools, &mut |_| {
                bar.file()
            })?;
        // Every forge archive names its commit; a comment that does not is not the
        // archive of a pinned tree (docs/method.md, "Which commit"). A package's
        // artifact is pinned by its digest instead.
        if let (Some(problem), None) = (&counted.comment_problem, first.package()) {
            bail!("{problem}");
        }
        let (commit, commit_source) = stamp(first, counted.commit.clone())?;
        Ok((commit, commit_source, counted))
    };
    let folder = first.package().map(cache_folder).unwrap_or_default();
    // Asked by the fetcher only for a download: finding PyPI's index may ask pip,
    // which a count from the cache has no need of.
    let credential = || {
        first
            .package()
            .and_then(|p| registry::credential_for(p.registry, &first.archive_url))
    };
    let archive = request(first, &folder, &credential);
    let fetched = work.fetcher.fetch(archive, &bar, &consume);
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

/// Returns the request of `tree`'s archive; for a package, its artifact cached under
/// `folder` ([`cache_folder`]) and checked against its digest.
fn request<'t>(
    tree: &'t Tree,
    folder: &'t str,
    credential: &'t (dyn Fn() -> Option<Credential> + Sync),
) -> Request<'t> {
    Request {
        repo: &tree.repo,
        commit: tree.pin_text(),
        url: &tree.archive_url,
        artifact: tree.package().map(|package| Artifact {
            folder,
            file: &package.artifact,
            digest: &package.digest,
            credential,
        }),
    }
}

/// Returns the cache folder of `package`'s artifact under the cache's `packages/`.
fn cache_folder(package: &Package) -> String {
    registry::pinned::cache_folder(package.registry, &package.name, &package.version)
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
    let pinned = match &tree.pin {
        Pin::Commit(commit) => commit,
        // The bytes are the registry's, checked by digest; the commit is what the
        // metadata says they were built from.
        Pin::Package(package) => {
            return Ok((
                package.commit.clone().unwrap_or_default(),
                CommitSource::Package,
            ))
        }
    };
    match archive_commit {
        Some(full) => {
            let pin = pinned.folded();
            if full.to_ascii_lowercase().starts_with(&pin) {
                Ok((full, CommitSource::Archive))
            } else {
                bail!(
                    "the archive is of commit '{}', which does not start with the pinned '{}'",
                    sanitize(&full),
                    sanitize(pinned.as_str())
                )
            }
        }
        None => Ok((pinned.to_string(), CommitSource::Pinned)),
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
        assert_eq!(
            config.width,
            Width {
                jobs: 3,
                downloads: 16
            }
        );
        let few = configure(&args(&["-j", "8", "--downloads", "2"]), |_| None).unwrap();
        assert_eq!(few.width.downloads, 8, "never fewer downloads than jobs");
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archives_to_download_come_first_then_the_largest_cached() {
        let cache = tempfile::tempdir().unwrap();
        let commit = |c: char| c.to_string().repeat(40);
        let tree = |repo: &str, c: char, subfolder: &str| {
            format!(
                "[[tree]]\nrepo = \"a/{repo}\"\ncommit = \"{}\"\n{subfolder}",
                commit(c)
            )
        };
        let text = [
            tree("small", 'a', ""),
            tree("none", 'b', ""),
            tree("big", 'c', ""),
            tree("big", 'c', "subfolder = \"s\"\n"),
            tree("mid", 'e', ""),
            tree("gone", 'd', ""),
        ]
        .concat();
        let corpus = file::parse("test.toml", &text).unwrap();
        // Cached: small (1 byte), big (3), mid (2); gone lacks its sidecar.
        for (name, c, size, sidecar) in [
            ("small", 'a', 1, true),
            ("big", 'c', 3, true),
            ("mid", 'e', 2, true),
            ("gone", 'd', 9, false),
        ] {
            let dir = cache.path().join("a").join(name);
            std::fs::create_dir_all(&dir).unwrap();
            let archive = dir.join(format!("{}.tar.gz", commit(c)));
            std::fs::write(&archive, vec![0u8; size]).unwrap();
            if sidecar {
                std::fs::write(dir.join(format!("{}.tar.gz.sha256", commit(c))), "x\n").unwrap();
            }
        }
        let fetcher = Fetcher::new(FetchOptions {
            cache: Some(cache.path().to_path_buf()),
            is_offline: true,
            retry: Retry::new(0),
            timeout: Duration::from_secs(1),
            give_up_after: 0,
            token: None,
            limits: Limits::NONE,
            mirrors: None,
        })
        .unwrap();
        let groups = archive_groups(&corpus.trees);
        let repos = |groups: &[Vec<usize>]| -> Vec<String> {
            groups
                .iter()
                .map(|g| corpus.trees[g[0]].repo.clone())
                .collect()
        };
        assert_eq!(
            repos(&groups),
            ["a/small", "a/none", "a/big", "a/mid", "a/gone"]
        );
        let ordered = in_counting_order(groups, &corpus.trees, &fetcher);
        assert_eq!(
            repos(&ordered),
            ["a/none", "a/gone", "a/big", "a/mid", "a/small"]
        );
        assert_eq!(ordered[2], [2, 3]);
    }
}
