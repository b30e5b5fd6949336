//! Where a scanned path's files are, for the SARIF log (`lint::sarif`): the base its
//! paths are relative to (`%SRCROOT%`) and the scanned path inside it.
//!
//! Code scanning places an alert at a path relative to the repository's top, so a
//! directory inside a git work tree has that top as its base, and a directory in none
//! is its own base; a directory named relatively or absolutely gives the same paths.
//! A single file is a directory's (its parent's). An archive's paths are its members'
//! paths, and its base the archive's root. It asks git only where the directory is
//! in its work tree (`git::work_tree_prefix`); it reads no file.

use std::fs;
use std::path::{Path, PathBuf};

use crate::lint::sarif::Root;
use crate::scan::git;

/// Holds where one scanned path's files are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    pub root: Root,
    /// The scanned path relative to the base of its directory (`/`-separated, empty
    /// for the base itself), which names the run.
    pub scanned: String,
    /// What goes before a path inside the tree to make it relative to `root`.
    pub prefix: String,
}

/// Returns where the files of `target` (a path as given on the command line, `-` for
/// stdin) are; `is_archive` says the path was read as an archive.
pub fn of(target: &Path, is_archive: bool) -> Origin {
    if target.as_os_str() == "-" {
        return Origin {
            root: Root::Archive("-".into()),
            scanned: "stdin".into(),
            prefix: String::new(),
        };
    }
    if target.is_dir() {
        let (root, scanned) = directory(target);
        return Origin {
            root: Root::Dir(root),
            prefix: scanned.clone(),
            scanned,
        };
    }
    // A file: placed as its directory is, under its own name.
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let (root, dir) = directory(parent);
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let scanned = join(&dir, &name);
    match is_archive {
        true => Origin {
            root: Root::Archive(target.to_string_lossy().into_owned()),
            scanned,
            prefix: String::new(),
        },
        false => Origin {
            root: Root::Dir(root),
            scanned,
            prefix: dir,
        },
    }
}

/// Returns the base of a directory and its path inside it: the top of the git work
/// tree it is in, else the directory itself (absolute, symbolic links resolved, as
/// git reads them).
fn directory(dir: &Path) -> (PathBuf, String) {
    let absolute = fs::canonicalize(dir).unwrap_or_else(|_| absolute(dir));
    let Some(prefix) = git::work_tree_prefix(&absolute) else {
        return (absolute, String::new());
    };
    let prefix = String::from_utf8_lossy(&prefix)
        .trim_end_matches('/')
        .to_string();
    if prefix.is_empty() {
        return (absolute, prefix);
    }
    // The top is the directory less as many components as the prefix has.
    let depth = prefix.split('/').count();
    let mut top = absolute.clone();
    for _ in 0..depth {
        if !top.pop() {
            return (absolute, String::new());
        }
    }
    match absolute.strip_prefix(&top) {
        Ok(rest) if rest.to_string_lossy() == prefix => (top, prefix),
        _ => (absolute, String::new()),
    }
}

/// Returns `path` made absolute against the current directory, as it is spelt.
fn absolute(path: &Path) -> PathBuf {
    std::env::current_dir()
        .map(|cwd| cwd.join(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// Returns `dir/name`, or `name` when `dir` is empty.
fn join(dir: &str, name: &str) -> String {
    match dir {
        "" => name.to_string(),
        dir => format!("{dir}/{name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_in_no_work_tree_is_its_own_base_however_named() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("t");
        fs::create_dir(&dir).unwrap();
        fs::write(dir.join("s.ts"), "x").unwrap();
        let real = fs::canonicalize(&dir).unwrap();
        // A temporary folder may sit inside a work tree on a developer's machine.
        if git::work_tree_prefix(&real).is_some() {
            return;
        }
        let origin = of(&dir, false);
        assert_eq!(origin.root, Root::Dir(real.clone()));
        assert_eq!((origin.scanned.as_str(), origin.prefix.as_str()), ("", ""));
        let file = of(&dir.join("s.ts"), false);
        assert_eq!(file.root, Root::Dir(real));
        assert_eq!((file.scanned.as_str(), file.prefix.as_str()), ("s.ts", ""));
        let archive = of(&dir.join("s.ts"), true);
        assert_eq!(
            archive.root,
            Root::Archive(dir.join("s.ts").to_string_lossy().into_owned())
        );
        assert_eq!(archive.scanned, "s.ts");
        assert_eq!(of(Path::new("-"), true).scanned, "stdin");
    }
}
