//! Times the matcher alone, as an archive reader feeds it: every file counted on its
//! own, in 256 KiB chunks copied into one buffer that `feed_mut` may lower-case in
//! place. `count_speed [--rounds N] PATH...` reads every file under the paths into
//! memory, then times two matchers over the same bytes, in turn, 4 MiB at a time:
//!
//! - `literal`: the four hint names and `annotations`, all insensitive;
//! - `sdk`: the same five plus every other spelling of the `sdk` profile in
//!   `docs/method.md` (4 insensitive, 20 exact), 29 patterns in all.
//!
//! Prints each one's MiB/s and the ratio of their times (`sdk / literal`), and
//! checks that both agree on the five shared patterns. Used to check that
//! counting is far cheaper than inflating (see docs/performance.md) and that the
//! profile costs little on top of the literals. Realistic files: the archives that
//! `python3 benches/gen_corpus.py --size small --out DIR` writes, unpacked with
//! `tar xzf`, or any checkout of source code.

use std::path::{Path, PathBuf};
use std::time::Instant;

use mcp_hint_census::count::{Matcher, Pattern};

/// The bytes timed at once, by one matcher then the other.
const BATCH: usize = 4 << 20;

const LITERALS: [&str; 5] = [
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
    "annotations",
];

/// The `sdk` profile's spellings other than the four literal ones.
const SNAKE: [&str; 4] = [
    "read_only_hint",
    "destructive_hint",
    "idempotent_hint",
    "open_world_hint",
];
const CSHARP: [&str; 4] = ["ReadOnly", "Destructive", "Idempotent", "OpenWorld"];
const BUILDER: [&str; 4] = [
    ".read_only(",
    ".destructive(",
    ".idempotent(",
    ".open_world(",
];

fn sdk_patterns() -> Vec<Pattern> {
    let mut patterns: Vec<Pattern> = LITERALS.iter().map(Pattern::insensitive).collect();
    patterns.extend(SNAKE.iter().map(Pattern::insensitive));
    for name in CSHARP {
        for value in ["true", "false"] {
            patterns.push(Pattern::exact(format!("{name} = {value}")));
            patterns.push(Pattern::exact(format!("{name}={value}")));
        }
    }
    patterns.extend(BUILDER.iter().map(Pattern::exact));
    patterns
}

fn collect(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .expect("reading a folder")
            .map(|e| e.expect("reading a folder entry").path())
            .collect();
        entries.sort();
        for entry in entries {
            collect(&entry, out);
        }
    } else if path.is_file() {
        out.push(path.to_path_buf());
    } else if !path.exists() {
        panic!("'{}' does not exist", path.display());
    }
}

/// Counts every file of `batch` on its own and returns the seconds taken; adds the
/// counts to `totals`.
fn time(matcher: &Matcher, batch: &[&[u8]], buf: &mut [u8], totals: &mut [u64]) -> f64 {
    let start = Instant::now();
    let mut counter = matcher.file_counter();
    for data in batch {
        counter.reset();
        for chunk in data.chunks(buf.len()) {
            let buf = &mut buf[..chunk.len()];
            buf.copy_from_slice(chunk);
            counter.feed_mut(buf);
        }
        for (total, n) in totals.iter_mut().zip(counter.counts()) {
            *total += n;
        }
    }
    start.elapsed().as_secs_f64()
}

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    let mut rounds = 10;
    if args.peek().map(String::as_str) == Some("--rounds") {
        args.next();
        rounds = args
            .next()
            .and_then(|r| r.parse().ok())
            .expect("--rounds takes a number");
    }
    let mut paths = Vec::new();
    for arg in args {
        collect(Path::new(&arg), &mut paths);
    }
    assert!(!paths.is_empty(), "usage: count_speed [--rounds N] PATH...");
    let files: Vec<Vec<u8>> = paths
        .iter()
        .map(|p| std::fs::read(p).expect("reading a file"))
        .collect();
    let bytes: usize = files.iter().map(Vec::len).sum();
    let mib = bytes as f64 / 1048576.0;
    println!("{} files, {:.1} MiB", files.len(), mib);

    // The machine may be shared: both matchers are timed batch by batch, in turn,
    // and each batch's best time is kept, so that a busy moment slows both alike or
    // neither. A file larger than a batch is cut into batch-sized files.
    let mut batches: Vec<Vec<&[u8]>> = vec![Vec::new()];
    let mut filled = 0;
    for data in &files {
        for piece in data.chunks(BATCH).filter(|p| !p.is_empty()) {
            if filled + piece.len() > BATCH && filled > 0 {
                batches.push(Vec::new());
                filled = 0;
            }
            batches.last_mut().expect("one batch").push(piece);
            filled += piece.len();
        }
    }
    let literal = Matcher::new(&LITERALS).expect("valid terms");
    let sdk = Matcher::with_patterns(&sdk_patterns()).expect("valid patterns");
    let mut buf = vec![0u8; 256 * 1024];
    let mut best = vec![[f64::MAX; 2]; batches.len()];
    for round in 0..rounds {
        let mut counts = [vec![0u64; literal.len()], vec![0u64; sdk.len()]];
        for (batch, best) in batches.iter().zip(&mut best) {
            for turn in 0..2 {
                let which = (turn + round) % 2;
                let matcher = [&literal, &sdk][which];
                let secs = time(matcher, batch, &mut buf, &mut counts[which]);
                best[which] = best[which].min(secs);
            }
        }
        assert_eq!(
            counts[0][..],
            counts[1][..5],
            "the shared patterns disagree"
        );
        if round == 0 {
            println!("literal counts {:?}", counts[0]);
            println!("sdk counts {:?}", counts[1]);
        }
    }
    let literal_secs: f64 = best.iter().map(|b| b[0]).sum();
    let sdk_secs: f64 = best.iter().map(|b| b[1]).sum();
    println!(
        "best of {rounds} per batch: literal {:.0} MiB/s, sdk {:.0} MiB/s, ratio {:.3}",
        mib / literal_secs,
        mib / sdk_secs,
        sdk_secs / literal_secs
    );
}
