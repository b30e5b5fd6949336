//! Passes an archive's bytes through on their way to the archive reader: hashes
//! them, optionally copies them to a file, and reports how many arrived.
//!
//! Used wherever an archive is read, downloaded or cached, so that the sha256 a table
//! carries is always the hash of exactly the bytes that were counted in that run. It
//! also bounds what one archive may cost: a size limit and a deadline, each an error
//! naming the limit when passed. It neither parses nor counts.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};

use crate::fetch::digest::{self, Hasher};
use crate::infra::progress::Progress;

/// Passes bytes through while hashing them, copying them to a file and reporting
/// how many arrived; remembers whether the source itself failed.
pub struct Tee<'a, R> {
    inner: R,
    file: Option<BufWriter<&'a File>>,
    hasher: Sha256,
    bytes: u64,
    progress: &'a dyn Progress,
    /// True when a read from the source failed (the network, not the archive).
    pub is_transport_error: bool,
    /// The first error writing the copy; reported by `finish`.
    write_error: Option<io::Error>,
    limits: Limits,
    started: Instant,
    /// The digest a registry gives for the bytes, with its running hash.
    expected: Option<(digest::Digest, Hasher)>,
}

/// Bounds one archive's bytes and the time reading them may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes the archive may have.
    pub max_bytes: u64,
    /// The longest reading the whole archive may take.
    pub max_time: Option<Duration>,
}

impl Limits {
    /// Returns limits that bound nothing.
    pub const NONE: Limits = Limits {
        max_bytes: u64::MAX,
        max_time: None,
    };
}

impl<'a, R: Read> Tee<'a, R> {
    /// Returns a tee over `inner` that copies to `file`, if given, and reports to
    /// `progress`.
    pub fn new(inner: R, file: Option<&'a File>, progress: &'a dyn Progress) -> Tee<'a, R> {
        Tee {
            inner,
            file: file.map(|f| BufWriter::with_capacity(256 * 1024, f)),
            hasher: Sha256::new(),
            bytes: 0,
            progress,
            is_transport_error: false,
            write_error: None,
            limits: Limits::NONE,
            started: Instant::now(),
            expected: None,
        }
    }

    /// Returns this tee checking its bytes against `digest` too, when given (see
    /// [`Tee::check_digest`]).
    pub fn expecting(mut self, digest: Option<&digest::Digest>) -> Tee<'a, R> {
        self.expected = digest.map(|d| (d.clone(), d.hasher()));
        self
    }

    /// Returns an error naming both digests when the bytes read so far are not the
    /// ones the expected digest describes; call it once every byte is read.
    pub fn check_digest(&self) -> std::result::Result<(), String> {
        match &self.expected {
            Some((digest, hasher)) => digest.check(hasher.clone()),
            None => Ok(()),
        }
    }

    /// Returns this tee bounded by `limits`: a read past `max_bytes` or after
    /// `max_time` fails, and the failure is not the network's (no retry helps).
    pub fn bounded(mut self, limits: Limits) -> Tee<'a, R> {
        self.limits = limits;
        self.started = Instant::now();
        self
    }

    /// Reads whatever is left of the source (bytes after the archive's end), so that
    /// the hash and the copy cover every byte.
    pub fn drain(&mut self) -> io::Result<u64> {
        io::copy(self, &mut io::sink())
    }

    /// Returns the sha256 of every byte read, lower-case hex,
    /// once the copy is flushed.
    pub fn finish(mut self) -> Result<String> {
        if let Some(err) = self.write_error.take() {
            return Err(err).context("writing the archive to the cache");
        }
        if let Some(mut file) = self.file.take() {
            file.flush().context("writing the archive to the cache")?;
        }
        Ok(self
            .hasher
            .finalize_reset()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect())
    }
}

impl<R: Read> Read for Tee<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(max) = self.limits.max_time {
            if self.started.elapsed() > max {
                return Err(io::Error::other(format!(
                    "reading the archive took longer than the limit of {} s (--max-time)",
                    max.as_secs()
                )));
            }
        }
        // One byte more than the limit is asked for, so that an archive of exactly
        // the limit passes and a larger one is caught without reading on.
        let room = self
            .limits
            .max_bytes
            .saturating_sub(self.bytes)
            .saturating_add(1);
        let want = buf.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        let buf = &mut buf[..want];
        let n = match self.inner.read(buf) {
            Ok(n) => n,
            Err(e) => {
                if e.kind() != io::ErrorKind::Interrupted {
                    self.is_transport_error = true;
                }
                return Err(e);
            }
        };
        self.hasher.update(&buf[..n]);
        if let Some((_, hasher)) = &mut self.expected {
            hasher.update(&buf[..n]);
        }
        self.bytes += n as u64;
        if self.bytes > self.limits.max_bytes {
            return Err(io::Error::other(format!(
                "the archive is larger than the limit of {} bytes (--max-archive)",
                self.limits.max_bytes
            )));
        }
        self.progress.bytes(self.bytes);
        if let (Some(file), None) = (&mut self.file, &self.write_error) {
            if let Err(e) = file.write_all(&buf[..n]) {
                self.write_error = Some(e);
            }
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infra::progress::NoProgress;

    #[test]
    fn every_byte_is_hashed_and_copied() {
        let file = tempfile::tempfile().unwrap();
        let mut tee = Tee::new(&b"abc"[..], Some(&file), &NoProgress);
        let mut first = [0u8; 1];
        tee.read_exact(&mut first).unwrap();
        // The reader stopped early; drain reads the rest into the hash and the copy.
        assert_eq!(tee.drain().unwrap(), 2);
        let hash = tee.finish().unwrap();
        // sha256("abc"), FIPS 180-2 appendix B.1.
        assert_eq!(
            hash,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let mut copy = String::new();
        let mut file = file;
        std::io::Seek::rewind(&mut file).unwrap();
        file.read_to_string(&mut copy).unwrap();
        assert_eq!(copy, "abc");
    }

    #[test]
    fn an_expected_digest_checks_every_byte_read() {
        let sha256 = |hex: &str| crate::fetch::digest::Digest::parse(&format!("sha256:{hex}"));
        let abc = sha256("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        let mut tee = Tee::new(&b"abc"[..], None, &NoProgress).expecting(abc.as_ref());
        let mut first = [0u8; 1];
        tee.read_exact(&mut first).unwrap();
        assert!(
            tee.check_digest().is_err(),
            "two bytes are not yet the file"
        );
        tee.drain().unwrap();
        assert_eq!(tee.check_digest(), Ok(()));
        let mut other = Tee::new(&b"abd"[..], None, &NoProgress).expecting(abc.as_ref());
        other.drain().unwrap();
        let why = other.check_digest().unwrap_err();
        assert!(why.contains("not the registry's 'sha256:ba78"), "{why}");
    }

    #[test]
    fn the_size_limit_admits_exactly_its_bytes() {
        let limits = |max_bytes| Limits {
            max_bytes,
            max_time: None,
        };
        let mut out = Vec::new();
        let mut tee = Tee::new(&b"abcd"[..], None, &NoProgress).bounded(limits(4));
        tee.read_to_end(&mut out).unwrap();
        assert_eq!(out, b"abcd");
        let mut tee = Tee::new(&b"abcde"[..], None, &NoProgress).bounded(limits(4));
        let err = tee.read_to_end(&mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("limit of 4 bytes"), "{err}");
        assert!(!tee.is_transport_error);
    }

    #[test]
    fn the_time_limit_stops_a_slow_archive() {
        let limits = Limits {
            max_bytes: u64::MAX,
            max_time: Some(Duration::from_millis(0)),
        };
        let mut tee = Tee::new(&b"abc"[..], None, &NoProgress).bounded(limits);
        std::thread::sleep(Duration::from_millis(5));
        let err = tee.read_to_end(&mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("--max-time"), "{err}");
    }
}
