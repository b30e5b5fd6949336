//! End-to-end tests of dated corpora: `corpus list --at/--since/--every` over git
//! repositories made here with dated commits, served through `url.<base>.insteadOf`
//! over `file://` with `uploadpack.allowFilter`, then a census of the dated corpus
//! over archives served on 127.0.0.1.
//!
//! The oracles: git's own `rev-list -1 --first-parent --before` in the test's
//! repositories for the commit of each date, the naive counter over the files `git
//! ls-tree` and `git show` give for each commit, the tool definitions each commit was
//! written with here, and the shares computed here from those.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::{
    header, naive, read_csv, reply, show, targz, ts_server, Git, Item, Loopback, ToolSpec, HINTS,
    TERMS,
};

const DATE: &str = "2026-11-30";

/// Repositories under `github.com/` here, reached by an insteadOf rule.
struct Lab {
    git: Git,
}

impl Lab {
    fn new() -> Lab {
        Lab {
            git: Git::serving(&["github.com"]),
        }
    }

    fn path(&self) -> &Path {
        self.git.path()
    }

    fn git(&self, repo: &Path, args: &[&str]) -> String {
        self.git.git(repo, args)
    }

    /// Makes `github.com/repo` with branch `main`, serving partial clones.
    fn repo(&self, repo: &str) -> PathBuf {
        let path = self.git.repo("github.com", repo, "main", 0);
        self.git(&path, &["config", "uploadpack.allowFilter", "true"]);
        path
    }

    /// Writes `files` and commits them with author and committer date `when`
    /// (ISO 8601 with its zone); returns the commit id.
    fn commit(&self, repo: &Path, when: &str, files: &[(&str, &str)]) -> String {
        self.git.commit_at(repo, when, files)
    }

    /// Returns git's own answer: the first-parent commit of `main` at the end of
    /// `day` (UTC), or `None`.
    fn oracle(&self, repo: &Path, day: &str) -> Option<String> {
        let before = format!("--before={day} 23:59:59 +0000");
        let id = self.git(repo, &["rev-list", "-1", "--first-parent", &before, "main"]);
        (!id.is_empty()).then_some(id)
    }

    fn run(&self, args: &[&str]) -> Output {
        self.git.run(self.path(), args)
    }

    /// Serves `routes` (URL path to archive) and writes the corpus `text` to
    /// `corpus.toml` with its archive URLs pointing there; the archives are served
    /// while the returned server is held.
    fn serve_corpus(&self, text: &str, routes: HashMap<String, Vec<u8>>) -> Loopback {
        let server = archives(routes);
        let local = format!("{}/{{repo}}/{{commit}}", server.url());
        let corpus = text.replace("https://codeload.github.com/{repo}/tar.gz/{commit}", &local);
        assert_ne!(corpus, text);
        fs::write(self.path().join("corpus.toml"), &corpus).unwrap();
        server
    }

    /// Runs the census as two shards (`shard1/`, `shard2/`), merges them into
    /// `merged/`, each exiting with `code`, and checks that each of `names` there is
    /// byte for byte the one the single run wrote in `out/`.
    fn shards_merge_to_out(&self, code: i32, names: &[String]) {
        let mut tables = Vec::new();
        for k in 1..=2 {
            let out = format!("shard{k}");
            self.census(&["--shard", &format!("{k}/2"), "--out", &out], code);
            tables.push(format!("{out}/census-{DATE}.csv"));
        }
        let mut args = vec!["merge", "--corpus", "corpus.toml", "--out", "merged"];
        args.extend(tables.iter().map(String::as_str));
        let merged = self.run(&args);
        assert_eq!(merged.status.code(), Some(code), "{}", show(&merged));
        for name in names {
            let a = fs::read(self.path().join("out").join(name)).unwrap();
            let b = fs::read(self.path().join("merged").join(name)).unwrap();
            assert!(a == b, "{name} differs after the merge");
        }
    }

    /// Runs a census of `corpus.toml` dated DATE with the cache `archives`, plus
    /// `extra`, and checks that it exits with `code`.
    fn census(&self, extra: &[&str], code: i32) {
        let mut args = vec![
            "census",
            "--corpus",
            "corpus.toml",
            "--cache",
            "archives",
            "--date",
            DATE,
            "--quiet",
        ];
        args.extend_from_slice(extra);
        let out = self.run(&args);
        assert_eq!(out.status.code(), Some(code), "{}", show(&out));
    }

    fn markers(&self) -> Vec<String> {
        self.git.markers()
    }
}

/// Returns the trees of a written corpus: (repo, commit, as_of).
fn trees(text: &str) -> Vec<(String, String, String)> {
    let value: toml::Value = toml::from_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    value["tree"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let s = |k: &str| t[k].as_str().unwrap().to_string();
            (s("repo"), s("commit"), s("as_of"))
        })
        .collect()
}

/// alpha's commits, in the order made on main (feature's aside).
struct Alpha {
    path: PathBuf,
    /// 2025-06-01T23:59:59Z, the day's last second.
    last_second: String,
    /// 2025-06-02T00:00:00Z, one second later.
    next_day: String,
    /// On main, 2025-07-10.
    main_before_merge: String,
    /// On the merged branch, 2025-07-15: newer, but not on the first-parent line.
    feature: String,
}

fn make_alpha(lab: &Lab) -> Alpha {
    let path = lab.repo("acme/alpha");
    lab.commit(
        &path,
        "2025-03-01T10:00:00Z",
        &[("a.ts", "annotations: { readOnlyHint: true }")],
    );
    let last_second = lab.commit(
        &path,
        "2025-06-01T23:59:59Z",
        &[("b.py", "destructiveHint=False, openWorldHint=True")],
    );
    let next_day = lab.commit(
        &path,
        "2025-06-02T00:00:00Z",
        &[("a.ts", "READONLYHINT idempotentHint annotations")],
    );
    lab.git(&path, &["checkout", "-q", "-b", "feature"]);
    let feature = lab.commit(
        &path,
        "2025-07-15T12:00:00Z",
        &[("f.go", "WithOpenWorldHintAnnotation destructiveHint")],
    );
    lab.git(&path, &["checkout", "-q", "main"]);
    let main_before_merge = lab.commit(&path, "2025-07-10T12:00:00Z", &[("c.md", "no hints")]);
    let out = lab
        .git
        .env(&mut Command::new("git"))
        .current_dir(&path)
        .env("GIT_AUTHOR_DATE", "2025-07-20T12:00:00Z")
        .env("GIT_COMMITTER_DATE", "2025-07-20T12:00:00Z")
        .args(["merge", "-q", "--no-ff", "-m", "merge feature", "feature"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", show(&out));
    // 2025-09-01 01:00 in UTC+2 is 2025-08-31 23:00 UTC.
    lab.commit(
        &path,
        "2025-09-01T01:00:00+02:00",
        &[("d.rs", "read_only_hint = true, openWorldHint")],
    );
    // 2025-08-31 23:30 in UTC-2 is 2025-09-01 01:30 UTC.
    lab.commit(
        &path,
        "2025-08-31T23:30:00-02:00",
        &[("b.py", "nothing left")],
    );
    Alpha {
        path,
        last_second,
        next_day,
        main_before_merge,
        feature,
    }
}

const DATES: [&str; 7] = [
    "2025-01-01",
    "2025-06-01",
    "2025-06-02",
    "2025-06-03",
    "2025-07-16",
    "2025-08-31",
    "2025-09-01",
];

/// Builds the dated corpus of alpha and beta; returns its text.
fn build_corpus(lab: &Lab) -> String {
    fs::write(lab.path().join("list.txt"), "acme/alpha\nacme/beta\n").unwrap();
    let out = lab.run(&[
        "corpus",
        "list",
        "list.txt",
        "--out",
        "dated.toml",
        "--cache",
        "cache",
        "--date",
        DATE,
        "--at",
        "2025-01-01",
        "--at",
        "2025-06-01",
        "--at",
        "2025-07-16",
        "--at",
        "2025-08-31",
        "--at",
        "2025-09-01",
        "--since",
        "2025-06-02",
        "--every",
        "1day",
        "--until",
        "2025-06-03",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    fs::read_to_string(lab.path().join("dated.toml")).unwrap()
}

#[test]
fn each_date_pins_the_first_parent_commit_at_its_last_second_as_git_does() {
    let lab = Lab::new();
    let alpha = make_alpha(&lab);
    let beta = lab.repo("acme/beta");
    lab.commit(&beta, "2025-06-15T08:00:00Z", &[("x.ts", "readOnlyHint")]);
    let text = build_corpus(&lab);
    let got = trees(&text);

    let mut want = Vec::new();
    let mut skipped = Vec::new();
    for (repo, path) in [("acme/alpha", &alpha.path), ("acme/beta", &beta)] {
        for day in DATES {
            match lab.oracle(path, day) {
                Some(commit) => want.push((repo.to_string(), commit, day.to_string())),
                None => skipped.push((repo, day)),
            }
        }
    }
    assert_eq!(got, want, "{text}");
    // recipes/check-pins.py, which checks a published corpus against clones the
    // same way, agrees on every pin, and names one moved to another commit.
    let mirrors = lab.path().join("mirrors");
    fs::create_dir_all(&mirrors).unwrap();
    std::os::unix::fs::symlink(&alpha.path, mirrors.join("acme+alpha")).unwrap();
    std::os::unix::fs::symlink(&beta, mirrors.join("Acme+Beta")).unwrap();
    let check = |corpus: &str| {
        Command::new("python3")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/check-pins.py"))
            .arg(&mirrors)
            .arg(corpus)
            .current_dir(lab.path())
            .output()
            .expect("python3 runs")
    };
    let checked = check("dated.toml");
    assert_eq!(checked.status.code(), Some(0), "{}", show(&checked));
    let said = String::from_utf8_lossy(&checked.stdout);
    assert!(
        said.contains(&format!(
            "{} dated pins are git's answer, 0 differ",
            want.len()
        )),
        "{said}"
    );
    let moved = text.replacen(&alpha.last_second, &alpha.next_day, 1);
    assert_ne!(moved, text);
    fs::write(lab.path().join("moved.toml"), moved).unwrap();
    let checked = check("moved.toml");
    assert_eq!(checked.status.code(), Some(1), "{}", show(&checked));
    let said = String::from_utf8_lossy(&checked.stdout);
    assert!(
        said.contains(&format!("acme/alpha 2025-06-01: pinned {}", alpha.next_day)),
        "{said}"
    );
    let at = |repo: &str, day: &str| {
        got.iter()
            .find(|t| t.0 == repo && t.2 == day)
            .map(|t| t.1.clone())
    };
    // The exact second belongs to its day, the next second to the next.
    assert_eq!(at("acme/alpha", "2025-06-01"), Some(alpha.last_second));
    assert_eq!(at("acme/alpha", "2025-06-02"), Some(alpha.next_day.clone()));
    // Two dates that name one commit are two trees.
    assert_eq!(at("acme/alpha", "2025-06-03"), Some(alpha.next_day));
    // The first parent counts: the merged branch's newer commit is not taken.
    assert_eq!(
        at("acme/alpha", "2025-07-16"),
        Some(alpha.main_before_merge)
    );
    let before = "--before=2025-07-16 23:59:59 +0000";
    let any_parent = lab.git(&alpha.path, &["rev-list", "-1", before, "main"]);
    assert_eq!(any_parent, alpha.feature, "the merge makes a difference");
    // Zones: 01:00+02:00 on 09-01 is 08-31 in UTC; 23:30-02:00 on 08-31 is 09-01.
    assert_ne!(
        at("acme/alpha", "2025-08-31"),
        at("acme/alpha", "2025-09-01")
    );
    assert_eq!(
        skipped,
        [
            ("acme/alpha", "2025-01-01"),
            ("acme/beta", "2025-01-01"),
            ("acme/beta", "2025-06-01"),
            ("acme/beta", "2025-06-02"),
            ("acme/beta", "2025-06-03")
        ]
    );
    let rows = read_csv(&lab.path().join("dated-skipped.csv"));
    assert_eq!(rows.len(), 1 + skipped.len(), "{rows:?}");
    for (repo, day) in &skipped {
        assert!(
            rows.iter().any(|r| r[2] == *repo
                && r[4].contains(&format!(
                    "no commit on the default branch by the end of {day} (UTC)"
                ))),
            "{repo} {day}: {rows:?}"
        );
    }
    // The corpus records each repository's dates before its first commit, with the
    // time git gives that commit, and each tree's commit time as git gives it.
    let value: toml::Value = toml::from_str(&text).unwrap();
    let gaps: Vec<(String, String, String)> = value["no_commit_yet"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let s = |k: &str| t[k].as_str().unwrap().to_string();
            (s("repo"), s("as_of"), s("first_commit"))
        })
        .collect();
    let first = |path: &Path| {
        let line = lab.git(path, &["rev-list", "--first-parent", "main"]);
        committed(&lab, path, line.lines().last().unwrap())
    };
    assert_eq!(first(&alpha.path), "2025-03-01T10:00:00Z");
    assert_eq!(first(&beta), "2025-06-15T08:00:00Z");
    let want_gaps: Vec<(String, String, String)> = skipped
        .iter()
        .map(|(repo, day)| {
            let path = if *repo == "acme/alpha" {
                &alpha.path
            } else {
                &beta
            };
            (repo.to_string(), day.to_string(), first(path))
        })
        .collect();
    assert_eq!(gaps, want_gaps, "{text}");
    for t in value["tree"].as_array().unwrap() {
        let (repo, commit) = (t["repo"].as_str().unwrap(), t["commit"].as_str().unwrap());
        let path = if repo == "acme/alpha" {
            &alpha.path
        } else {
            &beta
        };
        assert_eq!(
            t["committed"].as_str(),
            Some(committed(&lab, path, commit).as_str())
        );
    }
    // The census's own parser reads the dates back.
    let corpus = mcp_hint_census::corpus::file::parse("dated.toml", &text).unwrap();
    assert!(corpus.is_dated());
    assert_eq!(corpus.trees.len(), want.len());
    assert_eq!(corpus.not_yet.len(), skipped.len());
}

/// Returns the committer time of `commit` in UTC as git formats it,
/// `YYYY-MM-DDTHH:MM:SSZ`.
fn committed(lab: &Lab, repo: &Path, commit: &str) -> String {
    let out = lab
        .git
        .env(&mut Command::new("git"))
        .current_dir(repo)
        .env("TZ", "UTC")
        .args(["show", "-s", "--format=%cd"])
        .arg("--date=format-local:%Y-%m-%dT%H:%M:%SZ")
        .arg(commit)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", show(&out));
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn trees_of_a_repository_follow_their_dates_not_their_commit_ids() {
    let lab = Lab::new();
    let path = lab.repo("acme/order");
    let early = lab.commit(&path, "2025-05-01T00:00:00Z", &[("a.ts", "one")]);
    // A later commit whose id sorts before the earlier one's: the content is
    // varied until git gives such an id.
    let mut later = String::new();
    for n in 0.. {
        later = lab.commit(
            &path,
            "2025-06-01T00:00:00Z",
            &[("a.ts", &format!("two {n}"))],
        );
        if later < early {
            break;
        }
        lab.git(&path, &["reset", "-q", "--hard", &early]);
    }
    fs::write(lab.path().join("list.txt"), "acme/order\n").unwrap();
    let out = lab.run(&[
        "corpus",
        "list",
        "list.txt",
        "--out",
        "c.toml",
        "--cache",
        "cache",
        "--date",
        DATE,
        "--at",
        "2025-06-15",
        "--at",
        "2025-05-15",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let got = trees(&fs::read_to_string(lab.path().join("c.toml")).unwrap());
    let tree = |commit: &str, day: &str| {
        (
            "acme/order".to_string(),
            commit.to_string(),
            day.to_string(),
        )
    };
    // The order docs/census.md gives: repository, subfolder, date, commit.
    assert_eq!(
        got,
        [tree(&early, "2025-05-15"), tree(&later, "2025-06-15")]
    );
}

#[test]
fn the_clone_cache_is_reused_and_brought_up_to_date() {
    let lab = Lab::new();
    let path = lab.repo("acme/grow");
    let first = lab.commit(&path, "2025-05-01T00:00:00Z", &[("a.ts", "readOnlyHint")]);
    fs::write(
        lab.path().join("list.txt"),
        "https://github.com/acme/grow.git\n",
    )
    .unwrap();
    let build_with = |day: &str, extra: &[&str]| {
        let mut args = vec![
            "corpus", "list", "list.txt", "--out", "c.toml", "--cache", "cache", "--date", DATE,
            "--at", day,
        ];
        args.extend_from_slice(extra);
        let out = lab.run(&args);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        trees(&fs::read_to_string(lab.path().join("c.toml")).unwrap())
    };
    let build = |day: &str| build_with(day, &[]);
    assert_eq!(build("2025-12-01")[0].1, first);
    let clone = lab.path().join("cache/clones/github.com/acme/grow.git");
    let packs = |clone: &Path| -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(clone.join("objects/pack"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".pack"))
            .collect();
        names.sort();
        names
    };
    let before = packs(&clone);
    assert_eq!(before.len(), 1, "{before:?}");
    assert!(!clone.join("hooks").exists(), "no template is copied");
    let second = lab.commit(&path, "2025-11-01T00:00:00Z", &[("a.ts", "openWorldHint")]);
    assert_eq!(build("2025-12-01")[0].1, second);
    assert_eq!(build("2025-10-01")[0].1, first);
    let after = packs(&clone);
    assert!(
        before.iter().all(|p| after.contains(p)) && after.len() == 2,
        "the first clone's pack is kept and the fetch adds one: {before:?} then {after:?}"
    );
    // The clone cached from the forge is read from a mirror next (`--mirrors`): the
    // mirror's history answers, though the forge has moved on since.
    let third = lab.commit(&path, "2025-11-15T00:00:00Z", &[("a.ts", "idempotentHint")]);
    let mirror = lab.path().join("mirrors/acme+grow/repo.git");
    lab.git(
        lab.path(),
        &[
            "clone",
            "-q",
            "--bare",
            &path.display().to_string(),
            &mirror.display().to_string(),
        ],
    );
    let fourth = lab.commit(
        &path,
        "2025-11-20T00:00:00Z",
        &[("a.ts", "destructiveHint")],
    );
    assert_eq!(
        lab.oracle(&mirror, "2025-12-01").as_deref(),
        Some(third.as_str())
    );
    assert_eq!(
        build_with("2025-12-01", &["--mirrors", "mirrors"])[0].1,
        third
    );
    assert_eq!(
        lab.oracle(&path, "2025-12-01").as_deref(),
        Some(fourth.as_str())
    );
    assert_eq!(build("2025-12-01")[0].1, fourth);
}

#[test]
fn a_clone_that_cannot_pass_names_its_fatal_line_and_is_tried_once() {
    let lab = Lab::new();
    // A repository that does not serve partial clones (git warns first) and lacks
    // the parent of its tip: the remote cannot send its history.
    let broken = lab.git.repo("github.com", "acme/broken", "main", 0);
    let parent = lab.commit(&broken, "2025-05-01T00:00:00Z", &[("a.ts", "x")]);
    lab.commit(&broken, "2025-05-02T00:00:00Z", &[("a.ts", "y")]);
    fs::remove_file(
        broken
            .join(".git/objects")
            .join(&parent[..2])
            .join(&parent[2..]),
    )
    .unwrap();
    let good = lab.repo("acme/good");
    let good_commit = lab.commit(&good, "2025-05-01T00:00:00Z", &[("a.ts", "readOnlyHint")]);
    // codeberg.org is a server here: a refusal to authenticate and a 503.
    let server = Loopback::start(|request| {
        if request.url.starts_with("/acme/locked") {
            reply(401, "who are you").with_header(header("WWW-Authenticate: Basic realm=\"x\""))
        } else {
            reply(503, "busy")
        }
    });
    lab.git
        .rule(&format!("{}/", server.url()), "https://codeberg.org/");
    fs::write(
        lab.path().join("list.txt"),
        "acme/broken\nacme/missing\nacme/good\n\
         https://codeberg.org/acme/locked\nhttps://codeberg.org/acme/busy\n",
    )
    .unwrap();
    let out = lab
        .git
        .bin(lab.path())
        .args([
            "corpus",
            "list",
            "list.txt",
            "--out",
            "c.toml",
            "--cache",
            "cache",
            "--date",
            DATE,
            "--at",
            "2025-06-01",
            "--retries",
            "2",
        ])
        .env("GIT_ALLOW_PROTOCOL", "http:file")
        .output();
    // The 503 may pass: the run says to try again later.
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert_eq!(
        trees(&fs::read_to_string(lab.path().join("c.toml")).unwrap()),
        [(
            "acme/good".to_string(),
            good_commit,
            "2025-06-01".to_string()
        )]
    );
    let rows = read_csv(&lab.path().join("c-skipped.csv"));
    let reason = |repository: &str| -> String {
        let row = rows.iter().find(|r| r[2] == repository);
        row.unwrap_or_else(|| panic!("no {repository} in {rows:?}"))[4].clone()
    };
    let broken = reason("acme/broken");
    assert!(
        broken.starts_with("line 1: git clone failed (exit 128): fatal: ")
            && broken.contains("corruption")
            && !broken.contains("warning")
            && !broken.contains("gave up"),
        "{broken}"
    );
    let missing = reason("acme/missing");
    assert!(
        missing.starts_with("line 2: git clone failed (exit 128): fatal: ")
            && missing.contains("does not appear to be a git repository")
            && !missing.contains("gave up"),
        "{missing}"
    );
    let hits = |path: &str| {
        server
            .seen()
            .iter()
            .filter(|r| r.url.starts_with(path))
            .count()
    };
    let locked = reason("https://codeberg.org/acme/locked");
    assert!(
        locked.starts_with("line 4: git clone failed (exit 128): fatal: ")
            && !locked.contains("gave up"),
        "{locked}"
    );
    assert_eq!(hits("/acme/locked"), 1, "a refusal is asked once");
    // The contrast: a failure that may pass is tried 1 + --retries times.
    let busy = reason("https://codeberg.org/acme/busy");
    assert!(busy.ends_with("(gave up after 3 tries)"), "{busy}");
    assert_eq!(hits("/acme/busy"), 3, "{busy}");
}

#[test]
fn a_tree_from_before_the_spec_named_annotations_is_no_false_alarm() {
    let lab = Lab::new();
    let commit = |c: char| c.to_string().repeat(40);
    // Two trees of one date whose files hold no term and no control: one at a
    // commit of 2025-03-25 23:59:59 UTC, the last second before the specification
    // named `annotations`, one at a commit of 2025-03-26 00:00:00 UTC.
    let mut text = String::new();
    let mut routes = HashMap::new();
    for (repo, c, committed) in [
        ("acme/eve", 'a', "2025-03-25T23:59:59Z"),
        ("acme/day", 'b', "2025-03-26T00:00:00Z"),
    ] {
        text.push_str(&format!(
            "[[tree]]\nrepo = \"{repo}\"\ncommit = \"{}\"\nas_of = \"2025-06-01\"\n\
             committed = \"{committed}\"\n\
             archive_url = \"https://codeload.github.com/{{repo}}/tar.gz/{{commit}}\"\n\n",
            commit(c)
        ));
        let items = [Item::File("README".into(), b"plain words".to_vec())];
        let archive = targz("top", Some(&commit(c)), &items);
        routes.insert(format!("/{repo}/{}", commit(c)), archive);
    }
    let _server = lab.serve_corpus(&text, routes);
    let out = lab.run(&[
        "census",
        "--corpus",
        "corpus.toml",
        "--cache",
        "archives",
        "--date",
        DATE,
        "--out",
        "out",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let report = fs::read_to_string(lab.path().join(format!("out/census-{DATE}.md"))).unwrap();
    let look = "held files but read zero on every term and every control";
    assert!(
        report.contains(&format!("- **acme/day as of 2025-06-01** {look}")),
        "{report}"
    );
    assert!(
        !report.contains(&format!("**acme/eve as of 2025-06-01** {look}")),
        "{report}"
    );
    assert!(
        report.contains(
            "\n1 tree read zero on every term and every control at a commit before 2025-03-26"
        ),
        "{report}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("note: acme/day as of 2025-06-01 held files")
            && !stdout.contains("note: acme/eve"),
        "{stdout}"
    );
}

/// Arms `repo`'s config and hooks with commands that leave markers, as a hostile
/// repository would.
fn arm(lab: &Lab, repo: &Path) {
    let marker = |name: &str| lab.git.marker(name);
    let git_dir = repo.join(".git");
    let mut config = fs::read_to_string(git_dir.join("config")).unwrap();
    config.push_str(&format!(
        "[core]\n\tfsmonitor = \"{}; :\"\n[uploadpack]\n\tpackObjectsHook = \"{}; exec\"\n",
        marker("fsmonitor"),
        marker("pack-objects-hook")
    ));
    fs::write(git_dir.join("config"), config).unwrap();
    for hook in [
        "post-checkout",
        "reference-transaction",
        "pre-auto-gc",
        "post-update",
        "pre-push",
    ] {
        let path = git_dir.join("hooks").join(hook);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, format!("#!/bin/sh\n{}\n", marker(hook))).unwrap();
        let mut perms = fs::metadata(&path).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        fs::set_permissions(&path, perms).unwrap();
    }
}

#[test]
fn a_repository_whose_config_holds_commands_runs_none_of_them() {
    let lab = Lab::new();
    let path = lab.repo("acme/armed");
    let commit = lab.commit(&path, "2025-05-01T00:00:00Z", &[("a.ts", "readOnlyHint")]);
    arm(&lab, &path);
    fs::write(lab.path().join("list.txt"), "acme/armed\n").unwrap();
    for round in 0..2 {
        let out = lab.run(&[
            "corpus",
            "list",
            "list.txt",
            "--out",
            "c.toml",
            "--cache",
            "cache",
            "--date",
            DATE,
            "--at",
            "2025-06-01",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        assert_eq!(
            trees(&fs::read_to_string(lab.path().join("c.toml")).unwrap())[0].1,
            commit
        );
        assert_eq!(
            lab.markers(),
            Vec::<String>::new(),
            "round {round}: a command ran"
        );
    }
    // The arming is real: git as a person runs it, in the repository itself.
    lab.git(&path, &["status", "--short"]);
    lab.git(&path, &["checkout", "-q", "-b", "other"]);
    let markers = lab.markers();
    for name in ["fsmonitor", "post-checkout", "reference-transaction"] {
        assert!(
            markers.iter().any(|m| m == name),
            "the attack is not live: git left {markers:?}, not '{name}'"
        );
    }
}

/// Serves `routes` (path to archive) on 127.0.0.1; any other path is a 404.
fn archives(routes: HashMap<String, Vec<u8>>) -> Loopback {
    Loopback::start(move |request| match routes.get(&request.url) {
        Some(bytes) => reply(200, bytes.clone()),
        None => reply(404, "no"),
    })
}

/// Returns the naive counts of every file of `commit`, as git stores them.
fn naive_counts(lab: &Lab, repo: &Path, commit: &str) -> (u64, Vec<u64>) {
    let names = lab.git(repo, &["ls-tree", "-r", "--name-only", commit]);
    let mut counts = vec![0; TERMS.len()];
    let mut files = 0;
    for name in names.lines() {
        let blob = lab
            .git
            .git_bytes(repo, &["show", &format!("{commit}:{name}")]);
        files += 1;
        for (n, term) in counts.iter_mut().zip(TERMS) {
            *n += naive(&blob, term);
        }
    }
    (files, counts)
}

#[test]
fn a_census_of_a_dated_corpus_agrees_with_the_naive_oracle_and_merges_byte_for_byte() {
    let lab = Lab::new();
    let alpha = make_alpha(&lab);
    let beta = lab.repo("acme/beta");
    lab.commit(
        &beta,
        "2025-06-15T08:00:00Z",
        &[("x.ts", "readOnlyHint openWorldHint")],
    );
    let text = build_corpus(&lab);
    let dated = trees(&text);
    let repos: BTreeMap<&str, &Path> = [("acme/alpha", alpha.path.as_path()), ("acme/beta", &beta)]
        .into_iter()
        .collect();

    // Each commit's archive, as git archive writes it (with the commit in its pax header).
    let mut routes = HashMap::new();
    for (repo, commit, _) in &dated {
        let (owner, name) = repo.split_once('/').unwrap();
        let prefix = format!("--prefix={owner}-{name}-{}/", &commit[..7]);
        let archive = lab.git.git_bytes(
            repos[repo.as_str()],
            &["archive", "--format=tar.gz", &prefix, commit],
        );
        routes.insert(format!("/{repo}/{commit}"), archive);
    }
    let server = lab.serve_corpus(&text, routes);
    let census = |extra: &[&str]| lab.census(extra, 0);
    census(&["--out", "out"]);

    // Every row against the naive counts of its commit's files.
    let rows = read_csv(&lab.path().join(format!("out/census-{DATE}.csv")));
    let header = &rows[0];
    assert_eq!(
        header[..5],
        ["repo", "pinned", "subfolder", "as_of", "server"]
    );
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    assert_eq!(rows.len() - 1, dated.len());
    let mut expected_rows = Vec::new();
    for ((repo, commit, as_of), row) in dated.iter().zip(&rows[1..]) {
        assert_eq!((&row[0], &row[1], &row[3]), (repo, commit, as_of));
        assert_eq!(row[col("commit")], *commit);
        assert_eq!(row[col("status")], "ok", "{row:?}");
        let (files, counts) = naive_counts(&lab, repos[repo.as_str()], commit);
        let got: Vec<u64> = TERMS.iter().map(|t| row[col(t)].parse().unwrap()).collect();
        assert_eq!(got, counts, "{repo}@{commit} as of {as_of}");
        assert_eq!(row[col("files_walked")], files.to_string());
        expected_rows.push((as_of.clone(), counts));
    }
    // One download per commit, however many dates name it.
    for (repo, commit, _) in &dated {
        let path = format!("/{repo}/{commit}");
        assert_eq!(server.hits(&path), 1, "{path}");
    }

    // The time series: per date, trees counted and trees whose hint count is not zero.
    let report = fs::read_to_string(lab.path().join(format!("out/census-{DATE}.md"))).unwrap();
    let mut by_date: BTreeMap<&str, (u64, Vec<u64>)> = BTreeMap::new();
    for (as_of, counts) in &expected_rows {
        let entry = by_date.entry(as_of).or_insert((0, vec![0; 4]));
        entry.0 += 1;
        for (n, c) in entry.1.iter_mut().zip(&counts[..4]) {
            *n += u64::from(*c > 0);
        }
    }
    assert!(by_date.values().any(|(_, s)| s.iter().any(|&n| n > 0)));
    // Per date, the repositories git says had no commit by its end.
    let not_yet = |day: &str| {
        repos
            .values()
            .filter(|path| lab.oracle(path, day).is_none())
            .count()
    };
    for (day, (trees, spelling)) in &by_date {
        let mut line = format!("| {day} | {trees} | {trees} | 0 | {} |", not_yet(day));
        for n in spelling {
            line.push_str(&format!(
                " {n} ({:.1}%) |",
                *n as f64 * 100.0 / *trees as f64
            ));
        }
        assert!(
            report.contains(&format!("{line}\n")),
            "no '{line}' in:\n{report}"
        );
    }
    // 2025-01-01 is before both repositories' first commits: it has a line of its
    // own, and says why nothing was counted.
    assert!(!by_date.contains_key("2025-01-01"));
    assert_eq!(not_yet("2025-01-01"), 2);
    for line in [
        "| 2025-01-01 | 0 | 0 | 0 | 2 | - | - | - | - |\n",
        "- **acme/alpha**: 2025-01-01; first commit 2025-03-01 10:00:00 UTC\n",
        "- **acme/beta**: 2025-01-01, 2025-06-01, 2025-06-02, 2025-06-03; first commit \
         2025-06-15 08:00:00 UTC\n",
        "\nNothing to count at 2025-01-01 (no repository had a commit yet): ",
    ] {
        assert!(report.contains(line), "no '{line}' in:\n{report}");
    }
    let svg_name = format!("census-{DATE}-trend.svg");
    assert!(report.contains(&format!("]({svg_name})")), "{report}");
    assert!(report.contains("force-pushed"), "{report}");
    let svg = fs::read_to_string(lab.path().join("out").join(&svg_name)).unwrap();
    assert!(
        // 2025-01-01 to 09-01 are under a tick every other month.
        svg.starts_with("<svg") && svg.contains("\n2025-07\n") && !svg.contains("\n2025-08\n"),
        "{svg}"
    );
    for term in &TERMS[..4] {
        assert!(svg.contains(term), "{term} is not in the chart");
    }

    // Shards with dates merge into the single run's tables, byte for byte.
    lab.shards_merge_to_out(
        0,
        &[
            format!("census-{DATE}.csv"),
            format!("files-{DATE}.csv"),
            format!("census-{DATE}.md"),
            svg_name.clone(),
        ],
    );
    // compare pairs the rows date by date.
    let out = lab.run(&[
        "compare",
        &format!("out/census-{DATE}.csv"),
        &format!("merged/census-{DATE}.csv"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(" as of 2025-06-03\n") && !stdout.contains("only in"),
        "{stdout}"
    );
}

#[test]
fn a_registry_survey_is_pinned_at_dates_too() {
    let lab = Lab::new();
    let path = lab.repo("acme/reg");
    let early = lab.commit(&path, "2025-04-01T00:00:00Z", &[("a.ts", "readOnlyHint")]);
    lab.git(&path, &["tag", "v1.0.0"]);
    let late = lab.commit(&path, "2025-10-01T00:00:00Z", &[("a.ts", "openWorldHint")]);
    let page = serde_json::json!({
        "servers": [{
            "server": {
                "name": "io.github.acme/reg",
                "description": "a test server",
                "version": "1.0.0",
                "repository": {"url": "https://github.com/acme/reg", "source": "github",
                               "subfolder": "srv"},
            },
            "_meta": {}
        }],
        "metadata": {"count": 1}
    });
    fs::write(lab.path().join("page.json"), page.to_string()).unwrap();
    let out = lab.run(&[
        "corpus",
        "registry",
        "--pages",
        "page.json",
        "--out",
        "r.toml",
        "--cache",
        "cache",
        "--date",
        DATE,
        "--since",
        "2025-03-01",
        "--every",
        "3months",
        "--until",
        "2025-12-31",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let text = fs::read_to_string(lab.path().join("r.toml")).unwrap();
    // The version's tag is not what a date asks for: the default branch is.
    assert_eq!(
        trees(&text),
        [
            (
                "acme/reg".to_string(),
                early.clone(),
                "2025-06-01".to_string()
            ),
            ("acme/reg".to_string(), early, "2025-09-01".to_string()),
            ("acme/reg".to_string(), late, "2025-12-01".to_string()),
        ]
    );
    let corpus = mcp_hint_census::corpus::file::parse("r.toml", &text).unwrap();
    assert!(corpus
        .trees
        .iter()
        .all(|t| t.subfolder.as_deref() == Some("srv")
            && t.name.as_deref() == Some("io.github.acme/reg")));
    let skipped = read_csv(&lab.path().join("r-skipped.csv"));
    assert_eq!(skipped.len(), 2, "{skipped:?}");
    assert!(
        skipped[1][4].contains("by the end of 2025-03-01"),
        "{skipped:?}"
    );
}

/// What one commit of a tools repository defines, as this test wrote it: each tool's
/// hints as the tools table spells them (`true`, `false`, `?` for a value from a
/// variable, empty for absent), and how many files it holds over the finder's parse
/// bound (each also registering a tool, which must count nowhere).
#[derive(Clone, Debug, Default)]
struct Written {
    tools: Vec<[&'static str; 4]>,
    over_bound: u64,
}

/// Returns a FastMCP server defining one tool per element of `tools`, alternating
/// the two documented spellings: `ToolAnnotations(...)` and a dict; a `?` is a
/// module-level name bound to an expression.
fn py_server(tools: &[[&'static str; 4]]) -> String {
    let mut text = String::from(
        "import os\nfrom mcp.server.fastmcp import FastMCP\nfrom mcp.types import ToolAnnotations\n\n\
         mcp = FastMCP(\"fixture\")\nFLAG = os.environ.get(\"FLAG\") == \"1\"\n\n\
         # @mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))\n# def commented(): ...\n\n",
    );
    for (i, hints) in tools.iter().enumerate() {
        let value = |v: &str| match v {
            "true" => "True",
            "false" => "False",
            _ => "FLAG",
        };
        let set: Vec<(&str, &str)> = HINTS
            .iter()
            .zip(hints)
            .filter(|(_, v)| !v.is_empty())
            .map(|(h, v)| (*h, value(v)))
            .collect();
        let decorator = match (set.is_empty(), i % 2) {
            (true, _) => "@mcp.tool()".to_string(),
            (false, 0) => format!(
                "@mcp.tool(annotations=ToolAnnotations({}))",
                set.iter()
                    .map(|(h, v)| format!("{h}={v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            (false, _) => format!(
                "@mcp.tool(annotations={{{}}})",
                set.iter()
                    .map(|(h, v)| format!("\"{h}\": {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        text.push_str(&format!(
            "{decorator}\ndef tool_{i}(x: int) -> int:\n    return x\n\n"
        ));
    }
    text
}

/// Returns a TypeScript server registering one tool per element of `tools`.
fn ts_source(tools: &[[&'static str; 4]]) -> String {
    const NAMES: [&str; 8] = ["t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7"];
    let specs: Vec<ToolSpec> = tools
        .iter()
        .zip(NAMES)
        .map(|(&hints, name)| ToolSpec { name, hints })
        .collect();
    String::from_utf8(ts_server(&specs).0).unwrap()
}

/// Returns a TypeScript file over the finder's 2 MiB parse bound that registers an
/// annotated tool: its literals count, its tool is unknown.
fn over_bound() -> String {
    let mut text =
        "server.registerTool(\"huge\", { annotations: { readOnlyHint: true } }, h);\n".to_string();
    text.push_str(&" ".repeat(2 * 1024 * 1024 + 1));
    text
}

/// Returns the cell of a share as the report writes it: `n (x.x%)`, with `; k ?`
/// when `k` of the `n` are `?`, and `-` of nothing.
fn share_cell(n: u64, of: u64, unresolved: u64) -> String {
    match (of, unresolved) {
        (0, _) => "-".to_string(),
        (_, 0) => format!("{n} ({:.1}%)", n as f64 * 100.0 / of as f64),
        (_, k) => format!("{n} ({:.1}%; {k} ?)", n as f64 * 100.0 / of as f64),
    }
}

/// Returns the content of every `<text>` element of `svg`, trimmed, in order.
fn svg_texts(svg: &str) -> Vec<&str> {
    svg.split("<text")
        .skip(1)
        .filter_map(|rest| {
            let start = rest.find('>')? + 1;
            let end = rest.find("</text>")?;
            Some(rest[start..end].trim())
        })
        .collect()
}

#[test]
fn tool_shares_per_date_are_those_of_the_definitions_each_commit_wrote() {
    let lab = Lab::new();
    // Each repository's commits: when, the files, and what they define.
    let (written, ts, py, gone) = {
        let mut written: HashMap<String, Written> = HashMap::new();
        let mut commit = |repo: &Path, when: &str, files: &[(&str, String)], what: Written| {
            let files: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
            written.insert(lab.commit(repo, when, &files), what);
        };
        let none = ["", "", "", ""];

        let ts = lab.repo("acme/tsrv");
        commit(
            &ts,
            "2025-01-20T09:00:00Z",
            &[("README.md", "no server yet".into())],
            Written::default(),
        );
        let c1 = vec![none, none];
        commit(
            &ts,
            "2025-02-10T09:00:00Z",
            &[("server.ts", ts_source(&c1))],
            Written {
                tools: c1,
                over_bound: 0,
            },
        );
        // 18:30 at +03:00 is 15:30 UTC.
        let c2 = vec![["true", "", "", ""], ["false", "false", "?", ""], none];
        commit(
            &ts,
            "2025-05-20T18:30:00+03:00",
            &[("server.ts", ts_source(&c2))],
            Written {
                tools: c2,
                over_bound: 0,
            },
        );
        let c3 = vec![
            ["true", "", "", "false"],
            ["false", "true", "false", "true"],
            ["", "", "", "?"],
            ["true", "", "", ""],
        ];
        commit(
            &ts,
            "2025-08-05T12:00:00Z",
            &[("server.ts", ts_source(&c3)), ("huge.ts", over_bound())],
            Written {
                tools: c3,
                over_bound: 1,
            },
        );

        let py = lab.repo("acme/pysrv");
        let p1 = vec![none, none];
        commit(
            &py,
            "2025-04-01T00:00:00Z",
            &[("server.py", py_server(&p1))],
            Written {
                tools: p1,
                over_bound: 0,
            },
        );
        // On the exact last second of 2025-06-01.
        let p2 = vec![
            ["true", "", "", "false"],
            ["", "true", "", ""],
            ["?", "", "true", ""],
        ];
        commit(
            &py,
            "2025-06-01T23:59:59Z",
            &[("server.py", py_server(&p2))],
            Written {
                tools: p2,
                over_bound: 0,
            },
        );
        commit(
            &py,
            "2025-09-20T00:00:00Z",
            &[("server.py", "print('the tools moved out')\n".into())],
            Written::default(),
        );

        // Its archives are never served: its rows fail, and its tools are in no figure.
        let gone = lab.repo("acme/gone");
        let g1 = vec![["true", "true", "true", "true"]; 3];
        commit(
            &gone,
            "2025-03-15T00:00:00Z",
            &[("server.ts", ts_source(&g1))],
            Written {
                tools: g1,
                over_bound: 0,
            },
        );
        (written, ts, py, gone)
    };

    let repos: BTreeMap<&str, &Path> = [
        ("acme/tsrv", ts.as_path()),
        ("acme/pysrv", py.as_path()),
        ("acme/gone", gone.as_path()),
    ]
    .into_iter()
    .collect();
    fs::write(
        lab.path().join("list.txt"),
        "acme/tsrv\nacme/pysrv\nacme/gone\n",
    )
    .unwrap();
    let days = [
        "2025-01-01",
        "2025-02-01",
        "2025-03-01",
        "2025-06-01",
        "2025-09-01",
        "2025-10-01",
    ];
    let mut args = vec![
        "corpus",
        "list",
        "list.txt",
        "--out",
        "dated.toml",
        "--cache",
        "cache",
        "--date",
        DATE,
    ];
    for day in &days {
        args.extend(["--at", day]);
    }
    let out = lab.run(&args);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let text = fs::read_to_string(lab.path().join("dated.toml")).unwrap();
    let dated = trees(&text);

    let mut routes = HashMap::new();
    for (repo, commit, _) in dated.iter().filter(|t| t.0 != "acme/gone") {
        let archive = lab.git.git_bytes(
            repos[repo.as_str()],
            &["archive", "--format=tar.gz", "--prefix=top/", commit],
        );
        routes.insert(format!("/{repo}/{commit}"), archive);
    }
    let _server = lab.serve_corpus(&text, routes);
    // acme/gone's rows fail, so the census exits 1 with its tables written.
    let census = |extra: &[&str]| lab.census(extra, 1);
    census(&["--out", "out"]);

    // The oracle: per date, git's commit of each repository and what it was written with.
    #[derive(Default, Debug)]
    struct Want {
        counted: u64,
        failed: u64,
        read: u64,
        over_bound: u64,
        tools: Vec<[&'static str; 4]>,
        /// Trees with tools: every tool annotated, some, none.
        servers: [u64; 3],
    }
    // A tool is annotated when a hint is `true` or `false`; a `?` alone is not.
    let is_annotated = |h: &[&str; 4]| h.iter().any(|v| *v == "true" || *v == "false");
    let mut want: BTreeMap<&str, Want> = BTreeMap::new();
    for day in days {
        for (repo, path) in &repos {
            let Some(id) = lab.oracle(path, day) else {
                continue;
            };
            let at = want.entry(day).or_default();
            if *repo == "acme/gone" {
                at.failed += 1;
                continue;
            }
            let what = &written[&id];
            at.counted += 1;
            at.read += 1;
            at.over_bound += what.over_bound;
            at.tools.extend(what.tools.iter().copied());
            let annotated = what.tools.iter().filter(|h| is_annotated(h)).count();
            match (what.tools.len(), annotated) {
                (0, _) => {}
                (_, 0) => at.servers[2] += 1,
                (n, a) if n == a => at.servers[0] += 1,
                _ => at.servers[1] += 1,
            }
        }
    }
    assert!(
        !want.contains_key("2025-01-01"),
        "no repository had a commit yet"
    );
    assert_eq!(
        want["2025-02-01"].tools.len(),
        0,
        "a date with trees read and no tool"
    );
    assert_eq!(want["2025-06-01"].failed, 1);
    assert_eq!(want["2025-09-01"].over_bound, 1);

    let report = fs::read_to_string(lab.path().join(format!("out/census-{DATE}.md"))).unwrap();
    let header = "| As of | Trees read | Files not parsed | Tools | Annotated | Servers: all / \
                  some / none | readOnlyHint | destructiveHint | idempotentHint | openWorldHint |\n";
    assert!(report.contains(header), "{report}");
    let mut labels: Vec<String> = Vec::new();
    for (day, at) in &want {
        let n = at.tools.len() as u64;
        let annotated = at.tools.iter().filter(|h| is_annotated(h)).count() as u64;
        let mut line = format!(
            "| {day} | {} | {} | {n} | {} | {} / {} / {} |",
            at.read,
            at.over_bound,
            share_cell(annotated, n, 0),
            at.servers[0],
            at.servers[1],
            at.servers[2]
        );
        for i in 0..4 {
            let declaring = at.tools.iter().filter(|h| !h[i].is_empty()).count() as u64;
            let unknown = at.tools.iter().filter(|h| h[i] == "?").count() as u64;
            line.push_str(&format!(" {} |", share_cell(declaring, n, unknown)));
            if n > 0 {
                labels.push(format!("{:.0}%", declaring as f64 * 100.0 / n as f64));
            }
        }
        assert!(
            report.contains(&format!("{line}\n")),
            "no '{line}' in:\n{report}"
        );
        let trees_line = format!(
            "| {day} | {} | {} | {} |",
            at.counted + at.failed,
            at.counted,
            at.failed
        );
        assert!(
            report.contains(&trees_line),
            "no '{trees_line}' in:\n{report}"
        );
    }

    // The chart's second panel: one labelled point per hint and date with a share,
    // none where no tool was found, over the axis' ticks 0% to 100%.
    let svg_name = format!("census-{DATE}-trend.svg");
    let svg = fs::read_to_string(lab.path().join("out").join(&svg_name)).unwrap();
    assert!(
        svg.starts_with("<svg width=\"960\" height=\"1080\""),
        "two panels: {svg}"
    );
    let texts = svg_texts(&svg);
    let title = "Share of tool definitions found that declare each hint";
    let panel = texts
        .iter()
        .position(|t| *t == title)
        .unwrap_or_else(|| panic!("{texts:?}"));
    let mut got: Vec<String> = texts[panel..]
        .iter()
        .filter(|t| t.ends_with('%') && !t.starts_with('%'))
        .map(|t| t.to_string())
        .collect();
    labels.extend((0..=10).map(|k| format!("{}%", k * 10)));
    got.sort();
    labels.sort();
    assert_eq!(got, labels, "the tools panel's percentages");

    // The tools table lists, per date, the definitions written, and none of the
    // file over the bound or of the failed repository; a commit that stands at
    // several dates lists its definitions once, `as_of` naming each date.
    let rows = read_csv(&lab.path().join(format!("out/tools-{DATE}.csv")));
    let col = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    for (day, at) in &want {
        let mut got: Vec<[String; 4]> = rows[1..]
            .iter()
            .filter(|r| r[col("as_of")].split(' ').any(|d| d == *day))
            .map(|r| HINTS.map(|h| r[col(h)].clone()))
            .collect();
        let mut wanted: Vec<[String; 4]> = at.tools.iter().map(|h| h.map(String::from)).collect();
        got.sort();
        wanted.sort();
        assert_eq!(got, wanted, "the definitions of {day}");
    }

    // Shards merged give the same tables, report and chart, byte for byte.
    // A tree failed, so each shard and the merge exit 1 with their tables written.
    lab.shards_merge_to_out(
        1,
        &[
            format!("census-{DATE}.csv"),
            format!("tools-{DATE}.csv"),
            format!("census-{DATE}.md"),
            svg_name.clone(),
        ],
    );

    let out = lab.run(&[
        "compare",
        &format!("out/census-{DATE}.csv"),
        &format!("merged/census-{DATE}.csv"),
    ]);
    // compare pairs the tools date by date too; the failed trees make it exit 1.
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let all: usize = want.values().map(|w| w.tools.len()).sum();
    let line = format!(
        "tools: {all} definitions in the first table, {all} in the second; {} hint cells \
         agree, 0 differ\n",
        4 * all
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(&line), "no '{line}' in:\n{stdout}");
    assert!(
        stdout.contains(", 0 differ, ") && stdout.contains("; 3 trees failed"),
        "{stdout}"
    );

    // With the finder off there are no tools to share: the section and the chart
    // keep to the trees.
    census(&["--out", "literal", "--no-tools"]);
    let report = fs::read_to_string(lab.path().join(format!("literal/census-{DATE}.md"))).unwrap();
    assert!(
        report.contains("## Over time") && !report.contains("Trees read"),
        "{report}"
    );
    let svg = fs::read_to_string(lab.path().join("literal").join(&svg_name)).unwrap();
    assert!(svg.starts_with("<svg width=\"960\" height=\"540\"") && !svg.contains(title));
}

/// Returns a registry entry of `name` at `version` in the listing's shape, its
/// repository `github.com/REPO`, published at `published` when given.
fn listed(name: &str, version: &str, repo: &str, published: Option<&str>) -> serde_json::Value {
    let mut official = serde_json::json!({"status": "active", "isLatest": true});
    if let Some(at) = published {
        official["publishedAt"] = serde_json::Value::from(at);
    }
    serde_json::json!({
        "server": {"name": name, "version": version, "description": "a test server",
                   "repository": {"url": format!("https://github.com/{repo}"), "source": "github"}},
        "_meta": {"io.modelcontextprotocol.registry/official": official},
    })
}

#[test]
fn a_version_without_its_tag_is_pinned_on_the_day_it_was_published() {
    let lab = Lab::new();
    // acme/untagged: a side branch's commit of the evening of 2025-06-10 is merged
    // on 2025-06-12, so a pin by date alone would take it; the first-parent line
    // on that day ends at the morning's commit.
    let untagged = lab.repo("acme/untagged");
    lab.commit(&untagged, "2025-06-01T09:00:00Z", &[("a.ts", "1")]);
    let morning = lab.commit(&untagged, "2025-06-10T08:00:00Z", &[("a.ts", "2")]);
    lab.git(&untagged, &["checkout", "-q", "-b", "side"]);
    let evening = lab.commit(&untagged, "2025-06-10T20:00:00Z", &[("b.ts", "3")]);
    lab.git(&untagged, &["checkout", "-q", "main"]);
    lab.commit(&untagged, "2025-06-11T10:00:00Z", &[("a.ts", "4")]);
    let merged = lab
        .git
        .env(&mut Command::new("git"))
        .current_dir(&untagged)
        .env("GIT_AUTHOR_DATE", "2025-06-12T10:00:00Z")
        .env("GIT_COMMITTER_DATE", "2025-06-12T10:00:00Z")
        .args([
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(["merge", "-q", "--no-ff", "-m", "merge side", "side"])
        .output()
        .unwrap();
    assert!(merged.status.success(), "{}", show(&merged));
    let head = lab.commit(&untagged, "2025-07-01T10:00:00Z", &[("a.ts", "5")]);
    // acme/tagged: its version's tag wins over the day.
    let tagged = lab.repo("acme/tagged");
    let release = lab.commit(&tagged, "2025-05-01T10:00:00Z", &[("a.ts", "1")]);
    lab.git(&tagged, &["tag", "v1.0.0"]);
    lab.commit(&tagged, "2025-06-01T10:00:00Z", &[("a.ts", "2")]);
    // acme/young: its history begins after the day its version was published.
    let young = lab.repo("acme/young");
    lab.commit(&young, "2025-07-01T10:00:00Z", &[("a.ts", "1")]);
    // acme/undated: no publishedAt, so HEAD, as before.
    let undated = lab.repo("acme/undated");
    lab.commit(&undated, "2025-05-01T10:00:00Z", &[("a.ts", "1")]);
    let undated_head = lab.commit(&undated, "2025-08-01T10:00:00Z", &[("a.ts", "2")]);

    let page = serde_json::json!({
        "servers": [
            listed("io.github.acme/untagged", "2.0.0", "acme/untagged",
                   Some("2025-06-10T21:30:00.123456Z")),
            listed("io.github.acme/tagged", "1.0.0", "acme/tagged", Some("2025-06-20T10:00:00Z")),
            listed("io.github.acme/young", "0.1.0", "acme/young", Some("2025-06-20T10:00:00Z")),
            listed("io.github.acme/undated", "3.0.0", "acme/undated", None),
        ],
        "metadata": {"count": 4}
    });
    let registry =
        crate::corpus_build::registry(vec![serde_json::to_vec(&page).unwrap()], vec![], None);
    let out = lab.run(&[
        "corpus",
        "registry",
        "--url",
        &registry.url(),
        "--out",
        "c.toml",
        "--date",
        DATE,
        "--cache",
        "clones",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));

    // git's own answer for the day, not the merged evening commit nor HEAD.
    assert_eq!(
        lab.oracle(&untagged, "2025-06-10").as_deref(),
        Some(&*morning)
    );
    assert_ne!(morning, evening);
    let text = fs::read_to_string(lab.path().join("c.toml")).unwrap();
    let trees = crate::corpus_build::read_trees(&text);
    let pinned: BTreeMap<&str, &crate::corpus_build::Tree> =
        trees.iter().map(|t| (t["repo"].as_str(), t)).collect();
    assert_eq!(
        pinned.keys().copied().collect::<Vec<_>>(),
        ["acme/tagged", "acme/undated", "acme/untagged"],
        "{text}"
    );
    let day = pinned["acme/untagged"];
    assert_eq!(day["commit"], morning, "{text}");
    assert_ne!(day["commit"], head);
    assert_eq!(
        day["note"],
        "version 2.0.0: no tag 'v2.0.0' or '2.0.0', so default branch at the end of 2025-06-10 \
         (UTC), the day the version was published: first-parent commit of 2025-06-10 08:00:00 UTC"
    );
    assert_eq!(pinned["acme/tagged"]["commit"], release);
    assert_eq!(pinned["acme/undated"]["commit"], undated_head);
    assert!(
        pinned["acme/undated"]["note"].ends_with("at HEAD"),
        "{text}"
    );

    // The young repository is skipped with git's first commit named, not pinned today.
    let skipped = fs::read_to_string(lab.path().join("c-skipped.csv")).unwrap();
    let line = skipped
        .lines()
        .find(|l| l.contains("io.github.acme/young"))
        .unwrap_or_else(|| panic!("{skipped}"));
    assert!(
        line.contains("published (2025-06-20), but no commit on the default branch by the end of 2025-06-20 (UTC); its first is of 2025-07-01 10:00:00 UTC"),
        "{line}"
    );
    // The clones live in --cache: one per repository whose history was needed.
    let mut cloned: Vec<String> = fs::read_dir(lab.path().join("clones/clones/github.com/acme"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    cloned.sort();
    assert_eq!(cloned, ["untagged.git", "young.git"]);
}
