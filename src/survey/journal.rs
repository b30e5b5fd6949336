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
//! that listed are recorded: one that failed is tried again on the rerun. The file side
//! (the head, the torn line, the flushed appends) is `infra::journal`'s, which the
//! census's journal shares. A lock's bytes are kept exactly: as text, or in hex when
//! they are not UTF-8. This module reads and writes the journal; it probes nothing.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::infra::error::UsageError;
use crate::infra::journal::{self, Appender};
use crate::infra::messages;
use crate::infra::sanitize::sanitize;
use crate::probe::session::Listing;

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

/// Holds one server that listed, as it is recorded: what its probe gave.
#[derive(Debug)]
pub struct Record<'a> {
    pub server: &'a str,
    pub listing: &'a Listing,
    pub artifact: &'a str,
    pub skipped_lines: usize,
    pub before: &'a str,
    pub before_note: &'a str,
    pub python: &'a str,
    /// The placeholders the run gave beyond the file's.
    pub filled: &'a [String],
    /// The lock's bytes and its file extension.
    pub lock: Option<(&'a [u8], &'a str)>,
}

/// Holds one line as it is written: the lock as text when it is UTF-8, else in hex.
#[derive(Serialize)]
struct Written<'a> {
    server: &'a str,
    listing: &'a Listing,
    artifact: &'a str,
    skipped_lines: usize,
    before: &'a str,
    before_note: &'a str,
    python: &'a str,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    filled: &'a [String],
    lock: Option<(&'a str, &'a str)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lock_hex: Option<(String, &'a str)>,
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
    #[serde(default)]
    pub filled: Vec<String>,
    /// The lock's text and its file extension, when it is UTF-8.
    pub lock: Option<(String, String)>,
    /// The lock's bytes in hex and its file extension, when they are not UTF-8.
    #[serde(default)]
    pub lock_hex: Option<(String, String)>,
}

impl Line {
    /// Returns the lock's bytes and file extension, exactly as recorded.
    pub fn lock(&self) -> Option<(Vec<u8>, &str)> {
        if let Some((hex, extension)) = &self.lock_hex {
            return from_hex(hex).map(|bytes| (bytes, extension.as_str()));
        }
        self.lock
            .as_ref()
            .map(|(text, extension)| (text.clone().into_bytes(), extension.as_str()))
    }
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn from_hex(hex: &str) -> Option<Vec<u8>> {
    if hex.len() % 2 != 0 {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Holds an open journal, appended to as servers list.
pub struct Journal {
    appender: Appender,
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
    let (appender, lines) = journal::open(
        path,
        &head,
        |first| check_head(first, &head, &shown),
        "its server is probed again",
        "probe its servers again",
    )?;
    let mut done = HashMap::new();
    for (number, line) in lines {
        match serde_json::from_slice::<Line>(&line) {
            Ok(line) => {
                done.insert(line.server.clone(), line);
            }
            Err(e) => messages::warning(format!(
                "'{shown}' line {number} is not a server's probe ({e}), so it is ignored and its server probed again"
            )),
        }
    }
    Ok((Journal { appender }, done))
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
        self.appender.path()
    }

    /// Appends `record`, flushed to the disk. A write that fails is reported once; the
    /// run goes on without a journal, since its tables are still right.
    pub fn record(&self, record: &Record) {
        let (lock, lock_hex) = match record.lock {
            None => (None, None),
            Some((bytes, extension)) => match std::str::from_utf8(bytes) {
                Ok(text) => (Some((text, extension)), None),
                Err(_) => (None, Some((to_hex(bytes), extension))),
            },
        };
        let written = Written {
            server: record.server,
            listing: record.listing,
            artifact: record.artifact,
            skipped_lines: record.skipped_lines,
            before: record.before,
            before_note: record.before_note,
            python: record.python,
            filled: record.filled,
            lock,
            lock_hex,
        };
        self.appender
            .append([serde_json::to_string(&written).map_err(Into::into)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn record<'a>(server: &'a str, listing: &'a Listing) -> Record<'a> {
        Record {
            server,
            listing,
            artifact: "sha512-x",
            skipped_lines: 2,
            before: "",
            before_note: "",
            python: "",
            filled: &[],
            lock: Some((b"a==1\n", "txt")),
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
        assert_eq!(done["a"].lock(), Some((b"a==1\n".to_vec(), "txt")));
        // Bytes that are not UTF-8 come back as they were, not as "".
        let raw = b"caf\xe9==1\n\xff";
        journal.record(&Record {
            lock: Some((raw, "txt")),
            ..record("b", &listed)
        });
        drop(journal);
        let (_, done) = open(&path, "2026-11-30", b"file", 2).unwrap();
        assert_eq!(done.len(), 2);
        assert_eq!(done["b"].lock(), Some((raw.to_vec(), "txt")));

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
