//! Every git the tool starts reads no repository it was not pointed at: pinning a
//! list, a dated list or a registry from inside a checkout whose configuration arms a
//! credential helper, `core.sshCommand`, `core.fsmonitor` and an `insteadOf` onto a
//! server that answers 401 runs none of them, while the user's own (global)
//! `insteadOf` still routes every repository to the test's mirrors.
//!
//! The oracles: commit ids from `git rev-parse` in the mirrors, the marker files the
//! armed commands would create, and the requests the 401 server saw. A control run of
//! plain `git ls-remote` from the same checkout shows the arming is live.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

use crate::common::{header, show, Git, Loopback};
use crate::corpus_build::{forges, read_trees, registry};

const DATE: &str = "2026-11-30";

/// A forge that answers every request with 401 and a Basic challenge, as a forge
/// does over HTTPS for a missing or private repository.
fn forge_401() -> Loopback {
    Loopback::start(|_| {
        tiny_http::Response::from_data(b"denied".to_vec())
            .with_status_code(401)
            .with_header(header("WWW-Authenticate: Basic realm=\"forge\""))
            .boxed()
    })
}

/// Makes a checkout in `dir` whose own configuration arms a marker for each command
/// it can make git run, and routes `https://github.com/acme/` to the 401 forge and
/// `https://gitlab.com/group/` over ssh; returns a folder inside it to run from.
fn hostile_checkout(git: &Git, dir: &Path, forge: &Loopback) -> PathBuf {
    let checkout = git.init(&dir.join("checkout"), "main");
    let helper = format!("!f() {{ {}; }}; f", git.marker("credential-helper"));
    let settings = [
        ("credential.helper", helper),
        ("core.sshCommand", git.marker("ssh-command")),
        ("core.fsmonitor", git.marker("fsmonitor")),
        (
            &format!("url.http://127.0.0.1:{}/.insteadOf", forge.port()),
            "https://github.com/acme/".to_string(),
        ),
        (
            "url.ssh://git@127.0.0.1:9/.insteadOf",
            "https://gitlab.com/group/".to_string(),
        ),
    ];
    for (key, value) in &settings {
        git.git(&checkout, &["config", key, value]);
    }
    let inside = checkout.join("deep").join("er");
    std::fs::create_dir_all(&inside).unwrap();
    inside
}

#[test]
fn pinning_from_inside_a_hostile_checkout_runs_nothing_of_it() {
    let forges = forges();
    let tools = forges.init(&forges.path().join("github.com/acme/tools"), "main");
    forges.commit_at(&tools, "2025-06-01T12:00:00+00:00", &[("a.ts", "one")]);
    let proj = forges.init(&forges.path().join("gitlab.com/group/proj"), "main");
    forges.commit_at(&proj, "2025-05-01T12:00:00+00:00", &[("b.py", "two")]);
    for repo in [&tools, &proj] {
        forges.git(repo, &["config", "uploadpack.allowFilter", "true"]);
    }
    let forge = forge_401();
    let work = tempfile::tempdir().unwrap();
    let cwd = hostile_checkout(&forges, work.path(), &forge);
    // The control: the user's own git, run from the checkout, reads its config and
    // runs the credential helper on the 401.
    let control = forges
        .env(&mut Command::new("git"))
        .current_dir(&cwd)
        .env("GIT_ALLOW_PROTOCOL", "file:http:ssh")
        .args(["ls-remote", "https://github.com/acme/tools"])
        .output()
        .unwrap();
    assert!(!control.status.success(), "{}", show(&control));
    assert_eq!(
        forges.markers(),
        ["credential-helper"],
        "the arming is live"
    );
    std::fs::remove_file(forges.path().join("markers/credential-helper")).unwrap();
    let asked = forge.seen().len();

    std::fs::write(
        cwd.join("repos.txt"),
        "acme/tools\nhttps://gitlab.com/group/proj\n",
    )
    .unwrap();
    let page = json!({
        "servers": [{
            "server": {
                "name": "io.github.acme/tools",
                "description": "a test server",
                "version": "1.0.0",
                "repository": {"url": "https://github.com/acme/tools", "source": "github"},
            },
            "_meta": {"io.modelcontextprotocol.registry/official": {
                "status": "active", "isLatest": true,
                "publishedAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z",
            }},
        }],
        "metadata": {"count": 1},
    });
    let registry = registry(vec![serde_json::to_vec(&page).unwrap()], vec![], None);
    let url = registry.url();
    let runs: [&[&str]; 3] = [
        &[
            "corpus",
            "list",
            "repos.txt",
            "--out",
            "c.toml",
            "--date",
            DATE,
        ],
        &[
            "corpus",
            "list",
            "repos.txt",
            "--out",
            "d.toml",
            "--date",
            DATE,
            "--at",
            "2025-07-01",
            "--cache",
            "cache",
        ],
        &[
            "corpus", "registry", "--url", &url, "--out", "r.toml", "--date", DATE, "--jobs", "1",
        ],
    ];
    for args in runs {
        // Every transport a regression could use is allowed, so only the tool's own
        // hardening stands between the checkout's configuration and git.
        let out = forges
            .bin(&cwd)
            .args(args)
            .envs(&[("GIT_ALLOW_PROTOCOL", "file:http:https:ssh")])
            .output();
        let skipped = std::fs::read_to_string(cwd.join("d-skipped.csv")).unwrap_or_default();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}\n{}\n{skipped}",
            show(&out)
        );
        assert_eq!(forges.markers(), Vec::<String>::new(), "{args:?}");
        assert_eq!(
            forge.seen().len(),
            asked,
            "{args:?}: the 401 forge was asked"
        );
    }
    let tools_head = forges.rev(&tools, "HEAD");
    let proj_head = forges.rev(&proj, "HEAD");
    let commits = |file: &str| -> Vec<String> {
        let text = std::fs::read_to_string(cwd.join(file)).unwrap();
        let mut commits: Vec<String> = read_trees(&text)
            .into_iter()
            .map(|t| t["commit"].clone())
            .collect();
        commits.sort();
        commits
    };
    let mut both = vec![tools_head.clone(), proj_head];
    both.sort();
    assert_eq!(commits("c.toml"), both);
    assert_eq!(commits("d.toml"), both);
    assert_eq!(commits("r.toml"), [tools_head]);
}
