//! Builds a pinned corpus file for `census` from the MCP Registry or from a list of
//! repositories: `corpus registry` and `corpus list`.
//!
//! Candidates (a registry entry or a list line) are normalised by `repo_url`,
//! pinned by `pin` (one `git ls-remote` per repository, in parallel) or, at past
//! dates, by `history` (one commits-only clone per repository), reduced to one tree
//! per (repository, commit, subfolder, date), sorted and written with a list of
//! what was skipped and why. From the registry it also writes the servers'
//! Streamable HTTP endpoints for the probe. It never writes a wall-clock time, so
//! the same input and the same refs give the same bytes. It does not count.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use rayon::prelude::*;

use crate::archive;
use crate::cli::{CorpusArgs, CorpusBuildArgs, CorpusSource};
use crate::corpus::default_cache;
use crate::corpus::file::DEFAULT_ARCHIVE_URL;
use crate::corpus::history::{self, FirstParent, HistoryOptions};
use crate::corpus::pin::{self, GitOptions, Listing, Want};
use crate::corpus::registry::{self, Entry};
use crate::corpus::repo_list;
use crate::corpus::repo_url::{self, Forge, RepoUrl};
use crate::count::terms::{DEFAULT_CONTROLS, DEFAULT_TERMS};
use crate::fetch::http::{self, Breaker};
use crate::infra::atomic::write_bytes;
use crate::infra::date;
use crate::infra::error::{ExitStatus, UsageError};
use crate::infra::messages;
use crate::infra::process::Failure;
use crate::infra::sanitize::sanitize;
use crate::table::NotYet;

/// Holds one thing to pin: a registry entry or a line of a list.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// The registry name, or a list line's `name=`.
    pub name: Option<String>,
    /// The repository as given.
    pub repository: String,
    pub subfolder: Option<String>,
    /// The registry entry's version, for the skipped list.
    pub version: Option<String>,
    pub want: Want,
    /// Where it came from when that helps a reader (`line 3`), put before a skip's reason.
    pub origin: Option<String>,
}

/// Holds a candidate that gave no tree, and why.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Skip {
    pub name: String,
    /// The registry entry's version, or empty.
    pub version: String,
    /// The repository as given, any password removed.
    pub repository: String,
    /// The subfolder as given, or empty.
    pub subfolder: String,
    pub reason: String,
}

/// Holds one tree of the corpus to write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuiltTree {
    /// `owner/name`.
    pub repo: String,
    pub forge: Forge,
    /// 40 lower-case hex digits.
    pub commit: String,
    pub subfolder: Option<String>,
    /// The date the commit stands for, `YYYY-MM-DD`.
    pub as_of: Option<String>,
    /// The commit's committer time, Unix seconds, for a dated tree.
    pub committed: Option<i64>,
    pub name: Option<String>,
    /// Every registry name the tree was pinned for (`name` and the others its note
    /// lists), sorted: what joins a registry entry to its tree.
    pub names: Vec<String>,
    pub note: String,
}

/// Holds the outcome of pinning every candidate.
#[derive(Debug, Default)]
pub struct Built {
    /// Sorted by repository (ASCII case-insensitively), subfolder, date, commit.
    pub trees: Vec<BuiltTree>,
    /// Sorted.
    pub skipped: Vec<Skip>,
    /// The trees at dates before their repository's first commit, sorted.
    pub not_yet: Vec<NotYet>,
    /// How many repositories `git ls-remote` could not list for a reason that may
    /// pass (a timeout, the network), after its retries.
    pub failures: usize,
    /// Why pinning stopped before every repository was tried, when it did.
    pub stopped: Option<String>,
}

/// Holds the registry entries chosen to pin.
#[derive(Debug, Default)]
pub struct Chosen {
    pub candidates: Vec<Candidate>,
    pub skipped: Vec<Skip>,
    /// How many entries were left out as older versions of a server.
    pub older: usize,
}

/// Returns the candidates of registry entries: one per server, at the version the
/// registry marks `isLatest`, unless `is_all_versions` keeps every version. An entry
/// given twice (the same name and version) counts once; a server whose entries say
/// nothing of `isLatest` keeps them all. An entry whose `status` is not `active`,
/// or that has no repository, becomes a skip.
pub fn candidates_of(entries: &[Entry], is_all_versions: bool) -> Chosen {
    let mut chosen = Chosen::default();
    let mut seen: BTreeSet<(&str, Option<&str>)> = BTreeSet::new();
    let unique: Vec<&Entry> = entries
        .iter()
        .filter(|e| seen.insert((e.name.as_str(), e.version.as_deref())))
        .collect();
    let mut by_name: BTreeMap<&str, Vec<&Entry>> = BTreeMap::new();
    for entry in &unique {
        by_name.entry(entry.name.as_str()).or_default().push(entry);
    }
    let skip = |entry: &Entry, reason: String| Skip {
        name: entry.name.clone(),
        version: entry.version.clone().unwrap_or_default(),
        repository: entry
            .repository
            .as_deref()
            .map(repo_url::redact)
            .unwrap_or_default(),
        subfolder: entry.subfolder.clone().unwrap_or_default(),
        reason,
    };
    for entry in unique {
        let versions = &by_name[entry.name.as_str()];
        let knows_latest = versions.iter().any(|e| e.is_latest.is_some());
        if !is_all_versions && knows_latest && entry.is_latest != Some(true) {
            if versions.iter().any(|e| e.is_latest == Some(true)) {
                chosen.older += 1;
            } else if versions
                .first()
                .is_some_and(|first| std::ptr::eq(*first, entry))
            {
                chosen.skipped.push(skip(
                    entry,
                    "no version marked isLatest among the pages read".to_string(),
                ));
            } else {
                chosen.older += 1;
            }
            continue;
        }
        if let Some(status) = entry.status.as_deref().filter(|s| *s != "active") {
            chosen
                .skipped
                .push(skip(entry, format!("status '{}'", sanitize(status))));
            continue;
        }
        match &entry.repository {
            Some(url) => chosen.candidates.push(Candidate {
                name: Some(entry.name.clone()),
                repository: url.clone(),
                subfolder: entry.subfolder.clone(),
                version: entry.version.clone(),
                want: Want::Version(
                    entry.version.clone(),
                    entry
                        .packages
                        .iter()
                        .map(|p| p.identifier.clone())
                        .collect(),
                ),
                origin: None,
            }),
            None => chosen
                .skipped
                .push(skip(entry, "no repository".to_string())),
        }
    }
    chosen
}

/// A candidate whose repository is on a known forge.
struct Ready {
    candidate: Candidate,
    url: RepoUrl,
}

/// A candidate pinned to a commit.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Pinned {
    forge: Forge,
    /// Unnamed candidates sort after named ones.
    is_unnamed: bool,
    /// A name whose namespace is not the repository's owner (a republisher's,
    /// `ai.smithery/brave` for `brave/brave-search-mcp-server`) sorts after the
    /// owner's own (`io.github.brave/...`).
    is_other_namespace: bool,
    name: String,
    how: String,
    repo: String,
    committed: Option<i64>,
}

/// Says that a corpus is pinned at past dates, and how history is read.
#[derive(Clone, Debug)]
pub struct Dating {
    /// `YYYY-MM-DD`, sorted, each once.
    pub dates: Vec<String>,
    pub history: HistoryOptions,
}

/// What one repository's refs or history gave.
enum Answer {
    Listing(Listing),
    History(FirstParent),
}

/// Pins `candidates`, `jobs` repositories at a time: to their refs now, or with
/// `dating` to their default branch at the end of each date.
///
/// `breaker` stops the pinning once the network looks dead: the repositories not
/// yet tried are skipped as not tried, and [`Built::stopped`] says why.
pub fn build(
    candidates: Vec<Candidate>,
    git: &GitOptions,
    jobs: usize,
    dating: Option<&Dating>,
    breaker: &Breaker,
) -> Result<Built> {
    let mut built = Built::default();
    let groups = group(candidates, &mut built);
    // One spelling per repository, so that its trees agree: the spelling of the
    // entry whose name sorts first.
    let work: Vec<(RepoUrl, Vec<String>)> = groups
        .values()
        .map(|members| {
            let first = members
                .iter()
                .min_by_key(|r| {
                    (
                        r.candidate.name.clone().unwrap_or_default(),
                        r.url.repo.clone(),
                    )
                })
                .map(|r| r.url.clone())
                .expect("a group has at least one member");
            let patterns = pin::patterns(members.iter().map(|r| &r.candidate.want));
            (first, patterns)
        })
        .collect();
    let answers = ask(&work, git, jobs, dating, breaker)?;
    let mut trees = Trees::new();
    for ((members, (spelling, _)), answer) in groups.values().zip(&work).zip(&answers) {
        let answer = match answer {
            Ok(answer) => answer,
            Err(failure) => {
                if pin::may_pass(failure) {
                    built.failures += 1;
                }
                for r in members {
                    built.skipped.push(skip(&r.candidate, failure.to_string()));
                }
                continue;
            }
        };
        for r in members {
            let pins = pins_of(r, answer, dating);
            place(r, spelling, answer, pins, &mut trees, &mut built);
        }
    }
    for (slot, members) in trees {
        let tree = tree_of(slot, members, &mut built);
        built.trees.push(tree);
    }
    built.stopped = breaker.cause();
    built.skipped.sort();
    built.skipped.dedup();
    built.not_yet.sort();
    built.not_yet.dedup();
    Ok(built)
}

/// Returns the candidates whose repository is on a known forge, grouped by
/// repository; the others go to the skipped list, as do those of a bad subfolder.
fn group(candidates: Vec<Candidate>, built: &mut Built) -> BTreeMap<(Forge, String), Vec<Ready>> {
    let mut groups: BTreeMap<(Forge, String), Vec<Ready>> = BTreeMap::new();
    for candidate in candidates {
        let url = match repo_url::parse(&candidate.repository) {
            Ok(url) => url,
            Err(problem) => {
                built.skipped.push(skip(&candidate, problem.to_string()));
                continue;
            }
        };
        if let Some(sub) = &candidate.subfolder {
            if let Err(why) = archive::check_subfolder(sub) {
                let reason = format!("subfolder {why}");
                built.skipped.push(skip(&candidate, reason));
                continue;
            }
        }
        groups
            .entry(url.key())
            .or_default()
            .push(Ready { candidate, url });
    }
    groups
}

/// Returns what each repository of `work` answers, `jobs` at a time: its refs that
/// match its patterns, or with `dating` its default branch's first-parent history.
fn ask(
    work: &[(RepoUrl, Vec<String>)],
    git: &GitOptions,
    jobs: usize,
    dating: Option<&Dating>,
    breaker: &Breaker,
) -> Result<Vec<Result<Answer, Failure>>> {
    if dating.is_some() || work.iter().any(|(_, patterns)| !patterns.is_empty()) {
        pin::check_git()?;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .context("starting the worker threads")?;
    Ok(pool.install(|| {
        work.par_iter()
            .map(|(url, patterns)| match dating {
                Some(dating) => {
                    let clone =
                        history::clone_path(&dating.history.cache, url.forge.host(), &url.repo);
                    history::first_parent(&url.remote_url(), &clone, &dating.history)
                        .map(Answer::History)
                }
                None if patterns.is_empty() => Ok(Answer::Listing(Listing::default())),
                None => {
                    pin::ls_remote(&url.remote_url(), patterns, git, breaker).map(Answer::Listing)
                }
            })
            .collect()
    }))
}

/// Returns candidate `r`'s pins in `answer`, by date (`None` undated): one for its
/// refs, or one per date of `dating` for the history.
fn pins_of(
    r: &Ready,
    answer: &Answer,
    dating: Option<&Dating>,
) -> Vec<(Option<String>, Result<pin::Pin, String>)> {
    match answer {
        Answer::Listing(listing) => vec![(None, pin::choose(listing, &r.candidate.want))],
        Answer::History(line) => match &r.candidate.want {
            Want::Version(..) => dating
                .map(|d| d.dates.as_slice())
                .unwrap_or_default()
                .iter()
                .map(|day| (Some(day.clone()), dated_pin(line, day)))
                .collect(),
            Want::Ref(name) | Want::Commit(name) => vec![(
                None,
                Err(format!(
                    "ref={name}: a dated corpus follows the default branch, so a line may not name a ref"
                )),
            )],
        },
    }
}

/// Returns the tree of `slot`, named after its first member (the owner's own name
/// when there is one) with the others' names in its note; a member on another forge
/// with the same owner/name goes to the skipped list.
fn tree_of(slot: Slot, mut members: Vec<Pinned>, built: &mut Built) -> BuiltTree {
    members.sort();
    let first = &members[0];
    let (forge, repo, how) = (first.forge, first.repo.clone(), first.how.clone());
    let committed = first.committed;
    let mut names = BTreeSet::new();
    for m in &members {
        if m.forge != forge {
            built.skipped.push(Skip {
                name: m.name.clone(),
                version: String::new(),
                repository: format!("https://{}/{}", m.forge.host(), m.repo),
                subfolder: slot.subfolder.clone().unwrap_or_default(),
                reason: format!(
                    "the tree of '{}' on {} has the same owner/name, commit and subfolder",
                    repo,
                    forge.host()
                ),
            });
        } else if !m.is_unnamed {
            names.insert(m.name.clone());
        }
    }
    let name = (!first.is_unnamed).then(|| first.name.clone());
    let others: Vec<String> = names
        .iter()
        .filter(|n| Some(*n) != name.as_ref())
        .cloned()
        .collect();
    let note = if others.is_empty() {
        how
    } else {
        format!("{how}; also listed as {}", others.join(", "))
    };
    BuiltTree {
        repo,
        forge,
        commit: slot.commit,
        subfolder: slot.subfolder,
        as_of: slot.as_of,
        committed,
        name,
        names: names.into_iter().collect(),
        note,
    }
}

/// Returns the skipped-list line of candidate `c`, for `reason`.
fn skip(c: &Candidate, reason: String) -> Skip {
    Skip {
        name: c.name.clone().unwrap_or_default(),
        version: c.version.clone().unwrap_or_default(),
        repository: repo_url::redact(&c.repository),
        subfolder: c.subfolder.clone().unwrap_or_default(),
        reason: match &c.origin {
            Some(origin) => format!("{origin}: {reason}"),
            None => reason,
        },
    }
}

/// Where a pin files its candidate: the trees of a corpus, in their order.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Slot {
    /// `owner/name`, lower-case.
    repo: String,
    subfolder: Option<String>,
    /// `YYYY-MM-DD`, or `None` undated.
    as_of: Option<String>,
    commit: String,
}

/// The candidates pinned, by the tree they pin.
type Trees = BTreeMap<Slot, Vec<Pinned>>;

/// Files each of candidate `r`'s pins (by date, `None` undated) under its tree, or
/// its failure in the skipped list; a date before the first commit of the history
/// `answer` holds is also kept as a tree with no commit yet.
fn place(
    r: &Ready,
    spelling: &RepoUrl,
    answer: &Answer,
    pins: Vec<(Option<String>, Result<pin::Pin, String>)>,
    trees: &mut Trees,
    built: &mut Built,
) {
    for (as_of, pinned) in pins {
        match pinned {
            Ok(p) => {
                let key = Slot {
                    repo: spelling.repo.to_ascii_lowercase(),
                    subfolder: r.candidate.subfolder.clone(),
                    as_of,
                    commit: p.commit,
                };
                let name = r.candidate.name.as_deref().unwrap_or_default();
                trees.entry(key).or_default().push(Pinned {
                    forge: spelling.forge,
                    is_unnamed: r.candidate.name.is_none(),
                    is_other_namespace: !is_owners_name(name, &spelling.repo),
                    name: r.candidate.name.clone().unwrap_or_default(),
                    how: p.how,
                    repo: spelling.repo.clone(),
                    committed: p.committed,
                });
            }
            Err(why) => {
                // A date before the line's first commit: the repository had
                // none yet, which the census reports beside its rows.
                if let (Answer::History(line), Some(as_of)) = (answer, &as_of) {
                    if let Some(&(first_commit, _)) = line.commits.last() {
                        built.not_yet.push(NotYet {
                            repo: spelling.repo.clone(),
                            subfolder: r.candidate.subfolder.clone().unwrap_or_default(),
                            as_of: as_of.clone(),
                            first_commit,
                        });
                    }
                }
                built.skipped.push(skip(&r.candidate, why));
            }
        }
    }
}

/// Returns true when registry name `name`'s namespace (before the `/`) ends in
/// the owner of `repo` (`io.github.brave/x` for `brave/...`), compared ASCII
/// case-insensitively.
fn is_owners_name(name: &str, repo: &str) -> bool {
    let owner = repo.split('/').next().unwrap_or_default();
    let namespace = name.split('/').next().unwrap_or_default();
    let last = namespace.rsplit('.').next().unwrap_or_default();
    name.contains('/') && !owner.is_empty() && last.eq_ignore_ascii_case(owner)
}

/// Returns the pin of the default branch at the end of `day`; the error names the
/// date, for the skipped list.
fn dated_pin(line: &FirstParent, day: &str) -> Result<pin::Pin, String> {
    let dated = line.at(day)?;
    Ok(pin::Pin {
        commit: dated.commit,
        how: format!(
            "default branch at the end of {day} (UTC): first-parent commit of {} UTC",
            date::utc_time(dated.time)
        ),
        committed: Some(dated.time),
    })
}

/// Returns `text` as a TOML basic string, quoted and escaped.
pub fn toml_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn toml_list(items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|t| toml_string(t)).collect();
    format!("[{}]", quoted.join(", "))
}

/// Says where a corpus came from, for the comment that opens it.
pub struct Provenance {
    /// The command, e.g. `corpus registry`.
    pub command: String,
    /// The source in words, e.g. `the MCP Registry at https://...`.
    pub source: String,
    /// `YYYY-MM-DD`.
    pub date: String,
    /// How many entries or lines were read.
    pub read: usize,
    /// The skipped list's file name.
    pub skipped_file: String,
}

/// Returns the corpus file: a comment saying how it was built, `[census]` with
/// the default terms and controls, and one `[[tree]]` per tree.
pub fn corpus_text(built: &Built, from: &Provenance) -> String {
    let mut out = String::new();
    let line = |out: &mut String, text: &str| {
        out.push_str("# ");
        out.push_str(&sanitize(text));
        out.push('\n');
    };
    line(
        &mut out,
        &format!(
            "Built by `mcp-hint-census {}` from {} on {}.",
            from.command, from.source, from.date
        ),
    );
    line(
        &mut out,
        &format!(
            "{} read; {}; {} skipped, listed in {}.",
            messages::count(from.read as u64, "entry", "entries"),
            messages::count(built.trees.len() as u64, "tree", "trees"),
            built.skipped.len(),
            from.skipped_file
        ),
    );
    if built.trees.iter().any(|t| t.as_of.is_some()) {
        out.push_str(
            "# Each commit is the one the default branch pointed to at the end of its tree's\n\
             # as_of date (23:59:59 UTC): walking the first-parent history from today's tip, the\n\
             # first commit whose committer date is at or before it, read from a commits-only\n\
             # clone. Each tree's note gives that commit's date.\n\n",
        );
    } else {
        out.push_str(
            "# Each commit was resolved with git ls-remote: the release tag of the server's version\n\
             # (v{version}, {version}, then tags named after its packages) when there is one, else\n\
             # the default branch's HEAD, or the ref a list names. Each tree's note says which.\n\n",
        );
    }
    out.push_str("[census]\n");
    out.push_str(&format!(
        "archive_url = {}\n",
        toml_string(DEFAULT_ARCHIVE_URL)
    ));
    out.push_str(&format!("terms = {}\n", toml_list(&DEFAULT_TERMS)));
    out.push_str(&format!("controls = {}\n", toml_list(&DEFAULT_CONTROLS)));
    for tree in &built.trees {
        out.push_str("\n[[tree]]\n");
        out.push_str(&format!("repo = {}\n", toml_string(&tree.repo)));
        out.push_str(&format!("commit = {}\n", toml_string(&tree.commit)));
        if let Some(sub) = &tree.subfolder {
            out.push_str(&format!("subfolder = {}\n", toml_string(sub)));
        }
        if let Some(as_of) = &tree.as_of {
            out.push_str(&format!("as_of = {}\n", toml_string(as_of)));
        }
        if let Some(time) = tree.committed {
            out.push_str(&format!(
                "committed = {}\n",
                toml_string(&date::rfc3339(time))
            ));
        }
        if let Some(name) = &tree.name {
            out.push_str(&format!("name = {}\n", toml_string(name)));
        }
        out.push_str(&format!("note = {}\n", toml_string(&tree.note)));
        if let Some(template) = tree.forge.archive_template() {
            out.push_str(&format!("archive_url = {}\n", toml_string(template)));
        }
    }
    if !built.not_yet.is_empty() {
        out.push_str(
            "\n# The repositories that had no commit on the default branch yet at a date: no\n\
             # tree to count, reported beside the trees that were.\n",
        );
    }
    for gap in &built.not_yet {
        out.push_str("\n[[no_commit_yet]]\n");
        out.push_str(&format!("repo = {}\n", toml_string(&gap.repo)));
        if !gap.subfolder.is_empty() {
            out.push_str(&format!("subfolder = {}\n", toml_string(&gap.subfolder)));
        }
        out.push_str(&format!("as_of = {}\n", toml_string(&gap.as_of)));
        let first = date::rfc3339(gap.first_commit);
        out.push_str(&format!("first_commit = {}\n", toml_string(&first)));
    }
    out
}

/// Returns the skipped list as CSV: `name,version,repository,subfolder,reason`.
pub fn skipped_csv(skipped: &[Skip]) -> Result<Vec<u8>> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(["name", "version", "repository", "subfolder", "reason"])?;
    for s in skipped {
        writer.write_record([&s.name, &s.version, &s.repository, &s.subfolder, &s.reason])?;
    }
    writer.into_inner().context("writing the skipped list")
}

/// Returns the servers file for `probe --servers`: one `[[server]]` with `name` and
/// `url` per Streamable HTTP endpoint. No header value is ever written; a server
/// that declares headers gets a comment naming them.
pub fn remotes_text(entries: &[Entry], from: &Provenance) -> String {
    let mut endpoints: BTreeMap<&str, BTreeMap<&str, Vec<&registry::Header>>> = BTreeMap::new();
    for entry in entries {
        for remote in &entry.remotes {
            if remote.kind == "streamable-http" {
                endpoints
                    .entry(entry.name.as_str())
                    .or_default()
                    .entry(remote.url.as_str())
                    .or_insert_with(|| remote.headers.iter().collect());
            }
        }
    }
    let mut out = String::new();
    out.push_str(&format!(
        "# Streamable HTTP endpoints of the servers in {}, {}, for `probe --servers`.\n",
        sanitize(&from.source),
        from.date
    ));
    out.push_str(
        "# No header value is written. A server that declares headers has a comment naming\n\
         # them; to send one, add e.g. headers = { Authorization = { env = \"MY_TOKEN\" } }.\n\
         # URL templates with {variables} and SSE-only endpoints are left out.\n",
    );
    for (name, urls) in endpoints {
        for (i, (url, headers)) in urls.into_iter().enumerate() {
            let label = if i == 0 {
                name.to_string()
            } else {
                format!("{name}#{}", i + 1)
            };
            out.push('\n');
            let is_http = url.starts_with("https://") || url.starts_with("http://");
            if !is_http
                || url.contains('{')
                || url.chars().any(|c| c.is_whitespace() || c.is_control())
            {
                out.push_str(&format!(
                    "# {}: '{}' is not a plain http(s) URL (a template?); left out\n",
                    sanitize(&label),
                    sanitize(url)
                ));
                continue;
            }
            for h in headers {
                let kind = match (h.is_required, h.is_secret) {
                    (true, true) => "required, secret",
                    (true, false) => "required",
                    (false, true) => "optional, secret",
                    (false, false) => "optional",
                };
                out.push_str(&format!(
                    "# needs header '{}' ({kind})\n",
                    sanitize(&h.name)
                ));
            }
            out.push_str("[[server]]\n");
            out.push_str(&format!("name = {}\n", toml_string(&label)));
            out.push_str(&format!("url = {}\n", toml_string(url)));
        }
    }
    out
}

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
    Registry(RegistryConfig),
    /// A list of repositories, one a line.
    List(PathBuf),
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
            for (flag, path) in [("--remotes", &a.remotes), ("--packages", &a.packages)] {
                let Some(path) = path else { continue };
                if *path == a.build.out || *path == skipped_path(&a.build) {
                    return Err(UsageError(format!(
                        "{flag} '{}' is also the corpus or the skipped list",
                        path.display()
                    ))
                    .into());
                }
            }
            if a.remotes.is_some() && a.remotes == a.packages {
                return Err(
                    UsageError("--remotes and --packages name the same file".to_string()).into(),
                );
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
            };
            Ok(Config {
                source: Source::Registry(registry),
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
    }
}

/// Returns the validated options every source shares, for a build on `date`.
fn configure_build(args: &CorpusBuildArgs, date: String) -> Result<BuildConfig> {
    let dating = dating(args, &date)?;
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
        git: GitOptions {
            timeout: Duration::from_secs(args.timeout.max(1)),
            retries: args.retries,
            backoff: http::FIRST_BACKOFF,
        },
        jobs: usize::from(args.jobs),
        give_up_after: args.give_up_after,
    })
}

/// Returns `--skipped`, else `STEM-skipped.csv` beside `--out`.
fn skipped_path(args: &CorpusBuildArgs) -> PathBuf {
    args.skipped.clone().unwrap_or_else(|| {
        let stem = args
            .out
            .file_stem()
            .map_or("corpus".into(), |s| s.to_string_lossy().into_owned());
        args.out.with_file_name(format!("{stem}-skipped.csv"))
    })
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
        history: HistoryOptions {
            cache,
            timeout: Duration::from_secs(args.clone_timeout.max(1)),
            max_size: args.max_history.0,
            retries: args.retries,
            backoff: http::FIRST_BACKOFF,
        },
    }))
}

/// Runs `corpus registry` or `corpus list`.
pub fn run(args: &CorpusArgs) -> Result<ExitStatus> {
    let Config { source, build } = configure(args)?;
    match source {
        Source::Registry(registry) => run_registry(&registry, &build),
        Source::List(file) => run_list(&file, &build),
    }
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
    finish(build, candidates, early, read, &from, &packages)
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
    use proptest::prelude::*;

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

    proptest! {
        #[test]
        fn toml_strings_read_back_as_written(text in any::<String>()) {
            let doc = format!("k = {}\n", toml_string(&text));
            let value: toml::Value = toml::from_str(&doc).unwrap();
            prop_assert_eq!(value["k"].as_str(), Some(text.as_str()));
        }
    }

    fn entry(name: &str, remotes: Vec<registry::Remote>) -> Entry {
        Entry {
            name: name.into(),
            version: None,
            repository: None,
            subfolder: None,
            remotes,
            packages: Vec::new(),
            is_latest: None,
            status: None,
        }
    }

    fn remote(kind: &str, url: &str, headers: Vec<registry::Header>) -> registry::Remote {
        registry::Remote {
            kind: kind.into(),
            url: url.into(),
            headers,
        }
    }

    #[test]
    fn remotes_never_carry_header_values() {
        let secret = registry::Header {
            name: "Authorization".into(),
            is_required: true,
            is_secret: true,
        };
        let entries = vec![
            entry(
                "b/x",
                vec![remote(
                    "streamable-http",
                    "https://b.example/mcp",
                    vec![secret],
                )],
            ),
            entry(
                "a/y",
                vec![
                    remote("sse", "https://a.example/sse", vec![]),
                    remote("streamable-http", "https://a.example/mcp", vec![]),
                    remote("streamable-http", "https://a2.example/mcp", vec![]),
                    remote("streamable-http", "https://{tenant}.example/mcp", vec![]),
                ],
            ),
        ];
        let from = Provenance {
            command: "corpus registry".into(),
            source: "the registry".into(),
            date: "2026-11-30".into(),
            read: 2,
            skipped_file: String::new(),
        };
        let text = remotes_text(&entries, &from);
        let value: toml::Value = toml::from_str(&text).unwrap();
        let servers = value["server"].as_array().unwrap();
        let got: Vec<(&str, &str)> = servers
            .iter()
            .map(|s| (s["name"].as_str().unwrap(), s["url"].as_str().unwrap()))
            .collect();
        assert_eq!(
            got,
            [
                ("a/y", "https://a.example/mcp"),
                ("a/y#2", "https://a2.example/mcp"),
                ("b/x", "https://b.example/mcp")
            ]
        );
        assert!(servers.iter().all(|s| s.as_table().unwrap().len() == 2));
        assert!(
            text.contains(
                "# needs header 'Authorization' (required, secret)\n[[server]]\nname = \"b/x\""
            ),
            "{text}"
        );
        assert!(
            text.contains("'https://{tenant}.example/mcp' is not a plain http(s) URL"),
            "{text}"
        );
        assert!(!text.contains("sse"), "{text}");
    }
}
