//! End-to-end tests of `scan`: directories, archives, stdin and git
//! revisions counted by the built binary, checked against a naive counter (and
//! Python's `bytes.lower().count`) over the files each tree should hold.
//!
//! Every tree, archive and repository is built in code in a fresh temp dir.

use crate::common::{
    assert_code, bin, git, gzip, naive, run_into_closed_pipe, show, stderr, write_tree, Kind, Run,
    TestTree,
};
use std::fs;
use std::io::Write;
use std::os::unix::fs::{symlink, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::thread;
use std::time::Duration;

use serde_json::Value;
use tempfile::TempDir;

/// The default columns: the four hint names, then the control.
const COLUMNS: [&str; 5] = crate::common::TERMS;

/// Content that holds every column at least once, in mixed case.
const HINTED: &[u8] = b"{ annotations: { readOnlyHint: true, DESTRUCTIVEHINT: false, \
idempotentHint: true, openworldhint: false } } // readOnlyHint again";

/// Content with the control and look-alike spellings but no hint name.
const SILENT: &[u8] = b"annotations = ToolAnnotations(read_only_hint=True, ReadOnly = true, \
destructive_hint=False)";

// ---------------------------------------------------------------------------
// Running the binary

/// Returns a `scan ARGS` run in `dir`, with git's user and system configuration
/// kept out and a fixed date; it fails the test after a minute (a walk that follows
/// a symlink loop would never end).
fn scan(dir: &Path, args: &[&str]) -> Run {
    Run::new(dir)
        .arg("scan")
        .args(args)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .limit(Duration::from_secs(60))
}

fn run(dir: &Path, args: &[&str]) -> Output {
    scan(dir, args).output()
}

/// Runs `scan --json --files ARGS` and returns the rows.
fn json_rows(dir: &Path, args: &[&str], code: i32) -> Vec<Value> {
    let mut all = vec!["--json", "--files"];
    all.extend_from_slice(args);
    let out = run(dir, &all);
    assert_code(&out, code);
    let value: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON: {e}\n{}", show(&out)));
    value.as_array().expect("an array of rows").clone()
}

// ---------------------------------------------------------------------------
// The oracle

/// Holds what a row says about a tree, in a form the oracle can produce too.
#[derive(Debug, PartialEq, Eq)]
struct Summary {
    files_walked: u64,
    bytes_read: u64,
    counts: Vec<u64>,
    /// Files with a nonzero count: path (invalid UTF-8 replaced) and counts.
    files: Vec<(String, Vec<u64>)>,
}

/// Returns what the oracle counts in `files`, the (path, content) pairs a tree
/// should be read as.
fn oracle(files: &[(&[u8], &[u8])]) -> Summary {
    let mut sorted: Vec<&(&[u8], &[u8])> = files.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    let mut summary = Summary {
        files_walked: files.len() as u64,
        bytes_read: files.iter().map(|f| f.1.len() as u64).sum(),
        counts: vec![0; COLUMNS.len()],
        files: Vec::new(),
    };
    for (path, content) in sorted {
        let counts: Vec<u64> = COLUMNS.iter().map(|t| naive(content, t)).collect();
        for (total, n) in summary.counts.iter_mut().zip(&counts) {
            *total += n;
        }
        if counts.iter().any(|&n| n > 0) {
            summary
                .files
                .push((String::from_utf8_lossy(path).into_owned(), counts));
        }
    }
    summary
}

fn counts_of(value: &Value) -> Vec<u64> {
    COLUMNS
        .iter()
        .map(|c| {
            value[*c]
                .as_u64()
                .unwrap_or_else(|| panic!("no count for {c} in {value}"))
        })
        .collect()
}

/// Returns the summary of one JSON row (which must be ok).
fn summary(row: &Value) -> Summary {
    assert_eq!(row["status"], "ok", "row is not ok: {row:#}");
    Summary {
        files_walked: row["files_walked"].as_u64().unwrap(),
        bytes_read: row["bytes_read"].as_u64().unwrap(),
        counts: counts_of(&row["counts"]),
        files: row["files"]
            .as_array()
            .expect("--files lists the files")
            .iter()
            .map(|f| {
                (
                    f["path"].as_str().unwrap().to_string(),
                    counts_of(&f["counts"]),
                )
            })
            .collect(),
    }
}

// ---------------------------------------------------------------------------
// Building trees, archives and repositories

fn git_init(dir: &Path) {
    fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q", "-b", "main"]);
}

/// Returns the sha256 of a file, hex, as Python's hashlib computes it.
fn python_sha256(path: &Path) -> String {
    let out = Command::new("python3")
        .args([
            "-c",
            "import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],'rb').read()).hexdigest())",
        ])
        .arg(path)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Returns true when this process runs as root, which reads any file whatever its mode.
fn is_root(dir: &Path) -> bool {
    let probe = dir.join(".owner-probe");
    fs::write(&probe, b"").unwrap();
    let uid = fs::metadata(&probe).unwrap().uid();
    fs::remove_file(&probe).unwrap();
    uid == 0
}

/// Returns the user to run as so that a mode-000 file cannot be read: nobody when
/// the tests run as root, else the current user. Opens `dir` to that user.
fn reader_for(dir: &Path) -> Option<u32> {
    if !is_root(dir) {
        return None;
    }
    let mut path = Some(dir);
    while let Some(p) = path {
        if p.starts_with(std::env::temp_dir()) && p != std::env::temp_dir() {
            fs::set_permissions(p, fs::Permissions::from_mode(0o755)).unwrap();
        }
        path = p.parent();
    }
    Some(65534)
}

// ---------------------------------------------------------------------------
// Directories

#[test]
fn nested_gitignores_negations_and_hidden_files() {
    let tmp = TempDir::new().unwrap();
    let root = tmp.path().join("tree");
    let kept: Vec<(&[u8], &[u8])> = vec![
        (
            b".gitignore",
            b"*.log\n!keep.log\nbuild/\n/top-only.txt\n# readOnlyHint\n",
        ),
        (b"keep.log", HINTED),
        (b"src/lib.rs", HINTED),
        (b"src/.gitignore", b"generated.rs\n!src-keep.txt\n"),
        (b"src/nested/top-only.txt", b"openWorldHint"),
        (b".hidden/config.json", b"{\"idempotentHint\": true}"),
        (b".env", b"DESTRUCTIVEHINT=1"),
        (b"docs/.ignore", b"draft.md\n"),
        (b"docs/guide.md", b"annotations annotations"),
    ];
    let ignored: Vec<(&[u8], &[u8])> = vec![
        (b"debug.log", HINTED),
        (b"sub/trace.log", HINTED),
        (b"build/out.rs", HINTED),
        (b"src/build/out.rs", HINTED),
        (b"top-only.txt", HINTED),
        (b"src/generated.rs", HINTED),
        (b"src/deeper/generated.rs", HINTED),
        (b"docs/draft.md", HINTED),
    ];
    write_tree(&root, &kept);
    write_tree(&root, &ignored);

    let rows = json_rows(tmp.path(), &["tree"], 0);
    assert_eq!(rows.len(), 1);
    let expected = oracle(&kept);
    let got = summary(&rows[0]);
    assert_eq!(
        got, expected,
        "expected (left: got) the oracle over the kept files"
    );
    assert_eq!(rows[0]["commit_source"], "worktree");
    assert_eq!(rows[0]["commit"], "");
}

#[test]
fn git_dir_and_info_exclude_are_honoured_in_a_repository() {
    let tmp = TempDir::new().unwrap();
    let root = tmp.path().join("repo");
    git_init(&root);
    // The repository's own files hold terms too: a walk into .git would count them.
    fs::write(
        root.join(".git/info/exclude"),
        b"secret.txt\n# readOnlyHint\n",
    )
    .unwrap();
    fs::write(root.join(".git/description"), HINTED).unwrap();
    let kept: Vec<(&[u8], &[u8])> = vec![
        (b"server.py", HINTED),
        (b".github/ci.yml", b"openWorldHint"),
    ];
    write_tree(&root, &kept);
    write_tree(
        &root,
        &[(b"secret.txt", HINTED), (b"deep/secret.txt", HINTED)],
    );

    let rows = json_rows(&root, &[], 0);
    assert_eq!(rows[0]["repo"], ".", "no PATH means '.'");
    assert_eq!(summary(&rows[0]), oracle(&kept));
    // Untracked files: no commit describes this tree.
    assert_eq!(rows[0]["commit_source"], "worktree");
}

#[test]
fn symlinks_are_neither_followed_nor_counted() {
    let tmp = TempDir::new().unwrap();
    let root = tmp.path().join("tree");
    let outside = tmp.path().join("outside");
    write_tree(
        &outside,
        &[(b"secret.ts", HINTED), (b"dir/more.ts", HINTED)],
    );
    let kept: Vec<(&[u8], &[u8])> = vec![(b"a/real.ts", b"readOnlyHint"), (b"b.ts", b"")];
    write_tree(&root, &kept);
    symlink(outside.join("secret.ts"), root.join("link-to-file.ts")).unwrap();
    symlink(outside.join("dir"), root.join("link-to-dir")).unwrap();
    symlink(root.join("a/real.ts"), root.join("a/same.ts")).unwrap();
    // Loops: a link to its own folder, and two links to each other.
    symlink(".", root.join("a/loop")).unwrap();
    symlink("../a", root.join("a/up")).unwrap();
    symlink("ping", root.join("pong")).unwrap();
    symlink("pong", root.join("ping")).unwrap();
    symlink("missing", root.join("dangling")).unwrap();

    let rows = json_rows(tmp.path(), &["tree"], 0);
    assert_eq!(summary(&rows[0]), oracle(&kept));

    // A root given as a link to a folder is the folder.
    symlink(&root, tmp.path().join("root-link")).unwrap();
    let rows = json_rows(tmp.path(), &["root-link"], 0);
    assert_eq!(summary(&rows[0]), oracle(&kept));
}

/// Returns a file of `len` bytes of filler with terms placed across every
/// 256 KiB boundary (the read buffer) and across a few 64 KiB ones.
fn large_file(len: usize) -> Vec<u8> {
    let mut data: Vec<u8> = (0..len).map(|i| b"xyz \n"[i % 5]).collect();
    let mut place = |at: usize, term: &[u8]| data[at..at + term.len()].copy_from_slice(term);
    let chunk = 256 * 1024;
    for k in 1..len / chunk {
        // Straddle the boundary by a different amount each time.
        let back = 1 + k % 11;
        place(k * chunk - back, b"readOnlyHint");
        place(k * chunk + 100 - back, b"OPENWORLDHINT");
        place(k * chunk + 1000, b"annotations");
    }
    place(len - 15, b"destructiveHint");
    data
}

#[test]
fn non_utf8_names_empty_files_and_a_large_file() {
    let tmp = TempDir::new().unwrap();
    let root = tmp.path().join("tree");
    let large = large_file(3 * 1024 * 1024 + 333);
    let kept: Vec<(&[u8], &[u8])> = vec![
        // A file's name is not its content: the term in this name does not count.
        (b"caf\xe9-readOnlyHint.txt", b"idempotentHint"),
        (b"dir-\xff\xfe/x.json", b"openWorldHint"),
        (b"empty.rs", b""),
        (b"big/blob.bin", &large),
    ];
    write_tree(&root, &kept);

    let rows = json_rows(tmp.path(), &["tree"], 0);
    let got = summary(&rows[0]);
    assert_eq!(got, oracle(&kept));
    assert!(got.files_walked == 4, "the empty file is walked: {got:?}");

    // A second oracle for the large file: Python over the same bytes.
    let script = format!(
        "import sys; d=open(sys.argv[1],'rb').read().lower(); print(*[d.count(t.lower().encode()) for t in {COLUMNS:?}])"
    );
    let py = Command::new("python3")
        .args(["-c", &script])
        .arg(root.join("big/blob.bin"))
        .output()
        .expect("python3 runs");
    let py: Vec<u64> = String::from_utf8_lossy(&py.stdout)
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect();
    let blob = got
        .files
        .iter()
        .find(|f| f.0 == "big/blob.bin")
        .expect("blob listed");
    assert_eq!(
        blob.1, py,
        "got (left) vs Python (right) for the large file"
    );
    assert_eq!(
        py,
        [11, 1, 0, 11, 11],
        "the large file straddles every boundary"
    );

    // The table lists the non-UTF-8 name with the invalid byte replaced.
    let out = run(tmp.path(), &["--files", "tree"]);
    assert_code(&out, 0);
    let text = String::from_utf8(out.stdout.clone()).expect("the table is UTF-8");
    assert!(
        text.contains("caf\u{fffd}-readOnlyHint.txt"),
        "{}",
        show(&out)
    );
}

#[test]
fn files_and_by_extension_listings() {
    let tmp = TempDir::new().unwrap();
    let files: Vec<(&[u8], &[u8])> = vec![
        (b"src/z.rs", b"readOnlyHint readOnlyHint"),
        (b"src/a.rs", b"destructiveHint"),
        (b"README.md", b"openWorldHint annotations"),
        (b"Makefile", b"idempotentHint"),
        (b"tests/t.rs", b"readOnlyHint"),
        (b"nothing.txt", b"no terms here"),
    ];
    write_tree(tmp.path(), &files);
    let out = run(tmp.path(), &["--files", "--by-extension"]);
    assert_code(&out, 0);
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();

    // Files with a count, sorted by path bytes ('M' < 'R' < 's' < 't').
    let start = lines
        .iter()
        .position(|l| l.starts_with("files with a count in"))
        .unwrap_or_else(|| panic!("no file listing\n{}", show(&out)));
    let listed: Vec<Vec<&str>> = lines[start + 2..start + 7]
        .iter()
        .map(|l| l.split_whitespace().collect())
        .collect();
    let expected: Vec<Vec<&str>> = vec![
        vec!["Makefile", "14", "0", "0", "1", "0", "0"],
        vec!["README.md", "25", "0", "0", "0", "1", "1"],
        vec!["src/a.rs", "15", "0", "1", "0", "0", "0"],
        vec!["src/z.rs", "25", "2", "0", "0", "0", "0"],
        vec!["tests/t.rs", "12", "1", "0", "0", "0", "0"],
    ];
    assert_eq!(listed, expected, "\n{}", show(&out));

    let start = lines
        .iter()
        .position(|l| l.starts_with("counts by extension in"))
        .unwrap_or_else(|| panic!("no extension listing\n{}", show(&out)));
    let grouped: Vec<Vec<&str>> = lines[start + 2..]
        .iter()
        .map(|l| l.split_whitespace().collect())
        .collect();
    let expected: Vec<Vec<&str>> = vec![
        vec!["(none)", "1", "0", "0", "1", "0", "0"],
        vec![".md", "1", "0", "0", "0", "1", "1"],
        vec![".rs", "3", "3", "1", "0", "0", "0"],
    ];
    assert_eq!(grouped, expected, "\n{}", show(&out));

    // The JSON carries the same groups.
    let rows = json_rows(tmp.path(), &["--by-extension"], 0);
    let groups = rows[0]["by_extension"].as_array().unwrap();
    let got: Vec<(Value, Vec<u64>)> = groups
        .iter()
        .map(|g| (g["extension"].clone(), counts_of(&g["counts"])))
        .collect();
    assert_eq!(
        got,
        vec![
            (Value::from("(none)"), vec![0, 0, 1, 0, 0]),
            (Value::from(".md"), vec![0, 0, 0, 1, 1]),
            (Value::from(".rs"), vec![3, 1, 0, 0, 0]),
        ]
    );
}

// ---------------------------------------------------------------------------
// Archives

#[test]
fn an_extracted_archive_reads_as_the_archive() {
    let tmp = TempDir::new().unwrap();
    let large = large_file(600 * 1024);
    let commit = "0123456789abcdef0123456789abcdef01234567";
    let files: Vec<(&[u8], &[u8])> = vec![
        (b".gitignore", b"*.log\ntarget/\n"),
        (b".github/workflows/ci.yml", b"readOnlyHint: openWorldHint"),
        (b"src/server.ts", HINTED),
        (b"src/empty.ts", b""),
        (b"caf\xe9.md", b"annotations"),
        (b"data/large.bin", &large),
        (b"docs/notes.txt", SILENT),
    ];
    let tree = TestTree::pinned("proj-0123456", Some(commit));
    for dir in ["src", ".github/workflows", "data", "docs"] {
        tree.dir(dir);
    }
    tree.symlink("src/link.ts", "server.ts");
    for (path, content) in &files {
        tree.file(path, content);
    }
    let tar = tree.archive(Kind::Tar);
    let targz = gzip(&tar);
    fs::write(tmp.path().join("proj.tar.gz"), &targz).unwrap();
    fs::write(tmp.path().join("proj.tar"), &tar).unwrap();
    fs::create_dir(tmp.path().join("ext")).unwrap();
    // Ignore files above the tree are not the tree's: wherever an archive is
    // extracted, it reads the same.
    fs::write(tmp.path().join(".gitignore"), b"*.md\n").unwrap();
    fs::write(tmp.path().join("ext/.ignore"), b"*.ts\n").unwrap();
    let untar = Command::new("tar")
        .args(["-xzf", "proj.tar.gz", "-C", "ext"])
        .current_dir(tmp.path())
        .output()
        .expect("tar runs");
    assert!(
        untar.status.success(),
        "{}",
        String::from_utf8_lossy(&untar.stderr)
    );

    let out = scan(
        tmp.path(),
        &[
            "--json",
            "--files",
            "proj.tar.gz",
            "ext/proj-0123456",
            "proj.tar",
            "-",
        ],
    )
    .stdin(targz.clone())
    .output();
    assert_code(&out, 0);
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let expected = oracle(&files);
    for row in &rows {
        assert_eq!(summary(row), expected, "row {}", row["repo"]);
    }
    let repos: Vec<&str> = rows.iter().map(|r| r["repo"].as_str().unwrap()).collect();
    assert_eq!(repos, ["proj.tar.gz", "ext/proj-0123456", "proj.tar", "-"]);

    // Archives carry the commit of their pax header and the sha256 of their bytes.
    for (row, file) in [(&rows[0], "proj.tar.gz"), (&rows[2], "proj.tar")] {
        assert_eq!(row["commit"], commit);
        assert_eq!(row["commit_source"], "archive");
        assert_eq!(
            row["archive_sha256"],
            python_sha256(&tmp.path().join(file)).as_str()
        );
    }
    assert_eq!(rows[3]["archive_sha256"], rows[0]["archive_sha256"]);
    assert_eq!(rows[1]["commit_source"], "worktree");
    assert_eq!(rows[1]["archive_sha256"], "");
}

// ---------------------------------------------------------------------------
// Git revisions

#[test]
fn git_revision_counts_the_commit_not_the_work_tree() {
    let tmp = TempDir::new().unwrap();
    let repo = tmp.path().join("repo");
    git_init(&repo);

    // Commit 1.
    let one: Vec<(&[u8], &[u8])> = vec![(b"a.py", b"readOnlyHint"), (b"sub/s.md", b"annotations")];
    write_tree(&repo, &one);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "one"]);
    let id_one = git(&repo, &["rev-parse", "HEAD"]);
    git(&repo, &["tag", "-a", "v1", "-m", "first"]);

    // Commit 2: a tracked file that an ignore rule matches still belongs to the commit.
    let two: Vec<(&[u8], &[u8])> = vec![
        (b"a.py", b"readOnlyHint destructiveHint"),
        (b"sub/s.md", b"annotations"),
        (b"sub/t.rs", b"idempotentHint"),
        (b".gitignore", b"*.gen\n"),
        (b"forced.gen", b"openWorldHint"),
    ];
    write_tree(&repo, &two);
    git(&repo, &["add", "."]);
    git(&repo, &["add", "-f", "forced.gen"]);
    git(&repo, &["commit", "-q", "-m", "two"]);
    let id_two = git(&repo, &["rev-parse", "HEAD"]);

    // Commit 3 removes a file.
    fs::remove_file(repo.join("sub/t.rs")).unwrap();
    git(&repo, &["commit", "-q", "-am", "three"]);
    let three: Vec<(&[u8], &[u8])> = vec![
        (b"a.py", b"readOnlyHint destructiveHint"),
        (b"sub/s.md", b"annotations"),
        (b".gitignore", b"*.gen\n"),
        (b"forced.gen", b"openWorldHint"),
    ];
    let id_three = git(&repo, &["rev-parse", "HEAD"]);

    // A dirty work tree: a change, an untracked file, an ignored one.
    fs::write(repo.join("a.py"), b"readOnlyHint readOnlyHint readOnlyHint").unwrap();
    fs::write(repo.join("untracked.js"), HINTED).unwrap();
    fs::write(repo.join("local.gen"), HINTED).unwrap();

    for (rev, id, files) in [
        ("HEAD", &id_three, &three),
        ("HEAD~1", &id_two, &two),
        ("v1", &id_one, &one),
        (id_two.as_str(), &id_two, &two),
    ] {
        let rows = json_rows(&repo, &["--git", rev], 0);
        assert_eq!(summary(&rows[0]), oracle(files), "--git {rev}");
        assert_eq!(rows[0]["commit"], id.as_str(), "--git {rev}");
        assert_eq!(rows[0]["commit_source"], "archive");
        assert_eq!(rows[0]["pinned"], rev);
    }

    // From a subfolder, or naming it, --git counts that folder of the commit.
    let rows = json_rows(&repo, &["--git", "HEAD~1", "sub"], 0);
    assert_eq!(
        summary(&rows[0]),
        oracle(&[(b"s.md", b"annotations"), (b"t.rs", b"idempotentHint")])
    );

    // The work tree itself: the change and the untracked file count, the ignored
    // file and the force-added one do not; no commit describes it.
    let rows = json_rows(&repo, &[], 0);
    let worktree: Vec<(&[u8], &[u8])> = vec![
        (b"a.py", b"readOnlyHint readOnlyHint readOnlyHint"),
        (b"sub/s.md", b"annotations"),
        (b".gitignore", b"*.gen\n"),
        (b"untracked.js", HINTED),
    ];
    assert_eq!(summary(&rows[0]), oracle(&worktree));
    assert_eq!(rows[0]["commit"], "");
    assert_eq!(rows[0]["commit_source"], "worktree");

    // The CSV stamps the revision's id.
    let out = run(&repo, &["--git", "HEAD~2", "--csv", "out.csv"]);
    assert_code(&out, 0);
    let csv = fs::read_to_string(repo.join("out.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "repo,pinned,subfolder,server,commit,commit_source,files_walked,bytes_read,readOnlyHint,\
         destructiveHint,idempotentHint,openWorldHint,annotations,tools,tools_annotated,tools_unresolved,\
         tool_sites_dynamic,tools_skipped,archive_sha256,probed_on,status,error"
    );
    assert_eq!(
        lines[1],
        format!(".,HEAD~2,,,{id_one},archive,2,23,1,0,0,0,1,0,0,0,0,0,,2023-11-14,ok,"),
        "\n{csv}"
    );
}

#[test]
fn a_zip_and_a_tar_gz_of_a_tree_read_as_its_commit() {
    let files: Vec<(&[u8], &[u8])> = vec![
        (b"server.ts", HINTED),
        (b"src/tools.py", b"readOnlyHint=True openWorldHint"),
        (b"docs/caf\xe9.md", b"annotations"),
        (b"empty.txt", b""),
    ];
    let tree = TestTree::new();
    for (path, content) in &files {
        tree.file(path, content);
    }
    let head = tree.git();
    let tmp = TempDir::new().unwrap();
    fs::write(tmp.path().join("t.tar.gz"), tree.archive(Kind::TarGz)).unwrap();
    fs::write(tmp.path().join("t.zip"), tree.archive(Kind::Zip)).unwrap();
    let rows = json_rows(tmp.path(), &["t.tar.gz", "t.zip"], 0);
    let commit = json_rows(tree.path(), &["--git", "HEAD", "."], 0);
    assert_eq!(commit[0]["commit"], head.as_str(), "{:#}", commit[0]);
    for row in rows.iter().chain(&commit) {
        assert_eq!(summary(row), oracle(&files), "{row:#}");
    }
}

#[test]
fn a_clean_work_tree_is_stamped_with_head() {
    let tmp = TempDir::new().unwrap();
    let repo = tmp.path().join("repo");
    git_init(&repo);
    let files: Vec<(&[u8], &[u8])> =
        vec![(b"server.go", HINTED), (b"pkg/tools.go", b"readOnlyHint")];
    write_tree(&repo, &files);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "one"]);
    let head = git(&repo, &["rev-parse", "HEAD"]);

    let out = run(tmp.path(), &["--csv", "out.csv", "repo", "repo/pkg"]);
    assert_code(&out, 0);
    let csv = fs::read_to_string(tmp.path().join("out.csv")).unwrap();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(
        rows[0][..6],
        ["repo", "", "", "", head.as_str(), "head"],
        "\n{csv}"
    );
    assert_eq!(
        rows[1][..6],
        ["repo/pkg", "", "", "", head.as_str(), "head"],
        "\n{csv}"
    );

    // A tracked file hidden by an ignore rule is in HEAD but not in the walk: the
    // walk is no longer HEAD's tree, so it is not stamped as HEAD.
    fs::write(repo.join(".ignore"), b"server.go\n").unwrap();
    git(&repo, &["add", ".ignore"]);
    git(&repo, &["commit", "-q", "-m", "hide"]);
    let rows = json_rows(&repo, &[], 0);
    assert_eq!(rows[0]["commit_source"], "worktree", "{:#}", rows[0]);
    assert_eq!(rows[0]["commit"], "");
}

// ---------------------------------------------------------------------------
// The gate

#[test]
fn require_hints_gates_a_tree_that_said_nothing() {
    let tmp = TempDir::new().unwrap();
    write_tree(
        &tmp.path().join("hinted"),
        &[(b"a.ts", b"x"), (b"b.ts", b"openWorldHint")],
    );
    write_tree(
        &tmp.path().join("silent"),
        &[(b"a.rs", SILENT), (b"b.cs", b"ReadOnly = true")],
    );
    fs::create_dir(tmp.path().join("empty")).unwrap();

    let out = run(tmp.path(), &["--require-hints", "hinted"]);
    assert_code(&out, 0);
    assert!(out.stderr.is_empty(), "{}", show(&out));

    let out = run(tmp.path(), &["--require-hints", "silent"]);
    assert_code(&out, 3);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("'silent' said nothing"), "{}", show(&out));
    assert!(
        err.contains("read_only_hint") && err.contains("ReadOnly"),
        "{}",
        show(&out)
    );
    // The table is still printed.
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("tree"),
        "{}",
        show(&out)
    );

    // One silent tree among others is enough; an empty tree fails the gate too, and
    // is told apart: it holds no file.
    let out = run(
        tmp.path(),
        &["--require-hints", "hinted", "silent", "empty"],
    );
    assert_code(&out, 3);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("'hinted'"), "{}", show(&out));
    assert!(err.contains("'silent' said nothing"), "{}", show(&out));
    assert!(
        err.contains("mcp-hint-census: 'empty' holds no file, so it spells no hint"),
        "{}",
        show(&out)
    );
    assert!(!err.contains("'empty' said nothing"), "{}", show(&out));
    // Alone, an empty tree gets no hint about spellings: there was nothing to spell.
    let out = run(tmp.path(), &["--require-hints", "empty"]);
    assert_code(&out, 3);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("holds no file"), "{}", show(&out));
    assert!(!err.contains("hint:"), "{}", show(&out));

    // Without the gate a silent tree is no failure.
    assert_code(&run(tmp.path(), &["silent"]), 0);

    // A tree that failed cannot be judged: exit 1 beats the gate.
    let out = run(tmp.path(), &["--require-hints", "silent", "missing"]);
    assert_code(&out, 1);

    // The gate checks the columns that spell a hint among --terms: a hint name, or
    // a spelling the sdk profile declares; none at all is a usage error.
    let out = run(
        tmp.path(),
        &["--require-hints", "--terms", "openWorldHint,foo", "hinted"],
    );
    assert_code(&out, 0);
    let out = run(
        tmp.path(),
        &["--require-hints", "--terms", "readOnlyHint", "hinted"],
    );
    assert_code(&out, 3);
    let out = run(
        tmp.path(),
        &["--require-hints", "--terms", "read_only_hint", "silent"],
    );
    assert_code(&out, 0);
    let out = run(
        tmp.path(),
        &["--require-hints", "--terms", "readonly,foo", "silent"],
    );
    assert_code(&out, 2);
}

#[test]
fn custom_terms_and_bad_terms() {
    let tmp = TempDir::new().unwrap();
    let files: Vec<(&[u8], &[u8])> = vec![(b"a.rs", SILENT)];
    write_tree(tmp.path(), &files);
    let out = run(
        tmp.path(),
        &[
            "--json",
            "--terms",
            "read_only_hint,ReadOnly",
            "--controls",
            "annotations",
        ],
    );
    assert_code(&out, 0);
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let counts = &rows[0]["counts"];
    let expected = [
        ("read_only_hint", naive(SILENT, "read_only_hint")),
        ("ReadOnly", naive(SILENT, "ReadOnly")),
        ("annotations", naive(SILENT, "annotations")),
    ];
    for (term, n) in expected {
        assert_eq!(counts[term].as_u64(), Some(n), "{term} in {counts}");
    }
    // Terms equal under ASCII case folding, or empty: usage errors.
    assert_code(
        &run(tmp.path(), &["--terms", "readOnlyHint,READONLYHINT"]),
        2,
    );
    assert_code(&run(tmp.path(), &["--terms", "a,,b"]), 2);
    assert_code(&run(tmp.path(), &["--controls", "readonlyhint"]), 2);
    assert_code(&run(tmp.path(), &["-", "-"]), 2);
}

// ---------------------------------------------------------------------------
// Errors

/// Asserts that row `i` of `rows` failed with a message containing every one of `parts`.
fn assert_error(rows: &[Value], i: usize, parts: &[&str]) {
    assert_eq!(rows[i]["status"], "error", "row {i}: {:#}", rows[i]);
    let msg = rows[i]["error"].as_str().unwrap();
    for part in parts {
        assert!(msg.contains(part), "row {i}: expected {part:?} in {msg:?}");
    }
    assert_eq!(rows[i]["counts"], Value::Null, "an error row has no counts");
}

#[test]
fn each_failing_path_is_named_and_the_others_still_count() {
    let tmp = TempDir::new().unwrap();
    let good: Vec<(&[u8], &[u8])> = vec![(b"ok.ts", HINTED)];
    write_tree(&tmp.path().join("good"), &good);
    fs::write(
        tmp.path().join("notes.txt"),
        b"readOnlyHint is not an archive",
    )
    .unwrap();
    fs::write(
        tmp.path().join("page.tar.gz"),
        b"<!DOCTYPE html><html>sign in</html>",
    )
    .unwrap();
    let targz = TestTree::pinned("p", None)
        .file("a", HINTED)
        .archive(Kind::TarGz);
    fs::write(tmp.path().join("cut.tar.gz"), &targz[..targz.len() - 20]).unwrap();
    fs::write(tmp.path().join("empty.tar"), b"").unwrap();

    let out = run(
        tmp.path(),
        &[
            "--json",
            "--files",
            "good",
            "missing",
            "notes.txt",
            "page.tar.gz",
            "cut.tar.gz",
            "empty.tar",
            "good",
        ],
    );
    assert_code(&out, 1);
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.len(), 7);
    assert_eq!(summary(&rows[0]), oracle(&good));
    assert_eq!(summary(&rows[6]), oracle(&good));
    assert_error(&rows, 1, &["no such file or directory"]);
    // A file that is no archive (and not named as one) is a tree of one file.
    assert_eq!(rows[2]["status"], "ok", "{:?}", rows[2]);
    assert_eq!(rows[2]["files_walked"], 1);
    assert_eq!(rows[2]["counts"]["readOnlyHint"], 1);
    assert_eq!(rows[2]["files"][0]["path"], "notes.txt");
    assert_error(&rows, 3, &["<!DOCTYPE html>"]);
    assert_error(&rows, 4, &[]);
    assert_error(&rows, 5, &["empty"]);
    // A person reads each failure on stderr, named by its path.
    let err = String::from_utf8_lossy(&out.stderr);
    for name in ["missing", "page.tar.gz", "cut.tar.gz", "empty.tar"] {
        assert!(
            err.contains(&format!("'{name}': ")),
            "{name} not named\n{}",
            show(&out)
        );
    }

    // With a table on stdout too, the error goes to stderr only: a table sent to a
    // file or /dev/null never hides why a path failed.
    let out = run(tmp.path(), &["missing", "good"]);
    assert_code(&out, 1);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("mcp-hint-census: 'missing': no such file or directory"),
        "{}",
        show(&out)
    );
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("no such file"),
        "{}",
        show(&out)
    );
}

#[test]
fn unreadable_files_fail_their_tree() {
    let tmp = TempDir::new().unwrap();
    let user = reader_for(tmp.path());
    let good: Vec<(&[u8], &[u8])> = vec![(b"ok.ts", HINTED)];
    write_tree(&tmp.path().join("good"), &good);
    write_tree(
        &tmp.path().join("tree"),
        &[(b"ok.ts", HINTED), (b"src/locked.ts", HINTED)],
    );
    let locked = tmp.path().join("tree/src/locked.ts");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    let archive = tmp.path().join("locked.tar");
    let tar = TestTree::pinned("p", None)
        .file("a", HINTED)
        .archive(Kind::Tar);
    fs::write(&archive, tar).unwrap();
    fs::set_permissions(&archive, fs::Permissions::from_mode(0o000)).unwrap();
    write_tree(&tmp.path().join("tree2/closed"), &[(b"x.ts", HINTED)]);
    fs::set_permissions(
        tmp.path().join("tree2/closed"),
        fs::Permissions::from_mode(0o000),
    )
    .unwrap();

    let mut locked = scan(
        tmp.path(),
        &["--json", "--files", "tree", "locked.tar", "tree2", "good"],
    );
    if let Some(id) = user {
        locked = locked.user(id);
    }
    let out = locked.output();
    assert_code(&out, 1);
    let rows: Vec<Value> =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{}", show(&out)));
    assert_error(&rows, 0, &["tree/src/locked.ts", "ermission denied"]);
    assert_error(&rows, 1, &["permission denied"]);
    assert_error(&rows, 2, &["tree2/closed", "ermission denied"]);
    assert_eq!(summary(&rows[3]), oracle(&good));
}

#[test]
fn git_errors_name_the_path_and_the_revision() {
    let tmp = TempDir::new().unwrap();
    let repo = tmp.path().join("repo");
    git_init(&repo);
    write_tree(&repo, &[(b"a.ts", HINTED)]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "one"]);
    let plain = tmp.path().join("plain");
    write_tree(&plain, &[(b"a.ts", HINTED)]);
    let empty_repo = tmp.path().join("unborn");
    git_init(&empty_repo);
    fs::write(tmp.path().join("file.tar"), b"").unwrap();

    let rows = json_rows(
        tmp.path(),
        &[
            "--git", "HEAD", "plain", "repo", "nowhere", "file.tar", "unborn",
        ],
        1,
    );
    assert_error(&rows, 0, &["not inside a git work tree"]);
    assert_eq!(summary(&rows[1]), oracle(&[(b"a.ts", HINTED)]));
    assert_error(&rows, 2, &["no such file or directory"]);
    assert_error(&rows, 3, &["not a directory"]);
    assert_error(&rows, 4, &["unknown revision 'HEAD'"]);

    let rows = json_rows(tmp.path(), &["--git", "no-such-branch", "repo"], 1);
    assert_error(&rows, 0, &["unknown revision 'no-such-branch'"]);
    // A tree id is no commit.
    let tree = git(&repo, &["rev-parse", "HEAD^{tree}"]);
    let rows = json_rows(tmp.path(), &["--git", &tree, "repo"], 1);
    assert_error(&rows, 0, &["unknown revision"]);

    let out = run(tmp.path(), &["--git", "--upload-pack=x", "repo"]);
    assert_code(&out, 2);
    let out = scan(tmp.path(), &["--git", "HEAD", "-"])
        .stdin(Vec::new())
        .output();
    assert_code(&out, 1);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not an archive on stdin"),
        "{}",
        show(&out)
    );
}

#[test]
fn the_path_given_is_the_row_name() {
    // A check on the helper paths above: rows keep the order and spelling given.
    let tmp = TempDir::new().unwrap();
    write_tree(
        tmp.path(),
        &[(b"a/x.ts", b"readOnlyHint"), (b"b/y.ts", b"")],
    );
    let rows = json_rows(tmp.path(), &["b", "./a", "a/"], 0);
    let repos: Vec<&str> = rows.iter().map(|r| r["repo"].as_str().unwrap()).collect();
    assert_eq!(repos, ["b", "./a", "a/"]);
    let a: PathBuf = tmp.path().join("a");
    assert!(a.is_dir());
    assert_eq!(summary(&rows[1]), summary(&rows[2]));
    assert_eq!(summary(&rows[1]).counts, vec![1, 0, 0, 0, 0]);
}

/// A reader that went away (`scan ... | head`) is no failure: exit 0, no noise.
#[test]
fn a_closed_stdout_ends_scan_quietly() {
    let tmp = TempDir::new().unwrap();
    fs::create_dir_all(tmp.path().join("tree")).unwrap();
    fs::write(tmp.path().join("tree/a.ts"), HINTED).unwrap();
    for args in [
        &["scan", "tree"][..],
        &["scan", "--json", "--files", "tree"][..],
    ] {
        let out = run_into_closed_pipe(tmp.path(), args, &[]);
        let (code, stderr) = (out.status.code(), stderr(&out));
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
}

/// A regular file that is no archive (and not named as one) is a tree of one file,
/// however short: `scan path/to/server.ts` counts that file.
#[test]
fn a_single_source_file_is_a_tree_of_one_file() {
    let tmp = TempDir::new().unwrap();
    let big = large_file(700 * 1024);
    let files: Vec<(&[u8], &[u8])> = vec![
        (b"server.ts", HINTED),
        (b"x.ts", b"r"),
        (b"empty.ts", b""),
        (b"big.txt", &big),
    ];
    write_tree(tmp.path(), &files);
    let names: Vec<&str> = files
        .iter()
        .map(|(n, _)| std::str::from_utf8(n).unwrap())
        .collect();
    let rows = json_rows(tmp.path(), &names, 0);
    for (row, file) in rows.iter().zip(&files) {
        assert_eq!(summary(row), oracle(&[*file]), "{row:#}");
        assert_eq!(row["commit_source"], "worktree");
    }
}

/// A tree with very many matching files under long names holds them in bounded
/// memory: 20,000 hits with 8 KiB names (160 MiB of paths) are counted in a small
/// fraction of that.
#[test]
fn many_long_named_hits_stay_in_bounded_memory() {
    let tmp = TempDir::new().unwrap();
    let script = r#"
import gzip, io, sys, tarfile
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
    for i in range(20000):
        name = "top/" + ("d" * 200 + "/") * 40 + "f%06d" % (19999 - i)
        data = b"readOnlyHint"
        info = tarfile.TarInfo(name)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
open(sys.argv[2], "wb").write(gzip.compress(buf.getvalue(), 1))
"#;
    // A second, small Python runs the scan, so that the peak it reports is the
    // scan's and not the generator's (a fork starts with its parent's memory).
    let measure = r#"
import resource, subprocess, sys
out = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
print(out.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"#;
    let archive = tmp.path().join("many.tar.gz");
    let csv = tmp.path().join("out.csv");
    let made = Command::new("python3")
        .args(["-c", script, "-"])
        .arg(&archive)
        .output()
        .expect("running python3");
    assert!(made.status.success(), "{}", show(&made));
    let out = Command::new("python3")
        .args(["-c", measure])
        .arg(bin())
        .args(["scan", "--csv"])
        .arg(&csv)
        .arg(&archive)
        .output()
        .expect("running python3");
    assert!(out.status.success(), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let (code, peak_kib) = text.trim().split_once(' ').unwrap();
    assert_eq!(code, "0", "{}", show(&out));
    let peak_kib: u64 = peak_kib.parse().unwrap();
    let table = fs::read_to_string(&csv).unwrap();
    let row: Vec<&str> = table.lines().nth(1).unwrap().split(',').collect();
    // files_walked and readOnlyHint, after repo, pinned, subfolder, server,
    // commit and commit_source.
    assert_eq!((row[6], row[8]), ("20000", "20000"), "{table}");
    assert!(
        peak_kib < 64 * 1024,
        "peak RSS {peak_kib} KiB for 160 MiB of names"
    );
}

/// A file that grows while it is read is an error for its tree, found at once: the
/// walk reads at most the size the file had when it was opened.
#[test]
fn a_file_growing_while_read_fails_its_tree() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let tmp = TempDir::new().unwrap();
    let tree = tmp.path().join("tree");
    fs::create_dir_all(&tree).unwrap();
    let path = tree.join("grow.log");
    let stop = Arc::new(AtomicBool::new(false));
    let (writer_path, writer_stop) = (path.clone(), stop.clone());
    let writer = thread::spawn(move || {
        let mut file = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(writer_path)
            .unwrap();
        let chunk = vec![b'x'; 1 << 20];
        let started = std::time::Instant::now();
        while !writer_stop.load(Ordering::Relaxed) && started.elapsed().as_secs() < 20 {
            file.write_all(&chunk).unwrap();
            // About 250 MiB a second at most: always growing, never filling the disk.
            thread::sleep(std::time::Duration::from_millis(4));
        }
    });
    while fs::metadata(&path).map_or(0, |m| m.len()) < 64 << 20 {
        thread::sleep(std::time::Duration::from_millis(10));
    }
    let started = std::time::Instant::now();
    let out = run(tmp.path(), &["tree"]);
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    assert_code(&out, 1);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("changed while it was read"),
        "{}",
        show(&out)
    );
    assert!(
        started.elapsed().as_secs() < 15,
        "took {:?}",
        started.elapsed()
    );
}
