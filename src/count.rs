//! The matcher: counts terms in bytes, the way `census-method.md` defines a count.
//!
//! This module owns the counting rule and nothing else: ASCII-only case folding,
//! non-overlapping occurrences per term, terms counted independently, no occurrence
//! spanning two files. It takes bytes (whole, or chunk by chunk through
//! [`FileCounter`]) and returns plain numbers. It never reads archives, never prints
//! and never touches the network.

use aho_corasick::{packed, AhoCorasick, AhoCorasickKind, MatchKind, Span};
use anyhow::{bail, Result};

/// Holds the compiled search for one list of terms.
///
/// Every term counts exactly as Python's `data.lower().count(term.lower())` would
/// on its own. Each chunk is ASCII-lower-cased first (in place, or into a scratch
/// buffer), then searched for the lower-cased terms case-sensitively:
///
/// - with a packed SIMD searcher (Teddy; Rabin-Karp where there is no SIMD), which
///   finds each position where some term starts; every term is then compared at
///   that position, and the per-term non-overlap rule applied;
/// - with an overlapping Aho-Corasick automaton when the terms are too many for the
///   packed searcher, and always for the seams between chunks.
///
/// Why not only the automaton: it steps byte by byte, and the crate builds no
/// prefilter for ASCII case-insensitive patterns (nor one that pays off in
/// overlapping search over text, which leaves the start state every few bytes), so
/// it ran slower than inflating the archive. Lower-casing first makes the patterns
/// case-sensitive, which the packed searcher needs (issue 5).
#[derive(Clone, Debug)]
pub struct Matcher {
    /// The lower-cased terms, case-sensitive: for the seams between chunks, and for
    /// whole chunks when there is no packed searcher.
    automaton: AhoCorasick,
    /// Finds where some lower-cased term starts; `None` past its pattern limit.
    packed: Option<packed::Searcher>,
    /// The terms, ASCII-lower-cased, in order.
    folded: Vec<Vec<u8>>,
    lens: Vec<usize>,
    max_len: usize,
}

impl Matcher {
    /// Returns a matcher for `terms`, in that order.
    ///
    /// Fails when a term is empty or when two terms are equal under ASCII case
    /// folding: both would make the counts ambiguous.
    pub fn new<T: AsRef<[u8]>>(terms: &[T]) -> Result<Matcher> {
        Matcher::build(terms, true)
    }

    /// Returns a matcher that searches whole chunks with the packed searcher when
    /// `is_packed` and one can be built, else with the automaton.
    fn build<T: AsRef<[u8]>>(terms: &[T], is_packed: bool) -> Result<Matcher> {
        let mut folded: Vec<Vec<u8>> = Vec::with_capacity(terms.len());
        for term in terms {
            let term = term.as_ref();
            if term.is_empty() {
                bail!("a term is empty");
            }
            let lower = term.to_ascii_lowercase();
            if folded.contains(&lower) {
                bail!(
                    "term '{}' is given twice (terms compare ASCII case-insensitively)",
                    String::from_utf8_lossy(term)
                );
            }
            folded.push(lower);
        }
        let automaton = AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::DFA))
            .build(&folded)?;
        let packed = match is_packed && !folded.is_empty() {
            true => packed::Config::new().builder().extend(&folded).build(),
            false => None,
        };
        let lens: Vec<usize> = folded.iter().map(Vec::len).collect();
        let max_len = lens.iter().copied().max().unwrap_or(0);
        Ok(Matcher {
            automaton,
            packed,
            folded,
            lens,
            max_len,
        })
    }

    /// Returns how many terms this matcher counts.
    pub fn len(&self) -> usize {
        self.lens.len()
    }

    /// Returns true when the matcher counts no term at all.
    pub fn is_empty(&self) -> bool {
        self.lens.is_empty()
    }

    /// Returns the counts of every term in `haystack`, one file's whole content.
    pub fn count(&self, haystack: &[u8]) -> Vec<u64> {
        let mut counter = FileCounter::new(self);
        counter.feed(haystack);
        counter.finish()
    }

    /// Returns a counter for one file whose bytes arrive in chunks.
    pub fn file_counter(&self) -> FileCounter<'_> {
        FileCounter::new(self)
    }
}

/// Counts the terms of one file fed in chunks of any size.
///
/// The result never depends on how the file was split: the last `max_len - 1`
/// bytes of what came before are kept so that a term straddling two chunks is found
/// once, and each term remembers where its last counted occurrence ended so that
/// occurrences never overlap.
pub struct FileCounter<'m> {
    matcher: &'m Matcher,
    /// The tail of the bytes fed so far, at most `max_len - 1` bytes long.
    carry: Vec<u8>,
    /// Scratch space for the seam between `carry` and the next chunk.
    seam: Vec<u8>,
    /// Scratch space for the lower-cased chunk.
    lower: Vec<u8>,
    /// Bytes fed so far.
    offset: u64,
    /// Per term: the absolute end of its last counted occurrence.
    last_end: Vec<u64>,
    counts: Vec<u64>,
}

impl<'m> FileCounter<'m> {
    fn new(matcher: &'m Matcher) -> FileCounter<'m> {
        FileCounter {
            matcher,
            carry: Vec::with_capacity(matcher.max_len),
            seam: Vec::with_capacity(2 * matcher.max_len),
            lower: Vec::new(),
            offset: 0,
            last_end: vec![0; matcher.len()],
            counts: vec![0; matcher.len()],
        }
    }

    /// Feeds the next `chunk` of the file's bytes.
    pub fn feed(&mut self, chunk: &[u8]) {
        if chunk.is_empty() || self.matcher.is_empty() {
            self.offset += chunk.len() as u64;
            return;
        }
        let mut lower = std::mem::take(&mut self.lower);
        lower.clear();
        lower.extend_from_slice(chunk);
        lower.make_ascii_lowercase();
        self.feed_lower(&lower);
        self.lower = lower;
    }

    /// Feeds the next `chunk` of the file's bytes, lower-casing it (ASCII only) in
    /// place: the same count as [`FileCounter::feed`], without copying the chunk.
    pub fn feed_mut(&mut self, chunk: &mut [u8]) {
        if chunk.is_empty() || self.matcher.is_empty() {
            self.offset += chunk.len() as u64;
            return;
        }
        chunk.make_ascii_lowercase();
        self.feed_lower(chunk);
    }

    /// Feeds the next chunk, already ASCII-lower-cased.
    fn feed_lower(&mut self, chunk: &[u8]) {
        let keep = self.matcher.max_len - 1;
        // Occurrences that start in the carried tail and end in this chunk. Those that
        // lie wholly inside the tail were counted with the previous chunk; those that
        // lie wholly inside this chunk are counted below.
        if !self.carry.is_empty() {
            let carry_len = self.carry.len();
            self.seam.clear();
            self.seam.extend_from_slice(&self.carry);
            self.seam.extend_from_slice(&chunk[..chunk.len().min(keep)]);
            let seam_start = self.offset - carry_len as u64;
            let seam = std::mem::take(&mut self.seam);
            for m in self.matcher.automaton.find_overlapping_iter(&seam[..]) {
                if m.start() < carry_len && m.end() > carry_len {
                    self.record(m.pattern().as_usize(), seam_start + m.start() as u64);
                }
            }
            self.seam = seam;
        }
        match &self.matcher.packed {
            Some(searcher) => self.search_packed(searcher, chunk),
            None => {
                for m in self.matcher.automaton.find_overlapping_iter(chunk) {
                    self.record(m.pattern().as_usize(), self.offset + m.start() as u64);
                }
            }
        }
        self.offset += chunk.len() as u64;
        // Keep the last `keep` bytes of everything fed so far.
        if chunk.len() >= keep {
            self.carry.clear();
            self.carry.extend_from_slice(&chunk[chunk.len() - keep..]);
        } else {
            self.carry.extend_from_slice(chunk);
            let excess = self.carry.len().saturating_sub(keep);
            self.carry.drain(..excess);
        }
    }

    /// Counts the occurrences wholly inside `chunk`: the packed searcher finds the
    /// leftmost position where some term starts, every term is compared there, and
    /// the search resumes one byte on, so each start position is seen once and in
    /// order, as [`FileCounter::record`] needs.
    fn search_packed(&mut self, searcher: &packed::Searcher, chunk: &[u8]) {
        let mut at = 0;
        while let Some(m) = searcher.find_in(chunk, Span::from(at..chunk.len())) {
            let start = m.start();
            for k in 0..self.matcher.folded.len() {
                if chunk[start..].starts_with(&self.matcher.folded[k]) {
                    self.record(k, self.offset + start as u64);
                }
            }
            at = start + 1;
        }
    }

    /// Counts an occurrence of term `pattern` at absolute offset `start`, unless it
    /// overlaps the previous counted occurrence of the same term.
    ///
    /// Overlapping matches of one term arrive in order of their end, and all of them
    /// have the same length, so they also arrive in order of their start: accepting
    /// each one that starts at or after the last accepted end is exactly the greedy
    /// left-to-right scan that Python's `bytes.count` makes.
    #[inline]
    fn record(&mut self, pattern: usize, start: u64) {
        if start >= self.last_end[pattern] {
            self.counts[pattern] += 1;
            self.last_end[pattern] = start + self.matcher.lens[pattern] as u64;
        }
    }

    /// Returns the number of bytes fed so far.
    pub fn bytes(&self) -> u64 {
        self.offset
    }

    /// Returns the per-term counts, in the matcher's term order.
    pub fn finish(self) -> Vec<u64> {
        self.counts
    }

    /// Returns the per-term counts so far, in the matcher's term order.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// Makes the counter ready for the next file, keeping its buffers: an archive of
    /// a hundred thousand files allocates one counter, not a hundred thousand.
    pub fn reset(&mut self) {
        self.carry.clear();
        self.offset = 0;
        self.last_end.fill(0);
        self.counts.fill(0);
    }
}

/// Holds the counts of one tree: totals, and the files that matched anything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TreeCount {
    /// Number of files read.
    pub files_walked: u64,
    /// Sum of the sizes of the files read, in bytes.
    pub bytes_read: u64,
    /// Per term (terms first, then controls): occurrences summed over the files.
    pub counts: Vec<u64>,
    /// Every file with a nonzero count, in the order the files were read.
    pub files: Vec<FileHit>,
}

/// Holds the counts of one file that matched at least one term.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileHit {
    /// The file's path as raw bytes, relative to the tree's top folder.
    pub path: Vec<u8>,
    /// The file's size in bytes.
    pub bytes: u64,
    /// Per term, in the matcher's order.
    pub counts: Vec<u64>,
}

impl TreeCount {
    /// Returns an empty count for `terms` terms.
    pub fn new(terms: usize) -> TreeCount {
        TreeCount {
            counts: vec![0; terms],
            ..TreeCount::default()
        }
    }

    /// Adds one file's counts to the tree, keeping it as a hit when any count is
    /// nonzero; `path` is only called then, so files without a hit cost no path.
    pub fn add_file(&mut self, path: impl FnOnce() -> Vec<u8>, bytes: u64, counts: &[u64]) {
        self.files_walked += 1;
        self.bytes_read += bytes;
        for (total, n) in self.counts.iter_mut().zip(counts) {
            *total += n;
        }
        if counts.iter().any(|&n| n > 0) {
            self.files.push(FileHit {
                path: path(),
                bytes,
                counts: counts.to_vec(),
            });
        }
    }

    /// Adds another partial count of the same tree (used when files are counted in parallel).
    pub fn merge(&mut self, other: TreeCount) {
        self.files_walked += other.files_walked;
        self.bytes_read += other.bytes_read;
        for (total, n) in self.counts.iter_mut().zip(&other.counts) {
            *total += n;
        }
        self.files.extend(other.files);
    }

    /// Sorts the file hits by the path's bytes, the order every table uses.
    pub fn sort_files(&mut self) {
        self.files.sort_by(|a, b| a.path.cmp(&b.path));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Counts as `census-method.md` defines it, the slow and obvious way: lower-case
    /// both sides (ASCII only), then scan left to right, jumping past each match.
    fn naive(haystack: &[u8], term: &[u8]) -> u64 {
        let hay = haystack.to_ascii_lowercase();
        let term = term.to_ascii_lowercase();
        let (mut i, mut n) = (0, 0);
        while i + term.len() <= hay.len() {
            if hay[i..i + term.len()] == term[..] {
                n += 1;
                i += term.len();
            } else {
                i += 1;
            }
        }
        n
    }

    fn naive_all(haystack: &[u8], terms: &[Vec<u8>]) -> Vec<u64> {
        terms.iter().map(|t| naive(haystack, t)).collect()
    }

    fn chunked(matcher: &Matcher, haystack: &[u8], cuts: &[usize]) -> Vec<u64> {
        // Every other chunk goes through `feed_mut`, which lower-cases in place.
        let mut counter = matcher.file_counter();
        let mut at = 0;
        for (i, &cut) in cuts.iter().enumerate() {
            let cut = cut.clamp(at, haystack.len());
            if i % 2 == 0 {
                counter.feed(&haystack[at..cut]);
            } else {
                counter.feed_mut(&mut haystack[at..cut].to_vec());
            }
            at = cut;
        }
        counter.feed_mut(&mut haystack[at..].to_vec());
        counter.finish()
    }

    #[test]
    fn default_terms_in_a_tool_declaration() {
        let terms = [
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        ];
        let m = Matcher::new(&terms).unwrap();
        let src = br#"annotations: { readOnlyHint: true, READONLYHINT: 1, ReadOnly_Hint, openworldhint }"#;
        assert_eq!(m.count(src), vec![2, 0, 0, 1]);
    }

    #[test]
    fn self_overlapping_term_counts_like_python() {
        // Python: b"aaaaa".count(b"aa") == 2, b"abababa".count(b"aba") == 2
        let m = Matcher::new(&["aa", "aba"]).unwrap();
        assert_eq!(m.count(b"aaaaa"), vec![2, 0]);
        assert_eq!(m.count(b"abababa"), vec![0, 2]);
    }

    #[test]
    fn term_inside_another_counts_for_both() {
        let m = Matcher::new(&["annotations", "notation"]).unwrap();
        assert_eq!(m.count(b"ANNOTATIONS notation"), vec![1, 2]);
    }

    #[test]
    fn non_ascii_look_alikes_do_not_match() {
        let m = Matcher::new(&["readonlyhint"]).unwrap();
        // U+0130 (dotted capital I) and a fullwidth 'r', then UTF-16LE.
        let utf16: Vec<u8> = "readOnlyHint"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(m.count("readOnlyHİnt".as_bytes()), vec![0]);
        assert_eq!(m.count("ｒeadOnlyHint".as_bytes()), vec![0]);
        assert_eq!(m.count(&utf16), vec![0]);
    }

    #[test]
    fn duplicate_terms_under_case_folding_are_rejected() {
        let err = Matcher::new(&["readOnlyHint", "READONLYHINT"]).unwrap_err();
        assert!(err.to_string().contains("given twice"), "{err}");
        assert!(Matcher::new(&[""]).is_err());
    }

    #[test]
    fn a_reset_counter_counts_like_a_fresh_one() {
        let m = Matcher::new(&["aba", "hint"]).unwrap();
        let mut counter = m.file_counter();
        // Leave a carried tail ("ab") and a pending non-overlap end behind.
        counter.feed(b"xxabab");
        counter.reset();
        counter.feed(b"aHINT");
        counter.feed(b"aba");
        assert_eq!(counter.counts(), [1, 1]);
        assert_eq!(counter.bytes(), 8);
    }

    #[test]
    fn straddling_chunks_is_counted_once() {
        let m = Matcher::new(&["openWorldHint"]).unwrap();
        let hay = b"xxopenWorldHintyyOPENWORLDHINT";
        for cut in 0..=hay.len() {
            assert_eq!(chunked(&m, hay, &[cut]), vec![2], "cut at {cut}");
        }
        // One byte at a time.
        let cuts: Vec<usize> = (0..hay.len()).collect();
        assert_eq!(chunked(&m, hay, &cuts), vec![2]);
    }

    fn alphabet_bytes() -> impl Strategy<Value = u8> {
        // A small alphabet makes matches and overlaps frequent; a few other bytes
        // (non-ASCII, NUL, the case-fold edges) keep the comparison honest.
        prop_oneof![
            8 => prop::sample::select(b"aAbB".to_vec()),
            1 => prop::sample::select(vec![0u8, b'@', b'[', b'`', b'{', 0xC4, 0xB0, 0xE1, 0xFF]),
        ]
    }

    /// Returns `terms` without those equal under ASCII case folding to an earlier one,
    /// which the matcher rejects.
    fn distinct(mut terms: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        let mut seen: Vec<Vec<u8>> = Vec::new();
        terms.retain(|t| {
            let folded = t.to_ascii_lowercase();
            let is_new = !seen.contains(&folded);
            seen.push(folded);
            is_new
        });
        terms
    }

    /// Checks `m` against the naive counter on `hay`, whole and cut at `cuts`.
    fn agrees_with_oracle(
        m: &Matcher,
        hay: &[u8],
        terms: &[Vec<u8>],
        mut cuts: Vec<usize>,
    ) -> Result<(), TestCaseError> {
        let expected = naive_all(hay, terms);
        prop_assert_eq!(m.count(hay), expected.clone());
        cuts.sort_unstable();
        prop_assert_eq!(chunked(m, hay, &cuts), expected);
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn matches_the_naive_oracle(
            hay in prop::collection::vec(alphabet_bytes(), 0..200),
            terms in prop::collection::vec(prop::collection::vec(alphabet_bytes(), 1..5), 1..5),
            cuts in prop::collection::vec(0usize..200, 0..8),
        ) {
            let terms = distinct(terms);
            let m = Matcher::new(&terms).unwrap();
            prop_assert!(m.packed.is_some());
            agrees_with_oracle(&m, &hay, &terms, cuts)?;
        }

        #[test]
        fn automaton_matches_the_naive_oracle(
            hay in prop::collection::vec(alphabet_bytes(), 0..200),
            terms in prop::collection::vec(prop::collection::vec(alphabet_bytes(), 1..5), 1..12),
            cuts in prop::collection::vec(0usize..200, 0..8),
        ) {
            // Past the packed searcher's limit, chunks go through the automaton.
            let terms = distinct(terms);
            let m = Matcher::build(&terms, false).unwrap();
            prop_assert!(m.packed.is_none());
            agrees_with_oracle(&m, &hay, &terms, cuts)?;
        }

        #[test]
        fn every_single_split_agrees(
            hay in prop::collection::vec(alphabet_bytes(), 0..40),
            term in prop::collection::vec(alphabet_bytes(), 1..6),
        ) {
            let m = Matcher::new(&[&term]).unwrap();
            let expected = vec![naive(&hay, &term)];
            for cut in 0..=hay.len() {
                prop_assert_eq!(chunked(&m, &hay, &[cut]), expected.clone());
            }
        }
    }
}
