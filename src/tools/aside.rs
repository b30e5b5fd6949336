//! The files a collector keeps aside: files without an anchor, held (within
//! [`MAX_DEFERRED_BYTES`]) until a lookup or a chain of imports needs them
//! (docs/method.md, "Tools": "What is parsed"). It keeps bytes and lets them go; it
//! parses nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use super::resolver::Unread;
use super::spellings::Spellings;

/// At most this many bytes of files kept aside (files without an anchor)
/// are held per tree; past it files are let go (see `Aside`), and one that a
/// parsed file's imports then reach is counted as skipped.
pub const MAX_DEFERRED_BYTES: usize = 16 * 1024 * 1024;

/// The files a collector keeps aside, at most [`MAX_DEFERRED_BYTES`] of them. Past
/// the bound the last files in a fixed order are let go: those that hold neither
/// `tool` nor `hint` before those that do, each group in path order. What is kept
/// is then the same whatever the order files arrive in and however a parallel walk
/// split them (each part keeps a subset of what the whole keeps).
#[derive(Default)]
pub(super) struct Aside {
    /// (holds neither word, path) → bytes.
    pub(super) kept: BTreeMap<(bool, Vec<u8>), Vec<u8>>,
    pub(super) bytes: usize,
    /// Paths let go past the bound.
    pub(super) dropped: BTreeSet<Vec<u8>>,
}

/// Where a file kept aside stands once it is asked for.
pub(super) enum Taken {
    Kept(Vec<u8>),
    Dropped,
}

impl Aside {
    fn holds(&self, path: &[u8]) -> bool {
        let path = path.to_vec();
        self.dropped.contains(&path)
            || self.kept.contains_key(&(false, path.clone()))
            || self.kept.contains_key(&(true, path))
    }

    /// Keeps a file (the first arrival of a path) and holds the bound.
    pub(super) fn insert(&mut self, plain: bool, path: Vec<u8>, bytes: Vec<u8>) {
        if self.holds(&path) {
            return;
        }
        self.bytes += bytes.len();
        self.kept.insert((plain, path), bytes);
        while self.bytes > MAX_DEFERRED_BYTES {
            let Some(((_, path), bytes)) = self.kept.pop_last() else {
                break;
            };
            self.bytes -= bytes.len();
            self.dropped.insert(path);
        }
    }

    pub(super) fn merge(&mut self, other: Aside) {
        self.dropped.extend(other.dropped);
        for ((plain, path), bytes) in other.kept {
            self.insert(plain, path, bytes);
        }
    }

    /// Takes a file out: its bytes when kept, `Dropped` when let go.
    pub(super) fn take(&mut self, path: &[u8]) -> Option<Taken> {
        if self.dropped.remove(path) {
            return Some(Taken::Dropped);
        }
        let path = path.to_vec();
        self.kept
            .remove(&(false, path.clone()))
            .or_else(|| self.kept.remove(&(true, path)))
            .map(Taken::Kept)
    }

    /// Returns every file kept (with its bytes) or let go.
    pub(super) fn unread(&self) -> Unread<'_> {
        self.kept
            .iter()
            .map(|((_, p), bytes)| (p.as_slice(), Some(bytes.as_slice())))
            .chain(self.dropped.iter().map(|p| (p.as_slice(), None)))
            .collect()
    }
}

/// Returns true when a file holds `tool` or `hint` in any ASCII case: a preset or a
/// tool's name is likelier there, so past the bound it is kept over one that does
/// not (see `Aside`). Every file kept aside is read through, most to the end, so the
/// two words' 32 spellings are searched for at once, 2.5 times as fast as comparing
/// every four bytes.
pub(super) fn mentions(bytes: &[u8]) -> bool {
    static WORDS: OnceLock<Spellings> = OnceLock::new();
    WORDS
        .get_or_init(|| {
            Spellings::new([b"tool", b"hint"].into_iter().flat_map(|word| {
                // Each subset of the letters in upper case.
                (0..16u8).map(move |upper| {
                    word.iter()
                        .enumerate()
                        .map(|(i, &b)| match upper >> i & 1 {
                            1 => b.to_ascii_uppercase(),
                            _ => b,
                        })
                        .collect()
                })
            }))
        })
        .found_in(bytes)
}
