//! Hands the tool finder the files the counters read, without a second read.
//!
//! Every reader (archive entries, a directory walk, git blobs) reads a file once, in
//! chunks, for the matcher. A [`ToolFeed`] sits beside the counter in the tree's sink
//! (`count::sink`): at a file's start it asks the finder whether the file's name may hold a
//! definition, and only then copies the chunks into one buffer of at most
//! [`MAX_PARSE_BYTES`], before the matcher lower-cases them in place. A wanted file
//! larger than that is never buffered: the finder records it as skipped. So the memory
//! a feed holds is one buffer, reused for every file. This module decides nothing
//! about what a definition is (see `tools`).

use crate::tools::{FoundTools, Roles, TreeTools, MAX_PARSE_BYTES};

/// Where the current file stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    /// Not wanted, or already handed over.
    #[default]
    Idle,
    /// Wanted and small enough: its chunks are copied.
    Taking,
    /// Wanted, but it grew past the bound while it was read.
    Overgrown,
}

/// Collects one tree's tool definitions from the files read for it.
#[derive(Default)]
pub struct ToolFeed {
    tools: TreeTools,
    /// The current file's bytes so far, while it is taken.
    buf: Vec<u8>,
    state: State,
}

impl ToolFeed {
    /// Returns an empty feed whose finder reads the files of `roles`.
    pub fn new(roles: Roles) -> ToolFeed {
        ToolFeed {
            tools: TreeTools::with_roles(roles),
            ..ToolFeed::default()
        }
    }

    /// Starts a file of `size` bytes (as its header or metadata says) at `path`,
    /// relative to the tree's top folder; returns true when its chunks are to be
    /// passed to [`ToolFeed::take`]. A wanted file over the bound is recorded as
    /// skipped here.
    pub fn begin(&mut self, path: &[u8], size: u64) -> bool {
        self.buf.clear();
        self.state = State::Idle;
        if !TreeTools::wants(path) {
            return false;
        }
        if size > MAX_PARSE_BYTES as u64 {
            self.tools.skip_file(path);
            return false;
        }
        self.state = State::Taking;
        true
    }

    /// Copies the next chunk of the current file, as read (before the matcher
    /// lower-cases it). A file that grows past the bound while it is read stops being
    /// copied, and is recorded as skipped at its end.
    pub fn take(&mut self, chunk: &[u8]) {
        if self.state == State::Taking {
            if self.buf.len() + chunk.len() > MAX_PARSE_BYTES {
                self.buf.clear();
                self.state = State::Overgrown;
            } else {
                self.buf.extend_from_slice(chunk);
            }
        }
    }

    /// Copies `n` NUL bytes of the current file (a sparse file's hole), as
    /// [`ToolFeed::take`] would copy them in one chunk: past the bound, nothing is
    /// written and the file is recorded as skipped at its end.
    pub fn take_zeros(&mut self, n: u64) {
        if self.state == State::Taking {
            match usize::try_from(n) {
                Ok(n) if self.buf.len() + n <= MAX_PARSE_BYTES => {
                    self.buf.resize(self.buf.len() + n, 0);
                }
                _ => {
                    self.buf.clear();
                    self.state = State::Overgrown;
                }
            }
        }
    }

    /// Ends the current file, the one `begin` was given `path` for: the finder reads
    /// it when it was taken whole.
    pub fn end(&mut self, path: &[u8]) {
        ToolFeed::end_each(&mut [self], path);
    }

    /// Ends the current file in each of `feeds` (the trees of one archive holding it
    /// at the same path, fed the same bytes): [`ToolFeed::end`] for each, with the
    /// file read once for all that took it whole.
    pub fn end_each(feeds: &mut [&mut ToolFeed], path: &[u8]) {
        // The first feed that took the file lends its bytes to all, and gets them
        // back (its buffer's room kept for the next file).
        let first = feeds.iter().position(|f| f.state == State::Taking);
        let bytes = first.map_or_else(Vec::new, |at| std::mem::take(&mut feeds[at].buf));
        for feed in feeds.iter_mut() {
            debug_assert!(
                feed.state != State::Taking || feed.buf.is_empty() || feed.buf == bytes,
                "the trees of one file take the same bytes"
            );
            if feed.state == State::Overgrown {
                feed.tools.skip_file(path);
            }
        }
        let taking = feeds.iter_mut().filter(|f| f.state == State::Taking);
        TreeTools::add_file_to_each(taking.map(|f| &mut f.tools), path, &bytes);
        if let Some(at) = first {
            feeds[at].buf = bytes;
        }
        for feed in feeds.iter_mut() {
            feed.buf.clear();
            feed.state = State::Idle;
        }
    }

    /// Joins the feed of another thread reading the same tree.
    pub fn merge(&mut self, other: ToolFeed) {
        self.tools.merge(other.tools);
    }

    /// Resolves presets across the tree's files and returns its definitions.
    pub fn finish(self) -> FoundTools {
        self.tools.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unwanted_file_is_never_copied() {
        let mut feed = ToolFeed::new(Roles::ALL);
        assert!(!feed.begin(b"README", 10));
        feed.take(b"0123456789");
        assert!(feed.buf.is_empty());
        feed.end(b"README");
        assert_eq!(feed.finish().skipped_files, 0);
    }

    #[test]
    fn a_file_over_the_bound_is_skipped_declared_or_grown() {
        let mut feed = ToolFeed::new(Roles::ALL);
        assert!(!feed.begin(b"big.ts", MAX_PARSE_BYTES as u64 + 1));
        feed.end(b"big.ts");
        assert!(feed.begin(b"grows.ts", 4));
        let chunk = vec![b'x'; MAX_PARSE_BYTES / 2 + 1];
        feed.take(&chunk);
        assert_eq!(feed.buf.len(), chunk.len());
        feed.take(&chunk);
        assert!(feed.buf.is_empty(), "the copy stops at the bound");
        feed.end(b"grows.ts");
        assert!(feed.begin(b"exact.ts", MAX_PARSE_BYTES as u64));
        feed.take(&vec![b' '; MAX_PARSE_BYTES]);
        assert_eq!(feed.buf.len(), MAX_PARSE_BYTES);
        feed.end(b"exact.ts");
        assert_eq!(feed.finish().skipped_files, 2);
    }

    #[test]
    fn a_hole_is_copied_as_nul_bytes_up_to_the_bound() {
        let mut feed = ToolFeed::new(Roles::ALL);
        assert!(feed.begin(b"holes.ts", MAX_PARSE_BYTES as u64));
        feed.take(b"ab");
        feed.take_zeros(3);
        feed.take(b"c");
        assert_eq!(feed.buf, b"ab\0\0\0c");
        feed.take_zeros((MAX_PARSE_BYTES - 6) as u64);
        assert_eq!(feed.buf.len(), MAX_PARSE_BYTES);
        feed.end(b"holes.ts");
        assert!(feed.begin(b"grows.ts", 1));
        feed.take_zeros(MAX_PARSE_BYTES as u64 + 1);
        assert!(feed.buf.is_empty(), "the copy stops at the bound");
        feed.end(b"grows.ts");
        assert!(!feed.begin(b"README", 1));
        feed.take_zeros(5);
        assert!(feed.buf.is_empty());
        assert_eq!(feed.finish().skipped_files, 1);
    }
}
