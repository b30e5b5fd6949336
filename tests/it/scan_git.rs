//! End-to-end tests of `scan` reading git repositories: no program that a
//! repository's configuration names ever runs, the `head` stamp holds only for a
//! directory that is byte for byte `HEAD`'s files, and `--git` counts a commit's
//! blobs as stored, in work trees and bare repositories alike.
//!
//! Every repository is built in code with the git binary in a fresh temp dir, with
//! the user's and the system's git configuration replaced by an empty file. Each
//! attack is armed once the repository is built, and proven live after the scans:
//! the git command it aims at (`git status`, `git archive`, ...) does create its
//! marker, so a scan that created none was shown an armed repository. Counts are
//! checked against a naive counter over the bytes the test wrote.

use std::fs::{self, File};
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant, SystemTime};

use crate::common::{naive, show, Git, Run};
use serde_json::Value;

/// The default columns: the four hint names, then the control.
const COLUMNS: [&str; 5] = crate::common::TERMS;

/// Content that holds every column at least once, in mixed case.
const HINTED: &[u8] = b"{ annotations: { readOnlyHint: true, DESTRUCTIVEHINT: false, \
idempotentHint: true, openworldhint: false } } // readOnlyHint again\n";

/// The files every attacked repository commits (beside its `.gitattributes`).
const FILES: [(&str, &[u8]); 4] = [
    ("a.py", b"readOnlyHint = True  # annotations\n"),
    (
        "docs/guide.md",
        b"# Annotations\nopenWorldHint, idempotentHint\n",
    ),
    ("src/server.ts", HINTED),
    ("src/empty.txt", b""),
];

// ---------------------------------------------------------------------------
// The lab: a temp dir, an empty git configuration and a folder of markers

struct Lab {
    git: Git,
    /// Where armed commands leave their markers.
    markers: PathBuf,
}

impl Lab {
    fn new() -> Lab {
        let git = Git::new();
        let markers = git.path().join("markers");
        Lab { git, markers }
    }

    fn root(&self) -> &Path {
        self.git.path()
    }

    fn path(&self, name: &str) -> PathBuf {
        self.root().join(name)
    }

    /// Puts git's configuration and environment under the test's control, as a
    /// person's would be: the empty file is the user's and the system's
    /// configuration, and git may use any transport it would.
    fn isolate<'a>(&self, cmd: &'a mut Command) -> &'a mut Command {
        self.git
            .env(cmd)
            .env("GIT_CONFIG_SYSTEM", self.git.config())
            .env_remove("GIT_CONFIG_NOSYSTEM")
            .env_remove("GIT_ALLOW_PROTOCOL")
    }

    /// Runs git as the test's own tool; fails the test when git fails. Returns its
    /// trimmed stdout.
    fn git(&self, dir: &Path, args: &[&str]) -> String {
        self.git.git(dir, args)
    }

    /// Runs git as a person would, to show that an armed repository runs its
    /// commands; whether git succeeds does not matter.
    fn person(&self, dir: &Path, args: &[&str]) {
        self.isolate(&mut Command::new("git"))
            .arg("-C")
            .arg(dir)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("git runs");
    }

    /// Returns a shell command that creates marker `name`, then runs `then`.
    fn marker(&self, name: &str, then: &str) -> String {
        format!("{}; {then}", self.git.marker(name))
    }

    /// Returns the names of the markers created so far, sorted.
    fn markers(&self) -> Vec<String> {
        self.git.markers()
    }

    /// Returns a `scan ARGS` run in the lab's folder; it fails the test after two
    /// minutes.
    fn scan(&self, args: &[&str]) -> Run {
        let mut run = Run::new(self.root())
            .arg("scan")
            .args(args)
            .limit(Duration::from_secs(120));
        self.isolate(run.command())
            .env("SOURCE_DATE_EPOCH", "1700000000");
        run
    }

    /// Runs `scan ARGS` in the lab's folder, with `env` added, and returns its output.
    fn scan_with(&self, args: &[&str], env: &[(&str, &Path)]) -> Output {
        let mut run = self.scan(args);
        for (name, value) in env {
            run = run.env(name, value);
        }
        run.output()
    }

    /// Runs `scan --json --files ARGS`, checks the exit code and returns the rows.
    fn rows(&self, args: &[&str], code: i32) -> Vec<Value> {
        self.rows_with(args, &[], code)
    }

    fn rows_with(&self, args: &[&str], env: &[(&str, &Path)], code: i32) -> Vec<Value> {
        let mut all = vec!["--json", "--files"];
        all.extend_from_slice(args);
        let out = self.scan_with(&all, env);
        assert_eq!(
            out.status.code(),
            Some(code),
            "scan {args:?}\n{}",
            show(&out)
        );
        let value: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON: {e}\n{}", show(&out)));
        value.as_array().expect("an array of rows").clone()
    }

    /// Fails the test when any marker exists, naming them.
    fn assert_no_marker(&self, when: &str) {
        assert_eq!(
            self.markers(),
            Vec::<String>::new(),
            "{when}: an armed command ran"
        );
    }
}

// ---------------------------------------------------------------------------
// The oracle

/// Holds what a row says about a tree, or what the oracle says it should.
#[derive(Debug, PartialEq, Eq)]
struct Summary {
    files: u64,
    bytes: u64,
    counts: Vec<u64>,
    /// Path, size and counts of each file with a nonzero count, sorted by path.
    hits: Vec<(String, u64, Vec<u64>)>,
}

/// Returns what the naive counter finds in `files`, (path, content) pairs.
fn oracle<P: AsRef<str>>(files: &[(P, &[u8])]) -> Summary {
    let mut summary = Summary {
        files: files.len() as u64,
        bytes: files.iter().map(|f| f.1.len() as u64).sum(),
        counts: vec![0; COLUMNS.len()],
        hits: Vec::new(),
    };
    for (path, content) in files {
        let counts: Vec<u64> = COLUMNS.iter().map(|t| naive(content, t)).collect();
        for (total, n) in summary.counts.iter_mut().zip(&counts) {
            *total += n;
        }
        if counts.iter().any(|&n| n > 0) {
            summary
                .hits
                .push((path.as_ref().to_string(), content.len() as u64, counts));
        }
    }
    summary.hits.sort();
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

/// Returns the summary of one JSON row, which must be ok.
fn summary(row: &Value) -> Summary {
    assert_eq!(row["status"], "ok", "row is not ok: {row:#}");
    Summary {
        files: row["files_walked"].as_u64().unwrap(),
        bytes: row["bytes_read"].as_u64().unwrap(),
        counts: counts_of(&row["counts"]),
        hits: row["files"]
            .as_array()
            .expect("--files lists the files")
            .iter()
            .map(|f| {
                (
                    f["path"].as_str().unwrap().to_string(),
                    f["bytes"].as_u64().unwrap(),
                    counts_of(&f["counts"]),
                )
            })
            .collect(),
    }
}

/// Asserts that `row` is stamped `source` with `commit`.
fn assert_stamp(row: &Value, source: &str, commit: &str) {
    assert_eq!(row["commit_source"], source, "{row:#}");
    assert_eq!(row["commit"], commit, "{row:#}");
}

// ---------------------------------------------------------------------------
// Building repositories

/// Writes `files` under `root`, making folders as needed.
fn write_files<P: AsRef<str>>(root: &Path, files: &[(P, &[u8])]) {
    for (path, content) in files {
        let path = root.join(path.as_ref());
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, content).unwrap();
    }
}

/// Makes a repository at `dir` holding `files` in one commit; returns its id.
fn repo_with<P: AsRef<str>>(lab: &Lab, dir: &Path, files: &[(P, &[u8])]) -> String {
    fs::create_dir_all(dir).unwrap();
    lab.git(dir, &["init", "-q", "-b", "main"]);
    write_files(dir, files);
    lab.git(dir, &["add", "-A"]);
    lab.git(dir, &["commit", "-q", "-m", "one"]);
    lab.git(dir, &["rev-parse", "HEAD"])
}

/// Appends `text` to the repository's own configuration.
fn arm(git_dir: &Path, text: &str) {
    let path = git_dir.join("config");
    let mut config = fs::read_to_string(&path).unwrap();
    config.push_str(text);
    fs::write(&path, config).unwrap();
}

/// Sets every file's modification time ahead, so that git sees each as possibly
/// changed and refreshes it (through the clean filter) on `git status`.
fn touch_all(dir: &Path, files: &[(&str, &[u8])]) {
    let later = SystemTime::now() + Duration::from_secs(120);
    for (path, _) in files {
        File::options()
            .write(true)
            .open(dir.join(path))
            .unwrap()
            .set_modified(later)
            .unwrap();
    }
}

/// Returns the files of `FILES` plus a `.gitattributes` holding `attributes`.
fn attacked_files(attributes: &str) -> Vec<(&str, &[u8])> {
    let mut files: Vec<(&str, &[u8])> = FILES.to_vec();
    if !attributes.is_empty() {
        files.push((".gitattributes", attributes.as_bytes()));
    }
    files
}

/// Returns the files of `files` under `folder/`, with paths relative to it.
fn under<'f>(files: &[(&'f str, &'f [u8])], folder: &str) -> Vec<(&'f str, &'f [u8])> {
    files
        .iter()
        .filter_map(|(p, c)| {
            p.strip_prefix(folder)
                .and_then(|p| p.strip_prefix('/'))
                .map(|p| (p, *c))
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Attacks through the repository's configuration

/// Builds a repository of `FILES` (with `attributes` committed as `.gitattributes`),
/// arms it with `config`, and checks that every kind of scan counts right and runs
/// nothing; then runs `live` and checks that it leaves each of `expected`.
fn check_attack(
    lab: &Lab,
    attributes: &str,
    config: &str,
    live: impl FnOnce(&Lab, &Path),
    expected: &[&str],
) {
    let repo = lab.path("repo");
    let files = attacked_files(attributes);
    let head = repo_with(lab, &repo, &files);
    arm(&repo.join(".git"), config);

    let rows = lab.rows(&["repo", "repo/src"], 0);
    assert_eq!(summary(&rows[0]), oracle(&files));
    assert_stamp(&rows[0], "head", &head);
    assert_eq!(summary(&rows[1]), oracle(&under(&files, "src")));
    assert_stamp(&rows[1], "head", &head);
    lab.assert_no_marker("scan DIR");

    // Files git sees as possibly changed are what `git status` refreshes through
    // the clean filter; the bytes did not change, so the stamp holds.
    touch_all(&repo, &files);
    let rows = lab.rows(&["repo"], 0);
    assert_eq!(summary(&rows[0]), oracle(&files));
    assert_stamp(&rows[0], "head", &head);
    lab.assert_no_marker("scan DIR after touching the files");

    let rows = lab.rows(&["--git", "HEAD", "repo", "repo/src"], 0);
    assert_eq!(summary(&rows[0]), oracle(&files));
    assert_stamp(&rows[0], "archive", &head);
    assert_eq!(summary(&rows[1]), oracle(&under(&files, "src")));
    assert_stamp(&rows[1], "archive", &head);
    lab.assert_no_marker("scan --git HEAD");

    live(lab, &repo);
    let markers = lab.markers();
    for name in expected {
        assert!(
            markers.iter().any(|m| m == name),
            "the attack is not live: git left {markers:?}, not '{name}'"
        );
    }
}

#[test]
fn core_fsmonitor_never_runs() {
    let lab = Lab::new();
    let config = format!(
        "[core]\n\tfsmonitor = \"{}\"\n",
        lab.marker("fsmonitor", ":")
    );
    check_attack(
        &lab,
        "",
        &config,
        |lab, repo| lab.person(repo, &["status"]),
        &["fsmonitor"],
    );
}

#[test]
fn an_included_configuration_file_is_no_way_in() {
    let lab = Lab::new();
    let included = lab.path("included.gitconfig");
    fs::write(
        &included,
        format!(
            "[core]\n\tfsmonitor = \"{}\"\n",
            lab.marker("included-fsmonitor", ":")
        ),
    )
    .unwrap();
    let config = format!(
        "[include]\n\tpath = {}\n[includeIf \"gitdir:/\"]\n\tpath = {}\n",
        included.display(),
        included.display()
    );
    check_attack(
        &lab,
        "",
        &config,
        |lab, repo| lab.person(repo, &["status"]),
        &["included-fsmonitor"],
    );
}

#[test]
fn clean_and_smudge_filters_never_run() {
    let lab = Lab::new();
    let config = format!(
        "[filter \"evil\"]\n\tclean = \"{}\"\n\tsmudge = \"{}\"\n\trequired = true\n",
        lab.marker("clean", "cat"),
        lab.marker("smudge", "cat")
    );
    check_attack(
        &lab,
        "* filter=evil\n",
        &config,
        |lab, repo| {
            lab.person(repo, &["archive", "HEAD"]);
            touch_all(repo, &[("a.py", b"")]);
            lab.person(repo, &["status"]);
        },
        &["clean", "smudge"],
    );
}

#[test]
fn a_process_filter_never_runs() {
    let lab = Lab::new();
    let config = format!(
        "[filter \"proc\"]\n\tprocess = \"{}\"\n",
        lab.marker("process", "exit 1")
    );
    check_attack(
        &lab,
        "* filter=proc\n",
        &config,
        |lab, repo| lab.person(repo, &["archive", "HEAD"]),
        &["process"],
    );
}

#[test]
fn textconv_and_an_external_diff_never_run() {
    let lab = Lab::new();
    let config = format!(
        "[diff \"x\"]\n\ttextconv = \"{}\"\n[diff]\n\texternal = \"{}\"\n",
        lab.marker("textconv", "cat"),
        lab.marker("external", ":")
    );
    check_attack(
        &lab,
        "*.py diff=x\n",
        &config,
        |lab, repo| {
            lab.person(repo, &["show", "HEAD"]);
            fs::write(repo.join("docs/guide.md"), b"changed").unwrap();
            lab.person(repo, &["diff"]);
        },
        &["textconv", "external"],
    );
}

#[test]
fn a_pager_is_never_started() {
    let lab = Lab::new();
    let pager = lab.marker("pager", "cat");
    let config = format!(
        "[core]\n\tpager = \"{pager}\"\n[pager]\n\tstatus = true\n\tlog = true\n\
         \tls-tree = true\n\tcat-file = true\n\trev-parse = true\n"
    );
    check_attack(
        &lab,
        "",
        &config,
        |lab, repo| {
            // Without a terminal git starts no pager at all; `git var` shows the one
            // it would start on a terminal.
            assert_eq!(lab.git(repo, &["var", "GIT_PAGER"]), pager);
        },
        &[],
    );
}

#[test]
fn hooks_never_run() {
    let lab = Lab::new();
    let hooks = lab.path("hooks");
    fs::create_dir(&hooks).unwrap();
    let names = [
        "pre-commit",
        "prepare-commit-msg",
        "commit-msg",
        "post-commit",
        "post-checkout",
        "post-merge",
        "post-rewrite",
        "pre-auto-gc",
        "reference-transaction",
        "post-index-change",
        "fsmonitor-watchman",
    ];
    let install = |dir: &Path| {
        for name in names {
            let path = dir.join(name);
            fs::write(
                &path,
                format!(
                    "#!/bin/sh\ntouch '{}'\n",
                    lab.markers.join(format!("hook-{name}")).display()
                ),
            )
            .unwrap();
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        }
    };
    install(&hooks);
    let config = format!("[core]\n\thooksPath = {}\n", hooks.display());
    check_attack(
        &lab,
        "",
        &config,
        |lab, repo| {
            lab.person(repo, &["commit", "-q", "--allow-empty", "-m", "two"]);
            lab.person(repo, &["checkout", "-q", "-b", "other"]);
        },
        &["hook-pre-commit", "hook-post-commit", "hook-post-checkout"],
    );
}

#[test]
fn the_default_hooks_folder_never_runs() {
    let lab = Lab::new();
    let repo = lab.path("repo");
    repo_with(&lab, &repo, &FILES);
    for name in [
        "post-checkout",
        "reference-transaction",
        "post-index-change",
    ] {
        let path = repo.join(".git/hooks").join(name);
        fs::write(
            &path,
            format!(
                "#!/bin/sh\ntouch '{}'\n",
                lab.markers.join(format!("hook-{name}")).display()
            ),
        )
        .unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    }
    assert_eq!(summary(&lab.rows(&["repo"], 0)[0]), oracle(&FILES));
    assert_eq!(
        summary(&lab.rows(&["--git", "HEAD", "repo"], 0)[0]),
        oracle(&FILES)
    );
    lab.assert_no_marker("scan");
    lab.person(&repo, &["checkout", "-q", "-b", "other"]);
    assert!(lab.markers().contains(&"hook-post-checkout".to_string()));
}

#[test]
fn a_signature_is_never_verified() {
    let lab = Lab::new();
    let repo = lab.path("repo");
    repo_with(&lab, &repo, &FILES);
    // A commit carrying a signature, which `git log` hands to gpg.program to verify
    // when log.showSignature is on.
    let tree = lab.git(&repo, &["rev-parse", "HEAD^{tree}"]);
    let parent = lab.git(&repo, &["rev-parse", "HEAD"]);
    let object = format!(
        "tree {tree}\nparent {parent}\nauthor T <t@example.com> 1700000000 +0000\n\
         committer T <t@example.com> 1700000000 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n \
         iQEzBAABCAAdFiEEAAAA\n -----END PGP SIGNATURE-----\n\nsigned\n"
    );
    let object_path = lab.path("commit.txt");
    fs::write(&object_path, object).unwrap();
    let signed = lab.git(
        &repo,
        &[
            "hash-object",
            "-t",
            "commit",
            "-w",
            object_path.to_str().unwrap(),
        ],
    );
    lab.git(&repo, &["update-ref", "HEAD", &signed]);
    // gpg.program is run as a program, not through the shell.
    let gpg = lab.path("gpg.sh");
    fs::write(
        &gpg,
        format!("#!/bin/sh\n{}\n", lab.marker("gpg", "exit 1")),
    )
    .unwrap();
    fs::set_permissions(&gpg, fs::Permissions::from_mode(0o755)).unwrap();
    arm(
        &repo.join(".git"),
        &format!(
            "[log]\n\tshowSignature = true\n[gpg]\n\tprogram = {}\n",
            gpg.display()
        ),
    );
    let rows = lab.rows(&["repo", "--git", "HEAD"], 0);
    assert_eq!(summary(&rows[0]), oracle(&FILES));
    assert_stamp(&rows[0], "archive", &signed);
    let rows = lab.rows(&["repo"], 0);
    assert_stamp(&rows[0], "head", &signed);
    lab.assert_no_marker("scan");
    lab.person(&repo, &["log", "-1"]);
    assert_eq!(lab.markers(), ["gpg"]);
}

#[test]
fn a_missing_object_is_never_fetched() {
    let lab = Lab::new();
    let repo = lab.path("repo");
    let head = repo_with(&lab, &repo, &FILES);
    // A partial clone whose promisor remote runs a command when a missing object is
    // fetched: the blob of a.py is taken out of the object store.
    let blob = lab.git(&repo, &["rev-parse", "HEAD:a.py"]);
    fs::remove_file(repo.join(".git/objects").join(&blob[..2]).join(&blob[2..])).unwrap();
    lab.git(&repo, &["config", "core.repositoryformatversion", "1"]);
    lab.git(&repo, &["config", "extensions.partialClone", "origin"]);
    arm(
        &repo.join(".git"),
        &format!(
            "[remote \"origin\"]\n\turl = ext::sh -c touch% {}\n\tpromisor = true\n\
             [protocol \"ext\"]\n\tallow = always\n",
            lab.markers.join("fetch").display()
        ),
    );

    let rows = lab.rows(&["--git", "HEAD", "repo", "repo/src"], 1);
    assert_eq!(rows[0]["status"], "error");
    let error = rows[0]["error"].as_str().unwrap();
    assert!(
        error.contains("'a.py'") && error.contains("is not in the repository"),
        "{error}"
    );
    // The folder that does not hold the missing blob is still counted.
    assert_eq!(summary(&rows[1]), oracle(&under(&FILES, "src")));
    // The work tree still holds a.py's bytes, which hash to the missing blob's id.
    let rows = lab.rows(&["repo"], 0);
    assert_eq!(summary(&rows[0]), oracle(&FILES));
    assert_stamp(&rows[0], "head", &head);
    lab.assert_no_marker("scan");

    lab.person(&repo, &["cat-file", "-p", &blob]);
    assert_eq!(lab.markers(), ["fetch"], "the lazy fetch is not live");
}

#[test]
fn a_repository_that_never_answers_is_given_up() {
    let lab = Lab::new();
    let repo = lab.path("repo");
    repo_with(&lab, &repo, &FILES);
    // git opens .git/config before anything else, and waits on a fifo forever.
    fs::remove_file(repo.join(".git/config")).unwrap();
    let made = Command::new("mkfifo")
        .arg(repo.join(".git/config"))
        .status()
        .expect("mkfifo runs");
    assert!(made.success());

    // The idle limit is 30 s unless MCP_HINT_CENSUS_GIT_IDLE says otherwise; 2 s
    // proves the limit without waiting for the default.
    let idle: &[(&str, &Path)] = &[("MCP_HINT_CENSUS_GIT_IDLE", Path::new("2"))];
    let started = Instant::now();
    let (dir, git) = thread::scope(|s| {
        let dir = s.spawn(|| lab.rows_with(&["repo"], idle, 0));
        let git = s.spawn(|| lab.rows_with(&["--git", "HEAD", "repo"], idle, 1));
        (dir.join().unwrap(), git.join().unwrap())
    });
    assert!(
        started.elapsed() < Duration::from_secs(25),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(summary(&dir[0]), oracle(&FILES));
    assert_stamp(&dir[0], "worktree", "");
    let error = git[0]["error"].as_str().unwrap();
    assert!(error.contains("wrote nothing for 2 s"), "{error}");
}

#[test]
fn a_bad_idle_limit_is_warned_about_and_the_default_kept() {
    let lab = Lab::new();
    let repo = lab.path("repo");
    repo_with(&lab, &repo, &FILES);
    let out = lab.scan_with(
        &["--git", "HEAD", "repo"],
        &[("MCP_HINT_CENSUS_GIT_IDLE", Path::new("0"))],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning: MCP_HINT_CENSUS_GIT_IDLE='0' is not a whole number of seconds"),
        "{err}"
    );
}

// ---------------------------------------------------------------------------
// The head stamp

#[test]
fn the_head_stamp_needs_head_s_files_byte_for_byte() {
    let lab = Lab::new();
    let repo = lab.path("repo");
    let head = repo_with(&lab, &repo, &FILES);
    let stamp = |path: &str| {
        let rows = lab.rows(&[path], 0);
        (
            rows[0]["commit_source"].as_str().unwrap().to_string(),
            rows[0]["commit"].as_str().unwrap().to_string(),
            summary(&rows[0]),
        )
    };
    let is_head = ("head".to_string(), head.clone(), oracle(&FILES));
    assert_eq!(stamp("repo"), is_head);
    assert_eq!(stamp("repo/src").0, "head");

    // A hook's environment names its own repository; scan still reads the one the
    // folder is in.
    let other = lab.path("other");
    repo_with(&lab, &other, &[("x.md", b"annotations")]);
    let git_dir = other.join(".git");
    let index = git_dir.join("index");
    let rows = lab.rows_with(
        &["repo"],
        &[("GIT_DIR", &git_dir), ("GIT_INDEX_FILE", &index)],
        0,
    );
    assert_stamp(&rows[0], "head", &head);

    // The mode is no part of a count.
    fs::set_permissions(repo.join("a.py"), fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(stamp("repo"), is_head);
    fs::set_permissions(repo.join("a.py"), fs::Permissions::from_mode(0o644)).unwrap();

    // The same size, other bytes.
    let original = fs::read(repo.join("a.py")).unwrap();
    let mut changed = original.clone();
    changed[0] = b'R';
    fs::write(repo.join("a.py"), &changed).unwrap();
    let mut files: Vec<(&str, &[u8])> = FILES.to_vec();
    files[0].1 = &changed;
    assert_eq!(
        stamp("repo"),
        ("worktree".into(), String::new(), oracle(&files))
    );
    fs::write(repo.join("a.py"), &original).unwrap();
    assert_eq!(stamp("repo"), is_head);

    // An untracked file.
    fs::write(repo.join("src/new.ts"), b"openWorldHint").unwrap();
    assert_eq!(stamp("repo").0, "worktree");
    assert_eq!(stamp("repo/src").0, "worktree");
    assert_eq!(stamp("repo/docs").0, "head");
    fs::remove_file(repo.join("src/new.ts")).unwrap();

    // A file that is gone.
    fs::remove_file(repo.join("src/empty.txt")).unwrap();
    assert_eq!(stamp("repo").0, "worktree");
    fs::write(repo.join("src/empty.txt"), b"").unwrap();
    assert_eq!(stamp("repo"), is_head);

    // A tracked file that a committed .gitignore hides from the walk.
    fs::write(repo.join(".gitignore"), b"guide.md\n").unwrap();
    lab.git(&repo, &["add", ".gitignore"]);
    lab.git(&repo, &["commit", "-q", "-m", "ignore"]);
    let ignoring = lab.git(&repo, &["rev-parse", "HEAD"]);
    assert_eq!(lab.git(&repo, &["status", "--porcelain"]), "");
    let (source, _, counted) = stamp("repo");
    assert_eq!(source, "worktree");
    let mut walked: Vec<(&str, &[u8])> = FILES
        .iter()
        .copied()
        .filter(|(p, _)| *p != "docs/guide.md")
        .collect();
    walked.push((".gitignore", b"guide.md\n"));
    assert_eq!(counted, oracle(&walked));
    // Yet --git counts what the commit holds.
    let rows = lab.rows(&["--git", "HEAD", "repo"], 0);
    let mut committed = FILES.to_vec();
    committed.push((".gitignore", b"guide.md\n"));
    assert_eq!(summary(&rows[0]), oracle(&committed));
    assert_stamp(&rows[0], "archive", &ignoring);
}

#[test]
fn a_line_ending_conversion_is_no_head() {
    let lab = Lab::new();
    let text: &[u8] = b"readOnlyHint\nannotations\n";
    let crlf: &[u8] = b"readOnlyHint\r\nannotations\r\n";

    // By attribute: a.txt is checked out with CRLF line ends, stored with LF.
    let repo = lab.path("attribute");
    let attributes: &[u8] = b"*.txt text eol=crlf\n";
    let head = repo_with(
        &lab,
        &repo,
        &[("a.txt", text), (".gitattributes", attributes)],
    );
    // By configuration: core.autocrlf converts on checkout too.
    let auto = lab.path("autocrlf");
    let auto_head = repo_with(&lab, &auto, &[("a.txt", text)]);
    lab.git(&auto, &["config", "core.autocrlf", "true"]);
    for dir in [&repo, &auto] {
        fs::remove_file(dir.join("a.txt")).unwrap();
        lab.git(dir, &["checkout", "--", "a.txt"]);
        assert_eq!(fs::read(dir.join("a.txt")).unwrap(), crlf);
        // git status calls the tree clean: it compares the converted bytes.
        assert_eq!(lab.git(dir, &["status", "--porcelain"]), "");
    }

    let rows = lab.rows(&["attribute", "autocrlf"], 0);
    assert_eq!(
        summary(&rows[0]),
        oracle(&[("a.txt", crlf), (".gitattributes", attributes)])
    );
    assert_stamp(&rows[0], "worktree", "");
    assert_eq!(summary(&rows[1]), oracle(&[("a.txt", crlf)]));
    assert_stamp(&rows[1], "worktree", "");

    // --git counts the blob as stored, with its LF line ends.
    let rows = lab.rows(&["--git", "HEAD", "attribute", "autocrlf"], 0);
    assert_eq!(
        summary(&rows[0]),
        oracle(&[("a.txt", text), (".gitattributes", attributes)])
    );
    assert_stamp(&rows[0], "archive", &head);
    assert_eq!(summary(&rows[1]), oracle(&[("a.txt", text)]));
    assert_stamp(&rows[1], "archive", &auto_head);
}

// ---------------------------------------------------------------------------
// --git: bare repositories, older commits, links and submodules

#[test]
fn a_bare_repository_counts_any_commit() {
    let lab = Lab::new();
    let repo = lab.path("repo");
    let one: Vec<(&str, &[u8])> = vec![
        ("a.py", b"readOnlyHint"),
        ("docs/guide.md", b"annotations annotations"),
        (".gitattributes", b"* filter=evil\n*.md export-ignore\n"),
    ];
    let id_one = repo_with(&lab, &repo, &one);
    let two: Vec<(&str, &[u8])> = vec![
        ("a.py", b"readOnlyHint destructiveHint"),
        ("src/server.ts", HINTED),
        (".gitattributes", b"* filter=evil\n*.md export-ignore\n"),
    ];
    fs::remove_file(repo.join("docs/guide.md")).unwrap();
    write_files(&repo, &two);
    lab.git(&repo, &["add", "-A"]);
    lab.git(&repo, &["commit", "-q", "-m", "two"]);
    let id_two = lab.git(&repo, &["rev-parse", "HEAD"]);
    lab.git(&repo, &["tag", "v1", &id_one]);

    let bare = lab.path("repo.git");
    lab.git(lab.root(), &["clone", "-q", "--bare", "repo", "repo.git"]);
    arm(
        &bare,
        &format!(
            "[filter \"evil\"]\n\tsmudge = \"{}\"\n\tclean = \"{}\"\n[core]\n\tfsmonitor = \"{}\"\n",
            lab.marker("smudge", "cat"),
            lab.marker("clean", "cat"),
            lab.marker("fsmonitor", ":")
        ),
    );

    for (rev, id, files) in [
        ("HEAD", &id_two, &two),
        ("main~1", &id_one, &one),
        ("v1", &id_one, &one),
        (":/two", &id_two, &two),
        (id_one.as_str(), &id_one, &one),
    ] {
        let rows = lab.rows(&["--git", rev, "repo.git"], 0);
        // export-ignore is an archive's business: the blob counts as stored.
        assert_eq!(summary(&rows[0]), oracle(files), "--git {rev}");
        assert_stamp(&rows[0], "archive", id);
        assert_eq!(rows[0]["pinned"], rev);
    }
    // Inside the bare repository's folders the whole commit is counted.
    let rows = lab.rows(&["--git", "HEAD", "repo.git/refs"], 0);
    assert_eq!(summary(&rows[0]), oracle(&two));
    // A bare repository is no work tree: walked, it is stamped as one.
    let rows = lab.rows(&["repo.git"], 0);
    assert_stamp(&rows[0], "worktree", "");
    lab.assert_no_marker("scan of a bare repository");

    let rows = lab.rows(&["--git", "no-such-branch", "repo.git"], 1);
    assert!(rows[0]["error"]
        .as_str()
        .unwrap()
        .contains("unknown revision 'no-such-branch'"));

    lab.person(&bare, &["archive", "HEAD"]);
    assert!(lab.markers().contains(&"smudge".to_string()));
}

#[test]
fn a_sha256_repository_is_read_and_stamped() {
    let lab = Lab::new();
    let repo = lab.path("repo");
    fs::create_dir(&repo).unwrap();
    lab.git(
        &repo,
        &["init", "-q", "-b", "main", "--object-format=sha256"],
    );
    write_files(&repo, &FILES);
    lab.git(&repo, &["add", "-A"]);
    lab.git(&repo, &["commit", "-q", "-m", "one"]);
    let head = lab.git(&repo, &["rev-parse", "HEAD"]);
    assert_eq!(head.len(), 64);

    let rows = lab.rows(&["repo"], 0);
    assert_eq!(summary(&rows[0]), oracle(&FILES));
    assert_stamp(&rows[0], "head", &head);
    let rows = lab.rows(&["--git", "HEAD", "repo"], 0);
    assert_eq!(summary(&rows[0]), oracle(&FILES));
    assert_stamp(&rows[0], "archive", &head);

    fs::write(repo.join("a.py"), b"readOnlyHint = False # annotations\n").unwrap();
    let rows = lab.rows(&["repo"], 0);
    assert_stamp(&rows[0], "worktree", "");
}

#[test]
fn links_and_submodules_are_no_files() {
    let lab = Lab::new();
    let repo = lab.path("repo");
    let files: Vec<(&str, &[u8])> = vec![("a.py", HINTED), ("src/server.ts", b"openWorldHint")];
    let first = repo_with(&lab, &repo, &files);
    symlink("a.py", repo.join("link.py")).unwrap();
    symlink("src", repo.join("src-link")).unwrap();
    // A submodule as a commit records it: a gitlink entry, here to the first commit.
    lab.git(
        &repo,
        &[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("160000,{first},vendor/lib"),
        ],
    );
    lab.git(&repo, &["add", "link.py", "src-link"]);
    lab.git(&repo, &["commit", "-q", "-m", "links"]);
    let head = lab.git(&repo, &["rev-parse", "HEAD"]);
    let tree = lab.git(&repo, &["ls-tree", "-r", "HEAD"]);
    assert!(
        tree.contains("120000 blob") && tree.contains("160000 commit"),
        "{tree}"
    );

    let rows = lab.rows(&["--git", "HEAD", "repo"], 0);
    assert_eq!(summary(&rows[0]), oracle(&files));
    assert_stamp(&rows[0], "archive", &head);
    // The submodule is not checked out: the folder is HEAD's regular files.
    let rows = lab.rows(&["repo"], 0);
    assert_eq!(summary(&rows[0]), oracle(&files));
    assert_stamp(&rows[0], "head", &head);

    // A checked-out submodule's files are walked, though the commit only links them.
    write_files(&repo, &[("vendor/lib/x.ts", b"idempotentHint" as &[u8])]);
    let rows = lab.rows(&["repo"], 0);
    let mut walked = files.clone();
    walked.push(("vendor/lib/x.ts", b"idempotentHint"));
    assert_eq!(summary(&rows[0]), oracle(&walked));
    assert_stamp(&rows[0], "worktree", "");
    let rows = lab.rows(&["--git", "HEAD", "repo"], 0);
    assert_eq!(summary(&rows[0]), oracle(&files));
}

#[test]
fn odd_names_are_read_as_bytes() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    let lab = Lab::new();
    let repo = lab.path("repo");
    fs::create_dir(&repo).unwrap();
    lab.git(&repo, &["init", "-q", "-b", "main"]);
    // A folder that is not UTF-8, names with a line feed, a tab, a quote and a space:
    // git would quote them all in its default output.
    let folder = OsStr::from_bytes(b"caf\xe9 \"x\"");
    let names: [&[u8]; 3] = [b"line\nfeed.ts", b"tab\there.py", b"caf\xe9.md"];
    for name in names {
        let path = repo.join(folder).join(OsStr::from_bytes(name));
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, HINTED).unwrap();
    }
    lab.git(&repo, &["add", "-A"]);
    lab.git(&repo, &["commit", "-q", "-m", "odd"]);
    let head = lab.git(&repo, &["rev-parse", "HEAD"]);

    let folder_path = repo.join(folder);
    let folder_arg = folder_path.strip_prefix(lab.root()).unwrap();
    let expected = oracle(&[("1", HINTED), ("2", HINTED), ("3", HINTED)]);
    let totals = |s: &Summary| (s.files, s.bytes, s.counts.clone());
    for args in [
        vec![OsStr::new("repo")],
        vec![folder_arg.as_os_str()],
        vec![OsStr::new("--git"), OsStr::new("HEAD"), OsStr::new("repo")],
        vec![
            OsStr::new("--git"),
            OsStr::new("HEAD"),
            folder_arg.as_os_str(),
        ],
    ] {
        let out = lab.scan(&["--json", "--files"]).args(&args).output();
        assert_eq!(out.status.code(), Some(0), "{args:?}\n{}", show(&out));
        let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
        let row = &rows[0];
        assert_eq!(totals(&summary(row)), totals(&expected), "{args:?}");
        let source = if args.len() == 1 { "head" } else { "archive" };
        assert_stamp(row, source, &head);
    }
}

/// git starts from the tool's allow-listed environment: a preload or a `GIT_DIR` in the
/// tool's own environment (as a hook or a wrapper may leave it) reaches the tool, not
/// the git it starts.
#[test]
fn git_never_loads_a_preload_of_the_tools_environment() {
    let lab = Lab::new();
    let repo = lab.path("repo");
    repo_with(&lab, &repo, &FILES);
    let marks = lab.path("marks");
    fs::create_dir(&marks).unwrap();
    let Some(object) = crate::common::marking_object(lab.root(), &marks) else {
        return crate::common::skip("no C compiler ('cc') to build the preloaded object with");
    };
    let rows = lab.rows_with(
        &["--git", "HEAD", "repo"],
        &[("LD_PRELOAD", &object), ("GIT_DIR", &lab.path("elsewhere"))],
        0,
    );
    assert_eq!(summary(&rows[0]), oracle(&FILES));
    let marked: Vec<String> = fs::read_dir(&marks)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    // The preload was live: the tool itself loaded it.
    assert!(
        marked.iter().any(|m| m.starts_with("mcp-hint-censu")),
        "{marked:?}"
    );
    assert!(
        marked.iter().all(|m| !m.starts_with("git")),
        "git loaded the tool's preload: {marked:?}"
    );
}
