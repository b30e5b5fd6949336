//! Walks a local directory in parallel and counts every regular file it keeps.
//!
//! This module owns which files of a directory make its tree: ignore files honoured
//! (only the tree's own), hidden files read, `.git` skipped, symbolic links neither
//! followed nor counted, and a file that changes while it is read an error. It does
//! not decide how a row is stamped (see `git`) and prints nothing.

use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Mutex;

use anyhow::{anyhow, bail, Context, Result};
use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};

use crate::count::sink::{SizeMismatch, TreeSink};
use crate::count::{Matcher, TreeCount};
use crate::tools::feed::ToolFeed;
use crate::tools::FoundTools;
use crate::tools::Roles;

/// Holds the result of walking a directory.
pub struct Walked {
    pub tree: TreeCount,
    /// Every file counted, when asked for; unsorted.
    pub paths: Vec<Vec<u8>>,
    /// The tool definitions found, when asked for.
    pub tools: Option<FoundTools>,
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
/// partial count is never returned. With `find_tools`, each file is also handed to
/// the tool finder as it is read (see `tools::feed`).
pub fn walk(
    dir: &Path,
    matcher: &Matcher,
    keep_paths: bool,
    find_tools: Option<Roles>,
) -> Result<Walked> {
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
        find_tools,
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
        tools: match find_tools {
            Some(roles) => Some(
                merged
                    .tools
                    .unwrap_or_else(|| ToolFeed::new(roles))
                    .finish(),
            ),
            None => None,
        },
    })
}

/// Holds what every worker has handed back.
#[derive(Default)]
struct Merged {
    tree: Option<TreeCount>,
    paths: Vec<Vec<u8>>,
    tools: Option<ToolFeed>,
    errors: Vec<String>,
}

/// Builds one [`Worker`] per walking thread.
struct Workers<'s> {
    root: &'s Path,
    matcher: &'s Matcher,
    keep_paths: bool,
    find_tools: Option<Roles>,
    shared: &'s Mutex<Merged>,
}

impl<'s> ParallelVisitorBuilder<'s> for Workers<'s> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Worker {
            root: self.root,
            shared: self.shared,
            keep_paths: self.keep_paths,
            sink: TreeSink::new(self.matcher, self.find_tools),
            paths: Vec::new(),
            errors: Vec::new(),
        })
    }
}

/// Counts the files one walking thread is given, without locking, and merges its
/// counts into the shared total when the walk is over (on drop).
struct Worker<'s> {
    root: &'s Path,
    shared: &'s Mutex<Merged>,
    keep_paths: bool,
    /// This thread's share of the tree: its counts and tool definitions.
    sink: TreeSink<'s>,
    paths: Vec<Vec<u8>>,
    errors: Vec<String>,
}

impl Worker<'_> {
    /// Counts one regular file, reading at most the size it had when opened: a
    /// file that grows, shrinks or stops being a regular file while it is read is
    /// an error, never a count of bytes nobody can name.
    fn count_file(&mut self, entry: &DirEntry) -> Result<()> {
        let path = entry.path();
        let file = open_regular(path).with_context(|| format!("opening '{}'", path.display()))?;
        let size = file
            .metadata()
            .with_context(|| format!("reading '{}'", path.display()))?
            .len();
        self.sink.begin_file(relative_bytes(self.root, path), size);
        // One byte past the size seen at open tells a growing file from a whole one.
        self.sink
            .read_from(&mut file.take(size + 1))
            .with_context(|| format!("reading '{}'", path.display()))?;
        self.sink
            .end_file()
            .map_err(|SizeMismatch { announced, read }| {
                anyhow!(
                    "'{}' changed while it was read ({} bytes when opened, {} read)",
                    path.display(),
                    announced,
                    if read > announced {
                        "more".to_string()
                    } else {
                        read.to_string()
                    }
                )
            })?;
        if self.keep_paths {
            self.paths.push(relative(self.root, path));
        }
        Ok(())
    }
}

/// Opens `path` for reading without blocking on a fifo (one swapped in after the
/// listing said it was a regular file), and checks that what was opened is a
/// regular file.
fn open_regular(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    /// `O_NONBLOCK` on Linux; regular files ignore it.
    #[cfg(target_os = "linux")]
    const NONBLOCK: i32 = 0o4000;
    #[cfg(not(target_os = "linux"))]
    const NONBLOCK: i32 = 0x0004;
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::other("it is no longer a regular file"));
    }
    Ok(file)
}

/// Returns `path` relative to the walked directory `root`, as raw bytes.
fn relative(root: &Path, path: &Path) -> Vec<u8> {
    relative_bytes(root, path).to_vec()
}

/// Returns `path` relative to the walked directory `root`, borrowed.
fn relative_bytes<'p>(root: &Path, path: &'p Path) -> &'p [u8] {
    path.strip_prefix(root)
        .unwrap_or(path)
        .as_os_str()
        .as_bytes()
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
            for (tree, tools) in self.sink.take_trees() {
                match &mut shared.tree {
                    Some(total) => total.merge(tree),
                    None => shared.tree = Some(tree),
                }
                if let Some(tools) = tools {
                    match &mut shared.tools {
                        Some(total) => total.merge(tools),
                        None => shared.tools = Some(tools),
                    }
                }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walk_reports_paths_relative_to_the_root_as_bytes() {
        let tmp = tempfile::TempDir::new().unwrap();
        let root = tmp.path().join("t");
        fs::create_dir_all(root.join("d")).unwrap();
        fs::write(root.join(OsStr::from_bytes(b"n\xffame")), b"readOnlyHint").unwrap();
        fs::write(root.join("d/b.txt"), b"x").unwrap();
        fs::write(root.join(".hidden"), b"openWorldHint").unwrap();
        let matcher = Matcher::new(&crate::count::terms::DEFAULT_TERMS).unwrap();
        let walked = walk(&root, &matcher, true, None).unwrap();
        let mut paths = walked.paths;
        paths.sort();
        assert_eq!(paths, [&b".hidden"[..], b"d/b.txt", b"n\xffame"]);
        assert_eq!(walked.tree.files_walked, 3);
        assert_eq!(walked.tree.bytes_read, 26);
        assert_eq!(walked.tree.counts, [1, 0, 0, 1]);
        let hits: Vec<Vec<u8>> = walked.tree.files.iter().map(|f| f.unwrap().path).collect();
        assert_eq!(hits, [&b".hidden"[..], b"n\xffame"], "sorted by path bytes");
        // Without being asked, the walk keeps no path list.
        assert!(walk(&root, &matcher, false, None).unwrap().paths.is_empty());
    }
}
