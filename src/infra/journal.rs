//! The file side of a resume journal, one for `census --resume` and `probe --servers
//! --resume`: a head line naming the run, then one JSON line per finished item, each
//! appended with one write and flushed to the disk (`fdatasync`) before the next. A
//! last line cut short by a kill is dropped from the file; a journal whose head is
//! another run's is refused by the caller's check before anything is read or written.
//! What a line holds, and what a head must match, is the caller's (`census::journal`,
//! `probe::journal`).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result};
use serde::Serialize;

use crate::infra::messages;
use crate::infra::sanitize::sanitize;

/// One whole line after the head: its 1-based line number and its bytes.
pub type Numbered = (usize, Vec<u8>);

/// Holds an open journal, appended to as items finish.
#[derive(Debug)]
pub struct Appender {
    path: PathBuf,
    /// `None` once a write failed: the run goes on, unrecorded.
    file: Mutex<Option<File>>,
    /// What a rerun does again when the journal is lost, for the warning.
    lost: &'static str,
}

/// Opens the journal at `path`, creating it (and its folder) with `head` as its
/// first line when there is none, and returns it with the whole lines after its
/// head, each with its 1-based line number.
///
/// `check_head` sees the first line of a journal that is there, and refuses one of
/// another run. A last line cut short is dropped, with a note saying `torn`. `lost`
/// says what a rerun does again when a write fails (`"probe its servers again"`).
pub fn open(
    path: &Path,
    head: &impl Serialize,
    check_head: impl FnOnce(&[u8]) -> Result<()>,
    torn: &str,
    lost: &'static str,
) -> Result<(Appender, Vec<Numbered>)> {
    let shown = sanitize(path.display().to_string());
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).with_context(|| format!("creating '{}'", dir.display()))?;
    }
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e).with_context(|| format!("reading '{shown}'")),
    };
    // Everything up to the last line break was written whole; a rest is a line a
    // kill cut short.
    let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let mut pieces = bytes[..whole].split(|&b| b == b'\n');
    pieces.next_back(); // the empty piece after the last line break
    let is_new = match pieces.next() {
        None => true,
        Some(first) => {
            check_head(first)?;
            false
        }
    };
    let lines = pieces
        .enumerate()
        .map(|(i, line)| (i + 2, line.to_vec()))
        .collect();
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("opening '{shown}'"))?;
    if whole < bytes.len() {
        messages::note(format!(
            "'{shown}' ends in a line cut short, which is dropped: {torn}"
        ));
        file.set_len(whole as u64)
            .and_then(|()| file.sync_all())
            .with_context(|| format!("cutting the last line of '{shown}'"))?;
    }
    if is_new {
        let mut text = serde_json::to_string(head).context("writing the journal's head")?;
        text.push('\n');
        file.set_len(0)
            .and_then(|()| file.write_all(text.as_bytes()))
            .and_then(|()| file.sync_all())
            .with_context(|| format!("writing '{shown}'"))?;
        // The file's name must survive a crash as well as its bytes.
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            File::open(dir).and_then(|d| d.sync_all()).ok();
        }
    }
    let appender = Appender {
        path: path.to_path_buf(),
        file: Mutex::new(Some(file)),
        lost,
    };
    Ok((appender, lines))
}

impl Appender {
    /// Returns where the journal is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends each line `lines` gives (without its line break), flushed to the disk
    /// one by one. A line that cannot be made or written is reported once; the run
    /// goes on without a journal, since its tables are still right.
    pub fn append(&self, lines: impl IntoIterator<Item = Result<String>>) {
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        for line in lines {
            let Some(open) = file.as_mut() else { return };
            let written = line.and_then(|mut text| {
                text.push('\n');
                open.write_all(text.as_bytes())?;
                open.sync_data()?;
                Ok(())
            });
            if let Err(e) = written {
                messages::warning(format!(
                    "writing '{}' failed ({}); the run goes on, but a rerun will {}",
                    sanitize(self.path.display().to_string()),
                    sanitize(format!("{e:#}")),
                    self.lost
                ));
                *file = None;
            }
        }
    }
}
