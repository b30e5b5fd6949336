//! Tests of the archive reader against GNU tar and Python's tarfile, the rules of
//! `docs/method.md` ("Reading the tar exactly as GNU tar and Python's tarfile read
//! it", "Bounds", "Subfolders", "Which commit", "An archive that is not whole").
//!
//! Archives are built byte by byte here. Where the reader accepts an archive, both
//! oracles must read the same files with the same counts (Python's
//! `bytes.lower().count`, GNU `tar -tvf` and `tar -xOf` with the naive counter);
//! where it refuses one on the grounds that the readers disagree, the test shows
//! that they do.

use std::io::{self, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common::{git_bytes as git, gzip, naive, pax_record, run, Run, TERMS};
use mcp_hint_census::archive::{check_subfolder, count_archive, ArchiveCount};
use mcp_hint_census::count::Matcher;

// ---------------------------------------------------------------------------
// Building archives byte by byte

const POSIX: &[u8; 8] = b"ustar\x0000";
const OLD_GNU: &[u8; 8] = b"ustar  \0";
const NO_MAGIC: &[u8; 8] = &[0; 8];

/// Writes the checksum of a header block, as GNU tar does (`%06o\0 `).
fn set_checksum(block: &mut [u8]) {
    block[148..156].fill(b' ');
    let sum: u32 = block.iter().map(|&b| u32::from(b)).sum();
    block[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
}

/// Returns a header block with every field as `magic`'s writer would set it.
fn header_with(
    name: &[u8],
    kind: u8,
    size: u64,
    magic: &[u8; 8],
    prefix: &[u8],
    link: &[u8],
) -> Vec<u8> {
    let mut b = vec![0u8; 512];
    b[..name.len()].copy_from_slice(name);
    b[100..108].copy_from_slice(b"0000644\0");
    b[108..116].copy_from_slice(b"0000000\0");
    b[116..124].copy_from_slice(b"0000000\0");
    b[124..136].copy_from_slice(format!("{size:011o}\0").as_bytes());
    b[136..148].copy_from_slice(format!("{:011o}\0", 1_700_000_000).as_bytes());
    b[156] = kind;
    b[157..157 + link.len()].copy_from_slice(link);
    b[257..265].copy_from_slice(magic);
    b[345..345 + prefix.len()].copy_from_slice(prefix);
    set_checksum(&mut b);
    b
}

fn header(name: &[u8], kind: u8, size: u64) -> Vec<u8> {
    header_with(name, kind, size, POSIX, b"", b"")
}

/// Returns `data` padded with NUL bytes to whole blocks.
fn pad(data: &[u8]) -> Vec<u8> {
    let mut out = data.to_vec();
    out.resize(data.len().div_ceil(512) * 512, 0);
    out
}

/// Returns a header of type `kind` followed by `data`.
fn member(name: &[u8], kind: u8, data: &[u8]) -> Vec<u8> {
    [header(name, kind, data.len() as u64), pad(data)].concat()
}

/// Returns a pax header of type `kind` (`x` or `g`) holding `records` verbatim.
fn pax_with(kind: u8, records: &[u8], magic: &[u8; 8]) -> Vec<u8> {
    [
        header_with(b"pax", kind, records.len() as u64, magic, b"", b""),
        pad(records),
    ]
    .concat()
}

fn pax(kind: u8, records: &[u8]) -> Vec<u8> {
    pax_with(kind, records, POSIX)
}

const END: [u8; 1024] = [0; 1024];

/// A file whose readOnlyHint count is 3.
fn three() -> Vec<u8> {
    member(b"t/f.txt", b'0', b"readOnlyHint readOnlyHint readOnlyHint")
}

const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

// ---------------------------------------------------------------------------
// Reading with the reader and with the oracles

/// What a reader found: totals, and each file with a count as (path, bytes, counts).
#[derive(Debug, PartialEq, Eq, Clone)]
pub(crate) struct Summary {
    pub(crate) files: u64,
    pub(crate) bytes: u64,
    pub(crate) counts: Vec<u64>,
    pub(crate) hits: Vec<(Vec<u8>, u64, Vec<u64>)>,
}

fn matcher() -> Matcher {
    Matcher::new(&TERMS).unwrap()
}

pub(crate) fn ours_with(archive: &[u8], subfolders: &[Vec<u8>]) -> anyhow::Result<ArchiveCount> {
    count_archive(archive, &matcher(), subfolders, &mut |_| {})
}

/// Returns the reader's summary of the whole tree, or its error message.
pub(crate) fn ours(archive: &[u8]) -> Result<(Summary, Option<String>), String> {
    let count = ours_with(archive, &[Vec::new()]).map_err(|e| format!("{e:#}"))?;
    let tree = &count.trees[0];
    let mut hits: Vec<_> = tree
        .files
        .iter()
        .map(|f| f.unwrap())
        .map(|f| (f.path, f.bytes, f.counts))
        .collect();
    hits.sort();
    Ok((
        Summary {
            files: tree.files_walked,
            bytes: tree.bytes_read,
            counts: tree.counts.clone(),
            hits,
        },
        count.commit,
    ))
}

/// Returns `path` without leading `./` and without the test's top folder `t/`.
fn relative(path: &[u8]) -> Vec<u8> {
    let mut p = path;
    while let Some(rest) = p.strip_prefix(b"./") {
        p = rest;
    }
    p.strip_prefix(b"t/").unwrap_or(p).to_vec()
}

/// Builds a summary from (path, bytes, counts) of each file.
fn summarize(files: impl IntoIterator<Item = (Vec<u8>, u64, Vec<u64>)>) -> Summary {
    let mut s = Summary {
        files: 0,
        bytes: 0,
        counts: vec![0; TERMS.len()],
        hits: Vec::new(),
    };
    for (path, bytes, counts) in files {
        s.files += 1;
        s.bytes += bytes;
        for (total, n) in s.counts.iter_mut().zip(&counts) {
            *total += n;
        }
        if counts.iter().any(|&n| n > 0) {
            s.hits.push((relative(&path), bytes, counts));
        }
    }
    s.hits.sort();
    s
}

/// Reads each archive with Python's tarfile: its regular files (`isreg()`) with
/// `bytes.lower().count` of every term, and the global `comment`; one JSON line per
/// archive, all in one process.
const PYTHON: &str = r#"
import json, sys, tarfile
terms = [t.lower().encode() for t in sys.argv[1].split(",")]
for path in sys.argv[2:]:
    try:
        files = []
        with tarfile.open(path) as tar:
            for m in tar:
                if m.isreg():
                    data = tar.extractfile(m).read()
                    low = data.lower()
                    name = m.name.encode("utf-8", "surrogateescape")
                    files.append([name.hex(), len(data), [low.count(t) for t in terms]])
            comment = tar.pax_headers.get("comment")
            if comment is not None:
                comment = comment.encode("utf-8", "surrogateescape").hex()
        print(json.dumps({"ok": True, "files": files, "commit": comment}))
    except Exception as e:
        print(json.dumps({"ok": False, "error": ascii(e)}))
"#;

pub(crate) type View = Result<(Summary, Option<String>), String>;

/// Returns Python's view of each archive.
pub(crate) fn python_batch(archives: &[Vec<u8>]) -> Vec<View> {
    let dir = tempfile::tempdir().unwrap();
    let paths: Vec<_> = archives
        .iter()
        .enumerate()
        .map(|(i, bytes)| {
            let path = dir.path().join(format!("{i}.tar"));
            std::fs::write(&path, bytes).unwrap();
            path
        })
        .collect();
    let out = Command::new("python3")
        .arg("-c")
        .arg(PYTHON)
        .arg(TERMS.join(","))
        .args(&paths)
        .output()
        .expect("python3 is needed as an oracle");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), archives.len());
    lines
        .into_iter()
        .map(|v| {
            if v["ok"] != true {
                return Err(v["error"].as_str().unwrap_or("").to_string());
            }
            let files = v["files"].as_array().unwrap().iter().map(|f| {
                let path = hex(f[0].as_str().unwrap());
                let counts = f[2]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|n| n.as_u64().unwrap())
                    .collect();
                (path, f[1].as_u64().unwrap(), counts)
            });
            let commit = v["commit"]
                .as_str()
                .map(|c| String::from_utf8_lossy(&hex(c)).into_owned());
            Ok((summarize(files), commit))
        })
        .collect()
}

fn python(archive: &[u8]) -> View {
    python_batch(&[archive.to_vec()]).pop().unwrap()
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

/// One line of `tar -tvf`: the type letter, the size column and the name.
struct Listed {
    kind: char,
    size: u64,
    name: String,
}

/// Returns GNU tar's listing of `path`, or its error when it exits non-zero.
fn gnu_list(path: &Path) -> Result<Vec<Listed>, String> {
    let out = Command::new("tar")
        .args(["--numeric-owner", "-tvf"])
        .arg(path)
        .output()
        .expect("GNU tar is needed as an oracle");
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    Ok(text
        .lines()
        .map(|line| {
            // mode, owner, size, date, time, then the name.
            let mut rest = line;
            let mut fields = Vec::new();
            for _ in 0..5 {
                rest = rest.trim_start();
                let end = rest.find(' ').unwrap_or(rest.len());
                fields.push(&rest[..end]);
                rest = &rest[end..];
            }
            Listed {
                kind: fields[0].chars().next().unwrap_or('?'),
                size: fields[2].parse().unwrap_or(0),
                name: rest.trim_start().to_string(),
            }
        })
        .collect())
}

/// Returns GNU tar's view: its regular files (`-` and contiguous `C`), each read
/// with `tar -xOf` and counted with the naive counter.
pub(crate) fn gnu(archive: &[u8]) -> View {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.tar");
    std::fs::write(&path, archive).unwrap();
    let listed = gnu_list(&path)?;
    let mut files = Vec::new();
    for entry in listed.iter().filter(|e| matches!(e.kind, '-' | 'C')) {
        let out = Command::new("tar")
            .arg("-xOf")
            .arg(&path)
            .arg(&entry.name)
            .output()
            .unwrap();
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        assert_eq!(out.stdout.len() as u64, entry.size, "{}", entry.name);
        let counts = TERMS.iter().map(|t| naive(&out.stdout, t)).collect();
        files.push((entry.name.clone().into_bytes(), entry.size, counts));
    }
    Ok((summarize(files), None))
}

/// What an archive must read as.
enum Want {
    /// Accepted: (files, bytes, per-term counts), the same for both oracles.
    Reads(u64, u64, [u64; 5]),
    /// Refused with a message holding the text, because GNU tar and Python read
    /// it differently (the test checks that they do).
    Disputed(&'static str),
    /// Refused with a message holding the text, by a rule of the method.
    Refused(&'static str),
}

fn check(case: &str, archive: &[u8], want: Want) {
    let (ours, py, gnu) = (ours(archive), python(archive), gnu(archive));
    let show = || format!("{case}:\n ours: {ours:?}\n python: {py:?}\n gnu: {gnu:?}");
    match want {
        Want::Reads(files, bytes, counts) => {
            let (got, _) = ours.clone().unwrap_or_else(|e| panic!("{case}: {e}"));
            assert_eq!(
                (got.files, got.bytes, &got.counts[..]),
                (files, bytes, &counts[..]),
                "{}",
                show()
            );
            let strip = |v: &View| v.as_ref().map(|(s, _)| s.clone()).map_err(|e| e.clone());
            assert_eq!(strip(&py), Ok(got.clone()), "{}", show());
            assert_eq!(strip(&gnu), Ok(got), "{}", show());
        }
        Want::Disputed(says) | Want::Refused(says) => {
            let err = ours.clone().expect_err(&show());
            assert!(err.contains(says), "{case}: {err:?} should say {says:?}");
            if matches!(want, Want::Disputed(_)) {
                let strip = |v: &View| v.as_ref().map(|(s, _)| s.clone()).ok();
                assert!(
                    strip(&py).is_none() || strip(&gnu).is_none() || strip(&py) != strip(&gnu),
                    "the readers agree, so refusing is not needed: {}",
                    show()
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Entry boundaries and types

#[test]
fn entries_without_data_and_pax_headers_read_as_gnu_tar_and_python_read_them() {
    let f = three();
    let rh = [3, 0, 0, 0, 0];
    // Each entry below claims 512 bytes of data, which is in fact the next header.
    check(
        "directory with a size",
        &[header(b"t/x/", b'5', 512), f.clone(), END.to_vec()].concat(),
        Want::Reads(1, 38, rh),
    );
    check(
        "hard link with a size",
        &[
            header_with(b"t/x", b'1', 512, POSIX, b"", b"t/f.txt"),
            f.clone(),
            END.to_vec(),
        ]
        .concat(),
        Want::Reads(1, 38, rh),
    );
    for kind in [b'2', b'3', b'4', b'6'] {
        check(
            &format!("type {} with a size", kind as char),
            &[
                header_with(b"t/x", kind, 512, POSIX, b"", b"t/f.txt"),
                f.clone(),
                END.to_vec(),
            ]
            .concat(),
            Want::Disputed("GNU tar skips that much data"),
        );
        check(
            &format!("type {} without a size", kind as char),
            &[
                header_with(b"t/x", kind, 0, POSIX, b"", b"t/f.txt"),
                f.clone(),
                END.to_vec(),
            ]
            .concat(),
            Want::Reads(1, 38, rh),
        );
    }
    // A pax header without ustar magic still sets the size of the next entry.
    let padded = pad(b"readOnlyHint");
    check(
        "pax size without magic",
        &[
            pax_with(b'x', &pax_record("size", b"512"), NO_MAGIC),
            header_with(b"t/a", b'0', 0, NO_MAGIC, b"", b""),
            padded.clone(),
            END.to_vec(),
        ]
        .concat(),
        Want::Reads(1, 512, [1, 0, 0, 0, 0]),
    );
    let long = format!("t/{}/deep.txt", "d".repeat(150));
    check(
        "pax path without magic",
        &[
            pax_with(b'x', &pax_record("path", long.as_bytes()), NO_MAGIC),
            member(b"t/short", b'0', b"openWorldHint"),
            END.to_vec(),
        ]
        .concat(),
        Want::Reads(1, 13, [0, 0, 0, 1, 0]),
    );
    check(
        "GNU long name",
        &[
            member(b"././@LongLink", b'L', format!("{long}\0").as_bytes()),
            member(b"t/short", b'0', b"idempotentHint"),
            END.to_vec(),
        ]
        .concat(),
        Want::Reads(1, 14, [0, 0, 1, 0, 0]),
    );
    check(
        "pax size on a directory",
        &[
            pax(b'x', &pax_record("size", b"512")),
            header(b"t/d/", b'5', 0),
            f.clone(),
            END.to_vec(),
        ]
        .concat(),
        Want::Reads(1, 38, rh),
    );
    check(
        "pax size on a hard link",
        &[
            pax(b'x', &pax_record("size", b"512")),
            header_with(b"t/l", b'1', 0, POSIX, b"", b"t/f.txt"),
            f.clone(),
            END.to_vec(),
        ]
        .concat(),
        Want::Disputed("hard link with a pax size"),
    );
    // Type NUL named `x/` is a directory, with no size; with one, GNU tar skips it.
    check(
        "type NUL named x/",
        &[header(b"t/x/", 0, 0), f.clone(), END.to_vec()].concat(),
        Want::Reads(1, 38, rh),
    );
    check(
        "type NUL named x/ with a size",
        &[header(b"t/x/", 0, 512), f.clone(), END.to_vec()].concat(),
        Want::Disputed("GNU tar skips that much data"),
    );
    check(
        "type 0 named x/",
        &[header(b"t/x/", b'0', 0), f.clone(), END.to_vec()].concat(),
        Want::Disputed("name ends with '/'"),
    );
    check(
        "type NUL with a long name x/",
        &[
            member(b"././@LongLink", b'L', b"t/y/\0"),
            header(b"t/y", 0, 0),
            f.clone(),
            END.to_vec(),
        ]
        .concat(),
        Want::Disputed("name ends with '/'"),
    );
    // An unknown type is not a file, and its data is skipped by its size.
    check(
        "unknown type",
        &[
            member(b"t/u", b'q', b"readOnlyHint hidden in an unknown entry"),
            f.clone(),
            END.to_vec(),
        ]
        .concat(),
        Want::Reads(1, 38, rh),
    );
    check(
        "contiguous and old-style files",
        &[
            member(b"t/c", b'7', b"annotations"),
            member(b"t/o", 0, b"destructiveHint"),
            END.to_vec(),
        ]
        .concat(),
        Want::Reads(2, 26, [0, 1, 0, 0, 1]),
    );
    check(
        "GNU sparse",
        &[member(b"t/s", b'S', b"readOnlyHint"), END.to_vec()].concat(),
        Want::Refused("sparse"),
    );
    check(
        "pax GNU sparse records",
        &[
            pax(b'x', &pax_record("GNU.sparse.size", b"100")),
            f.clone(),
            END.to_vec(),
        ]
        .concat(),
        Want::Refused("sparse"),
    );
    check(
        "prefix without ustar magic",
        &[
            header_with(b"a.txt", b'0', 11, OLD_GNU, b"p", b""),
            pad(b"annotations"),
            END.to_vec(),
        ]
        .concat(),
        Want::Disputed("prefix field"),
    );
    check(
        "prefix with ustar magic",
        &[
            header_with(b"a.txt", b'0', 11, POSIX, b"t", b""),
            pad(b"annotations"),
            END.to_vec(),
        ]
        .concat(),
        Want::Reads(1, 11, [0, 0, 0, 0, 1]),
    );
    check(
        "pax path and GNU long name that differ",
        &[
            member(b"././@LongLink", b'L', b"t/one\0"),
            pax(b'x', &pax_record("path", b"t/two")),
            f.clone(),
            END.to_vec(),
        ]
        .concat(),
        Want::Disputed("differ"),
    );
    check(
        "pax global size",
        &[
            pax(b'g', &pax_record("size", b"512")),
            header(b"t/a", b'0', 0),
            f.clone(),
            END.to_vec(),
        ]
        .concat(),
        Want::Disputed("pax global header sets 'size'"),
    );
    // Both readers stop at a lone zero block; what it hides is refused.
    check(
        "data after a zero block",
        &[f.clone(), vec![0; 512], f.clone(), END.to_vec()].concat(),
        Want::Refused("data follows the tar's end-of-archive block"),
    );
    check(
        "a numeric field GNU tar reads past a leading NUL",
        &{
            let mut h = header(b"t/n", b'0', 0);
            h[124..136].copy_from_slice(b"\x0000000000017");
            set_checksum(&mut h);
            [h, pad(b"readOnlyHint hidden"), END.to_vec()].concat()
        },
        Want::Disputed("size field"),
    );
    check(
        "a tar of zero blocks only",
        &[0u8; 10240],
        Want::Refused("holds no entry"),
    );
}

// ---------------------------------------------------------------------------
// Pax records and the commit

#[test]
fn malformed_pax_records_make_the_archive_an_error() {
    let good = pax_record("comment", COMMIT.as_bytes());
    let fff = format!("999 comment={}\n", "f".repeat(40));
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("length too long", fff.into_bytes(), "length"),
        (
            "a record without '=' before a good one",
            [&b"4 x\n"[..], &good].concat(),
            "no '='",
        ),
        (
            "a bad record before a good one",
            [&b"5 x\n"[..], &good].concat(),
            "malformed pax record",
        ),
        (
            "not ending in a newline",
            b"10 path=ab!".to_vec(),
            "newline",
        ),
        ("length zero", b"0 path=ab\n".to_vec(), "length"),
        ("no length", b"path=ab\n".to_vec(), "length"),
        (
            "key starting with a blank",
            b"11  path=a\n".to_vec(),
            "blank",
        ),
        ("key holding a NUL", b"12 path\0x=a\n".to_vec(), "NUL"),
    ];
    for (case, records, says) in &cases {
        for kind in [b'x', b'g'] {
            let archive = [pax(kind, records), three(), END.to_vec()].concat();
            let err = ours(&archive).expect_err(case);
            assert!(err.contains(says), "{case}: {err} should say {says:?}");
            // GNU tar fails on each, or reads it otherwise than Python.
            let (gnu, py) = (gnu(&archive), python(&archive));
            assert!(
                gnu.is_err() || gnu.as_ref().ok().map(|v| &v.0) != py.as_ref().ok().map(|v| &v.0),
                "{case}: GNU tar and Python agree: {gnu:?}"
            );
        }
    }
    // Data in the padding of a pax header is more records to Python only.
    let mut padded = pad(&good);
    let extra = pax_record("path", b"t/evil");
    padded[good.len() + 1..good.len() + 1 + extra.len()].copy_from_slice(&extra);
    let archive = [
        header(b"pax", b'x', good.len() as u64),
        padded,
        three(),
        END.to_vec(),
    ]
    .concat();
    assert!(ours(&archive).unwrap_err().contains("padding"));
}

/// Returns an archive whose global header's `comment` is `value`, verbatim.
fn commented(value: &[u8]) -> Vec<u8> {
    [
        pax(b'g', &pax_record("comment", value)),
        three(),
        END.to_vec(),
    ]
    .concat()
}

#[test]
fn the_commit_comment_must_be_a_full_commit_id() {
    for id in [
        COMMIT.to_string(),
        COMMIT.to_uppercase(),
        "ab".repeat(32), // SHA-256 repositories
    ] {
        let (_, commit) = ours(&commented(id.as_bytes())).unwrap();
        assert_eq!(commit.as_deref(), Some(id.as_str()));
        // Python reads the same comment.
        assert_eq!(python(&commented(id.as_bytes())).unwrap().1, Some(id));
    }
    let cases: [(&[u8], &str); 6] = [
        ("abcdeféééé".as_bytes(), "'abcdeféééé'"),
        (
            b"0123456789abcdef0123456789abcdef01234567\n| injected | row |",
            "01234567\\n| injected | row |'",
        ),
        (
            b"0123456789abcdef0123456789abcdef0123456\x1b",
            "0123456\\u{1b}'",
        ),
        (&COMMIT.as_bytes()[..39], "not a full commit id"),
        (
            b"0123456789abcdef0123456789abcdef01234567\n",
            "01234567\\n'",
        ),
        (b" 0123456789abcdef0123456789abcdef01234567", "' 0123"),
    ];
    for (value, says) in cases {
        // Both readers ignore such a comment: the archive reads, names no commit,
        // and says why (the census refuses it, scan reads it).
        let archive = commented(value);
        let (summary, commit) = ours(&archive).unwrap();
        assert_eq!(commit, None);
        assert_eq!(summary, gnu(&archive).unwrap().0);
        let count = ours_with(&archive, &[Vec::new()]).unwrap();
        let err = count
            .comment_problem
            .expect("the comment is not a commit id");
        assert!(err.contains(says), "{err:?} should say {says:?}");
        assert!(err.contains("not a full commit id"), "{err}");
        assert!(!err.contains('\n') && !err.contains('\x1b'), "{err:?}");
    }
    // Two global headers naming different commits.
    let other = COMMIT.replace('0', "f");
    let two = [
        pax(b'g', &pax_record("comment", COMMIT.as_bytes())),
        pax(b'g', &pax_record("comment", other.as_bytes())),
        three(),
        END.to_vec(),
    ]
    .concat();
    assert!(ours(&two).unwrap_err().contains("two commits"));
}

#[test]
fn git_archive_names_its_commit_as_the_reader_expects() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git(dir, &["init", "-q"]);
    std::fs::create_dir_all(dir.join("src/deep")).unwrap();
    std::fs::write(dir.join("src/a.ts"), "readOnlyHint: true").unwrap();
    let long = format!("src/deep/{}.ts", "n".repeat(140));
    std::fs::write(dir.join(&long), "openWorldHint annotations").unwrap();
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "one"]);
    let head = String::from_utf8(git(dir, &["rev-parse", "HEAD"])).unwrap();
    let head = head.trim();
    for format in ["tar", "tar.gz"] {
        let archive = git(
            dir,
            &[
                "archive",
                &format!("--format={format}"),
                "--prefix=r-1/",
                "HEAD",
            ],
        );
        let (got, commit) = ours(&archive).unwrap();
        assert_eq!(commit.as_deref(), Some(head), "{format}");
        assert_eq!((got.files, &got.counts[..]), (2, &[1, 0, 0, 1, 1][..]));
        let paths: Vec<&[u8]> = got.hits.iter().map(|h| &h.0[..]).collect();
        assert_eq!(paths, [&b"src/a.ts"[..], long.as_bytes()]);
        // git writes the id with nothing after it but the record's own newline.
        let raw = if format == "tar" {
            archive.clone()
        } else {
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(&archive[..])
                .read_to_end(&mut out)
                .unwrap();
            out
        };
        let want = format!("52 comment={head}\n");
        assert_eq!(&raw[512..512 + want.len()], want.as_bytes());
        let (py, py_commit) = python(&raw).unwrap();
        assert_eq!((py.files, &py.counts), (got.files, &got.counts));
        assert_eq!(py_commit.as_deref(), Some(head));
    }
}

// ---------------------------------------------------------------------------
// Gzip members and the end of the archive

#[test]
fn every_gzip_member_is_read_and_checked() {
    let tar = [
        pax(b'g', &pax_record("comment", COMMIT.as_bytes())),
        three(),
        member(b"t/b.txt", b'0', b"annotations"),
        END.to_vec(),
    ]
    .concat();
    let whole = ours(&gzip(&tar)).unwrap();
    let half = tar.len() / 2 + 7; // not on a block boundary
    let two = [gzip(&tar[..half]), gzip(&tar[half..])].concat();
    assert_eq!(ours(&two), Ok(whole.clone()));
    // Python reads the members as one stream too.
    assert_eq!(python(&two).map(|(s, _)| s), Ok(whole.0.clone()), "python");
    // A bad CRC in the second member.
    let mut bad = two.clone();
    let crc = bad.len() - 8;
    bad[crc] ^= 0xff;
    assert!(ours(&bad).is_err());
    // Bad length in the second member.
    let mut bad = two.clone();
    let len = bad.len() - 4;
    bad[len] ^= 0x01;
    assert!(ours(&bad).is_err());
    // Anything after the last member.
    // Zero bytes after the last member: gzip -d and Python skip them.
    for zeros in [1usize, 12, 4096] {
        let padded = [two.clone(), vec![0u8; zeros]].concat();
        assert_eq!(ours(&padded), Ok(whole.clone()), "{zeros} zeros");
        assert_eq!(
            python(&padded).map(|(s, _)| s),
            Ok(whole.0.clone()),
            "python"
        );
        assert_eq!(gnu(&padded).map(|(s, _)| s), Ok(whole.0.clone()), "gnu");
    }
    for garbage in [&b"x"[..], b"\0\0x", b"<html>"] {
        let trailing = [two.clone(), garbage.to_vec()].concat();
        assert!(
            ours(&trailing).is_err(),
            "{garbage:?} after the last member"
        );
    }
    // An empty member between two is still a member.
    let three_members = [gzip(&tar[..half]), gzip(b""), gzip(&tar[half..])].concat();
    assert_eq!(ours(&three_members), Ok(whole));
}

#[test]
fn zeros_after_the_end_are_bounded() {
    let tar = [three(), END.to_vec()].concat();
    let mib = 1 << 20;
    for (zeros, is_ok) in [(0, true), (mib, true), (mib + 512, false), (4 * mib, false)] {
        let archive = [tar.clone(), vec![0; zeros]].concat();
        assert_eq!(ours(&archive).is_ok(), is_ok, "{zeros} zeros, tar");
        assert_eq!(
            ours(&gzip(&archive)).is_ok(),
            is_ok,
            "{zeros} zeros, tar.gz"
        );
    }
    let mut nonzero = [tar.clone(), vec![0; 4096]].concat();
    nonzero[tar.len() + 3000] = 1;
    let err = ours(&nonzero).unwrap_err();
    assert!(err.contains("data follows"), "{err}");
}

/// Wraps a reader and counts the bytes read from it.
struct Counting<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Yields a gzip member that never ends: stored deflate blocks of zeros.
struct EndlessZeros {
    block: Vec<u8>,
    pos: usize,
    header: bool,
}

impl Read for EndlessZeros {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if !self.header {
            self.header = true;
            let h = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
            buf[..h.len()].copy_from_slice(&h);
            return Ok(h.len());
        }
        let n = buf.len().min(self.block.len() - self.pos);
        buf[..n].copy_from_slice(&self.block[self.pos..self.pos + n]);
        self.pos = (self.pos + n) % self.block.len();
        Ok(n)
    }
}

#[test]
fn endless_zeros_fail_fast() {
    let tar = [three(), END.to_vec()].concat();
    let limit = 16 << 20;
    // A whole tar.gz, then zeros outside the gzip stream, without end.
    let read = Arc::new(AtomicU64::new(0));
    let input = Counting {
        inner: io::Cursor::new(gzip(&tar)).chain(io::repeat(0)),
        read: read.clone(),
    };
    let err = count_archive(input, &matcher(), &[Vec::new()], &mut |_| {}).unwrap_err();
    assert!(read.load(Ordering::Relaxed) < limit, "{err:#}");
    // Zeros inside the gzip stream, after the tar's end, without end: the tar is
    // stored in the deflate stream, so no member ever ends.
    let mut block = vec![0u8, 0xff, 0xff, 0x00, 0x00];
    block.resize(5 + 0xffff, 0);
    let stored: Vec<u8> = tar
        .chunks(0xffff)
        .flat_map(|c| {
            let n = c.len() as u16;
            [&[0u8][..], &n.to_le_bytes(), &(!n).to_le_bytes(), c].concat()
        })
        .collect();
    let read = Arc::new(AtomicU64::new(0));
    let mut endless = EndlessZeros {
        block,
        pos: 0,
        header: false,
    };
    let mut head = [0u8; 10];
    endless.read_exact(&mut head).unwrap();
    let input = Counting {
        inner: io::Cursor::new([&head[..], &stored].concat()).chain(endless),
        read: read.clone(),
    };
    let err = count_archive(input, &matcher(), &[Vec::new()], &mut |_| {}).unwrap_err();
    assert!(format!("{err:#}").contains("zero bytes follow"), "{err:#}");
    assert!(read.load(Ordering::Relaxed) < limit);
}

#[test]
fn scan_of_endless_gzip_zeros_ends_quickly_with_an_error() {
    let mut gzip_zeros = Command::new("gzip")
        .args(["-1", "-c", "/dev/zero"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("gzip is needed");
    let zeros = gzip_zeros.stdout.take().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let mut scan = Command::new(crate::common::bin())
        .args(["scan", "-"])
        .current_dir(tmp.path())
        .stdin(zeros)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = loop {
        if let Some(status) = scan.try_wait().unwrap() {
            break Some(status);
        }
        if start.elapsed() > Duration::from_secs(30) {
            let _ = scan.kill();
            let _ = scan.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // gzip would write for ever: it is ended here, by its own handle.
    let _ = gzip_zeros.kill();
    let _ = gzip_zeros.wait();
    let status = status.expect("scan of endless zeros ends within 30 s");
    assert!(!status.success());
    let mut text = String::new();
    scan.stdout
        .take()
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    scan.stderr
        .take()
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    assert!(text.contains("holds no entry"), "{text}");
}

#[test]
fn large_metadata_entries_are_refused() {
    let big = vec![b'a'; (1 << 20) + 1];
    let long_name = [member(b"././@LongLink", b'L', &big), three(), END.to_vec()].concat();
    let err = ours(&long_name).unwrap_err();
    assert!(err.contains("more than the 1048576 bytes"), "{err}");
    let comment = [&b"1048590 comment="[..], &big[..1048574], b"\n"].concat();
    let pax_big = [pax(b'x', &comment), three(), END.to_vec()].concat();
    let err = ours(&pax_big).unwrap_err();
    assert!(err.contains("more than the 1048576 bytes"), "{err}");
    // Exactly 1 MiB is read.
    let name = [&b"t/"[..], &vec![b'n'; (1 << 20) - 3], b"\0"].concat();
    let at_limit = [
        member(b"././@LongLink", b'L', &name),
        member(b"t/short", b'0', b"annotations"),
        END.to_vec(),
    ]
    .concat();
    assert_eq!(ours(&at_limit).unwrap().0.files, 1);
}

// ---------------------------------------------------------------------------
// Subfolders

#[test]
fn subfolders_are_checked() {
    for good in ["a", "a/b", "src/mcp-server", ".github", "a.b/c..d"] {
        assert!(check_subfolder(good).is_ok(), "{good}");
    }
    for bad in [
        "", "/a", "a/", "a//b", ".", "..", "./a", "a/..", "a/./b", "a\\b", "a\nb",
    ] {
        let err = check_subfolder(bad).expect_err(bad);
        assert!(err.to_string().contains("is not valid"), "{err}");
    }
    let err = ours_with(&[three(), END.to_vec()].concat(), &[b"../x".to_vec()]).unwrap_err();
    assert!(err.to_string().contains("'../x'"), "{err}");
}

/// Returns the naive count of `files` (path relative to the top folder, content)
/// for `subfolder`.
fn naive_subfolder(files: &[(&str, &[u8])], subfolder: &str) -> Summary {
    summarize(
        files
            .iter()
            .filter(|(p, _)| subfolder.is_empty() || p.starts_with(&format!("{subfolder}/")))
            .map(|(p, d)| {
                let counts = TERMS.iter().map(|t| naive(d, t)).collect();
                (format!("t/{p}").into_bytes(), d.len() as u64, counts)
            }),
    )
}

fn tree_summary(tree: &mcp_hint_census::count::TreeCount) -> Summary {
    let mut hits: Vec<_> = tree
        .files
        .iter()
        .map(|f| f.unwrap())
        .map(|f| (f.path, f.bytes, f.counts))
        .collect();
    hits.sort();
    Summary {
        files: tree.files_walked,
        bytes: tree.bytes_read,
        counts: tree.counts.clone(),
        hits,
    }
}

#[test]
fn subfolders_are_counted_in_one_pass() {
    let files: [(&str, &[u8]); 7] = [
        ("README.md", b"readOnlyHint"),
        ("src/a.ts", b"readOnlyHint destructiveHint"),
        ("src/a/b.ts", b"idempotentHint"),
        ("src/a/b/c.ts", b"openWorldHint annotations"),
        ("src/ab.ts", b"annotations annotations"),
        ("srcx/d.ts", b"readOnlyHint"),
        ("docs/x.md", b"nothing here"),
    ];
    let subfolders = [
        "", "src", "src/a", "src/a/b", "srcx", "docs", "none", "t", "src/a.ts",
    ];
    let mut parts = vec![
        pax(b'g', &pax_record("comment", COMMIT.as_bytes())),
        header(b"t/", b'5', 0),
    ];
    for (p, d) in files {
        parts.push(member(format!("t/{p}").as_bytes(), b'0', d));
    }
    parts.push(END.to_vec());
    let archive = parts.concat();
    let asked: Vec<Vec<u8>> = subfolders.iter().map(|s| s.as_bytes().to_vec()).collect();
    for bytes in [archive.clone(), gzip(&archive)] {
        let mut calls = 0;
        let count = count_archive(&bytes[..], &matcher(), &asked, &mut |_| calls += 1).unwrap();
        assert_eq!(calls, files.len(), "each file is read once");
        assert_eq!(count.trees.len(), subfolders.len());
        for (sub, tree) in subfolders.iter().zip(&count.trees) {
            assert_eq!(tree_summary(tree), naive_subfolder(&files, sub), "'{sub}'");
        }
    }
    // The whole tree agrees with Python.
    assert_eq!(
        python(&archive).unwrap().0,
        naive_subfolder(&files, ""),
        "python"
    );

    // One entry outside the top folder: there is none, paths stay whole, and a
    // subfolder is matched against the whole path.
    let broken = [
        header(b"t/", b'5', 0),
        member(b"t/src/a.ts", b'0', b"readOnlyHint"),
        member(b"src/b.ts", b'0', b"annotations"),
        member(b"t/src/c.ts", b'0', b"openWorldHint"),
        END.to_vec(),
    ]
    .concat();
    let asked = [b"".to_vec(), b"src".to_vec(), b"t/src".to_vec()];
    let count = ours_with(&broken, &asked).unwrap();
    let paths = |i: usize| -> Vec<String> {
        let mut p: Vec<String> = count.trees[i]
            .files
            .iter()
            .map(|f| String::from_utf8(f.unwrap().path).unwrap())
            .collect();
        p.sort();
        p
    };
    assert_eq!(paths(0), ["src/b.ts", "t/src/a.ts", "t/src/c.ts"]);
    assert_eq!(paths(1), ["src/b.ts"]);
    assert_eq!(paths(2), ["t/src/a.ts", "t/src/c.ts"]);
    assert_eq!(
        (count.trees[1].files_walked, count.trees[2].files_walked),
        (1, 2)
    );
}

// ---------------------------------------------------------------------------
// No panic, and agreement on mutated archives

/// A small pseudo-random generator, so that a failure names its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Returns a small archive with every kind of entry, and where its headers are.
fn specimen() -> (Vec<u8>, Vec<usize>) {
    let long = format!("t/{}/l.ts", "l".repeat(110));
    let parts = vec![
        pax(b'g', &pax_record("comment", COMMIT.as_bytes())),
        header(b"t/", b'5', 0),
        member(b"t/a.ts", b'0', b"readOnlyHint destructiveHint annotations"),
        pax(b'x', &pax_record("path", b"t/pax/long/name.py")),
        member(b"t/short", b'0', b"idempotentHint"),
        member(b"././@LongLink", b'L', format!("{long}\0").as_bytes()),
        member(b"t/x", b'0', b"openWorldHint openWorldHint"),
        header_with(b"t/l", b'2', 0, POSIX, b"", b"a.ts"),
        header(b"t/d/", b'5', 0),
        member(b"t/o", 0, b"readOnlyHint"),
        member(b"t/c", b'7', b"annotations"),
        pax(b'x', &pax_record("size", b"700")),
        header(b"t/sized", b'0', 0),
        pad(&[b"destructiveHint ".repeat(43), b"abcdefghijkl".to_vec()].concat()),
        header_with(b"t/h", b'1', 0, POSIX, b"", b"t/a.ts"),
        member(b"t/u", b'q', b"readOnlyHint"),
        header_with(b"t/old", b'0', 9, OLD_GNU, b"", b""),
        pad(b"openWorld"),
        END.to_vec(),
    ];
    let mut headers = Vec::new();
    let mut at = 0;
    for part in &parts[..parts.len() - 1] {
        // Each part starts with a header (its data follows it), but for data
        // written after a header of its own.
        if part[257..262] == *b"ustar" {
            headers.push(at);
        }
        at += part.len();
    }
    (parts.concat(), headers)
}

/// Returns a mutation of `tar` (headers at `headers`): bytes changed (with the
/// header checksums put right, so the change is read), blocks cut or repeated.
fn mutate(tar: &[u8], headers: &[usize], rng: &mut Rng) -> Vec<u8> {
    let mut out = tar.to_vec();
    let special = [
        b'0', b'1', b'2', b'5', b'7', b'x', b'g', b'L', b'S', b'q', 0, b'/', b' ', b'9', 0x80,
    ];
    for _ in 0..1 + rng.below(3) {
        match rng.below(6) {
            0..=2 => {
                // A byte of a header: the type, the size, the name, the magic.
                let h = headers[rng.below(headers.len())];
                if h + 512 > out.len() {
                    continue;
                }
                let field = [
                    156,
                    124 + rng.below(12),
                    rng.below(100),
                    257 + rng.below(8),
                    345,
                ];
                let i = h + field[rng.below(field.len())];
                out[i] = special[rng.below(special.len())];
                set_checksum(&mut out[h..h + 512]);
            }
            3 if out.is_empty() => {}
            3 => {
                // A byte anywhere.
                let i = rng.below(out.len());
                out[i] = rng.next() as u8;
            }
            4 => {
                // Cut at a block boundary or anywhere.
                if out.len() < 512 {
                    continue;
                }
                let cut = match rng.below(2) {
                    0 => rng.below(out.len() / 512) * 512,
                    _ => rng.below(out.len()),
                };
                out.truncate(cut);
            }
            _ if out.len() < 512 => {}
            _ => {
                // Repeat a block.
                let b = rng.below(out.len() / 512) * 512;
                let block = out[b..b + 512].to_vec();
                out.splice(b..b, block);
            }
        }
    }
    out
}

/// Runs the mutated archives through the reader, Python and GNU tar, and checks
/// that every accepted archive reads the same in all three.
#[test]
fn mutated_archives_are_read_as_python_and_gnu_tar_read_them_or_refused() {
    // MUTATIONS and MUTATION_SEED run a longer or another search by hand.
    let cases: usize = std::env::var("MUTATIONS").map_or(400, |n| n.parse().unwrap());
    let seed: u64 =
        std::env::var("MUTATION_SEED").map_or(0x9e37_79b9_7f4a_7c15, |n| n.parse().unwrap());
    let (tar, headers) = specimen();
    let (base, _) = ours(&tar).unwrap();
    assert_eq!(base.files, 7);
    let mut rng = Rng(seed | 1);
    let archives: Vec<Vec<u8>> = (0..cases)
        .map(|_| mutate(&tar, &headers, &mut rng))
        .collect();
    let pythons = python_batch(&archives);
    let dir = tempfile::tempdir().unwrap();
    let mut accepted = 0;
    for (i, (archive, py)) in archives.iter().zip(&pythons).enumerate() {
        // Also as a tar.gz, which must read exactly as the tar.
        let got = ours(archive);
        assert_eq!(
            ours(&gzip(archive)).ok(),
            got.clone().ok(),
            "case {i}: tar.gz and tar differ"
        );
        let Ok((got, commit)) = got else { continue };
        accepted += 1;
        let py = py
            .as_ref()
            .unwrap_or_else(|e| panic!("case {i}: python refused what we read: {e}"));
        // Paths compare without the top folder `t/`, which a mutation may have
        // made no longer the top folder of every entry.
        let normal = |s: &Summary| {
            let mut s = s.clone();
            s.hits.iter_mut().for_each(|h| h.0 = relative(&h.0));
            s.hits.sort();
            s
        };
        assert_eq!(
            normal(&py.0),
            normal(&got),
            "case {i}: python reads it differently"
        );
        assert_eq!(py.1, commit, "case {i}: python's commit");
        let path = dir.path().join(format!("{i}.tar"));
        std::fs::write(&path, archive).unwrap();
        let listed = gnu_list(&path)
            .unwrap_or_else(|e| panic!("case {i}: GNU tar refused what we read: {e}"));
        let regular: Vec<&Listed> = listed
            .iter()
            .filter(|e| matches!(e.kind, '-' | 'C'))
            .collect();
        assert_eq!(
            (regular.len() as u64, regular.iter().map(|e| e.size).sum()),
            (got.files, got.bytes),
            "case {i}: GNU tar lists other files"
        );
    }
    eprintln!(
        "{cases} mutated archives, {accepted} accepted and checked against Python and GNU tar"
    );
    assert!(accepted >= cases / 10, "only {accepted} mutations accepted");
    assert!(accepted < cases, "every mutation was accepted");
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..3000)) {
            let _ = ours(&bytes);
            let _ = ours(&[&[0x1f, 0x8b][..], &bytes].concat());
        }

        #[test]
        fn on_mutated_archives(seed in any::<u64>(), is_gz in any::<bool>()) {
            let (tar, headers) = specimen();
            let mut rng = Rng(seed | 1);
            let mutated = mutate(&tar, &headers, &mut rng);
            let _ = ours(&mutated);
            if is_gz {
                // Mutations of the compressed bytes too.
                let mut gz = gzip(&tar);
                let i = rng.below(gz.len());
                gz[i] ^= rng.next() as u8 | 1;
                let _ = ours(&gz);
                let _ = ours(&gz[..rng.below(gz.len())]);
            }
        }
    }
}

/// No crafted archive makes the binary panic: mutations of the specimen, as tar and
/// as tar.gz, and the hostile commits of this suite go through `scan` (all in one
/// run) and through `census --offline` (each a cached tree); every row is ok or an
/// error row, and the exit status is never 101.
#[test]
fn no_crafted_archive_panics_census_or_scan() {
    let dir = tempfile::tempdir().unwrap();
    let (tar, headers) = specimen();
    let mut archives: Vec<Vec<u8>> = vec![tar.clone(), gzip(&tar)];
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    for _ in 0..60 {
        let mutated = mutate(&tar, &headers, &mut rng);
        archives.push(gzip(&mutated));
        archives.push(mutated);
    }
    for comment in [
        "abcdeféééé".as_bytes(),
        b"abcd not a commit",
        format!("{COMMIT}\n| injected | row |").as_bytes(),
        b"abcd\x1b[2Jabcd",
    ] {
        let mut archive = pax(b'g', &pax_record("comment", comment));
        archive.extend(member(b"t/a", b'0', b"readOnlyHint"));
        archive.extend_from_slice(&END);
        archives.push(gzip(&archive));
    }
    let cache = dir.path().join("cache/o");
    let mut corpus = String::from("[census]\narchive_url = \"http://127.0.0.1:9/{repo}\"\n");
    let mut names = Vec::new();
    for (i, archive) in archives.iter().enumerate() {
        let name = format!("a{i}.tar");
        std::fs::write(dir.path().join(&name), archive).unwrap();
        names.push(name);
        let tree = cache.join(format!("t{i}"));
        std::fs::create_dir_all(&tree).unwrap();
        // Pinned to the specimen's commit, so that the unmutated archives count.
        std::fs::write(tree.join("0123.tar.gz"), archive).unwrap();
        std::fs::write(
            tree.join("0123.tar.gz.sha256"),
            format!("{}\n", "0".repeat(64)),
        )
        .unwrap();
        corpus.push_str(&format!("[[tree]]\nrepo = \"o/t{i}\"\ncommit = \"0123\"\n"));
    }
    std::fs::write(dir.path().join("corpus.toml"), corpus).unwrap();
    let scan = Run::new(dir.path())
        .args(["scan", "--json"])
        .args(&names)
        .output();
    assert!(matches!(scan.status.code(), Some(0 | 1)), "scan: {scan:?}");
    let rows: serde_json::Value = serde_json::from_slice(&scan.stdout).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), archives.len());
    let census = run(
        dir.path(),
        &[
            "census",
            "--corpus",
            "corpus.toml",
            "--offline",
            "--cache",
            "cache",
            "--out",
            "out",
            "--date",
            "2026-09-07",
            "--quiet",
        ],
    );
    assert!(
        matches!(census.status.code(), Some(0 | 1)),
        "census: {census:?}"
    );
    let table = std::fs::read_to_string(dir.path().join("out/census-2026-09-07.csv")).unwrap();
    assert_eq!(table.lines().count(), archives.len() + 1);
    assert!(
        table.contains(",ok,"),
        "the specimen itself counts: {table}"
    );
    // Every row that counted is stamped with the specimen's own commit: no
    // malformed comment became a commit.
    for line in table.lines().skip(1).filter(|l| l.contains(",ok,")) {
        assert_eq!(line.split(',').nth(4), Some(COMMIT), "{line}");
    }
    // The injected comment cannot add a row to the Markdown table.
    let md = std::fs::read_to_string(dir.path().join("out/census-2026-09-07.md")).unwrap();
    assert!(!md.contains("| injected | row |"), "{md}");
}
