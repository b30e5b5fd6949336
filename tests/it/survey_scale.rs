//! A census at survey scale on loopback: downloads that run beside the counts
//! (`--downloads` apart from `--jobs`), and a run that keeps no archive
//! (`--no-cache`), is killed, and resumes from its journal (`--resume`).
//!
//! The oracles: the test's HTTP server, which counts the connections open at once
//! and the requests per archive; a naive count of the bytes the test generated; and
//! the tables of an uninterrupted run, compared byte for byte.

use std::collections::{BTreeMap, HashMap};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::common::{
    self, naive, numbered_tree, raw_server, read_csv, show, ts_server, Kind, Run, TestTree,
    ToolSpec,
};

const DATE: &str = "2026-11-30";

/// A loopback archive server: one thread per connection, a delay before each
/// answer, and switches that make the archives from `stall_from` on never answer,
/// or answer 404.
struct Wan {
    port: u16,
    /// The most connections ever open at once.
    most: Arc<AtomicUsize>,
    /// Requests per path.
    seen: Arc<Mutex<HashMap<String, usize>>>,
    stalling: Arc<AtomicBool>,
    refusing: Arc<AtomicBool>,
}

/// Serves `archives` (path → bytes) after `delay` each; while `stalling` is set,
/// the trees numbered `stall_from` and later are accepted and never answered, and
/// while `refusing` is set they are answered 404.
fn wan(archives: HashMap<String, Vec<u8>>, delay: Duration, stall_from: usize) -> Wan {
    let open = AtomicUsize::new(0);
    let most: Arc<AtomicUsize> = Arc::default();
    let seen: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    let stalling = Arc::new(AtomicBool::new(false));
    let refusing = Arc::new(AtomicBool::new(false));
    let (most_, seen_, stalling_, refusing_) = (
        most.clone(),
        seen.clone(),
        stalling.clone(),
        refusing.clone(),
    );
    let port = raw_server(move |stream| {
        let now = open.fetch_add(1, Ordering::SeqCst) + 1;
        most_.fetch_max(now, Ordering::SeqCst);
        let switches = [&*stalling_, &*refusing_];
        answer(stream, &archives, &seen_, switches, delay, stall_from);
        open.fetch_sub(1, Ordering::SeqCst);
    });
    Wan {
        port,
        most,
        seen,
        stalling,
        refusing,
    }
}

/// Answers the requests of one connection (keep-alive), each after `delay`.
fn answer(
    mut stream: TcpStream,
    archives: &HashMap<String, Vec<u8>>,
    seen: &Mutex<HashMap<String, usize>>,
    [stalling, refusing]: [&AtomicBool; 2],
    delay: Duration,
    stall_from: usize,
) {
    let mut buf = Vec::new();
    loop {
        let mut chunk = [0u8; 4096];
        while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
        let end = buf.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
        let head = String::from_utf8_lossy(&buf[..end]).into_owned();
        buf.drain(..end);
        let path = head.split(' ').nth(1).unwrap_or("").to_string();
        *seen.lock().unwrap().entry(path.clone()).or_default() += 1;
        let number: usize = path
            .split('/')
            .nth(2)
            .and_then(|r| r.strip_prefix('r'))
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        if number >= stall_from && stalling.load(Ordering::SeqCst) {
            while stalling.load(Ordering::SeqCst) {
                thread::sleep(Duration::from_millis(20));
            }
            return;
        }
        thread::sleep(delay);
        let is_refused = number >= stall_from && refusing.load(Ordering::SeqCst);
        let written = match archives.get(&path).filter(|_| !is_refused) {
            Some(body) => stream
                .write_all(
                    format!(
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nContent-Type: \
                         application/gzip\r\n\r\n",
                        body.len()
                    )
                    .as_bytes(),
                )
                .and_then(|()| stream.write_all(body)),
            None => stream.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"),
        };
        if written.is_err() {
            return;
        }
    }
}

/// Returns tree `i`'s files: hint literals at a count that depends on `i`, a tool
/// definition, and a file whose name is not UTF-8.
fn files_of(i: usize) -> Vec<(Vec<u8>, Vec<u8>)> {
    let tools = [ToolSpec {
        name: "search",
        hints: ["true", "", "false", "?"],
    }];
    let (server, _) = ts_server(&tools);
    vec![
        (
            b"src/hints.py".to_vec(),
            format!("{}\n", "readOnlyHint=True; ".repeat(i % 5 + 1)).into_bytes(),
        ),
        (b"src/server.ts".to_vec(), server),
        (
            b"docs/caf\xe9.md".to_vec(),
            "destructiveHint ".repeat(i % 3).into_bytes(),
        ),
        (b"README.md".to_vec(), b"annotations".to_vec()),
    ]
}

/// Returns a GitHub-shaped tar.gz of `files` under the folder `top`.
fn archive(top: &str, files: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    let tree = TestTree::pinned(top, None);
    for (path, data) in files {
        tree.file(path, data);
    }
    tree.archive(Kind::TarGz)
}

/// Returns the archives of `n` trees by the path they are served at.
fn archives(n: usize) -> HashMap<String, Vec<u8>> {
    (0..n)
        .map(|i| {
            let commit = format!("{:040x}", i + 1);
            let top = format!("o-r{i:02}-{}", &commit[..7]);
            (format!("/o/r{i:02}/{commit}"), archive(&top, &files_of(i)))
        })
        .collect()
}

/// Writes a corpus of `n` trees served by `port` into `dir`.
fn write_corpus(dir: &Path, port: u16, n: usize) {
    let url = format!("http://127.0.0.1:{port}/{{repo}}/{{commit}}");
    let trees: Vec<_> = (0..n)
        .map(|i| {
            let mut tree = numbered_tree(i);
            tree.push(("name", format!("io.github.o/r{i:02}")));
            tree
        })
        .collect();
    common::write_corpus(dir, &url, &trees);
}

fn census(dir: &Path, out: &str, extra: &[&str]) -> Run {
    let mut run = Run::new(dir);
    let c = run.command();
    c.args(["census", "--corpus", "corpus.toml", "--out", out])
        .args(["--quiet", "--timeout", "20"])
        .args(extra);
    if !extra.contains(&"--date") {
        c.args(["--date", DATE]);
    }
    c.env_remove("GITHUB_TOKEN")
        .env_remove("GITHUB_SERVER_URL")
        // Where the cache would go without --no-cache.
        .env("XDG_CACHE_HOME", dir.join(format!("xdg-{out}")))
        .env("HOME", dir);
    run
}

/// Returns every file of `dir` by name, with its bytes.
fn folder(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

#[test]
fn downloads_run_beside_the_counts_and_are_capped() {
    let work = tempfile::tempdir().unwrap();
    let n = 14;
    let server = wan(archives(n), Duration::from_millis(300), usize::MAX);
    write_corpus(work.path(), server.port, n);
    let started = Instant::now();
    let out = census(
        work.path(),
        "wide",
        &["--no-cache", "-j", "1", "--downloads", "5"],
    )
    .output();
    let wide = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    // Five at once, never more; one count at a time did not hold them back.
    assert_eq!(server.most.load(Ordering::SeqCst), 5);
    // The counts are right: the oracle counts the generated bytes.
    let rows = read_csv(&work.path().join(format!("wide/census-{DATE}.csv")));
    let header = &rows[0];
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    for (i, row) in rows[1..].iter().enumerate() {
        let files = files_of(i);
        let all: Vec<u8> = files.iter().flat_map(|(_, d)| d.clone()).collect();
        assert_eq!(row[col("status")], "ok", "{row:?}");
        for term in ["readOnlyHint", "destructiveHint", "annotations"] {
            assert_eq!(
                row[col(term)],
                naive(&all, term).to_string(),
                "{term} {row:?}"
            );
        }
        assert_eq!(row[col("files_walked")], files.len().to_string());
    }
    // As before the split: --downloads no larger than --jobs is one at a time.
    let first = server.most.swap(0, Ordering::SeqCst);
    assert_eq!(first, 5);
    let started = Instant::now();
    let out = census(
        work.path(),
        "narrow",
        &["--no-cache", "-j", "1", "--downloads", "1"],
    )
    .output();
    let narrow = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(server.most.load(Ordering::SeqCst), 1);
    assert_eq!(
        folder(&work.path().join("wide")),
        folder(&work.path().join("narrow"))
    );
    // Not a timing claim (benches/ measures that): a sanity check that five
    // downloads at once did overlap their 300 ms waits.
    assert!(wide < narrow, "wide {wide:?}, narrow {narrow:?}");
}

/// Returns every file under `dir`, none when it does not exist.
fn walk(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for e in entries.flatten() {
        match e.file_type().unwrap().is_dir() {
            true => found.extend(walk(&e.path())),
            false => found.push(e.path().display().to_string()),
        }
    }
    found
}

/// Returns the lines of the journal in `out`.
fn journal_lines(out: &Path) -> usize {
    std::fs::read(out.join("census.journal"))
        .map(|b| b.iter().filter(|&&c| c == b'\n').count())
        .unwrap_or(0)
}

#[test]
fn a_killed_run_resumes_from_its_journal_and_writes_the_same_tables() {
    let work = tempfile::tempdir().unwrap();
    let n = 12;
    let server = wan(archives(n), Duration::from_millis(20), 6);
    write_corpus(work.path(), server.port, n);

    // The uninterrupted run, with the default cache.
    let out = census(work.path(), "whole", &["-j", "1"]).output();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let cached = walk(&work.path().join("xdg-whole"));
    assert_eq!(
        cached.iter().filter(|p| p.ends_with(".tar.gz")).count(),
        n,
        "{cached:?}"
    );
    let whole = folder(&work.path().join("whole"));
    // What the journal must carry through: a tool definition per tree, and file
    // rows, some under a name that is not UTF-8.
    let tools = &whole[&format!("tools-{DATE}.csv")];
    assert_eq!(tools.iter().filter(|&&b| b == b'\n').count(), 1 + n);
    let files = &whole[&format!("files-{DATE}.csv")];
    assert!(
        files.windows(9).any(|w| w == b"docs/caf\xe9"),
        "no non-UTF-8 path"
    );

    // A run killed once it has counted trees 0-5: from tree 6 on the server answers
    // nothing, so the two download threads wait there until the kill.
    server.stalling.store(true, Ordering::SeqCst);
    server.seen.lock().unwrap().clear();
    let resumable = ["--no-cache", "--resume", "-j", "1", "--downloads", "2"];
    let mut child = census(work.path(), "part", &resumable)
        .command()
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out_dir = work.path().join("part");
    let started = Instant::now();
    while journal_lines(&out_dir) < 1 + 6 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the journal has {} lines",
            journal_lines(&out_dir)
        );
        thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(journal_lines(&out_dir), 7, "a head and six trees");
    assert!(!out_dir.join(format!("census-{DATE}.csv")).exists());
    let journal = out_dir.join("census.journal");

    // A rerun of another date is another census: refused, the journal untouched.
    let kept = std::fs::read(&journal).unwrap();
    let other = [&resumable[..], &["--date", "2026-12-01"]].concat();
    let out = census(work.path(), "part", &other).output();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("is the journal of another census")
            && stderr.contains("the date 2026-11-30, this run is dated 2026-12-01"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&journal).unwrap(), kept);

    // The kill tore the last line in half: it is dropped and its tree counted again.
    let last = kept[..kept.len() - 1]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap()
        + 1;
    let cut = last + (kept.len() - last) / 2;
    std::fs::write(&journal, &kept[..cut]).unwrap();

    server.stalling.store(false, Ordering::SeqCst);
    server.seen.lock().unwrap().clear();
    let out = census(work.path(), "part", &resumable).output();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("5 already counted"), "{stderr}");
    assert!(stderr.contains("ends in a line cut short"), "{stderr}");
    // Only the trees the journal did not hold were downloaded, each once.
    let seen = server.seen.lock().unwrap().clone();
    let mut asked: Vec<&String> = seen.keys().collect();
    asked.sort();
    let want: Vec<String> = (5..n)
        .map(|i| format!("/o/r{i:02}/{:040x}", i + 1))
        .collect();
    assert_eq!(asked, want.iter().collect::<Vec<_>>(), "{seen:?}");
    assert!(seen.values().all(|&k| k == 1), "{seen:?}");
    // The journal is gone, and the tables are the uninterrupted run's, byte for byte.
    assert!(!journal.exists());
    let part = folder(&out_dir);
    assert_eq!(
        part.keys().collect::<Vec<_>>(),
        whole.keys().collect::<Vec<_>>()
    );
    for (name, bytes) in &whole {
        assert!(
            part[name] == *bytes,
            "{name} differs:\n--- whole\n{}\n--- resumed\n{}",
            String::from_utf8_lossy(bytes),
            String::from_utf8_lossy(&part[name])
        );
    }
    // Nothing was cached: --no-cache kept no archive where the cache would be.
    assert_eq!(walk(&work.path().join("xdg-part")), Vec::<String>::new());
}

#[test]
fn a_tree_that_failed_is_tried_again_and_the_journal_stays_until_then() {
    let work = tempfile::tempdir().unwrap();
    let n = 4;
    let server = wan(archives(n), Duration::ZERO, 3);
    write_corpus(work.path(), server.port, n);
    let resumable = ["--no-cache", "--resume", "-j", "1"];
    server.refusing.store(true, Ordering::SeqCst);
    let out = census(work.path(), "out", &resumable).output();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("keeps the trees counted; the same command tries only the 1 that failed"),
        "{stderr}"
    );
    let journal = work.path().join("out/census.journal");
    assert_eq!(
        journal_lines(&work.path().join("out")),
        1 + 3,
        "the failed tree is not kept"
    );
    let rows = read_csv(&work.path().join(format!("out/census-{DATE}.csv")));
    assert_eq!(rows[4][rows[0].len() - 2], "error", "{rows:?}");

    server.refusing.store(false, Ordering::SeqCst);
    server.seen.lock().unwrap().clear();
    let out = census(work.path(), "out", &resumable).output();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let seen = server.seen.lock().unwrap().clone();
    assert_eq!(
        seen.keys().collect::<Vec<_>>(),
        [&format!("/o/r03/{:040x}", 4)],
        "only the failed tree is downloaded again"
    );
    assert!(!journal.exists());
    let rows = read_csv(&work.path().join(format!("out/census-{DATE}.csv")));
    assert!(rows[1..].iter().all(|r| r[r.len() - 2] == "ok"), "{rows:?}");
}
