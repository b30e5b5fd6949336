//! End-to-end tests of `census` and `compare`: archives built in code, served from
//! 127.0.0.1, counted by the built binary, checked against a naive counter and
//! against Python's view of the same bytes.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use crate::common::{self, *};

/// How the test server answers one path.
#[derive(Clone)]
enum Route {
    Archive(Vec<u8>),
    Status(u16),
    /// Answers 500 this many times, then the archive.
    FailThen(usize, Vec<u8>),
    Html,
}

/// Serves `routes` on 127.0.0.1; a path with no route is a 404.
fn serve(routes: HashMap<String, Route>) -> Loopback {
    Loopback::start(move |request| match routes.get(&request.url) {
        Some(Route::Archive(bytes)) => reply(200, bytes.clone()),
        Some(Route::Status(code)) => reply(*code, "nope"),
        Some(Route::FailThen(fails, bytes)) if request.nth > *fails => reply(200, bytes.clone()),
        Some(Route::FailThen(..)) => reply(500, "busy"),
        Some(Route::Html) => reply(
            200,
            "<!DOCTYPE html><html><body>Sign in to continue</body></html>",
        ),
        None => reply(404, "no route"),
    })
}

/// Starts a raw server that promises `bytes` but sends half of them and hangs up.
fn cut_short_server(bytes: Vec<u8>) -> u16 {
    raw_server(move |mut stream| {
        read_request(&mut stream);
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            bytes.len()
        );
        let _ = stream.write_all(head.as_bytes());
        let _ = stream.write_all(&bytes[..bytes.len() / 2]);
    })
}

const COMMIT_A: &str = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678";
const COMMIT_B: &str = "b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0";

/// Writes a corpus of `trees` (repository, commit, archive URL of its own) served
/// by `port`.
fn write_corpus(dir: &Path, port: u16, trees: &[(&str, &str, Option<String>)]) -> String {
    let url = format!("http://127.0.0.1:{port}/{{owner}}/{{name}}/{{commit}}");
    let trees: Vec<Vec<(&str, String)>> = trees
        .iter()
        .map(|(repo, commit, url)| {
            let mut tree = vec![("repo", repo.to_string()), ("commit", commit.to_string())];
            tree.extend(url.iter().map(|url| ("archive_url", url.clone())));
            tree
        })
        .collect();
    common::write_corpus(dir, &url, &trees)
}

fn census(dir: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["census", "--corpus", "corpus.toml"];
    if !extra.contains(&"--out") {
        args.extend(["--out", "out"]);
    }
    args.extend([
        "--cache",
        "cache",
        "--date",
        "2026-09-07",
        "--timeout",
        "5",
        "--quiet",
    ]);
    args.extend_from_slice(extra);
    run(dir, &args)
}

/// Returns the census row of `repo` as a map from column to cell.
fn row(dir: &Path, repo: &str) -> HashMap<String, String> {
    let rows = read_csv(&dir.join("out/census-2026-09-07.csv"));
    let header = &rows[0];
    let found = rows[1..]
        .iter()
        .find(|r| r[0] == repo)
        .unwrap_or_else(|| panic!("no row for {repo} in {rows:?}"));
    header.iter().cloned().zip(found.iter().cloned()).collect()
}

fn assert_counts(row: &HashMap<String, String>, want: &Expected) {
    let got: Vec<u64> = TERMS.iter().map(|t| row[*t].parse().unwrap()).collect();
    assert_eq!(got, want.counts, "counts of {row:?}");
    assert_eq!(
        row["files_walked"],
        want.files.to_string(),
        "files_walked of {row:?}"
    );
    assert_eq!(
        row["bytes_read"],
        want.bytes.to_string(),
        "bytes_read of {row:?}"
    );
}

/// Counts the corpus of `dir` again in `n` shards, merges them, and checks that the
/// merged tables equal the single run's in `out/` byte for byte; returns the shards'
/// census tables. `merged_code` is merge's exit status: 1 when some tree failed,
/// and then a shard may exit 1 too; 0 when none did, and every shard must exit 0.
fn shard_and_merge(dir: &Path, n: usize, merged_code: i32) -> Vec<String> {
    let mut tables = Vec::new();
    for k in 1..=n {
        let out = format!("shard{k}");
        let shard = format!("{k}/{n}");
        let run = census(dir, &["--shard", &shard, "--out", &out]);
        let code = run.status.code();
        let is_expected = code == Some(0) || (merged_code == 1 && code == Some(1));
        assert!(is_expected, "{}", show(&run));
        tables.push(format!("{out}/census-2026-09-07.csv"));
    }
    let mut args = vec!["merge", "--corpus", "corpus.toml", "--out", "merged"];
    args.extend(tables.iter().map(String::as_str));
    let merged = run(dir, &args);
    assert_eq!(merged.status.code(), Some(merged_code), "{}", show(&merged));
    for name in [
        "census-2026-09-07.csv",
        "files-2026-09-07.csv",
        "tools-2026-09-07.csv",
        "census-2026-09-07.md",
        "census-2026-09-07.svg",
    ] {
        let a = std::fs::read(dir.join("out").join(name)).unwrap();
        let b = std::fs::read(dir.join("merged").join(name)).unwrap();
        assert!(
            a == b,
            "{name} differs after the merge:\n{}\n---\n{}",
            String::from_utf8_lossy(&a),
            String::from_utf8_lossy(&b)
        );
    }
    tables
}

#[test]
fn counts_agree_with_the_naive_oracle_and_with_python() {
    let dir = tempfile::tempdir().unwrap();
    let items = rich_items();
    let archive = targz("octo-tools-a1b2c3d", Some(COMMIT_A), &items);
    let routes = HashMap::from([(
        "/octo/tools/a1b2c3d".to_string(),
        Route::Archive(archive.clone()),
    )]);
    let server = serve(routes);
    write_corpus(
        dir.path(),
        server.port(),
        &[("octo/tools", "a1b2c3d", None)],
    );
    let out = census(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));

    let want = expected(&items, &TERMS);
    let got = row(dir.path(), "octo/tools");
    assert_counts(&got, &want);
    assert_eq!(got["commit"], COMMIT_A);
    assert_eq!(got["commit_source"], "archive");
    assert_eq!(got["status"], "ok");
    assert_eq!(got["probed_on"], "2026-09-07");

    // Per-file rows: exactly the files with a nonzero count, sorted by path.
    let files = read_csv(&dir.path().join("out/files-2026-09-07.csv"));
    assert_eq!(
        files[0],
        ["repo", "pinned", "subfolder", "commit", "path", "bytes"]
            .iter()
            .map(|s| s.to_string())
            .chain(TERMS.iter().map(|s| s.to_string()))
            .collect::<Vec<_>>()
    );
    let got_hits: Vec<(String, u64, Vec<u64>)> = files[1..]
        .iter()
        .map(|r| {
            (
                r[4].clone(),
                r[5].parse().unwrap(),
                r[6..].iter().map(|n| n.parse().unwrap()).collect(),
            )
        })
        .collect();
    assert_eq!(got_hits, want.hits);

    // Python's tarfile and bytes.lower().count over the very same archive bytes.
    let archive_path = dir.path().join("archive.tar.gz");
    std::fs::write(&archive_path, &archive).unwrap();
    let script = r#"
import sys, tarfile
terms = sys.argv[2:]
files = size = 0
counts = [0] * len(terms)
with tarfile.open(sys.argv[1], "r:gz") as tar:
    for member in tar:
        if member.isreg():
            data = tar.extractfile(member).read().lower()
            files += 1
            size += len(data)
            for i, term in enumerate(terms):
                counts[i] += data.count(term.lower().encode())
print(files, size, *counts)
"#;
    let python = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&archive_path)
        .args(TERMS)
        .output()
        .expect("python3 is needed as an oracle");
    assert!(python.status.success(), "{}", show(&python));
    let numbers: Vec<u64> = String::from_utf8(python.stdout)
        .unwrap()
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect();
    assert_eq!(numbers[0].to_string(), got["files_walked"], "python files");
    assert_eq!(numbers[1].to_string(), got["bytes_read"], "python bytes");
    let ours: Vec<u64> = TERMS.iter().map(|t| got[*t].parse().unwrap()).collect();
    assert_eq!(numbers[2..], ours[..], "python counts");

    // The Markdown report carries the table, the sha256 and the limits.
    let md = std::fs::read_to_string(dir.path().join("out/census-2026-09-07.md")).unwrap();
    assert!(md.contains(&got["archive_sha256"]), "{md}");
    assert!(
        md.contains("Literals, not tools") && md.contains("Absent is not false"),
        "{md}"
    );
    assert!(md.contains("| octo/tools | a1b2c3d |"), "{md}");
}

#[test]
fn failures_are_error_rows_and_the_other_trees_still_count() {
    let dir = tempfile::tempdir().unwrap();
    let items = vec![Item::File(
        "a.ts".into(),
        b"readOnlyHint annotations".to_vec(),
    )];
    let good = targz("o-good-abcd", Some(COMMIT_A), &items);
    let mut corrupt = good.clone();
    let middle = corrupt.len() / 2;
    for b in &mut corrupt[middle - 4..middle + 4] {
        *b ^= 0x5a;
    }
    // A whole gzip stream of a tar that stops without its end-of-archive block.
    let mut tar = tar_bytes("o-notar-abcd", Some(COMMIT_A), &items);
    tar.truncate(tar.len() - 1024);
    let unended = gzip(&tar);
    let no_pax = targz("o-nopax-cafe", None, &items);
    let cut_port = cut_short_server(good.clone());
    let routes = HashMap::from([
        ("/o/good/a1b2".to_string(), Route::Archive(good.clone())),
        ("/o/missing/a1b2".to_string(), Route::Status(404)),
        (
            "/o/flaky/a1b2".to_string(),
            Route::FailThen(1, good.clone()),
        ),
        ("/o/down/a1b2".to_string(), Route::Status(503)),
        ("/o/html/a1b2".to_string(), Route::Html),
        ("/o/corrupt/a1b2".to_string(), Route::Archive(corrupt)),
        ("/o/notar/a1b2".to_string(), Route::Archive(unended)),
        ("/o/other/b0b0".to_string(), Route::Archive(good.clone())),
        ("/o/nopax/cafe".to_string(), Route::Archive(no_pax)),
    ]);
    let server = serve(routes);
    let cut_url = format!("http://127.0.0.1:{cut_port}/cut");
    write_corpus(
        dir.path(),
        server.port(),
        &[
            ("o/good", "a1b2", None),
            ("o/missing", "a1b2", None),
            ("o/flaky", "a1b2", None),
            ("o/down", "a1b2", None),
            ("o/html", "a1b2", None),
            ("o/corrupt", "a1b2", None),
            ("o/notar", "a1b2", None),
            ("o/cut", "a1b2", Some(cut_url)),
            ("o/other", "b0b0", None),
            ("o/nopax", "cafe", None),
        ],
    );
    let out = census(dir.path(), &["--retries", "1"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let want = expected(&items, &TERMS);

    for ok in ["o/good", "o/flaky", "o/nopax"] {
        let r = row(dir.path(), ok);
        assert_eq!(r["status"], "ok", "{ok}: {r:?}");
        assert_counts(&r, &want);
    }
    assert_eq!(server.hits("/o/flaky/a1b2"), 2, "one 500, then success");
    let nopax = row(dir.path(), "o/nopax");
    assert_eq!(
        (nopax["commit"].as_str(), nopax["commit_source"].as_str()),
        ("cafe", "pinned")
    );

    let cases = [
        ("o/missing", "HTTP 404"),
        ("o/down", "HTTP 503"),
        ("o/html", "<!DOCTYPE html>"),
        ("o/corrupt", "o/corrupt@a1b2"),
        ("o/notar", "end-of-archive"),
        ("o/cut", "broke off"),
        ("o/other", "does not start with the pinned 'b0b0'"),
    ];
    for (repo, says) in cases {
        let r = row(dir.path(), repo);
        assert_eq!(r["status"], "error", "{repo}: {r:?}");
        assert!(
            r["error"].contains(says),
            "{repo}: error {:?} should say {says:?}",
            r["error"]
        );
        assert!(!r["error"].contains('\n'));
        for column in TERMS
            .iter()
            .chain(&["files_walked", "bytes_read", "commit"])
        {
            assert_eq!(
                r[*column], "",
                "{repo}: {column} must be empty on an error row"
            );
        }
    }
    assert_eq!(
        server.hits("/o/missing/a1b2"),
        1,
        "a 404 is final, not retried"
    );
    assert_eq!(
        server.hits("/o/down/a1b2"),
        2,
        "a 503 is retried once with --retries 1"
    );
    // Nothing that failed entered the cache.
    assert!(!dir
        .path()
        .join("cache/o/corrupt")
        .join("a1b2.tar.gz")
        .exists());
    assert!(!dir
        .path()
        .join("cache/o/other")
        .join("b0b0.tar.gz")
        .exists());
    assert!(dir.path().join("cache/o/good/a1b2.tar.gz.sha256").exists());
}

#[test]
fn cached_runs_are_byte_identical_and_offline_names_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let items = rich_items();
    let a = targz("o-a-a1b2c3d", Some(COMMIT_A), &items);
    let b = targz("o-b-b0b0", Some(COMMIT_B), &items[..4]);
    let server = serve(HashMap::from([
        ("/o/a/a1b2c3d".to_string(), Route::Archive(a)),
        ("/o/b/b0b0".to_string(), Route::Archive(b)),
    ]));
    write_corpus(
        dir.path(),
        server.port(),
        &[("o/a", "a1b2c3d", None), ("o/b", "b0b0", None)],
    );
    let first = census(dir.path(), &[]);
    assert_eq!(first.status.code(), Some(0), "{}", show(&first));
    let names = [
        "census-2026-09-07.csv",
        "files-2026-09-07.csv",
        "census-2026-09-07.md",
    ];
    let read = |name: &str| std::fs::read(dir.path().join("out").join(name)).unwrap();
    let before: Vec<Vec<u8>> = names.iter().map(|n| read(n)).collect();
    drop(server);

    // The server is gone: a second run must come from the cache alone.
    std::fs::remove_dir_all(dir.path().join("out")).unwrap();
    let second = census(dir.path(), &[]);
    assert_eq!(second.status.code(), Some(0), "{}", show(&second));
    let after: Vec<Vec<u8>> = names.iter().map(|n| read(n)).collect();
    assert_eq!(before, after, "cached run differs from downloaded run");
    assert_eq!(first.stdout, second.stdout);

    // --offline with a tree the cache lacks: that tree fails, by name; the other counts.
    std::fs::remove_dir_all(dir.path().join("cache/o/b")).unwrap();
    let offline = census(dir.path(), &["--offline"]);
    assert_eq!(offline.status.code(), Some(1), "{}", show(&offline));
    let b_row = row(dir.path(), "o/b");
    assert!(
        b_row["error"].contains("not in the cache") && b_row["error"].contains("o/b@b0b0"),
        "{b_row:?}"
    );
    assert_eq!(row(dir.path(), "o/a")["status"], "ok");

    // A note beside the absent archive says why it is absent: its first line, escaped.
    std::fs::create_dir_all(dir.path().join("cache/o/b")).unwrap();
    std::fs::write(
        dir.path().join("cache/o/b/b0b0.tar.gz.why"),
        "its mirror lacks 1 of the commit's 4 files, the first 'demo\x1b[2J.mp4'\nmore\n",
    )
    .unwrap();
    let noted = census(dir.path(), &["--offline"]);
    assert_eq!(noted.status.code(), Some(1), "{}", show(&noted));
    assert_eq!(
        row(dir.path(), "o/b")["error"],
        "fetching 'o/b@b0b0': not in the cache (as 'o/b/b0b0.tar.gz' in the cache folder: \
         its mirror lacks 1 of the commit's 4 files, the first 'demo\\u{1b}[2J.mp4') and \
         --offline was given"
    );
}

#[test]
fn a_damaged_cache_entry_is_not_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let items = vec![Item::File("a".into(), b"openWorldHint".to_vec())];
    let server = serve(HashMap::from([(
        "/o/a/a1b2".to_string(),
        Route::Archive(targz("o-a", Some(COMMIT_A), &items)),
    )]));
    write_corpus(dir.path(), server.port(), &[("o/a", "a1b2", None)]);
    assert_eq!(census(dir.path(), &[]).status.code(), Some(0));
    let cached = dir.path().join("cache/o/a/a1b2.tar.gz");
    let mut bytes = std::fs::read(&cached).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1; // the gzip length field
    std::fs::write(&cached, bytes).unwrap();
    let offline = census(dir.path(), &["--offline"]);
    assert_eq!(offline.status.code(), Some(1), "{}", show(&offline));
    // The only tree failed, so no table was written: stderr says why.
    assert!(
        String::from_utf8_lossy(&offline.stderr).contains("damaged"),
        "{}",
        show(&offline)
    );
    assert!(
        String::from_utf8_lossy(&offline.stderr).contains("no table was written"),
        "{}",
        show(&offline)
    );
    // Online, the damaged copy is replaced by a fresh download.
    let online = census(dir.path(), &[]);
    assert_eq!(online.status.code(), Some(0), "{}", show(&online));
    assert_eq!(server.hits("/o/a/a1b2"), 2);
}

#[test]
fn corpus_errors_exit_2_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("corpus.toml"),
        "[[tree]]\nrepo = \"o/a\"\ncommit = \"abcd\"\n\n[[tree]]\nrepo = \"o/b\"\ncommit = \"not-hex\"\n",
    )
    .unwrap();
    let out = census(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("corpus.toml:7:") && stderr.contains("'commit'"),
        "{stderr}"
    );
    assert!(!dir.path().join("out").exists());
}

#[test]
fn compare_agrees_on_a_match_and_flags_a_difference() {
    let dir = tempfile::tempdir().unwrap();
    let items = vec![Item::File(
        "a".into(),
        b"readOnlyHint readOnlyHint annotations".to_vec(),
    )];
    let server = serve(HashMap::from([(
        "/o/a/a1b2c3d".to_string(),
        Route::Archive(targz("o-a", Some(COMMIT_A), &items)),
    )]));
    write_corpus(dir.path(), server.port(), &[("o/a", "a1b2c3d", None)]);
    assert_eq!(census(dir.path(), &[]).status.code(), Some(0));
    let header = "repo,pinned,commit,commit_source,files_walked,bytes_read,readOnlyHint,destructiveHint,idempotentHint,openWorldHint,annotations,archive_sha256,probed_on,status,error\n";
    std::fs::write(
        dir.path().join("agree.csv"),
        format!("{header}o/a,a1b2c3d,a1b2c3d,pinned,1,,2,0,0,0,,,2026-09-07,ok,\n"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("differ.csv"),
        format!("{header}o/a,fff1,fff1,pinned,1,,3,0,0,0,1,,2026-09-07,ok,\n"),
    )
    .unwrap();
    let ours = "out/census-2026-09-07.csv";
    let agree = run(dir.path(), &["compare", "agree.csv", ours]);
    assert_eq!(agree.status.code(), Some(0), "{}", show(&agree));
    assert!(String::from_utf8_lossy(&agree.stdout).contains("0 differ"));
    let differ = run(dir.path(), &["compare", "differ.csv", ours]);
    assert_eq!(differ.status.code(), Some(1), "{}", show(&differ));
    let text = String::from_utf8_lossy(&differ.stdout);
    let commits = text.find("commits differ").expect("commits are reported");
    let cell = text
        .find("readOnlyHint: 3 differs from 2")
        .expect("the cell is reported");
    assert!(commits < cell, "commits come first:\n{text}");
}

#[test]
fn published_figures_compare_against_themselves() {
    let dir = tempfile::tempdir().unwrap();
    let published = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/published-2026-09-07.csv");
    let out = run(
        dir.path(),
        &[
            "compare",
            published.to_str().unwrap(),
            published.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    // 8 trees x 5 given cells (files and the four hints), plus 4 control counts.
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("44 cells agree"),
        "{}",
        show(&out)
    );
}

#[test]
fn census_help_documents_every_flag() {
    let out = run(Path::new("."), &["census", "--help"]);
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--corpus",
        "--out",
        "--cache",
        "--offline",
        "--jobs",
        "--downloads",
        "--no-cache",
        "--resume",
        "--date",
        "--quiet",
        "--retries",
        "--timeout",
        "--shard",
    ] {
        assert!(help.contains(flag), "{flag} missing from:\n{help}");
    }
}

#[test]
fn shards_merged_equal_a_single_run_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let items = rich_items();
    let mut routes = HashMap::new();
    let mut trees = Vec::new();
    for (i, name) in ["t1", "t2", "t3", "t4", "t5"].iter().enumerate() {
        let archive = targz(&format!("o-{name}"), Some(COMMIT_A), &items[i..i + 6]);
        routes.insert(format!("/o/{name}/a1b2"), Route::Archive(archive));
        trees.push((format!("o/{name}"), "a1b2", None));
    }
    // One tree fails: its error row must survive the merge too.
    routes.insert("/o/gone/a1b2".to_string(), Route::Status(404));
    trees.insert(2, ("o/gone".to_string(), "a1b2", None));
    let server = serve(routes);
    let trees: Vec<(&str, &str, Option<String>)> = trees
        .iter()
        .map(|(r, c, u)| (r.as_str(), *c, u.clone()))
        .collect();
    write_corpus(dir.path(), server.port(), &trees);

    let whole = census(dir.path(), &[]);
    assert_eq!(whole.status.code(), Some(1), "{}", show(&whole));
    let tables = shard_and_merge(dir.path(), 3, 1);

    // A shard left out, or given twice, is refused and nothing is written.
    let partial = run(
        dir.path(),
        &[
            "merge",
            "--corpus",
            "corpus.toml",
            "--out",
            "partial",
            &tables[0],
            &tables[1],
        ],
    );
    // A missing shard is the input being wrong: exit 2, nothing written.
    assert_eq!(partial.status.code(), Some(2), "{}", show(&partial));
    assert!(
        String::from_utf8_lossy(&partial.stderr).contains("in no shard"),
        "{}",
        show(&partial)
    );
    assert!(!dir.path().join("partial").exists());
    let twice = run(
        dir.path(),
        &[
            "merge",
            "--corpus",
            "corpus.toml",
            "--out",
            "twice",
            &tables[0],
            &tables[0],
            &tables[1],
            &tables[2],
        ],
    );
    assert!(
        String::from_utf8_lossy(&twice.stderr).contains("one shard only"),
        "{}",
        show(&twice)
    );
}

/// A corpus may hold one repository at two pins (a time series): each pin is its
/// own row in the census, in the shards and their merge, and in compare.
#[test]
fn one_repository_at_two_pins_is_two_trees_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let old_items = vec![
        Item::File("server.ts".into(), b"readOnlyHint: true".to_vec()),
        Item::File("README".into(), b"annotations".to_vec()),
    ];
    let new_items = vec![
        Item::File(
            "server.ts".into(),
            b"readOnlyHint: true, destructiveHint: false, openWorldHint: false".to_vec(),
        ),
        Item::File("tools.ts".into(), b"idempotentHint idempotentHint".to_vec()),
    ];
    let other_items = vec![Item::File("x".into(), b"openWorldHint".to_vec())];
    let server = serve(HashMap::from([
        (
            "/o/ts/a1b2".to_string(),
            Route::Archive(targz("o-ts-a1b2", Some(COMMIT_A), &old_items)),
        ),
        (
            "/o/ts/b0b0".to_string(),
            Route::Archive(targz("o-ts-b0b0", Some(COMMIT_B), &new_items)),
        ),
        (
            "/o/other/a1b2".to_string(),
            Route::Archive(targz("o-other", Some(COMMIT_A), &other_items)),
        ),
    ]));
    // Shard 1/2 takes trees 1 and 3, shard 2/2 tree 2: the two pins are split.
    write_corpus(
        dir.path(),
        server.port(),
        &[
            ("o/ts", "a1b2", None),
            ("o/ts", "b0b0", None),
            ("o/other", "a1b2", None),
        ],
    );
    let whole = census(dir.path(), &[]);
    assert_eq!(whole.status.code(), Some(0), "{}", show(&whole));
    let rows = read_csv(&dir.path().join("out/census-2026-09-07.csv"));
    let header = &rows[0];
    let cell =
        |row: &[String], name: &str| row[header.iter().position(|h| h == name).unwrap()].clone();
    for (row, items, commit) in [
        (&rows[1], &old_items, COMMIT_A),
        (&rows[2], &new_items, COMMIT_B),
    ] {
        assert_eq!(cell(row, "repo"), "o/ts");
        assert_eq!(cell(row, "commit"), commit);
        let want = expected(items, &TERMS);
        let got: Vec<u64> = TERMS
            .iter()
            .map(|t| cell(row, t).parse().unwrap())
            .collect();
        assert_eq!(got, want.counts, "{row:?}");
    }
    assert_eq!(
        (cell(&rows[1], "pinned"), cell(&rows[2], "pinned")),
        ("a1b2".into(), "b0b0".into())
    );
    // The files table keeps each pin's hits under its own commit.
    let files = read_csv(&dir.path().join("out/files-2026-09-07.csv"));
    let ts: Vec<(String, String)> = files[1..]
        .iter()
        .filter(|r| r[0] == "o/ts")
        .map(|r| (r[3].clone(), r[4].clone()))
        .collect();
    assert_eq!(
        ts,
        [
            (COMMIT_A.to_string(), "README".to_string()),
            (COMMIT_A.to_string(), "server.ts".to_string()),
            (COMMIT_B.to_string(), "server.ts".to_string()),
            (COMMIT_B.to_string(), "tools.ts".to_string()),
        ]
    );

    shard_and_merge(dir.path(), 2, 0);

    // compare pairs the rows pin by pin: a change in the newer pin's row is
    // reported under that pin, and the older pin agrees.
    let ours = "out/census-2026-09-07.csv";
    let same = run(dir.path(), &["compare", ours, ours]);
    assert_eq!(same.status.code(), Some(0), "{}", show(&same));
    let text = std::fs::read_to_string(dir.path().join(ours)).unwrap();
    let edited: Vec<String> = text
        .lines()
        .map(|line| match line.starts_with("o/ts,b0b0,") {
            // readOnlyHint is the 9th column.
            true => {
                let mut cells: Vec<&str> = line.split(',').collect();
                cells[8] = "9";
                cells.join(",")
            }
            false => line.to_string(),
        })
        .collect();
    std::fs::write(dir.path().join("edited.csv"), edited.join("\n") + "\n").unwrap();
    let differ = run(dir.path(), &["compare", ours, "edited.csv"]);
    assert_eq!(differ.status.code(), Some(1), "{}", show(&differ));
    let out = String::from_utf8_lossy(&differ.stdout);
    let at_b0b0 = out.find("o/ts@b0b0").expect("the second pin is named");
    let diff_at = out
        .find("readOnlyHint: 1 differs from 9")
        .expect("the cell differs");
    assert!(diff_at > at_b0b0, "{out}");
    assert!(out.contains("1 differ,"), "{out}");
    assert!(!out.contains("only in"), "{out}");
}

/// A reader that went away (`census ... | head`) is no failure: exit 0, no noise.
#[test]
fn a_closed_stdout_ends_census_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let items = vec![Item::File("a".into(), b"readOnlyHint".to_vec())];
    let server = serve(HashMap::from([(
        "/o/a/a1b2".to_string(),
        Route::Archive(targz("o-a", Some(COMMIT_A), &items)),
    )]));
    write_corpus(dir.path(), server.port(), &[("o/a", "a1b2", None)]);
    let args = [
        "census",
        "--corpus",
        "corpus.toml",
        "--out",
        "out",
        "--cache",
        "cache",
        "--date",
        "2026-09-07",
        "--quiet",
    ];
    let out = run_into_closed_pipe(dir.path(), &args, &[]);
    let (code, stderr) = (out.status.code(), stderr(&out));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        !stderr.contains("Broken pipe") && !stderr.contains("panicked"),
        "{stderr}"
    );
}

/// In a log (stderr not a terminal) a survey reports its progress as plain lines,
/// ending with the whole run's line, and names the corpus and the tables written.
#[test]
fn a_log_gets_plain_progress_lines() {
    let dir = tempfile::tempdir().unwrap();
    let items = vec![Item::File("a".into(), b"readOnlyHint".to_vec())];
    let server = serve(HashMap::from([
        (
            "/o/a/a1b2".to_string(),
            Route::Archive(targz("o-a", Some(COMMIT_A), &items)),
        ),
        ("/o/gone/a1b2".to_string(), Route::Status(404)),
    ]));
    write_corpus(
        dir.path(),
        server.port(),
        &[("o/a", "a1b2", None), ("o/gone", "a1b2", None)],
    );
    let out = run(
        dir.path(),
        &[
            "census",
            "--corpus",
            "corpus.toml",
            "--out",
            "out",
            "--cache",
            "cache",
            "--date",
            "2026-09-07",
            "--progress-every",
            "0",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("counting 2 trees of corpus.toml"),
        "{stderr}"
    );
    let last = stderr
        .lines()
        .rfind(|l| l.contains("progress: "))
        .unwrap_or_else(|| panic!("no progress line:\n{stderr}"));
    assert!(last.contains("progress: 2/2 trees, 1 failed, "), "{last}");
    assert!(last.contains("done"), "{last}");
    assert!(
        stderr.contains("wrote out/census-2026-09-07.csv"),
        "{stderr}"
    );
}

/// The sdk spelling profile of docs/method.md, written out again here as the oracle
/// reads it: per hint, its insensitive and exact spellings.
fn sdk_oracle(data: &[u8]) -> Vec<u64> {
    [
        ("readOnlyHint", "read_only_hint", "ReadOnly", ".read_only("),
        (
            "destructiveHint",
            "destructive_hint",
            "Destructive",
            ".destructive(",
        ),
        (
            "idempotentHint",
            "idempotent_hint",
            "Idempotent",
            ".idempotent(",
        ),
        (
            "openWorldHint",
            "open_world_hint",
            "OpenWorld",
            ".open_world(",
        ),
    ]
    .iter()
    .map(|(camel, snake, pascal, builder)| {
        let insensitive = naive(data, camel) + naive(data, snake);
        let exact: u64 = ["true", "false"]
            .iter()
            .flat_map(|v| [format!("{pascal} = {v}"), format!("{pascal}={v}")])
            .chain([builder.to_string()])
            .map(|s| naive_exact(data, s.as_bytes()))
            .sum();
        insensitive + exact
    })
    .collect()
}

/// `[census] profiles = ["sdk"]` adds the four `_sdk` columns to every table; they
/// match the oracle, and merge and compare carry them.
#[test]
fn the_sdk_profile_adds_columns_that_merge_and_compare_carry() {
    let dir = tempfile::tempdir().unwrap();
    let rust: &[u8] = b"#[tool(annotations(read_only_hint = true, destructive_hint = false))]\n\
        let a = ToolAnnotations::new().read_only(true).open_world(false);\n";
    let csharp: &[u8] = b"[McpServerTool(ReadOnly = true, Idempotent=true), Description(\"x\")]\n\
        [McpServerTool(Destructive = false, OpenWorld = FALSE)] // not the exact spelling\n\
        var b = new ToolAnnotations { ReadOnlyHint = true };\n";
    let ts: &[u8] =
        b"annotations: { readOnlyHint: true, openWorldHint: false }, readonly x: string;\n";
    let items = vec![
        Item::File("src/server.rs".into(), rust.to_vec()),
        Item::File("Tools.cs".into(), csharp.to_vec()),
        Item::File("index.ts".into(), ts.to_vec()),
    ];
    let server = serve(HashMap::from([
        (
            "/o/a/a1b2".to_string(),
            Route::Archive(targz("o-a", Some(COMMIT_A), &items)),
        ),
        (
            "/o/b/b0b0".to_string(),
            Route::Archive(targz("o-b", Some(COMMIT_B), &items[1..2])),
        ),
    ]));
    write_corpus(
        dir.path(),
        server.port(),
        &[("o/a", "a1b2", None), ("o/b", "b0b0", None)],
    );
    let corpus = std::fs::read_to_string(dir.path().join("corpus.toml")).unwrap();
    std::fs::write(
        dir.path().join("corpus.toml"),
        corpus.replacen("[census]\n", "[census]\nprofiles = [\"sdk\"]\n", 1),
    )
    .unwrap();
    let out = census(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let rows = read_csv(&dir.path().join("out/census-2026-09-07.csv"));
    let header = &rows[0];
    let sdk = [
        "readOnlyHint_sdk",
        "destructiveHint_sdk",
        "idempotentHint_sdk",
        "openWorldHint_sdk",
    ];
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    assert_eq!(at("readOnlyHint_sdk"), at("openWorldHint") + 1);
    assert_eq!(at("annotations"), at("openWorldHint_sdk") + 1);
    for (row, files) in [(&rows[1], &items[..]), (&rows[2], &items[1..2])] {
        let mut want = vec![0u64; 4];
        for item in files {
            let (_, data) = item.counted().unwrap();
            for (w, n) in want.iter_mut().zip(sdk_oracle(data)) {
                *w += n;
            }
        }
        let got: Vec<u64> = sdk.iter().map(|c| row[at(c)].parse().unwrap()).collect();
        assert_eq!(got, want, "{row:?}");
    }
    // Known by hand for the C# file alone: ReadOnly = true, Idempotent=true,
    // Destructive = false and the ReadOnlyHint initializer (counted once, as the
    // literal); `OpenWorld = FALSE` is no exact spelling. The literal column sees
    // only the initializer.
    let b = &rows[2];
    assert_eq!(
        sdk.iter().map(|c| b[at(c)].as_str()).collect::<Vec<_>>(),
        ["2", "1", "1", "0"]
    );
    assert_eq!(b[at("readOnlyHint")], "1");
    let md = std::fs::read_to_string(dir.path().join("out/census-2026-09-07.md")).unwrap();
    assert!(
        md.contains("| readOnlyHint_sdk |") && md.contains("Positional constructors"),
        "{md}"
    );
    let files = read_csv(&dir.path().join("out/files-2026-09-07.csv"));
    assert_eq!(files[0].len(), 6 + 9);

    // Shards and their merge carry the columns byte for byte; compare reads them.
    shard_and_merge(dir.path(), 2, 0);
    let ours = "out/census-2026-09-07.csv";
    let same = run(dir.path(), &["compare", ours, ours]);
    assert_eq!(same.status.code(), Some(0), "{}", show(&same));
    assert!(
        String::from_utf8_lossy(&same.stdout).contains("readOnlyHint_sdk: "),
        "{}",
        show(&same)
    );
}

/// The sha256 stamped on a row is of the bytes counted in that run: a cached
/// archive replaced by another valid archive of the same commit is hashed anew.
#[test]
fn a_cached_archive_is_stamped_with_its_own_hash() {
    use sha2::{Digest, Sha256};
    let dir = tempfile::tempdir().unwrap();
    let first = targz(
        "o-a",
        Some(COMMIT_A),
        &[Item::File("a".into(), b"readOnlyHint".to_vec())],
    );
    let server = serve(HashMap::from([(
        "/o/a/a1b2".to_string(),
        Route::Archive(first.clone()),
    )]));
    write_corpus(dir.path(), server.port(), &[("o/a", "a1b2", None)]);
    assert_eq!(census(dir.path(), &[]).status.code(), Some(0));
    let hex = |bytes: &[u8]| -> String {
        Sha256::digest(bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    assert_eq!(row(dir.path(), "o/a")["archive_sha256"], hex(&first));
    let second = targz(
        "o-a",
        Some(COMMIT_A),
        &[Item::File(
            "a".into(),
            b"readOnlyHint openWorldHint".to_vec(),
        )],
    );
    std::fs::write(dir.path().join("cache/o/a/a1b2.tar.gz"), &second).unwrap();
    let offline = census(dir.path(), &["--offline"]);
    assert_eq!(offline.status.code(), Some(0), "{}", show(&offline));
    let row = row(dir.path(), "o/a");
    assert_eq!(row["archive_sha256"], hex(&second));
    assert_eq!(row["openWorldHint"], "1");
}

/// A download is bounded in size and in time, whatever pace the server keeps.
#[test]
fn downloads_are_bounded_in_size_and_time() {
    let dir = tempfile::tempdir().unwrap();
    let archive = targz(
        "o-a",
        Some(COMMIT_A),
        &[Item::File("a".into(), vec![b'x'; 4000])],
    );
    // One byte every 50 ms: never a stall, but a 2 s limit ends it.
    let body = archive.clone();
    let slow_port = raw_server(move |mut stream| {
        read_request(&mut stream);
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        let _ = stream.write_all(head.as_bytes());
        for byte in &body {
            if stream.write_all(&[*byte]).is_err() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    });
    let server = serve(HashMap::from([(
        "/o/big/a1b2".to_string(),
        Route::Archive(archive.clone()),
    )]));
    write_corpus(
        dir.path(),
        server.port(),
        &[
            (
                "o/slow",
                "a1b2",
                Some(format!("http://127.0.0.1:{slow_port}/x")),
            ),
            ("o/big", "a1b2", None),
        ],
    );
    let started = std::time::Instant::now();
    let out = census(
        dir.path(),
        &["--max-time", "2", "--max-archive", "200", "--retries", "0"],
    );
    assert!(
        started.elapsed().as_secs() < 20,
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--max-time"), "{}", show(&out));
    assert!(
        stderr.contains("limit of 200 bytes (--max-archive)"),
        "{}",
        show(&out)
    );
    assert!(!dir.path().join("cache/o/big/a1b2.tar.gz").exists());
}

/// Trees of one repository and pin that differ in subfolder are one download and
/// one read: each row counts its subfolder's files alone (nested subfolders both
/// count a file), and shards and their merge keep them apart by (repo, pin,
/// subfolder), beside the same repository at a second pin.
#[test]
fn subfolders_of_one_archive_are_counted_in_one_pass_and_merge_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let items = vec![
        Item::File(
            "servers/fs/index.ts".into(),
            b"readOnlyHint: true, openWorldHint".to_vec(),
        ),
        Item::File(
            "servers/fs/deep/tools.ts".into(),
            b"destructiveHint destructiveHint".to_vec(),
        ),
        Item::File(
            "servers/git/main.py".into(),
            b"idempotentHint annotations".to_vec(),
        ),
        Item::File("servers/fsx/not-fs.ts".into(), b"readOnlyHint".to_vec()),
        Item::File("README.md".into(), b"readOnlyHint annotations".to_vec()),
    ];
    let later = vec![Item::File(
        "servers/fs/index.ts".into(),
        b"openWorldHint".to_vec(),
    )];
    let server = serve(HashMap::from([
        (
            "/o/mono/a1b2".to_string(),
            Route::Archive(targz("o-mono-a1b2", Some(COMMIT_A), &items)),
        ),
        (
            "/o/mono/b0b0".to_string(),
            Route::Archive(targz("o-mono-b0b0", Some(COMMIT_B), &later)),
        ),
    ]));
    let port = server.port();
    let subfolders = [
        "servers/fs",
        "servers/git",
        "servers/fs/deep",
        "",
        "Servers/FS",
    ];
    let mut text = format!(
        "[census]\narchive_url = \"http://127.0.0.1:{port}/{{owner}}/{{name}}/{{commit}}\"\n"
    );
    for sub in subfolders {
        text.push_str("\n[[tree]]\nrepo = \"o/mono\"\ncommit = \"a1b2\"\n");
        if !sub.is_empty() {
            text.push_str(&format!(
                "subfolder = \"{sub}\"\nname = \"io.github.o/{}\"\n",
                sub.replace('/', "-")
            ));
        }
    }
    text.push_str("\n[[tree]]\nrepo = \"o/mono\"\ncommit = \"b0b0\"\nsubfolder = \"servers/fs\"\n");
    std::fs::write(dir.path().join("corpus.toml"), text).unwrap();

    let out = census(dir.path(), &[]);
    // A subfolder that matches no file is an error row, so the census fails.
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert_eq!(server.hits("/o/mono/a1b2"), 1, "five trees, one download");
    let rows = read_csv(&dir.path().join("out/census-2026-09-07.csv"));
    let header = &rows[0];
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    for (row, sub) in rows[1..5].iter().zip(subfolders) {
        assert_eq!(row[at("subfolder")], sub);
        let prefix = format!("{sub}/");
        let inside: Vec<Item> = items
            .iter()
            .filter_map(Item::counted)
            .filter(|(path, _)| sub.is_empty() || path.starts_with(&prefix))
            .map(|(path, data)| Item::File(path.to_string(), data.to_vec()))
            .collect();
        let want = expected(&inside, &TERMS);
        let got: Vec<u64> = TERMS.iter().map(|t| row[at(t)].parse().unwrap()).collect();
        assert_eq!(got, want.counts, "{sub}: {row:?}");
        assert_eq!(row[at("files_walked")], want.files.to_string(), "{sub}");
        assert_eq!(row[at("commit")], COMMIT_A);
    }
    assert_eq!(rows[1][at("server")], "io.github.o/servers-fs");
    assert_eq!(rows[5][at("status")], "error", "{:?}", rows[5]);
    assert_eq!(
        rows[5][at("error")],
        "subfolder 'Servers/FS' matches no file of the archive; 'servers/fs' differs only in case"
    );
    assert_eq!(
        rows[5][at("files_walked")],
        "",
        "no count is written for it"
    );
    assert_eq!(rows[6][at("commit")], COMMIT_B);
    assert_eq!(rows[6][at("openWorldHint")], "1");
    // The files table keeps paths relative to the top folder, under each tree.
    let files = read_csv(&dir.path().join("out/files-2026-09-07.csv"));
    let deep: Vec<&str> = files[1..]
        .iter()
        .filter(|r| r[2] == "servers/fs/deep")
        .map(|r| r[4].as_str())
        .collect();
    assert_eq!(deep, ["servers/fs/deep/tools.ts"]);

    shard_and_merge(dir.path(), 3, 1);
    let same = run(
        dir.path(),
        &[
            "compare",
            "out/census-2026-09-07.csv",
            "merged/census-2026-09-07.csv",
        ],
    );
    // Every cell agrees; the failed tree makes compare exit 1 all the same.
    assert_eq!(same.status.code(), Some(1), "{}", show(&same));
    assert!(
        String::from_utf8_lossy(&same.stdout).contains(" 0 differ"),
        "{}",
        show(&same)
    );
    assert!(
        !String::from_utf8_lossy(&same.stdout).contains("only in the"),
        "{}",
        show(&same)
    );
}

/// A tree in one table and not the other is a difference: the published figures
/// against a table with no rows agree on nothing and say so.
#[test]
fn compare_counts_a_tree_missing_from_one_table_as_a_difference() {
    let dir = tempfile::tempdir().unwrap();
    let published = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/published-2026-09-07.csv");
    let text = std::fs::read_to_string(&published).unwrap();
    let header = text.lines().next().unwrap();
    std::fs::write(dir.path().join("empty.csv"), format!("{header}\n")).unwrap();
    let out = run(
        dir.path(),
        &["compare", published.to_str().unwrap(), "empty.csv"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.matches("only in the first table").count(),
        8,
        "{stdout}"
    );
    assert!(stdout.contains("8 trees in one table only"), "{stdout}");
    // Not a census table at all: the input is wrong, exit 2.
    std::fs::write(dir.path().join("x.csv"), "a,b\n1,2\n").unwrap();
    let out = run(dir.path(), &["compare", "x.csv", "empty.csv"]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
}

/// Without a network no table is written (results/ keeps what it had), and the
/// message says what to try.
#[test]
fn a_census_that_counts_nothing_writes_nothing_and_says_what_to_try() {
    let dir = tempfile::tempdir().unwrap();
    // Port 9 (discard) on loopback: nothing listens, every connection is refused.
    write_corpus(
        dir.path(),
        9,
        &[("o/a", "a1b2", None), ("o/b", "a1b2", None)],
    );
    let out = census(dir.path(), &["--retries", "0"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no tree could be counted, so no table was written"),
        "{stderr}"
    );
    assert!(
        stderr.contains("--offline") && stderr.contains("archive_url"),
        "{stderr}"
    );
    assert!(!dir.path().join("out").exists(), "{}", show(&out));
    // Each tree still says why, on stderr, and nothing of it on stdout.
    assert!(
        stderr.contains("mcp-hint-census: 'o/a': fetching")
            && stderr.contains("mcp-hint-census: 'o/b': fetching"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("fetching"), "{stdout}");
}

/// The tools of the tree with annotated tools, in `src/server.ts`.
const SERVED: [ToolSpec; 4] = [
    ToolSpec {
        name: "list",
        hints: ["true", "", "", "false"],
    },
    ToolSpec {
        name: "remove",
        hints: ["false", "true", "false", "true"],
    },
    ToolSpec {
        name: "plain",
        hints: ["", "", "", ""],
    },
    ToolSpec {
        name: "dynamic",
        hints: ["?", "", "", "false"],
    },
];

/// The tool of the silent tree: found, with no hint.
const SILENT: [ToolSpec; 1] = [ToolSpec {
    name: "quiet",
    hints: ["", "", "", ""],
}];

#[test]
fn census_writes_the_tools_table_the_survey_and_its_chart_through_shards() {
    let dir = tempfile::tempdir().unwrap();
    let (served, served_lines) = ts_server(&SERVED);
    let (silent, silent_lines) = ts_server(&SILENT);
    let server = serve(HashMap::from([
        (
            "/o/tools/a1b2".to_string(),
            Route::Archive(targz(
                "o-tools-a1b2",
                Some(COMMIT_A),
                &[Item::File("src/server.ts".into(), served)],
            )),
        ),
        (
            "/o/none/a1b2".to_string(),
            Route::Archive(targz(
                "o-none-a1b2",
                Some(COMMIT_A),
                &[Item::File("README.md".into(), b"readOnlyHint".to_vec())],
            )),
        ),
        (
            "/o/silent/a1b2".to_string(),
            Route::Archive(targz(
                "o-silent-a1b2",
                Some(COMMIT_A),
                &[Item::File("index.js".into(), silent)],
            )),
        ),
    ]));
    write_corpus(
        dir.path(),
        server.port(),
        &[
            ("o/tools", "a1b2", None),
            ("o/none", "a1b2", None),
            ("o/silent", "a1b2", None),
        ],
    );
    let whole = census(dir.path(), &[]);
    assert_eq!(whole.status.code(), Some(0), "{}", show(&whole));

    // The tools table: every definition, in corpus order, then by path and line.
    let tools = std::fs::read_to_string(dir.path().join("out/tools-2026-09-07.csv")).unwrap();
    let want = format!(
        "{TOOLS_HEADER}{}{}",
        tools_rows(
            ["o/tools", "a1b2", ""],
            "src/server.ts",
            &SERVED,
            &served_lines
        ),
        tools_rows(["o/silent", "a1b2", ""], "index.js", &SILENT, &silent_lines),
    );
    assert_eq!(tools, want);
    let counts = |repo: &str| {
        let r = row(dir.path(), repo);
        (
            r["tools"].clone(),
            r["tools_annotated"].clone(),
            r["tools_skipped"].clone(),
        )
    };
    assert_eq!(counts("o/tools"), ("4".into(), "3".into(), "0".into()));
    assert_eq!(counts("o/none"), ("0".into(), "0".into(), "0".into()));
    assert_eq!(counts("o/silent"), ("1".into(), "0".into(), "0".into()));

    // The survey summary, each share computed here from the tool lists.
    let md = std::fs::read_to_string(dir.path().join("out/census-2026-09-07.md")).unwrap();
    assert!(
        md.contains(
            "Of 3 trees read by the tool finder, 2 define tools of their own: 0 with every \
             tool annotated, 1 with some, 1 with none; 0 register tools only dynamically"
        ),
        "{md}"
    );
    let all: Vec<ToolSpec> = SERVED.iter().chain(&SILENT).copied().collect();
    let declaring: Vec<usize> = (0..4)
        .map(|i| all.iter().filter(|s| !s.hints[i].is_empty()).count())
        .collect();
    assert!(md.contains("5 tools in source in all: 3 annotated"), "{md}");
    let cells: Vec<String> = declaring
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let share = format!("{:.1}% ({n}", n as f64 * 100.0 / all.len() as f64);
            match all.iter().filter(|s| s.hints[i] == "?").count() {
                0 => format!("{share})"),
                k => format!("{share}; {k} ?)"),
            }
        })
        .collect();
    let line = format!("| all | {} | {} |", all.len(), cells.join(" | "));
    assert!(md.contains(&line), "no '{line}' in\n{md}");
    assert!(
        md.contains(&format!("| typescript | {} |", all.len())),
        "{md}"
    );
    assert!(
        md.contains("![Share of tool definitions declaring each hint](census-2026-09-07.svg)"),
        "{md}"
    );

    // The chart: the same bytes from a second run, a bar label per share.
    let svg = std::fs::read_to_string(dir.path().join("out/census-2026-09-07.svg")).unwrap();
    let again = census(dir.path(), &["--out", "again"]);
    assert_eq!(again.status.code(), Some(0), "{}", show(&again));
    let svg_again =
        std::fs::read_to_string(dir.path().join("again/census-2026-09-07.svg")).unwrap();
    assert!(svg == svg_again, "the chart differs between two runs");
    for &n in &declaring {
        let label = format!("{:.0}%", n as f64 * 100.0 / all.len() as f64);
        assert!(
            svg.contains(&format!("\n{label}\n")),
            "no bar label '{label}' in {svg}"
        );
    }
    assert!(svg.contains("typescript (5)"), "{svg}");

    shard_and_merge(dir.path(), 2, 0);

    // compare reads the tools tables beside the census tables.
    let ours = "out/census-2026-09-07.csv";
    let same = run(
        dir.path(),
        &["compare", ours, "again/census-2026-09-07.csv"],
    );
    assert_eq!(same.status.code(), Some(0), "{}", show(&same));
    let text = String::from_utf8_lossy(&same.stdout).into_owned();
    assert!(text.contains("tools: 5 definitions in the first table, 5 in the second; 20 hint cells agree, 0 differ"), "{text}");
    let changed = dir.path().join("again/tools-2026-09-07.csv");
    let edited = tools.replacen(",list,read,true,", ",list,read,false,", 1);
    assert_ne!(edited, tools);
    std::fs::write(&changed, edited).unwrap();
    let differ = run(
        dir.path(),
        &["compare", ours, "again/census-2026-09-07.csv"],
    );
    assert_eq!(differ.status.code(), Some(1), "{}", show(&differ));
    let text = String::from_utf8_lossy(&differ.stdout).into_owned();
    let at = served_lines[0];
    assert!(
        text.contains(&format!(
            "o/tools@a1b2 src/server.ts:{at} tool 'list': readOnlyHint true differs from false"
        )),
        "{text}"
    );

    // With the finder off, the tool columns are empty and the tools table has no row.
    let off = census(dir.path(), &["--out", "off", "--no-tools"]);
    assert_eq!(off.status.code(), Some(0), "{}", show(&off));
    let tools = std::fs::read_to_string(dir.path().join("off/tools-2026-09-07.csv")).unwrap();
    assert_eq!(tools, TOOLS_HEADER);
    assert!(!dir.path().join("off/census-2026-09-07.svg").exists());
}

#[test]
fn the_network_hint_follows_the_failure_kind_not_its_words() {
    let dir = tempfile::tempdir().unwrap();
    // Every tree fails, none for the network's sake, though the messages carry
    // a word a network error has ("connect", in a name): a 404
    // and a sign-in page.
    let routes = HashMap::from([
        ("/o/connect/a1b2".to_string(), Route::Status(404)),
        ("/o/timed-out/a1b2".to_string(), Route::Html),
    ]);
    let server = serve(routes);
    write_corpus(
        dir.path(),
        server.port(),
        &[("o/connect", "a1b2", None), ("o/timed-out", "a1b2", None)],
    );
    let out = census(dir.path(), &["--retries", "0"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no table was written"), "{stderr}");
    assert!(stderr.contains("HTTP 404"), "{stderr}");
    assert!(!stderr.contains("network reasons"), "{stderr}");
}

#[test]
fn compare_after_a_census_that_wrote_nothing_says_so() {
    let dir = tempfile::tempdir().unwrap();
    write_corpus(dir.path(), 9, &[("o/a", "a1b2", None)]);
    let out = census(dir.path(), &["--retries", "0"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let published = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/published-2026-09-07.csv");
    let missing = dir.path().join("out/census-2026-01-01.csv");
    let out = run(
        dir.path(),
        &[
            "compare",
            published.to_str().unwrap(),
            missing.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("does not exist: was it written?"), "{err}");
    assert!(err.contains("writes no table"), "{err}");
    assert!(!err.contains("os error"), "{err}");
}
