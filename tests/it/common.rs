//! Fixtures shared by the integration tests: archives built in code and a naive
//! counter to check the tool against.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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

fn header(kind: EntryType, size: u64) -> Header {
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
        let record = pax("comment", commit);
        let mut h = header(EntryType::XGlobalHeader, record.len() as u64);
        h.set_path("pax_global_header").unwrap();
        h.set_cksum();
        b.append(&h, &record[..]).unwrap();
    }
    let mut h = header(EntryType::Directory, 0);
    h.set_mode(0o755);
    b.append_data(&mut h, format!("{top}/"), &[][..]).unwrap();
    for item in items {
        match item {
            Item::File(p, d) => {
                let mut h = header(EntryType::Regular, d.len() as u64);
                // append_data writes a GNU long-name entry for paths over 100 bytes.
                b.append_data(&mut h, format!("{top}/{p}"), &d[..]).unwrap();
            }
            Item::OldFile(p, d) => {
                let mut h = header(EntryType::Regular, d.len() as u64);
                h.set_path(format!("{top}/{p}")).unwrap();
                h.as_mut_bytes()[156] = 0;
                h.set_cksum();
                b.append(&h, &d[..]).unwrap();
            }
            Item::Contiguous(p, d) => {
                let mut h = header(EntryType::Continuous, d.len() as u64);
                h.set_path(format!("{top}/{p}")).unwrap();
                h.set_cksum();
                b.append(&h, &d[..]).unwrap();
            }
            Item::PaxPath(p, d) => {
                let record = pax("path", &format!("{top}/{p}"));
                let mut x = header(EntryType::XHeader, record.len() as u64);
                x.set_path("PaxHeaders/long").unwrap();
                x.set_cksum();
                b.append(&x, &record[..]).unwrap();
                let mut h = header(EntryType::Regular, d.len() as u64);
                h.set_path(format!("{top}/truncated-name")).unwrap();
                h.set_cksum();
                b.append(&h, &d[..]).unwrap();
            }
            Item::Dir(p) => {
                let mut h = header(EntryType::Directory, 0);
                b.append_data(&mut h, format!("{top}/{p}/"), &[][..])
                    .unwrap();
            }
            Item::Symlink(p, target) => {
                let mut h = header(EntryType::Symlink, 0);
                b.append_link(&mut h, format!("{top}/{p}"), target).unwrap();
            }
            Item::HardLink(p, target) => {
                let mut h = header(EntryType::Link, 0);
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

/// Returns one pax record `"<len> key=value\n"`.
fn pax(key: &str, value: &str) -> Vec<u8> {
    let body = format!(" {key}={value}\n");
    let mut len = body.len() + 1;
    while format!("{len}{body}").len() != len {
        len += 1;
    }
    format!("{len}{body}").into_bytes()
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

/// Runs the binary in `dir` with `args` and no SOURCE_DATE_EPOCH.
pub fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .current_dir(dir)
        .args(args)
        .env_remove("SOURCE_DATE_EPOCH")
        .output()
        .expect("running mcp-hint-census")
}

/// Returns a printable account of a run, for assertion messages.
pub fn show(out: &Output) -> String {
    format!(
        "status: {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
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

/// Runs the binary in `dir` with its stdout a pipe whose reading end is already
/// closed, as `... | head` leaves it; returns the exit status and stderr. Python
/// makes the pipe, so the test does not race the reader's exit.
pub fn run_into_closed_pipe(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let script = "import os, subprocess, sys\n\
                  r, w = os.pipe()\n\
                  os.close(r)\n\
                  p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)\n\
                  sys.stderr.buffer.write(p.stderr)\n\
                  sys.exit(p.returncode if p.returncode >= 0 else 128 - p.returncode)\n";
    let out = Command::new("python3")
        .current_dir(dir)
        .arg("-c")
        .arg(script)
        .arg(bin())
        .args(args)
        .env_remove("SOURCE_DATE_EPOCH")
        .output()
        .expect("running python3");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
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

/// Returns the tools table's rows (after the header) that `specs` registered at
/// `lines` of `path` in the tree `repo,pinned,subfolder` give.
pub fn tools_rows(key: [&str; 3], path: &str, specs: &[ToolSpec], lines: &[u32]) -> String {
    specs
        .iter()
        .zip(lines)
        .map(|(s, line)| {
            format!(
                "{},{},{},{path},{line},typescript,{},{}\n",
                key[0],
                key[1],
                key[2],
                s.name,
                s.hints.join(",")
            )
        })
        .collect()
}

/// The tools table's header.
pub const TOOLS_HEADER: &str = "repo,pinned,subfolder,path,line,sdk,tool,readOnlyHint,destructiveHint,idempotentHint,openWorldHint\n";
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
