//! Times the tool finder alone on archives held in memory: no inflating, no
//! counting, so that a change to the finder can be measured without the noise of
//! the rest of a census.
//!
//! Each archive is inflated once, its files the finder wants (by name) are kept in
//! memory, then every archive's files go through one `TreeTools` each (paths below
//! the archive's top folder, the census's default roles: source files), `--repeats` times. It prints the
//! seconds of each pass, their median and the tool rows found, so two builds can be
//! run side by side and their counts compared.
//!
//! Usage: `finder [--repeats N] ARCHIVE.tar.gz...` (`benches/real.py` builds the
//! archives of the real-tree corpus under `target/bench-real/cache`).

use std::fs::File;
use std::io::{BufReader, Read};
use std::process::ExitCode;
use std::time::Instant;

use flate2::bufread::GzDecoder;
use mcp_hint_census::tools::{Roles, TreeTools};

fn main() -> ExitCode {
    let mut repeats = 5usize;
    let mut archives = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--repeats" {
            repeats = args.next().and_then(|n| n.parse().ok()).unwrap_or(5).max(1);
        } else {
            archives.push(arg);
        }
    }
    if archives.is_empty() {
        eprintln!("usage: finder [--repeats N] ARCHIVE.tar.gz...");
        return ExitCode::from(2);
    }
    let mut trees = Vec::new();
    for path in &archives {
        match wanted_files(path) {
            Ok(files) => trees.push(files),
            Err(e) => {
                eprintln!("finder: {path}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let bytes: usize = trees.iter().flatten().map(|(_, b)| b.len()).sum();
    let files: usize = trees.iter().map(Vec::len).sum();
    eprintln!(
        "finder: {} archives, {files} files wanted, {:.1} MiB",
        trees.len(),
        bytes as f64 / (1 << 20) as f64
    );
    let mut times = Vec::new();
    let mut rows = 0;
    for _ in 0..repeats {
        let started = Instant::now();
        rows = 0;
        for tree in &trees {
            let mut tools = TreeTools::with_roles(Roles::default());
            for (path, bytes) in tree {
                tools.add_file(path, bytes);
            }
            rows += tools.finish().tools.len();
        }
        let took = started.elapsed().as_secs_f64();
        eprintln!("finder: pass {:.3} s", took);
        times.push(took);
    }
    times.sort_by(f64::total_cmp);
    println!("median {:.3} s, {rows} tool rows", times[times.len() / 2]);
    ExitCode::SUCCESS
}

/// The files of one archive the finder wants, paths below its top folder.
fn wanted_files(path: &str) -> std::io::Result<Vec<(Vec<u8>, Vec<u8>)>> {
    let gz = GzDecoder::new(BufReader::new(File::open(path)?));
    let mut archive = tar::Archive::new(gz);
    let mut out = Vec::new();
    for entry in archive.entries()? {
        let mut entry = entry?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let full = entry.path_bytes().into_owned();
        let Some(slash) = full.iter().position(|&b| b == b'/') else {
            continue;
        };
        let rel = full[slash + 1..].to_vec();
        if !TreeTools::wants(&rel) {
            continue;
        }
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes)?;
        out.push((rel, bytes));
    }
    Ok(out)
}
