//! Parses tar header blocks and pax extended and global headers, as GNU tar 1.34
//! and Python's `tarfile` both read them (`docs/method.md`, "Reading the tar
//! exactly as GNU tar and Python's tarfile read it").
//!
//! It works on blocks and records already read; reading them from the stream and
//! deciding what an entry is belong to the entry loop (`entries`).

use anyhow::{anyhow, bail, Result};

use crate::infra::sanitize::{excerpt, sanitize};

/// Size of a tar block, in bytes.
pub const BLOCK: usize = 512;

/// The largest pax extended header (`x`, `g`) or GNU long name or long link entry
/// (`L`, `K`) read, in bytes: 1 MiB. A larger one makes the archive an error.
pub const MAX_META_BYTES: u64 = 1 << 20;

/// How many zero bytes may follow the tar's two end-of-archive blocks: 1 MiB.
/// Anything past that, or any non-zero byte there, makes the archive an error.
pub const MAX_TRAILING_ZEROS: u64 = 1 << 20;

/// Returns the number in a tar header field, as both GNU tar and Python's `tarfile`
/// read it; `None` for a field that either would read differently or reject.
///
/// Accepted: all NUL bytes (0); base-256 (first byte `0x80` or `0xff`); or optional
/// spaces, at least one octal digit, then only spaces and NUL bytes. GNU tar skips
/// one leading NUL and Python stops at it, Python strips tabs and accepts `_` and
/// signs that GNU tar does not: all of that is refused.
pub fn number(field: &[u8]) -> Option<i128> {
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
pub fn checksum_ok(block: &[u8]) -> bool {
    let Some(stored) = number(&block[148..156]) else {
        return false;
    };
    let rest = block[..148].iter().chain(&block[156..BLOCK]);
    let unsigned: i128 = rest.clone().map(|&b| i128::from(b)).sum::<i128>() + 8 * 32;
    let signed: i128 = rest.map(|&b| i128::from(b as i8)).sum::<i128>() + 8 * 32;
    stored == unsigned || stored == signed
}

/// Returns `bytes` up to its first NUL.
pub fn until_nul(bytes: &[u8]) -> &[u8] {
    match memchr::memchr(0, bytes) {
        Some(nul) => &bytes[..nul],
        None => bytes,
    }
}

/// Holds what one tar header block says.
pub struct Header<'a> {
    block: &'a [u8; BLOCK],
    pub kind: u8,
    pub size: u64,
}

impl<'a> Header<'a> {
    /// Checks `block` and returns its header, or why neither reader would take it.
    pub fn parse(block: &'a [u8; BLOCK]) -> Result<Header<'a>> {
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

    /// Returns the whole header block.
    pub fn block(&self) -> &'a [u8; BLOCK] {
        self.block
    }

    /// Returns the name field, up to its first NUL.
    pub fn name(&self) -> &'a [u8] {
        until_nul(&self.block[..100])
    }

    /// Returns the ustar prefix field, up to its first NUL.
    pub fn prefix(&self) -> &'a [u8] {
        until_nul(&self.block[345..500])
    }

    /// Returns true for POSIX ustar magic, the only one with which GNU tar joins the
    /// prefix to the name (Python joins it whatever the magic).
    pub fn is_ustar(&self) -> bool {
        &self.block[257..263] == b"ustar\0"
    }
}

/// Holds the metadata entries (`x`, `L`, `K`) read for the entry that follows them.
#[derive(Default)]
pub struct Pending {
    pub has_pax: bool,
    pub pax_path: Option<Vec<u8>>,
    pub pax_size: Option<u64>,
    pub long_name: Option<Vec<u8>>,
    pub has_long_link: bool,
    /// True when a pax `path` came after a `GNU.sparse.name` in the same header.
    pub is_path_after_sparse_name: bool,
    /// The `GNU.sparse.*` records of the pax header, when it has any.
    pub sparse: Option<SparseRecords>,
}

impl Pending {
    /// Returns true when no metadata entry waits for its entry.
    pub fn is_empty(&self) -> bool {
        !self.has_pax && self.long_name.is_none() && !self.has_long_link
    }
}

/// Holds the `GNU.sparse.*` records of one pax extended header, as GNU tar writes
/// them in its sparse formats 0.0 (`offset`/`numbytes` pairs), 0.1 (`map`) and 1.0
/// (`major`, `minor`, the map at the start of the data).
#[derive(Default)]
pub struct SparseRecords {
    pub name: Option<Vec<u8>>,
    /// `GNU.sparse.size` (0.0, 0.1): the expanded size.
    pub size: Option<u64>,
    /// `GNU.sparse.realsize` (1.0): the expanded size.
    pub realsize: Option<u64>,
    /// `GNU.sparse.map` (0.1): offset, size, offset, size...
    pub map: Option<Vec<u64>>,
    /// `GNU.sparse.offset` and `GNU.sparse.numbytes` (0.0), in their order.
    pub pairs: Vec<u64>,
    pub major: Option<Vec<u8>>,
    pub minor: Option<Vec<u8>>,
}

/// Which GNU sparse format a file's records are in, and what its map says.
pub enum SparseFormat {
    /// 0.0 or 0.1: the map is in the pax header.
    InHeader { map: Vec<(u64, u64)>, size: u64 },
    /// 1.0: the map opens the file's data.
    InData { size: u64 },
}

impl SparseRecords {
    /// Returns the format the records are in, or an error when they fit none of
    /// the three exactly (GNU tar and Python pick among mixed records each its own
    /// way).
    pub fn format(&self) -> Result<SparseFormat> {
        let v1 = self.major.is_some() || self.minor.is_some() || self.realsize.is_some();
        let v0 = self.size.is_some() || self.map.is_some() || !self.pairs.is_empty();
        if v1 && v0 {
            bail!("its GNU sparse records mix the formats 0.x and 1.0");
        }
        if v1 {
            if self.major.as_deref() != Some(b"1") || self.minor.as_deref() != Some(b"0") {
                bail!("its GNU sparse records name a version other than 1.0");
            }
            let Some(size) = self.realsize else {
                bail!("its GNU sparse 1.0 records have no 'GNU.sparse.realsize'");
            };
            return Ok(SparseFormat::InData { size });
        }
        let Some(size) = self.size else {
            bail!("its GNU sparse records have no 'GNU.sparse.size'");
        };
        let flat = match (&self.map, self.pairs.is_empty()) {
            (Some(map), true) => map.clone(),
            (None, false) => self.pairs.clone(),
            (None, true) => Vec::new(),
            (Some(_), false) => {
                bail!("its GNU sparse records hold both a map (0.1) and offsets (0.0)")
            }
        };
        if flat.len() % 2 != 0 {
            bail!("its GNU sparse map has an offset without a size");
        }
        let map = flat.chunks(2).map(|p| (p[0], p[1])).collect();
        Ok(SparseFormat::InHeader { map, size })
    }
}

/// Returns a decimal number as both readers take it: ASCII digits only.
pub fn decimal(value: &[u8]) -> Option<u64> {
    std::str::from_utf8(value)
        .ok()
        .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|s| s.parse::<u64>().ok())
        .filter(|&n| n <= i64::MAX as u64)
}

/// Where a sparse file's stored runs lie: (offset, length) in the expanded file.
pub type SparseMap = Vec<(u64, u64)>;

/// Returns the old GNU sparse header's map entries (at byte 386, four of them),
/// whether extension blocks follow, and the expanded size.
pub fn old_sparse(block: &[u8; BLOCK]) -> Result<(SparseMap, bool, u64)> {
    let map = sparse_entries(&block[386..482], 4)?;
    let realsize = number(&block[483..495])
        .and_then(|n| u64::try_from(n).ok())
        .filter(|&n| n <= i64::MAX as u64)
        .ok_or_else(|| anyhow!("its sparse real size is not a number both readers read"))?;
    Ok((map, block[482] != 0, realsize))
}

/// Returns the `count` (offset, size) pairs of 24 bytes each in `bytes`; pairs of
/// NUL fields (unused slots) read as (0, 0).
pub fn sparse_entries(bytes: &[u8], count: usize) -> Result<Vec<(u64, u64)>> {
    let field = |f: &[u8]| {
        number(f)
            .and_then(|n| u64::try_from(n).ok())
            .filter(|&n| n <= i64::MAX as u64)
            .ok_or_else(|| anyhow!("its sparse map holds '{}', not a number", sanitize(f)))
    };
    (0..count)
        .map(|i| {
            let at = 24 * i;
            Ok((
                field(&bytes[at..at + 12])?,
                field(&bytes[at + 12..at + 24])?,
            ))
        })
        .collect()
}

/// Holds what the pax global headers say of the commit.
#[derive(Default)]
pub struct Comment {
    /// The commit id of a `comment` that is one.
    pub commit: Option<String>,
    /// Why a `comment` is not a commit id, when one is not.
    pub problem: Option<String>,
}

/// Calls `each` with the key and value of every record of pax extended header
/// `data` (`"<len> <key>=<value>\n"`...), in order.
///
/// A record whose length field is wrong, that has no `=` or does not end in a
/// newline is an error, and nothing after it is read: GNU tar stops there with an
/// error, Python's tarfile reads on in ways of its own. The records may be followed
/// by NUL bytes only (where both readers stop).
pub fn pax_records(data: &[u8], mut each: impl FnMut(&[u8], &[u8]) -> Result<()>) -> Result<()> {
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
pub fn commit_id(value: &[u8]) -> Result<String> {
    if matches!(value.len(), 40 | 64) && value.iter().all(u8::is_ascii_hexdigit) {
        // ASCII hex digits, so this is the text itself.
        return Ok(String::from_utf8_lossy(value).into_owned());
    }
    bail!(
        "the archive's pax comment '{}' is not a full commit id (40 or 64 hex digits)",
        excerpt(&String::from_utf8_lossy(value))
    )
}

/// Reads the records of a pax global header: the commit id from `comment`.
///
/// A comment that is not a commit id is kept as a problem rather than an error:
/// both readers ignore it, so the archive reads; whoever needs the commit decides.
pub fn read_global(data: &[u8], comment: &mut Comment) -> Result<()> {
    pax_records(data, |key, value| {
        match key {
            b"comment" => match commit_id(value) {
                Ok(id) => {
                    if let Some(earlier) = comment.commit.as_deref() {
                        if !earlier.eq_ignore_ascii_case(&id) {
                            bail!("the archive names two commits, '{earlier}' and '{id}'");
                        }
                    }
                    comment.commit = Some(id);
                }
                Err(why) => {
                    comment.problem.get_or_insert_with(|| why.to_string());
                }
            },
            // Python applies these to the data of every later entry but not to where
            // it ends, GNU tar to both.
            b"path" | b"size" | b"linkpath" => bail!(
                "a pax global header sets '{}', which GNU tar and Python apply differently",
                sanitize(key)
            ),
            _ if key.starts_with(b"GNU.sparse.") => {
                bail!("a pax global header holds GNU sparse records, which apply to no one file")
            }
            _ => {}
        }
        Ok(())
    })
}

/// Reads the records of a pax extended header into `pending`: `path` and `size`.
pub fn read_extended(data: &[u8], pending: &mut Pending) -> Result<()> {
    pax_records(data, |key, value| {
        match key {
            b"path" => {
                if value.contains(&0) {
                    bail!("the pax path '{}' holds a NUL byte", sanitize(value));
                }
                pending.pax_path = Some(value.to_vec());
                if pending.sparse.as_ref().is_some_and(|s| s.name.is_some()) {
                    pending.is_path_after_sparse_name = true;
                }
            }
            b"size" => {
                let size = decimal(value)
                    .ok_or_else(|| anyhow!("the pax size '{}' is not a size", sanitize(value)))?;
                pending.pax_size = Some(size);
            }
            _ if key.starts_with(b"GNU.sparse.") => {
                let sparse = pending.sparse.get_or_insert_with(SparseRecords::default);
                let number = || {
                    decimal(value).ok_or_else(|| {
                        anyhow!(
                            "the pax record '{}' holds '{}', not a number",
                            sanitize(key),
                            sanitize(value)
                        )
                    })
                };
                match &key[b"GNU.sparse.".len()..] {
                    b"name" => sparse.name = Some(value.to_vec()),
                    b"size" => sparse.size = Some(number()?),
                    b"realsize" => sparse.realsize = Some(number()?),
                    b"major" => sparse.major = Some(value.to_vec()),
                    b"minor" => sparse.minor = Some(value.to_vec()),
                    // Written by GNU tar beside the map; neither reader needs it.
                    b"numblocks" => {
                        number()?;
                    }
                    b"offset" | b"numbytes" => {
                        // Python pairs every offset with the numbytes in the same
                        // place of its own list; strict alternation makes that the
                        // pair GNU tar reads.
                        let is_offset = key.ends_with(b"offset");
                        if is_offset != (sparse.pairs.len() % 2 == 0) {
                            bail!("its GNU sparse offsets and sizes do not alternate");
                        }
                        sparse.pairs.push(number()?);
                    }
                    b"map" => {
                        let map = value
                            .split(|&b| b == b',')
                            .map(decimal)
                            .collect::<Option<Vec<u64>>>()
                            .ok_or_else(|| {
                                anyhow!(
                                    "the GNU sparse map '{}' is malformed",
                                    excerpt(&sanitize(value))
                                )
                            })?;
                        sparse.map = Some(map);
                    }
                    _ => bail!(
                        "the pax record '{}' is a GNU sparse record neither reader knows alike",
                        sanitize(key)
                    ),
                }
            }
            _ => {}
        }
        Ok(())
    })
}

/// Puts the entry's full name in `name`: the pax `path`, else the GNU long name,
/// else the header's prefix and name.
pub fn entry_name(header: &Header<'_>, pending: &Pending, name: &mut Vec<u8>) -> Result<()> {
    name.clear();
    if let Some(sparse) = pending.sparse.as_ref().and_then(|s| s.name.as_ref()) {
        // GNU tar names a sparse file by `GNU.sparse.name`; Python by whichever of
        // it and `path` its header holds last.
        if pending.is_path_after_sparse_name && pending.pax_path.as_ref() != Some(sparse) {
            bail!("its pax path follows a different GNU sparse name");
        }
        if sparse.contains(&0) {
            bail!(
                "the GNU sparse name '{}' holds a NUL byte",
                sanitize(sparse)
            );
        }
        name.extend_from_slice(sparse);
        return Ok(());
    }
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
}
