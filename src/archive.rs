//! Streams a tar or tar.gz archive into the matcher, entry by entry, without
//! extracting anything.
//!
//! This module owns what `docs/method.md` says about archives: which entries are
//! files (type `0`, NUL and `7`), where each entry's data begins and ends (read as
//! GNU tar and Python's `tarfile` read it, or the archive is rejected), how a path is
//! made relative to the top folder and which subfolders a file belongs to, where the
//! commit id comes from (the pax global header's `comment`), and when an archive is
//! whole (every gzip member inflated with a good CRC and length, nothing after the
//! last one, the tar ended by its zero block). It takes any `impl Read`; where the
//! bytes come from (network, cache, stdin, `git archive`) is the caller's business,
//! and so is comparing the commit with a pin.
//!
//! The tar reader is written here rather than taken from a crate because its job is
//! to refuse every archive on which GNU tar and Python disagree, and a general
//! reader is built to make the best of such archives instead. Checked against GNU
//! tar 1.34 and Python 3.11, the archive is refused for: a symbolic link, device or
//! fifo with a size, a hard link with a pax size, or an old-style directory (`x/`,
//! type NUL) with a size (GNU tar skips that much data, Python does not); a regular
//! entry whose name ends with `/` unless it is such a directory; a ustar prefix
//! without ustar magic; a pax path and a GNU long name that differ; a pax global
//! `path`, `size` or `linkpath`; GNU sparse entries and records; data in the padding
//! of a pax header or long name; a header number field either reader parses its own
//! way; a malformed pax record; anything but zeros after the first zero block. An
//! archive with no entry at all (only zero blocks), which both read as empty, is
//! refused too: git never writes one, so it is a damaged file.
//!
//! Memory is bounded whatever the archive holds: at most a dozen buffers of 256 KiB
//! (`READ_BUF`), one pax extended header or GNU long name of at most [`MAX_META_BYTES`]
//! (1 MiB; a larger one is an error), and the per-file hit lists. At most
//! [`MAX_TRAILING_ZEROS`] (1 MiB) of zero bytes are read after the end of the tar.

use std::io::{self, BufRead, Read};
use std::sync::mpsc;
use std::thread;

use anyhow::{anyhow, bail, Context, Result};
use flate2::bufread::MultiGzDecoder;

use crate::count::{FileCounter, FileHit, Matcher, TreeCount};
use crate::sanitize::{excerpt, sanitize};

/// Size of the buffers the archive's bytes are read through.
const READ_BUF: usize = 256 * 1024;

/// The largest pax extended header (`x`, `g`) or GNU long name or long link entry
/// (`L`, `K`) read, in bytes: 1 MiB. A larger one makes the archive an error.
pub const MAX_META_BYTES: u64 = 1 << 20;

/// How many zero bytes may follow the tar's two end-of-archive blocks: 1 MiB.
/// Anything past that, or any non-zero byte there, makes the archive an error.
pub const MAX_TRAILING_ZEROS: u64 = 1 << 20;

/// Size of a tar block, in bytes.
const BLOCK: usize = 512;

/// Holds what reading one archive found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArchiveCount {
    /// The full commit id from the pax global header's `comment` (40 or 64 hex
    /// digits, as the archive spells it), when there is one.
    pub commit: Option<String>,
    /// The counts of the archive's files, one per requested subfolder, in the order
    /// the subfolders were given.
    pub trees: Vec<TreeCount>,
}

/// Checks that `subfolder` names a subfolder as `docs/method.md` allows: a relative
/// path with `/` separators, no empty, `.` or `..` segment, no leading or trailing
/// `/`.
pub fn check_subfolder(subfolder: &str) -> Result<()> {
    check_subfolder_bytes(subfolder.as_bytes())
}

fn check_subfolder_bytes(subfolder: &[u8]) -> Result<()> {
    let why = if subfolder.is_empty() {
        "it is empty"
    } else if subfolder.starts_with(b"/") {
        "it starts with '/' (it must be relative to the top folder)"
    } else if subfolder.ends_with(b"/") {
        "it ends with '/'"
    } else if subfolder.contains(&b'\\') {
        "it holds '\\' (separators are '/')"
    } else if subfolder.iter().any(u8::is_ascii_control) {
        "it holds a control character"
    } else if subfolder.split(|&b| b == b'/').any(|s| s.is_empty()) {
        "it has an empty segment ('//')"
    } else if subfolder
        .split(|&b| b == b'/')
        .any(|s| s == b"." || s == b"..")
    {
        "it has a '.' or '..' segment"
    } else {
        return Ok(());
    };
    bail!("subfolder '{}' is not valid: {why}", sanitize(subfolder))
}

/// Counts every regular file of the archive read from `reader`, gzip-compressed or
/// not, once for each of `subfolders` that holds it.
///
/// A subfolder is a path relative to the archive's top folder (see
/// [`check_subfolder`]); `b""` stands for the whole tree. A file belongs to every
/// subfolder `s` whose `s/` starts its path, so nested subfolders both count it. Each
/// file's bytes are read and matched once however many subfolders hold it. Hit paths
/// stay relative to the top folder.
///
/// `on_file` is called after each file of the archive with its size in bytes, for
/// progress. The archive must be whole and read the same by GNU tar and Python's
/// `tarfile`; otherwise an error is returned and nothing of the partial count.
pub fn count_archive<R: Read + Send>(
    reader: R,
    matcher: &Matcher,
    subfolders: &[Vec<u8>],
    on_file: &mut dyn FnMut(u64),
) -> Result<ArchiveCount> {
    for subfolder in subfolders.iter().filter(|s| !s.is_empty()) {
        check_subfolder_bytes(subfolder)?;
    }
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
        // "Performance"). Every gzip member is inflated and checked, as `gzip -dc`
        // and Python read them; bytes after the last member are an error.
        thread::scope(|scope| {
            let compressed = ReadAhead::spawn(scope, io::Cursor::new(head).chain(reader));
            let inflated = ReadAhead::spawn(scope, MultiGzDecoder::new(compressed));
            count_tar(inflated, matcher, subfolders, on_file)
        })
    } else if head.len() == BLOCK && (head.iter().all(|&b| b == 0) || looks_like_tar(&head)) {
        let source = Buffered::new(io::Cursor::new(head).chain(reader));
        count_tar(source, matcher, subfolders, on_file)
    } else if head.is_empty() {
        bail!("not an archive: it is empty")
    } else {
        bail!(
            "not a gzip or tar archive: it starts with {}",
            preview(&head)
        )
    }
}

/// Returns true when `head`, one block, starts with a plausible tar header (ustar
/// magic, or a valid header checksum for old-style archives).
fn looks_like_tar(head: &[u8]) -> bool {
    &head[257..262] == b"ustar" || checksum_ok(head)
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

/// Returns the number in a tar header field, as both GNU tar and Python's `tarfile`
/// read it; `None` for a field that either would read differently or reject.
///
/// Accepted: all NUL bytes (0); base-256 (first byte `0x80` or `0xff`); or optional
/// spaces, at least one octal digit, then only spaces and NUL bytes. GNU tar skips
/// one leading NUL and Python stops at it, Python strips tabs and accepts `_` and
/// signs that GNU tar does not: all of that is refused.
fn number(field: &[u8]) -> Option<i128> {
    match field.first()? {
        0x80 | 0xff => {
            let mut n: i128 = 0;
            for &b in &field[1..] {
                n = (n << 8) | i128::from(b);
            }
            if field[0] == 0xff {
                n -= 1i128 << (8 * (field.len() - 1));
            }
            Some(n)
        }
        _ if field.iter().all(|&b| b == 0) => Some(0),
        _ => {
            let start = field.iter().position(|&b| b != b' ')?;
            let digits = field[start..]
                .iter()
                .take_while(|b| (b'0'..=b'7').contains(*b))
                .count();
            let tail = &field[start + digits..];
            if digits == 0 || !tail.iter().all(|&b| b == b' ' || b == 0) {
                return None;
            }
            let mut n: i128 = 0;
            for &b in &field[start..start + digits] {
                n = n.checked_mul(8)?.checked_add(i128::from(b - b'0'))?;
            }
            Some(n)
        }
    }
}

/// Returns true when the header block's checksum field matches its bytes, summed
/// unsigned or signed (both readers accept either).
fn checksum_ok(block: &[u8]) -> bool {
    let Some(stored) = number(&block[148..156]) else {
        return false;
    };
    let rest = block[..148].iter().chain(&block[156..BLOCK]);
    let unsigned: i128 = rest.clone().map(|&b| i128::from(b)).sum::<i128>() + 8 * 32;
    let signed: i128 = rest.map(|&b| i128::from(b as i8)).sum::<i128>() + 8 * 32;
    stored == unsigned || stored == signed
}

/// Returns `bytes` up to its first NUL.
fn until_nul(bytes: &[u8]) -> &[u8] {
    match memchr::memchr(0, bytes) {
        Some(nul) => &bytes[..nul],
        None => bytes,
    }
}

/// Holds what one tar header block says.
struct Header<'a> {
    block: &'a [u8; BLOCK],
    kind: u8,
    size: u64,
}

impl<'a> Header<'a> {
    /// Checks `block` and returns its header, or why neither reader would take it.
    fn parse(block: &'a [u8; BLOCK]) -> Result<Header<'a>> {
        if !checksum_ok(block) {
            bail!("its checksum is wrong (not a tar header)");
        }
        // Python's tarfile reads all of these and ends the archive early at one it
        // cannot read; GNU tar reads some and fails at them.
        const FIELDS: [(&str, usize, usize); 7] = [
            ("mode", 100, 108),
            ("uid", 108, 116),
            ("gid", 116, 124),
            ("size", 124, 136),
            ("mtime", 136, 148),
            ("devmajor", 329, 337),
            ("devminor", 337, 345),
        ];
        for (name, start, end) in FIELDS {
            if number(&block[start..end]).is_none() {
                bail!(
                    "its {name} field '{}' is not a number both GNU tar and Python read alike",
                    sanitize(&block[start..end])
                );
            }
        }
        let size = number(&block[124..136]).unwrap_or(-1);
        let size = match u64::try_from(size) {
            Ok(size) if size <= i64::MAX as u64 => size,
            _ => bail!("its size {size} is out of range"),
        };
        Ok(Header {
            block,
            kind: block[156],
            size,
        })
    }

    /// Returns the name field, up to its first NUL.
    fn name(&self) -> &'a [u8] {
        until_nul(&self.block[..100])
    }

    /// Returns the ustar prefix field, up to its first NUL.
    fn prefix(&self) -> &'a [u8] {
        until_nul(&self.block[345..500])
    }

    /// Returns true for POSIX ustar magic, the only one with which GNU tar joins the
    /// prefix to the name (Python joins it whatever the magic).
    fn is_ustar(&self) -> bool {
        &self.block[257..263] == b"ustar\0"
    }
}

/// Holds the metadata entries (`x`, `L`, `K`) read for the entry that follows them.
#[derive(Default)]
struct Pending {
    has_pax: bool,
    pax_path: Option<Vec<u8>>,
    pax_size: Option<u64>,
    long_name: Option<Vec<u8>>,
    has_long_link: bool,
}

impl Pending {
    fn is_empty(&self) -> bool {
        !self.has_pax && self.long_name.is_none() && !self.has_long_link
    }
}

/// Calls `each` with the key and value of every record of pax extended header
/// `data` (`"<len> <key>=<value>\n"`...), in order.
///
/// A record whose length field is wrong, that has no `=` or does not end in a
/// newline is an error, and nothing after it is read: GNU tar stops there with an
/// error, Python's tarfile reads on in ways of its own. The records may be followed
/// by NUL bytes only (where both readers stop).
fn pax_records(data: &[u8], mut each: impl FnMut(&[u8], &[u8]) -> Result<()>) -> Result<()> {
    let mut rest = data;
    while !rest.is_empty() {
        let at = data.len() - rest.len();
        if rest.iter().all(|&b| b == 0) {
            break;
        }
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 || rest.get(digits) != Some(&b' ') {
            bail!(
                "malformed pax record at byte {at}: it does not start with a length and a space: '{}'",
                excerpt(&String::from_utf8_lossy(&rest[..rest.len().min(40)]))
            );
        }
        let len = std::str::from_utf8(&rest[..digits])
            .ok()
            .and_then(|s| s.parse::<usize>().ok())
            .filter(|&len| len > digits + 1 && len <= rest.len())
            .ok_or_else(|| {
                anyhow!(
                    "malformed pax record at byte {at}: its length '{}' is wrong ({} bytes are left)",
                    String::from_utf8_lossy(&rest[..digits]),
                    rest.len()
                )
            })?;
        let record = &rest[digits + 1..len];
        let Some(body) = record.strip_suffix(b"\n") else {
            bail!("malformed pax record at byte {at}: it does not end with a newline");
        };
        let Some(eq) = memchr::memchr(b'=', body) else {
            bail!("malformed pax record at byte {at}: it has no '='");
        };
        let key = &body[..eq];
        // GNU tar skips blanks before a key and ends it at a NUL; Python does neither.
        if key.is_empty() || key[0] == b' ' || key[0] == b'\t' || key.contains(&0) {
            bail!(
                "malformed pax record at byte {at}: its key is empty, starts with a blank or holds a NUL"
            );
        }
        each(key, &body[eq + 1..])?;
        rest = &rest[len..];
    }
    Ok(())
}

/// Returns the commit id in a pax `comment`, or an error showing the value escaped.
///
/// The value must be exactly 40 or 64 hex digits, as `git archive` (and so GitHub)
/// writes it: the record's own newline ends it, and nothing else is tolerated, not
/// even a second newline or a space.
fn commit_id(value: &[u8]) -> Result<String> {
    if matches!(value.len(), 40 | 64) && value.iter().all(u8::is_ascii_hexdigit) {
        // ASCII hex digits, so this is the text itself.
        return Ok(String::from_utf8_lossy(value).into_owned());
    }
    bail!(
        "the archive's pax comment '{}' is not a full commit id (40 or 64 hex digits)",
        excerpt(&String::from_utf8_lossy(value))
    )
}

/// Counts the tar read from `source` for every subfolder.
fn count_tar<S: Source>(
    source: S,
    matcher: &Matcher,
    subfolders: &[Vec<u8>],
    on_file: &mut dyn FnMut(u64),
) -> Result<ArchiveCount> {
    let mut tar = TarStream { source, offset: 0 };
    let mut trees = Trees::new(matcher.len(), subfolders);
    let mut commit: Option<String> = None;
    let mut block = [0u8; BLOCK];
    let mut meta: Vec<u8> = Vec::new();
    let mut pending = Pending::default();
    // One counter and one path buffer serve every file of the archive.
    let mut counter = matcher.file_counter();
    let mut path: Vec<u8> = Vec::new();
    let mut has_header = false;
    loop {
        let at = tar.offset;
        if !tar.block(&mut block)? {
            bail!("the tar stream ended without its end-of-archive block (truncated archive)");
        }
        if block.iter().all(|&b| b == 0) {
            if !has_header {
                // GNU tar and Python read this as an empty archive; no archive that
                // git or GitHub writes has no header, so it is a damaged file.
                bail!("the tar holds no entry: it begins with an end-of-archive block");
            }
            if !pending.is_empty() {
                bail!("the tar ends after a pax or GNU long-name header, without the entry it describes");
            }
            tar.finish()?;
            break;
        }
        has_header = true;
        let header = Header::parse(&block)
            .with_context(|| format!("reading the tar header at byte {at}"))?;
        let kind = header.kind;
        match kind {
            b'x' | b'X' | b'g' => {
                let is_global = kind == b'g';
                if (is_global && !pending.is_empty()) || (!is_global && pending.has_pax) {
                    bail!("the pax header at byte {at} follows another header for the same entry");
                }
                tar.read_meta(header.size, &mut meta)
                    .with_context(|| format!("reading the pax header at byte {at}"))?;
                if is_global {
                    read_global(&meta, &mut commit)
                } else {
                    pending.has_pax = true;
                    read_extended(&meta, &mut pending)
                }
                .with_context(|| format!("reading the pax header at byte {at}"))?;
            }
            b'L' | b'K' => {
                let is_name = kind == b'L';
                if (is_name && pending.long_name.is_some()) || (!is_name && pending.has_long_link) {
                    bail!("the GNU long-name header at byte {at} follows another one for the same entry");
                }
                tar.read_meta(header.size, &mut meta)
                    .with_context(|| format!("reading the GNU long-name header at byte {at}"))?;
                if is_name {
                    pending.long_name = Some(until_nul(&meta).to_vec());
                } else {
                    pending.has_long_link = true;
                }
            }
            b'S' => {
                bail!("the GNU sparse entry at byte {at} is not read (sparse files are refused)")
            }
            b'M' | b'V' => {
                bail!("the GNU multi-volume or volume-label entry at byte {at} is not read")
            }
            _ => {
                let entry = std::mem::take(&mut pending);
                entry_name(&header, &entry, &mut path)
                    .with_context(|| format!("reading the tar entry at byte {at}"))?;
                let size = entry.pax_size.unwrap_or(header.size);
                let what = classify(&header, &path, size, entry.pax_size).with_context(|| {
                    format!("reading '{}' (byte {at} of the tar)", sanitize(&path))
                })?;
                let relative = strip_dot(&path);
                trees.see(relative, what == Kind::Dir);
                match what {
                    Kind::File => {
                        counter.reset();
                        tar.feed(size, &mut counter)
                            .with_context(|| format!("reading '{}'", sanitize(&path)))?;
                        trees.add_file(relative, &counter);
                        on_file(size);
                    }
                    Kind::Dir | Kind::NoData => {}
                    Kind::Skip => tar
                        .skip(size)
                        .with_context(|| format!("reading '{}'", sanitize(&path)))?,
                }
            }
        }
    }
    Ok(ArchiveCount {
        commit,
        trees: trees.finish(),
    })
}

/// Reads the records of a pax global header: the commit id from `comment`.
fn read_global(data: &[u8], commit: &mut Option<String>) -> Result<()> {
    pax_records(data, |key, value| {
        match key {
            b"comment" => {
                let id = commit_id(value)?;
                if let Some(earlier) = commit.as_deref() {
                    if !earlier.eq_ignore_ascii_case(&id) {
                        bail!("the archive names two commits, '{earlier}' and '{id}'");
                    }
                }
                *commit = Some(id);
            }
            // Python applies these to the data of every later entry but not to where
            // it ends, GNU tar to both.
            b"path" | b"size" | b"linkpath" => bail!(
                "a pax global header sets '{}', which GNU tar and Python apply differently",
                sanitize(key)
            ),
            _ if key.starts_with(b"GNU.sparse.") => {
                bail!("a pax global header holds GNU sparse records (sparse files are refused)")
            }
            _ => {}
        }
        Ok(())
    })
}

/// Reads the records of a pax extended header into `pending`: `path` and `size`.
fn read_extended(data: &[u8], pending: &mut Pending) -> Result<()> {
    pax_records(data, |key, value| {
        match key {
            b"path" => {
                if value.contains(&0) {
                    bail!("the pax path '{}' holds a NUL byte", sanitize(value));
                }
                pending.pax_path = Some(value.to_vec());
            }
            b"size" => {
                let size = std::str::from_utf8(value)
                    .ok()
                    .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
                    .and_then(|s| s.parse::<u64>().ok())
                    .filter(|&n| n <= i64::MAX as u64)
                    .ok_or_else(|| anyhow!("the pax size '{}' is not a size", sanitize(value)))?;
                pending.pax_size = Some(size);
            }
            _ if key.starts_with(b"GNU.sparse.") => {
                bail!("a pax header holds GNU sparse records (sparse files are refused)")
            }
            _ => {}
        }
        Ok(())
    })
}

/// Puts the entry's full name in `name`: the pax `path`, else the GNU long name,
/// else the header's prefix and name.
fn entry_name(header: &Header<'_>, pending: &Pending, name: &mut Vec<u8>) -> Result<()> {
    name.clear();
    match (&pending.pax_path, &pending.long_name) {
        (Some(pax), Some(long)) if pax != long => {
            // GNU tar takes the pax path; Python takes whichever header came first.
            bail!(
                "its pax path '{}' and GNU long name '{}' differ",
                sanitize(pax),
                sanitize(long)
            )
        }
        (Some(given), _) | (None, Some(given)) => name.extend_from_slice(given),
        (None, None) => {
            let prefix = header.prefix();
            if !prefix.is_empty() {
                if !header.is_ustar() {
                    bail!(
                        "its prefix field '{}' is read by Python but not by GNU tar (no ustar magic)",
                        sanitize(prefix)
                    )
                }
                name.extend_from_slice(prefix);
                name.push(b'/');
            }
            name.extend_from_slice(header.name());
        }
    }
    Ok(())
}

/// What an entry is to the count.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A regular file: counted, its data read.
    File,
    /// A directory: no data follows.
    Dir,
    /// A link, device or fifo: no data follows.
    NoData,
    /// An entry of a type neither reader knows: not a file, its data skipped.
    Skip,
}

/// Returns what an entry is, or an error where GNU tar and Python would disagree
/// on it. `size` is the entry's size after any pax `size`.
fn classify(header: &Header<'_>, name: &[u8], size: u64, pax_size: Option<u64>) -> Result<Kind> {
    let short_slash = header.name().ends_with(b"/");
    let long_slash = name.ends_with(b"/");
    Ok(match header.kind {
        // An old-style regular entry named `x/` is a directory to both readers,
        // but GNU tar still skips its size in data and Python does not.
        0 if short_slash => {
            if !long_slash {
                bail!("Python reads it as a directory, GNU tar as a file");
            }
            if size != 0 {
                bail!("a directory of type NUL with a size: GNU tar skips that much data, Python does not");
            }
            Kind::Dir
        }
        b'0' | b'7' | 0 => {
            if short_slash || long_slash {
                bail!("a regular file whose name ends with '/': GNU tar reads it as a directory, Python as a file");
            }
            Kind::File
        }
        b'5' => Kind::Dir,
        // GNU tar takes a hard link's header size as 0, but not a pax size.
        b'1' if pax_size.unwrap_or(0) != 0 => {
            bail!("a hard link with a pax size: GNU tar skips that much data, Python does not")
        }
        b'1' => Kind::NoData,
        b'2' | b'3' | b'4' | b'6' if size != 0 => {
            bail!(
                "a link, device or fifo with a size: GNU tar skips that much data, Python does not"
            )
        }
        b'2' | b'3' | b'4' | b'6' => Kind::NoData,
        _ => Kind::Skip,
    })
}

fn strip_dot(mut path: &[u8]) -> &[u8] {
    while let Some(rest) = path.strip_prefix(b"./") {
        path = rest;
    }
    path
}

/// Holds the counts of every requested subfolder while the archive is read.
///
/// Whether the archive has a top folder is known only at its end (every entry must
/// lie under it), so each non-empty subfolder is counted twice: as if there were a
/// top folder (paths relative to it) and as if there were none (whole paths); the
/// end picks one. The whole tree is counted once: only its paths differ.
struct Trees {
    /// Each subfolder with a trailing `/`; empty for the whole tree.
    subfolders: Vec<Vec<u8>>,
    top: TopFolder,
    /// Per subfolder: the count if the archive has a top folder.
    under_top: Vec<TreeCount>,
    /// Per non-empty subfolder: the count if it has none.
    whole: Vec<TreeCount>,
}

impl Trees {
    fn new(terms: usize, subfolders: &[Vec<u8>]) -> Trees {
        Trees {
            subfolders: subfolders
                .iter()
                .map(|s| match s.is_empty() {
                    true => Vec::new(),
                    false => [&s[..], b"/"].concat(),
                })
                .collect(),
            top: TopFolder::default(),
            under_top: vec![TreeCount::new(terms); subfolders.len()],
            whole: vec![TreeCount::new(terms); subfolders.len()],
        }
    }

    fn see(&mut self, path: &[u8], is_dir: bool) {
        self.top.see(path, is_dir);
    }

    /// Adds one file, whose whole path is `path`, to every subfolder that holds it.
    fn add_file(&mut self, path: &[u8], counter: &FileCounter<'_>) {
        let (bytes, counts) = (counter.bytes(), counter.counts());
        let relative = match &self.top.prefix {
            Some(prefix) if !prefix.is_empty() => path.strip_prefix(prefix.as_slice()),
            _ => None,
        };
        for (i, subfolder) in self.subfolders.iter().enumerate() {
            if subfolder.is_empty() {
                self.under_top[i].add_file(|| path.to_vec(), bytes, counts);
                continue;
            }
            if relative.is_some_and(|r| r.starts_with(subfolder)) {
                self.under_top[i].add_file(|| path.to_vec(), bytes, counts);
            }
            if path.starts_with(subfolder) {
                self.whole[i].add_file(|| path.to_vec(), bytes, counts);
            }
        }
    }

    /// Returns each subfolder's count, with paths relative to the top folder.
    fn finish(self) -> Vec<TreeCount> {
        let prefix = self.top.prefix();
        self.under_top
            .into_iter()
            .zip(self.whole)
            .zip(&self.subfolders)
            .map(|((mut under_top, whole), subfolder)| match prefix {
                Some(prefix) => {
                    strip(&mut under_top.files, prefix);
                    under_top
                }
                None if subfolder.is_empty() => under_top,
                None => whole,
            })
            .collect()
    }
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
                let is_inside = path.starts_with(prefix)
                    || (is_dir && path == &prefix[..prefix.len().saturating_sub(1)]);
                if !is_inside {
                    self.is_broken = true;
                }
            }
        }
    }

    /// Returns the top folder with its `/`, when the archive has one.
    fn prefix(&self) -> Option<&[u8]> {
        match &self.prefix {
            Some(prefix) if !prefix.is_empty() && !self.is_broken => Some(prefix),
            _ => None,
        }
    }
}

/// Makes the hits' paths relative to `prefix`.
fn strip(files: &mut [FileHit], prefix: &[u8]) {
    for file in files {
        if let Some(rest) = file.path.strip_prefix(prefix) {
            file.path = rest.to_vec();
        }
    }
}

/// A buffered byte source that lends its buffer mutably, so that a file's bytes
/// are lower-cased by the counter where they lie, without a copy.
trait Source {
    /// Returns the bytes buffered, refilling the buffer when it is spent; empty at
    /// the end of the input.
    fn fill(&mut self) -> io::Result<&mut [u8]>;
    /// Marks `n` bytes of what [`Source::fill`] returned as read.
    fn consume(&mut self, n: usize);
}

/// Reads the tar stream block by block, keeping count of its offset.
struct TarStream<S> {
    source: S,
    /// Bytes of the tar stream read so far.
    offset: u64,
}

impl<S: Source> TarStream<S> {
    /// Reads one block into `out`; false when the stream ended before it began.
    fn block(&mut self, out: &mut [u8; BLOCK]) -> Result<bool> {
        let mut filled = 0;
        while filled < BLOCK {
            let buf = self.source.fill().context("reading the archive")?;
            if buf.is_empty() {
                if filled == 0 {
                    return Ok(false);
                }
                bail!("the tar stream ends inside a header (truncated archive)");
            }
            let n = buf.len().min(BLOCK - filled);
            out[filled..filled + n].copy_from_slice(&buf[..n]);
            self.source.consume(n);
            filled += n;
        }
        self.offset += BLOCK as u64;
        Ok(true)
    }

    /// Passes `n` bytes, plus the padding to the next block, to `each`.
    fn stream(&mut self, n: u64, mut each: impl FnMut(&mut [u8])) -> Result<()> {
        let padded = n + padding(n);
        let mut left = padded;
        while left > 0 {
            let buf = self.source.fill().context("reading the archive")?;
            if buf.is_empty() {
                bail!(
                    "the tar stream ended after {} of {} bytes (truncated archive)",
                    padded - left,
                    padded
                );
            }
            let k = (buf.len() as u64).min(left) as usize;
            // The part of the chunk that is data, not padding.
            let data = (left.saturating_sub(padding(n)).min(k as u64)) as usize;
            each(&mut buf[..data]);
            self.source.consume(k);
            left -= k as u64;
        }
        self.offset += padded;
        Ok(())
    }

    /// Skips an entry's `n` bytes of data and its padding.
    fn skip(&mut self, n: u64) -> Result<()> {
        self.stream(n, |_| {})
    }

    /// Feeds a file's `n` bytes to `counter`, lower-casing them in place, and skips
    /// the padding.
    fn feed(&mut self, n: u64, counter: &mut FileCounter<'_>) -> Result<()> {
        self.stream(n, |chunk| counter.feed_mut(chunk))
    }

    /// Reads a metadata entry's `n` bytes into `out` and checks that its padding
    /// is NUL bytes; refuses more than [`MAX_META_BYTES`].
    fn read_meta(&mut self, n: u64, out: &mut Vec<u8>) -> Result<()> {
        if n > MAX_META_BYTES {
            bail!("it is {n} bytes long, more than the {MAX_META_BYTES} bytes allowed");
        }
        out.clear();
        let padded = (n + padding(n)) as usize;
        let mut left = padded;
        while left > 0 {
            let buf = self.source.fill().context("reading the archive")?;
            if buf.is_empty() {
                bail!("the tar stream ended inside it (truncated archive)");
            }
            let k = buf.len().min(left);
            out.extend_from_slice(&buf[..k]);
            self.source.consume(k);
            left -= k;
        }
        self.offset += padded as u64;
        // Python reads the padding as more of the header (more pax records, more of
        // a long name up to a NUL), GNU tar does not: they agree when it is NUL.
        if out[n as usize..].iter().any(|&b| b != 0) {
            bail!("its padding holds data");
        }
        out.truncate(n as usize);
        Ok(())
    }

    /// Reads what follows the first end-of-archive block to the end of the stream:
    /// zero bytes only, at most a second block and [`MAX_TRAILING_ZEROS`] more.
    fn finish(&mut self) -> Result<()> {
        let limit = BLOCK as u64 + MAX_TRAILING_ZEROS;
        let mut zeros: u64 = 0;
        loop {
            let buf = self
                .source
                .fill()
                .context("reading the end of the archive")?;
            if buf.is_empty() {
                return Ok(());
            }
            if let Some(i) = buf.iter().position(|&b| b != 0) {
                bail!(
                    "data follows the tar's end-of-archive block (at byte {})",
                    self.offset + zeros + i as u64
                );
            }
            let n = buf.len();
            self.source.consume(n);
            zeros += n as u64;
            if zeros > limit {
                bail!(
                    "more than {MAX_TRAILING_ZEROS} zero bytes follow the tar's end-of-archive blocks"
                );
            }
        }
    }
}

/// Returns how many bytes pad `n` bytes to a whole block.
fn padding(n: u64) -> u64 {
    (BLOCK as u64 - n % BLOCK as u64) % BLOCK as u64
}

/// Reads a source through one buffer of its own.
struct Buffered<R> {
    inner: R,
    buf: Vec<u8>,
    pos: usize,
    len: usize,
}

impl<R: Read> Buffered<R> {
    fn new(inner: R) -> Buffered<R> {
        Buffered {
            inner,
            buf: vec![0u8; READ_BUF],
            pos: 0,
            len: 0,
        }
    }
}

impl<R: Read> Source for Buffered<R> {
    fn fill(&mut self) -> io::Result<&mut [u8]> {
        if self.pos == self.len {
            self.pos = 0;
            self.len = loop {
                match self.inner.read(&mut self.buf) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    other => break other?,
                }
            };
        }
        Ok(&mut self.buf[self.pos..self.len])
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.len);
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

    /// Makes `current` hold unread bytes, unless the source has ended.
    fn refill(&mut self) -> io::Result<()> {
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
        Ok(())
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

impl Source for ReadAhead {
    fn fill(&mut self) -> io::Result<&mut [u8]> {
        self.refill()?;
        Ok(&mut self.current[self.pos..self.len])
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.len);
    }
}

impl Read for ReadAhead {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = out.len().min(available.len());
        out[..n].copy_from_slice(&available[..n]);
        BufRead::consume(self, n);
        Ok(n)
    }
}

/// Lends the buffers themselves, so that a `bufread` decoder reads them in place.
impl BufRead for ReadAhead {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.refill()?;
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
    fn numbers_are_read_only_where_both_readers_agree() {
        let field = |s: &[u8]| {
            let mut f = [0u8; 12];
            f[..s.len()].copy_from_slice(s);
            number(&f)
        };
        assert_eq!(field(b"00000000017\0"), Some(15));
        assert_eq!(field(b"17 "), Some(15));
        assert_eq!(field(b"   17\0 \0"), Some(15));
        assert_eq!(field(b""), Some(0));
        assert_eq!(
            field(b"\x80\0\0\0\0\0\0\0\0\0\x01\0"),
            Some(256),
            "base-256"
        );
        assert_eq!(number(&[0xff; 8]), Some(-1));
        // GNU tar skips a leading NUL, Python stops at it.
        assert_eq!(field(b"\x0017"), None);
        // Python accepts these, GNU tar does not (or reads them otherwise).
        for odd in [
            &b"1_7"[..],
            b"+17",
            b"\t17",
            b"0o17",
            b"17 1",
            b"8",
            b"  ",
            b"\x81",
        ] {
            assert_eq!(field(odd), None, "{:?}", String::from_utf8_lossy(odd));
        }
    }

    fn records(data: &[u8]) -> Result<Vec<(String, String)>> {
        let mut out = Vec::new();
        pax_records(data, |k, v| {
            out.push((
                String::from_utf8_lossy(k).into_owned(),
                String::from_utf8_lossy(v).into_owned(),
            ));
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn pax_records_are_parsed_strictly() {
        let data = b"52 comment=0123456789abcdef0123456789abcdef01234567\n11 path=ab\n";
        let got = records(data).unwrap();
        assert_eq!(got[1], ("path".to_string(), "ab".to_string()));
        assert_eq!(got[0].1.len(), 40);
        // A value may hold '=' and spaces; NUL bytes may follow the last record.
        let got = records(b"14 path=a=b c\n\0\0\0").unwrap();
        assert_eq!(got, [("path".to_string(), "a=b c".to_string())]);
        for bad in [
            &b"99 comment=x\n"[..],
            b"12 path=ab\n",
            b"10 path=ab\n",
            b"9 pathab\n",
            b"10 path=abc",
            b"5 x\n52 comment=0123456789abcdef0123456789abcdef01234567\n",
            b"11 path=ab\nrubbish",
            b"007 =ab\n",
            b"14 path\0x=abc\n",
            b" 11 path=a\n",
            b"99999999999999999999999 a=b\n",
        ] {
            assert!(records(bad).is_err(), "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn a_commit_is_40_or_64_hex_digits() {
        let id = "0123456789abcdef0123456789abcdef01234567";
        assert_eq!(commit_id(id.as_bytes()).unwrap(), id);
        assert!(commit_id(&[b'a'; 64]).is_ok());
        for bad in [&id.as_bytes()[..39], b"", &[b'g'; 40], &[b'a'; 41]] {
            assert!(commit_id(bad).is_err());
        }
        let err = commit_id("abcdeféééé\u{1b}[31m".as_bytes()).unwrap_err();
        assert!(err.to_string().contains("'abcdeféééé\\u{1b}[31m'"), "{err}");
    }

    fn stripped(paths: &[(&str, bool)]) -> Vec<String> {
        let mut trees = Trees::new(0, &[Vec::new()]);
        let matcher = Matcher::new(&["x"]).unwrap();
        let mut counter = matcher.file_counter();
        counter.feed(b"x");
        for &(path, is_dir) in paths {
            let path = strip_dot(path.as_bytes());
            trees.see(path, is_dir);
            if !is_dir {
                trees.add_file(path, &counter);
            }
        }
        trees.finish()[0]
            .files
            .iter()
            .map(|f| String::from_utf8(f.path.clone()).unwrap())
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
        // A file named as the top folder lies outside it.
        let clash = [("top/", true), ("top/a", false), ("top", false)];
        assert_eq!(stripped(&clash), ["top/a", "top"]);
    }

    #[test]
    fn html_is_not_an_archive() {
        let m = Matcher::new(&["x"]).unwrap();
        let err = count_archive(
            &b"<!DOCTYPE html><html>sign in</html>"[..],
            &m,
            &[Vec::new()],
            &mut |_| {},
        )
        .unwrap_err();
        assert!(err.to_string().contains("<!DOCTYPE html>"), "{err}");
    }
}
