//! Reads git repositories for `scan`: whether a directory is exactly `HEAD`'s files
//! (the `head` stamp), and the regular files of a commit (`scan --git REV`), without
//! ever running a program that the repository names.
//!
//! This module owns every call to git that `scan` makes and how each is hardened. It
//! does not walk directories or decide what a row is stamped with when git has no
//! answer; that is `scan`'s business. It counts with the matcher it is handed.
//!
//! # Why the git binary and not a library
//!
//! The files scanned come from strangers: an extracted tarball may carry a `.git`
//! whose `config` names commands (`core.fsmonitor`, `filter.*.clean`, ...). Porcelain
//! such as `git status` or `git archive` runs them. Two ways avoid it: a Rust reader
//! of the object store (gitoxide), or the git binary restricted to plumbing that
//! converts nothing. This module takes the second, because:
//!
//! - git is already what `scan` needs, and it already knows every revision spelling
//!   (`v1~2`, `main@{1}`, `:/message`) and every repository layout (worktrees, packs,
//!   alternates, sha256, reftable) as the user's own git does;
//! - `cat-file --batch` streams each blob through a pipe, so memory stays bounded by
//!   the read buffer; a library would hand back each blob whole, as packed deltas are
//!   resolved in memory;
//! - gitoxide (`gix` 0.90 with default features off and `revision`, `sha1` and
//!   `sha256` on) brings 100 crates, 42 of them its own, and needs Rust 1.88, above
//!   this crate's 1.85. Its cost in time is smaller than feared: a debug build of it
//!   alone took 53 s on two shared cores.
//!
//! # What runs, and why none of it runs a configured program
//!
//! Every call goes through [`crate::infra::git`], which starts git in an empty folder of
//! the tool's own and points it with `-C` at the repository `dir` is in, puts
//! `--no-pager -c core.fsmonitor=false -c core.hooksPath=/dev/null -c
//! protocol.allow=never` before the subcommand (command line settings override every
//! configuration file, including those pulled in by `include.path`), sets
//! `GIT_PAGER=cat`, `GIT_TERMINAL_PROMPT=0`, `GIT_OPTIONAL_LOCKS=0`,
//! `GIT_NO_REPLACE_OBJECTS=1`, `GIT_NO_LAZY_FETCH=1` and `GIT_ALLOW_PROTOCOL=none`,
//! drops every other `GIT_*` variable but those naming the user's own configuration
//! (`GIT_DIR`, `GIT_INDEX_FILE`, ... as set inside a hook), and gives git no
//! terminal (stdin and stdout are pipes). The only commands are:
//!
//! - `rev-parse --is-inside-work-tree --show-prefix` and `rev-parse --verify --quiet
//!   --end-of-options REV` (then `ID^{commit}`): read the configuration, refs and
//!   objects. Only a revision spelled `:path` reads the index, and reading it runs
//!   nothing: `core.fsmonitor` is off, and nothing is refreshed or written, so no
//!   clean filter or `post-index-change` hook has cause to run.
//! - `ls-tree -r -z --full-tree COMMIT`: reads tree objects.
//! - `cat-file --batch --buffer`: prints objects as stored; without `--filters` or
//!   `--textconv` it consults no attribute, filter or textconv driver.
//!
//! None of these converts content, so no `filter.*` (`clean`, `smudge`, `process`),
//! `diff.*.textconv` or `diff.external` runs; none is porcelain, so no hook runs and no
//! editor, `gpg.program` or auto-maintenance is started; with no terminal no pager
//! starts, whatever `core.pager` or `pager.*` say. The one path from reading objects to
//! a program is a lazy fetch in a partial clone (a missing object fetched from a
//! promisor remote, which may run `core.sshCommand`, a credential helper or an `ext::`
//! remote's command): `GIT_NO_LAZY_FETCH` forbids it, and for gits older than 2.44 that
//! do not know the variable, `GIT_ALLOW_PROTOCOL` leaves no transport to fetch with. A
//! missing object is then an error, never a fetch. `trace2.*` is read from the system
//! and user configuration only, never the repository's.
//!
//! A directory's files are hashed here, as git hashes a blob (`"blob <len>\0"` and the
//! bytes, SHA-1 with collision detection or SHA-256 as the repository's ids are), never
//! with `git status`, `diff-index` or `hash-object`, which refresh the index through
//! `core.fsmonitor` and clean filters.
//!
//! A repository may also make git wait forever (a fifo for `.git/config`): every call
//! runs through [`crate::infra::process`], in a process group of its own, and is stopped
//! after [`idle`] without output (30 s, or `MCP_HINT_CENSUS_GIT_IDLE` seconds).

use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{self, BufRead, Read};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use rayon::prelude::*;
use sha1_checked::Digest;

use crate::count::sink::{SizeMismatch, TreeSink};
use crate::count::{Matcher, TreeCount, READ_BUF};
use crate::infra::git::{self, Transport};
use crate::infra::messages;
use crate::infra::process::{self, Cause, Failure, Limits};
use crate::infra::sanitize::sanitize;
use crate::table::one_line;
use crate::tools::feed::ToolFeed;
use crate::tools::FoundTools;
use crate::tools::Roles;

/// How long git may go without writing a byte before it is stopped, unless
/// [`IDLE_VAR`] says otherwise.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(30);

/// The environment variable that sets [`idle`] in whole seconds (at least 1): a slow
/// file system may want more, a test of a hung repository less.
pub const IDLE_VAR: &str = "MCP_HINT_CENSUS_GIT_IDLE";

/// Returns how long git may go without writing a byte before it is stopped: the
/// seconds [`IDLE_VAR`] holds, else [`DEFAULT_IDLE`]. A value that is not a whole
/// number of seconds of at least 1 is warned about once and ignored.
pub fn idle() -> Duration {
    static IDLE: OnceLock<Duration> = OnceLock::new();
    *IDLE.get_or_init(|| match std::env::var_os(IDLE_VAR) {
        None => DEFAULT_IDLE,
        Some(value) => parse_idle(&value.to_string_lossy()).unwrap_or_else(|| {
            messages::warning(format!(
                "{IDLE_VAR}='{}' is not a whole number of seconds (1 or more); git may \
                 go {} s without output",
                sanitize(value.as_encoded_bytes()),
                DEFAULT_IDLE.as_secs()
            ));
            DEFAULT_IDLE
        }),
    })
}

/// Returns the duration `text` gives in whole seconds, when it is at least 1.
fn parse_idle(text: &str) -> Option<Duration> {
    match text.trim().parse::<u64>() {
        Ok(secs) if secs >= 1 => Some(Duration::from_secs(secs)),
        _ => None,
    }
}

/// Holds a `HEAD` commit that a directory may be exactly.
#[derive(Clone, Debug)]
pub struct Head {
    /// The full commit id, hex.
    pub id: String,
    /// The directory's path inside the work tree, with a trailing `/`, or empty.
    prefix: Vec<u8>,
}

/// Returns `HEAD` when `dir` is inside a git work tree whose `HEAD` is a commit;
/// `None` otherwise, or when git is not installed or gives no answer.
pub fn head(dir: &Path) -> Option<Head> {
    let place = locate(dir).ok()?;
    if !place.is_work_tree {
        return None;
    }
    let id = resolve(dir, "HEAD").ok()??;
    Some(Head {
        id,
        prefix: place.prefix,
    })
}

/// Returns the path of `dir` inside the git work tree it is in (with a trailing `/`,
/// empty at the top), as git prints it; `None` when it is in none (a bare repository
/// or a `.git` folder is none), or when git is not installed or gives no answer.
pub fn work_tree_prefix(dir: &Path) -> Option<Vec<u8>> {
    let place = locate(dir).ok()?;
    place.is_work_tree.then_some(place.prefix)
}

/// Returns true when `walked`, the paths of the files counted under `dir` (relative
/// to it, in any order), are exactly the regular files that `head` has there, each
/// holding the bytes of its blob.
///
/// A file's mode is not compared: it does not change a count. A file that a filter
/// or a line-ending conversion changed on checkout differs from its blob, so such a
/// tree is not `HEAD`'s as far as counting goes. Any failure reads as a difference.
pub fn is_head_tree(dir: &Path, head: &Head, mut walked: Vec<Vec<u8>>) -> bool {
    let Ok(mut files) = list_files(dir, &head.id, &head.prefix) else {
        return false;
    };
    if files.len() != walked.len() {
        return false;
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    walked.sort();
    if !files.iter().map(|f| &f.path).eq(walked.iter()) {
        return false;
    }
    files.par_iter().all(|file| {
        let path = dir.join(OsStr::from_bytes(&file.path));
        holds_blob(&path, &file.id)
    })
}

/// Counts the regular files of revision `rev` of the repository `dir` is in, as
/// stored: no attribute, filter or line-ending conversion applies. From a folder of
/// a work tree, only that folder of the commit is counted, with paths relative to
/// it. Returns the commit's full id and the unsorted counts, and with `find_tools`
/// the tool definitions its files hold.
pub fn count_revision(
    dir: &Path,
    rev: &str,
    matcher: &Matcher,
    find_tools: Option<Roles>,
) -> Result<(String, TreeCount, Option<FoundTools>)> {
    let place = match locate(dir) {
        Ok(place) => place,
        Err(Failure {
            cause: Cause::Exited { stderr, .. },
            ..
        }) => {
            // git says why when it refuses a repository it found (one owned by
            // another user, an unknown format); "not a git repository" says nothing more.
            let why = one_line(stderr.trim());
            if why.is_empty() || why.contains("not a git repository") {
                bail!("not inside a git work tree or repository (--git needs one)");
            }
            bail!("not inside a git work tree or repository (--git needs one): {why}");
        }
        Err(e) => return Err(e.into()),
    };
    let id = resolve(dir, rev)?.ok_or_else(|| anyhow!("unknown revision '{rev}'"))?;
    let files = list_files(dir, &id, &place.prefix)
        .with_context(|| format!("listing the files of commit '{id}'"))?;
    let mut sink = TreeSink::new(matcher, find_tools);
    count_blobs(dir, &files, &mut sink)
        .with_context(|| format!("reading the files of commit '{id}'"))?;
    let (tree, tools) = sink.finish();
    Ok((id, tree, tools.map(ToolFeed::finish)))
}

/// Holds where a directory is in its repository.
struct Place {
    is_work_tree: bool,
    /// The directory's path inside the work tree, with a trailing `/`, or empty (in a
    /// bare repository or a `.git` folder).
    prefix: Vec<u8>,
}

/// Returns where `dir` is in its repository; [`Cause::Exited`] when it is in none.
fn locate(dir: &Path) -> Result<Place, Failure> {
    let out = run(
        dir,
        &["rev-parse", "--is-inside-work-tree", "--show-prefix"],
        None,
        read_all,
    )?;
    // "true\n<prefix>\n": the prefix is printed as is, so it may hold a newline itself.
    let Some(newline) = memchr::memchr(b'\n', &out) else {
        return Err(Failure::new(
            "git rev-parse",
            Cause::Output("rev-parse printed no line".into()),
        ));
    };
    let rest = &out[newline + 1..];
    Ok(Place {
        is_work_tree: &out[..newline] == b"true",
        prefix: rest.strip_suffix(b"\n").unwrap_or(rest).to_vec(),
    })
}

/// Returns the full id of the commit `rev` names in the repository `dir` is in (a
/// tag is peeled to its commit), or `None` when it names none.
fn resolve(dir: &Path, rev: &str) -> Result<Option<String>, Failure> {
    // Resolved first as given and then peeled, as `REV^{commit}` in one go would
    // read `:/message^{commit}` as a search for "message^{commit}".
    let Some(object) = verify(dir, rev)? else {
        return Ok(None);
    };
    verify(dir, &format!("{object}^{{commit}}"))
}

/// Returns the id of the object `spec` names, or `None` when it names none.
fn verify(dir: &Path, spec: &str) -> Result<Option<String>, Failure> {
    let args = ["rev-parse", "--verify", "--quiet", "--end-of-options", spec];
    match run(dir, &args, None, read_all) {
        Ok(out) => {
            let id = String::from_utf8_lossy(&out).trim().to_ascii_lowercase();
            Ok(is_object_id(&id).then_some(id))
        }
        Err(Failure {
            cause: Cause::Exited { .. },
            ..
        }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Returns true when `id` is a SHA-1 or SHA-256 object id in hex.
fn is_object_id(id: &str) -> bool {
    matches!(id.len(), 40 | 64) && id.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Holds one regular file of a commit.
#[derive(Clone, Debug, PartialEq, Eq)]
struct BlobFile {
    /// The blob's id, lower-case hex.
    id: String,
    /// The path relative to the folder listed, raw bytes.
    path: Vec<u8>,
}

/// Returns the regular files (modes 100644 and 100755) of `commit` under `prefix`,
/// with paths relative to it. Symbolic links (120000) and submodules (160000) are no
/// files.
fn list_files(dir: &Path, commit: &str, prefix: &[u8]) -> Result<Vec<BlobFile>, Failure> {
    // No `-l`: sizes would cost a read of every blob's header, and the size of a
    // blob missing from a partial clone is printed as "BAD".
    let args = ["ls-tree", "-r", "-z", "--full-tree", commit];
    let out = run(dir, &args, None, read_all)?;
    let mut files = Vec::new();
    for record in out.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        let entry = parse_ls_tree(record).ok_or_else(|| {
            Failure::new(
                "git ls-tree",
                Cause::Output(format!(
                    "ls-tree printed '{}'",
                    String::from_utf8_lossy(&record[..record.len().min(200)])
                )),
            )
        })?;
        if let Some(file) = entry {
            if let Some(path) = file.path.strip_prefix(prefix) {
                files.push(BlobFile {
                    path: path.to_vec(),
                    ..file
                });
            }
        }
    }
    Ok(files)
}

/// Parses one `ls-tree -z` record, `<mode> <type> <id>\t<path>`. Returns `Some(None)`
/// for an entry that is no regular file, `None` for a record that does not parse.
fn parse_ls_tree(record: &[u8]) -> Option<Option<BlobFile>> {
    let tab = memchr::memchr(b'\t', record)?;
    let meta = std::str::from_utf8(&record[..tab]).ok()?;
    let path = &record[tab + 1..];
    let mut fields = meta.split_ascii_whitespace();
    let (mode, kind, id) = (fields.next()?, fields.next()?, fields.next()?);
    if fields.next().is_some() || !is_object_id(id) || path.is_empty() {
        return None;
    }
    if !matches!(mode, "100644" | "100755") || kind != "blob" {
        return Some(None);
    }
    Some(Some(BlobFile {
        id: id.to_ascii_lowercase(),
        path: path.to_vec(),
    }))
}

/// Hands `files` to `sink` by streaming their blobs out of one `git cat-file --batch`.
fn count_blobs(dir: &Path, files: &[BlobFile], sink: &mut TreeSink<'_>) -> Result<(), Failure> {
    let mut requests = Vec::with_capacity(files.len() * 65);
    for file in files {
        requests.extend_from_slice(file.id.as_bytes());
        requests.push(b'\n');
    }
    run(
        dir,
        &["cat-file", "--batch", "--buffer"],
        Some(requests),
        |out| read_blobs(out, files, sink),
    )
}

/// Reads the `cat-file --batch` answers to `files`, in order, handing each blob to
/// `sink` as it is read.
fn read_blobs(out: &mut dyn BufRead, files: &[BlobFile], sink: &mut TreeSink<'_>) -> Result<()> {
    let mut line = Vec::new();
    for file in files {
        let name = || String::from_utf8_lossy(&file.path).into_owned();
        line.clear();
        // A header is "<id> blob <size>\n", or "<id> missing\n": far below the limit.
        out.take(256)
            .read_until(b'\n', &mut line)
            .with_context(|| format!("reading '{}'", name()))?;
        let header = String::from_utf8_lossy(&line);
        let header = header.trim_end();
        let size = match header.strip_prefix(file.id.as_str()) {
            Some(" missing") => bail!(
                "'{}' (blob '{}') is not in the repository (a partial clone?)",
                name(),
                file.id
            ),
            Some(rest) => rest
                .strip_prefix(" blob ")
                .and_then(|n| n.parse::<u64>().ok()),
            None => None,
        };
        let Some(size) = size else {
            bail!(
                "'{}': git cat-file answered '{}' for blob '{}'",
                name(),
                one_line(header),
                file.id
            );
        };
        sink.begin_file(&file.path, size);
        sink.read_from(&mut out.take(size))
            .with_context(|| format!("reading '{}'", name()))?;
        // The blob is read to its size at most, so it can only end short. A failure
        // below fails the whole revision, so the file added here is never seen.
        sink.end_file()
            .map_err(|SizeMismatch { announced, read }| {
                anyhow!("'{}' ended after {read} of its {announced} bytes", name())
            })?;
        let mut end = [0u8; 1];
        out.read_exact(&mut end)
            .with_context(|| format!("reading past '{}'", name()))?;
        if end != *b"\n" {
            bail!("'{}': git cat-file wrote more than the blob", name());
        }
    }
    Ok(())
}

/// Returns true when the file at `path` is a regular file holding exactly the bytes
/// of blob `id`: git's object id of its bytes is `id`.
fn holds_blob(path: &Path, id: &str) -> bool {
    let Some(mut hasher) = BlobHasher::for_id(id) else {
        return false;
    };
    // The walk saw a regular file here; one that has since become a fifo would
    // block the open.
    if !fs::symlink_metadata(path).is_ok_and(|meta| meta.is_file()) {
        return false;
    }
    let Ok(file) = File::open(path) else {
        return false;
    };
    // The length goes first into the hash, so it is taken from the open file; a file
    // that grows or shrinks while it is read then hashes to no id of its own.
    let size = match file.metadata() {
        Ok(meta) if meta.is_file() => meta.len(),
        _ => return false,
    };
    hasher.update(format!("blob {size}\0").as_bytes());
    let mut buf = vec![0u8; usize::try_from(size).map_or(READ_BUF, |n| n.clamp(1, READ_BUF))];
    let mut file = file.take(size.saturating_add(1));
    let mut read = 0u64;
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                read += n as u64;
                hasher.update(&buf[..n]);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
    read == size && hasher.finish().is_some_and(|hex| hex == id)
}

/// Hashes bytes as git names an object, with the algorithm an id's length tells.
enum BlobHasher {
    Sha1(Box<sha1_checked::Sha1>),
    Sha256(sha2::Sha256),
}

impl BlobHasher {
    /// Returns the hasher for ids like `id`: 40 hex digits are SHA-1, 64 SHA-256.
    fn for_id(id: &str) -> Option<BlobHasher> {
        match id.len() {
            40 => Some(BlobHasher::Sha1(Box::default())),
            64 => Some(BlobHasher::Sha256(sha2::Sha256::new())),
            _ => None,
        }
    }

    fn update(&mut self, bytes: &[u8]) {
        match self {
            BlobHasher::Sha1(h) => h.update(bytes),
            BlobHasher::Sha256(h) => h.update(bytes),
        }
    }

    /// Returns the id in lower-case hex, or `None` for bytes built to collide under
    /// SHA-1 (as git's own SHA-1 refuses them).
    fn finish(self) -> Option<String> {
        let digest: Vec<u8> = match self {
            BlobHasher::Sha1(h) => {
                let result = h.try_finalize();
                if result.has_collision() {
                    return None;
                }
                result.hash().to_vec()
            }
            BlobHasher::Sha256(h) => h.finalize().to_vec(),
        };
        Some(digest.iter().map(|b| format!("{b:02x}")).collect())
    }
}

/// Returns `git` set up to read the repository `dir` is in and run nothing else
/// (see the module documentation).
fn command(dir: &Path) -> Command {
    git::in_repository(Transport::None, dir)
}

/// Returns everything `out` holds.
fn read_all(out: &mut dyn BufRead) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    out.read_to_end(&mut bytes)
        .context("reading git's output")?;
    Ok(bytes)
}

/// Runs `git ARGS` in `dir`, writing `input` to its stdin, and returns what `read`
/// makes of its stdout. git is stopped, with anything it started, when `read` fails
/// or when it goes [`idle`] without output, and always waited for.
fn run<T>(
    dir: &Path,
    args: &[&str],
    input: Option<Vec<u8>>,
    read: impl FnOnce(&mut dyn BufRead) -> Result<T>,
) -> Result<T, Failure> {
    let mut cmd = command(dir);
    cmd.args(args);
    let name = format!("git {}", args.first().unwrap_or(&""));
    let limits = Limits {
        time: None,
        idle: Some(idle()),
        max_stderr: 4096,
    };
    let finished = process::run(cmd, &limits, input, read)
        .map_err(|e| Failure::new(name.as_str(), Cause::Start(e)))?;
    Failure::of(&name, finished)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_idle_limit_is_whole_seconds_of_at_least_one() {
        assert_eq!(parse_idle("2"), Some(Duration::from_secs(2)));
        assert_eq!(parse_idle(" 90 "), Some(Duration::from_secs(90)));
        for bad in ["0", "", "-1", "1.5", "2s"] {
            assert_eq!(parse_idle(bad), None, "{bad}");
        }
    }

    const EMPTY_SHA1: &str = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
    const HELLO_SHA1: &str = "ce013625030ba8dba906f756967f9e9ca394464a";
    const HELLO_SHA256: &str = "2cf8d83d9ee29543b34a87727421fdecb7e3f3a183d337639025de576db9ebb4";

    fn blob(id: &str, path: &str) -> BlobFile {
        BlobFile {
            id: id.to_string(),
            path: path.as_bytes().to_vec(),
        }
    }

    #[test]
    fn ls_tree_records_keep_regular_files_only() {
        let id = HELLO_SHA1;
        let parse = |record: String| parse_ls_tree(record.as_bytes());
        assert_eq!(
            parse(format!("100644 blob {id}\ta b\tc.txt")),
            Some(Some(blob(id, "a b\tc.txt")))
        );
        assert_eq!(
            parse(format!("100755 blob {}\trun\nme", id.to_uppercase())),
            Some(Some(blob(id, "run\nme")))
        );
        assert_eq!(parse(format!("120000 blob {id}\tlink")), Some(None));
        assert_eq!(parse(format!("160000 commit {id}\tvendor/lib")), Some(None));
        assert_eq!(parse(format!("040000 tree {id}\tsrc")), Some(None));
        assert_eq!(parse(format!("100644 blob {id}")), None);
        assert_eq!(parse(format!("100644 blob {id}\t")), None);
        assert_eq!(parse("100644 blob 123\tshort".into()), None);
        assert_eq!(parse(format!("100644 blob {id} 6\tsized")), None);
    }

    #[test]
    fn files_hash_as_git_hashes_blobs() {
        let tmp = tempfile::tempdir().unwrap();
        let hello = tmp.path().join("hello");
        std::fs::write(&hello, b"hello\n").unwrap();
        let empty = tmp.path().join("empty");
        std::fs::write(&empty, b"").unwrap();
        assert!(holds_blob(&hello, HELLO_SHA1));
        assert!(holds_blob(&hello, HELLO_SHA256));
        assert!(holds_blob(&empty, EMPTY_SHA1));
        assert!(!holds_blob(&empty, HELLO_SHA1));
        assert!(!holds_blob(&hello, &HELLO_SHA1[..39]));
        assert!(!holds_blob(tmp.path(), EMPTY_SHA1));
        assert!(!holds_blob(&tmp.path().join("missing"), EMPTY_SHA1));
    }

    #[test]
    fn object_ids_are_forty_or_sixty_four_hex_digits() {
        assert!(is_object_id(HELLO_SHA1));
        assert!(is_object_id(HELLO_SHA256));
        assert!(!is_object_id(&HELLO_SHA1[1..]));
        assert!(!is_object_id(&format!("{}g", &HELLO_SHA1[1..])));
        assert!(!is_object_id(""));
    }

    /// Returns what `read_blobs` makes of `stream` as the answer to `files`.
    fn read(stream: &[u8], files: &[BlobFile]) -> Result<TreeCount> {
        let matcher = Matcher::new(&["readOnlyHint", "annotations"]).unwrap();
        let mut sink = TreeSink::new(&matcher, None);
        read_blobs(&mut io::Cursor::new(stream), files, &mut sink)?;
        Ok(sink.finish().0)
    }

    #[test]
    fn cat_file_answers_are_counted_blob_by_blob() {
        let files = [blob(HELLO_SHA1, "a.py"), blob(EMPTY_SHA1, "e.txt")];
        // Each blob is followed by a line feed of its own.
        let content = "readOnlyHint\nREADONLYHINT";
        let stream = format!(
            "{HELLO_SHA1} blob {}\n{content}\n{EMPTY_SHA1} blob 0\n\n",
            content.len()
        );
        let tree = read(stream.as_bytes(), &files).unwrap();
        assert_eq!(tree.files_walked, 2);
        assert_eq!(tree.bytes_read, content.len() as u64);
        assert_eq!(tree.counts, [2, 0]);
        assert_eq!(tree.files.len(), 1);
        assert_eq!(tree.files.sorted().unwrap()[0].path, b"a.py");
    }

    #[test]
    fn a_cat_file_answer_that_is_not_the_blob_fails() {
        let files = [blob(HELLO_SHA1, "a.py")];
        let error = |stream: String| format!("{:#}", read(stream.as_bytes(), &files).unwrap_err());
        let missing = error(format!("{HELLO_SHA1} missing\n"));
        assert!(
            missing.contains("'a.py'") && missing.contains("not in the repository"),
            "{missing}"
        );
        let other = error(format!("{EMPTY_SHA1} blob 0\n\n"));
        assert!(other.contains("answered"), "{other}");
        let tree = error(format!("{HELLO_SHA1} tree 6\nhello\n"));
        assert!(tree.contains("answered"), "{tree}");
        let short = error(format!("{HELLO_SHA1} blob 6\nhel"));
        assert!(short.contains("ended after 3 of its 6 bytes"), "{short}");
        let long = error(format!("{HELLO_SHA1} blob 6\nhello\nX"));
        assert!(long.contains("more than the blob"), "{long}");
        let cut = error(format!("{HELLO_SHA1} blob 6\nhello\n"));
        assert!(cut.contains("reading past 'a.py'"), "{cut}");
        let none = error(String::new());
        assert!(none.contains("answered"), "{none}");
    }
}
