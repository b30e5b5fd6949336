//! Holds the files of a tree that matched something, in bounded memory.
//!
//! A tree may hold millions of matching files with long names; a survey holds
//! thousands of trees until its tables are written. So hits live in memory only up
//! to a limit per tree ([`MEMORY_LIMIT`]), and a finished tree keeps at most
//! [`SEALED_LIMIT`] bytes of them in memory. The rest is written, as runs sorted by
//! path, to one unnamed temporary file shared by the whole process (one file
//! descriptor however many trees spill), and read back merged in path order. This
//! module stores and orders hits; it does not count or format them.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::{Mutex, OnceLock};

/// Bytes of hits a tree holds in memory while it is being counted, before the
/// sorted batch is written out as a run.
pub const MEMORY_LIMIT: usize = 8 << 20;

/// Bytes of hits a finished tree keeps in memory; more are written out.
pub const SEALED_LIMIT: usize = 64 << 10;

/// Holds the counts of one file that matched at least one column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileHit {
    /// The file's path as raw bytes, relative to the tree's top folder.
    pub path: Vec<u8>,
    /// The file's size in bytes.
    pub bytes: u64,
    /// Per column, in the table's order.
    pub counts: Vec<u64>,
}

impl FileHit {
    /// Returns roughly how many bytes of memory the hit takes.
    fn weight(&self) -> usize {
        self.path.len() + 8 * self.counts.len() + 64
    }
}

/// Holds the hits of one tree: a batch in memory and sorted runs on disk.
#[derive(Clone, Debug, Default)]
pub struct Hits {
    memory: Vec<FileHit>,
    memory_bytes: usize,
    /// Sorted runs in the spill file: (offset, length) in bytes.
    runs: Vec<(u64, u64)>,
    /// Bytes dropped from the front of every path when the hits are read: the top
    /// folder, known only once the archive has been read.
    strip: usize,
    len: u64,
    /// Why writing a run failed, reported when the hits are read.
    error: Option<String>,
}

impl PartialEq for Hits {
    /// Compares the hits as they read, in path order; unreadable hits are unequal.
    fn eq(&self, other: &Hits) -> bool {
        match (self.sorted(), other.sorted()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Hits {}

impl Hits {
    /// Returns how many hits there are.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Returns true when no file matched.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds one hit; the batch in memory is written out as a run when it passes
    /// [`MEMORY_LIMIT`].
    pub fn push(&mut self, hit: FileHit) {
        self.memory_bytes += hit.weight();
        self.memory.push(hit);
        self.len += 1;
        if self.memory_bytes > MEMORY_LIMIT {
            self.spill();
        }
    }

    /// Adds every hit of `other`, a part of the same tree counted apart.
    pub fn append(&mut self, mut other: Hits) {
        debug_assert_eq!(self.strip, other.strip, "parts of one tree strip alike");
        self.runs.append(&mut other.runs);
        self.error = self.error.take().or(other.error);
        self.len += other.len - other.memory.len() as u64;
        for hit in other.memory {
            self.push(hit);
        }
    }

    /// Drops `prefix_len` bytes from the front of every path as the hits are read.
    /// Every path must start with the same `prefix_len` bytes (the top folder), so
    /// the path order does not change.
    pub fn strip_prefix(&mut self, prefix_len: usize) {
        self.strip += prefix_len;
    }

    /// Sorts the batch in memory and, when it is larger than a finished tree may
    /// keep, writes it out: called once the tree is counted.
    pub fn seal(&mut self) {
        if self.memory_bytes > SEALED_LIMIT {
            self.spill();
        } else {
            self.memory.sort_by(|a, b| a.path.cmp(&b.path));
        }
    }

    /// Writes the batch in memory out as one sorted run.
    fn spill(&mut self) {
        self.memory.sort_by(|a, b| a.path.cmp(&b.path));
        let mut bytes = Vec::with_capacity(self.memory_bytes);
        for hit in &self.memory {
            encode(hit, &mut bytes);
        }
        match spill_file().and_then(|spill| spill.append(&bytes)) {
            Ok(run) => {
                self.runs.push(run);
                self.memory.clear();
                self.memory_bytes = 0;
            }
            // The batch stays in memory; the error says why when the hits are read.
            Err(err) => {
                self.error
                    .get_or_insert_with(|| format!("writing file hits to a temporary file: {err}"));
            }
        }
    }

    /// Returns the hits in path order, paths stripped.
    pub fn sorted(&self) -> io::Result<Vec<FileHit>> {
        self.iter().collect()
    }

    /// Returns an iterator over the hits in path order (the bytes of the paths),
    /// paths stripped, merging the batch in memory with the runs on disk.
    pub fn iter(&self) -> SortedHits<'_> {
        let mut memory: Vec<&FileHit> = self.memory.iter().collect();
        memory.sort_by(|a, b| a.path.cmp(&b.path));
        let mut sources: Vec<Source<'_>> = vec![Source::Memory(memory.into_iter())];
        if !self.runs.is_empty() {
            match spill_file() {
                Ok(spill) => sources.extend(
                    self.runs
                        .iter()
                        .map(|&(start, len)| Source::Run(RunReader::new(&spill.file, start, len))),
                ),
                Err(err) => {
                    return SortedHits::failed(io::Error::other(err.to_string()));
                }
            }
        }
        if let Some(why) = &self.error {
            return SortedHits::failed(io::Error::other(why.clone()));
        }
        SortedHits::new(sources, self.strip)
    }
}

impl FromIterator<FileHit> for Hits {
    /// Collects hits read from elsewhere (a files table), spilling as it goes.
    fn from_iter<I: IntoIterator<Item = FileHit>>(hits: I) -> Hits {
        let mut all = Hits::default();
        for hit in hits {
            all.push(hit);
        }
        all.seal();
        all
    }
}

/// The process's spill file: unnamed, so nothing is left behind, and appended to
/// under a lock.
struct Spill {
    file: File,
    end: Mutex<u64>,
}

impl Spill {
    /// Appends `bytes` and returns where they went.
    fn append(&self, bytes: &[u8]) -> io::Result<(u64, u64)> {
        let mut end = self
            .end
            .lock()
            .map_err(|_| io::Error::other("a thread writing file hits panicked"))?;
        self.file.write_all_at(bytes, *end)?;
        let run = (*end, bytes.len() as u64);
        *end += bytes.len() as u64;
        Ok(run)
    }
}

/// Returns the spill file, made on first use.
fn spill_file() -> io::Result<&'static Spill> {
    static SPILL: OnceLock<Result<Spill, String>> = OnceLock::new();
    SPILL
        .get_or_init(|| {
            tempfile::tempfile()
                .map(|file| Spill {
                    file,
                    end: Mutex::new(0),
                })
                .map_err(|e| format!("making a temporary file for file hits: {e}"))
        })
        .as_ref()
        .map_err(|why| io::Error::other(why.clone()))
}

/// Appends `hit` to `out`: path length, path, size, count of counts, counts, all
/// little-endian.
fn encode(hit: &FileHit, out: &mut Vec<u8>) {
    out.extend_from_slice(&(hit.path.len() as u64).to_le_bytes());
    out.extend_from_slice(&hit.path);
    out.extend_from_slice(&hit.bytes.to_le_bytes());
    out.extend_from_slice(&(hit.counts.len() as u64).to_le_bytes());
    for n in &hit.counts {
        out.extend_from_slice(&n.to_le_bytes());
    }
}

/// Reads one run back, a buffer at a time, with positioned reads (runs of many
/// trees are read side by side from the one file).
struct RunReader<'f> {
    file: &'f File,
    at: u64,
    end: u64,
    buf: Vec<u8>,
    pos: usize,
}

impl<'f> RunReader<'f> {
    fn new(file: &'f File, start: u64, len: u64) -> RunReader<'f> {
        RunReader {
            file,
            at: start,
            end: start + len,
            buf: Vec::new(),
            pos: 0,
        }
    }

    /// Returns the next `n` bytes of the run.
    fn take(&mut self, n: usize) -> io::Result<Vec<u8>> {
        while self.buf.len() - self.pos < n {
            let want = (64 << 10).max(n) as u64;
            let left = self.end - self.at;
            if left == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "a run of file hits ends early",
                ));
            }
            let mut chunk = vec![0u8; want.min(left) as usize];
            self.file.read_exact_at(&mut chunk, self.at)?;
            self.at += chunk.len() as u64;
            self.buf.drain(..self.pos);
            self.pos = 0;
            self.buf.extend_from_slice(&chunk);
        }
        let out = self.buf[self.pos..self.pos + n].to_vec();
        self.pos += n;
        Ok(out)
    }

    fn number(&mut self) -> io::Result<u64> {
        let bytes = self.take(8)?;
        Ok(u64::from_le_bytes(
            bytes.try_into().expect("take returns 8 bytes"),
        ))
    }

    /// Returns the next hit, or `None` at the run's end.
    fn next_hit(&mut self) -> io::Result<Option<FileHit>> {
        if self.pos == self.buf.len() && self.at == self.end {
            return Ok(None);
        }
        let path_len = self.number()? as usize;
        let path = self.take(path_len)?;
        let bytes = self.number()?;
        let n = self.number()? as usize;
        let counts = (0..n).map(|_| self.number()).collect::<io::Result<_>>()?;
        Ok(Some(FileHit {
            path,
            bytes,
            counts,
        }))
    }
}

/// One sorted source of hits.
enum Source<'h> {
    Memory(std::vec::IntoIter<&'h FileHit>),
    Run(RunReader<'h>),
}

impl Source<'_> {
    fn next_hit(&mut self) -> io::Result<Option<FileHit>> {
        match self {
            Source::Memory(hits) => Ok(hits.next().cloned()),
            Source::Run(run) => run.next_hit(),
        }
    }
}

/// Yields hits in path order from several sorted sources.
pub struct SortedHits<'h> {
    sources: Vec<Source<'h>>,
    /// The next hit of each source, keyed for the smallest path first (ties by
    /// source, so the order is stable).
    heads: BinaryHeap<Reverse<(Vec<u8>, usize)>>,
    pending: Vec<Option<FileHit>>,
    strip: usize,
    error: Option<io::Error>,
    is_started: bool,
}

impl<'h> SortedHits<'h> {
    fn new(sources: Vec<Source<'h>>, strip: usize) -> SortedHits<'h> {
        let n = sources.len();
        SortedHits {
            sources,
            heads: BinaryHeap::with_capacity(n),
            pending: (0..n).map(|_| None).collect(),
            strip,
            error: None,
            is_started: false,
        }
    }

    fn failed(err: io::Error) -> SortedHits<'h> {
        let mut hits = SortedHits::new(Vec::new(), 0);
        hits.error = Some(err);
        hits
    }

    /// Reads the next hit of source `i` into the heap.
    fn advance(&mut self, i: usize) -> io::Result<()> {
        if let Some(hit) = self.sources[i].next_hit()? {
            self.heads.push(Reverse((hit.path.clone(), i)));
            self.pending[i] = Some(hit);
        }
        Ok(())
    }
}

impl Iterator for SortedHits<'_> {
    type Item = io::Result<FileHit>;

    fn next(&mut self) -> Option<io::Result<FileHit>> {
        if let Some(err) = self.error.take() {
            self.sources.clear();
            self.heads.clear();
            return Some(Err(err));
        }
        if !self.is_started {
            self.is_started = true;
            for i in 0..self.sources.len() {
                if let Err(err) = self.advance(i) {
                    self.heads.clear();
                    return Some(Err(err));
                }
            }
        }
        let Reverse((_, i)) = self.heads.pop()?;
        let mut hit = self.pending[i].take().expect("a head has its hit");
        if let Err(err) = self.advance(i) {
            self.error = Some(err);
        }
        if self.strip > 0 {
            hit.path.drain(..self.strip.min(hit.path.len()));
        }
        Some(Ok(hit))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(path: &str, n: u64) -> FileHit {
        FileHit {
            path: path.as_bytes().to_vec(),
            bytes: n,
            counts: vec![n, 0, n * 2],
        }
    }

    #[test]
    fn spilled_runs_and_memory_read_back_merged_in_path_order() {
        let mut hits = Hits::default();
        let mut want = Vec::new();
        // Pseudo-random paths, enough for several runs of MEMORY_LIMIT each.
        let mut x: u64 = 12345;
        let long = "d/".repeat(2000);
        for i in 0..12_000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let path = format!("top/{long}{:016x}-{i}", x >> 11);
            hits.push(hit(&path, i));
            want.push(hit(&path[4..], i));
        }
        assert!(hits.runs.len() >= 2, "{} runs", hits.runs.len());
        assert!(hits.memory_bytes <= MEMORY_LIMIT);
        hits.strip_prefix(4);
        hits.seal();
        assert!(
            hits.memory.is_empty(),
            "a large finished tree keeps nothing in memory"
        );
        want.sort_by(|a, b| a.path.cmp(&b.path));
        assert_eq!(hits.len(), want.len() as u64);
        assert_eq!(hits.sorted().unwrap(), want);
        // A clone reads the same runs.
        assert_eq!(hits.clone().sorted().unwrap(), want);
    }

    #[test]
    fn parts_counted_apart_append_into_one_order() {
        let mut a = Hits::default();
        let mut b = Hits::default();
        for (i, p) in ["b", "d", "a"].iter().enumerate() {
            a.push(hit(p, i as u64));
        }
        for (i, p) in ["c", "e"].iter().enumerate() {
            b.push(hit(p, i as u64));
        }
        b.spill();
        a.append(b);
        let paths: Vec<Vec<u8>> = a.sorted().unwrap().into_iter().map(|h| h.path).collect();
        assert_eq!(paths, [b"a", b"b", b"c", b"d", b"e"].map(|p| p.to_vec()));
        assert_eq!(a.len(), 5);
    }
}
