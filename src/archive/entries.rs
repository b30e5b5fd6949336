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

use super::header::{entry_name, read_extended, read_global, until_nul, Header, Pending};
use super::read_ahead::Source;
use super::{BLOCK, MAX_META_BYTES, MAX_TRAILING_ZEROS};
use crate::sanitize::sanitize;

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
/// chunk by chunk where they lie ([`FileData::chunks`]), or copies them as any
/// [`Read`] does.
pub struct FileData<'a> {
    source: &'a mut dyn Source,
    size: u64,
    /// The bytes not yet read.
    left: u64,
}

impl<'a> FileData<'a> {
    fn new(source: &'a mut dyn Source, size: u64) -> FileData<'a> {
        FileData {
            source,
            size,
            left: size,
        }
    }

    /// Returns the file's size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Passes the file's unread bytes to `each`, chunk by chunk in order. A chunk
    /// may be changed in place (the counter lower-cases it); the change stays in
    /// the chunk.
    pub fn chunks(&mut self, mut each: impl FnMut(&mut [u8])) -> Result<()> {
        while self.left > 0 {
            let buf = self.source.fill().context("reading the archive")?;
            if buf.is_empty() {
                bail!(
                    "the tar stream ended after {} of {} bytes (truncated archive)",
                    self.size - self.left,
                    self.size
                );
            }
            let k = (buf.len() as u64).min(self.left) as usize;
            each(&mut buf[..k]);
            self.source.consume(k);
            self.left -= k as u64;
        }
        Ok(())
    }
}

impl Read for FileData<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 || out.is_empty() {
            return Ok(0);
        }
        let buf = self.source.fill()?;
        if buf.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "the tar stream ended after {} of {} bytes (truncated archive)",
                    self.size - self.left,
                    self.size
                ),
            ));
        }
        let n = buf.len().min(out.len()).min(self.left as usize);
        out[..n].copy_from_slice(&buf[..n]);
        self.source.consume(n);
        self.left -= n as u64;
        Ok(n)
    }
}

/// Reads the tar from `source`, hands its entries to `visitor`, and returns the
/// commit id of its pax global header, if any.
pub fn read_tar(source: &mut dyn Source, visitor: &mut dyn Visitor) -> Result<Option<String>> {
    let mut tar = TarStream { source, offset: 0 };
    let mut commit: Option<String> = None;
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
                visitor.entry(relative, what == Kind::Dir);
                match what {
                    Kind::File => tar
                        .file(size, relative, visitor)
                        .with_context(|| format!("reading '{}'", sanitize(&path)))?,
                    Kind::Dir | Kind::NoData => {}
                    Kind::Skip => tar
                        .skip(size)
                        .with_context(|| format!("reading '{}'", sanitize(&path)))?,
                }
            }
        }
    }
    Ok(commit)
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

    /// Hands a file's `n` bytes to `visitor`, skips what it leaves unread, then
    /// the padding.
    fn file(&mut self, n: u64, path: &[u8], visitor: &mut dyn Visitor) -> Result<()> {
        let mut data = FileData::new(&mut *self.source, n);
        visitor.file(path, &mut data)?;
        data.chunks(|_| {})?;
        self.offset += n;
        self.skip_padding(n)
    }

    /// Skips an entry's `n` bytes of data and its padding.
    fn skip(&mut self, n: u64) -> Result<()> {
        FileData::new(&mut *self.source, n).chunks(|_| {})?;
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
