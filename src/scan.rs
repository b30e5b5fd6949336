//! Counts local trees for a maintainer: a directory, a tar or tar.gz file, an
//! archive on stdin, or a git revision streamed through `git archive`.
//!
//! This module owns what a local tree is: which files of a directory are walked
//! (ignore files honoured, hidden files read, `.git` and symbolic links skipped), how a
//! row is stamped with a commit, and the `--require-hints` gate. It counts with the
//! same matcher and archive reader as `census` (census-method.md, issue 3); it never
//! counts on its own, and it leaves every table format to `report`.

use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::thread;

use anyhow::{anyhow, bail, Context, Result};
use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};
use rayon::prelude::*;

use crate::archive::{self, ArchiveCount};
use crate::cli::ScanArgs;
use crate::corpus::{DEFAULT_CONTROLS, DEFAULT_TERMS};
use crate::count::{Matcher, TreeCount};
use crate::progress::NoProgress;
use crate::report::{self, CommitSource, Counted, Row, Table};
use crate::sanitize::sanitize;
use crate::tee::Tee;
use crate::{date, ExitStatus, UsageError};

/// Size of the buffer each file's bytes are read through: files are never read whole.
const READ_BUF: usize = 256 * 1024;

/// Holds a validated `scan` command line.
#[derive(Debug)]
struct Config {
    targets: Vec<PathBuf>,
    git: Option<String>,
    terms: Vec<String>,
    controls: Vec<String>,
    /// The columns (indices into terms) that `--require-hints` checks.
    gate: Option<Vec<usize>>,
}

/// Returns the validated configuration, or a [`UsageError`] naming the mistake.
fn configure(args: &ScanArgs) -> Result<Config> {
    let terms: Vec<String> = match &args.terms {
        Some(terms) => terms.clone(),
        None => DEFAULT_TERMS.iter().map(|t| t.to_string()).collect(),
    };
    let controls: Vec<String> = match &args.controls {
        Some(controls) => controls.clone(),
        None => DEFAULT_CONTROLS.iter().map(|t| t.to_string()).collect(),
    };
    let mut targets = args.paths.clone();
    if targets.is_empty() {
        targets.push(PathBuf::from("."));
    }
    if targets.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        return Err(UsageError("'-' (stdin) may be given once".into()).into());
    }
    if let Some(rev) = &args.git {
        // A revision is handed to git as an argument: one that starts with '-'
        // would be read as an option.
        if rev.is_empty() || rev.starts_with('-') {
            return Err(UsageError(format!("--git '{rev}' is not a revision")).into());
        }
    }
    let gate = if args.require_hints {
        let checked = hint_columns(&terms);
        if checked.is_empty() {
            return Err(UsageError(format!(
                "--require-hints checks the hint names ({}), and --terms names none of them",
                DEFAULT_TERMS.join(", ")
            ))
            .into());
        }
        Some(checked)
    } else {
        None
    };
    Ok(Config {
        targets,
        git: args.git.clone(),
        terms,
        controls,
        gate,
    })
}

/// Returns the indices of the terms that are hint names (compared ASCII
/// case-insensitively, as the matcher compares them).
fn hint_columns(terms: &[String]) -> Vec<usize> {
    terms
        .iter()
        .enumerate()
        .filter(|(_, t)| DEFAULT_TERMS.iter().any(|h| h.eq_ignore_ascii_case(t)))
        .map(|(i, _)| i)
        .collect()
}

/// Runs `scan`: counts each path, prints the table (or JSON), writes the CSV and
/// returns the exit status.
///
/// Any path that fails makes the status [`ExitStatus::Failed`], which takes
/// precedence over the gate: a tree that could not be read cannot be judged.
pub fn run(args: &ScanArgs) -> Result<ExitStatus> {
    let config = configure(args)?;
    let names: Vec<&str> = config
        .terms
        .iter()
        .chain(&config.controls)
        .map(String::as_str)
        .collect();
    let matcher =
        Matcher::new(&names).map_err(|e| UsageError(format!("--terms/--controls: {e}")))?;
    let date = date::resolve(None)?;

    // Paths are counted side by side (rows keep the command line's order): several
    // archives keep every core inflating, as the census does with trees.
    let rows: Vec<Row> = config
        .targets
        .par_iter()
        .map(|target| scan_target(target, config.git.as_deref(), &matcher))
        .collect();
    let table = Table {
        terms: config.terms.clone(),
        controls: config.controls.clone(),
        date,
        rows,
    };

    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    if args.json {
        report::write_json(&mut out, &table, args.files, args.by_extension)?;
    } else {
        report::print_table(&mut out, &table)?;
        if args.files {
            report::print_files(&mut out, &table)?;
        }
        if args.by_extension {
            report::print_by_extension(&mut out, &table)?;
        }
    }
    out.flush()?;
    drop(out);

    if let Some(path) = &args.csv {
        let file = File::create(path).with_context(|| format!("writing '{}'", path.display()))?;
        let mut file = io::BufWriter::new(file);
        report::write_census_csv(&mut file, &table)
            .and_then(|()| file.flush().map_err(Into::into))
            .with_context(|| format!("writing '{}'", path.display()))?;
    }

    let stderr = io::stderr();
    let mut err = stderr.lock();
    let mut status = ExitStatus::Ok;
    if let Some(columns) = &config.gate {
        let silent = said_nothing(&table, columns);
        for row in &silent {
            let files = row.outcome.as_ref().map_or(0, |c| c.count.files_walked);
            writeln!(
                err,
                "mcp-hint-census: '{}' said nothing: zero {} in {} files",
                sanitize(row.repo.as_bytes()),
                columns
                    .iter()
                    .map(|&i| table.terms[i].as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                report::thousands(files),
            )?;
        }
        if !silent.is_empty() {
            writeln!(
                err,
                "hint: a zero is about the literals in the tree, not what the server sends: an SDK \
                 may spell the fields differently (read_only_hint in Rust SDKs, ReadOnly in the C# \
                 SDK) or attach them at registration; see the limits in the README"
            )?;
            status = ExitStatus::Gate;
        }
    }
    let failed: Vec<(&Row, &String)> = table.failed_rows().collect();
    if !failed.is_empty() {
        if args.json {
            // The table prints errors under it; JSON on stdout is for scripts, so
            // a person still reads why on stderr.
            for (row, why) in &failed {
                writeln!(
                    err,
                    "mcp-hint-census: '{}': {}",
                    sanitize(row.repo.as_bytes()),
                    sanitize(report::one_line(why).as_bytes())
                )?;
            }
        }
        status = ExitStatus::Failed;
    }
    Ok(status)
}

/// Returns the counted rows that read zero on every column of `columns`.
fn said_nothing<'t>(table: &'t Table, columns: &[usize]) -> Vec<&'t Row> {
    table
        .rows
        .iter()
        .filter(|row| match &row.outcome {
            Ok(c) => columns.iter().all(|&i| c.count.counts[i] == 0),
            Err(_) => false,
        })
        .collect()
}

/// Returns the row for one path given on the command line.
fn scan_target(target: &Path, git: Option<&str>, matcher: &Matcher) -> Row {
    let repo = target.to_string_lossy().into_owned();
    let outcome = match git {
        Some(rev) => count_git(target, rev, matcher),
        None if target.as_os_str() == "-" => {
            count_reader(io::stdin(), matcher).context("reading an archive from stdin")
        }
        None => count_path(target, matcher),
    };
    Row {
        repo,
        pinned: git.unwrap_or_default().to_string(),
        note: None,
        outcome: outcome.map_err(|e| format!("{e:#}")),
    }
}

/// Counts a directory or an archive file.
/// Errors about the path itself do not repeat it: the row they end up in names it.
fn count_path(path: &Path, matcher: &Matcher) -> Result<Counted> {
    let meta = fs::metadata(path).map_err(|e| anyhow!(describe(&e)))?;
    if meta.is_dir() {
        return count_dir(path, matcher);
    }
    if !meta.is_file() {
        bail!("neither a directory nor an archive file");
    }
    let file = File::open(path).map_err(|e| anyhow!("opening it: {}", describe(&e)))?;
    count_reader(file, matcher)
}

/// Returns an I/O error as a short lower-case phrase for a row's message.
fn describe(err: &io::Error) -> String {
    match err.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => err.to_string(),
    }
}

/// Counts the archive read from `reader`, stamped with the commit its pax header names.
///
/// The sha256 covers every byte of the input, including any after the archive's end.
fn count_reader<R: Read + Send>(reader: R, matcher: &Matcher) -> Result<Counted> {
    let mut tee = Tee::new(reader, None, &NoProgress);
    let ArchiveCount { commit, trees } =
        archive::count_archive(&mut tee, matcher, &[Vec::new()], &mut |_| {})?;
    let mut tree = trees
        .into_iter()
        .next()
        .expect("one tree per subfolder asked");
    tee.drain().context("reading the end of the archive")?;
    let sha256 = tee.finish()?;
    tree.sort_files();
    let (commit, commit_source) = match commit {
        Some(commit) => (commit, CommitSource::Archive),
        None => (String::new(), CommitSource::Worktree),
    };
    Ok(Counted {
        commit,
        commit_source,
        count: tree,
        sha256,
    })
}

/// Counts the files of a directory, stamped with `HEAD` when they are exactly
/// `HEAD`'s files, else as a work tree.
fn count_dir(dir: &Path, matcher: &Matcher) -> Result<Counted> {
    let head = clean_head(dir);
    let walked = walk(dir, matcher, head.is_some())?;
    let (commit, commit_source) = match head {
        Some(id) if is_head_tree(dir, walked.paths) => (id, CommitSource::Head),
        _ => (String::new(), CommitSource::Worktree),
    };
    Ok(Counted {
        commit,
        commit_source,
        count: walked.tree,
        sha256: String::new(),
    })
}

/// Holds the result of walking a directory.
struct Walked {
    tree: TreeCount,
    /// Every file counted, when asked for; unsorted.
    paths: Vec<Vec<u8>>,
}

/// Walks `dir` in parallel and counts each regular file it keeps.
///
/// What is kept is what a clean checkout would archive, as far as a directory can
/// tell: `.gitignore`, `.ignore` and `.git/info/exclude` are honoured whether or not
/// `dir` is in a git repository, hidden files are read, `.git` is skipped and symbolic
/// links are neither followed nor counted. Only the ignore files inside `dir` are
/// read, never those of its parents or the user's global excludes, so that the count
/// depends on the tree alone: an extracted archive reads as the archive does
/// wherever it is extracted.
///
/// A file or directory that cannot be read fails the whole walk, naming it: a
/// partial count is never returned.
fn walk(dir: &Path, matcher: &Matcher, keep_paths: bool) -> Result<Walked> {
    // The walker lists the root without following it; a root given as a symbolic
    // link to a directory is the directory the user meant.
    let is_link = fs::symlink_metadata(dir)
        .map(|m| m.file_type().is_symlink())
        .unwrap_or(false);
    let root = if is_link {
        fs::canonicalize(dir).with_context(|| format!("resolving '{}'", dir.display()))?
    } else {
        dir.to_path_buf()
    };
    let walker = WalkBuilder::new(&root)
        .hidden(false)
        .ignore(true)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(false)
        .parents(false)
        .follow_links(false)
        .filter_entry(|entry| entry.file_name() != OsStr::new(".git"))
        .build_parallel();
    let shared = Mutex::new(Merged::default());
    let mut builder = Workers {
        root: &root,
        matcher,
        keep_paths,
        shared: &shared,
    };
    walker.visit(&mut builder);
    let merged = shared
        .into_inner()
        .map_err(|_| anyhow!("a walking thread panicked"))?;
    let mut errors = merged.errors;
    if !errors.is_empty() {
        // Threads finish in any order; the first error by path is reported so that
        // the message does not change from run to run.
        errors.sort();
        let more = errors.len() - 1;
        let first = errors.swap_remove(0);
        if more > 0 {
            bail!("{first} (and {more} more unreadable)");
        }
        bail!("{first}");
    }
    let mut tree = merged.tree.unwrap_or_else(|| TreeCount::new(matcher.len()));
    tree.sort_files();
    Ok(Walked {
        tree,
        paths: merged.paths,
    })
}

/// Holds what every worker has handed back.
#[derive(Default)]
struct Merged {
    tree: Option<TreeCount>,
    paths: Vec<Vec<u8>>,
    errors: Vec<String>,
}

/// Builds one [`Worker`] per walking thread.
struct Workers<'s> {
    root: &'s Path,
    matcher: &'s Matcher,
    keep_paths: bool,
    shared: &'s Mutex<Merged>,
}

impl<'s> ParallelVisitorBuilder<'s> for Workers<'s> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Worker {
            root: self.root,
            matcher: self.matcher,
            shared: self.shared,
            keep_paths: self.keep_paths,
            tree: TreeCount::new(self.matcher.len()),
            paths: Vec::new(),
            errors: Vec::new(),
            buf: Vec::new(),
        })
    }
}

/// Counts the files one walking thread is given, without locking, and merges its
/// counts into the shared total when the walk is over (on drop).
struct Worker<'s> {
    root: &'s Path,
    matcher: &'s Matcher,
    shared: &'s Mutex<Merged>,
    keep_paths: bool,
    tree: TreeCount,
    paths: Vec<Vec<u8>>,
    errors: Vec<String>,
    buf: Vec<u8>,
}

impl Worker<'_> {
    fn count_file(&mut self, entry: &DirEntry) -> Result<()> {
        let path = entry.path();
        let mut file = File::open(path).with_context(|| format!("opening '{}'", path.display()))?;
        if self.buf.is_empty() {
            self.buf = vec![0u8; READ_BUF];
        }
        let mut counter = self.matcher.file_counter();
        loop {
            match file.read(&mut self.buf) {
                Ok(0) => break,
                // The buffer is refilled next, so the counter may lower-case it in place.
                Ok(n) => counter.feed_mut(&mut self.buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e).with_context(|| format!("reading '{}'", path.display())),
            }
        }
        if self.keep_paths {
            self.paths.push(relative(self.root, path));
        }
        let root = self.root;
        self.tree
            .add_file(|| relative(root, path), counter.bytes(), counter.counts());
        Ok(())
    }
}

/// Returns `path` relative to the walked directory `root`, as raw bytes.
fn relative(root: &Path, path: &Path) -> Vec<u8> {
    path.strip_prefix(root)
        .unwrap_or(path)
        .as_os_str()
        .as_bytes()
        .to_vec()
}

impl ParallelVisitor for Worker<'_> {
    fn visit(&mut self, entry: std::result::Result<DirEntry, ignore::Error>) -> WalkState {
        match entry {
            // Only regular files count: symbolic links (never followed), sockets,
            // fifos and devices are skipped, as the archive reader skips them.
            Ok(entry) if entry.file_type().is_some_and(|t| t.is_file()) => {
                if let Err(e) = self.count_file(&entry) {
                    self.errors.push(format!("{e:#}"));
                }
            }
            Ok(_) => {}
            // An unreadable directory hides files from the count. A malformed line in
            // an ignore file is no I/O error: git skips such lines, and so does the walk.
            Err(e) if e.io_error().is_some() => self.errors.push(walk_error(e)),
            Err(_) => {}
        }
        WalkState::Continue
    }
}

impl Drop for Worker<'_> {
    fn drop(&mut self) {
        // A poisoned lock means another worker panicked; that panic is reported.
        if let Ok(mut shared) = self.shared.lock() {
            let tree = std::mem::take(&mut self.tree);
            match &mut shared.tree {
                Some(total) => total.merge(tree),
                None => shared.tree = Some(tree),
            }
            shared.paths.append(&mut self.paths);
            shared.errors.append(&mut self.errors);
        }
    }
}

/// Returns a walking error as "listing 'path': why", the path unwrapped from the
/// walker's layers of context.
fn walk_error(mut err: ignore::Error) -> String {
    let mut path = None;
    loop {
        match err {
            ignore::Error::WithDepth { err: inner, .. } => err = *inner,
            ignore::Error::WithPath {
                path: p,
                err: inner,
            } => {
                path.get_or_insert(p);
                err = *inner;
            }
            ignore::Error::Io(io) => {
                return match path {
                    Some(p) => format!("listing '{}': {io}", p.display()),
                    None => format!("listing a directory: {io}"),
                };
            }
            other => return other.to_string(),
        }
    }
}

/// Returns `git -C dir ARGS...`'s output, or an error when git cannot be started.
fn git(dir: &Path, args: &[&str]) -> io::Result<std::process::Output> {
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
}

/// Returns the trimmed stdout of a git command that succeeded.
fn git_text(dir: &Path, args: &[&str]) -> Option<String> {
    let out = git(dir, args).ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Returns `HEAD`'s full id when `dir` is in a git work tree with no change under
/// it, tracked or untracked; `None` otherwise, or when git is not installed.
fn clean_head(dir: &Path) -> Option<String> {
    if git_text(dir, &["rev-parse", "--is-inside-work-tree"])? != "true" {
        return None;
    }
    let status = git_text(
        dir,
        &[
            "status",
            "--porcelain",
            "-z",
            "--untracked-files=all",
            "--",
            ".",
        ],
    )?;
    if !status.is_empty() {
        return None;
    }
    git_text(dir, &["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])
        .filter(|id| !id.is_empty())
}

/// Returns true when the files walked under `dir` are exactly the regular files that
/// `HEAD` has there.
///
/// A clean status is not enough: an ignore file can hide a tracked file from the
/// walk, and a submodule's files are walked although the commit only links them.
fn is_head_tree(dir: &Path, mut walked: Vec<Vec<u8>>) -> bool {
    let Ok(out) = git(dir, &["ls-files", "-z", "--stage", "--", "."]) else {
        return false;
    };
    if !out.status.success() {
        return false;
    }
    // Each record is "<mode> <object> <stage>\t<path>".
    let mut tracked: Vec<Vec<u8>> = Vec::new();
    for record in out.stdout.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        let Some(tab) = memchr::memchr(b'\t', record) else {
            return false;
        };
        let mode = &record[..record.iter().position(|&b| b == b' ').unwrap_or(0)];
        if mode == b"100644" || mode == b"100755" {
            tracked.push(record[tab + 1..].to_vec());
        }
    }
    tracked.sort();
    walked.sort();
    tracked == walked
}

/// Counts the tree of revision `rev` of the work tree at `dir`, by streaming
/// `git archive` through the archive reader. Uncommitted changes do not count.
fn count_git(dir: &Path, rev: &str, matcher: &Matcher) -> Result<Counted> {
    if dir.as_os_str() == "-" {
        bail!("--git counts a revision of a git work tree, not an archive on stdin");
    }
    let meta = fs::metadata(dir).map_err(|e| anyhow!(describe(&e)))?;
    if !meta.is_dir() {
        bail!("not a directory: --git counts a revision of the git work tree it is in");
    }
    let inside = git(dir, &["rev-parse", "--is-inside-work-tree"]).context("running git")?;
    if !inside.status.success() || String::from_utf8_lossy(&inside.stdout).trim() != "true" {
        bail!("not inside a git work tree (--git needs one)");
    }
    let spec = format!("{rev}^{{commit}}");
    let id = git_text(dir, &["rev-parse", "--verify", "--quiet", &spec])
        .filter(|id| !id.is_empty())
        .ok_or_else(|| anyhow!("unknown revision '{rev}'"))?;

    let mut child = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["archive", "--format=tar", "--prefix=tree/", &id])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("running git archive")?;
    let stdout = child.stdout.take().context("git archive's stdout")?;
    let mut stderr = child.stderr.take().context("git archive's stderr")?;
    // Drained on its own thread so that a chatty git never blocks on a full pipe.
    let stderr = thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    // The reader is dropped when counting ends, early or not, so git cannot block
    // on a pipe nobody reads before it is waited for.
    let counted = archive::count_archive(stdout, matcher, &[Vec::new()], &mut |_| {});
    let status = child.wait().context("waiting for git archive")?;
    let stderr = stderr.join().unwrap_or_default();
    if !status.success() {
        bail!(
            "git archive '{id}' failed ({status}): {}",
            report::one_line(stderr.trim())
        );
    }
    let ArchiveCount { commit, trees } =
        counted.with_context(|| format!("reading git archive '{id}'"))?;
    let mut tree = trees
        .into_iter()
        .next()
        .expect("one tree per subfolder asked");
    tree.sort_files();
    let commit_source = match commit {
        Some(named) if named.eq_ignore_ascii_case(&id) => CommitSource::Archive,
        Some(named) => bail!("git archive of '{id}' names commit '{named}' in its header"),
        // git always writes the id for a commit; should it not, the id comes from
        // the revision as resolved.
        None => CommitSource::Pinned,
    };
    Ok(Counted {
        commit: id,
        commit_source,
        count: tree,
        sha256: String::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn args(line: &[&str]) -> ScanArgs {
        let cli =
            crate::cli::Cli::try_parse_from(["mcp-hint-census", "scan"].iter().chain(line.iter()))
                .expect("the test's command line parses");
        match cli.command {
            crate::cli::Command::Scan(args) => args,
            other => panic!("not a scan: {other:?}"),
        }
    }

    fn usage_message(line: &[&str]) -> String {
        let err = configure(&args(line)).expect_err("a usage error");
        assert!(err.downcast_ref::<UsageError>().is_some(), "{err:#}");
        err.to_string()
    }

    #[test]
    fn no_path_means_the_current_directory() {
        let config = configure(&args(&[])).unwrap();
        assert_eq!(config.targets, vec![PathBuf::from(".")]);
        assert_eq!(config.terms, DEFAULT_TERMS);
        assert_eq!(config.controls, DEFAULT_CONTROLS);
        assert_eq!(config.gate, None);
    }

    #[test]
    fn the_gate_checks_the_hint_names_among_the_terms() {
        let config = configure(&args(&["--require-hints"])).unwrap();
        assert_eq!(config.gate, Some(vec![0, 1, 2, 3]));
        let config = configure(&args(&[
            "--require-hints",
            "--terms",
            "foo,READONLYHINT,openWorldHint",
        ]))
        .unwrap();
        assert_eq!(config.gate, Some(vec![1, 2]));
        let msg = usage_message(&["--require-hints", "--terms", "read_only_hint"]);
        assert!(msg.contains("names none of them"), "{msg}");
    }

    #[test]
    fn bad_command_lines_are_usage_errors() {
        assert!(usage_message(&["-", "-"]).contains("once"));
        assert!(usage_message(&["--git=-x"]).contains("not a revision"));
        assert!(usage_message(&["--git="]).contains("not a revision"));
    }

    #[test]
    fn gate_ignores_error_rows_and_rows_with_a_hint() {
        let counted = |counts: Vec<u64>| {
            Ok(Counted {
                commit: String::new(),
                commit_source: CommitSource::Worktree,
                count: TreeCount {
                    files_walked: 1,
                    counts,
                    ..TreeCount::default()
                },
                sha256: String::new(),
            })
        };
        let row = |repo: &str, outcome| Row {
            repo: repo.into(),
            pinned: String::new(),
            note: None,
            outcome,
        };
        let table = Table {
            terms: vec!["readOnlyHint".into(), "destructiveHint".into()],
            controls: vec!["annotations".into()],
            date: "2026-01-01".into(),
            rows: vec![
                row("silent", counted(vec![0, 0, 5])),
                row("hinted", counted(vec![0, 1, 0])),
                row("broken", Err("x".into())),
            ],
        };
        let silent: Vec<&str> = said_nothing(&table, &[0, 1])
            .iter()
            .map(|r| r.repo.as_str())
            .collect();
        assert_eq!(silent, ["silent"]);
        let silent: Vec<&str> = said_nothing(&table, &[0])
            .iter()
            .map(|r| r.repo.as_str())
            .collect();
        assert_eq!(silent, ["silent", "hinted"]);
    }

    #[test]
    fn walk_reports_paths_relative_to_the_root_as_bytes() {
        let tmp = tempfile::TempDir::new().unwrap();
        let root = tmp.path().join("t");
        fs::create_dir_all(root.join("d")).unwrap();
        fs::write(root.join(OsStr::from_bytes(b"n\xffame")), b"readOnlyHint").unwrap();
        fs::write(root.join("d/b.txt"), b"x").unwrap();
        fs::write(root.join(".hidden"), b"openWorldHint").unwrap();
        let matcher = Matcher::new(&DEFAULT_TERMS).unwrap();
        let walked = walk(&root, &matcher, true).unwrap();
        let mut paths = walked.paths;
        paths.sort();
        assert_eq!(paths, [&b".hidden"[..], b"d/b.txt", b"n\xffame"]);
        assert_eq!(walked.tree.files_walked, 3);
        assert_eq!(walked.tree.bytes_read, 26);
        assert_eq!(walked.tree.counts, [1, 0, 0, 1]);
        let hits: Vec<&[u8]> = walked.tree.files.iter().map(|f| &f.path[..]).collect();
        assert_eq!(hits, [&b".hidden"[..], b"n\xffame"], "sorted by path bytes");
        // Without being asked, the walk keeps no path list.
        assert!(walk(&root, &matcher, false).unwrap().paths.is_empty());
    }
}
