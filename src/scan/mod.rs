//! Counts local trees for a maintainer: a directory, a tar or tar.gz file, an
//! archive on stdin, or a git revision read blob by blob through the `git` module.
//!
//! This module owns the `scan` command: what each path given is (a directory, an
//! archive, a single file, stdin, a git revision), how its row is stamped with a
//! commit, and the `--require-hints` gate. Directories are walked by `walk`, git
//! repositories read by `git`, archives by `archive`; it counts with the same matcher
//! as `census`, and leaves every table format to `report`.
//!
//! A command: it may import every stage, `cli` and `infra`; `probe` (a server's source
//! tree) and `corpus` (history's git reader) use its `git` and `walk`.

pub mod git;
mod origin;
pub mod walk;

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use rayon::prelude::*;

use crate::archive::{self, ArchiveCount};
use crate::cli::{HintGate, ScanArgs};
use crate::count::sink::TreeSink;
use crate::count::terms::{Columns, DEFAULT_CONTROLS, DEFAULT_TERMS};
use crate::count::Matcher;
use crate::fetch::intake::Tee;
use crate::infra::atomic::write_atomic;
use crate::infra::date;
use crate::infra::error::{kind_of, ExitStatus, FailureKind, UsageError};
use crate::infra::messages;
use crate::infra::progress::NoProgress;
use crate::infra::sanitize::sanitize;
use crate::lint;
use crate::report;
use crate::scan::walk::walk;
use crate::table::{CommitSource, Counted, Failure, Row, Table, TreeKey};
use crate::tools::feed::ToolFeed;
use crate::tools::Roles;

/// Holds a validated `scan` command line.
#[derive(Debug)]
struct Config {
    targets: Vec<PathBuf>,
    git: Option<String>,
    columns: Columns,
    /// The columns that `--require-hints` checks: those that spell a hint.
    gate: Option<Vec<usize>>,
    /// Whether `--require-hints=tools` checks every tool definition found.
    is_tool_gate: bool,
    /// Whether the tool finder reads the files.
    find_tools: Option<Roles>,
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
    let mut columns = Columns::new(&terms, &controls)
        .map_err(|why| UsageError(format!("--terms/--controls: {why}")))?;
    let mut profile = Vec::new();
    for spec in &args.profile {
        profile.extend(
            crate::count::terms::load_profile(spec)
                .map_err(|e| UsageError(format!("--profile: {e}")))?,
        );
    }
    if !profile.is_empty() {
        columns = columns
            .with_profile(profile)
            .map_err(|why| UsageError(format!("--profile: {why}")))?;
    }
    let find_tools = (!args.no_tools).then_some(args.tool_roles);
    if args.require_hints == Some(HintGate::Tools) && find_tools.is_none() {
        return Err(UsageError(
            "--require-hints=tools needs the tool finder, which --no-tools turns off".into(),
        )
        .into());
    }
    let gate = if args.require_hints == Some(HintGate::Literals) {
        let checked = columns.hint_columns();
        if checked.is_empty() {
            return Err(UsageError(format!(
                "--require-hints checks the columns that spell a hint ({}, their spellings in \
                 the sdk profile, or a --profile column with a hint), and there is none",
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
        columns,
        gate,
        is_tool_gate: args.require_hints == Some(HintGate::Tools),
        find_tools,
    })
}

/// Runs `scan`: counts each path, prints the table (or JSON), writes the CSV and
/// returns the exit status.
///
/// Any path that fails makes the status [`ExitStatus::Failed`], which takes
/// precedence over the gate: a tree that could not be read cannot be judged.
pub fn run(args: &ScanArgs) -> Result<ExitStatus> {
    let config = configure(args)?;
    let matcher = config
        .columns
        .matcher()
        .map_err(|e| UsageError(format!("--terms/--controls: {e}")))?;
    let date = date::resolve(None)?;

    // Paths are counted side by side (rows keep the command line's order): several
    // archives keep every core inflating, as the census does with trees.
    let rows: Vec<Row> = config
        .targets
        .par_iter()
        .map(|target| scan_target(target, config.git.as_deref(), &matcher, config.find_tools))
        .collect();
    let table = Table {
        columns: config.columns.clone(),
        date,
        rows,
        dating: Default::default(),
        packages: Default::default(),
    };

    print_results(args, &table)?;
    write_files(args, &table)?;
    let mut status = ExitStatus::Ok;
    if config.is_tool_gate && !tools_pass(&table) {
        status = ExitStatus::Gate;
    }
    if let Some(columns) = &config.gate {
        if !literals_pass(&table, columns) {
            status = ExitStatus::Gate;
        }
    }
    if table.failed_rows().next().is_some() {
        // Stdout is for the results (a table, or JSON for scripts): a person reads
        // why a path failed on stderr.
        report::announce_failures(&table);
        status = ExitStatus::Failed;
    }
    Ok(status)
}

/// Prints the table, or with `--json` the JSON, on stdout.
fn print_results(args: &ScanArgs, table: &Table) -> Result<()> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    if args.json {
        report::write_json(&mut out, table, args.files, args.by_extension)?;
    } else {
        report::print_table(&mut out, table)?;
        if args.files {
            report::print_files(&mut out, table)?;
        }
        if args.by_extension {
            report::print_by_extension(&mut out, table)?;
        }
        if args.tools {
            report::print_tools(&mut out, table)?;
            report::silence::print(&mut out, table)?;
        }
    }
    out.flush()?;
    Ok(())
}

/// Writes the files the command line asks for: the CSV, the tools CSV and the
/// GitHub warnings.
fn write_files(args: &ScanArgs, table: &Table) -> Result<()> {
    if let Some(path) = &args.csv {
        let file = File::create(path).with_context(|| format!("writing '{}'", path.display()))?;
        let mut file = io::BufWriter::new(file);
        report::write_census_csv(&mut file, table)
            .and_then(|()| file.flush().map_err(Into::into))
            .with_context(|| format!("writing '{}'", path.display()))?;
    }
    if let Some(path) = &args.tools_csv {
        write_atomic(path, |w| report::write_tools_csv(w, table))?;
    }
    if let Some(path) = &args.github_warnings {
        write_atomic(path, |w| Ok(report::write_github_warnings(w, table)?))?;
    }
    if let Some(path) = &args.sarif {
        let runs: Vec<lint::sarif::Run> = table.rows.iter().map(sarif_run).collect();
        write_atomic(path, |w| lint::sarif::write(w, &runs))?;
    }
    Ok(())
}

/// Returns one row's SARIF run: its findings placed against the base of its path
/// (see `origin`), or why the path could not be read.
fn sarif_run(row: &Row) -> lint::sarif::Run {
    // An archive's bytes are hashed as they are read; a directory's and a single
    // file's are not. A path that failed is an archive when named as one.
    let target = Path::new(row.repo());
    let is_archive = match &row.outcome {
        Ok(counted) => !counted.sha256.is_empty(),
        Err(_) => target.is_file() && is_archive_name(target),
    };
    let origin = origin::of(target, is_archive);
    lint::sarif::Run {
        found: report::located_findings(row, &origin.prefix),
        root: origin.root,
        scanned: origin.scanned,
        failure: row.outcome.as_ref().err().map(|e| e.why.clone()),
    }
}

/// Returns whether the lint finds nothing in any tool definition found
/// (`--require-hints=tools`); otherwise notes each finding at its line, with its
/// rule id and the annotations it suggests, and a hint.
fn tools_pass(table: &Table) -> bool {
    let findings = report::tool_findings(table);
    for (row, tool, finding) in &findings {
        messages::note(format!(
            "{}: {}: {} (suggested: {})",
            report::tool_location(row, tool),
            finding.rule.id(),
            sanitize(&finding.message),
            sanitize(&finding.suggestion)
        ));
    }
    if findings.is_empty() {
        return true;
    }
    messages::hint(
        "a hint left out is read as its default (readOnlyHint false, destructiveHint \
         true, idempotentHint false, openWorldHint true); declare each hint meaningful \
         for the tool, even at its default, so that clients need not guess",
    );
    false
}

/// Returns whether every tree spells a hint in one of `columns`
/// (`--require-hints`); otherwise notes each tree that does not, with a hint.
fn literals_pass(table: &Table, columns: &[usize]) -> bool {
    let names: Vec<&str> = table.columns.names().collect();
    let silent: Vec<&Row> = table.zero_in(columns).collect();
    for row in &silent {
        let files = row.outcome.as_ref().map_or(0, |c| c.count.files_walked);
        if files == 0 {
            // Nothing was there to say anything: the gate still fails (a tree
            // with no file spells no hint), but the message says why.
            messages::note(format!(
                "'{}' holds no file, so it spells no hint",
                sanitize(row.repo())
            ));
            continue;
        }
        messages::note(format!(
            "'{}' said nothing: zero {} in {} {}",
            sanitize(row.repo()),
            columns
                .iter()
                .map(|&i| sanitize(names[i]))
                .collect::<Vec<_>>()
                .join(", "),
            report::thousands(files),
            messages::noun(files, "file", "files"),
        ));
    }
    // The hints about spellings are for trees that held files.
    let has_files = silent
        .iter()
        .any(|row| row.outcome.as_ref().is_ok_and(|c| c.count.files_walked > 0));
    if has_files && !table.columns.has_profile() {
        messages::hint(
            "a zero is about the literals in the tree, not what the server sends: an SDK \
             may spell the fields differently (read_only_hint in Rust SDKs, ReadOnly in the C# \
             SDK; --profile sdk counts those too) or attach them at registration; see the \
             limits in the README",
        );
    } else if has_files {
        messages::hint(
            "a zero is about the tree, not what the server sends: a framework may attach \
             the hints at registration, or spell them in a way no profile knows (a positional \
             constructor names none); `probe` reads what the server declares",
        );
    }
    silent.is_empty()
}

/// Returns the row for one path given on the command line.
fn scan_target(
    target: &Path,
    git: Option<&str>,
    matcher: &Matcher,
    find_tools: Option<Roles>,
) -> Row {
    let repo = target.to_string_lossy().into_owned();
    let outcome = match git {
        Some(rev) => count_git(target, rev, matcher, find_tools),
        None if target.as_os_str() == "-" => count_reader(io::stdin(), "-", matcher, find_tools)
            .context("reading an archive from stdin"),
        None => count_path(target, matcher, find_tools),
    };
    Row {
        key: TreeKey {
            repo,
            pinned: git.map(str::to_string),
            subfolder: None,
            as_of: None,
        },
        server: None,
        note: None,
        outcome: outcome
            .map_err(|e| Failure::new(kind_of(&e, FailureKind::Other), format!("{e:#}"))),
    }
}

/// Counts a directory or an archive file, and with `find_tools` finds the tool
/// definitions its files hold.
/// Errors about the path itself do not repeat it: the row they end up in names it.
pub fn count_path(path: &Path, matcher: &Matcher, find_tools: Option<Roles>) -> Result<Counted> {
    let meta = fs::metadata(path).map_err(|e| anyhow!(describe(&e)))?;
    if meta.is_dir() {
        return count_dir(path, matcher, find_tools);
    }
    if !meta.is_file() {
        bail!("neither a directory nor a regular file");
    }
    let mut file = File::open(path).map_err(|e| anyhow!("opening it: {}", describe(&e)))?;
    let mut head = Vec::with_capacity(512);
    (&mut file)
        .take(512)
        .read_to_end(&mut head)
        .map_err(|e| anyhow!("reading it: {}", describe(&e)))?;
    // A file named as an archive must be one (a saved sign-in page is an error, not
    // a tree); any other file is an archive only when its bytes say so.
    if is_archive_name(path) || archive::is_archive(&head) {
        let name = sanitize(path.as_os_str().as_encoded_bytes());
        return count_reader(
            io::Cursor::new(head).chain(file),
            &name,
            matcher,
            find_tools,
        );
    }
    count_file(path, head, file, matcher, find_tools)
}

/// Returns true when `path`'s name ends as an archive's does: `.tar`, `.tar.gz`,
/// `.tgz` or `.gz`, in any case.
fn is_archive_name(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.as_encoded_bytes().to_ascii_lowercase())
        .unwrap_or_default();
    [&b".tar"[..], b".tgz", b".gz"]
        .iter()
        .any(|end| name.ends_with(end))
}

/// Counts a regular file that is no archive as a tree of that one file, named by
/// its file name, reading at most the size it had when opened.
fn count_file(
    path: &Path,
    mut head: Vec<u8>,
    file: File,
    matcher: &Matcher,
    find_tools: Option<Roles>,
) -> Result<Counted> {
    let size = file
        .metadata()
        .map_err(|e| anyhow!("reading it: {}", describe(&e)))?
        .len();
    let name = path
        .file_name()
        .map_or_else(Vec::new, |n| n.as_encoded_bytes().to_vec());
    let mut sink = TreeSink::new(matcher, find_tools);
    sink.begin_file(&name, size);
    let rest = size.saturating_sub(head.len() as u64) + 1;
    sink.chunk(&mut head);
    // One byte past the size seen at open tells a growing file from a whole one.
    sink.read_from(&mut file.take(rest))
        .map_err(|e| anyhow!("reading it: {}", describe(&e)))?;
    sink.end_file()
        .map_err(|_| anyhow!("it changed while it was read ({size} bytes when opened)"))?;
    let (count, tools) = sink.finish();
    Ok(Counted {
        commit: String::new(),
        commit_source: CommitSource::Worktree,
        count,
        sha256: String::new(),
        tools: tools.map(ToolFeed::finish),
    })
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
/// A pax comment that is not a commit id is read past with a warning naming
/// `name` (escaped): no commit is stamped (docs/method.md, "Which commit").
fn count_reader<R: Read + Send>(
    reader: R,
    name: &str,
    matcher: &Matcher,
    find_tools: Option<Roles>,
) -> Result<Counted> {
    let mut tee = Tee::new(reader, None, &NoProgress);
    let ArchiveCount {
        commit,
        comment_problem,
        trees,
        tools,
        ..
    } = archive::count_archive_and_tools(
        &mut tee,
        matcher,
        &[Vec::new()],
        find_tools,
        &mut |_| {},
    )?;
    if let Some(problem) = comment_problem {
        messages::warning(format!(
            "'{name}': {problem}; GNU tar and Python ignore such a comment, so the archive is read and no commit is stamped"
        ));
    }
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
        tools: tools.and_then(|t| t.into_iter().next()),
    })
}

/// Counts the files of a directory, stamped with `HEAD` when they are exactly
/// `HEAD`'s files, else as a work tree.
fn count_dir(dir: &Path, matcher: &Matcher, find_tools: Option<Roles>) -> Result<Counted> {
    let head = git::head(dir);
    let walked = walk(dir, matcher, head.is_some(), find_tools)?;
    let (commit, commit_source) = match head {
        Some(head) if git::is_head_tree(dir, &head, walked.paths) => (head.id, CommitSource::Head),
        _ => (String::new(), CommitSource::Worktree),
    };
    Ok(Counted {
        commit,
        commit_source,
        count: walked.tree,
        sha256: String::new(),
        tools: walked.tools,
    })
}

/// Counts the tree of revision `rev` of the git repository `dir` is in (a work tree
/// or a bare repository), blob by blob. Uncommitted changes do not count.
fn count_git(
    dir: &Path,
    rev: &str,
    matcher: &Matcher,
    find_tools: Option<Roles>,
) -> Result<Counted> {
    if dir.as_os_str() == "-" {
        bail!("--git counts a revision of a git repository, not an archive on stdin");
    }
    let meta = fs::metadata(dir).map_err(|e| anyhow!(describe(&e)))?;
    if !meta.is_dir() {
        bail!("not a directory: --git counts a revision of the git repository it is in");
    }
    let (commit, mut count, tools) = git::count_revision(dir, rev, matcher, find_tools)?;
    count.sort_files();
    Ok(Counted {
        commit,
        commit_source: CommitSource::Archive,
        count,
        sha256: String::new(),
        tools,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::TreeCount;
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
        assert_eq!(config.columns, Columns::default_columns());
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
        let msg = usage_message(&["--require-hints", "--terms", "readonly,x"]);
        assert!(msg.contains("there is none"), "{msg}");
        // A spelling the sdk profile declares spells its hint.
        let config = configure(&args(&["--require-hints", "--terms", "read_only_hint,x"])).unwrap();
        assert_eq!(config.gate, Some(vec![0]));
        let config = configure(&args(&[
            "--require-hints",
            "--terms",
            "x",
            "--profile",
            "sdk",
        ]))
        .unwrap();
        assert_eq!(config.gate, Some(vec![1, 2, 3, 4]));
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
                tools: None,
            })
        };
        let row = |repo: &str, outcome| Row {
            key: TreeKey {
                repo: repo.into(),
                pinned: None,
                subfolder: None,
                as_of: None,
            },
            server: None,
            note: None,
            outcome,
        };
        let table = Table {
            columns: Columns::new(&["readOnlyHint", "destructiveHint"], &["annotations"]).unwrap(),
            date: "2026-01-01".into(),
            rows: vec![
                row("silent", counted(vec![0, 0, 5])),
                row("hinted", counted(vec![0, 1, 0])),
                row("broken", Err(Failure::new(FailureKind::Other, "x"))),
            ],
            dating: Default::default(),
            packages: Default::default(),
        };
        let silent: Vec<&str> = table.zero_in(&[0, 1]).map(Row::repo).collect();
        assert_eq!(silent, ["silent"]);
        let silent: Vec<&str> = table.zero_in(&[0]).map(Row::repo).collect();
        assert_eq!(silent, ["silent", "hinted"]);
    }
}
