//! Passes an archive's bytes through on their way to the archive reader: hashes
//! them, optionally copies them to a file, and reports how many arrived.
//!
//! Used wherever an archive is read, so that the sha256 a table carries is always
//! the hash of exactly the bytes that were counted. It neither parses nor counts.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};

use crate::progress::Progress;

/// Passes bytes through while hashing them, copying them to a file and reporting
/// how many arrived; remembers whether the source itself failed.
pub struct Tee<'a, R> {
    inner: R,
    file: Option<BufWriter<&'a File>>,
    /// `None` when the bytes are not hashed (see [`Tee::unhashed`]).
    hasher: Option<Sha256>,
    bytes: u64,
    progress: &'a dyn Progress,
    /// True when a read from the source failed (the network, not the archive).
    pub is_transport_error: bool,
    /// The first error writing the copy; reported by `finish`.
    write_error: Option<io::Error>,
}

impl<'a, R: Read> Tee<'a, R> {
    /// Returns a tee over `inner` that copies to `file`, if given, and reports to
    /// `progress`.
    pub fn new(inner: R, file: Option<&'a File>, progress: &'a dyn Progress) -> Tee<'a, R> {
        Tee {
            inner,
            file: file.map(|f| BufWriter::with_capacity(256 * 1024, f)),
            hasher: Some(Sha256::new()),
            bytes: 0,
            progress,
            is_transport_error: false,
            write_error: None,
        }
    }

    /// Returns a tee that only reports progress: no copy, no hash. For an archive whose
    /// hash is already known (a cached download), since hashing costs a seventh of
    /// the CPU a census spends.
    pub fn unhashed(inner: R, progress: &'a dyn Progress) -> Tee<'a, R> {
        Tee {
            hasher: None,
            ..Tee::new(inner, None, progress)
        }
    }

    /// Reads whatever is left of the source (bytes after the archive's end), so that
    /// the hash and the copy cover every byte.
    pub fn drain(&mut self) -> io::Result<u64> {
        io::copy(self, &mut io::sink())
    }

    /// Returns the sha256 of every byte read, lower-case hex (empty when unhashed),
    /// once the copy is flushed.
    pub fn finish(mut self) -> Result<String> {
        if let Some(err) = self.write_error.take() {
            return Err(err).context("writing the archive to the cache");
        }
        if let Some(mut file) = self.file.take() {
            file.flush().context("writing the archive to the cache")?;
        }
        Ok(match self.hasher.take() {
            Some(hasher) => hasher
                .finalize()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect(),
            None => String::new(),
        })
    }
}

impl<R: Read> Read for Tee<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = match self.inner.read(buf) {
            Ok(n) => n,
            Err(e) => {
                if e.kind() != io::ErrorKind::Interrupted {
                    self.is_transport_error = true;
                }
                return Err(e);
            }
        };
        if let Some(hasher) = &mut self.hasher {
            hasher.update(&buf[..n]);
        }
        self.bytes += n as u64;
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
    use crate::progress::NoProgress;

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
    fn an_unhashed_tee_passes_bytes_and_hashes_nothing() {
        let mut tee = Tee::unhashed(&b"abc"[..], &NoProgress);
        let mut out = String::new();
        tee.read_to_string(&mut out).unwrap();
        assert_eq!(out, "abc");
        assert_eq!(tee.finish().unwrap(), "");
    }
}
