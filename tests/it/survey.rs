//! A registry-scale survey on loopback: a registry in the documented answer format
//! (`_meta["io.modelcontextprotocol.registry/official"]` with `isLatest` and
//! `status`, several versions per server, packages with identifiers, remote-only
//! servers), git repositories reached through `insteadOf`, a network that stalls,
//! a server that rate-limits, and a token that must stay on its own host.
//!
//! The oracles: commit ids from `git rev-parse`, the written files read back with
//! the `toml` and `csv` crates, and what the test's servers saw (connections,
//! requests, headers).

use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{
    self, header, numbered_tree, read_csv, reply, show, silent_server, targz, Git, Item, Loopback,
    Run,
};
use crate::corpus_build::{forges, read_trees};

const DATE: &str = "2026-11-30";

/// Returns one answer entry: server.json and the registry's `_meta`.
fn entry(
    name: &str,
    version: &str,
    repository: Option<Value>,
    latest: bool,
    status: &str,
    extra: Value,
) -> Value {
    let mut server = json!({"name": name, "description": "d", "version": version});
    if let Some(r) = repository {
        server["repository"] = r;
    }
    if let Value::Object(fields) = extra {
        for (k, v) in fields {
            server[k] = v;
        }
    }
    json!({"server": server, "_meta": {"io.modelcontextprotocol.registry/official": {
        "status": status, "isLatest": latest, "publishedAt": "2026-01-01T00:00:00Z"}}})
}

fn gh(repo: &str) -> Option<Value> {
    Some(json!({"url": format!("https://github.com/{repo}"), "source": "github"}))
}

fn npm(identifier: &str, version: &str) -> Value {
    json!({"packages": [{"registryType": "npm", "identifier": identifier, "version": version}]})
}

fn page(servers: Vec<Value>, next: Option<&str>) -> Vec<u8> {
    let mut page = json!({"servers": servers, "metadata": {"count": 1}});
    if let Some(next) = next {
        page["metadata"]["nextCursor"] = json!(next);
    }
    serde_json::to_vec_pretty(&page).unwrap()
}

struct Lab {
    forges: Git,
    work: tempfile::TempDir,
    multi_v1: String,
    multi_v2: String,
    brave_scoped: String,
    pkgtag: String,
}

fn lab() -> Lab {
    let forges = forges();
    let multi = forges.repo("github.com", "acme/multi", "main", 1);
    forges.git(&multi, &["tag", "v1.0.0"]);
    forges.commit(&multi, "two");
    forges.git(&multi, &["tag", "v2.0.0"]);
    let brave = forges.repo("github.com", "brave/search", "main", 1);
    forges.git(&brave, &["tag", "@brave/search-mcp@1.5.0"]);
    forges.commit(&brave, "later");
    // Tried after the scoped tag, so never chosen.
    forges.git(&brave, &["tag", "search-mcp-v1.5.0"]);
    forges.commit(&brave, "head");
    let pkg = forges.repo("github.com", "acme/pkgtag", "main", 1);
    forges.git(&pkg, &["tag", "pkgtag-mcp-v0.3.0"]);
    forges.commit(&pkg, "head");
    Lab {
        multi_v1: forges.rev(&multi, "v1.0.0"),
        multi_v2: forges.rev(&multi, "v2.0.0"),
        brave_scoped: forges.rev(&brave, "@brave/search-mcp@1.5.0"),
        pkgtag: forges.rev(&pkg, "pkgtag-mcp-v0.3.0"),
        forges,
        work: tempfile::tempdir().unwrap(),
    }
}

fn survey_pages() -> Vec<Vec<u8>> {
    let none = json!({});
    let remote =
        json!({"remotes": [{"type": "streamable-http", "url": "https://only.example/mcp"}]});
    vec![
        page(
            vec![
                entry(
                    "io.github.acme/multi",
                    "1.0.0",
                    gh("acme/multi"),
                    false,
                    "active",
                    none.clone(),
                ),
                entry(
                    "io.github.acme/multi",
                    "2.0.0",
                    gh("acme/multi"),
                    true,
                    "active",
                    none.clone(),
                ),
                entry(
                    "io.github.acme/old",
                    "1.0.0",
                    gh("acme/multi"),
                    true,
                    "deprecated",
                    none.clone(),
                ),
                entry(
                    "io.github.brave/search",
                    "1.5.0",
                    gh("brave/search"),
                    true,
                    "active",
                    npm("@brave/search-mcp", "1.5.0"),
                ),
                entry(
                    "ai.smithery/brave-search",
                    "1.5.0",
                    gh("brave/search"),
                    true,
                    "active",
                    npm("@brave/search-mcp", "1.5.0"),
                ),
            ],
            Some("p2"),
        ),
        page(
            vec![
                entry(
                    "io.github.acme/pkgtag",
                    "0.3.0",
                    gh("acme/pkgtag"),
                    true,
                    "active",
                    json!({"packages": [{"registryType": "pypi", "identifier": "pkgtag-mcp", "version": "0.3.0"}]}),
                ),
                entry(
                    "com.example/remote-only",
                    "1.0.0",
                    None,
                    true,
                    "active",
                    remote,
                ),
                entry(
                    "io.github.acme/multi",
                    "1.5.0",
                    gh("acme/multi"),
                    false,
                    "active",
                    none.clone(),
                ),
                entry(
                    "io.github.acme/gone",
                    "1.0.0",
                    Some(json!({"url": "https://github.com/acme/gone", "subfolder": "servers/x"})),
                    true,
                    "active",
                    none,
                ),
            ],
            None,
        ),
    ]
}

#[test]
fn a_registry_survey_is_one_tree_per_server_at_its_latest_version() {
    let lab = lab();
    let dir = lab.work.path();
    let pages = survey_pages();
    std::fs::create_dir(dir.join("pages")).unwrap();
    for (i, p) in pages.iter().enumerate() {
        std::fs::write(dir.join(format!("pages/{i}.json")), p).unwrap();
    }
    // The same pages twice: once as a folder, once file by file.
    let args = [
        "corpus",
        "registry",
        "--pages",
        "pages",
        "--pages",
        "pages/0.json",
        "--pages",
        "pages/1.json",
        "--out",
        "c.toml",
        "--remotes",
        "r.toml",
        "--date",
        DATE,
    ];
    let out = lab.forges.run(dir, &args);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("2 older versions left out"), "{stderr}");
    let text = std::fs::read_to_string(dir.join("c.toml")).unwrap();
    let got: Vec<(String, String, String, String)> = read_trees(&text)
        .into_iter()
        .map(|t| {
            (
                t["repo"].clone(),
                t["commit"].clone(),
                t.get("name").cloned().unwrap_or_default(),
                t["note"].clone(),
            )
        })
        .collect();
    let s = |x: &str| x.to_string();
    assert_eq!(
        got,
        [
            (s("acme/multi"), lab.multi_v2.clone(), s("io.github.acme/multi"), s("version 2.0.0: tag 'v2.0.0'")),
            (s("acme/pkgtag"), lab.pkgtag.clone(), s("io.github.acme/pkgtag"), s("version 0.3.0: tag 'pkgtag-mcp-v0.3.0'")),
            (
                s("brave/search"),
                lab.brave_scoped.clone(),
                s("io.github.brave/search"),
                s("version 1.5.0: tag '@brave/search-mcp@1.5.0'; also listed as ai.smithery/brave-search")
            ),
        ],
        "{text}"
    );
    let rows = read_csv(&dir.join("c-skipped.csv"));
    assert_eq!(
        rows[0],
        ["name", "version", "repository", "subfolder", "reason"]
    );
    assert_eq!(
        rows.len(),
        4,
        "each skip once, however often its page was given: {rows:#?}"
    );
    assert_eq!(rows[1][..4], ["com.example/remote-only", "1.0.0", "", ""]);
    assert_eq!(rows[1][4], "no repository");
    assert_eq!(
        rows[2][..4],
        [
            "io.github.acme/gone",
            "1.0.0",
            "https://github.com/acme/gone",
            "servers/x"
        ]
    );
    assert!(
        rows[2][4].starts_with("git ls-remote failed (exit 128)"),
        "{rows:#?}"
    );
    assert_eq!(
        rows[3][..4],
        [
            "io.github.acme/old",
            "1.0.0",
            "https://github.com/acme/multi",
            ""
        ]
    );
    assert_eq!(rows[3][4], "status 'deprecated'");
    let remotes = std::fs::read_to_string(dir.join("r.toml")).unwrap();
    assert!(
        remotes.contains("url = \"https://only.example/mcp\""),
        "{remotes}"
    );

    // Every version kept: acme/multi at v1.0.0 as well (1.5.0 has no tag and
    // falls back to HEAD, which is v2.0.0's commit).
    let mut all = args.to_vec();
    all.push("--all-versions");
    let out = lab.forges.run(dir, &all);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let trees = read_trees(&std::fs::read_to_string(dir.join("c.toml")).unwrap());
    let multi: Vec<&str> = trees
        .iter()
        .filter(|t| t["repo"] == "acme/multi")
        .map(|t| t["commit"].as_str())
        .collect();
    let mut want = vec![lab.multi_v1.as_str(), lab.multi_v2.as_str()];
    want.sort();
    let mut multi_sorted = multi.clone();
    multi_sorted.sort();
    assert_eq!(multi_sorted, want);
}

#[test]
fn saved_pages_cut_short_or_in_the_old_format_are_refused() {
    let lab = lab();
    let dir = lab.work.path();
    let pages = survey_pages();
    std::fs::write(dir.join("first.json"), &pages[0]).unwrap();
    let out = lab.forges.run(
        dir,
        &[
            "corpus",
            "registry",
            "--pages",
            "first.json",
            "--out",
            "c.toml",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no page answers the cursor 'p2' of 'first.json'"),
        "{stderr}"
    );
    assert!(!dir.join("c.toml").exists());
    let out = lab.forges.run(
        dir,
        &[
            "corpus",
            "registry",
            "--pages",
            "first.json",
            "--partial",
            "--out",
            "c.toml",
            "--date",
            DATE,
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));

    let flat = json!({"servers": [{"name": "io.github.a/b", "version_detail": {"version": "1"}}],
                      "metadata": {"next_cursor": null}});
    std::fs::write(dir.join("flat.json"), serde_json::to_vec(&flat).unwrap()).unwrap();
    let out = lab.forges.run(
        dir,
        &[
            "corpus",
            "registry",
            "--pages",
            "flat.json",
            "--out",
            "f.toml",
        ],
    );
    assert_ne!(out.status.code(), Some(0), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("'flat.json' looks like a page of the older /v0 API"),
        "{stderr}"
    );
    assert!(!dir.join("f.toml").exists());
}

#[test]
fn remotes_are_written_when_no_tree_could_be_pinned() {
    let lab = lab();
    let dir = lab.work.path();
    let remote =
        json!({"remotes": [{"type": "streamable-http", "url": "https://only.example/mcp"}]});
    let p = page(
        vec![
            entry(
                "com.example/remote-only",
                "1.0.0",
                None,
                true,
                "active",
                remote,
            ),
            entry(
                "io.github.acme/gone",
                "1.0.0",
                gh("acme/gone"),
                true,
                "active",
                json!({}),
            ),
        ],
        None,
    );
    std::fs::write(dir.join("p.json"), p).unwrap();
    let out = lab.forges.run(
        dir,
        &[
            "corpus",
            "registry",
            "--pages",
            "p.json",
            "--out",
            "c.toml",
            "--remotes",
            "r.toml",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(!dir.join("c.toml").exists());
    let remotes = std::fs::read_to_string(dir.join("r.toml")).unwrap();
    assert!(
        remotes.contains("name = \"com.example/remote-only\""),
        "{remotes}"
    );
}

/// Returns the processes whose command line names `needle`, and the zombie git
/// helpers, from /proc.
fn leftovers(needle: &str) -> (Vec<String>, usize) {
    let mut live = Vec::new();
    let mut zombies = 0;
    for dir in std::fs::read_dir("/proc").unwrap().flatten() {
        let path = dir.path();
        let Ok(stat) = std::fs::read_to_string(path.join("stat")) else {
            continue;
        };
        let cmdline = std::fs::read(path.join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains(needle) {
            live.push(cmdline);
        }
        let (name, rest) = stat.split_once(')').unwrap_or(("", ""));
        if name.contains("git-remote") && rest.trim_start().starts_with('Z') {
            zombies += 1;
        }
    }
    (live, zombies)
}

#[test]
fn a_dead_network_stops_pinning_and_leaves_no_git_behind() {
    let forges = forges();
    let good = forges.repo("github.com", "acme/good", "main", 1);
    let head = forges.rev(&good, "HEAD");
    let (port, accepted) = silent_server();
    let work = tempfile::tempdir().unwrap();
    forges.rule(
        &format!("http://127.0.0.1:{port}/"),
        "https://bitbucket.org/",
    );
    let mut list = String::from("acme/good\n");
    for i in 0..30 {
        list.push_str(&format!("https://bitbucket.org/dead/repo{i:02}\n"));
    }
    std::fs::write(work.path().join("repos.txt"), list).unwrap();
    let (_, zombies_before) = leftovers("\u{1}never");
    let started = Instant::now();
    let out = forges
        .bin(work.path())
        .env("GIT_ALLOW_PROTOCOL", "http:file")
        .args([
            "corpus",
            "list",
            "repos.txt",
            "--out",
            "l.toml",
            "--timeout",
            "1",
            "--retries",
            "3",
            "--give-up-after",
            "4",
            "--jobs",
            "2",
        ])
        .output();
    let elapsed = started.elapsed();
    // At once, before curl's own low-speed limit (2 s) could end a helper.
    let (live, zombies_after) = leftovers(&format!("127.0.0.1:{port}"));
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}\n{:?}",
        show(&out),
        std::fs::read_to_string(work.path().join("l-skipped.csv"))
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("pinning stopped after 4 network failures in a row")
            && stderr.contains("git ls-remote 'https://bitbucket.org/dead/repo"),
        "{stderr}"
    );
    // Four failed tries trip the breaker; at most one more per worker was in flight.
    let tries = accepted.load(Ordering::SeqCst);
    assert!((4..=6).contains(&tries), "{tries} connections");
    // 30 repositories x 4 tries x 1 s over 2 workers would take a minute.
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
    assert!(live.is_empty(), "left running: {live:#?}");
    assert!(
        zombies_after <= zombies_before,
        "zombie git helpers left behind"
    );
    let trees = read_trees(&std::fs::read_to_string(work.path().join("l.toml")).unwrap());
    assert_eq!(trees.len(), 1);
    assert_eq!(trees[0]["commit"], head);
    let rows = read_csv(&work.path().join("l-skipped.csv"));
    assert_eq!(rows.len(), 31, "{rows:#?}");
    let not_tried = rows
        .iter()
        .filter(|r| r[4].contains("not tried: the run stopped after"))
        .count();
    assert!(not_tried >= 30 - 6, "{rows:#?}");
}

fn write_corpus(dir: &Path, url: &str, n: usize) {
    let trees: Vec<_> = (0..n).map(numbered_tree).collect();
    common::write_corpus(dir, url, &trees);
}

fn census(dir: &Path, extra: &[&str], env: &[(&str, String)]) -> std::process::Output {
    let mut c = Run::new(dir);
    c.command()
        .args([
            "census",
            "--corpus",
            "corpus.toml",
            "--out",
            "out",
            "--cache",
            "cache",
        ])
        .args(["--date", DATE, "--quiet"])
        .args(extra)
        .env_remove("GITHUB_TOKEN")
        .env_remove("GITHUB_SERVER_URL");
    for (k, v) in env {
        c = c.env(k, v);
    }
    c.output()
}

#[test]
fn a_census_against_a_dead_mirror_stops() {
    let (port, accepted) = silent_server();
    let work = tempfile::tempdir().unwrap();
    write_corpus(
        work.path(),
        &format!("http://127.0.0.1:{port}/{{repo}}/{{commit}}"),
        30,
    );
    let started = Instant::now();
    let out = census(
        work.path(),
        &[
            "--timeout",
            "1",
            "--retries",
            "3",
            "--give-up-after",
            "4",
            "--jobs",
            "2",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the downloads stopped after 4 network failures in a row"),
        "{stderr}"
    );
    let tries = accepted.load(Ordering::SeqCst);
    assert!((4..=6).contains(&tries), "{tries} connections");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}

/// Returns what a test HTTP server saw: each request's path and Authorization.
fn seen(server: &Loopback) -> Vec<(String, Option<String>)> {
    server
        .seen()
        .into_iter()
        .map(|r| {
            let auth = r.header("Authorization");
            (r.url, auth)
        })
        .collect()
}

#[test]
fn rate_limits_are_waited_out_and_the_token_stays_on_its_host() {
    let archive = targz(
        "r-1",
        None,
        &[Item::File("a.py".into(), b"readOnlyHint".to_vec())],
    );
    let mirror_archive = archive.clone();
    let mirror_server = Loopback::start(move |_| reply(200, mirror_archive.clone()));
    let mirror = mirror_server.port();
    let reset = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 2;
    let own_server = Loopback::start(move |request| match (request.url.as_str(), request.nth) {
        (p, 1) if p.contains("r00") => tiny_http::Response::from_data(b"slow down".to_vec())
            .with_status_code(429)
            .with_header(header("Retry-After: 1"))
            .boxed(),
        (p, 1) if p.contains("r01") => tiny_http::Response::from_data(b"spent".to_vec())
            .with_status_code(403)
            .with_header(header("x-ratelimit-remaining: 0"))
            .with_header(header(&format!("x-ratelimit-reset: {reset}")))
            .boxed(),
        (p, _) if p.contains("r02") => tiny_http::Response::empty(302)
            .with_header(header(&format!(
                "Location: http://127.0.0.1:{mirror}/elsewhere"
            )))
            .boxed(),
        _ => tiny_http::Response::from_data(archive.clone()).boxed(),
    });
    let own = own_server.port();
    let work = tempfile::tempdir().unwrap();
    write_corpus(
        work.path(),
        &format!("http://127.0.0.1:{own}/{{repo}}/{{commit}}"),
        3,
    );
    // A fourth tree is on the mirror itself.
    let mut text = std::fs::read_to_string(work.path().join("corpus.toml")).unwrap();
    text.push_str(&format!(
        "\n[[tree]]\nrepo = \"o/m\"\ncommit = \"{:040x}\"\narchive_url = \"http://127.0.0.1:{mirror}/m\"\n",
        9
    ));
    std::fs::write(work.path().join("corpus.toml"), text).unwrap();
    let started = Instant::now();
    let out = census(
        work.path(),
        &["--jobs", "1", "--retries", "2"],
        &[
            ("GITHUB_TOKEN", "s3cret".to_string()),
            ("GITHUB_SERVER_URL", format!("http://127.0.0.1:{own}")),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.matches("rate limited at '127.0.0.1:").count(),
        2,
        "{stderr}"
    );
    let own_seen = seen(&own_server);
    let tries = |repo: &str| own_seen.iter().filter(|(p, _)| p.contains(repo)).count();
    assert_eq!(
        (tries("r00"), tries("r01"), tries("r02")),
        (2, 2, 1),
        "{own_seen:#?}"
    );
    assert!(
        own_seen
            .iter()
            .all(|(_, a)| a.as_deref() == Some("Bearer s3cret")),
        "{own_seen:#?}"
    );
    let mirror_seen = seen(&mirror_server);
    assert_eq!(mirror_seen.len(), 2, "{mirror_seen:#?}");
    assert!(
        mirror_seen.iter().all(|(_, a)| a.is_none()),
        "the token reached the mirror: {mirror_seen:#?}"
    );
}
