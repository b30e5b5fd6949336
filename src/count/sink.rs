//! Takes a tree's files one at a time and adds each to the tree's totals: the one
//! per-file protocol that every input drives (an archive's entries, a directory walk,
//! git blobs, a single file), as ripgrep's searcher reports to a `Sink`.
//!
//! A [`TreeSink`] owns the file counter, the tool feed and the totals, so the rules
//! about a file live here once: the tool feed copies a chunk before the matcher
//! lower-cases it in place, a sparse hole costs no work for its length, and a file
//! whose bytes do not match the size announced for it is added to no tree. It reads
//! no archive, directory or repository, and words no error: each input knows where
//! its sizes come from and says so in its own message.

use std::io::{self, Read};

use crate::count::{FileCounter, Matcher, TreeCount, READ_BUF};
use crate::tools::feed::ToolFeed;
use crate::tools::Roles;

/// Says that a file's bytes did not match the size announced for it (by its header
/// or its metadata when it was opened).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SizeMismatch {
    /// The size announced, in bytes.
    pub announced: u64,
    /// The bytes the file gave.
    pub read: u64,
}

/// Counts the files of one or more trees that share their files' bytes (an
/// archive's subfolders): each file is read and matched once, then added to every
/// tree that holds it.
pub struct TreeSink<'m> {
    /// One counter serves every file.
    counter: FileCounter<'m>,
    /// Per tree: its totals.
    trees: Vec<TreeCount>,
    /// Per tree: its tool feed, when tools are looked for.
    feeds: Option<Vec<ToolFeed>>,
    /// The current file's path, as its input names it.
    path: Vec<u8>,
    /// The current file's size as announced, in bytes.
    size: u64,
    /// The trees that hold the current file.
    holders: Vec<usize>,
    /// The trees whose feeds copy the current file's chunks.
    taking: Vec<usize>,
    /// The buffer [`TreeSink::read_from`] reads through, allocated on first use.
    buf: Vec<u8>,
}

impl<'m> TreeSink<'m> {
    /// Returns a sink for one tree, counting `matcher`'s terms, and handing its files
    /// to the tool finder with `find_tools`.
    pub fn new(matcher: &'m Matcher, find_tools: Option<Roles>) -> TreeSink<'m> {
        TreeSink::with_trees(matcher, 1, find_tools)
    }

    /// Returns a sink for `trees` trees, as [`TreeSink::new`] does for one.
    pub fn with_trees(
        matcher: &'m Matcher,
        trees: usize,
        find_tools: Option<Roles>,
    ) -> TreeSink<'m> {
        TreeSink {
            counter: matcher.file_counter(),
            trees: vec![TreeCount::new(matcher.len()); trees],
            feeds: find_tools.map(|roles| (0..trees).map(|_| ToolFeed::new(roles)).collect()),
            path: Vec::new(),
            size: 0,
            holders: Vec::new(),
            taking: Vec::new(),
            buf: Vec::new(),
        }
    }

    /// Starts a file at `path` of `size` bytes (as its header or metadata says),
    /// held by every tree of the sink.
    pub fn begin_file(&mut self, path: &[u8], size: u64) {
        self.begin_file_in(path, size, 0..self.trees.len());
    }

    /// Starts a file at `path` of `size` bytes, held by the trees `holders` names
    /// (indexes, each at most once). Its bytes are counted even when no tree holds it.
    pub fn begin_file_in(
        &mut self,
        path: &[u8],
        size: u64,
        holders: impl IntoIterator<Item = usize>,
    ) {
        self.counter.reset();
        self.path.clear();
        self.path.extend_from_slice(path);
        self.size = size;
        self.holders.clear();
        self.holders.extend(holders);
        self.taking.clear();
        if let Some(feeds) = &mut self.feeds {
            for &tree in &self.holders {
                if feeds[tree].begin(path, size) {
                    self.taking.push(tree);
                }
            }
        }
    }

    /// Takes the next chunk of the current file. The tool feeds copy it as it is,
    /// then the counter may lower-case it in place: the caller must not expect its
    /// bytes back unchanged.
    pub fn chunk(&mut self, bytes: &mut [u8]) {
        if let Some(feeds) = &mut self.feeds {
            for &tree in &self.taking {
                feeds[tree].take(bytes);
            }
        }
        self.counter.feed_mut(bytes);
    }

    /// Takes `n` NUL bytes of the current file (a sparse file's hole), in time that
    /// does not grow with `n` (see [`FileCounter::feed_zeros`]).
    pub fn zeros(&mut self, n: u64) {
        if let Some(feeds) = &mut self.feeds {
            for &tree in &self.taking {
                feeds[tree].take_zeros(n);
            }
        }
        self.counter.feed_zeros(n);
    }

    /// Takes every byte `reader` yields until its end, as chunks of at most
    /// [`READ_BUF`] bytes; returns how many bytes that was. The one read loop of
    /// every file read from a reader.
    pub fn read_from<R: Read>(&mut self, reader: &mut R) -> io::Result<u64> {
        let mut buf = std::mem::take(&mut self.buf);
        buf.resize(READ_BUF, 0);
        let mut total = 0u64;
        let read = loop {
            match reader.read(&mut buf) {
                Ok(0) => break Ok(total),
                // The buffer is refilled next, so the counter may lower-case it in place.
                Ok(n) => {
                    total += n as u64;
                    self.chunk(&mut buf[..n]);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        self.buf = buf;
        read
    }

    /// Returns the bytes of the current file taken so far.
    pub fn bytes(&self) -> u64 {
        self.counter.bytes()
    }

    /// Ends the current file: when its bytes are the size announced, each tree
    /// holding it adds its counts (as a hit when any is nonzero) and each feed taking
    /// it hands it to the tool finder. A file of any other length is added nowhere,
    /// and the mismatch returned: its count is of bytes nobody can name.
    pub fn end_file(&mut self) -> Result<(), SizeMismatch> {
        let read = self.counter.bytes();
        if read != self.size {
            return Err(SizeMismatch {
                announced: self.size,
                read,
            });
        }
        if let Some(feeds) = &mut self.feeds {
            match self.taking.as_slice() {
                [] => {}
                // One tree, the usual case: no list of feeds to gather.
                &[tree] => feeds[tree].end(&self.path),
                taking => {
                    // A tree and its subfolder trees: the file is parsed once.
                    let mut each: Vec<&mut ToolFeed> = feeds
                        .iter_mut()
                        .enumerate()
                        .filter(|(i, _)| taking.contains(i))
                        .map(|(_, feed)| feed)
                        .collect();
                    ToolFeed::end_each(&mut each, &self.path);
                }
            }
        }
        let (path, counts) = (&self.path, self.counter.counts());
        for &tree in &self.holders {
            self.trees[tree].add_file(|| path.clone(), read, counts);
        }
        Ok(())
    }

    /// Returns each tree's totals and tool feed, in the order the trees were made,
    /// and leaves the sink holding no tree (a walking thread hands them over when
    /// it is dropped).
    pub fn take_trees(&mut self) -> Vec<(TreeCount, Option<ToolFeed>)> {
        let trees = std::mem::take(&mut self.trees);
        let feeds = self.feeds.take();
        match feeds {
            Some(feeds) => trees.into_iter().zip(feeds.into_iter().map(Some)).collect(),
            None => trees.into_iter().map(|tree| (tree, None)).collect(),
        }
    }

    /// Returns the totals and the tool feed of a sink made for one tree.
    pub fn finish(mut self) -> (TreeCount, Option<ToolFeed>) {
        self.take_trees()
            .into_iter()
            .next()
            .expect("a sink made with `new` holds one tree")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matcher() -> Matcher {
        Matcher::new(&["readOnlyHint", "ab"]).unwrap()
    }

    #[test]
    fn a_file_is_added_to_the_trees_that_hold_it_once_its_size_is_met() {
        let m = matcher();
        let mut sink = TreeSink::with_trees(&m, 3, None);
        sink.begin_file_in(b"a.ts", 15, [0, 2]);
        sink.chunk(&mut b"readOn".to_vec());
        sink.chunk(&mut b"lyHint".to_vec());
        sink.zeros(1);
        sink.chunk(&mut b"ab".to_vec());
        assert_eq!(sink.end_file(), Ok(()));
        sink.begin_file(b"b.txt", 2);
        assert_eq!(sink.read_from(&mut &b"AB"[..]).unwrap(), 2);
        assert_eq!(sink.end_file(), Ok(()));
        let trees: Vec<TreeCount> = sink.take_trees().into_iter().map(|(t, _)| t).collect();
        assert_eq!(trees[0].counts, [1, 2]);
        assert_eq!((trees[0].files_walked, trees[0].bytes_read), (2, 17));
        assert_eq!(trees[1].counts, [0, 1]);
        assert_eq!((trees[1].files_walked, trees[1].bytes_read), (1, 2));
        assert_eq!(trees[0], trees[2]);
    }

    #[test]
    fn a_file_shorter_or_longer_than_announced_is_added_nowhere() {
        let m = matcher();
        let mut sink = TreeSink::new(&m, Some(Roles::ALL));
        sink.begin_file(b"short.ts", 10);
        sink.chunk(&mut b"readOnlyHint"[..4].to_vec());
        let short = SizeMismatch {
            announced: 10,
            read: 4,
        };
        assert_eq!(sink.end_file(), Err(short));
        sink.begin_file(b"long.ts", 1);
        sink.chunk(&mut b"ab".to_vec());
        assert_eq!(sink.bytes(), 2);
        let long = SizeMismatch {
            announced: 1,
            read: 2,
        };
        assert_eq!(sink.end_file(), Err(long));
        let (tree, feed) = sink.finish();
        assert_eq!(tree, TreeCount::new(2));
        assert_eq!(feed.unwrap().finish().skipped_files, 0);
    }

    #[test]
    fn a_hole_counts_as_its_nul_bytes() {
        let m = Matcher::with_patterns(&[
            crate::count::Pattern::insensitive("a\0\0b"),
            crate::count::Pattern::exact(b"\0\0\0"),
            crate::count::Pattern::insensitive("\0x"),
        ])
        .unwrap();
        for hole in [0u64, 1, 2, 3, 7, 8, 9, 100, 5000] {
            let mut bytes = b"xa".to_vec();
            bytes.resize(bytes.len() + hole as usize, 0);
            bytes.extend_from_slice(b"bX");
            let mut sink = TreeSink::new(&m, None);
            sink.begin_file(b"f", bytes.len() as u64);
            sink.chunk(&mut b"xa".to_vec());
            sink.zeros(hole);
            sink.chunk(&mut b"bX".to_vec());
            sink.end_file().unwrap();
            assert_eq!(sink.finish().0.counts, m.count(&bytes), "hole of {hole}");
        }
    }
}
