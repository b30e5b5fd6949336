//! The journal of a `probe --servers` run (`--resume`): every server that listed is
//! appended to `OUT/wire-DATE.journal` as soon as its probe is done, so that a run that
//! was killed, started again with the same command, probes only the servers the
//! journal does not hold, and writes the tables an uninterrupted run writes.
//!
//! A line is one JSON object: the server's name and what its probe gave (the listing
//! as received, the artifact, the lock). The first line names the run (the date and a
//! fingerprint of the servers file): a journal of another run is refused, never mixed
//! in. Each line is written with one append and flushed to the disk before the next; a
//! last line cut short by a kill is dropped and its server probed again. Only servers
//! that listed are recorded: one that failed is tried again on the rerun. The census's
//! journal (`census::journal`) follows the same rules for trees. This module reads and
//! writes the journal; it probes nothing.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::session::Listing;
use crate::infra::error::UsageError;
use crate::infra::messages;
use crate::infra::sanitize::sanitize;

/// What the first line says, so that a journal from another program is not read.
const MAGIC: &str = "mcp-hint-census probe --servers journal";
/// The journal's format; a journal of another version is refused.
const VERSION: u32 = 1;

/// Holds the first line: the run's date, its number of servers and a fingerprint of
/// its servers file.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
struct Head {
    journal: String,
    version: u32,
    date: String,
    servers: usize,
    fingerprint: String,
}

/// Holds one server that listed, as it is written: what its probe gave.
#[derive(Debug, Serialize)]
pub struct Record<'a> {
    pub server: &'a str,
    pub listing: &'a Listing,
    pub artifact: &'a str,
    pub skipped_lines: usize,
    pub before: &'a str,
    pub before_note: &'a str,
    /// The Python version a PyPI package ran on.
    pub python: &'a str,
    /// The lock's text and its file extension.
    pub lock: Option<(&'a str, &'a str)>,
}

/// Holds one server that listed, as it is read back.
#[derive(Debug, Deserialize)]
pub struct Line {
    pub server: String,
    pub listing: Listing,
    pub artifact: String,
    pub skipped_lines: usize,
    pub before: String,
    #[serde(default)]
    pub before_note: String,
    #[serde(default)]
    pub python: String,
    /// The lock's text and its file extension.
    pub lock: Option<(String, String)>,
}

/// Holds an open journal, appended to as servers list.
pub struct Journal {
    path: PathBuf,
    /// `None` once a write failed: the run goes on, unrecorded.
    file: Mutex<Option<File>>,
}

/// Returns the journal's path in the output folder `out` for a run dated `date`.
pub fn path_in(out: &Path, date: &str) -> PathBuf {
    out.join(format!("wire-{date}.journal"))
}

/// Opens the journal at `path` for a run dated `date` over the servers file whose
/// bytes are `file` and which lists `servers` servers, creating it when there is none;
/// returns it with the servers it already holds, by name.
///
/// A journal of another run is a [`UsageError`] naming what differs. A last line cut
/// short is dropped, with a note; a line that does not read is ignored, with a
/// warning naming it, and its server probed again.
pub fn open(
    path: &Path,
    date: &str,
    file: &[u8],
    servers: usize,
) -> Result<(Journal, HashMap<String, Line>)> {
    let shown = sanitize(path.display().to_string());
    let head = Head {
        journal: MAGIC.to_string(),
        version: VERSION,
        date: date.to_string(),
        servers,
        fingerprint: format!("{:x}", Sha256::digest(file)),
    };
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e).with_context(|| format!("reading '{shown}'")),
    };
    // Everything up to the last line break was written whole; a rest is a line a
    // kill cut short.
    let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let mut lines = bytes[..whole].split(|&b| b == b'\n');
    lines.next_back(); // the empty piece after the last line break
    let is_new = match lines.next() {
        None => true,
        Some(first) => {
            check_head(first, &head, &shown)?;
            false
        }
    };
    let mut done = HashMap::new();
    for (i, line) in lines.enumerate() {
        match serde_json::from_slice::<Line>(line) {
            Ok(line) => {
                done.insert(line.server.clone(), line);
            }
            Err(e) => messages::warning(format!(
                "'{shown}' line {} is not a server's probe ({e}), so it is ignored and its server probed again",
                i + 2
            )),
        }
    }
    let mut out = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("opening '{shown}'"))?;
    if whole < bytes.len() {
        messages::note(format!(
            "'{shown}' ends in a line cut short, which is dropped: its server is probed again"
        ));
        out.set_len(whole as u64)
            .and_then(|()| out.sync_all())
            .with_context(|| format!("cutting the last line of '{shown}'"))?;
    }
    if is_new {
        let mut text = serde_json::to_string(&head).context("writing the journal's head")?;
        text.push('\n');
        out.set_len(0)
            .and_then(|()| out.write_all(text.as_bytes()))
            .and_then(|()| out.sync_all())
            .with_context(|| format!("writing '{shown}'"))?;
        // The file's name must survive a crash as well as its bytes.
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            File::open(dir).and_then(|d| d.sync_all()).ok();
        }
    }
    let journal = Journal {
        path: path.to_path_buf(),
        file: Mutex::new(Some(out)),
    };
    Ok((journal, done))
}

/// Fails unless `line` is the head of a journal of the run `head` describes.
fn check_head(line: &[u8], head: &Head, shown: &str) -> Result<()> {
    let refuse = |why: String| {
        anyhow::Error::new(UsageError(format!(
            "'{shown}' is the journal of another run: {why}; remove it to probe every server again, \
             or rerun with the servers file it was written for"
        )))
    };
    let Ok(found) = serde_json::from_slice::<Head>(line) else {
        return Err(UsageError(format!(
            "'{shown}' is not a probe --servers journal (its first line is not a journal's head); \
             remove it or choose another --out"
        ))
        .into());
    };
    if found.journal != MAGIC || found.version != VERSION {
        return Err(refuse(format!(
            "it is a journal of format {}, this version writes {VERSION}",
            found.version
        )));
    }
    if found.date != head.date {
        return Err(refuse(format!(
            "it was written for the date {}, this run is dated {}",
            sanitize(&found.date),
            head.date
        )));
    }
    if found.servers != head.servers || found.fingerprint != head.fingerprint {
        return Err(refuse(format!(
            "it was written for a servers file of {} servers and other bytes than this one's {}",
            found.servers, head.servers
        )));
    }
    Ok(())
}

impl Journal {
    /// Returns where the journal is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `record`, flushed to the disk. A write that fails is reported once; the
    /// run goes on without a journal, since its tables are still right.
    pub fn record(&self, record: &Record) {
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        let Some(open) = file.as_mut() else { return };
        let written = serde_json::to_string(record)
            .map_err(io::Error::other)
            .and_then(|mut text| {
                text.push('\n');
                open.write_all(text.as_bytes())?;
                open.sync_data()
            });
        if let Err(e) = written {
            messages::warning(format!(
                "writing '{}' failed ({}); the run goes on, but a rerun will probe its servers again",
                sanitize(self.path.display().to_string()),
                sanitize(e.to_string())
            ));
            *file = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record<'a>(server: &'a str, listing: &'a Listing) -> Record<'a> {
        Record {
            server,
            listing,
            artifact: "sha512-x",
            skipped_lines: 2,
            before: "",
            before_note: "",
            python: "",
            lock: Some(("a==1\n", "txt")),
        }
    }

    fn listing() -> Listing {
        Listing {
            server_name: "s".into(),
            server_version: "1".into(),
            protocol_version: "2025-06-18".into(),
            capabilities: serde_json::json!({}),
            pages: 1,
            tools: vec![serde_json::json!({"name": "t", "annotations": {"readOnlyHint": true}})],
            warnings: Vec::new(),
            announces_changes: false,
        }
    }

    #[test]
    fn a_journal_gives_back_what_it_recorded_and_drops_a_torn_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = path_in(dir.path(), "2026-11-30");
        let (journal, done) = open(&path, "2026-11-30", b"file", 2).unwrap();
        assert!(done.is_empty());
        let listed = listing();
        journal.record(&record("a", &listed));
        drop(journal);
        let mut bytes = fs::read(&path).unwrap();
        bytes.extend_from_slice(b"{\"server\": \"b\", \"listi");
        fs::write(&path, &bytes).unwrap();
        let (journal, done) = open(&path, "2026-11-30", b"file", 2).unwrap();
        assert_eq!(done.keys().collect::<Vec<_>>(), ["a"]);
        assert_eq!(done["a"].listing.tools, listed.tools);
        assert_eq!(done["a"].skipped_lines, 2);
        assert_eq!(done["a"].lock, Some(("a==1\n".into(), "txt".into())));
        journal.record(&record("b", &listed));
        drop(journal);
        let (_, done) = open(&path, "2026-11-30", b"file", 2).unwrap();
        assert_eq!(done.len(), 2);

        for (date, file, says) in [
            (
                "2026-12-01",
                &b"file"[..],
                "written for the date 2026-11-30",
            ),
            ("2026-11-30", &b"other"[..], "other bytes"),
        ] {
            let err = open(&path, date, file, 2).err().expect(says);
            assert!(err.downcast_ref::<UsageError>().is_some(), "{err:#}");
            assert!(format!("{err:#}").contains(says), "{err:#}");
        }
    }
}
