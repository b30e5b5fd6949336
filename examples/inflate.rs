//! Inflates gzip files and throws the bytes away: the floor a census cannot beat.
//!
//! It reads each file exactly as `archive::count_archive` does (a 256 KiB
//! `BufReader` under flate2's `bufread::GzDecoder`, with the crate's own gzip
//! backend, into a 256 KiB buffer) and does nothing else: no tar parsing, no
//! counting, no hashing. The benchmark in `benches/bench.py` times the tool against
//! it. It prints the number of inflated bytes so the benchmark can check that the
//! whole stream was read.
//!
//! Usage: `inflate [--jobs N] FILE...` (files are inflated one after another unless
//! `--jobs` gives more threads).

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

use flate2::bufread::GzDecoder;

/// The buffer size the tool reads through (`archive::READ_BUF`).
const READ_BUF: usize = 256 * 1024;

fn main() -> ExitCode {
    let mut jobs = 1usize;
    let mut files: Vec<PathBuf> = Vec::new();
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--jobs" {
            jobs = args
                .next()
                .and_then(|n| n.to_str().and_then(|n| n.parse().ok()))
                .filter(|&n| n > 0)
                .unwrap_or(1);
        } else {
            files.push(PathBuf::from(arg));
        }
    }
    if files.is_empty() {
        eprintln!("usage: inflate [--jobs N] FILE...");
        return ExitCode::from(2);
    }
    let next = AtomicUsize::new(0);
    let results: Vec<io::Result<u64>> = thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs.min(files.len()))
            .map(|_| {
                scope.spawn(|| {
                    let mut total = 0u64;
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(path) = files.get(i) else {
                            return Ok(total);
                        };
                        total += inflate(path).map_err(|e| {
                            io::Error::new(e.kind(), format!("'{}': {e}", path.display()))
                        })?;
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("an inflating thread panicked"))
            .collect()
    });
    let mut total = 0u64;
    for result in results {
        match result {
            Ok(n) => total += n,
            Err(e) => {
                eprintln!("inflate: {e}");
                return ExitCode::from(1);
            }
        }
    }
    println!("{total}");
    ExitCode::SUCCESS
}

/// Inflates one gzip file to its end (CRC and length checked) and returns its
/// inflated size in bytes.
fn inflate(path: &PathBuf) -> io::Result<u64> {
    let file = File::open(path)?;
    let mut decoder = GzDecoder::new(BufReader::with_capacity(READ_BUF, file));
    let mut buf = vec![0u8; READ_BUF];
    let mut total = 0u64;
    loop {
        match decoder.read(&mut buf) {
            Ok(0) => return Ok(total),
            Ok(n) => total += n as u64,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}
