//! The byte sources the tar reader reads from: one that reads through a buffer of
//! its own, and one that reads on a thread of its own, a few buffers ahead.
//!
//! Both lend their buffer mutably ([`Source`]), so that the counter lower-cases a
//! file's bytes where they lie. They know nothing of tar or of compression.

use std::io::{self, BufRead, Read};
use std::sync::mpsc;
use std::thread;

use anyhow::anyhow;

use crate::count::READ_BUF;

/// A buffered byte source that lends its buffer mutably, so that a file's bytes
/// are lower-cased by the counter where they lie, without a copy.
pub trait Source {
    /// Returns the bytes buffered, refilling the buffer when it is spent; empty at
    /// the end of the input.
    fn fill(&mut self) -> io::Result<&mut [u8]>;
    /// Marks `n` bytes of what [`Source::fill`] returned as read.
    fn consume(&mut self, n: usize);
}

/// Reads a source through one buffer of its own.
pub struct Buffered<R> {
    inner: R,
    buf: Vec<u8>,
    pos: usize,
    len: usize,
}

impl<R: Read> Buffered<R> {
    /// Returns a source that reads `inner` through a buffer of `READ_BUF` bytes.
    pub fn new(inner: R) -> Buffered<R> {
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
pub struct ReadAhead {
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

/// How many filled buffers may wait for the consumer.
const DEPTH: usize = 4;

impl ReadAhead {
    /// Starts reading `source` on a thread of `scope` and returns the consumer's end.
    pub fn spawn<'scope, R: Read + Send + 'scope>(
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
