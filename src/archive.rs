//! Streams a tar or tar.gz archive into the matcher, entry by entry, without
//! extracting anything.
//!
//! This module owns what `census-method.md` says about archives: which entries are
//! files (type `0`, NUL and `7`), how a path is made relative to the top folder, where
//! the commit id comes from (the pax global header's `comment`), and when an archive
//! is whole (gzip inflated to its end with a good CRC and length, tar ended by its
//! zero block). It takes any `impl Read`; where the bytes come from (network, cache,
//! stdin, `git archive`) is the caller's business.

use std::io::{self, BufRead, Read};
use std::sync::mpsc;
use std::thread;

use anyhow::{anyhow, bail, Context, Result};
use flate2::bufread::GzDecoder;
use tar::EntryType;

use crate::count::{FileHit, Matcher, TreeCount};

/// Size of the buffer each file's bytes are read through.
const READ_BUF: usize = 256 * 1024;

/// Holds what reading one archive found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArchiveCount {
    /// The full commit id from the pax global header's `comment`, when there is one.
    pub commit: Option<String>,
    /// The counts of the archive's files.
    pub tree: TreeCount,
}

/// Counts every regular file of the archive read from `reader`, gzip-compressed or not.
///
/// `on_file` is called after each file with its size in bytes, for progress. The
/// archive must be whole: an error is returned for a truncated or corrupt gzip
/// stream, a tar that stops before its end-of-archive block, or bytes that are no
/// archive at all. On error nothing of the partial count is returned.
pub fn count_archive<R: Read + Send>(
    reader: R,
    matcher: &Matcher,
    on_file: &mut dyn FnMut(u64),
) -> Result<ArchiveCount> {
    // Peek at the first block to tell gzip from tar from neither; a pipe may hand
    // it over in pieces, so read until the block is full or the input ends.
    let mut reader = reader;
    let mut head = Vec::with_capacity(512);
    (&mut reader)
        .take(512)
        .read_to_end(&mut head)
        .context("reading the archive")?;
    if head.starts_with(&[0x1f, 0x8b]) {
        // Inflating runs on its own thread so that tar parsing and counting hide
        // behind it: a census is bounded by inflate speed, not by the matcher.
        // Reading the compressed bytes runs on a third one, because the caller's
        // reader may do work of its own (the cache hashes every byte with
        // SHA-256), which would otherwise sit on the inflating thread (issue 5).
        thread::scope(|scope| {
            let compressed = ReadAhead::spawn(scope, io::Cursor::new(head).chain(reader));
            let inflated = ReadAhead::spawn(scope, GzDecoder::new(compressed));
            count_tar(inflated, matcher, on_file)
        })
    } else if looks_like_tar(&head) {
        count_tar(io::Cursor::new(head).chain(reader), matcher, on_file)
    } else if head.is_empty() {
        bail!("not an archive: it is empty")
    } else {
        bail!(
            "not a gzip or tar archive: it starts with {}",
            preview(&head)
        )
    }
}

/// Returns true when `head` starts with a plausible tar header (ustar magic, or a
/// valid header checksum for old-style archives).
fn looks_like_tar(head: &[u8]) -> bool {
    if head.len() < 512 {
        return false;
    }
    if &head[257..262] == b"ustar" {
        return true;
    }
    let stored = std::str::from_utf8(&head[148..156])
        .ok()
        .map(|s| s.trim_matches(|c: char| c == '\0' || c == ' '))
        .and_then(|s| u32::from_str_radix(s, 8).ok());
    let sum: u32 = head[..148]
        .iter()
        .chain(&head[156..512])
        .map(|&b| u32::from(b))
        .sum::<u32>()
        + 8 * 32;
    stored == Some(sum)
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

/// Streams the tar read from `reader` into the matcher.
fn count_tar<R: Read>(
    reader: R,
    matcher: &Matcher,
    on_file: &mut dyn FnMut(u64),
) -> Result<ArchiveCount> {
    let mut tracked = EofTracker::new(reader);
    let mut result = ArchiveCount {
        commit: None,
        tree: TreeCount::new(matcher.len()),
    };
    let mut buf = vec![0u8; READ_BUF];
    let mut top = TopFolder::default();
    // One counter and one path buffer serve every file of the archive.
    let mut counter = matcher.file_counter();
    let mut path: Vec<u8> = Vec::new();
    {
        let mut archive = tar::Archive::new(&mut tracked);
        let entries = archive.entries().context("reading the tar stream")?;
        for entry in entries {
            let mut entry = entry.context("reading a tar header")?;
            let kind = entry.header().entry_type();
            if kind == EntryType::XGlobalHeader {
                let mut records = Vec::new();
                entry
                    .read_to_end(&mut records)
                    .context("reading the pax global header")?;
                if let Some(comment) = pax_record(&records, b"comment") {
                    result.commit = Some(String::from_utf8_lossy(comment).trim().to_string());
                }
                continue;
            }
            path.clear();
            path.extend_from_slice(strip_dot(&entry.path_bytes()));
            top.see(&path, kind == EntryType::Directory);
            if !matches!(kind, EntryType::Regular | EntryType::Continuous) {
                continue;
            }
            counter.reset();
            loop {
                let n = match entry.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        return Err(e).with_context(|| {
                            format!("reading '{}'", String::from_utf8_lossy(&path))
                        })
                    }
                };
                // The buffer is refilled next, so the counter may lower-case it in place.
                counter.feed_mut(&mut buf[..n]);
            }
            let size = counter.bytes();
            if size != entry.size() {
                bail!(
                    "'{}' ended after {} of its {} bytes",
                    String::from_utf8_lossy(&path),
                    size,
                    entry.size()
                );
            }
            result
                .tree
                .add_file(|| path.clone(), size, counter.counts());
            on_file(size);
        }
    }
    if tracked.is_eof {
        bail!("the tar stream ended without its end-of-archive block (truncated archive)");
    }
    top.strip(&mut result.tree.files);
    // Read what follows the end block so that a gzip stream is inflated to its end
    // and its CRC and length are checked.
    io::copy(&mut tracked, &mut io::sink()).context("reading the end of the archive")?;
    Ok(result)
}

/// Returns the value of pax record `key` in `records` (`"<len> <key>=<value>\n"`...).
pub fn pax_record<'a>(mut records: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    while !records.is_empty() {
        let space = memchr::memchr(b' ', records)?;
        let len: usize = std::str::from_utf8(&records[..space]).ok()?.parse().ok()?;
        if len <= space || len > records.len() {
            return None;
        }
        let record = &records[space + 1..len];
        let record = record.strip_suffix(b"\n").unwrap_or(record);
        if let Some(eq) = memchr::memchr(b'=', record) {
            if &record[..eq] == key {
                return Some(&record[eq + 1..]);
            }
        }
        records = &records[len..];
    }
    None
}

/// Finds the archive's top folder (`owner-name-abc1234/`): the first component of
/// the first entry, when every entry of the archive lies under it. An archive made
/// without a prefix (`git archive` without `--prefix`, `tar -C dir .`) has none,
/// and its paths are kept whole.
#[derive(Default)]
struct TopFolder {
    /// The candidate, with its trailing `/`; empty when the first entry was a file
    /// at the top level.
    prefix: Option<Vec<u8>>,
    /// True when some entry lies outside the candidate.
    is_broken: bool,
}

impl TopFolder {
    /// Notes one entry's path (already without a leading `./`).
    fn see(&mut self, path: &[u8], is_dir: bool) {
        if path.is_empty() {
            return; // `./` itself
        }
        match &self.prefix {
            None => {
                let prefix = match memchr::memchr(b'/', path) {
                    Some(slash) => path[..=slash].to_vec(),
                    None if is_dir => [path, b"/"].concat(),
                    None => Vec::new(),
                };
                self.prefix = Some(prefix);
            }
            Some(prefix) => {
                let is_inside =
                    path.starts_with(prefix) || path == &prefix[..prefix.len().saturating_sub(1)];
                if !is_inside {
                    self.is_broken = true;
                }
            }
        }
    }

    /// Makes the hits' paths relative to the top folder, if the archive has one.
    fn strip(&self, files: &mut [FileHit]) {
        let Some(prefix) = &self.prefix else { return };
        if prefix.is_empty() || self.is_broken {
            return;
        }
        for file in files {
            if let Some(rest) = file.path.strip_prefix(prefix.as_slice()) {
                file.path = rest.to_vec();
            }
        }
    }
}

fn strip_dot(mut path: &[u8]) -> &[u8] {
    while let Some(rest) = path.strip_prefix(b"./") {
        path = rest;
    }
    path
}

/// Wraps a reader and notes whether it ever reached its end.
///
/// The tar reader treats an end of input at a header boundary as the end of the
/// archive; the method does not, so the caller checks `is_eof` once the entries run
/// out: a proper end-of-archive block stops the entries before the input ends.
struct EofTracker<R> {
    inner: R,
    is_eof: bool,
}

impl<R> EofTracker<R> {
    fn new(inner: R) -> EofTracker<R> {
        EofTracker {
            inner,
            is_eof: false,
        }
    }
}

impl<R: Read> Read for EofTracker<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 && !buf.is_empty() {
            self.is_eof = true;
        }
        Ok(n)
    }
}

/// Reads from a source on a scoped thread of its own, a few buffers ahead of the
/// consumer. When the consumer stops early (an error), the producer finds its
/// channel closed and ends; the scope then joins it.
///
/// Memory stays bounded: at most `DEPTH + 2` buffers of `READ_BUF` bytes exist at
/// once. Buffers are handed back to the producer to be reused.
struct ReadAhead {
    /// Buffers the producer filled, with how many of their bytes it filled. Buffers
    /// keep their full length, so handing them back costs no clearing.
    full: mpsc::Receiver<io::Result<(Vec<u8>, usize)>>,
    empty: mpsc::SyncSender<Vec<u8>>,
    current: Vec<u8>,
    /// The bytes of `current` that hold data.
    len: usize,
    pos: usize,
    is_done: bool,
}

const DEPTH: usize = 4;

impl ReadAhead {
    fn spawn<'scope, R: Read + Send + 'scope>(
        scope: &'scope thread::Scope<'scope, '_>,
        mut source: R,
    ) -> ReadAhead {
        let (full_tx, full) = mpsc::sync_channel::<io::Result<(Vec<u8>, usize)>>(DEPTH);
        let (empty, empty_rx) = mpsc::sync_channel::<Vec<u8>>(DEPTH + 2);
        for _ in 0..DEPTH {
            // Capacity is DEPTH + 2, so these cannot block or fail.
            let _ = empty.send(vec![0u8; READ_BUF]);
        }
        scope.spawn(move || loop {
            let mut buf = match empty_rx.recv() {
                Ok(buf) => buf,
                Err(_) => return, // the consumer is gone
            };
            let result = read_full(&mut source, &mut buf).map(|n| (buf, n));
            let stop = !matches!(&result, Ok((_, n)) if *n > 0);
            if full_tx.send(result).is_err() || stop {
                return;
            }
        });
        ReadAhead {
            full,
            empty,
            current: Vec::new(),
            len: 0,
            pos: 0,
            is_done: false,
        }
    }
}

/// Fills `buf` as far as the source allows; returns the bytes read (0 at the end).
fn read_full<R: Read>(source: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match source.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

impl Read for ReadAhead {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = out.len().min(available.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

/// Lends the buffers themselves, so that a `bufread` decoder reads them in place.
impl BufRead for ReadAhead {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos == self.len && !self.is_done {
            let (next, len) = self
                .full
                .recv()
                .map_err(|_| io::Error::other(anyhow!("the reading thread stopped")))??;
            let spent = std::mem::replace(&mut self.current, next);
            if !spent.is_empty() {
                let _ = self.empty.try_send(spent);
            }
            self.len = len;
            self.pos = 0;
            if len == 0 {
                self.is_done = true;
            }
        }
        Ok(&self.current[self.pos..self.len])
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pax_records_are_parsed() {
        let records = b"52 comment=0123456789abcdef0123456789abcdef01234567\n11 path=ab\n";
        assert_eq!(
            pax_record(records, b"comment"),
            Some(&b"0123456789abcdef0123456789abcdef01234567"[..])
        );
        assert_eq!(pax_record(records, b"path"), Some(&b"ab"[..]));
        assert_eq!(pax_record(records, b"size"), None);
        assert_eq!(pax_record(b"99 comment=x\n", b"comment"), None);
    }

    fn stripped(paths: &[(&str, bool)]) -> Vec<String> {
        let mut top = TopFolder::default();
        let mut files = Vec::new();
        for &(path, is_dir) in paths {
            top.see(strip_dot(path.as_bytes()), is_dir);
            if !is_dir {
                files.push(FileHit {
                    path: strip_dot(path.as_bytes()).to_vec(),
                    bytes: 0,
                    counts: Vec::new(),
                });
            }
        }
        top.strip(&mut files);
        files
            .into_iter()
            .map(|f| String::from_utf8(f.path).unwrap())
            .collect()
    }

    #[test]
    fn paths_are_made_relative_to_the_top_folder() {
        let github = [
            ("o-n-abc1234/", true),
            ("o-n-abc1234/src/a.rs", false),
            ("o-n-abc1234/README", false),
        ];
        assert_eq!(stripped(&github), ["src/a.rs", "README"]);
        let dotted = [("./", true), ("./pkg/", true), ("./pkg/a", false)];
        assert_eq!(stripped(&dotted), ["a"]);
        let here = [("./", true), ("./a", false), ("./pkg/b", false)];
        assert_eq!(stripped(&here), ["a", "pkg/b"]);
        // No common top folder: a directory first, then a file beside it.
        let flat = [
            (".github/", true),
            (".github/ci.yml", false),
            ("Cargo.toml", false),
        ];
        assert_eq!(stripped(&flat), [".github/ci.yml", "Cargo.toml"]);
        let top_file = [("README", false), ("src/a.rs", false)];
        assert_eq!(stripped(&top_file), ["README", "src/a.rs"]);
    }

    #[test]
    fn html_is_not_an_archive() {
        let m = Matcher::new(&["x"]).unwrap();
        let err = count_archive(&b"<!DOCTYPE html><html>sign in</html>"[..], &m, &mut |_| {})
            .unwrap_err();
        assert!(err.to_string().contains("<!DOCTYPE html>"), "{err}");
    }
}
