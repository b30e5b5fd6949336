//! Tells an archive's format from its first bytes and opens the stream of tar
//! blocks it holds: inflating gzip on threads of their own, or reading a plain tar
//! through one buffer.
//!
//! It does not parse the tar; that is the entry loop's job (`entries`).

use std::io::{self, Read};
use std::thread;

use anyhow::{bail, Context, Result};
use flate2::bufread::MultiGzDecoder;

use super::header::checksum_ok;
use super::read_ahead::{Buffered, ReadAhead, Source};
use super::BLOCK;

/// Sniffs the format of the archive read from `reader` and calls `read` with the
/// tar stream it holds, decompressed.
///
/// Every gzip member is inflated and checked, as `gzip -dc` and Python read them;
/// bytes after the last member are an error. Anything but gzip or tar is an error
/// that shows its first bytes.
pub fn with_tar_stream<R: Read + Send, T>(
    reader: R,
    read: impl FnOnce(&mut dyn Source) -> Result<T>,
) -> Result<T> {
    // Peek at the first block to tell gzip from tar from neither; a pipe may hand
    // it over in pieces, so read until the block is full or the input ends.
    let mut reader = reader;
    let mut head = Vec::with_capacity(BLOCK);
    (&mut reader)
        .take(BLOCK as u64)
        .read_to_end(&mut head)
        .context("reading the archive")?;
    if head.starts_with(&[0x1f, 0x8b]) {
        // Inflating runs on its own thread so that tar parsing and counting hide
        // behind it: a census is bounded by inflate speed, not by the matcher.
        // Reading the compressed bytes runs on a third one, because the caller's
        // reader may do work of its own (the cache hashes every byte with
        // SHA-256), which would otherwise sit on the inflating thread (README,
        // "Performance").
        thread::scope(|scope| {
            let compressed = ReadAhead::spawn(scope, io::Cursor::new(head).chain(reader));
            let mut inflated = ReadAhead::spawn(scope, MultiGzDecoder::new(compressed));
            read(&mut inflated)
        })
    } else if head.len() == BLOCK && (head.iter().all(|&b| b == 0) || looks_like_tar(&head)) {
        let mut source = Buffered::new(io::Cursor::new(head).chain(reader));
        read(&mut source)
    } else if head.is_empty() {
        bail!("not an archive: it is empty")
    } else {
        bail!(
            "not a gzip or tar archive: it starts with {}",
            preview(&head)
        )
    }
}

/// Returns true when `head`, the first block of a file (or all of a shorter one),
/// starts a gzip stream or a tar archive: what `scan` reads as an archive rather
/// than as one file.
pub fn is_archive(head: &[u8]) -> bool {
    head.starts_with(&[0x1f, 0x8b]) || looks_like_tar(head)
}

/// Returns true when `head` is one whole block holding a plausible tar header
/// (ustar magic, or a valid header checksum for old-style archives).
fn looks_like_tar(head: &[u8]) -> bool {
    head.len() >= BLOCK && (&head[257..262] == b"ustar" || checksum_ok(head))
}

/// Returns the first bytes of a non-archive as a short quoted string for an error.
fn preview(head: &[u8]) -> String {
    let text: String = String::from_utf8_lossy(&head[..head.len().min(40)])
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    format!(
        "'{}' (an HTML page or an error message, not the archive?)",
        text.trim()
    )
}
