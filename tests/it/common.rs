//! Fixtures shared by the integration tests: archives built in code, a naive
//! counter to check the tool against, the one way to run the built binary and read
//! what it wrote, a loopback HTTP server, raw TCP peers that misbehave on purpose,
//! and git repositories reached through `insteadOf`.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use flate2::write::GzEncoder;
use flate2::Compression;
use tar::{Builder, EntryType, Header};

pub const TERMS: [&str; 5] = [
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
    "annotations",
];

/// Counts `term` in `haystack` as docs/method.md defines it, the obvious way:
/// ASCII-lower-case both, scan left to right, jump past each match.
pub fn naive(haystack: &[u8], term: &str) -> u64 {
    naive_exact(
        &haystack.to_ascii_lowercase(),
        &term.to_ascii_lowercase().into_bytes(),
    )
}

/// Counts `term` in `haystack` byte for byte (an exact spelling), scanning left to
/// right and jumping past each match: Python's `data.count(term)` on bytes.
pub fn naive_exact(haystack: &[u8], term: &[u8]) -> u64 {
    let (mut i, mut n) = (0, 0);
    while i + term.len() <= haystack.len() {
        if haystack[i..i + term.len()] == term[..] {
            n += 1;
            i += term.len();
        } else {
            i += 1;
        }
    }
    n
}

/// One entry of an archive built for a test.
pub enum Item {
    /// A regular file (type `0`).
    File(String, Vec<u8>),
    /// A regular file with the old-style NUL type flag.
    OldFile(String, Vec<u8>),
    /// A contiguous file (type `7`).
    Contiguous(String, Vec<u8>),
    /// A file whose long path is carried by a pax `path` record.
    PaxPath(String, Vec<u8>),
    Dir(String),
    Symlink(String, String),
    HardLink(String, String),
}

impl Item {
    /// Returns the path relative to the top folder and content of a counted file.
    pub fn counted(&self) -> Option<(&str, &[u8])> {
        match self {
            Item::File(p, d)
            | Item::OldFile(p, d)
            | Item::Contiguous(p, d)
            | Item::PaxPath(p, d) => Some((p, d)),
            _ => None,
        }
    }
}

/// What the naive oracle expects of an archive.
#[derive(Debug, PartialEq, Eq)]
pub struct Expected {
    pub files: u64,
    pub bytes: u64,
    pub counts: Vec<u64>,
    /// (path, bytes, counts) of each file with a nonzero count, sorted by path.
    pub hits: Vec<(String, u64, Vec<u64>)>,
}

/// Returns what the naive oracle counts in `items` for `terms`.
pub fn expected(items: &[Item], terms: &[&str]) -> Expected {
    let mut e = Expected {
        files: 0,
        bytes: 0,
        counts: vec![0; terms.len()],
        hits: Vec::new(),
    };
    for (path, data) in items.iter().filter_map(Item::counted) {
        e.files += 1;
        e.bytes += data.len() as u64;
        let counts: Vec<u64> = terms.iter().map(|t| naive(data, t)).collect();
        for (total, n) in e.counts.iter_mut().zip(&counts) {
            *total += n;
        }
        if counts.iter().any(|&n| n > 0) {
            e.hits.push((path.to_string(), data.len() as u64, counts));
        }
    }
    e.hits.sort();
    e
}

fn tar_header(kind: EntryType, size: u64) -> Header {
    let mut h = Header::new_gnu();
    h.set_entry_type(kind);
    h.set_size(size);
    h.set_mode(0o644);
    h.set_mtime(1_700_000_000);
    h
}

/// Returns an uncompressed tar of `items` under `top/`, with a pax global header
/// naming `commit` when one is given.
pub fn tar_bytes(top: &str, commit: Option<&str>, items: &[Item]) -> Vec<u8> {
    let mut b = Builder::new(Vec::new());
    if let Some(commit) = commit {
        append_commit(&mut b, commit);
    }
    let mut h = tar_header(EntryType::Directory, 0);
    h.set_mode(0o755);
    b.append_data(&mut h, format!("{top}/"), &[][..]).unwrap();
    for item in items {
        match item {
            Item::File(p, d) => {
                let mut h = tar_header(EntryType::Regular, d.len() as u64);
                // append_data writes a GNU long-name entry for paths over 100 bytes.
                b.append_data(&mut h, format!("{top}/{p}"), &d[..]).unwrap();
            }
            Item::OldFile(p, d) => {
                let mut h = tar_header(EntryType::Regular, d.len() as u64);
                h.set_path(format!("{top}/{p}")).unwrap();
                h.as_mut_bytes()[156] = 0;
                h.set_cksum();
                b.append(&h, &d[..]).unwrap();
            }
            Item::Contiguous(p, d) => {
                let mut h = tar_header(EntryType::Continuous, d.len() as u64);
                h.set_path(format!("{top}/{p}")).unwrap();
                h.set_cksum();
                b.append(&h, &d[..]).unwrap();
            }
            Item::PaxPath(p, d) => {
                let record = pax_record("path", format!("{top}/{p}").as_bytes());
                let mut x = tar_header(EntryType::XHeader, record.len() as u64);
                x.set_path("PaxHeaders/long").unwrap();
                x.set_cksum();
                b.append(&x, &record[..]).unwrap();
                let mut h = tar_header(EntryType::Regular, d.len() as u64);
                h.set_path(format!("{top}/truncated-name")).unwrap();
                h.set_cksum();
                b.append(&h, &d[..]).unwrap();
            }
            Item::Dir(p) => {
                let mut h = tar_header(EntryType::Directory, 0);
                b.append_data(&mut h, format!("{top}/{p}/"), &[][..])
                    .unwrap();
            }
            Item::Symlink(p, target) => {
                let mut h = tar_header(EntryType::Symlink, 0);
                b.append_link(&mut h, format!("{top}/{p}"), target).unwrap();
            }
            Item::HardLink(p, target) => {
                let mut h = tar_header(EntryType::Link, 0);
                b.append_link(&mut h, format!("{top}/{p}"), format!("{top}/{target}"))
                    .unwrap();
            }
        }
    }
    b.into_inner().unwrap()
}

/// Returns `bytes` gzip-compressed.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = GzEncoder::new(Vec::new(), Compression::default());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

/// Returns a tar.gz of `items` under `top/`.
pub fn targz(top: &str, commit: Option<&str>, items: &[Item]) -> Vec<u8> {
    gzip(&tar_bytes(top, commit, items))
}

/// Returns one pax record `"<len> key=value\n"`, its length counting itself.
pub fn pax_record(key: &str, value: &[u8]) -> Vec<u8> {
    let body = [b" ", key.as_bytes(), b"=", value, b"\n"].concat();
    let mut len = body.len() + 1;
    while len.to_string().len() + body.len() != len {
        len += 1;
    }
    [len.to_string().as_bytes(), &body].concat()
}

/// Appends a pax global header naming `commit`, as GitHub's archives open.
fn append_commit<W: Write>(b: &mut Builder<W>, commit: &str) {
    let record = pax_record("comment", commit.as_bytes());
    let mut h = tar_header(EntryType::XGlobalHeader, record.len() as u64);
    h.set_path("pax_global_header").unwrap();
    h.set_cksum();
    b.append(&h, &record[..]).unwrap();
}

/// How [`TestTree::archive`] packs a tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Tar,
    TarGz,
    /// A zip of stored (uncompressed) entries.
    Zip,
}

/// A tree of files for a test, in a temporary folder of its own (fd's `TestEnv`):
/// written file by file, then packed as an archive under a top folder (as GitHub
/// packs a repository) or made a git repository.
pub struct TestTree {
    dir: tempfile::TempDir,
    top: String,
    commit: Option<String>,
}

impl Default for TestTree {
    fn default() -> Self {
        Self::new()
    }
}

impl TestTree {
    /// Returns an empty tree whose archives have the top folder `t` and name no commit.
    pub fn new() -> TestTree {
        TestTree {
            dir: tempfile::tempdir().expect("a temp dir"),
            top: "t".to_string(),
            commit: None,
        }
    }

    /// Returns an empty tree whose archives have the top folder `top` and, in a tar,
    /// a pax global header naming `commit`.
    pub fn pinned(top: &str, commit: Option<&str>) -> TestTree {
        TestTree {
            top: top.to_string(),
            commit: commit.map(str::to_string),
            ..TestTree::new()
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes `bytes` at `path` (any bytes but NUL, relative), making folders as needed.
    pub fn file(&self, path: impl AsRef<[u8]>, bytes: impl AsRef<[u8]>) -> &TestTree {
        write_tree(self.path(), &[(path.as_ref(), bytes.as_ref())]);
        self
    }

    /// Makes the folder `path`, empty unless files are written in it.
    pub fn dir(&self, path: impl AsRef<[u8]>) -> &TestTree {
        std::fs::create_dir_all(self.path().join(os(path.as_ref()))).unwrap();
        self
    }

    /// Makes `path` a symbolic link to `target`.
    pub fn symlink(&self, path: impl AsRef<[u8]>, target: &str) -> &TestTree {
        std::os::unix::fs::symlink(target, self.path().join(os(path.as_ref()))).unwrap();
        self
    }

    /// Returns the tree packed as `kind`: folders, files and symbolic links under the
    /// top folder, in byte order of their paths, each with a fixed time and mode.
    pub fn archive(&self, kind: Kind) -> Vec<u8> {
        let entries = entries_of(self.path());
        match kind {
            Kind::Tar => self.tar(&entries),
            Kind::TarGz => gzip(&self.tar(&entries)),
            Kind::Zip => self.zip(&entries),
        }
    }

    /// Makes the tree a git repository on branch `main` with one commit of every
    /// file; returns the commit id.
    pub fn git(&self) -> String {
        git(self.path(), &["init", "-q", "-b", "main"]);
        git(self.path(), &["add", "-A"]);
        git(self.path(), &["commit", "-q", "-m", "tree"]);
        git(self.path(), &["rev-parse", "HEAD"])
    }

    fn tar(&self, entries: &[(Vec<u8>, Node)]) -> Vec<u8> {
        let mut b = Builder::new(Vec::new());
        if let Some(commit) = &self.commit {
            append_commit(&mut b, commit);
        }
        let mut h = tar_header(EntryType::Directory, 0);
        h.set_mode(0o755);
        b.append_data(&mut h, format!("{}/", self.top), &[][..])
            .unwrap();
        for (rel, node) in entries {
            let path = [self.top.as_bytes(), b"/", rel].concat();
            match node {
                Node::Dir => {
                    let mut h = tar_header(EntryType::Directory, 0);
                    h.set_mode(0o755);
                    b.append_data(&mut h, os(&path), &[][..]).unwrap();
                }
                Node::File(data) => {
                    let mut h = tar_header(EntryType::Regular, data.len() as u64);
                    b.append_data(&mut h, os(&path), &data[..]).unwrap();
                }
                Node::Symlink(target) => {
                    let mut h = tar_header(EntryType::Symlink, 0);
                    b.append_link(&mut h, os(&path), os(target)).unwrap();
                }
            }
        }
        b.into_inner().unwrap()
    }

    /// Returns a zip of stored entries (folders and files; links are left out, as
    /// Python's zipfile leaves them), with local headers and a central directory.
    fn zip(&self, entries: &[(Vec<u8>, Node)]) -> Vec<u8> {
        let (mut out, mut central, mut count) = (Vec::new(), Vec::new(), 0u16);
        let mut put = |name: Vec<u8>, data: &[u8]| {
            let mut crc = flate2::Crc::new();
            crc.update(data);
            let (crc, len) = (crc.sum(), data.len() as u32);
            let offset = out.len() as u32;
            // Version 20, no flags, stored, a fixed DOS time and date.
            let common = |w: &mut Vec<u8>| {
                w.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0x21, 0]);
                w.extend_from_slice(&crc.to_le_bytes());
                w.extend_from_slice(&len.to_le_bytes());
                w.extend_from_slice(&len.to_le_bytes());
                w.extend_from_slice(&(name.len() as u16).to_le_bytes());
                w.extend_from_slice(&[0, 0]);
            };
            out.extend_from_slice(b"PK\x03\x04");
            common(&mut out);
            out.extend_from_slice(&name);
            out.extend_from_slice(data);
            central.extend_from_slice(b"PK\x01\x02\x14\x03");
            common(&mut central);
            // No comment, disk 0, no attributes.
            central.extend_from_slice(&[0; 10]);
            central.extend_from_slice(&offset.to_le_bytes());
            central.extend_from_slice(&name);
            count += 1;
        };
        let top = self.top.as_bytes();
        put([top, b"/"].concat(), b"");
        for (rel, node) in entries {
            match node {
                Node::Dir => put([top, b"/", rel, b"/"].concat(), b""),
                Node::File(data) => put([top, b"/", rel].concat(), data),
                Node::Symlink(_) => {}
            }
        }
        let start = out.len() as u32;
        let size = central.len() as u32;
        out.extend_from_slice(&central);
        out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&start.to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        out
    }
}

/// One thing in a [`TestTree`].
enum Node {
    Dir,
    File(Vec<u8>),
    Symlink(Vec<u8>),
}

/// Returns everything under `root` but `.git` by its path relative to `root`,
/// sorted by bytes.
fn entries_of(root: &Path) -> Vec<(Vec<u8>, Node)> {
    use std::os::unix::ffi::OsStrExt;
    let mut out = Vec::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .as_os_str()
                .as_bytes()
                .to_vec();
            if rel == b".git" {
                // The repository [`TestTree::git`] makes is no part of the tree.
                continue;
            }
            let kind = std::fs::symlink_metadata(&path).unwrap().file_type();
            let node = if kind.is_symlink() {
                Node::Symlink(
                    std::fs::read_link(&path)
                        .unwrap()
                        .as_os_str()
                        .as_bytes()
                        .to_vec(),
                )
            } else if kind.is_dir() {
                todo.push(path.clone());
                Node::Dir
            } else {
                Node::File(std::fs::read(&path).unwrap())
            };
            out.push((rel, node));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Returns `path`, any bytes, as a path.
pub fn os(path: &[u8]) -> &Path {
    use std::os::unix::ffi::OsStrExt;
    Path::new(OsStr::from_bytes(path))
}

/// Writes `files` under `root`, making folders as needed.
pub fn write_tree(root: &Path, files: &[(&[u8], &[u8])]) {
    for (path, content) in files {
        let path = root.join(os(path));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
    }
}

/// Writes `corpus.toml` into `dir`: `[census]` with `archive_url`, then a `[[tree]]`
/// of each of `trees`, its keys and values in order (values TOML-quoted as written,
/// so no `"` or `\\`). Returns the file's path.
pub fn write_corpus(dir: &Path, archive_url: &str, trees: &[Vec<(&str, String)>]) -> String {
    let mut text = format!("[census]\narchive_url = \"{archive_url}\"\n");
    for tree in trees {
        text.push_str("\n[[tree]]\n");
        for (key, value) in tree {
            text.push_str(&format!("{key} = \"{value}\"\n"));
        }
    }
    let path = dir.join("corpus.toml");
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// Returns tree `i` of a corpus of numbered trees: `o/rNN` at the commit `i + 1`,
/// in 40 hex digits.
pub fn numbered_tree(i: usize) -> Vec<(&'static str, String)> {
    vec![
        ("repo", format!("o/r{i:02}")),
        ("commit", format!("{:040x}", i + 1)),
    ]
}

/// A file full of near-misses and real hits: every case the method names.
pub fn rich_items() -> Vec<Item> {
    let boundary = 256 * 1024;
    let mut straddle = vec![b'x'; boundary - 5];
    straddle.extend_from_slice(b"readOnlyHint idempotentHint");
    straddle.extend(vec![b'y'; boundary]);
    straddle.extend_from_slice(b"OPENWORLDHINT");
    let mut binary: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    binary.extend_from_slice(b"\x00destructiveHint\xff\xfeannotations");
    let utf16: Vec<u8> = "readOnlyHint"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let long = format!("{}/deep.ts", "d".repeat(120));
    let pax_long = format!("{}/pax.py", "p".repeat(150));
    vec![
        Item::File(
            "src/tools.ts".into(),
            b"annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }\n".to_vec(),
        ),
        Item::File("README.md".into(), b"ReadOnlyHint READONLYHINT readonlyhint readOnly_Hint".to_vec()),
        Item::File("empty.txt".into(), Vec::new()),
        Item::File("straddle.bin".into(), straddle),
        Item::File("binary.dat".into(), binary),
        Item::File("utf16.txt".into(), utf16),
        Item::File("lookalike.txt".into(), "readOnlyHİnt ｒeadOnlyHint".as_bytes().to_vec()),
        // A term split across two files is not an occurrence.
        Item::File("split-a.txt".into(), b"xx readOnly".to_vec()),
        Item::File("split-b.txt".into(), b"Hint yy".to_vec()),
        Item::File(long, b"openWorldHint openWorldHint".to_vec()),
        Item::PaxPath(pax_long, b"idempotentHint".to_vec()),
        Item::OldFile("old.txt".into(), b"destructiveHint".to_vec()),
        Item::Contiguous("contig.txt".into(), b"annotations annotations".to_vec()),
        Item::Dir("docs".into()),
        Item::Symlink("link-to-tools".into(), "src/tools.ts".into()),
        Item::HardLink("hard-to-tools".into(), "src/tools.ts".into()),
        Item::File("docs/self-overlap.txt".into(), b"annotationsannotationsannotations".to_vec()),
    ]
}

/// Returns the path of the built binary.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_mcp-hint-census"))
}

// ---------------------------------------------------------------------------
// Running the binary: `run`, `run_env` and `Run` for the rest; `show`, `stdout`,
// `stderr` and `read_csv` to look at what it did.

/// A run of the built binary being set up: in `dir`, with stdin empty, no
/// `SOURCE_DATE_EPOCH` and, unless [`Run::limit`] says otherwise, no time limit.
pub struct Run {
    command: Command,
    stdin: Option<Vec<u8>>,
    limit: Option<Duration>,
}

impl Run {
    pub fn new(dir: &Path) -> Run {
        Run::of(bin(), dir)
    }

    /// Returns a run of `program` (a wrapper that starts the binary, say) in `dir`.
    pub fn of(program: impl AsRef<OsStr>, dir: &Path) -> Run {
        let mut command = Command::new(program);
        command.current_dir(dir).env_remove("SOURCE_DATE_EPOCH");
        Run {
            command,
            stdin: None,
            limit: None,
        }
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Run {
        self.command.arg(arg);
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.command.args(args);
        self
    }

    pub fn env(mut self, name: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Run {
        self.command.env(name, value);
        self
    }

    pub fn envs<'a>(mut self, envs: &[(&'a str, &'a str)]) -> Run {
        self.command.envs(envs.iter().copied());
        self
    }

    /// Feeds `bytes` to the binary's stdin.
    pub fn stdin(mut self, bytes: Vec<u8>) -> Run {
        self.stdin = Some(bytes);
        self
    }

    /// Runs the binary as user and group `id`.
    pub fn user(mut self, id: u32) -> Run {
        self.command.uid(id).gid(id);
        self
    }

    /// Fails the test when the run takes longer than `limit` (a walk that follows
    /// a symlink loop would never end), after killing the binary.
    pub fn limit(mut self, limit: Duration) -> Run {
        self.limit = Some(limit);
        self
    }

    /// Gives access to the command, for what the builder does not name.
    pub fn command(&mut self) -> &mut Command {
        &mut self.command
    }

    /// Runs the binary to its end and returns its status, stdout and stderr.
    pub fn output(mut self) -> Output {
        let what = format!("{:?}", self.command.get_args().collect::<Vec<_>>());
        self.command
            .stdin(match self.stdin {
                Some(_) => Stdio::piped(),
                None => Stdio::null(),
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = self.command.spawn().expect("running mcp-hint-census");
        if let Some(input) = self.stdin {
            let mut stdin = child.stdin.take().expect("stdin is piped");
            thread::spawn(move || {
                let _ = stdin.write_all(&input);
            });
        }
        let drain = |mut from: Box<dyn Read + Send>| {
            thread::spawn(move || {
                let mut buf = Vec::new();
                from.read_to_end(&mut buf)
                    .expect("reading the binary's output");
                buf
            })
        };
        let stdout = drain(Box::new(child.stdout.take().expect("stdout is piped")));
        let stderr = drain(Box::new(child.stderr.take().expect("stderr is piped")));
        let status = match self.limit {
            None => child.wait().expect("waiting for mcp-hint-census"),
            Some(limit) => {
                let deadline = Instant::now() + limit;
                loop {
                    if let Some(status) = child.try_wait().expect("waiting for mcp-hint-census") {
                        break status;
                    }
                    if Instant::now() > deadline {
                        let _ = child.kill();
                        let _ = child.wait();
                        panic!("mcp-hint-census {what} did not finish within {limit:?}");
                    }
                    thread::sleep(Duration::from_millis(10));
                }
            }
        };
        Output {
            status,
            stdout: stdout.join().expect("the stdout reader"),
            stderr: stderr.join().expect("the stderr reader"),
        }
    }
}

/// Runs the binary in `dir` with `args` (see [`Run`]).
pub fn run(dir: &Path, args: &[&str]) -> Output {
    Run::new(dir).args(args).output()
}

/// Runs the binary in `dir` with `args` and `envs` added to its environment.
pub fn run_env(dir: &Path, args: &[&str], envs: &[(&str, &str)]) -> Output {
    Run::new(dir).args(args).envs(envs).output()
}

/// Returns a printable account of a run, for assertion messages.
pub fn show(out: &Output) -> String {
    format!(
        "status: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Fails the test, showing the run, unless it exited with `code`.
pub fn assert_code(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "expected exit {code}\n{}",
        show(out)
    );
}

/// Returns a run's stdout as text (invalid UTF-8 replaced).
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Returns a run's stderr as text (invalid UTF-8 replaced).
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Reads a CSV file into rows of strings, header first.
pub fn read_csv(path: &Path) -> Vec<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_path(path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    reader
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect()
}

/// Returns the first line of a text file as written, without its line end: a CSV
/// header byte for byte, quoting included.
pub fn first_line(path: &Path) -> String {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    text.lines().next().unwrap_or_default().to_string()
}

/// Runs the binary in `dir` with `args` and `envs` added, its stdout a pipe whose
/// reading end is already closed, as `... | head` leaves it; returns the exit
/// status and stderr (stdout is empty). Python makes the pipe, so the test does not
/// race the reader's exit.
pub fn run_into_closed_pipe(dir: &Path, args: &[&str], envs: &[(&str, &str)]) -> Output {
    let script = "import os, subprocess, sys\n\
                  r, w = os.pipe()\n\
                  os.close(r)\n\
                  p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)\n\
                  sys.stderr.buffer.write(p.stderr)\n\
                  sys.exit(p.returncode if p.returncode >= 0 else 128 - p.returncode)\n";
    Command::new("python3")
        .current_dir(dir)
        .arg("-c")
        .arg(script)
        .arg(bin())
        .args(args)
        .env_remove("SOURCE_DATE_EPOCH")
        .envs(envs.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("running python3")
}

/// One tool a generated TypeScript server registers: its name and each hint as the
/// tools table spells it (`"true"`, `"false"`, `"?"` for a value read from a
/// variable, `""` for absent), in the schema's order.
#[derive(Clone, Copy, Debug)]
pub struct ToolSpec {
    pub name: &'static str,
    pub hints: [&'static str; 4],
}

/// The hint names in the schema's order.
pub const HINTS: [&str; 4] = [
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

/// Returns the source of a TypeScript SDK server registering `specs`, one per line,
/// and the line each registration is on: the oracle of the tools tests is this
/// generator, never the finder.
pub fn ts_server(specs: &[ToolSpec]) -> (Vec<u8>, Vec<u32>) {
    let mut lines = vec![
        "import { McpServer } from \"@modelcontextprotocol/sdk/server/mcp.js\";".to_string(),
        "const server = new McpServer({ name: \"fixture\", version: \"1.0.0\" });".to_string(),
        "const flag = process.env.FLAG === \"1\";".to_string(),
        "// server.registerTool(\"commented\", { annotations: { readOnlyHint: true } }, h);"
            .to_string(),
    ];
    let mut at = Vec::new();
    for spec in specs {
        let set: Vec<String> = HINTS
            .iter()
            .zip(spec.hints)
            .filter(|(_, v)| !v.is_empty())
            .map(|(h, v)| format!("{h}: {}", if v == "?" { "flag" } else { v }))
            .collect();
        let annotations = match set.is_empty() {
            true => String::new(),
            false => format!(", annotations: {{ {} }}", set.join(", ")),
        };
        lines.push(format!(
            "server.registerTool(\"{}\", {{ description: \"d\"{annotations} }}, async () => ({{ content: [] }}));",
            spec.name
        ));
        at.push(lines.len() as u32);
    }
    lines.push("export default server;".to_string());
    ((lines.join("\n") + "\n").into_bytes(), at)
}

/// Returns the hints `spec` omits under the schema's rule, written out here as the
/// schema states it: every hint is meaningful, except destructiveHint and
/// idempotentHint when readOnlyHint is true.
pub fn spec_omits(spec: &ToolSpec) -> Vec<&'static str> {
    (0..4)
        .filter(|&i| spec.hints[i].is_empty() && !(spec.hints[0] == "true" && (i == 1 || i == 2)))
        .map(|i| HINTS[i])
        .collect()
}

/// Returns the lint's findings for `spec` as `(rule id, message)`, written out here
/// from docs/scan.md's "The lint": a tool with no hint has MHC001 alone; otherwise a
/// write or destructive name declared read-only MHC002, read-only beside
/// destructive MHC003, and meaningful hints left out MHC004.
pub fn spec_findings(spec: &ToolSpec) -> Vec<(&'static str, String)> {
    let name = spec.name;
    if spec.hints.iter().all(|h| h.is_empty()) {
        return vec![(
            "MHC001",
            format!(
                "tool '{name}' declares no hint: every client following the schema treats \
                 it as not read-only, destructive and open-world"
            ),
        )];
    }
    let mut out = Vec::new();
    let class = fixture_name_class(name);
    if spec.hints[0] == "true" && (class == "write" || class == "destructive") {
        out.push((
            "MHC002",
            format!("tool '{name}' is declared readOnlyHint: true, but its name reads as {class}"),
        ));
    }
    if spec.hints[0] == "true" && spec.hints[1] == "true" {
        out.push((
            "MHC003",
            format!("tool '{name}' declares readOnlyHint: true beside destructiveHint: true"),
        ));
    }
    let omits = spec_omits(spec);
    if !omits.is_empty() {
        out.push((
            "MHC004",
            format!(
                "tool '{name}' omits {}; a client reads {} as the default",
                omits.join(", "),
                if omits.len() == 1 { "it" } else { "them" }
            ),
        ));
    }
    out
}

/// Returns the tools table's rows (after the header) that `specs` registered at
/// `lines` of `path` in the tree `repo,pinned,subfolder` give.
pub fn tools_rows(key: [&str; 3], path: &str, specs: &[ToolSpec], lines: &[u32]) -> String {
    specs
        .iter()
        .zip(lines)
        .map(|(s, line)| {
            format!(
                "{},{},{},{path},{line},tool,source,typescript,{},{},{}\n",
                key[0],
                key[1],
                key[2],
                s.name,
                fixture_name_class(s.name),
                s.hints.join(",")
            )
        })
        .collect()
}

/// Returns the `name_class` of a fixture tool's name, as a person reads the name
/// (docs/method.md, "Name classes"): each name the fixtures use, written out here.
pub fn fixture_name_class(name: &str) -> &'static str {
    match name {
        "list" | "read" => "read",
        "write" => "write",
        "remove" => "destructive",
        "plain" | "partial" | "dynamic" | "extra" | "quiet" | "complete" | "50%, off" | "bare" => {
            "unknown"
        }
        other => panic!("no name class written for the fixture name '{other}'"),
    }
}

/// The tools table's header.
pub const TOOLS_HEADER: &str = "repo,pinned,subfolder,path,line,kind,role,sdk,tool,name_class,readOnlyHint,destructiveHint,idempotentHint,openWorldHint\n";
/// The variable naming the file each skip is appended to; `tests/run.sh` sets it
/// and counts the lines.
pub const SKIPPED_VAR: &str = "MCP_HINT_CENSUS_SKIPPED";

/// Returns true when this is a CI run: `CI` is exactly `true` (as GitHub Actions and
/// `.ci/run` set it). Any other value, or none, is a person's run.
pub fn is_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Handles a test that cannot run here: under `CI=true` it fails; elsewhere it
/// writes `skipped: <test>: <why>` on stderr and appends that line to the file
/// [`SKIPPED_VAR`] names, so that the run's total counts it as skipped, not passed.
/// The caller returns right after.
pub fn skip(why: &str) {
    let current = std::thread::current();
    let test = match current.name() {
        Some(name) if name != "main" => name.to_string(),
        _ => "a test".to_string(),
    };
    let why = why.replace('\n', " ");
    if is_ci() {
        panic!("{test} cannot run here, and CI=true makes that a failure: {why}");
    }
    let line = format!("skipped: {test}: {why}");
    eprintln!("{line}");
    if let Some(path) = std::env::var_os(SKIPPED_VAR) {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .unwrap_or_else(|e| panic!("opening {}: {e}", Path::new(&path).display()));
        writeln!(file, "{line}").expect("appending to the skipped list");
    }
}

// ---------------------------------------------------------------------------
// A loopback HTTP server

/// One request a [`Loopback`] server received.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: String,
    /// The path and query, as the request line has them.
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Which request for this URL this is: 1 for the first.
    pub nth: usize,
}

impl Request {
    /// Returns the values of header `name` (any case), in the order received.
    pub fn header_values(&self, name: &str) -> Vec<String> {
        self.headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
            .collect()
    }

    /// Returns the first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<String> {
        self.header_values(name).into_iter().next()
    }
}

/// What a [`Loopback`] answers with.
pub type Response = tiny_http::ResponseBox;

/// An HTTP server on 127.0.0.1 that answers each request with what `answer`
/// returns for it, records every request, and stops when dropped.
pub struct Loopback {
    port: u16,
    seen: Arc<Mutex<Vec<Request>>>,
    server: Arc<tiny_http::Server>,
}

impl Loopback {
    pub fn start(mut answer: impl FnMut(&Request) -> Response + Send + 'static) -> Loopback {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("binding 127.0.0.1:0"));
        let port = server.server_addr().to_ip().expect("an IP listener").port();
        let seen: Arc<Mutex<Vec<Request>>> = Arc::default();
        let (s, log) = (server.clone(), seen.clone());
        thread::spawn(move || {
            let mut counts: HashMap<String, usize> = HashMap::new();
            for mut request in s.incoming_requests() {
                let url = request.url().to_string();
                let nth = counts.entry(url.clone()).or_default();
                *nth += 1;
                let mut body = Vec::new();
                let _ = request.as_reader().read_to_end(&mut body);
                let seen = Request {
                    method: request.method().to_string(),
                    url,
                    headers: request
                        .headers()
                        .iter()
                        .map(|h| (h.field.to_string(), h.value.to_string()))
                        .collect(),
                    body,
                    nth: *nth,
                };
                let response = answer(&seen);
                log.lock().unwrap().push(seen);
                let _ = request.respond(response);
            }
        });
        Loopback { port, seen, server }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Returns `http://127.0.0.1:PORT`, no slash at the end.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Returns the requests received so far, in order.
    pub fn seen(&self) -> Vec<Request> {
        self.seen.lock().unwrap().clone()
    }

    /// Returns how many requests for `url` came so far.
    pub fn hits(&self, url: &str) -> usize {
        self.seen().iter().filter(|r| r.url == url).count()
    }
}

impl Drop for Loopback {
    fn drop(&mut self) {
        self.server.unblock();
    }
}

/// Returns an answer with `status` and `body`.
pub fn reply(status: u16, body: impl Into<Vec<u8>>) -> Response {
    tiny_http::Response::from_data(body.into())
        .with_status_code(status)
        .boxed()
}

/// Returns a header from its `Name: value` text.
pub fn header(text: &str) -> tiny_http::Header {
    text.parse()
        .unwrap_or_else(|()| panic!("not a header: {text}"))
}

// ---------------------------------------------------------------------------
// Raw TCP peers, for what an HTTP server would not do: cut a body short, trickle
// it, never answer, or send bytes that are no HTTP at all.

/// Listens on 127.0.0.1 and hands each connection to `each` on a thread of its
/// own; returns the port.
pub fn raw_server(each: impl Fn(TcpStream) + Send + Sync + 'static) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("binding 127.0.0.1:0");
    let port = listener.local_addr().expect("a bound address").port();
    let each = Arc::new(each);
    thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let each = each.clone();
            thread::spawn(move || each(stream));
        }
    });
    port
}

/// Starts a server that accepts connections and never sends a byte, holding each
/// until the client hangs up; returns its port and how many connections it took.
pub fn silent_server() -> (u16, Arc<AtomicUsize>) {
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = accepted.clone();
    let port = raw_server(move |mut stream| {
        count.fetch_add(1, Ordering::SeqCst);
        let mut sink = [0u8; 4096];
        while matches!(stream.read(&mut sink), Ok(n) if n > 0) {}
    });
    (port, accepted)
}

/// Reads what a client sent first (a request head, for a small request) and drops it.
pub fn read_request(stream: &mut TcpStream) {
    let mut request = [0u8; 4096];
    let _ = stream.read(&mut request);
}

// ---------------------------------------------------------------------------
// Git

/// Git variables that would point git at another repository than the one a test
/// names; the test process may run inside a hook that sets them.
pub const GIT_LOCAL_ENV: [&str; 6] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_COMMON_DIR",
    "GIT_CONFIG_PARAMETERS",
];

/// Applies [`Git::env`] with `config` as the user's git configuration.
fn git_env<'a>(config: &Path, command: &'a mut Command) -> &'a mut Command {
    for name in GIT_LOCAL_ENV {
        command.env_remove(name);
    }
    command
        .env("GIT_CONFIG_GLOBAL", config)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_ALLOW_PROTOCOL", "file")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .env_remove("GIT_PAGER")
        .env_remove("PAGER")
        .env_remove("SOURCE_DATE_EPOCH")
}

/// Runs git in `dir` with `config` as the user's configuration and no signing;
/// fails the test when git fails. Returns its stdout.
fn git_in(config: &Path, dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = git_env(config, &mut Command::new("git"))
        .arg("-C")
        .arg(dir)
        .args(["-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("running git (the tests need git on the PATH)");
    assert!(
        out.status.success(),
        "git {args:?} in {}: {}",
        dir.display(),
        show(&out)
    );
    out.stdout
}

/// Runs git in `dir` with no configuration but the repository's own (see
/// [`Git::env`]); fails the test when git fails. Returns its trimmed stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    String::from_utf8_lossy(&git_bytes(dir, args))
        .trim()
        .to_string()
}

/// [`git`], returning stdout as bytes, untrimmed.
pub fn git_bytes(dir: &Path, args: &[&str]) -> Vec<u8> {
    git_in(Path::new("/dev/null"), dir, args)
}

/// Git for a test: a temp dir, a git configuration of the test's own in place of
/// the user's and the system's (empty, or `insteadOf` rules that map a host onto a
/// folder here), a fixed identity, and a folder `markers` for the commands that
/// hostile repositories arm.
pub struct Git {
    dir: tempfile::TempDir,
    config: PathBuf,
}

impl Git {
    /// Returns a lab with an empty configuration.
    pub fn new() -> Git {
        let dir = tempfile::tempdir().expect("a temp dir");
        let config = dir.path().join("gitconfig");
        std::fs::write(&config, "").expect("writing the git config");
        std::fs::create_dir(dir.path().join("markers")).expect("making the markers folder");
        Git { dir, config }
    }

    /// Returns a lab whose `https://HOST/` is the folder `HOST` here, for each host.
    pub fn serving(hosts: &[&str]) -> Git {
        let git = Git::new();
        for host in hosts {
            let root = git.path().join(host);
            std::fs::create_dir_all(&root).expect("making a forge folder");
            git.rule(
                &format!("file://{}/", root.display()),
                &format!("https://{host}/"),
            );
        }
        git
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The file that stands in for the user's (and the system's) git configuration.
    pub fn config(&self) -> &Path {
        &self.config
    }

    /// Adds a rule: a URL starting `instead_of` is fetched from `base`.
    pub fn rule(&self, base: &str, instead_of: &str) {
        let mut text = std::fs::read_to_string(&self.config).expect("reading the git config");
        text.push_str(&format!("[url \"{base}\"]\n\tinsteadOf = {instead_of}\n"));
        std::fs::write(&self.config, text).expect("writing the git config");
    }

    /// Applies the environment every git and every run of the binary gets: the
    /// test's config only, no variable pointing at another repository, a fixed
    /// identity, and no transport but file, so nothing leaves the machine.
    pub fn env<'a>(&self, command: &'a mut Command) -> &'a mut Command {
        git_env(&self.config, command)
    }

    /// Runs git in `dir` as the test's own tool (no signing); fails the test when
    /// git fails. Returns its stdout.
    pub fn git_bytes(&self, dir: &Path, args: &[&str]) -> Vec<u8> {
        git_in(&self.config, dir, args)
    }

    /// [`Git::git_bytes`], as text with the white space around it trimmed.
    pub fn git(&self, dir: &Path, args: &[&str]) -> String {
        String::from_utf8_lossy(&self.git_bytes(dir, args))
            .trim()
            .to_string()
    }

    /// Makes an empty repository at `path` on branch `branch`.
    pub fn init(&self, path: &Path, branch: &str) -> PathBuf {
        std::fs::create_dir_all(path).expect("making a repository folder");
        self.git(path, &["init", "-q", "-b", branch]);
        path.to_path_buf()
    }

    /// Makes `HOST/OWNER/NAME` with default branch `branch` and `commits` empty commits.
    pub fn repo(&self, host: &str, repo: &str, branch: &str, commits: usize) -> PathBuf {
        let path = self.init(&self.path().join(host).join(repo), branch);
        for i in 0..commits {
            self.commit(&path, &format!("commit {i}"));
        }
        path
    }

    /// Makes an empty commit.
    pub fn commit(&self, repo: &Path, message: &str) {
        self.git(repo, &["commit", "-q", "--allow-empty", "-m", message]);
    }

    /// Writes `files` and commits them all with author and committer date `when`
    /// (ISO 8601 with its zone), no hook running; returns the commit id.
    pub fn commit_at(&self, repo: &Path, when: &str, files: &[(&str, &str)]) -> String {
        for (name, text) in files {
            std::fs::write(repo.join(name), text).expect("writing a file to commit");
        }
        self.git(repo, &["add", "-A"]);
        let out = self
            .env(&mut Command::new("git"))
            .current_dir(repo)
            .env("GIT_AUTHOR_DATE", when)
            .env("GIT_COMMITTER_DATE", when)
            .args([
                "-c",
                "core.hooksPath=/dev/null",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(["commit", "-q", "--allow-empty", "-m", when])
            .output()
            .expect("running git");
        assert!(out.status.success(), "{}", show(&out));
        self.rev(repo, "HEAD")
    }

    pub fn rev(&self, repo: &Path, rev: &str) -> String {
        self.git(repo, &["rev-parse", rev])
    }

    /// Returns a run of the binary in `cwd` with this lab's git environment.
    pub fn bin(&self, cwd: &Path) -> Run {
        let mut run = Run::new(cwd);
        self.env(run.command());
        // A history read for a pin goes to the default cache unless --cache says
        // otherwise: keep it in the lab, never in the user's cache.
        run.command()
            .env("XDG_CACHE_HOME", self.path().join("user-cache"));
        run
    }

    /// Runs the binary in `cwd` with `args` and this lab's git environment.
    pub fn run(&self, cwd: &Path, args: &[&str]) -> Output {
        self.bin(cwd).args(args).output()
    }

    /// Returns a shell command that creates marker `name`.
    pub fn marker(&self, name: &str) -> String {
        format!(
            "touch '{}'",
            self.path().join("markers").join(name).display()
        )
    }

    /// Returns the names of the markers created so far, sorted.
    pub fn markers(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.path().join("markers"))
            .expect("reading the markers folder")
            .map(|e| {
                e.expect("a marker")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        names
    }
}

/// Builds a shared object whose constructor, in whatever process loads it, writes a
/// file named after that process (`/proc/self/comm`) into `marks`, a folder of the
/// host no sandbox binds; `None` without a C compiler.
pub fn marking_object(dir: &Path, marks: &Path) -> Option<PathBuf> {
    let source = dir.join("mark.c");
    std::fs::write(
        &source,
        format!(
            r#"#include <stdio.h>
#include <string.h>
#include <unistd.h>
__attribute__((constructor)) static void mark(void) {{
  char comm[64] = "unknown";
  FILE *f = fopen("/proc/self/comm", "r");
  if (f) {{ if (fgets(comm, sizeof comm, f)) comm[strcspn(comm, "\n")] = 0; fclose(f); }}
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.%d", {marks:?}, comm, (int)getpid());
  FILE *m = fopen(path, "w");
  if (m) {{ fputs("loaded\n", m); fclose(m); }}
}}
"#,
            marks = marks.display().to_string()
        ),
    )
    .unwrap();
    let object = dir.join("mark.so");
    let built = std::process::Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&object)
        .arg(&source)
        .output()
        .ok()?;
    assert!(built.status.success(), "{built:?}");
    Some(object)
}

/// Returns an npm tarball as `npm pack` lays one out: `package/package.json` naming
/// `package` at `version`, and `package/index.js` holding `code`.
pub fn npm_tarball(package: &str, version: &str, code: &str) -> Vec<u8> {
    let manifest = format!("{{\"name\": \"{package}\", \"version\": \"{version}\"}}");
    targz(
        "package",
        None,
        &[
            Item::File("package/package.json".into(), manifest.into_bytes()),
            Item::File("package/index.js".into(), code.as_bytes().to_vec()),
        ],
    )
}

/// One npm package version a loopback registry serves: its name (`@scope/name` or
/// `name`), version and tarball.
pub struct NpmTarball {
    pub package: String,
    pub version: String,
    pub bytes: Vec<u8>,
}

/// Serves `tarballs` as an npm registry does under `/npm/` on 127.0.0.1: each
/// package's packument (every version with its tarball URL and sha512 integrity,
/// `latest` the last version given) and the tarballs; `pause` holds the tarball of
/// the version it names back for its time, so that a run can be caught inside a step.
pub fn npm_registry(tarballs: Vec<NpmTarball>, pause: Option<(&str, &str, Duration)>) -> Loopback {
    use base64::Engine as _;
    use sha2::Digest as _;
    let pause = pause.map(|(p, v, d)| (p.to_string(), v.to_string(), d));
    let port = Arc::new(std::sync::OnceLock::<String>::new());
    let base = port.clone();
    let server = Loopback::start(move |request| {
        let url = base.get().cloned().unwrap_or_default();
        let path = request.url.replace("%2f", "/").replace("%2F", "/");
        let Some(path) = path.strip_prefix("/npm/") else {
            return reply(404, "{\"error\":\"not found\"}");
        };
        let of: Vec<&NpmTarball> = tarballs.iter().filter(|t| t.package == path).collect();
        if !of.is_empty() {
            let mut versions = serde_json::Map::new();
            for t in &of {
                let integrity = base64::engine::general_purpose::STANDARD
                    .encode(sha2::Sha512::digest(&t.bytes));
                let short = t.package.rsplit('/').next().unwrap_or_default();
                versions.insert(
                    t.version.clone(),
                    serde_json::json!({"dist": {
                        "tarball": format!("{url}/npm/{}/-/{short}-{}.tgz", t.package, t.version),
                        "integrity": format!("sha512-{integrity}")}}),
                );
            }
            let latest = of.last().map(|t| t.version.clone());
            let body = serde_json::json!({"name": path, "versions": versions,
                                          "dist-tags": {"latest": latest}});
            return reply(200, body.to_string());
        }
        for t in &tarballs {
            let short = t.package.rsplit('/').next().unwrap_or_default();
            if path == format!("{}/-/{short}-{}.tgz", t.package, t.version) {
                if let Some((_, _, pause)) = pause
                    .as_ref()
                    .filter(|(p, v, _)| *p == t.package && *v == t.version)
                {
                    thread::sleep(*pause);
                }
                return reply(200, t.bytes.clone());
            }
        }
        reply(404, "{\"error\":\"not found\"}")
    });
    port.set(server.url()).expect("the port is set once");
    server
}

/// Writes `archive` into the census cache `cache` as the census caches a download
/// of `repo` (`owner/name`) at `commit`: the archive and its `.sha256` beside it.
pub fn cache_archive(cache: &Path, repo: &str, commit: &str, archive: &[u8]) {
    use sha2::Digest as _;
    let at = cache.join(repo);
    std::fs::create_dir_all(&at).expect("making the cache folder");
    std::fs::write(at.join(format!("{commit}.tar.gz")), archive).expect("writing an archive");
    std::fs::write(
        at.join(format!("{commit}.tar.gz.sha256")),
        format!("{:x}\n", sha2::Sha256::digest(archive)),
    )
    .expect("writing an archive's digest");
}
