//! Tells an archive's format from its first bytes and opens the stream of tar
//! blocks it holds: inflating gzip on threads of their own, or reading a plain tar
//! through one buffer.
//!
//! It does not parse the tar; that is the entry loop's job (`entries`).

use std::io::{self, BufRead, Read};
use std::thread;

use anyhow::{bail, Context, Result};
use flate2::bufread::GzDecoder;

use super::header::{checksum_ok, BLOCK, MAX_TRAILING_ZEROS};
use super::read_ahead::{Buffered, ReadAhead, Source};

/// The formats told apart by their first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Gzip,
    Xz,
    Bzip2,
    Zstd,
    /// A zip archive (a wheel is one).
    Zip,
    Tar,
    /// An archive or compressed stream of a format not read, by its name.
    Unread(&'static str),
}

impl Format {
    /// Returns the format's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Format::Gzip => "gzip",
            Format::Xz => "xz",
            Format::Bzip2 => "bzip2",
            Format::Zstd => "zstd",
            Format::Zip => "zip",
            Format::Tar => "tar",
            Format::Unread(name) => name,
        }
    }
}

/// Returns the format that `head`, the first block of a file (or all of a
/// shorter one), starts, by its magic bytes alone.
pub fn sniff(head: &[u8]) -> Option<Format> {
    let is_bzip2 = head.len() >= 10
        && head.starts_with(b"BZh")
        && (b'1'..=b'9').contains(&head[3])
        && (head[4..10] == [0x31, 0x41, 0x59, 0x26, 0x53, 0x59]
            || head[4..10] == [0x17, 0x72, 0x45, 0x38, 0x50, 0x90]);
    if head.starts_with(&[0x1f, 0x8b]) {
        Some(Format::Gzip)
    } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
        Some(Format::Xz)
    } else if is_bzip2 {
        Some(Format::Bzip2)
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Some(Format::Zstd)
    } else if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        Some(Format::Zip)
    } else if looks_like_tar(head) {
        Some(Format::Tar)
    } else {
        UNREAD
            .iter()
            .find(|(magic, _)| head.starts_with(magic))
            .map(|&(_, name)| Format::Unread(name))
    }
}

/// The magic bytes of archive and compression formats that are recognised but
/// not read: a file in one of them is an error naming the format, never one
/// opaque file that reads zero.
const UNREAD: [(&[u8], &str); 6] = [
    (b"7z\xbc\xaf\x27\x1c", "7-Zip"),
    (b"Rar!\x1a\x07", "RAR"),
    (b"\x04\x22\x4d\x18", "lz4"),
    (b"LZIP\x01", "lzip"),
    (b"\x1f\x9d", "compress (.Z)"),
    (b"070701", "cpio"),
];

/// The most memory an xz or zstd decoder may take for one archive: 128 MiB, what
/// `zstd -d` allows by default (window log 27) and more than `xz -9` needs (a 64
/// MiB dictionary). A stream that asks for more is an error.
pub const MAX_DECODER_MEMORY: u64 = 128 << 20;

/// Sniffs the format of the archive read from `reader` and calls `read` with the
/// tar stream it holds, decompressed.
///
/// Every gzip member is inflated and checked, as `gzip -dc` and Python read them;
/// zero bytes after the last member are skipped as both skip them, anything else
/// there is an error. xz, bzip2 and zstd streams are decompressed with their
/// checks, every stream or frame of a concatenation in turn, as `xz -d`,
/// `bzip2 -d` and `zstd -d` read them. A zip archive is not a tar stream: it is an
/// error here ([`super::visit_archive`] reads it). Anything else is an error that
/// shows its first bytes.
pub fn with_tar_stream<R: Read + Send, T>(
    reader: R,
    read: impl FnOnce(&mut dyn Source) -> Result<T>,
) -> Result<T> {
    let (head, reader) = peek(reader)?;
    let format = sniff(&head);
    // Decompressing runs on its own thread so that tar parsing and counting hide
    // behind it: a census is bounded by inflate speed, not by the matcher. Reading
    // the compressed bytes runs on a third one, because the caller's reader may do
    // work of its own (the cache hashes every byte with SHA-256), which would
    // otherwise sit on the decompressing thread (docs/performance.md).
    let input = io::Cursor::new(head.clone()).chain(reader);
    match format {
        Some(Format::Gzip) => thread::scope(|scope| {
            let compressed = ReadAhead::spawn(scope, input);
            let mut inflated = ReadAhead::spawn(scope, GzMembers::new(compressed));
            read(&mut inflated)
        }),
        Some(Format::Xz) => {
            let flags = liblzma::stream::CONCATENATED;
            let stream = liblzma::stream::Stream::new_stream_decoder(MAX_DECODER_MEMORY, flags)
                .context("starting the xz decoder")?;
            thread::scope(|scope| {
                let compressed = ReadAhead::spawn(scope, input);
                let decoder = liblzma::bufread::XzDecoder::new_stream(compressed, stream);
                let mut inflated = ReadAhead::spawn(scope, decoder);
                read(&mut inflated)
            })
        }
        Some(Format::Bzip2) => thread::scope(|scope| {
            let compressed = ReadAhead::spawn(scope, input);
            let decoder = bzip2::bufread::MultiBzDecoder::new(compressed);
            let mut inflated = ReadAhead::spawn(scope, decoder);
            read(&mut inflated)
        }),
        Some(Format::Zstd) => thread::scope(|scope| {
            let compressed = ReadAhead::spawn(scope, input);
            let mut decoder =
                zstd::stream::read::Decoder::with_buffer(compressed).context("starting the zstd decoder")?;
            decoder
                .window_log_max(27)
                .context("bounding the zstd decoder")?;
            let mut inflated = ReadAhead::spawn(scope, decoder);
            read(&mut inflated)
        }),
        Some(Format::Zip) => bail!("a zip archive holds no tar stream"),
        Some(Format::Unread(name)) => bail!(
            "a {name} archive is not read (tar, plain or compressed with gzip, xz, bzip2 or zstd, and zip are)"
        ),
        Some(Format::Tar) => read(&mut Buffered::new(input)),
        None if head.len() == BLOCK && head.iter().all(|&b| b == 0) => {
            read(&mut Buffered::new(input))
        }
        None if head.is_empty() => bail!("not an archive: it is empty"),
        None => bail!(
            "not a gzip, xz, bzip2, zstd, zip or tar archive: it starts with {}",
            preview(&head)
        ),
    }
}

/// Reads the first block of `reader` (or all of a shorter input); a pipe may hand
/// it over in pieces, so it reads until the block is full or the input ends.
pub fn peek<R: Read>(mut reader: R) -> Result<(Vec<u8>, R)> {
    let mut head = Vec::with_capacity(BLOCK);
    (&mut reader)
        .take(BLOCK as u64)
        .read_to_end(&mut head)
        .context("reading the archive")?;
    Ok((head, reader))
}

/// Returns true when `head`, the first block of a file (or all of a shorter one),
/// starts an archive of a format this reader knows: what `scan` reads as an
/// archive rather than as one file.
pub fn is_archive(head: &[u8]) -> bool {
    sniff(head).is_some()
}

/// Returns true when `head` is one whole block holding a plausible tar header
/// (ustar magic, or a valid header checksum for old-style archives).
fn looks_like_tar(head: &[u8]) -> bool {
    head.len() >= BLOCK && (&head[257..262] == b"ustar" || checksum_ok(head))
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

/// Inflates every member of a gzip stream in turn, checking each one's CRC and
/// length, then reads what follows the last one: nothing, or zero bytes only
/// (`gzip -d` and Python both skip such padding, which some tape and block
/// writers add). Any other byte after a member that does not start another one
/// is an error, and so is a member after the zeros (Python reads it, `gzip -d`
/// stops at the zeros).
struct GzMembers<R: BufRead> {
    decoder: Option<GzDecoder<R>>,
}

impl<R: BufRead> GzMembers<R> {
    fn new(inner: R) -> GzMembers<R> {
        GzMembers {
            decoder: Some(GzDecoder::new(inner)),
        }
    }
}

impl<R: BufRead> Read for GzMembers<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        loop {
            let Some(decoder) = &mut self.decoder else {
                return Ok(0);
            };
            let n = decoder.read(out)?;
            if n > 0 || out.is_empty() {
                return Ok(n);
            }
            // The member ended and passed its check.
            let mut inner = self.decoder.take().expect("a member was read").into_inner();
            let next = inner.fill_buf()?;
            match next.first() {
                None => return Ok(0),
                Some(0x1f) => self.decoder = Some(GzDecoder::new(inner)),
                Some(0) => {
                    skip_zeros(&mut inner)?;
                    return Ok(0);
                }
                Some(_) => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "data follows the last gzip member",
                    ))
                }
            }
        }
    }
}

/// Reads zero bytes to the end of `inner`; a non-zero byte is an error, and so
/// are more than [`MAX_TRAILING_ZEROS`] of them (time stays bounded).
fn skip_zeros<R: BufRead>(inner: &mut R) -> io::Result<()> {
    let mut zeros = 0u64;
    loop {
        let buf = inner.fill_buf()?;
        if buf.is_empty() {
            return Ok(());
        }
        if buf.iter().any(|&b| b != 0) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "data follows the zero bytes after the last gzip member",
            ));
        }
        let n = buf.len();
        inner.consume(n);
        zeros += n as u64;
        if zeros > MAX_TRAILING_ZEROS {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("more than {MAX_TRAILING_ZEROS} zero bytes follow the last gzip member"),
            ));
        }
    }
}
