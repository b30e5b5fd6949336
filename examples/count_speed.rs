//! Times the matcher alone over a file's bytes, fed in 256 KiB chunks as an archive
//! reader feeds it: `count_speed FILE [ROUNDS]`. Prints MiB/s. Used to check that
//! counting is far cheaper than inflating (see docs/performance.md).

use std::time::Instant;

use mcp_hint_census::count::Matcher;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: count_speed FILE [ROUNDS]");
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(3);
    let data = std::fs::read(&path).expect("reading the file");
    let terms = [
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
        "annotations",
    ];
    let matcher = Matcher::new(&terms).expect("valid terms");
    let mut buf = vec![0u8; 256 * 1024];
    for _ in 0..rounds {
        let start = Instant::now();
        let mut counter = matcher.file_counter();
        for chunk in data.chunks(buf.len()) {
            let buf = &mut buf[..chunk.len()];
            buf.copy_from_slice(chunk);
            counter.feed_mut(buf);
        }
        let counts = counter.finish();
        let secs = start.elapsed().as_secs_f64();
        println!(
            "{:.0} MiB/s {:?}",
            data.len() as f64 / 1048576.0 / secs,
            counts
        );
    }
}
