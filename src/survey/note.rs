//! The note a `probe --servers --shard K/N` run leaves beside its tables,
//! `wire-DATE-shard.json`: the shard, the date and the sha256 of the servers file.
//! Written last, once the tables are whole, and removed before a run writes its
//! tables, so that a note vouches only for tables of the run that wrote it;
//! `shards` reads it back to merge.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::infra::atomic::write_bytes;
use crate::infra::shard::Shard;

/// What a note's `note` field says, so that another file is not read as one.
const MAGIC: &str = "mcp-hint-census probe --servers shard";

/// Holds what a shard run says of itself, in `wire-DATE-shard.json`.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
pub(super) struct Note {
    note: String,
    /// `K/N`.
    pub(super) shard: String,
    date: String,
    /// The sha256 of the servers file the shard was cut from.
    pub(super) servers_sha256: String,
}

/// Returns the path of the shard note of a run dated `date` writing into `out`.
pub(super) fn note_path(out: &Path, date: &str) -> PathBuf {
    out.join(format!("wire-{date}-shard.json"))
}

/// Writes the shard note, once every table of the shard is written: a note
/// vouches for the tables beside it.
pub(super) fn write_note(out: &Path, date: &str, shard: Shard, file: &[u8]) -> Result<()> {
    let note = Note {
        note: MAGIC.to_string(),
        shard: shard.to_string(),
        date: date.to_string(),
        servers_sha256: format!("{:x}", Sha256::digest(file)),
    };
    let mut text = serde_json::to_string_pretty(&note)?;
    text.push('\n');
    write_bytes(&note_path(out, date), text.as_bytes())
}

/// Removes a shard note an earlier run left, before this run writes its tables:
/// a note must never vouch for tables a later run half replaced.
pub(super) fn remove_note(out: &Path, date: &str) -> Result<()> {
    let path = note_path(out, date);
    match fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("removing '{}'", path.display()))
        }
        _ => Ok(()),
    }
}

/// Reads a shard note and checks it is one of `date`.
pub(super) fn read_note(path: &Path, date: &str) -> Result<Note> {
    let shown = path.display();
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "'{shown}' is not there: the tables beside it were not written whole by \
             `probe --servers --shard K/N`"
        ),
        Err(e) => return Err(e).with_context(|| format!("reading '{shown}'")),
    };
    let note: Note = serde_json::from_slice(&bytes)
        .ok()
        .filter(|n: &Note| n.note == MAGIC)
        .with_context(|| format!("'{shown}' is not a shard note of `probe --servers`"))?;
    if note.date != date {
        bail!("'{shown}' is of {}, not {date}", note.date);
    }
    Ok(note)
}
