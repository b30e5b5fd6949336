//! Parses tar header blocks and pax extended and global headers, as GNU tar 1.34
//! and Python's `tarfile` both read them (`docs/method.md`, "Reading the tar
//! exactly as GNU tar and Python's tarfile read it").
//!
//! It works on blocks and records already read; reading them from the stream and
//! deciding what an entry is belong to the entry loop (`entries`).

use anyhow::{anyhow, bail, Result};

use super::BLOCK;
use crate::sanitize::{excerpt, sanitize};

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
}

impl Pending {
    /// Returns true when no metadata entry waits for its entry.
    pub fn is_empty(&self) -> bool {
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
pub fn read_global(data: &[u8], commit: &mut Option<String>) -> Result<()> {
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
pub fn read_extended(data: &[u8], pending: &mut Pending) -> Result<()> {
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
pub fn entry_name(header: &Header<'_>, pending: &Pending, name: &mut Vec<u8>) -> Result<()> {
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
