//! Builds a pinned corpus file for `census` from the MCP Registry or from a list of
//! repositories: `corpus registry` and `corpus list`.
//!
//! Candidates (a registry entry or a list line) are normalised by `repo_url`,
//! pinned by `pin` (one `git ls-remote` per repository, in parallel) or, at past
//! dates, by `history` (one commits-only clone per repository), reduced to one tree
//! per (repository, commit, subfolder, date), sorted and written with a list of
//! what was skipped and why (the text is `text`'s, the command around it
//! `command`'s). It never writes a wall-clock time, so the same input and the same
//! refs give the same bytes. It does not count.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Context, Result};
use rayon::prelude::*;

use crate::archive;
use crate::corpus::history::{self, FirstParent, HistoryOptions};
use crate::corpus::pin::{self, GitOptions, Listing, Want};
use crate::corpus::registry::Entry;
use crate::corpus::repo_url::{self, Forge, RepoUrl};
use crate::fetch::http::Breaker;
use crate::infra::date;
use crate::infra::process::{Cause, Failure};
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
    /// The day (`YYYY-MM-DD`, UTC) the registry entry's version was published: a
    /// version with no release tag is pinned at its default branch as it stood at
    /// that day's end, never at the day of the build.
    pub published: Option<String>,
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
                published: entry.published.clone(),
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
/// `dating` to their default branch at the end of each date. Undated, a version
/// with no release tag and a `published` day is pinned at its default branch at
/// the end of that day, from the history `history` says how to read; without
/// `history` it stays at HEAD and its note says so.
///
/// `breaker` stops the pinning once the network looks dead: the repositories not
/// yet tried are skipped as not tried, and [`Built::stopped`] says why.
pub fn build(
    candidates: Vec<Candidate>,
    git: &GitOptions,
    jobs: usize,
    dating: Option<&Dating>,
    history: Option<&HistoryOptions>,
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
    let lines = match (dating, history) {
        (None, Some(history)) => published_lines(&groups, &work, &answers, git, history, jobs)?,
        _ => Vec::new(),
    };
    let mut trees = Trees::new();
    for (i, ((members, (spelling, _)), answer)) in
        groups.values().zip(&work).zip(&answers).enumerate()
    {
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
        let line = lines.get(i).and_then(Option::as_ref);
        if line.is_some_and(|line| line.as_ref().is_err_and(pin::may_pass)) {
            built.failures += 1;
        }
        for r in members {
            let pins = pins_of(r, answer, dating, line);
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
    let pool = workers(jobs)?;
    Ok(pool.install(|| {
        work.par_iter()
            .map(|(url, patterns)| match dating {
                Some(dating) => history_of(url, git, &dating.history).map(Answer::History),
                None if patterns.is_empty() => Ok(Answer::Listing(Listing::default())),
                None => remote(url, git)
                    .and_then(|remote| pin::ls_remote(&remote, patterns, git, breaker))
                    .map(Answer::Listing),
            })
            .collect()
    }))
}

/// Returns, for each repository of `groups` (in `work`'s order), its default
/// branch's first-parent history when one of its versions was published on a
/// known day and has no release tag among the refs `answers` listed; `None` for
/// the others, whose history is not read. `jobs` histories are read at a time.
fn published_lines(
    groups: &BTreeMap<(Forge, String), Vec<Ready>>,
    work: &[(RepoUrl, Vec<String>)],
    answers: &[Result<Answer, Failure>],
    git: &GitOptions,
    history: &HistoryOptions,
    jobs: usize,
) -> Result<Vec<Option<Result<FirstParent, Failure>>>> {
    let wanted: Vec<bool> = groups
        .values()
        .zip(answers)
        .map(|(members, answer)| match answer {
            Ok(Answer::Listing(listing)) => members.iter().any(|r| {
                r.candidate.published.is_some()
                    && pin::choose(listing, &r.candidate.want)
                        .is_ok_and(|p| p.head_because.is_some())
            }),
            _ => false,
        })
        .collect();
    if !wanted.contains(&true) {
        return Ok(Vec::new());
    }
    let pool = workers(jobs)?;
    Ok(pool.install(|| {
        work.par_iter()
            .zip(&wanted)
            .map(|((url, _), &is_wanted)| is_wanted.then(|| history_of(url, git, history)))
            .collect()
    }))
}

/// Returns `url`'s default branch's first-parent history, from its clone in the
/// cache, fetched from its mirror or its forge (see [`remote`]).
fn history_of(
    url: &RepoUrl,
    git: &GitOptions,
    history: &HistoryOptions,
) -> Result<FirstParent, Failure> {
    let clone = history::clone_path(&history.cache, url.forge.host(), &url.repo);
    history::first_parent(&remote(url, git)?, &clone, history)
}

/// Returns the address git asks for `url`: its mirror's folder under `--mirrors`
/// (one without a mirror fails, and the forge is not asked), else the forge's.
fn remote(url: &RepoUrl, git: &GitOptions) -> Result<String, Failure> {
    match &git.mirrors {
        Some(mirrors) => mirrors
            .remote(&url.repo)
            .map_err(|why| Failure::new("git", Cause::Output(why))),
        None => Ok(url.remote_url()),
    }
}

/// Returns a pool of `jobs` worker threads (at least one), for asking the forges.
fn workers(jobs: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .context("starting the worker threads")
}

/// Returns candidate `r`'s pins in `answer`, by date (`None` undated): one for its
/// refs, or one per date of `dating` for the history. Undated, a version that fell
/// to HEAD and has a published day is moved to that day along `line`.
fn pins_of(
    r: &Ready,
    answer: &Answer,
    dating: Option<&Dating>,
    line: Option<&Result<FirstParent, Failure>>,
) -> Vec<(Option<String>, Result<pin::Pin, String>)> {
    match answer {
        Answer::Listing(listing) => {
            let chosen = pin::choose(listing, &r.candidate.want);
            let pinned = match (chosen, r.candidate.published.as_deref(), line) {
                (Ok(head), Some(day), Some(line)) if head.head_because.is_some() => {
                    published_pin(head, day, line)
                }
                (chosen, ..) => chosen,
            };
            vec![(None, pinned)]
        }
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

/// What a tree's note says before the names of the other servers it stands for.
const ALSO_LISTED: &str = "; also listed as ";

/// Returns the other servers a tree's note names, as [`tree_of`] writes them: a
/// tree is named after one server, and the others that pinned the same commit and
/// subfolder are in its note. (The text before them says how the commit was chosen,
/// and a git ref holds no space, so the last such phrase is the list.)
pub fn also_listed(note: &str) -> Vec<&str> {
    match note.rfind(ALSO_LISTED) {
        Some(i) => note[i + ALSO_LISTED.len()..].split(", ").collect(),
        None => Vec::new(),
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
        format!("{how}{ALSO_LISTED}{}", others.join(", "))
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

/// Returns the pin of the default branch at the end of `day`, the day a version
/// with no release tag was published, in place of `head`, its pin at HEAD; the
/// error says why neither is taken, for the skipped list.
fn published_pin(
    head: pin::Pin,
    day: &str,
    line: &Result<FirstParent, Failure>,
) -> Result<pin::Pin, String> {
    let why = head.head_because.unwrap_or_default();
    let what = format!("the default branch as it stood when the version was published ({day})");
    let line = line
        .as_ref()
        .map_err(|failure| format!("{why}{what}, but its history could not be read: {failure}"))?;
    let dated = line
        .at(day)
        .map_err(|problem| format!("{why}{what}, but {problem}"))?;
    Ok(pin::Pin {
        commit: dated.commit,
        how: format!(
            "{why}default branch at the end of {day} (UTC), the day the version was published: \
             first-parent commit of {} UTC",
            date::utc_time(dated.time)
        ),
        committed: Some(dated.time),
        head_because: None,
    })
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
        head_because: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_servers_a_note_also_lists_are_read_back() {
        let note = format!("version 1.2.0: tag 'v1.2.0'{ALSO_LISTED}io.a/x, io.b/y");
        assert_eq!(also_listed(&note), ["io.a/x", "io.b/y"]);
        assert!(also_listed("version 1.2.0: tag 'v1.2.0'").is_empty());
    }
}
