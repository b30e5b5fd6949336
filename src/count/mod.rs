//! The matcher: counts patterns in bytes, the way `docs/method.md` defines a count.
//!
//! This module owns the counting rule and nothing else: ASCII-only case folding for
//! insensitive patterns, plain bytes for exact ones, non-overlapping occurrences per
//! pattern, patterns counted independently, no occurrence spanning two files. It
//! takes bytes (whole, or chunk by chunk through [`FileCounter`]) and returns plain
//! numbers, one per pattern. It never reads archives, never sums profile columns,
//! never prints and never touches the network.
//!
//! The stage around the matcher lives beside it: [`terms`] turns the columns of a
//! table into patterns and folds the counts back into columns, [`hit_store`] keeps
//! the files that matched in bounded memory, and [`sink`] is the one per-file
//! protocol every input drives, which hands each file to the counter and to the
//! tool finder's feed. It may import `tools` (the finder the sink feeds, and the
//! hints) and `infra`; the readers (`archive`, `scan`) and everything above import it.

pub mod hit_store;
pub mod sink;
pub mod terms;

pub use hit_store::FileHit;

use aho_corasick::{packed, AhoCorasick, AhoCorasickKind, MatchKind, Span};
use anyhow::{bail, Result};

use hit_store::Hits;

/// Says how a pattern compares with the bytes it is counted in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Case {
    /// ASCII letters compare case-insensitively, every other byte exactly:
    /// Python's `data.lower().count(p.lower())` on bytes.
    Insensitive,
    /// Every byte compares exactly: Python's `data.count(p)` on bytes.
    Exact,
}

/// Holds one pattern to count: its bytes and its case rule.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pattern {
    /// The bytes to look for.
    pub bytes: Vec<u8>,
    /// How the bytes compare.
    pub case: Case,
}

impl Pattern {
    /// Returns a pattern that compares ASCII case-insensitively.
    pub fn insensitive(bytes: impl AsRef<[u8]>) -> Pattern {
        Pattern {
            bytes: bytes.as_ref().to_vec(),
            case: Case::Insensitive,
        }
    }

    /// Returns a pattern that compares byte for byte.
    pub fn exact(bytes: impl AsRef<[u8]>) -> Pattern {
        Pattern {
            bytes: bytes.as_ref().to_vec(),
            case: Case::Exact,
        }
    }
}

/// Returns true when one of `a` and `b` contains the other (a pattern contains
/// itself), compared ASCII case-insensitively when either is insensitive and byte
/// for byte when both are exact.
///
/// An occurrence of the longer then holds one of the shorter, so two such spellings
/// in one profile column would count some bytes twice (see "Spelling profiles" in
/// `docs/method.md`).
pub fn contains_another(a: &Pattern, b: &Pattern) -> bool {
    let (a_bytes, b_bytes) = match (a.case, b.case) {
        (Case::Exact, Case::Exact) => (a.bytes.clone(), b.bytes.clone()),
        _ => (a.bytes.to_ascii_lowercase(), b.bytes.to_ascii_lowercase()),
    };
    let (long, short) = match a_bytes.len() >= b_bytes.len() {
        true => (&a_bytes, &b_bytes),
        false => (&b_bytes, &a_bytes),
    };
    short.is_empty() || long.windows(short.len()).any(|w| w == &short[..])
}

/// Holds one pattern that shares a lower-cased form with others.
#[derive(Clone, Debug)]
struct Member {
    /// The pattern's index in the matcher's order.
    pattern: usize,
    /// The bytes an exact pattern must equal; `None` for an insensitive one.
    exact: Option<Vec<u8>>,
}

/// Holds the compiled search for one list of patterns.
///
/// Every pattern counts exactly as Python would count it on its own:
/// `data.lower().count(p.lower())` when insensitive, `data.count(p)` when exact.
/// Each chunk is ASCII-lower-cased first (in place, or into a scratch buffer), then
/// searched case-sensitively for the lower-cased form of every pattern (patterns that
/// lower-case alike share one form):
///
/// - with a packed SIMD searcher (Teddy), which finds each position where some
///   anchor starts (a piece of one or more forms, see [`anchors`]); the forms cut
///   from the anchors found there are compared whole, and the per-pattern
///   non-overlap rule applied;
/// - with an overlapping Aho-Corasick automaton when the forms are too many for the
///   packed searcher, and always for the seams between chunks.
///
/// An exact pattern is a form found in the lower-cased bytes and then compared with
/// the raw bytes at the same place. So the raw bytes must outlive the search: when
/// the matcher holds an exact pattern, a chunk is lower-cased into a scratch buffer
/// and the carried tail is kept raw; when it holds none, a chunk fed through
/// [`FileCounter::feed_mut`] is lower-cased in place and never copied.
///
/// Why not only the automaton: it steps byte by byte, and the crate builds no
/// prefilter for ASCII case-insensitive patterns (nor one that pays off in
/// overlapping search over text, which leaves the start state every few bytes), so
/// it ran slower than inflating the archive. Lower-casing first makes the forms
/// case-sensitive, which the packed searcher needs.
#[derive(Clone, Debug)]
pub struct Matcher {
    /// The lower-cased forms, case-sensitive: for the seams between chunks, and for
    /// whole chunks when there is no packed searcher.
    automaton: AhoCorasick,
    /// Finds where some anchor starts; `None` past its pattern limit.
    packed: Option<packed::Searcher>,
    /// The distinct lower-cased forms, in the order their first pattern comes.
    folded: Vec<Vec<u8>>,
    /// What the packed searcher looks for: pieces of the forms (see [`anchors`]).
    anchors: Vec<Vec<u8>>,
    /// Per anchor: every anchor that can match at the same position (one is a
    /// prefix of the other), itself included.
    related: Vec<Vec<usize>>,
    /// Per anchor: the forms it was cut from, each with the anchor's offset in it.
    anchored: Vec<Anchored>,
    /// Per form: the patterns that lower-case to it.
    members: Vec<Vec<Member>>,
    /// Per pattern: its length.
    lens: Vec<usize>,
    max_len: usize,
    /// Whether some pattern is exact, so that raw bytes must be kept.
    has_exact: bool,
    /// Per pattern: the columns its occurrences count in (itself alone, unless the
    /// matcher was built with columns).
    columns_of: Vec<Vec<usize>>,
    /// How many counts a counter returns: one per column.
    width: usize,
}

impl Matcher {
    /// Returns a matcher for `terms`, in that order, every one ASCII
    /// case-insensitive.
    ///
    /// Fails when a term is empty or when two terms are equal under ASCII case
    /// folding: both would make the counts ambiguous.
    pub fn new<T: AsRef<[u8]>>(terms: &[T]) -> Result<Matcher> {
        let patterns: Vec<Pattern> = terms.iter().map(Pattern::insensitive).collect();
        Matcher::build(&patterns, true)
    }

    /// Returns a matcher for `patterns`, in that order, each under its own case rule.
    ///
    /// Fails when a pattern is empty, when two insensitive patterns are equal under
    /// ASCII case folding, or when two exact patterns have the same bytes. An exact
    /// and an insensitive pattern that lower-case alike are two patterns, each
    /// counted on its own.
    pub fn with_patterns(patterns: &[Pattern]) -> Result<Matcher> {
        Matcher::build(patterns, true)
    }

    /// Returns a matcher for `patterns` whose counts are per column: column `c`
    /// counts the sum of the patterns `columns[c]` lists (a pattern may serve
    /// several columns). Each pattern is still counted on its own, non-overlapping
    /// with itself; summing happens as occurrences are recorded.
    pub fn with_columns(patterns: &[Pattern], columns: &[Vec<usize>]) -> Result<Matcher> {
        let mut matcher = Matcher::build(patterns, true)?;
        let mut columns_of = vec![Vec::new(); patterns.len()];
        for (c, sources) in columns.iter().enumerate() {
            for &p in sources {
                let Some(of) = columns_of.get_mut(p) else {
                    bail!(
                        "column {c} names pattern {p}, and there are {}",
                        patterns.len()
                    );
                };
                of.push(c);
            }
        }
        matcher.columns_of = columns_of;
        matcher.width = columns.len();
        Ok(matcher)
    }

    /// Returns a matcher that searches whole chunks with the packed searcher when
    /// `is_packed` and one can be built, else with the automaton.
    fn build(patterns: &[Pattern], is_packed: bool) -> Result<Matcher> {
        let mut folded: Vec<Vec<u8>> = Vec::new();
        let mut members: Vec<Vec<Member>> = Vec::new();
        for (k, pattern) in patterns.iter().enumerate() {
            if pattern.bytes.is_empty() {
                bail!("a term is empty");
            }
            let shown = String::from_utf8_lossy(&pattern.bytes);
            for earlier in &patterns[..k] {
                match (pattern.case, earlier.case) {
                    (Case::Insensitive, Case::Insensitive)
                        if earlier.bytes.eq_ignore_ascii_case(&pattern.bytes) =>
                    {
                        bail!(
                            "term '{shown}' is given twice (terms compare ASCII case-insensitively)"
                        )
                    }
                    (Case::Exact, Case::Exact) if earlier.bytes == pattern.bytes => {
                        bail!("exact term '{shown}' is given twice")
                    }
                    _ => {}
                }
            }
            let lower = pattern.bytes.to_ascii_lowercase();
            let form = match folded.iter().position(|f| *f == lower) {
                Some(form) => form,
                None => {
                    folded.push(lower);
                    members.push(Vec::new());
                    folded.len() - 1
                }
            };
            members[form].push(Member {
                pattern: k,
                exact: match pattern.case {
                    Case::Exact => Some(pattern.bytes.clone()),
                    Case::Insensitive => None,
                },
            });
        }
        let automaton = AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::DFA))
            .build(&folded)?;
        let (anchors, anchored) = anchors(&folded);
        let packed = match is_packed && !anchors.is_empty() {
            true => packed::Config::new().builder().extend(&anchors).build(),
            false => None,
        };
        let related = anchors
            .iter()
            .map(|a| {
                (0..anchors.len())
                    .filter(|&b| a.starts_with(&anchors[b]) || anchors[b].starts_with(a))
                    .collect()
            })
            .collect();
        let lens: Vec<usize> = patterns.iter().map(|p| p.bytes.len()).collect();
        let max_len = lens.iter().copied().max().unwrap_or(0);
        Ok(Matcher {
            automaton,
            packed,
            folded,
            anchors,
            related,
            anchored,
            members,
            lens,
            max_len,
            has_exact: patterns.iter().any(|p| p.case == Case::Exact),
            columns_of: (0..patterns.len()).map(|p| vec![p]).collect(),
            width: patterns.len(),
        })
    }

    /// Returns how many counts a counter returns: one per pattern, or one per
    /// column when the matcher was built with columns.
    pub fn len(&self) -> usize {
        self.width
    }

    /// Returns true when the matcher counts no pattern at all.
    pub fn is_empty(&self) -> bool {
        self.lens.is_empty() || self.width == 0
    }

    /// Returns the counts of every pattern in `haystack`, one file's whole content.
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

/// Holds the forms one anchor was cut from, each with the anchor's offset in it.
type Anchored = Vec<(usize, usize)>;

/// Returns what the packed searcher looks for in place of `forms`: a list of
/// anchors, and per anchor the forms it was cut from with its offset in each.
///
/// Any choice counts the same, since every form is compared whole where its anchor
/// is found; the choice only sets the speed. The packed searcher tells candidates
/// apart by their first few bytes, and these are cheapest when they are rare and
/// shared. So a form's leading bytes that are not ASCII letters or digits (the `.`
/// of `.read_only(`, common all over source code) are skipped, and forms whose rest
/// starts with the same 8 bytes share one anchor, the longest prefix common to
/// their rests (`readonly` for `readonlyhint` and `readonly = true`).
fn anchors(forms: &[Vec<u8>]) -> (Vec<Vec<u8>>, Vec<Anchored>) {
    const KEY: usize = 8;
    let mut anchors: Vec<Vec<u8>> = Vec::new();
    let mut anchored: Vec<Anchored> = Vec::new();
    for (form, bytes) in forms.iter().enumerate() {
        let offset = bytes
            .iter()
            .position(u8::is_ascii_alphanumeric)
            .unwrap_or(0);
        let rest = &bytes[offset..];
        let key = &rest[..rest.len().min(KEY)];
        // Rests shorter than the key share an anchor only with equal rests.
        let shared = anchors.iter().position(|a| match key.len() == KEY {
            true => a.starts_with(key),
            false => a == key,
        });
        match shared {
            Some(a) => {
                let common = anchors[a]
                    .iter()
                    .zip(rest)
                    .take_while(|(x, y)| x == y)
                    .count();
                anchors[a].truncate(common);
                anchored[a].push((form, offset));
            }
            None => {
                anchors.push(rest.to_vec());
                anchored.push(vec![(form, offset)]);
            }
        }
    }
    (anchors, anchored)
}

/// Size of the buffer a file's bytes are read through, wherever they come from:
/// files are never read whole.
pub const READ_BUF: usize = 256 * 1024;

/// Counts the patterns of one file fed in chunks of any size.
///
/// The result never depends on how the file was split: the last `max_len - 1`
/// bytes of what came before are kept so that a pattern straddling two chunks is
/// found once, and each pattern remembers where its last counted occurrence ended so
/// that occurrences never overlap.
pub struct FileCounter<'m> {
    matcher: &'m Matcher,
    /// The tail of the bytes fed so far, at most `max_len - 1` bytes long: raw when
    /// the matcher has an exact pattern, else lower-cased.
    carry: Vec<u8>,
    /// Scratch space for the seam between `carry` and the next chunk, as fed.
    seam: Vec<u8>,
    /// Scratch space for the seam, lower-cased.
    seam_lower: Vec<u8>,
    /// Scratch space for the lower-cased chunk.
    lower: Vec<u8>,
    /// Bytes fed so far.
    offset: u64,
    /// Per pattern: the absolute end of its last counted occurrence.
    last_end: Vec<u64>,
    counts: Vec<u64>,
}

impl<'m> FileCounter<'m> {
    fn new(matcher: &'m Matcher) -> FileCounter<'m> {
        FileCounter {
            matcher,
            carry: Vec::with_capacity(matcher.max_len),
            seam: Vec::with_capacity(2 * matcher.max_len),
            seam_lower: Vec::with_capacity(2 * matcher.max_len),
            lower: Vec::new(),
            offset: 0,
            last_end: vec![0; matcher.lens.len()],
            counts: vec![0; matcher.width],
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
        // One pass that copies and lower-cases (measured faster than a copy, then
        // lower-casing the copy).
        lower.extend(chunk.iter().map(u8::to_ascii_lowercase));
        match self.matcher.has_exact {
            true => self.feed_lower(&lower, chunk),
            false => self.feed_lower(&lower, &lower),
        }
        self.lower = lower;
    }

    /// Feeds the next `chunk` of the file's bytes: the same count as
    /// [`FileCounter::feed`]. When the matcher has no exact pattern, the chunk is
    /// lower-cased (ASCII only) in place rather than copied, so the caller must not
    /// expect its bytes back unchanged.
    pub fn feed_mut(&mut self, chunk: &mut [u8]) {
        if self.matcher.has_exact {
            return self.feed(chunk);
        }
        if chunk.is_empty() || self.matcher.is_empty() {
            self.offset += chunk.len() as u64;
            return;
        }
        chunk.make_ascii_lowercase();
        self.feed_lower(chunk, chunk);
    }

    /// Feeds the next chunk: `lower` is `raw` ASCII-lower-cased, and `raw` may be
    /// `lower` itself when the matcher has no exact pattern.
    fn feed_lower(&mut self, lower: &[u8], raw: &[u8]) {
        let keep = self.matcher.max_len - 1;
        // Occurrences that start in the carried tail and end in this chunk. Those that
        // lie wholly inside the tail were counted with the previous chunk; those that
        // lie wholly inside this chunk are counted below.
        if !self.carry.is_empty() {
            let carry_len = self.carry.len();
            let head = raw.len().min(keep);
            let mut seam = std::mem::take(&mut self.seam);
            let mut seam_lower = std::mem::take(&mut self.seam_lower);
            seam.clear();
            seam.extend_from_slice(&self.carry);
            seam.extend_from_slice(&raw[..head]);
            seam_lower.clear();
            seam_lower.extend_from_slice(&seam);
            seam_lower.make_ascii_lowercase();
            let seam_start = self.offset - carry_len as u64;
            for m in self
                .matcher
                .automaton
                .find_overlapping_iter(&seam_lower[..])
            {
                if m.start() < carry_len && m.end() > carry_len {
                    self.record_form(m.pattern().as_usize(), &seam, m.start(), seam_start);
                }
            }
            self.seam = seam;
            self.seam_lower = seam_lower;
        }
        match &self.matcher.packed {
            Some(searcher) => self.search_packed(searcher, lower, raw),
            None => {
                for m in self.matcher.automaton.find_overlapping_iter(lower) {
                    self.record_form(m.pattern().as_usize(), raw, m.start(), self.offset);
                }
            }
        }
        self.offset += raw.len() as u64;
        // Keep the last `keep` bytes of everything fed so far.
        if raw.len() >= keep {
            self.carry.clear();
            self.carry.extend_from_slice(&raw[raw.len() - keep..]);
        } else {
            self.carry.extend_from_slice(raw);
            let excess = self.carry.len().saturating_sub(keep);
            self.carry.drain(..excess);
        }
    }

    /// Counts the occurrences wholly inside `lower`: the packed searcher finds the
    /// leftmost position where some anchor starts, every anchor that can start there
    /// is compared, then every form cut from a matching anchor, and the search
    /// resumes one byte on. So each occurrence of a form is seen once, and those of
    /// one form (one offset) in order of their start, as [`FileCounter::record`]
    /// needs. A form that starts before `lower` or ends after it is left to the
    /// seams.
    fn search_packed(&mut self, searcher: &packed::Searcher, lower: &[u8], raw: &[u8]) {
        let matcher = self.matcher;
        let mut at = 0;
        while let Some(m) = searcher.find_in(lower, Span::from(at..lower.len())) {
            let hit = m.start();
            for &anchor in &matcher.related[m.pattern().as_usize()] {
                if !lower[hit..].starts_with(&matcher.anchors[anchor]) {
                    continue;
                }
                for &(form, offset) in &matcher.anchored[anchor] {
                    let Some(start) = hit.checked_sub(offset) else {
                        continue;
                    };
                    if lower[start..].starts_with(&matcher.folded[form]) {
                        self.record_form(form, raw, start, self.offset);
                    }
                }
            }
            at = hit + 1;
        }
    }

    /// Counts, for every pattern of lower-cased `form` found at `raw[start..]`, an
    /// occurrence at absolute offset `base + start`: an insensitive pattern always,
    /// an exact one when the raw bytes there are its own.
    #[inline]
    fn record_form(&mut self, form: usize, raw: &[u8], start: usize, base: u64) {
        let matcher = self.matcher;
        for member in &matcher.members[form] {
            let is_match = match &member.exact {
                None => true,
                Some(exact) => raw[start..].starts_with(exact),
            };
            if is_match {
                self.record(member.pattern, base + start as u64);
            }
        }
    }

    /// Counts an occurrence of pattern `pattern` at absolute offset `start`, unless it
    /// overlaps the previous counted occurrence of the same pattern.
    ///
    /// Overlapping matches of one pattern arrive in order of their end, and all of
    /// them have the same length, so they also arrive in order of their start:
    /// accepting each one that starts at or after the last accepted end is exactly
    /// the greedy left-to-right scan that Python's `bytes.count` makes.
    #[inline]
    fn record(&mut self, pattern: usize, start: u64) {
        if start >= self.last_end[pattern] {
            for &column in &self.matcher.columns_of[pattern] {
                self.counts[column] += 1;
            }
            self.last_end[pattern] = start + self.matcher.lens[pattern] as u64;
        }
    }

    /// Feeds `n` NUL bytes (a sparse file's hole): the same count as feeding them
    /// one by one, in time that does not grow with `n` unless some pattern is
    /// made of NUL bytes alone.
    ///
    /// Why skipping is exact: an occurrence lying wholly inside the run would be
    /// all NUL; any other one overlaps the run by less than the longest pattern at
    /// its start or its end. So the run's first and last `max_len` bytes are fed,
    /// and the offset jumps over the middle (the carried tail is NUL bytes either
    /// way).
    pub fn feed_zeros(&mut self, mut n: u64) {
        let edge = self.matcher.max_len.max(1) as u64;
        let is_all_nul = self
            .matcher
            .folded
            .iter()
            .any(|f| f.iter().all(|&b| b == 0));
        let zeros = [0u8; 4096];
        let feed = |counter: &mut FileCounter<'_>, mut k: u64| {
            while k > 0 {
                let step = k.min(zeros.len() as u64) as usize;
                counter.feed(&zeros[..step]);
                k -= step as u64;
            }
        };
        if is_all_nul || n <= 2 * edge {
            return feed(self, n);
        }
        feed(self, edge);
        n -= edge;
        self.offset += n - edge;
        feed(self, edge);
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
    /// Every file with a nonzero count, in bounded memory (see `hits`).
    pub files: Hits,
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
        self.files.append(other.files);
    }

    /// Marks the count as finished: the hits are sorted by the path's bytes, the
    /// order every table uses, and kept in memory only if they are few.
    pub fn sort_files(&mut self) {
        self.files.seal();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::io::Write;

    /// Counts `term` in `haystack` by plain bytes, the slow and obvious way: scan
    /// left to right, jumping past each match.
    fn naive_exact(haystack: &[u8], term: &[u8]) -> u64 {
        let (mut i, mut n) = (0, 0);
        while i + term.len() <= haystack.len() {
            if haystack[i..i + term.len()] == term[..] {
                n += 1;
                i += term.len();
            } else {
                i += 1;
            }
        }
        n
    }

    /// Counts as `docs/method.md` defines it for an insensitive term: lower-case
    /// both sides (ASCII only), then count plain bytes.
    fn naive(haystack: &[u8], term: &[u8]) -> u64 {
        naive_exact(&haystack.to_ascii_lowercase(), &term.to_ascii_lowercase())
    }

    fn naive_pattern(haystack: &[u8], pattern: &Pattern) -> u64 {
        match pattern.case {
            Case::Insensitive => naive(haystack, &pattern.bytes),
            Case::Exact => naive_exact(haystack, &pattern.bytes),
        }
    }

    fn naive_all(haystack: &[u8], patterns: &[Pattern]) -> Vec<u64> {
        patterns
            .iter()
            .map(|p| naive_pattern(haystack, p))
            .collect()
    }

    fn insensitive(terms: &[Vec<u8>]) -> Vec<Pattern> {
        terms.iter().map(Pattern::insensitive).collect()
    }

    /// Feeds `haystack` cut at `cuts` (sorted), every other chunk through `feed_mut`
    /// and the rest through `feed`; `mut_first` says which comes first.
    fn chunked_by(m: &Matcher, haystack: &[u8], cuts: &[usize], mut_first: bool) -> Vec<u64> {
        let mut counter = m.file_counter();
        let mut at = 0;
        let ends = cuts.iter().copied().chain([haystack.len()]);
        for (i, cut) in ends.enumerate() {
            let cut = cut.clamp(at, haystack.len());
            if (i % 2 == 0) != mut_first {
                counter.feed(&haystack[at..cut]);
            } else {
                counter.feed_mut(&mut haystack[at..cut].to_vec());
            }
            at = cut;
        }
        assert_eq!(counter.bytes(), haystack.len() as u64);
        counter.finish()
    }

    fn chunked(m: &Matcher, haystack: &[u8], cuts: &[usize]) -> Vec<u64> {
        chunked_by(m, haystack, cuts, false)
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
    fn duplicate_patterns_are_rejected_under_their_case_rule() {
        let err = Matcher::with_patterns(&[
            Pattern::insensitive("read_only_hint"),
            Pattern::insensitive("READ_ONLY_HINT"),
        ])
        .unwrap_err();
        assert!(err.to_string().contains("'READ_ONLY_HINT'"), "{err}");
        let err = Matcher::with_patterns(&[
            Pattern::exact("ReadOnly=true"),
            Pattern::exact("ReadOnly=true"),
        ])
        .unwrap_err();
        assert!(
            err.to_string().contains("exact term 'ReadOnly=true'"),
            "{err}"
        );
        assert!(Matcher::with_patterns(&[Pattern::exact("")]).is_err());
        assert!(Matcher::with_patterns(&[Pattern::insensitive("")]).is_err());
        // Exact spellings that differ only in case are two patterns, and so are an
        // exact and an insensitive one that lower-case alike.
        let m = Matcher::with_patterns(&[
            Pattern::exact("ReadOnly"),
            Pattern::exact("READONLY"),
            Pattern::insensitive("readonly"),
        ])
        .unwrap();
        assert_eq!(m.count(b"ReadOnly READONLY readOnly"), vec![1, 1, 3]);
    }

    #[test]
    fn exact_spellings_count_only_their_own_bytes() {
        let m = Matcher::with_patterns(&[
            Pattern::insensitive("readOnlyHint"),
            Pattern::exact("ReadOnly = true"),
            Pattern::exact(".read_only("),
            Pattern::insensitive("read_only_hint"),
        ])
        .unwrap();
        let src = b"[McpServerTool(ReadOnly = true)] READONLY = TRUE readonly = true\n\
                    ToolAnnotations::new().read_only(true).Read_Only(false); read_only_hint = true\n\
                    readOnlyHint READ_ONLY_HINT";
        assert_eq!(m.count(src), vec![1, 1, 1, 2]);
        // A builder call at the very start and at the very end of a file.
        assert_eq!(m.count(b".read_only("), vec![0, 0, 1, 0]);
        assert_eq!(m.count(b".read_only(x.read_only("), vec![0, 0, 2, 0]);
    }

    #[test]
    fn an_exact_spelling_straddling_chunks_is_counted_once() {
        let m = Matcher::with_patterns(&[
            Pattern::exact("OpenWorld = false"),
            Pattern::insensitive("openworld = false"),
            Pattern::exact(".open_world("),
        ])
        .unwrap();
        let hay = b"x OpenWorld = false OPENWORLD = FALSE a.open_world(b).Open_World(";
        for cut in 0..=hay.len() {
            for mut_first in [false, true] {
                let counts = chunked_by(&m, hay, &[cut], mut_first);
                assert_eq!(counts, vec![1, 2, 1], "cut at {cut}");
            }
        }
        let cuts: Vec<usize> = (0..hay.len()).collect();
        assert_eq!(chunked(&m, hay, &cuts), vec![1, 2, 1]);
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

        let m =
            Matcher::with_patterns(&[Pattern::exact("aBa"), Pattern::insensitive("aba")]).unwrap();
        let mut counter = m.file_counter();
        counter.feed(b"xxaB");
        counter.reset();
        counter.feed_mut(&mut b"a".to_vec());
        counter.feed(b"Ba");
        assert_eq!(counter.counts(), [1, 1]);
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

    #[test]
    fn anchors_skip_leading_punctuation_and_share_prefixes() {
        let forms: Vec<Vec<u8>> = ["readonlyhint", "readonly = true", ".read_only(", "a", ".."]
            .iter()
            .map(|f| f.as_bytes().to_vec())
            .collect();
        let (anchors, anchored) = anchors(&forms);
        let anchors: Vec<&[u8]> = anchors.iter().map(Vec::as_slice).collect();
        assert_eq!(
            anchors,
            [&b"readonly"[..], b"read_only(", b"a", b".."],
            "one anchor per shared 8-byte start"
        );
        assert_eq!(
            anchored,
            [
                vec![(0, 0), (1, 0)],
                vec![(2, 1)],
                vec![(3, 0)],
                vec![(4, 0)]
            ]
        );
    }

    /// The `sdk` profile of `docs/method.md`, one column per hint: (insensitive,
    /// exact) spellings.
    fn sdk_columns() -> Vec<Vec<Pattern>> {
        let hints = [
            ("readOnlyHint", "read_only_hint", "ReadOnly", ".read_only("),
            (
                "destructiveHint",
                "destructive_hint",
                "Destructive",
                ".destructive(",
            ),
            (
                "idempotentHint",
                "idempotent_hint",
                "Idempotent",
                ".idempotent(",
            ),
            (
                "openWorldHint",
                "open_world_hint",
                "OpenWorld",
                ".open_world(",
            ),
        ];
        hints
            .iter()
            .map(|(camel, snake, csharp, builder)| {
                let mut column = vec![Pattern::insensitive(camel), Pattern::insensitive(snake)];
                for value in ["true", "false"] {
                    column.push(Pattern::exact(format!("{csharp} = {value}")));
                    column.push(Pattern::exact(format!("{csharp}={value}")));
                }
                column.push(Pattern::exact(builder));
                column
            })
            .collect()
    }

    #[test]
    fn contains_another_compares_under_the_looser_case_rule() {
        let (ins, exact) = (Pattern::insensitive, Pattern::exact);
        assert!(contains_another(
            &exact("ReadOnly = true"),
            &ins("READONLY")
        ));
        assert!(contains_another(
            &ins("readonly"),
            &exact("ReadOnly = true")
        ));
        assert!(contains_another(
            &exact("ReadOnly"),
            &exact("ReadOnly = true")
        ));
        assert!(!contains_another(
            &exact("READONLY"),
            &exact("ReadOnly = true")
        ));
        assert!(!contains_another(
            &ins("read_only_hint"),
            &exact(".read_only(")
        ));
        assert!(contains_another(&ins("read_only"), &exact(".Read_Only(")));
        assert!(contains_another(&exact("same"), &exact("same")));
        // Within one column of the `sdk` profile, no spelling contains another.
        for column in sdk_columns() {
            for (i, a) in column.iter().enumerate() {
                for b in &column[i + 1..] {
                    assert!(!contains_another(a, b), "{a:?} and {b:?}");
                }
            }
        }
    }

    #[test]
    fn the_sdk_profile_counts_as_python_does() {
        let patterns: Vec<Pattern> = sdk_columns()
            .into_iter()
            .flatten()
            .chain([Pattern::insensitive("annotations"), Pattern::exact("aa")])
            .collect();
        let m = Matcher::with_patterns(&patterns).unwrap();
        let mut sample = Vec::new();
        sample.extend_from_slice(
            b"[McpServerTool(ReadOnly = true, Destructive=false, Idempotent = FALSE)]\n\
              #[tool(annotations(read_only_hint = true, DESTRUCTIVE_HINT = false))]\n\
              ToolAnnotations::new().read_only(true).destructive(false).Idempotent(true)\n\
              { readOnlyHint: true, openWorldHint: false, OPENWORLDHINT, openworld=true }\n\
              OpenWorld=true OpenWorld = false OpenWorld=falseOpenWorld=false aaaaaAAaa\n\
              destructiveHint Idempotent=true Destructive = true idempotentHint .idempotent(\n\
              open_world_hint = false; .open_world(true) IdempotentHint .Destructive(\n",
        );
        // Bytes outside ASCII, where a wrong fold would show.
        sample.extend_from_slice("readOnlyHİnt ReadOnly = trüe .open_world(é".as_bytes());
        sample.extend_from_slice(&[0xC4, 0xB0, 0xFF, b'R', b'e', b'a', b'd', 0x00]);

        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(&sample).unwrap();
        let mut args = vec![file.path().to_str().unwrap().to_string()];
        for p in &patterns {
            let hex: String = p.bytes.iter().map(|b| format!("{b:02x}")).collect();
            args.push(format!("{}:{hex}", matches!(p.case, Case::Exact) as u8));
        }
        let script = "import sys\n\
            data = open(sys.argv[1], 'rb').read()\n\
            for arg in sys.argv[2:]:\n\
            \x20   exact, p = arg.split(':')\n\
            \x20   p = bytes.fromhex(p)\n\
            \x20   print(data.count(p) if exact == '1' else data.lower().count(p.lower()))\n";
        let out = std::process::Command::new("python3")
            .arg("-c")
            .arg(script)
            .args(&args)
            .output()
            .expect("python3 is needed as an oracle");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let python: Vec<u64> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| l.parse().unwrap())
            .collect();
        // The sample must exercise both rules, or agreeing proves little.
        assert!(
            python.iter().filter(|&&n| n > 0).count() >= 15,
            "{python:?}"
        );
        assert_eq!(m.count(&sample), python);
        let cuts: Vec<usize> = (0..sample.len()).step_by(7).collect();
        assert_eq!(chunked_by(&m, &sample, &cuts, true), python);
    }

    fn alphabet_bytes() -> impl Strategy<Value = u8> {
        // A small alphabet makes matches and overlaps frequent; a few other bytes
        // (non-ASCII, NUL, the case-fold edges, leading punctuation) keep the
        // comparison honest.
        prop_oneof![
            8 => prop::sample::select(b"aAbB".to_vec()),
            1 => prop::sample::select(vec![0u8, b'.', b'@', b'[', b'`', b'{', 0xC4, 0xB0, 0xE1, 0xFF]),
        ]
    }

    /// Returns `bytes` with the ASCII case of byte `i` swapped where bit `i` of
    /// `flips` is set.
    fn flip_case(bytes: &[u8], flips: u64) -> Vec<u8> {
        bytes
            .iter()
            .enumerate()
            .map(|(i, &b)| match flips >> (i % 64) & 1 == 1 {
                true if b.is_ascii_lowercase() => b.to_ascii_uppercase(),
                true => b.to_ascii_lowercase(),
                false => b,
            })
            .collect()
    }

    /// Returns `patterns` without those the matcher rejects as a repeat of an
    /// earlier one.
    fn distinct(mut patterns: Vec<Pattern>) -> Vec<Pattern> {
        let mut seen: Vec<Pattern> = Vec::new();
        patterns.retain(|p| {
            let repeat = seen.iter().any(|q| {
                q.case == p.case
                    && match p.case {
                        Case::Insensitive => q.bytes.eq_ignore_ascii_case(&p.bytes),
                        Case::Exact => q.bytes == p.bytes,
                    }
            });
            seen.push(p.clone());
            !repeat
        });
        patterns
    }

    /// One pattern made from one of a few words: the word, a prefix, a suffix, the
    /// word extended, or the word after a dot; then some letters' case swapped.
    type PatternSpec = (usize, u8, usize, Vec<u8>, bool, u64);

    fn pattern_spec() -> impl Strategy<Value = PatternSpec> {
        (
            0usize..3,
            0u8..5,
            0usize..12,
            prop::collection::vec(alphabet_bytes(), 1..4),
            any::<bool>(),
            prop_oneof![1 => Just(0u64), 2 => any::<u64>()],
        )
    }

    fn make_patterns(words: &[Vec<u8>], specs: &[PatternSpec]) -> Vec<Pattern> {
        let patterns = specs.iter().map(|(w, shape, cut, extra, exact, flips)| {
            let word = &words[w % words.len()];
            let cut = cut % word.len();
            let bytes = match shape {
                0 => word.clone(),
                1 => word[..cut + 1].to_vec(),
                2 => word[cut..].to_vec(),
                3 => [&word[..], extra].concat(),
                _ => [&b"."[..], word].concat(),
            };
            let bytes = flip_case(&bytes, *flips);
            match exact {
                true => Pattern::exact(bytes),
                false => Pattern::insensitive(bytes),
            }
        });
        distinct(patterns.collect())
    }

    /// A haystack made of random bytes and copies of the patterns, some with their
    /// letters' case swapped.
    type PieceSpec = (Vec<u8>, usize, u64);

    fn piece_spec() -> impl Strategy<Value = PieceSpec> {
        (
            prop::collection::vec(alphabet_bytes(), 0..4),
            0usize..16,
            prop_oneof![2 => Just(0u64), 1 => any::<u64>()],
        )
    }

    fn make_haystack(patterns: &[Pattern], pieces: &[PieceSpec]) -> Vec<u8> {
        let mut hay = Vec::new();
        for (noise, p, flips) in pieces {
            hay.extend_from_slice(noise);
            if let Some(p) = patterns.get(*p) {
                hay.extend(flip_case(&p.bytes, *flips));
            }
        }
        hay
    }

    /// Checks `m` against the naive counter on `hay`: whole, cut at `cuts`, one
    /// byte at a time, and (for short haystacks) cut once at every place, through
    /// both `feed` and `feed_mut`.
    fn agrees_with_oracle(
        m: &Matcher,
        hay: &[u8],
        patterns: &[Pattern],
        mut cuts: Vec<usize>,
    ) -> Result<(), TestCaseError> {
        let expected = naive_all(hay, patterns);
        prop_assert_eq!(m.count(hay), expected.clone());
        cuts.sort_unstable();
        for mut_first in [false, true] {
            prop_assert_eq!(chunked_by(m, hay, &cuts, mut_first), expected.clone());
        }
        let bytewise: Vec<usize> = (0..hay.len()).collect();
        prop_assert_eq!(chunked(m, hay, &bytewise), expected.clone());
        if hay.len() <= 64 {
            for cut in 0..=hay.len() {
                for mut_first in [false, true] {
                    let counts = chunked_by(m, hay, &[cut], mut_first);
                    prop_assert_eq!(counts, expected.clone(), "cut at {}", cut);
                }
            }
        }
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
            let patterns = distinct(insensitive(&terms));
            let m = Matcher::with_patterns(&patterns).unwrap();
            prop_assert!(m.packed.is_some());
            agrees_with_oracle(&m, &hay, &patterns, cuts)?;
        }

        #[test]
        fn automaton_matches_the_naive_oracle(
            hay in prop::collection::vec(alphabet_bytes(), 0..200),
            terms in prop::collection::vec(prop::collection::vec(alphabet_bytes(), 1..5), 1..12),
            cuts in prop::collection::vec(0usize..200, 0..8),
        ) {
            // Past the packed searcher's limit, chunks go through the automaton.
            let patterns = distinct(insensitive(&terms));
            let m = Matcher::build(&patterns, false).unwrap();
            prop_assert!(m.packed.is_none());
            agrees_with_oracle(&m, &hay, &patterns, cuts)?;
        }

        #[test]
        fn mixed_case_rules_match_the_naive_oracle(
            words in prop::collection::vec(prop::collection::vec(alphabet_bytes(), 1..12), 3),
            specs in prop::collection::vec(pattern_spec(), 1..8),
            pieces in prop::collection::vec(piece_spec(), 0..24),
            cuts in prop::collection::vec(0usize..300, 0..8),
            is_packed in any::<bool>(),
        ) {
            let patterns = make_patterns(&words, &specs);
            let hay = make_haystack(&patterns, &pieces);
            let m = Matcher::build(&patterns, is_packed).unwrap();
            prop_assert_eq!(m.packed.is_some(), is_packed);
            agrees_with_oracle(&m, &hay, &patterns, cuts)?;
        }

        #[test]
        fn an_exact_and_an_insensitive_twin_match_the_naive_oracle(
            word in prop::collection::vec(alphabet_bytes(), 1..10),
            flips in any::<u64>(),
            pieces in prop::collection::vec(piece_spec(), 0..24),
            is_packed in any::<bool>(),
        ) {
            // Patterns that lower-case alike: an insensitive one, the exact word and
            // the exact word with some letters' case swapped.
            let patterns = distinct(vec![
                Pattern::insensitive(&word),
                Pattern::exact(&word),
                Pattern::exact(flip_case(&word, flips)),
            ]);
            let hay = make_haystack(&patterns, &pieces);
            let m = Matcher::build(&patterns, is_packed).unwrap();
            agrees_with_oracle(&m, &hay, &patterns, Vec::new())?;
        }
    }

    #[test]
    fn columns_sum_their_patterns_as_they_are_recorded() {
        let patterns = [
            Pattern::insensitive("ab"),
            Pattern::exact("AB"),
            Pattern::insensitive("b"),
        ];
        let columns = [vec![0, 1], vec![2], vec![0]];
        let matcher = Matcher::with_columns(&patterns, &columns).unwrap();
        assert_eq!(matcher.len(), 3);
        let data = b"xABab abAB";
        let each: Vec<u64> = patterns.iter().map(|p| naive_pattern(data, p)).collect();
        assert_eq!(each, [4, 2, 4]);
        let want = vec![each[0] + each[1], each[2], each[0]];
        assert_eq!(matcher.count(data), want);
        let mut counter = matcher.file_counter();
        for byte in data {
            counter.feed(&[*byte]);
        }
        assert_eq!(counter.counts(), &want[..]);
        assert!(Matcher::with_columns(&patterns, &[vec![3]]).is_err());
    }
}
