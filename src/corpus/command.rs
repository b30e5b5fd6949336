//! The `corpus` command: its options checked into one configuration, then the
//! registry or the list read, the corpus built (`build`) and written with its
//! skipped list and, from the registry, the servers files for the probe (`text`,
//! `packages`).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};

use crate::cli::{CorpusArgs, CorpusBuildArgs, CorpusSource};
use crate::corpus::default_cache;
use crate::corpus::history::{self, HistoryOptions};
use crate::corpus::pin::GitOptions;
use crate::corpus::registry::{self};
use crate::corpus::repo_list;
use crate::corpus::shipped;
use crate::fetch::http::{self, Breaker};
use crate::infra::atomic::write_bytes;
use crate::infra::date;
use crate::infra::error::{ExitStatus, UsageError};
use crate::infra::messages;
use crate::infra::mirrors::Mirrors;
use crate::infra::sanitize::sanitize;

use crate::corpus::build::{build, candidates_of, BuiltTree, Candidate, Dating, Skip};
use crate::corpus::text::{corpus_text, remotes_text, skipped_csv, Provenance};

/// Holds a validated `corpus registry` or `corpus list` command line: where the
/// candidates come from, and how they are pinned and written.
#[derive(Debug)]
struct Config {
    source: Source,
    build: BuildConfig,
}

/// Where the candidates come from.
#[derive(Debug)]
enum Source {
    Registry(Box<RegistryConfig>),
    /// A list of repositories, one a line.
    List(PathBuf),
    /// A list of packages, one a line.
    Packages(PathBuf),
}

/// What `corpus registry` reads and writes beside the corpus.
#[derive(Debug)]
struct RegistryConfig {
    /// The registry to ask, or `None` for saved answer pages.
    http: Option<registry::HttpOptions>,
    pages: Vec<PathBuf>,
    is_partial: bool,
    is_all_versions: bool,
    remotes: Option<PathBuf>,
    packages: Option<PathBuf>,
    /// Where the corpus of what ships goes (`--shipped`), and its skipped list.
    shipped: Option<(PathBuf, PathBuf)>,
    /// Reads the trees from the corpus `--out` names instead of pinning (`--pinned`).
    is_pinned: bool,
}

/// How the candidates are pinned and where the corpus goes: what every source shares.
#[derive(Debug)]
struct BuildConfig {
    out: PathBuf,
    skipped: PathBuf,
    /// The build's date (`--date`, else today).
    date: String,
    /// The dates and history options of `--at` and `--since`; `None` pins now.
    dating: Option<Dating>,
    /// How a history is read when a version with no release tag is pinned at the
    /// day it was published; `None` when no cache folder is known.
    history: Option<HistoryOptions>,
    git: GitOptions,
    jobs: usize,
    give_up_after: usize,
}

/// Returns the validated configuration of `args`; a wrong date, a clash of output
/// files, a bad registry URL or dating options that cannot be used are a
/// [`UsageError`]. Nothing is read, asked or written.
fn configure(args: &CorpusArgs) -> Result<Config> {
    match &args.source {
        CorpusSource::Registry(a) => {
            let date = date::resolve(a.build.date.as_deref())?;
            let shipped = a.shipped.as_ref().map(|p| (p.clone(), skipped_beside(p)));
            if a.shipped.is_some() && (!a.build.at.is_empty() || a.build.since.is_some()) {
                return Err(UsageError(
                    "--shipped pins packages by version, which have no dates: it cannot be \
                     given with --at or --since"
                        .to_string(),
                )
                .into());
            }
            let extra = [
                ("--remotes", &a.remotes),
                ("--packages", &a.packages),
                ("--shipped", &a.shipped),
            ];
            for (i, (flag, path)) in extra.iter().enumerate() {
                let Some(path) = path else { continue };
                if let Some((other, _)) = extra[..i].iter().find(|(_, p)| p.as_ref() == Some(path))
                {
                    return Err(UsageError(format!("{other} and {flag} name the same file")).into());
                }
                if shipped.as_ref().is_some_and(|(_, s)| s == path) && *flag != "--shipped" {
                    return Err(UsageError(format!(
                        "{flag} '{}' is also the skipped list of --shipped",
                        path.display()
                    ))
                    .into());
                }
            }
            for (flag, path) in [
                ("--remotes", &a.remotes),
                ("--packages", &a.packages),
                ("--shipped", &a.shipped),
            ] {
                let Some(path) = path else { continue };
                if *path == a.build.out || *path == skipped_path(&a.build) {
                    return Err(UsageError(format!(
                        "{flag} '{}' is also the corpus or the skipped list",
                        path.display()
                    ))
                    .into());
                }
            }
            let http = match a.pages.is_empty() {
                true => {
                    let options = registry::HttpOptions {
                        base: a.url.clone(),
                        limit: a.limit,
                        max_pages: a.max_pages,
                        is_latest_only: !a.all_versions,
                        timeout: Duration::from_secs(a.build.timeout.max(1)),
                        retry: http::Retry::new(a.build.retries),
                        save: a.save_pages.clone(),
                    };
                    registry::page_url(&options.base, options.limit, true, None)?;
                    Some(options)
                }
                false => None,
            };
            let registry = RegistryConfig {
                http,
                pages: a.pages.clone(),
                is_partial: a.partial,
                is_all_versions: a.all_versions,
                remotes: a.remotes.clone(),
                packages: a.packages.clone(),
                shipped,
                is_pinned: a.pinned,
            };
            Ok(Config {
                source: Source::Registry(Box::new(registry)),
                build: configure_build(&a.build, date)?,
            })
        }
        CorpusSource::List(a) => {
            let date = date::resolve(a.build.date.as_deref())?;
            Ok(Config {
                source: Source::List(a.file.clone()),
                build: configure_build(&a.build, date)?,
            })
        }
        CorpusSource::Packages(a) => {
            let b = &a.build;
            let meaningless = [
                ("--at", !b.at.is_empty()),
                ("--since", b.since.is_some()),
                ("--cache", b.cache.is_some()),
                ("--clone-timeout", b.clone_timeout != 600),
                ("--max-history", b.max_history.0 != 2 << 30),
            ];
            if let Some((flag, _)) = meaningless.iter().find(|(_, given)| *given) {
                return Err(UsageError(format!(
                    "{flag} means nothing for packages: a package is pinned by its version, \
                     with no history to read"
                ))
                .into());
            }
            let date = date::resolve(b.date.as_deref())?;
            Ok(Config {
                source: Source::Packages(a.file.clone()),
                build: configure_build(b, date)?,
            })
        }
    }
}

/// Returns `STEM-skipped.csv` beside `path`.
fn skipped_beside(path: &Path) -> PathBuf {
    let stem = path
        .file_stem()
        .map_or("corpus".into(), |s| s.to_string_lossy().into_owned());
    path.with_file_name(format!("{stem}-skipped.csv"))
}

/// Returns the validated options every source shares, for a build on `date`.
fn configure_build(args: &CorpusBuildArgs, date: String) -> Result<BuildConfig> {
    let dating = dating(args, &date)?;
    let history = args
        .cache
        .clone()
        .or_else(default_cache)
        .map(|cache| history_options(args, cache));
    let skipped = skipped_path(args);
    if skipped == args.out {
        return Err(UsageError(format!(
            "--skipped and --out are both '{}'",
            args.out.display()
        ))
        .into());
    }
    Ok(BuildConfig {
        out: args.out.clone(),
        skipped,
        date,
        dating,
        history,
        git: GitOptions {
            timeout: Duration::from_secs(args.timeout.max(1)),
            retries: args.retries,
            backoff: http::FIRST_BACKOFF,
            mirrors: match &args.mirrors {
                Some(dir) => Some(Arc::new(Mirrors::open_arg(dir)?)),
                None => None,
            },
        },
        jobs: usize::from(args.jobs),
        give_up_after: args.give_up_after,
    })
}

/// Returns `--skipped`, else `STEM-skipped.csv` beside `--out`.
fn skipped_path(args: &CorpusBuildArgs) -> PathBuf {
    args.skipped
        .clone()
        .unwrap_or_else(|| skipped_beside(&args.out))
}

/// Returns the dates and history options of `--at` and `--since`, or `None` for a
/// corpus pinned now. `today` is the build's date, `--until`'s default.
fn dating(args: &CorpusBuildArgs, today: &str) -> Result<Option<Dating>> {
    if args.at.is_empty() && args.since.is_none() {
        return Ok(None);
    }
    let dates = history::dates(
        &args.at,
        args.since.as_deref(),
        args.every,
        args.until.as_deref(),
        today,
    )
    .map_err(UsageError)?;
    let cache = args.cache.clone().or_else(default_cache).ok_or_else(|| {
        UsageError("no user cache folder is known here; give --cache DIR".to_string())
    })?;
    Ok(Some(Dating {
        dates,
        history: history_options(args, cache),
    }))
}

/// Returns how histories are read into clones under `cache`.
fn history_options(args: &CorpusBuildArgs, cache: PathBuf) -> HistoryOptions {
    HistoryOptions {
        cache,
        timeout: Duration::from_secs(args.clone_timeout.max(1)),
        max_size: args.max_history.0,
        retries: args.retries,
        backoff: http::FIRST_BACKOFF,
    }
}

/// Runs `corpus registry` or `corpus list`.
pub fn run(args: &CorpusArgs) -> Result<ExitStatus> {
    let Config { source, build } = configure(args)?;
    match source {
        Source::Registry(registry) => run_registry(&registry, &build),
        Source::List(file) => run_list(&file, &build),
        Source::Packages(file) => run_packages(&file, &build),
    }
}

fn run_packages(file: &Path, build: &BuildConfig) -> Result<ExitStatus> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| UsageError(format!("reading the list '{}': {e}", file.display())))?;
    let wanted = shipped::parse_list(&file.display().to_string(), &text)?;
    let file_name = file
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned());
    let from = Provenance {
        command: "corpus packages".to_string(),
        source: format!("the list '{file_name}'"),
        date: build.date.clone(),
        read: wanted.len(),
        skipped_file: String::new(),
    };
    write_shipped(wanted, build.jobs, &build.out, &build.skipped, from)
}

/// Pins `wanted`, writes the corpus of what ships to `out` and its skipped list to
/// `skipped`, and reports. A list of which nothing could be pinned writes no corpus.
fn write_shipped(
    wanted: Vec<shipped::Wanted>,
    jobs: usize,
    out: &Path,
    skipped: &Path,
    mut from: Provenance,
) -> Result<ExitStatus> {
    let read = wanted.len();
    let mut pinned = shipped::pin_all(wanted, jobs)?;
    pinned.skipped.sort();
    write_bytes(skipped, &skipped_csv(&pinned.skipped)?)?;
    if pinned.pinned.is_empty() {
        bail!(
            "no package could be pinned, so '{}' was not written; '{}' says why",
            out.display(),
            skipped.display()
        );
    }
    from.skipped_file = skipped
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned());
    write_bytes(out, shipped::corpus_text(&pinned, &from).as_bytes())?;
    messages::note(format!(
        "corpus: {} read; {} pinned to their artifacts in '{}'; {} skipped, listed in '{}'",
        messages::count(read as u64, "package", "packages"),
        pinned.pinned.len(),
        sanitize(out.display().to_string()),
        pinned.skipped.len(),
        sanitize(skipped.display().to_string())
    ));
    if pinned.failures > 0 {
        messages::note(format!(
            "corpus: asking the index failed for {} after its retries; rerun to try them again",
            messages::count(pinned.failures as u64, "package", "packages")
        ));
        return Ok(ExitStatus::Failed);
    }
    Ok(ExitStatus::Ok)
}

fn run_registry(config: &RegistryConfig, build: &BuildConfig) -> Result<ExitStatus> {
    let date = &build.date;
    let (listing, source) = match &config.http {
        Some(options) => {
            let listing = registry::fetch_all(options)?;
            let source = format!(
                "the MCP Registry at {} ({}{} pages)",
                options.base.trim_end_matches('/'),
                if config.is_all_versions {
                    ""
                } else {
                    "version=latest, "
                },
                listing.pages
            );
            (listing, source)
        }
        None => {
            let listing = registry::read_saved(&config.pages, config.is_partial)?;
            let source = format!("{} saved MCP Registry answer pages", listing.pages);
            (listing, source)
        }
    };
    let chosen = candidates_of(&listing.entries, config.is_all_versions);
    if chosen.older > 0 {
        messages::note(format!(
            "corpus: {} left out, one row per server at its latest (--all-versions keeps them)",
            messages::count(chosen.older as u64, "older version", "older versions")
        ));
    }
    let (candidates, mut early) = (chosen.candidates, chosen.skipped);
    early.extend(listing.bad.iter().map(|b| Skip {
        name: b.name.clone(),
        version: String::new(),
        repository: String::new(),
        subfolder: String::new(),
        reason: b.why.clone(),
    }));
    let read = listing.entries.len() + listing.bad.len();
    let from = |skipped_file: String| Provenance {
        command: "corpus registry".to_string(),
        source: source.clone(),
        date: date.clone(),
        read,
        skipped_file,
    };
    // Remote-only servers need no pin: their endpoints are written whatever the
    // pinning gives, before it starts.
    if let Some(path) = &config.remotes {
        let text = remotes_text(&listing.entries, &from(String::new()));
        write_bytes(path, text.as_bytes())?;
    }
    // Written before pinning, so that a pinning that stops still leaves it, then
    // again with the commits pinned.
    let packages = |trees: &[BuiltTree]| -> Result<()> {
        if let Some(path) = &config.packages {
            let text =
                super::packages::packages_text(&listing.entries, &from(String::new()), trees);
            write_bytes(path, text.as_bytes())?;
        }
        Ok(())
    };
    packages(&[])?;
    // What ships needs no repository: it is pinned before the repositories are.
    let mut status = ExitStatus::Ok;
    if let Some((out, skipped)) = &config.shipped {
        let wanted = shipped::wanted_of_entries(&listing.entries, config.is_all_versions);
        let from = Provenance {
            command: "corpus registry --shipped".to_string(),
            source: source.clone(),
            date: date.clone(),
            read: wanted.len(),
            skipped_file: String::new(),
        };
        if wanted.is_empty() {
            messages::note(
                "corpus: the servers name no npm or PyPI package; --shipped wrote nothing",
            );
        } else {
            status = write_shipped(wanted, build.jobs, out, skipped, from)?;
        }
    }
    let repositories = match config.is_pinned {
        true => {
            packages(&pinned_trees(&build.out)?)?;
            ExitStatus::Ok
        }
        false => finish(build, candidates, early, read, &from, &packages)?,
    };
    Ok(match status {
        ExitStatus::Ok => repositories,
        failed => failed,
    })
}

fn run_list(file: &Path, build: &BuildConfig) -> Result<ExitStatus> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| UsageError(format!("reading the list '{}': {e}", file.display())))?;
    let entries = repo_list::parse(&file.display().to_string(), &text)?;
    let candidates: Vec<Candidate> = entries
        .into_iter()
        .map(|e| Candidate {
            name: e.name,
            repository: e.repository,
            subfolder: e.subfolder,
            version: None,
            published: None,
            want: e.want,
            origin: Some(format!("line {}", e.line)),
        })
        .collect();
    let read = candidates.len();
    let file_name = file
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned());
    let from = |skipped_file: String| Provenance {
        command: "corpus list".to_string(),
        source: format!("the list '{file_name}'"),
        date: build.date.clone(),
        read,
        skipped_file,
    };
    finish(build, candidates, Vec::new(), read, &from, &|_| Ok(()))
}

/// Pins `candidates`, writes the corpus and the skipped list, and reports.
/// Returns the repositories' trees of the corpus at `path`, as pinning them gave them:
/// each registry name a tree stands for (its own and those its note lists).
fn pinned_trees(path: &Path) -> Result<Vec<BuiltTree>> {
    let corpus = super::file::load(Some(path))
        .with_context(|| format!("reading the pinned trees of '{}'", path.display()))?;
    let trees = corpus.trees.into_iter().filter_map(|tree| {
        let super::file::Pin::Commit(commit) = &tree.pin else {
            return None;
        };
        let note = tree.note.clone().unwrap_or_default();
        let mut names: Vec<String> = tree.name.iter().cloned().collect();
        names.extend(
            super::build::also_listed(&note)
                .into_iter()
                .map(String::from),
        );
        names.sort();
        names.dedup();
        Some(BuiltTree {
            forge: forge_of(&tree.archive_url),
            repo: tree.repo,
            commit: commit.to_string(),
            subfolder: tree.subfolder,
            as_of: tree.as_of.map(|d| d.to_string()),
            committed: tree.committed,
            name: tree.name,
            names,
            note,
        })
    });
    Ok(trees.collect())
}

/// Returns the forge an archive URL of a corpus is served by.
fn forge_of(archive_url: &str) -> super::repo_url::Forge {
    use super::repo_url::Forge;
    [Forge::GitLab, Forge::Codeberg, Forge::Bitbucket]
        .into_iter()
        .find(|forge| archive_url.contains(&format!("//{}/", forge.host())))
        .unwrap_or(Forge::GitHub)
}

fn finish(
    config: &BuildConfig,
    candidates: Vec<Candidate>,
    early: Vec<Skip>,
    read: usize,
    from: &dyn Fn(String) -> Provenance,
    pinned: &dyn Fn(&[BuiltTree]) -> Result<()>,
) -> Result<ExitStatus> {
    let (out, skipped_path, dating) = (&config.out, &config.skipped, &config.dating);
    let breaker = Breaker::new(config.give_up_after);
    let mut built = build(
        candidates,
        &config.git,
        config.jobs,
        dating.as_ref(),
        config.history.as_ref(),
        &breaker,
    )?;
    built.skipped.extend(early);
    built.skipped.sort();
    built.skipped.dedup();
    let skipped_name = skipped_path
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned());
    write_bytes(skipped_path, &skipped_csv(&built.skipped)?)?;
    if let Some(cause) = &built.stopped {
        // What was pinned is still written: a rerun need not ask again for it.
        if !built.trees.is_empty() {
            write_bytes(out, corpus_text(&built, &from(skipped_name)).as_bytes())?;
            pinned(&built.trees)?;
        }
        bail!(
            "pinning stopped after {cause}; {} pinned{}, the rest listed as not tried in '{}'",
            messages::count(built.trees.len() as u64, "tree", "trees"),
            if built.trees.is_empty() {
                String::new()
            } else {
                format!(" and written to '{}'", out.display())
            },
            skipped_path.display()
        );
    }
    if built.trees.is_empty() {
        bail!(
            "no tree could be pinned, so '{}' was not written; '{}' says why",
            out.display(),
            skipped_path.display()
        );
    }
    write_bytes(out, corpus_text(&built, &from(skipped_name)).as_bytes())?;
    pinned(&built.trees)?;
    messages::note(format!(
        "corpus: {} read; {} written to '{}'; {} skipped, listed in '{}'",
        messages::count(read as u64, "entry", "entries"),
        messages::count(built.trees.len() as u64, "tree", "trees"),
        sanitize(out.display().to_string()),
        built.skipped.len(),
        sanitize(skipped_path.display().to_string())
    ));
    if built.failures > 0 {
        messages::note(format!(
            "corpus: {} failed for {} after its retries; rerun to try them again",
            if dating.is_some() {
                "reading the history"
            } else {
                "git ls-remote"
            },
            messages::count(built.failures as u64, "repository", "repositories")
        ));
        return Ok(ExitStatus::Failed);
    }
    Ok(ExitStatus::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &[&str]) -> CorpusArgs {
        use clap::Parser;
        let cli = crate::cli::Cli::try_parse_from(
            ["mcp-hint-census", "corpus"].iter().chain(line.iter()),
        )
        .expect("the test's command line parses");
        match cli.command {
            crate::cli::Command::Corpus(args) => args,
            other => panic!("not a corpus command: {other:?}"),
        }
    }

    fn usage_error(line: &[&str]) -> String {
        let err = configure(&args(line)).unwrap_err();
        assert!(err.downcast_ref::<UsageError>().is_some(), "{err:#}");
        format!("{err:#}")
    }

    #[test]
    fn the_options_of_a_list_become_one_config() {
        let config = configure(&args(&[
            "list",
            "repos.txt",
            "--out",
            "dir/c.toml",
            "--date",
            "2026-01-02",
            "-j",
            "3",
            "--retries",
            "5",
            "--timeout",
            "9",
            "--at",
            "2025-06-01",
            "--cache",
            "cache",
        ]))
        .unwrap();
        assert!(matches!(&config.source, Source::List(f) if f == Path::new("repos.txt")));
        let build = config.build;
        assert_eq!(build.out, PathBuf::from("dir/c.toml"));
        assert_eq!(build.skipped, PathBuf::from("dir/c-skipped.csv"));
        assert_eq!(build.date, "2026-01-02");
        assert_eq!((build.jobs, build.git.retries), (3, 5));
        assert_eq!(build.git.timeout, Duration::from_secs(9));
        let dating = build.dating.expect("--at dates the corpus");
        assert_eq!(dating.dates, ["2025-06-01"]);
        assert_eq!(dating.history.cache, PathBuf::from("cache"));
    }

    #[test]
    fn the_registry_is_asked_only_without_saved_pages() {
        let config = configure(&args(&["registry", "--out", "c.toml"])).unwrap();
        let Source::Registry(registry) = config.source else {
            panic!("not the registry")
        };
        let http = registry.http.expect("no pages: the registry is asked");
        assert_eq!(http.base, registry::DEFAULT_URL);
        assert!(http.is_latest_only);
        let config = configure(&args(&[
            "registry",
            "--pages",
            "p.json",
            "--partial",
            "--out",
            "c.toml",
        ]))
        .unwrap();
        let Source::Registry(registry) = config.source else {
            panic!("not the registry")
        };
        assert!(registry.http.is_none() && registry.is_partial);
        assert_eq!(registry.pages, [PathBuf::from("p.json")]);
    }

    #[test]
    fn clashing_outputs_and_bad_dates_are_usage_errors_before_anything_is_read() {
        assert!(
            usage_error(&["list", "l.txt", "--out", "c.toml", "--skipped", "c.toml"])
                .contains("--skipped and --out are both 'c.toml'")
        );
        assert!(usage_error(&[
            "registry",
            "--pages",
            "p.json",
            "--out",
            "c.toml",
            "--remotes",
            "c-skipped.csv",
        ])
        .contains("is also the corpus or the skipped list"));
        assert!(usage_error(&[
            "list",
            "l.txt",
            "--out",
            "c.toml",
            "--since",
            "2026-03-01",
            "--every",
            "1month",
            "--until",
            "2026-01-01",
            "--cache",
            "cache",
        ])
        .contains("--since 2026-03-01 is after --until 2026-01-01"));
    }
}
