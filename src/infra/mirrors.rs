//! Local mirrors: a folder of bare clones read in place of a forge that is not
//! reached (`--mirrors DIR`; docs/surveys.md, "Repositories from local mirrors").
//!
//! This module owns what a mirrors folder is, which mirror stands for a repository,
//! and how a pinned commit's archive is made from one: `git archive` of the commit as
//! a tar (its pax header naming the commit, as the forge's archive does), gzipped
//! here, so that no configuration of the mirror chooses a compressor to run. A
//! commit whose tree the mirror cannot give whole (a snapshot without its largest
//! files) is refused with the count of files it lacks and the first by name: a tree
//! counted without some of its files would be a partial count. It does not pin
//! (`corpus` asks the mirror as it would the forge) and does not cache (`fetch` does).

use std::collections::HashMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::error::UsageError;
use super::git::{self, Transport};
use super::process::{self, Failure, Limits};
use super::sanitize::excerpt;

/// The most bytes of `git ls-tree -r` a refused commit's files are read from.
const MAX_LISTING: usize = 256 << 20;

/// Holds the mirrors of one folder: each `owner+name` entry that is a bare clone,
/// or holds one as its only or first-named subfolder, keyed by `owner/name` in ASCII
/// lower case (a forge compares names so).
#[derive(Debug)]
pub struct Mirrors {
    by_repo: HashMap<String, PathBuf>,
}

impl Mirrors {
    /// Reads the mirrors folder `root`; entries that are not `owner+name` folders
    /// holding a git repository are passed over.
    pub fn open(root: &Path) -> io::Result<Mirrors> {
        let root = fs::canonicalize(root)?;
        let mut entries: Vec<_> = fs::read_dir(&root)?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name())
            .collect();
        entries.sort();
        let mut by_repo = HashMap::new();
        for entry in entries {
            let Some(entry) = entry.to_str() else {
                continue;
            };
            let Some((owner, name)) = entry.split_once('+') else {
                continue;
            };
            if owner.is_empty() || name.is_empty() {
                continue;
            }
            let base = root.join(entry);
            if let Some(dir) = git_dir_in(&base) {
                by_repo
                    .entry(format!("{owner}/{name}").to_ascii_lowercase())
                    .or_insert(dir);
            }
        }
        Ok(Mirrors { by_repo })
    }

    /// Reads the mirrors folder a command line names: one that cannot be read or
    /// holds no mirror is the user's mistake, said as such.
    pub fn open_arg(root: &Path) -> anyhow::Result<Mirrors> {
        let shown = root.display();
        let mirrors = Mirrors::open(root)
            .map_err(|e| UsageError(format!("the mirrors folder '{shown}' cannot be read: {e}")))?;
        if mirrors.is_empty() {
            return Err(UsageError(format!(
                "the mirrors folder '{shown}' holds no mirror (a bare clone as owner+name/)"
            ))
            .into());
        }
        Ok(mirrors)
    }

    /// Returns how many mirrors the folder holds.
    pub fn len(&self) -> usize {
        self.by_repo.len()
    }

    /// Returns true when the folder holds no mirror.
    pub fn is_empty(&self) -> bool {
        self.by_repo.is_empty()
    }

    /// Returns the git folder of `repo`'s mirror (`owner/name`, any case).
    pub fn find(&self, repo: &str) -> Option<&Path> {
        self.by_repo
            .get(&repo.to_ascii_lowercase())
            .map(PathBuf::as_path)
    }

    /// Returns the address git is given for `repo`: its mirror's folder, or why
    /// there is none, in words that name no folder of this machine.
    pub fn remote(&self, repo: &str) -> Result<String, String> {
        self.find(repo)
            .map(|dir| dir.to_string_lossy().into_owned())
            .ok_or_else(|| no_mirror(repo))
    }

    /// Writes `repo`'s archive of `commit` to `out`, gzipped: the files under
    /// `NAME-SHORT/`, as `git archive` makes them. Fails, in words that name no
    /// folder of this machine, when there is no mirror, the mirror lacks the commit
    /// or some of its files, a limit stops git, or `out` refuses more than
    /// `max_bytes`.
    pub fn pack(
        &self,
        repo: &str,
        commit: &str,
        out: impl Write,
        max_bytes: u64,
        time: Option<Duration>,
    ) -> Result<(), String> {
        let dir = self.find(repo).ok_or_else(|| no_mirror(repo))?;
        let name = repo.rsplit('/').next().unwrap_or(repo);
        let short = commit.get(..7).unwrap_or(commit);
        let mut command = in_mirror(dir);
        command
            .args(["archive", "--format=tar"])
            .arg(format!("--prefix={name}-{short}/"))
            .arg("--")
            .arg(commit);
        let limits = Limits {
            time,
            idle: None,
            max_stderr: 16 << 10,
        };
        let packed = process::run(command, &limits, None, |tar| {
            let capped = Capped {
                inner: out,
                left: max_bytes,
            };
            let mut gz = flate2::write::GzEncoder::new(capped, flate2::Compression::fast());
            io::copy(tar, &mut gz)?;
            gz.finish()?.inner.flush()?;
            Ok(())
        })
        .map_err(|e| format!("running git archive: {e}"))?;
        let said = match Failure::of("git archive", packed) {
            Ok(()) => return Ok(()),
            Err(failure) => failure.to_string(),
        };
        let said = said.replace(&*dir.to_string_lossy(), "the mirror");
        Err(match lacking(dir, commit) {
            Some((lacked, of, first)) => format!(
                "the mirror of {repo} lacks {lacked} of the commit's {of} files, the first '{}'",
                excerpt(&first)
            ),
            None => said,
        })
    }
}

/// Returns why `repo` has no mirror.
fn no_mirror(repo: &str) -> String {
    format!("no mirror of {repo} in the mirrors folder")
}

/// Returns the git folder at `base` or in one of its subfolders, the first by name.
fn git_dir_in(base: &Path) -> Option<PathBuf> {
    let is_git_dir = |p: &Path| p.join("HEAD").is_file() && p.join("objects").is_dir();
    if is_git_dir(base) {
        return Some(base.to_path_buf());
    }
    let mut subs: Vec<PathBuf> = fs::read_dir(base)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    subs.sort();
    subs.into_iter().find(|p| is_git_dir(p))
}

/// Returns git, hardened and allowed no transport, reading the repository `dir`.
fn in_mirror(dir: &Path) -> std::process::Command {
    let mut command = git::command(Transport::None);
    command.arg("--git-dir").arg(dir);
    command
}

/// Returns how many of `commit`'s files the mirror `dir` has no blob for, out of
/// how many, and the first of them; `None` when it has them all or cannot say.
fn lacking(dir: &Path, commit: &str) -> Option<(usize, usize, String)> {
    let limits = Limits {
        time: Some(Duration::from_secs(120)),
        idle: None,
        max_stderr: 4 << 10,
    };
    let mut listing = in_mirror(dir);
    listing.args(["ls-tree", "-r", "-z", "--", commit]);
    let listed = process::output(listing, &limits, MAX_LISTING).ok()?;
    if !listed.status.is_some_and(|s| s.success()) || listed.is_truncated {
        return None;
    }
    // `MODE blob OID\tPATH`, NUL-ended.
    let blobs: Vec<(String, String)> = listed
        .stdout
        .split(|&b| b == 0)
        .filter_map(|entry| {
            let text = String::from_utf8_lossy(entry);
            let (head, path) = text.split_once('\t')?;
            let mut words = head.split(' ');
            let (_, kind, oid) = (words.next()?, words.next()?, words.next()?);
            (kind == "blob").then(|| (oid.to_string(), path.to_string()))
        })
        .collect();
    let asked: String = blobs.iter().map(|(oid, _)| format!("{oid}\n")).collect();
    let mut check = in_mirror(dir);
    check.args(["cat-file", "--batch-check"]);
    let checked = process::run(check, &limits, Some(asked.into_bytes()), |out| {
        let mut text = String::new();
        io::Read::read_to_string(out, &mut text)?;
        Ok(text)
    })
    .ok()?;
    let text = Failure::of("git cat-file", checked).ok()?;
    let missing: std::collections::HashSet<&str> = text
        .lines()
        .filter_map(|l| l.strip_suffix(" missing"))
        .collect();
    let absent: Vec<&String> = blobs
        .iter()
        .filter(|(oid, _)| missing.contains(oid.as_str()))
        .map(|(_, path)| path)
        .collect();
    let first = absent.first()?;
    Some((absent.len(), blobs.len(), first.to_string()))
}

/// Passes bytes on until `left` is spent, then refuses.
struct Capped<W> {
    inner: W,
    left: u64,
}

impl<W: Write> Write for Capped<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.len() as u64 > self.left {
            return Err(io::Error::other(
                "the archive passed the size limit (--max-archive)",
            ));
        }
        let n = self.inner.write(buf)?;
        self.left -= n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirrors_are_found_by_owner_and_name_in_any_case() {
        let root = tempfile::tempdir().unwrap();
        for (entry, git) in [
            ("Acme+Tool", "repo"),
            ("acme+flat", ""),
            ("nope", "repo"),
            ("x+y", "not-git"),
        ] {
            let dir = root.path().join(entry).join(git);
            fs::create_dir_all(dir.join("objects")).unwrap();
            if git != "not-git" {
                fs::write(dir.join("HEAD"), "ref: refs/heads/main\n").unwrap();
            }
        }
        let mirrors = Mirrors::open(root.path()).unwrap();
        assert_eq!(mirrors.len(), 2);
        assert!(mirrors
            .find("ACME/tool")
            .unwrap()
            .ends_with("Acme+Tool/repo"));
        assert!(mirrors.find("Acme/Flat").unwrap().ends_with("acme+flat"));
        assert_eq!(mirrors.find("x/y"), None);
        assert_eq!(
            mirrors.remote("o/n").unwrap_err(),
            "no mirror of o/n in the mirrors folder"
        );
    }

    fn git(dir: &Path, args: &[&str]) -> String {
        let out = std::process::Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    }

    #[test]
    fn a_commit_is_packed_whole_or_refused_naming_what_the_mirror_lacks() {
        let root = tempfile::tempdir().unwrap();
        let work = root.path().join("acme+tool");
        fs::create_dir_all(work.join("src")).unwrap();
        git(&work, &["init", "-q"]);
        fs::write(work.join("a.txt"), "readOnlyHint\n").unwrap();
        fs::write(work.join("src/b.txt"), "destructiveHint\n").unwrap();
        git(&work, &["add", "."]);
        git(&work, &["commit", "-q", "-m", "one"]);
        let commit = git(&work, &["rev-parse", "HEAD"]);
        // The mirror is the repository's git folder, a subfolder of `owner+name`.
        let mirrors = Mirrors::open(root.path()).unwrap();
        let mut packed = Vec::new();
        mirrors
            .pack("Acme/Tool", &commit, &mut packed, u64::MAX, None)
            .unwrap();
        // GNU tar's view of the same bytes: the files under NAME-SHORT/, and the
        // commit in the pax global header git writes.
        let listed = std::process::Command::new("tar")
            .args(["-tzf", "-"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut tar| {
                tar.stdin.take().unwrap().write_all(&packed)?;
                tar.wait_with_output()
            })
            .unwrap();
        let names = String::from_utf8(listed.stdout).unwrap();
        let short = &commit[..7];
        assert_eq!(
            names.lines().collect::<Vec<_>>(),
            [
                format!("Tool-{short}/"),
                format!("Tool-{short}/a.txt"),
                format!("Tool-{short}/src/"),
                format!("Tool-{short}/src/b.txt"),
            ]
        );
        let gunzipped = {
            let mut out = Vec::new();
            io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&packed[..]), &mut out)
                .unwrap();
            out
        };
        assert!(gunzipped
            .windows(commit.len())
            .any(|w| w == commit.as_bytes()));
        // Bounded: past the size limit it is refused.
        assert!(mirrors
            .pack("acme/tool", &commit, Vec::new(), 16, None)
            .is_err());
        // A snapshot without one of its blobs cannot give the tree whole.
        let blob = git(&work, &["rev-parse", "HEAD:src/b.txt"]);
        fs::remove_file(work.join(".git/objects").join(&blob[..2]).join(&blob[2..])).unwrap();
        let why = mirrors
            .pack("acme/tool", &commit, Vec::new(), u64::MAX, None)
            .unwrap_err();
        assert_eq!(
            why,
            "the mirror of acme/tool lacks 1 of the commit's 2 files, the first 'src/b.txt'"
        );
        assert!(!why.contains(&*root.path().to_string_lossy()));
        // A repository with no mirror is named, and nothing is asked of a forge.
        assert_eq!(
            mirrors
                .pack("acme/other", &commit, Vec::new(), u64::MAX, None)
                .unwrap_err(),
            "no mirror of acme/other in the mirrors folder"
        );
    }

    #[test]
    fn a_capped_writer_refuses_past_its_bound() {
        let mut sink = Vec::new();
        let mut capped = Capped {
            inner: &mut sink,
            left: 4,
        };
        assert!(capped.write_all(b"abcd").is_ok());
        assert!(capped.write_all(b"e").is_err());
        assert_eq!(sink, b"abcd");
    }
}
