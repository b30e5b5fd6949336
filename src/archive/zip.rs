//! Reads a zip archive (a Python wheel is one) as Python's `zipfile` reads it:
//! the end-of-central-directory record, then each central directory entry in
//! order, its data found through its local header (`docs/method.md`, "Other
//! compressions and zip").
//!
//! A zip cannot be read as a stream (its directory is at the end), so the input is
//! first copied to an unnamed temporary file. Where the local header and the
//! central directory disagree (name, method, flags, and sizes and CRC when the
//! local header carries them), where two entries' data overlap, or where the
//! archive holds bytes before its first entry, the archive is an error: a reader
//! that walks the local headers would see other files than one that trusts the
//! directory. Stored, deflated and bzip2 entries are read; another method, or an
//! encrypted entry, is an error naming it.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};

use anyhow::{anyhow, bail, Context, Result};
use flate2::bufread::DeflateDecoder;
use flate2::Crc;

use super::entries::{strip_dot, FileData, Visitor};
use super::read_ahead::Buffered;
use crate::infra::sanitize::sanitize;

/// The largest central directory read, in bytes: 64 MiB (about 500,000 entries
/// with names of 80 bytes). A larger one makes the archive an error.
pub const MAX_DIRECTORY_BYTES: u64 = 64 << 20;

const EOCD: &[u8; 4] = b"PK\x05\x06";
const ZIP64_LOCATOR: &[u8; 4] = b"PK\x06\x07";
const ZIP64_EOCD: &[u8; 4] = b"PK\x06\x06";
const CENTRAL: &[u8; 4] = b"PK\x01\x02";
const LOCAL: &[u8; 4] = b"PK\x03\x04";

/// Holds one central directory entry.
struct Entry {
    name: Vec<u8>,
    flags: u16,
    method: u16,
    crc: u32,
    compressed: u64,
    size: u64,
    local: u64,
}

/// Reads the zip archive from `reader` and hands its entries to `visitor` in the
/// central directory's order.
pub fn read_zip<R: Read>(mut reader: R, visitor: &mut dyn Visitor) -> Result<()> {
    let mut file = tempfile::tempfile().context("making a temporary file for the zip archive")?;
    io::copy(&mut reader, &mut file).context("reading the zip archive")?;
    let len = file
        .seek(SeekFrom::End(0))
        .context("reading the zip archive")?;
    let (directory_at, directory_len) = find_directory(&mut file, len)?;
    if directory_len > MAX_DIRECTORY_BYTES {
        bail!("its central directory is {directory_len} bytes, more than the {MAX_DIRECTORY_BYTES} allowed");
    }
    let mut directory = vec![0u8; directory_len as usize];
    file.seek(SeekFrom::Start(directory_at))?;
    file.read_exact(&mut directory)
        .context("reading the zip's central directory")?;
    let entries = parse_directory(&directory)?;
    // Entries in the order their data lies, to find overlaps and prepended data.
    let mut spans: Vec<(u64, u64, usize)> = Vec::with_capacity(entries.len());
    let mut file = BufReader::new(file);
    let mut starts = Vec::with_capacity(entries.len());
    for (i, entry) in entries.iter().enumerate() {
        let start = check_local(&mut file, entry, directory_at)
            .with_context(|| format!("reading '{}' of the zip", sanitize(&entry.name)))?;
        spans.push((entry.local, start + entry.compressed, i));
        starts.push(start);
    }
    spans.sort_unstable();
    let mut end = 0u64;
    for &(from, to, i) in &spans {
        if from < end {
            bail!(
                "the data of '{}' overlaps another entry's (a zip bomb or a damaged archive)",
                sanitize(&entries[i].name)
            );
        }
        end = to;
    }
    if let Some(&(first, _, _)) = spans.first() {
        if first != 0 {
            bail!("{first} bytes come before the zip's first entry (a self-extracting archive?)");
        }
    }
    for (entry, start) in entries.iter().zip(starts) {
        read_entry(&mut file, entry, start, visitor)
            .with_context(|| format!("reading '{}'", sanitize(&entry.name)))?;
    }
    Ok(())
}

/// Returns where the central directory starts and how long it is, from the end
/// record (and its zip64 form), found as Python finds it: at the very end, else
/// the last one within the last 64 KiB (a comment may follow it).
fn find_directory(file: &mut File, len: u64) -> Result<(u64, u64)> {
    let tail_len = len.min(22 + 65_535);
    let mut tail = vec![0u8; tail_len as usize];
    file.seek(SeekFrom::Start(len - tail_len))?;
    file.read_exact(&mut tail)?;
    let at = (0..tail.len().saturating_sub(21))
        .rev()
        .find(|&i| &tail[i..i + 4] == EOCD)
        .ok_or_else(|| anyhow!("the zip has no end-of-central-directory record"))?;
    let record = &tail[at..];
    let comment = u16le(record, 20) as usize;
    if 22 + comment != record.len() {
        bail!("bytes follow the zip's end-of-central-directory record and its comment");
    }
    let eocd_at = len - tail_len + at as u64;
    let mut directory_len = u64::from(u32le(record, 12));
    let mut directory_at = u64::from(u32le(record, 16));
    if u16le(record, 4) != 0 || u16le(record, 6) != 0 {
        bail!("the zip spans several disks");
    }
    if eocd_at >= 20 && (directory_at == 0xffff_ffff || directory_len == 0xffff_ffff) {
        let mut locator = [0u8; 20];
        file.seek(SeekFrom::Start(eocd_at - 20))?;
        file.read_exact(&mut locator)?;
        if &locator[..4] == ZIP64_LOCATOR {
            let at64 = u64le(&locator, 8);
            let mut record64 = [0u8; 56];
            file.seek(SeekFrom::Start(at64))
                .and_then(|_| file.read_exact(&mut record64))
                .context("reading the zip64 end record")?;
            if &record64[..4] != ZIP64_EOCD {
                bail!("the zip64 locator points at no zip64 end record");
            }
            directory_len = u64le(&record64, 40);
            directory_at = u64le(&record64, 48);
        }
    }
    let end = directory_at
        .checked_add(directory_len)
        .filter(|&end| end <= eocd_at)
        .ok_or_else(|| anyhow!("the zip's central directory lies outside the file"))?;
    if end != eocd_at && end + 56 + 20 != eocd_at {
        // Python reads such an archive as if the gap were data prepended to it.
        bail!("the zip's central directory does not end where its end record begins");
    }
    Ok((directory_at, directory_len))
}

/// Parses every entry of the central directory `data`.
fn parse_directory(data: &[u8]) -> Result<Vec<Entry>> {
    let mut entries = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        if rest.len() < 46 || &rest[..4] != CENTRAL {
            bail!(
                "the zip's central directory is damaged after {} entries",
                entries.len()
            );
        }
        let name_len = u16le(rest, 28) as usize;
        let extra_len = u16le(rest, 30) as usize;
        let comment_len = u16le(rest, 32) as usize;
        let total = 46 + name_len + extra_len + comment_len;
        if rest.len() < total {
            bail!("the zip's central directory ends inside an entry");
        }
        let mut entry = Entry {
            name: rest[46..46 + name_len].to_vec(),
            flags: u16le(rest, 8),
            method: u16le(rest, 10),
            crc: u32le(rest, 16),
            compressed: u64::from(u32le(rest, 20)),
            size: u64::from(u32le(rest, 24)),
            local: u64::from(u32le(rest, 42)),
        };
        zip64_sizes(&rest[46 + name_len..46 + name_len + extra_len], &mut entry)?;
        entries.push(entry);
        rest = &rest[total..];
    }
    Ok(entries)
}

/// Applies the zip64 extra field (id 1) to the fields that say 0xffffffff, in the
/// order the format gives them.
fn zip64_sizes(mut extra: &[u8], entry: &mut Entry) -> Result<()> {
    while extra.len() >= 4 {
        let (id, len) = (u16le(extra, 0), u16le(extra, 2) as usize);
        let Some(body) = extra.get(4..4 + len) else {
            bail!("the extra field of '{}' is damaged", sanitize(&entry.name));
        };
        if id == 1 {
            let mut fields = body.chunks_exact(8).map(|c| u64le(c, 0));
            for field in [&mut entry.size, &mut entry.compressed, &mut entry.local] {
                if *field == 0xffff_ffff {
                    *field = fields.next().ok_or_else(|| {
                        anyhow!(
                            "the zip64 field of '{}' is too short",
                            sanitize(&entry.name)
                        )
                    })?;
                }
            }
        }
        extra = &extra[4 + len..];
    }
    Ok(())
}

/// Checks the local header of `entry` against the central directory and returns
/// where its data starts.
fn check_local(file: &mut BufReader<File>, entry: &Entry, directory_at: u64) -> Result<u64> {
    let mut header = [0u8; 30];
    file.seek(SeekFrom::Start(entry.local))?;
    file.read_exact(&mut header)
        .context("its local header lies outside the file")?;
    if &header[..4] != LOCAL {
        bail!("its local header is missing");
    }
    let name_len = u16le(&header, 26) as usize;
    let extra_len = u16le(&header, 28) as u64;
    let mut name = vec![0u8; name_len];
    file.read_exact(&mut name)?;
    if name != entry.name {
        bail!(
            "its local header names it '{}' (the central directory and a reader of the local headers disagree)",
            sanitize(&name)
        );
    }
    let flags = u16le(&header, 6);
    let method = u16le(&header, 8);
    if method != entry.method || (flags & 0x0809) != (entry.flags & 0x0809) {
        bail!("its local header and the central directory give different methods or flags");
    }
    // Without a data descriptor (flag 3) the local header carries the sizes and
    // CRC too; zip64 sizes there read 0xffffffff.
    if flags & 0x0008 == 0 {
        let crc = u32le(&header, 14);
        let local = [u32le(&header, 18), u32le(&header, 22)];
        let sizes_agree = local
            .iter()
            .zip([entry.compressed, entry.size])
            .all(|(&l, c)| l == 0xffff_ffff || u64::from(l) == c);
        if crc != entry.crc || !sizes_agree {
            bail!("its local header and the central directory give different sizes or CRCs");
        }
    }
    let start = entry.local + 30 + name_len as u64 + extra_len;
    if start
        .checked_add(entry.compressed)
        .is_none_or(|end| end > directory_at)
    {
        bail!("its data runs into the central directory");
    }
    Ok(start)
}

/// Hands one entry to `visitor` (a directory when its name ends with `/`, as
/// Python's `is_dir`), then checks that its data gave exactly its size and CRC.
fn read_entry(
    file: &mut BufReader<File>,
    entry: &Entry,
    start: u64,
    visitor: &mut dyn Visitor,
) -> Result<()> {
    let path = strip_dot(&entry.name);
    let is_dir = entry.name.ends_with(b"/");
    visitor.entry(path, is_dir);
    if is_dir {
        return Ok(());
    }
    if entry.flags & 0x0001 != 0 {
        bail!("it is encrypted");
    }
    file.seek(SeekFrom::Start(start))?;
    let stored = (&mut *file).take(entry.compressed);
    let decoded: Box<dyn Read + '_> = match entry.method {
        0 => Box::new(stored),
        8 => Box::new(DeflateDecoder::new(stored)),
        12 => Box::new(bzip2::bufread::BzDecoder::new(stored)),
        other => bail!(
            "its compression method {other} ({}) is not read",
            method_name(other)
        ),
    };
    let mut checked = Checked {
        inner: decoded,
        crc: Crc::new(),
    };
    {
        let mut source = Buffered::new(&mut checked);
        let mut data = FileData::new(&mut source, entry.size, None);
        visitor.file(path, &mut data)?;
        data.pieces(|_| {})?;
    }
    let mut one = [0u8; 1];
    if checked.read(&mut one)? != 0 {
        bail!("its data holds more than its size of {} bytes", entry.size);
    }
    if checked.crc.sum() != entry.crc || u64::from(checked.crc.amount()) != entry.size & 0xffff_ffff
    {
        bail!("its CRC-32 is wrong (a damaged archive)");
    }
    Ok(())
}

/// Returns a compression method's name, for the error of one not read.
fn method_name(method: u16) -> &'static str {
    match method {
        9 => "deflate64",
        14 => "lzma",
        93 => "zstd",
        95 => "xz",
        98 => "ppmd",
        99 => "aes-encrypted",
        _ => "unknown",
    }
}

/// Reads through `inner`, keeping the CRC-32 of what it read.
struct Checked<R> {
    inner: R,
    crc: Crc,
}

impl<R: Read> Read for Checked<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(out)?;
        self.crc.update(&out[..n]);
        Ok(n)
    }
}

fn u16le(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32le(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn u64le(b: &[u8], at: usize) -> u64 {
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(bytes)
}
