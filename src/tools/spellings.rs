//! Fixed spellings searched for all at once, for the questions the finder asks of
//! every file's bytes (does it use an SDK, does it mention `tool` or `hint`).

use aho_corasick::packed;
use memchr::memmem;

/// Fixed spellings searched for at once: one packed SIMD search (Teddy, as the
/// literal count's), or, on a CPU without one, one `memmem` pass a spelling.
/// (An `AhoCorasick` automaton of the same spellings gets no packed prefilter for
/// this many, and is ten times as slow.)
pub(super) struct Spellings {
    pub(super) packed: Option<packed::Searcher>,
    pub(super) spellings: Vec<Vec<u8>>,
}

impl Spellings {
    /// Returns a searcher of `spellings`, packed when the CPU allows.
    pub(super) fn new(spellings: impl IntoIterator<Item = Vec<u8>>) -> Spellings {
        let spellings: Vec<Vec<u8>> = spellings.into_iter().collect();
        let mut builder = packed::Config::new().builder();
        builder.extend(&spellings);
        Spellings {
            packed: builder.build(),
            spellings,
        }
    }

    /// Returns true when `bytes` hold one of the spellings.
    pub(super) fn found_in(&self, bytes: &[u8]) -> bool {
        match &self.packed {
            Some(searcher) => searcher.find(bytes).is_some(),
            None => self
                .spellings
                .iter()
                .any(|s| memmem::find(bytes, s).is_some()),
        }
    }
}
