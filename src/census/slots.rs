//! Keeps downloading apart from counting: many archives may be on their way at
//! once (the network's latency bounds a download, not the CPU), while only a few
//! are counted at once (the CPU bounds a count).
//!
//! A download thread reads its archive ahead, up to [`READ_AHEAD`] bytes or its
//! end, without holding a counting slot; only then does it wait for one of the
//! `jobs` slots and count, the bytes read ahead first, then the rest of the
//! stream. So memory stays bounded by the number of downloads times
//! [`READ_AHEAD`], plus what the counts themselves take; nothing is written to
//! disk. A thread waiting for a slot reads nothing more: its connection waits with it
//! (backpressure). Slots go to the waiting threads in the order they asked.
//! This module knows bytes and slots, not archives.

use std::collections::VecDeque;
use std::io::{self, Read};
use std::sync::{Condvar, Mutex, MutexGuard};

/// The most bytes of one archive read ahead before it has a counting slot: 4 MiB.
/// Most archives of MCP servers are smaller, so they are whole in memory when their
/// count starts, and the count waits on no network.
pub const READ_AHEAD: usize = 4 << 20;

/// Hands out a fixed number of counting slots, first come, first served.
pub struct Slots {
    state: Mutex<State>,
    changed: Condvar,
}

struct State {
    /// Slots not held.
    free: usize,
    /// The next ticket to hand to a thread that asks.
    next: u64,
    /// The ticket whose turn it is.
    turn: u64,
}

/// A counting slot, given back when dropped.
pub struct Slot<'s> {
    slots: &'s Slots,
}

impl Slots {
    /// Returns `n` slots (at least one).
    pub fn new(n: usize) -> Slots {
        Slots {
            state: Mutex::new(State {
                free: n.max(1),
                next: 0,
                turn: 0,
            }),
            changed: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // The state is two counters, consistent after every statement: a thread
        // that panicked while holding the lock left nothing half-done.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits for a slot, after every thread that asked earlier got one.
    pub fn take(&self) -> Slot<'_> {
        let mut state = self.lock();
        let ticket = state.next;
        state.next += 1;
        while !(state.turn == ticket && state.free > 0) {
            state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
        }
        state.turn += 1;
        state.free -= 1;
        drop(state);
        // The next ticket may find a free slot too.
        self.changed.notify_all();
        Slot { slots: self }
    }

    /// Returns how many slots are held now.
    #[cfg(test)]
    fn held(&self, of: usize) -> usize {
        of - self.lock().free
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.slots.lock().free += 1;
        self.slots.changed.notify_all();
    }
}

/// The size of one buffer read ahead: the bytes ahead are held in buffers of this
/// size, so that they take what they hold and no growth slack.
const CHUNK: usize = 64 << 10;

/// Reads `reader` ahead into memory, up to `limit` bytes or its end, and returns a
/// reader of the same bytes: those read ahead, then the rest of `reader`. An error
/// reading ahead is returned as it is (the caller's reader may remember it).
pub fn read_ahead<R: Read>(mut reader: R, limit: usize) -> io::Result<Ahead<R>> {
    let mut chunks = VecDeque::new();
    let mut total = 0;
    while total < limit {
        let mut chunk = Vec::with_capacity(CHUNK.min(limit - total));
        let want = chunk.capacity() as u64;
        let n = (&mut reader).take(want).read_to_end(&mut chunk)?;
        total += n;
        if n > 0 {
            chunks.push_back(chunk);
        }
        if (n as u64) < want {
            break; // the end of the input
        }
    }
    Ok(Ahead {
        chunks,
        pos: 0,
        rest: reader,
    })
}

/// Reads the bytes read ahead, then the rest of the stream.
pub struct Ahead<R> {
    chunks: VecDeque<Vec<u8>>,
    /// Bytes of the first chunk already read.
    pos: usize,
    rest: R,
}

impl<R: Read> Read for Ahead<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let Some(chunk) = self.chunks.front() else {
            return self.rest.read(out);
        };
        let n = out.len().min(chunk.len() - self.pos);
        out[..n].copy_from_slice(&chunk[self.pos..self.pos + n]);
        self.pos += n;
        if self.pos == chunk.len() {
            self.chunks.pop_front();
            self.pos = 0;
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[test]
    fn no_more_slots_are_held_than_there_are() {
        let slots = Slots::new(3);
        let most = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..12 {
                scope.spawn(|| {
                    for _ in 0..20 {
                        let _slot = slots.take();
                        most.fetch_max(slots.held(3), Ordering::SeqCst);
                        std::thread::sleep(Duration::from_micros(200));
                    }
                });
            }
        });
        assert_eq!(most.load(Ordering::SeqCst), 3);
        assert_eq!(slots.held(3), 0);
    }

    #[test]
    fn slots_go_in_the_order_asked() {
        let slots = Slots::new(1);
        let order = Mutex::new(Vec::new());
        let held = slots.take();
        std::thread::scope(|scope| {
            for i in 0..4 {
                let (slots, order) = (&slots, &order);
                scope.spawn(move || {
                    let _slot = slots.take();
                    order.lock().unwrap().push(i);
                });
                // Each thread has its ticket before the next one asks.
                while slots.lock().next < i + 2 {
                    std::thread::yield_now();
                }
            }
            drop(held);
        });
        assert_eq!(*order.lock().unwrap(), [0, 1, 2, 3]);
    }

    #[test]
    fn reading_ahead_keeps_every_byte_in_order() {
        let bytes: Vec<u8> = (0..=255u8).cycle().take(150_000).collect();
        for limit in [0, 1, 999, CHUNK, CHUNK + 1, 10_000, 200_000] {
            let mut source = &bytes[..];
            let mut back = Vec::new();
            read_ahead(&mut source, limit)
                .unwrap()
                .read_to_end(&mut back)
                .unwrap();
            assert_eq!(back, bytes, "limit {limit}");
        }
        // The limit is what is read before the count starts.
        let mut source = &bytes[..];
        drop(read_ahead(&mut source, 999).unwrap());
        assert_eq!(source.len(), 150_000 - 999);
    }
}
