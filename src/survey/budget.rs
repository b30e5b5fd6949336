//! The disk a wire survey keeps: each package's install folder is removed once its
//! server is probed (its lock is kept with the tables), unless `--keep-installs`
//! keeps it for the next run; and npm and uv share one download cache per run, so
//! that a dependency many servers need is downloaded once, removed with the run.
//!
//! A run's downloads are bounded too: past [`MAX_DOWNLOADS`] they are emptied
//! between installs, once those under way end (new ones wait), so that a survey of
//! thousands of packages, several at once, holds at most that much of them between
//! installs. An install that fails is
//! removed like a probed one (`install` removes a partial one, `servers` one whose
//! program could not be chosen).
//!
//! With `--keep-installs` the download caches are kept too, in the package cache's
//! `downloads/`, beside the prefixes they filled, and not bounded. docs/probe.md,
//! "Within a disk budget", says what stays on disk when.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, RwLock, RwLockReadGuard};

use anyhow::{Context, Result};

use crate::infra::messages;
use crate::infra::sanitize::sanitize;

/// The prefix of a run's own download folder in the package cache.
const RUN_PREFIX: &str = ".run-";
/// The most bytes a run's downloads (npm's, uv's and pip's caches) keep between
/// installs, unless installs are kept; and the most a package cache should hold
/// after a survey that keeps none.
pub const MAX_DOWNLOADS: u64 = 256 << 20;

/// Holds what a run keeps on disk and for how long.
#[derive(Debug)]
pub struct Budget {
    is_kept: bool,
    downloads: PathBuf,
    /// The run's own download folder, removed when the run ends.
    _run: Option<tempfile::TempDir>,
    /// How many servers are using each package's install right now.
    in_use: Mutex<HashMap<String, usize>>,
    /// Held for reading by each install under way, for writing while the
    /// downloads are emptied.
    installs: RwLock<()>,
    /// The most bytes the downloads keep between installs.
    max_downloads: u64,
}

impl Budget {
    /// Makes the download folder of a run whose packages are installed in `cache`:
    /// a folder of its own (named after the process, so that one a killed run left
    /// is removed by the next), or, when installs are kept, `cache/downloads`.
    pub fn new(cache: &Path, is_kept: bool) -> Result<Budget> {
        std::fs::create_dir_all(cache)
            .with_context(|| format!("creating '{}'", cache.display()))?;
        remove_abandoned(cache);
        let (downloads, run) = match is_kept {
            true => (cache.join("downloads"), None),
            false => {
                let run = tempfile::Builder::new()
                    .prefix(&format!("{RUN_PREFIX}{}-", std::process::id()))
                    .tempdir_in(cache)
                    .with_context(|| format!("creating a folder in '{}'", cache.display()))?;
                (run.path().to_path_buf(), Some(run))
            }
        };
        Ok(Budget {
            is_kept,
            downloads,
            _run: run,
            in_use: Mutex::new(HashMap::new()),
            installs: RwLock::new(()),
            max_downloads: MAX_DOWNLOADS,
        })
    }

    /// Says that an install is under way until the guard is dropped: the downloads
    /// are not emptied under it.
    pub fn installing(&self) -> RwLockReadGuard<'_, ()> {
        self.installs.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Empties the run's downloads when they take more than the bound; returns the
    /// bytes removed. Past the bound it waits for the installs under way to end, and
    /// new ones wait for it (a writer waiting on the lock holds back new readers), so
    /// that the bound holds however many servers are probed at once: with several,
    /// a moment with no install under way may never come by itself. Kept installs
    /// keep their downloads whole.
    pub fn trim(&self) -> u64 {
        if self.is_kept || disk_size(&self.downloads) <= self.max_downloads {
            return 0;
        }
        let _alone = self.installs.write().unwrap_or_else(|e| e.into_inner());
        let size = disk_size(&self.downloads);
        if size <= self.max_downloads {
            return 0;
        }
        for entry in std::fs::read_dir(&self.downloads)
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = entry.path();
            let removed = match entry.file_type() {
                Ok(t) if t.is_dir() => std::fs::remove_dir_all(&path),
                _ => std::fs::remove_file(&path),
            };
            if let Err(e) = removed {
                messages::warning(format!(
                    "could not remove the downloads '{}': {e}",
                    sanitize(path.display().to_string())
                ));
            }
        }
        size.saturating_sub(disk_size(&self.downloads))
    }

    /// Removes the run's own downloads and, when the run keeps no install and the
    /// package cache still holds more than [`MAX_DOWNLOADS`] (installs kept by
    /// earlier runs, which this one leaves alone), says so and returns the bytes.
    pub fn finish(self, cache: &Path) -> Option<u64> {
        let is_kept = self.is_kept;
        drop(self);
        if is_kept {
            return None;
        }
        let size = disk_size(cache);
        if size <= MAX_DOWNLOADS {
            return None;
        }
        messages::note(format!(
            "the package cache '{}' holds {} MiB after this survey, installs kept by earlier \
             runs with --keep-installs; remove the folder to free them",
            sanitize(cache.display().to_string()),
            size >> 20
        ));
        Some(size)
    }

    /// Returns the folder npm's and uv's caches go in for this run.
    pub fn downloads(&self) -> &Path {
        &self.downloads
    }

    /// Says that a server is about to install, or use, the package `key`: its
    /// install is not removed under it.
    pub fn hold(&self, key: &str) {
        let mut in_use = self.in_use.lock().unwrap_or_else(|e| e.into_inner());
        *in_use.entry(key.to_string()).or_default() += 1;
    }

    /// Says that a server is done with the package `key`, installed in `prefix`
    /// when it was; the last one done removes the install unless it is kept.
    pub fn release(&self, key: &str, prefix: Option<&Path>) {
        let mut in_use = self.in_use.lock().unwrap_or_else(|e| e.into_inner());
        let left = in_use.get_mut(key).map(|n| {
            *n = n.saturating_sub(1);
            *n
        });
        if left == Some(0) {
            in_use.remove(key);
            // Removed while the lock is held: a server holding the key after this
            // finds no install and makes it again.
            if let (false, Some(prefix)) = (self.is_kept, prefix) {
                if let Err(e) = std::fs::remove_dir_all(prefix) {
                    if e.kind() != std::io::ErrorKind::NotFound {
                        messages::warning(format!(
                            "could not remove the install '{}': {e}",
                            sanitize(prefix.display().to_string())
                        ));
                    }
                }
            }
        }
    }
}

/// Returns the bytes the files under `dir` take (apparent sizes; links not followed).
pub fn disk_size(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(entry.path()),
                Ok(t) if t.is_file() => total += entry.metadata().map_or(0, |m| m.len()),
                _ => {}
            }
        }
    }
    total
}

/// The prefix of a partial npm install's folder, followed by its run's process id.
pub const PARTIAL_PREFIX: &str = ".partial-";
/// The file of a PyPI venv being made that names its run's process id; the venv is
/// complete once `.complete` is written.
pub const OWNER_FILE: &str = ".owner";

/// Returns the name prefix of this run's partial installs: `.partial-PID-`.
pub fn partial_prefix() -> String {
    format!("{PARTIAL_PREFIX}{}-", std::process::id())
}

/// Removes what runs whose process is gone (killed before they could remove it)
/// left in the cache: their download folders, their partial npm installs
/// (`npm/.partial-PID-...`) and their PyPI venvs never completed (`pypi/*` with an
/// `.owner` and no `.complete`).
fn remove_abandoned(cache: &Path) {
    let pid_of = |name: &str, prefix: &str| -> Option<u32> {
        name.strip_prefix(prefix)?.split('-').next()?.parse().ok()
    };
    for entry in std::fs::read_dir(cache.join("npm"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let name = entry.file_name();
        if pid_of(&name.to_string_lossy(), PARTIAL_PREFIX).is_some_and(|pid| !is_alive(pid)) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
    for entry in std::fs::read_dir(cache.join("pypi"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let venv = entry.path();
        let owner = std::fs::read_to_string(venv.join(OWNER_FILE)).ok();
        let owner = owner.and_then(|text| text.trim().parse::<u32>().ok());
        if !venv.join(".complete").exists() && owner.is_some_and(|pid| !is_alive(pid)) {
            let _ = std::fs::remove_dir_all(&venv);
        }
    }
    let Ok(entries) = std::fs::read_dir(cache) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(RUN_PREFIX))
            .and_then(|n| n.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if !is_alive(pid) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Returns whether a process of id `pid` is alive here.
fn is_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // Signal 0 checks the process exists without touching it; EPERM means it does.
    // SAFETY: kill with signal 0 sends nothing.
    let sent = unsafe { libc::kill(pid, 0) };
    sent == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Returns `why` naming the folder whose disk is full, when it says the disk is
/// full (ENOSPC, as npm, uv, pip and the system say it); else `why` as it is.
pub fn disk_full(why: String, folder: &Path) -> String {
    let is_full = ["ENOSPC", "No space left on device", "os error 28"]
        .iter()
        .any(|sign| why.contains(sign));
    match is_full {
        true => format!(
            "the disk holding '{}' is full ({} free): {why}",
            folder.display(),
            free(folder).map_or("unknown".to_string(), |b| format!("{b} bytes"))
        ),
        false => why,
    }
}

/// Returns the bytes free to an unprivileged user on the file system of `folder`.
fn free(folder: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(folder.as_os_str().as_bytes()).ok()?;
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: path is a NUL-terminated string and stat is written by statvfs.
    let done = unsafe { libc::statvfs(path.as_ptr(), stat.as_mut_ptr()) };
    if done != 0 {
        return None;
    }
    // SAFETY: statvfs succeeded, so it filled stat.
    let stat = unsafe { stat.assume_init() };
    // The fields are 32 bits wide on some targets.
    #[allow(clippy::useless_conversion)]
    let free = u64::from(stat.f_bavail) * u64::from(stat.f_frsize);
    Some(free)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_server_done_removes_the_install_unless_kept() {
        let cache = tempfile::tempdir().unwrap();
        for is_kept in [false, true] {
            let budget = Budget::new(cache.path(), is_kept).unwrap();
            let prefix = cache.path().join("npm/x@1");
            std::fs::create_dir_all(&prefix).unwrap();
            budget.hold("npm/x@1");
            budget.hold("npm/x@1");
            budget.release("npm/x@1", Some(&prefix));
            assert!(prefix.is_dir(), "removed while another server used it");
            budget.release("npm/x@1", Some(&prefix));
            assert_eq!(prefix.is_dir(), is_kept);
        }
    }

    #[test]
    fn a_run_removes_its_downloads_and_those_of_runs_gone() {
        let cache = tempfile::tempdir().unwrap();
        // No process has id 0x7fff_fff0 here: a killed run's folder.
        let gone = cache.path().join(format!("{RUN_PREFIX}2147483632-abc"));
        std::fs::create_dir_all(gone.join("npm")).unwrap();
        let budget = Budget::new(cache.path(), false).unwrap();
        assert!(!gone.exists());
        let downloads = budget.downloads().to_path_buf();
        std::fs::write(downloads.join("f"), b"x").unwrap();
        // A second run alongside keeps the first's folder.
        let other = Budget::new(cache.path(), false).unwrap();
        assert!(downloads.is_dir());
        drop(budget);
        assert!(!downloads.exists());
        drop(other);
        assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 0);
    }

    #[test]
    fn downloads_past_the_bound_are_emptied_between_installs_unless_kept() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let cache = tempfile::tempdir().unwrap();
        for is_kept in [false, true] {
            let mut budget = Budget::new(cache.path(), is_kept).unwrap();
            budget.max_downloads = 1000;
            let uv = budget.downloads().join("uv/wheels");
            std::fs::create_dir_all(&uv).unwrap();
            std::fs::write(uv.join("small"), vec![0; 600]).unwrap();
            assert_eq!(budget.trim(), 0, "within the bound");
            std::fs::write(uv.join("large"), vec![0; 600]).unwrap();
            // Another server's install under way: the trim waits for its end, and
            // then empties the downloads, however long it takes.
            let ended = AtomicBool::new(false);
            let (started, underway) = std::sync::mpsc::channel();
            let removed = std::thread::scope(|scope| {
                scope.spawn(|| {
                    let _under_way = budget.installing();
                    started.send(()).unwrap();
                    std::thread::sleep(std::time::Duration::from_millis(200));
                    assert_eq!(disk_size(budget.downloads()), 1200, "emptied under it");
                    ended.store(true, Ordering::SeqCst);
                });
                underway.recv().unwrap();
                budget.trim()
            });
            match is_kept {
                false => {
                    assert!(ended.load(Ordering::SeqCst), "did not wait for the install");
                    assert_eq!(removed, 1200);
                    assert!(budget.downloads().is_dir());
                    assert_eq!(std::fs::read_dir(budget.downloads()).unwrap().count(), 0);
                }
                true => assert_eq!(removed, 0, "kept downloads are kept whole"),
            }
        }
    }

    #[test]
    fn a_run_that_keeps_nothing_says_when_the_cache_holds_more_than_the_bound() {
        let cache = tempfile::tempdir().unwrap();
        let budget = Budget::new(cache.path(), false).unwrap();
        std::fs::write(budget.downloads().join("f"), b"x").unwrap();
        assert_eq!(budget.finish(cache.path()), None);
        // An install an earlier run kept: sparse, so that it takes no disk.
        let kept = cache.path().join("pypi/x@1");
        std::fs::create_dir_all(&kept).unwrap();
        let file = std::fs::File::create(kept.join("blob")).unwrap();
        file.set_len(MAX_DOWNLOADS + 1).unwrap();
        let budget = Budget::new(cache.path(), false).unwrap();
        assert_eq!(budget.finish(cache.path()), Some(MAX_DOWNLOADS + 1));
        let budget = Budget::new(cache.path(), true).unwrap();
        assert_eq!(budget.finish(cache.path()), None, "kept by this run too");
    }

    #[test]
    fn what_a_killed_run_left_half_installed_is_removed_by_the_next() {
        let cache = tempfile::tempdir().unwrap();
        // No process has id 0x7fff_fff0 here; this one is alive.
        let (gone, alive) = (2147483632u32, std::process::id());
        let npm = cache.path().join("npm");
        let pypi = cache.path().join("pypi");
        let made = [
            npm.join(format!("{PARTIAL_PREFIX}{gone}-abc")),
            npm.join(format!("{PARTIAL_PREFIX}{alive}-abc")),
            npm.join("x@1.0.0"),
            pypi.join("killed@1.0.0"),
            pypi.join("underway@1.0.0"),
            pypi.join("done@1.0.0"),
            pypi.join("unowned@1.0.0"),
        ];
        for dir in &made {
            std::fs::create_dir_all(dir.join("lib")).unwrap();
        }
        std::fs::write(pypi.join("killed@1.0.0").join(OWNER_FILE), gone.to_string()).unwrap();
        std::fs::write(
            pypi.join("underway@1.0.0").join(OWNER_FILE),
            alive.to_string(),
        )
        .unwrap();
        std::fs::write(pypi.join("done@1.0.0").join(OWNER_FILE), gone.to_string()).unwrap();
        std::fs::write(pypi.join("done@1.0.0/.complete"), "").unwrap();
        let _budget = Budget::new(cache.path(), false).unwrap();
        let kept: Vec<bool> = made.iter().map(|d| d.exists()).collect();
        assert_eq!(kept, [false, true, true, false, true, true, true]);
    }

    #[test]
    fn a_full_disk_is_named_with_its_folder() {
        let why = disk_full("npm install failed: ENOSPC: write".into(), Path::new("/"));
        assert!(why.starts_with("the disk holding '/' is full ("), "{why}");
        assert!(why.ends_with("npm install failed: ENOSPC: write"), "{why}");
        assert_eq!(disk_full("exit 1".into(), Path::new("/")), "exit 1");
    }
}
