//! The entry loop: reads a tar stream header by header, decides what each entry
//! is, and hands every regular file to a [`Visitor`] as its path and a reader of
//! its bytes ([`FileData`]).
//!
//! It owns where each entry's data begins and ends, which entries are files, and
//! when a tar is whole (its end-of-archive block, nothing but zeros after it). It
//! does not count, and it does not know subfolders: that is the visitor's business
//! (`tree::Counting` counts; another visitor may look at the same files).

use std::io::{self, Read};

use anyhow::{bail, Context, Result};

use super::header::{
    decimal, entry_name, old_sparse, read_extended, read_global, sparse_entries, until_nul,
    Comment, Header, Pending, SparseFormat, BLOCK, MAX_META_BYTES, MAX_TRAILING_ZEROS,
};
use super::read_ahead::Source;
use crate::infra::sanitize::sanitize;

/// Receives an archive's entries in the order the archive holds them.
pub trait Visitor {
    /// Notes one entry of any kind by its path, without leading `./`; `is_dir` is
    /// true for a directory. Called before [`Visitor::file`] for a file.
    fn entry(&mut self, path: &[u8], is_dir: bool);

    /// Reads one regular file: its path (as [`Visitor::entry`] got it) and its
    /// bytes. What the visitor leaves unread is skipped; an error it returns ends
    /// the archive with that error.
    fn file(&mut self, path: &[u8], data: &mut FileData<'_>) -> Result<()>;
}

/// Reads the bytes of one regular file of an archive, in order. It lends them
/// piece by piece where they lie ([`FileData::pieces`], [`FileData::chunks`]), or
/// copies them as any [`Read`] does.
///
/// A sparse file's holes read as NUL bytes, as GNU tar and Python expand them;
/// [`FileData::pieces`] hands a hole over as its length, so that a hole of a
/// terabyte costs no terabyte of work.
pub struct FileData<'a> {
    source: &'a mut dyn Source,
    /// The size as read: the expanded size of a sparse file.
    size: u64,
    /// Where each stored run of bytes lies in the file, in order; `None` for a
    /// file stored whole.
    map: Option<Vec<(u64, u64)>>,
    /// The next entry of `map` not yet wholly read.
    at_run: usize,
    /// The bytes handed over so far.
    pos: u64,
}

/// One piece of a file's bytes.
pub enum Piece<'b> {
    /// Bytes as stored; they may be changed in place.
    Bytes(&'b mut [u8]),
    /// So many NUL bytes (a sparse file's hole).
    Zeros(u64),
}

impl<'a> FileData<'a> {
    /// Returns a reader of `size` bytes from `source`, expanded by `map` (the
    /// stored runs of a sparse file) when there is one.
    pub(super) fn new(
        source: &'a mut dyn Source,
        size: u64,
        map: Option<Vec<(u64, u64)>>,
    ) -> FileData<'a> {
        FileData {
            source,
            size,
            map,
            at_run: 0,
            pos: 0,
        }
    }

    /// Returns the file's size in bytes (expanded, for a sparse file).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Returns how many bytes come next and whether they are stored (true) or a
    /// hole; `None` at the end.
    fn next_run(&mut self) -> Option<(u64, bool)> {
        if self.pos >= self.size {
            return None;
        }
        let Some(map) = &self.map else {
            return Some((self.size - self.pos, true));
        };
        while self.at_run < map.len() {
            let (offset, len) = map[self.at_run];
            if self.pos < offset {
                return Some((offset - self.pos, false));
            }
            if self.pos < offset + len {
                return Some((offset + len - self.pos, true));
            }
            self.at_run += 1;
        }
        Some((self.size - self.pos, false))
    }

    /// Passes the file's unread bytes to `each`, piece by piece in order.
    pub fn pieces(&mut self, mut each: impl FnMut(Piece<'_>)) -> Result<()> {
        while let Some((n, is_stored)) = self.next_run() {
            if !is_stored {
                each(Piece::Zeros(n));
                self.pos += n;
                continue;
            }
            let buf = self.source.fill().context("reading the archive")?;
            if buf.is_empty() {
                bail!(
                    "the data ended at byte {} of {} of the file (truncated archive)",
                    self.pos,
                    self.size
                );
            }
            let k = (buf.len() as u64).min(n) as usize;
            each(Piece::Bytes(&mut buf[..k]));
            self.source.consume(k);
            self.pos += k as u64;
        }
        Ok(())
    }

    /// Passes the file's unread bytes to `each`, chunk by chunk in order, holes
    /// as chunks of NUL bytes. A chunk may be changed in place (the counter
    /// lower-cases it); the change stays in the chunk.
    pub fn chunks(&mut self, mut each: impl FnMut(&mut [u8])) -> Result<()> {
        let mut zeros: Vec<u8> = Vec::new();
        self.pieces(|piece| match piece {
            Piece::Bytes(bytes) => each(bytes),
            Piece::Zeros(mut n) => {
                while n > 0 {
                    let k = n.min(64 * 1024) as usize;
                    zeros.clear();
                    zeros.resize(k, 0);
                    each(&mut zeros);
                    n -= k as u64;
                }
            }
        })
    }
}

impl Read for FileData<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let Some((n, is_stored)) = self.next_run() else {
            return Ok(0);
        };
        let k = (out.len() as u64).min(n) as usize;
        if !is_stored {
            out[..k].fill(0);
            self.pos += k as u64;
            return Ok(k);
        }
        let buf = self.source.fill()?;
        if buf.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "the data ended at byte {} of {} of the file (truncated archive)",
                    self.pos, self.size
                ),
            ));
        }
        let k = k.min(buf.len());
        out[..k].copy_from_slice(&buf[..k]);
        self.source.consume(k);
        self.pos += k as u64;
        Ok(k)
    }
}

/// Checks a sparse file's map against its expanded `size` and the `stored` bytes
/// that follow: runs in order, none overlapping, none past the end, their lengths
/// summing to what is stored. Where a map breaks this, GNU tar and Python expand
/// it each their own way. Runs of no bytes (unused slots, the end marker GNU tar
/// writes) are dropped.
fn check_map(mut map: Vec<(u64, u64)>, size: u64, stored: u64) -> Result<Vec<(u64, u64)>> {
    map.retain(|&(_, len)| len != 0);
    let mut end = 0u64;
    let mut total = 0u64;
    for &(offset, len) in &map {
        let run_end = offset
            .checked_add(len)
            .filter(|&e| e <= size)
            .ok_or_else(|| anyhow::anyhow!("its sparse map runs past its size {size}"))?;
        if offset < end {
            bail!("its sparse map is out of order or overlaps itself at offset {offset}");
        }
        end = run_end;
        total += len;
    }
    if total != stored {
        bail!("its sparse map holds {total} bytes and the archive stores {stored}");
    }
    Ok(map)
}

/// Reads the tar from `source`, hands its entries to `visitor`, and returns what
/// its pax global headers say of the commit.
pub fn read_tar(source: &mut dyn Source, visitor: &mut dyn Visitor) -> Result<Comment> {
    let mut tar = TarStream { source, offset: 0 };
    let mut comment = Comment::default();
    let mut block = [0u8; BLOCK];
    let mut meta: Vec<u8> = Vec::new();
    let mut pending = Pending::default();
    // One path buffer serves every entry of the archive.
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
                // git or GitHub writes has no header, so it is a damaged file
                // (docs/method.md, "An archive that is not whole").
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
                    read_global(&meta, &mut comment)
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
            b'V' => {
                // A volume label names the archive, not a file: both readers skip it.
                // GNU tar writes it with no data; with data, or with metadata before
                // it, what follows is each reader's own guess.
                if header.size != 0 || !pending.is_empty() {
                    bail!("the GNU volume label at byte {at} has data or metadata of its own");
                }
            }
            b'M' => {
                bail!("the GNU multi-volume entry at byte {at} is not read (a part of a file)")
            }
            _ => {
                let entry = std::mem::take(&mut pending);
                entry_name(&header, &entry, &mut path)
                    .with_context(|| format!("reading the tar entry at byte {at}"))?;
                let size = entry.pax_size.unwrap_or(header.size);
                let what = classify(&header, &path, size, &entry).with_context(|| {
                    format!("reading '{}' (byte {at} of the tar)", sanitize(&path))
                })?;
                let relative = strip_dot(&path);
                visitor.entry(relative, what == Kind::Dir);
                let read = match what {
                    Kind::File => tar.file(size, None, relative, visitor),
                    Kind::OldSparse => tar.old_sparse(&header, relative, visitor),
                    Kind::PaxSparse => tar.pax_sparse(size, &entry, relative, visitor),
                    Kind::Dir | Kind::NoData => Ok(()),
                    Kind::Skip => tar.skip(size),
                };
                read.with_context(|| format!("reading '{}'", sanitize(&path)))?;
            }
        }
    }
    Ok(comment)
}

/// Returns `path` without its leading `./` segments.
pub fn strip_dot(mut path: &[u8]) -> &[u8] {
    while let Some(rest) = path.strip_prefix(b"./") {
        path = rest;
    }
    path
}

/// What an entry is to the count.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A regular file: counted, its data read.
    File,
    /// A GNU sparse file (type `S`): its map in the header and the blocks after it.
    OldSparse,
    /// A regular file with GNU sparse records in its pax header.
    PaxSparse,
    /// A directory: no data follows.
    Dir,
    /// A link, device or fifo: no data follows.
    NoData,
    /// An entry of a type neither reader knows: not a file, its data skipped.
    Skip,
}

/// Returns what an entry is, or an error where GNU tar and Python would disagree
/// on it. `name` is its final name (pax `path`, GNU long name, or the header's),
/// `size` its size after any pax `size`.
fn classify(header: &Header<'_>, name: &[u8], size: u64, pending: &Pending) -> Result<Kind> {
    let short_slash = header.name().ends_with(b"/");
    let long_slash = name.ends_with(b"/");
    let pax_size = pending.pax_size;
    if pending.sparse.is_some() && header.kind != b'0' {
        bail!("GNU sparse records on an entry that is not of type '0'");
    }
    Ok(match header.kind {
        // An old-style regular entry named `x/` is a directory to both readers,
        // but GNU tar still skips its size in data and Python does not. Python
        // decides on the header's own name, GNU tar on the final one.
        0 if short_slash => {
            if !long_slash {
                bail!("Python reads it as a directory, GNU tar as a file");
            }
            if size != 0 {
                bail!("a directory of type NUL with a size: GNU tar skips that much data, Python does not");
            }
            Kind::Dir
        }
        // For these both readers go by the final name alone: the header's copy of
        // a long name may end in '/' where it was cut.
        b'0' | b'7' | 0 | b'S' if long_slash => {
            bail!("a regular file whose name ends with '/': GNU tar reads it as a directory, Python as a file")
        }
        b'0' if pending.sparse.is_some() => {
            if pax_size.is_some() {
                bail!("a GNU sparse file with a pax size: GNU tar and Python take different sizes");
            }
            Kind::PaxSparse
        }
        b'0' | b'7' | 0 => Kind::File,
        b'S' => {
            if pending.has_pax {
                bail!(
                    "a GNU sparse entry with a pax header: GNU tar and Python size it differently"
                );
            }
            Kind::OldSparse
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

/// Reads the tar stream block by block, keeping count of its offset.
struct TarStream<'a> {
    source: &'a mut dyn Source,
    /// Bytes of the tar stream read so far.
    offset: u64,
}

impl TarStream<'_> {
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

    /// Hands a file's `n` stored bytes to `visitor` (expanded to `map` for a
    /// sparse file), skips what it leaves unread, then the padding.
    fn file(
        &mut self,
        n: u64,
        sparse: Option<(Vec<(u64, u64)>, u64)>,
        path: &[u8],
        visitor: &mut dyn Visitor,
    ) -> Result<()> {
        let (size, map) = match sparse {
            Some((map, size)) => (size, Some(check_map(map, size, n)?)),
            None => (n, None),
        };
        let mut data = FileData::new(&mut *self.source, size, map);
        visitor.file(path, &mut data)?;
        data.pieces(|_| {})?;
        self.offset += n;
        self.skip_padding(n)
    }

    /// Reads a GNU sparse entry (type `S`): the map in its header and in the
    /// extension blocks that follow, then its stored bytes.
    fn old_sparse(
        &mut self,
        header: &Header<'_>,
        path: &[u8],
        visitor: &mut dyn Visitor,
    ) -> Result<()> {
        let (mut map, mut is_extended, size) = old_sparse(header.block())?;
        let mut block = [0u8; BLOCK];
        let mut blocks = 0u64;
        while is_extended {
            blocks += 1;
            if blocks * BLOCK as u64 > MAX_META_BYTES {
                bail!("its sparse map is longer than the {MAX_META_BYTES} bytes allowed");
            }
            if !self.block(&mut block)? {
                bail!("the tar stream ended inside its sparse map (truncated archive)");
            }
            for (offset, len) in sparse_entries(&block[..504], 21)? {
                // Python drops an extension slot whose offset or size is 0; GNU
                // tar reads it. They agree only when both are 0 (an unused slot).
                if (offset == 0) != (len == 0) {
                    bail!("its sparse map has a slot with an offset or a size of 0, which Python drops and GNU tar reads");
                }
                map.push((offset, len));
            }
            is_extended = block[504] != 0;
        }
        self.file(header.size, Some((map, size)), path, visitor)
    }

    /// Reads a regular entry with GNU sparse records in its pax header: formats
    /// 0.0 and 0.1 carry the map there, 1.0 at the start of its `n` bytes.
    fn pax_sparse(
        &mut self,
        n: u64,
        pending: &Pending,
        path: &[u8],
        visitor: &mut dyn Visitor,
    ) -> Result<()> {
        let records = pending.sparse.as_ref().expect("classified as sparse");
        match records.format()? {
            SparseFormat::InHeader { map, size } => self.file(n, Some((map, size)), path, visitor),
            SparseFormat::InData { size } => {
                let (map, used) = self.data_map(n)?;
                self.file(n - used, Some((map, size)), path, visitor)
            }
        }
    }

    /// Reads the sparse map (format 1.0) that opens a file's `n` bytes: decimal
    /// numbers, one a line (the count of runs, then each run's offset and size),
    /// NUL bytes to the end of its last block. Returns it and the bytes it took.
    fn data_map(&mut self, n: u64) -> Result<(Vec<(u64, u64)>, u64)> {
        let mut numbers: Vec<u64> = Vec::new();
        let mut line: Vec<u8> = Vec::new();
        let mut block = [0u8; BLOCK];
        let mut used = 0u64;
        let mut want: Option<u64> = None;
        loop {
            if used + BLOCK as u64 > n + padding(n) || used >= MAX_META_BYTES {
                bail!("its sparse map does not end within its data");
            }
            if !self.block(&mut block)? {
                bail!("the tar stream ended inside its sparse map (truncated archive)");
            }
            used += BLOCK as u64;
            let mut rest: &[u8] = &block;
            while want.is_none_or(|w| (numbers.len() as u64) < 1 + 2 * w) {
                let Some(newline) = memchr::memchr(b'\n', rest) else {
                    line.extend_from_slice(rest);
                    rest = &[];
                    break;
                };
                line.extend_from_slice(&rest[..newline]);
                rest = &rest[newline + 1..];
                let number = decimal(&line).ok_or_else(|| {
                    anyhow::anyhow!("its sparse map holds '{}', not a number", sanitize(&line))
                })?;
                line.clear();
                numbers.push(number);
                if want.is_none() {
                    if number > MAX_META_BYTES {
                        bail!("its sparse map claims {number} runs");
                    }
                    want = Some(number);
                }
            }
            if want.is_some_and(|w| numbers.len() as u64 == 1 + 2 * w) {
                // GNU tar stops at the last number, Python reads the rest of the
                // block as nothing: they agree where it is NUL bytes.
                if rest.iter().any(|&b| b != 0) {
                    bail!("its sparse map is followed by data in its last block");
                }
                break;
            }
        }
        if used > n {
            bail!("its sparse map is longer than its data");
        }
        let map = numbers[1..].chunks(2).map(|p| (p[0], p[1])).collect();
        Ok((map, used))
    }

    /// Skips an entry's `n` bytes of data and its padding.
    fn skip(&mut self, n: u64) -> Result<()> {
        FileData::new(&mut *self.source, n, None).pieces(|_| {})?;
        self.offset += n;
        self.skip_padding(n)
    }

    /// Skips the padding after `n` bytes of data.
    fn skip_padding(&mut self, n: u64) -> Result<()> {
        let mut left = padding(n) as usize;
        while left > 0 {
            let buf = self.source.fill().context("reading the archive")?;
            if buf.is_empty() {
                bail!("the tar stream ended inside the padding after an entry (truncated archive)");
            }
            let k = buf.len().min(left);
            self.source.consume(k);
            left -= k;
        }
        self.offset += padding(n);
        Ok(())
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
