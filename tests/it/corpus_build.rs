//! End-to-end tests of `corpus registry` and `corpus list`: a registry served from
//! 127.0.0.1 in the documented answer format, real git repositories made here and
//! reached through `url.<base>.insteadOf`, and the built binary in between.
//!
//! The oracles: commit ids from `git rev-parse` in the test's own repositories,
//! the written files read back with the `toml` and `csv` crates, the census's
//! own corpus parser, and the cursors the test server handed out.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::{header, read_csv, reply, run, show, silent_server, Git, Loopback};
use serde_json::{json, Value};

const DATE: &str = "2026-11-30";

/// Returns git repositories made for a test, served to `git ls-remote` by insteadOf
/// rules that map github.com, gitlab.com and codeberg.org onto folders here.
pub fn forges() -> Git {
    Git::serving(&["github.com", "gitlab.com", "codeberg.org"])
}

/// The commits of the test's repositories, from `git rev-parse`.
struct Commits {
    /// acme/tools at the annotated tag v1.2.0, peeled.
    tools_v120: String,
    /// The tag object of v1.2.0, which must never be taken for the commit.
    tools_v120_tag_object: String,
    /// acme/tools at the lightweight tag 0.9.0.
    tools_090: String,
    /// acme/tools at HEAD of main.
    tools_head: String,
    /// acme/mono at HEAD of trunk.
    mono_head: String,
    /// group/proj on GitLab at HEAD of main, tagged v2.0.0.
    gitlab_head: String,
    /// cb/srv on Codeberg at HEAD of main.
    codeberg_head: String,
}

fn make_repositories(forges: &Git) -> Commits {
    let tools = forges.repo("github.com", "acme/tools", "main", 1);
    forges.git(&tools, &["tag", "-a", "v1.2.0", "-m", "release 1.2.0"]);
    forges.commit(&tools, "after 1.2.0");
    forges.git(&tools, &["tag", "0.9.0"]);
    forges.commit(&tools, "head");
    let mono = forges.repo("github.com", "acme/mono", "trunk", 2);
    let gitlab = forges.repo("gitlab.com", "group/proj", "main", 2);
    forges.git(&gitlab, &["tag", "v2.0.0"]);
    let codeberg = forges.repo("codeberg.org", "cb/srv", "main", 1);
    let commits = Commits {
        tools_v120: forges.rev(&tools, "v1.2.0^{commit}"),
        tools_v120_tag_object: forges.rev(&tools, "v1.2.0"),
        tools_090: forges.rev(&tools, "0.9.0"),
        tools_head: forges.rev(&tools, "HEAD"),
        mono_head: forges.rev(&mono, "HEAD"),
        gitlab_head: forges.rev(&gitlab, "HEAD"),
        codeberg_head: forges.rev(&codeberg, "HEAD"),
    };
    assert_ne!(commits.tools_v120, commits.tools_v120_tag_object);
    assert_ne!(commits.tools_v120, commits.tools_090);
    assert_ne!(commits.tools_090, commits.tools_head);
    commits
}

/// Returns one registry answer entry in the documented shape.
fn server(name: &str, version: &str, repository: Option<Value>, remotes: Value) -> Value {
    let mut server = json!({
        "$schema": "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json",
        "name": name,
        "description": "a test server",
        "version": version,
        "remotes": remotes,
    });
    if let Some(repository) = repository {
        server["repository"] = repository;
    }
    json!({
        "server": server,
        "_meta": {"io.modelcontextprotocol.registry/official": {
            "status": "active", "isLatest": true}}
    })
}

fn github(url: &str) -> Option<Value> {
    Some(json!({"url": url, "source": "github"}))
}

const CURSOR_1: &str = "io.github.acme/tools-old:0.9.0";
const CURSOR_2: &str = "c2 +&=/%?#";

/// Returns the three answer pages, chained by CURSOR_1 and CURSOR_2.
fn pages() -> Vec<Vec<u8>> {
    let tools = server(
        "io.github.acme/tools",
        "1.2.0",
        github("https://github.com/acme/tools"),
        json!([
            {"type": "streamable-http", "url": "https://tools.example/mcp",
             "headers": [{"name": "Authorization", "isRequired": true, "isSecret": true,
                          "value": "Bearer {token}"}]},
            {"type": "sse", "url": "https://tools.example/sse"}
        ]),
    );
    let page1 = json!({
        "servers": [
            tools.clone(),
            server("io.github.acme/tools-git", "1.2.0",
                   github("git+https://github.com/acme/tools.git"), json!([])),
            server("io.github.acme/tools-old", "0.9.0",
                   github("https://github.com/acme/tools/"), json!([])),
            server("com.example/no-repo", "1.0.0", None,
                   json!([{"type": "streamable-http", "url": "https://remote.example/mcp"}])),
        ],
        "metadata": {"nextCursor": CURSOR_1, "count": 4}
    });
    let mono = |name: &str, sub: &str| {
        server(
            name,
            "3.0.0",
            Some(
                json!({"url": "https://github.com/acme/mono", "source": "github",
                           "subfolder": sub}),
            ),
            json!([]),
        )
    };
    let page2 = json!({
        "servers": [
            server("io.github.acme/tools-alias", "1.2.0",
                   github("http://www.GitHub.com/acme/tools.git/"), json!([])),
            server("io.github.acme/tools-case", "1.2.0",
                   github("https://github.com/ACME/Tools"), json!([])),
            mono("io.github.acme/mono-b", "servers/b"),
            mono("io.github.acme/mono-a", "servers/a"),
            mono("io.github.acme/mono-evil", "../x"),
            tools,
            server("com.example/empty-repo", "1.0.0",
                   Some(json!({"url": "", "source": ""})), json!([])),
        ],
        "metadata": {"nextCursor": CURSOR_2, "count": 7}
    });
    let page3 = json!({
        "servers": [
            server("com.gitlab/proj", "2.0.0",
                   Some(json!({"url": "https://gitlab.com/group/proj", "source": "gitlab"})),
                   json!([])),
            server("com.gitlab/nested", "1.0.0",
                   Some(json!({"url": "https://gitlab.com/a/b/c", "source": "gitlab"})),
                   json!([])),
            server("org.example/selfhosted", "1.0.0",
                   Some(json!({"url": "https://git.example.org/x/y", "source": "gitea"})),
                   json!([])),
            server("io.github.acme/missing", "1.0.0",
                   github("https://github.com/acme/missing"), json!([])),
            server("io.github.acme/web", "1.0.0",
                   github("https://github.com/acme/tools/tree/main/src"), json!([])),
            server("org.codeberg/srv", "1.0.0",
                   Some(json!({"url": "https://codeberg.org/cb/srv", "source": "codeberg"})),
                   json!([])),
        ],
        "metadata": {"count": 6}
    });
    [page1, page2, page3]
        .iter()
        .map(|p| serde_json::to_vec_pretty(p).unwrap())
        .collect()
}

/// Decodes application/x-www-form-urlencoded text, the obvious way.
fn form_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap();
                out.push(u8::from_str_radix(hex, 16).unwrap());
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).unwrap()
}

/// Returns a request's path and its decoded query parameters.
fn split_request(url: &str) -> (String, BTreeMap<String, String>) {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let params = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (form_decode(k), form_decode(v))
        })
        .collect();
    (path.to_string(), params)
}

/// Starts a registry on 127.0.0.1 that serves `pages[0]` without a cursor and
/// `pages[k]` for `cursors[k-1]`; the first request for the page at `fail_once`
/// gets a 503.
pub fn registry(pages: Vec<Vec<u8>>, cursors: Vec<String>, fail_once: Option<usize>) -> Loopback {
    let mut failed = false;
    Loopback::start(move |request| {
        let (path, params) = split_request(&request.url);
        let page = match params.get("cursor") {
            None => Some(0),
            Some(c) => cursors.iter().position(|x| x == c).map(|i| i + 1),
        };
        match page {
            Some(k) if path == "/v0.1/servers" && k < pages.len() => {
                if fail_once == Some(k) && !failed {
                    failed = true;
                    tiny_http::Response::from_data(b"{\"error\":\"busy\"}".to_vec())
                        .with_status_code(503)
                        .with_header(header("Retry-After: 0"))
                        .boxed()
                } else {
                    tiny_http::Response::from_data(pages[k].clone())
                        .with_header(header("Content-Type: application/json"))
                        .boxed()
                }
            }
            _ => reply(400, b"{\"error\":\"bad cursor\"}".to_vec()),
        }
    })
}

/// Returns the URLs a registry was asked for, in order.
fn requests(registry: &Loopback) -> Vec<String> {
    registry.seen().into_iter().map(|r| r.url).collect()
}

/// One expected tree, every key as a string.
pub type Tree = BTreeMap<String, String>;

fn tree(pairs: &[(&str, &str)]) -> Tree {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Returns the trees of a written corpus, read with the toml crate.
pub fn read_trees(text: &str) -> Vec<Tree> {
    let value: toml::Value = toml::from_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    value["tree"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            t.as_table()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
                .collect()
        })
        .collect()
}

/// Returns the archive URL the census should fetch for a tree: the forges' own
/// schemes, spelled out here independently of the code.
fn archive_of(t: &Tree) -> String {
    let (repo, commit) = (&t["repo"], &t["commit"]);
    match t.get("archive_url").map(String::as_str) {
        None => format!("https://codeload.github.com/{repo}/tar.gz/{commit}"),
        Some(u) if u.starts_with("https://gitlab.com/") => {
            let name = repo.split('/').nth(1).unwrap();
            format!("https://gitlab.com/{repo}/-/archive/{commit}/{name}-{commit}.tar.gz")
        }
        Some(u) if u.starts_with("https://codeberg.org/") => {
            format!("https://codeberg.org/{repo}/archive/{commit}.tar.gz")
        }
        Some(u) => panic!("unexpected archive_url '{u}'"),
    }
}

/// Checks that the census's own corpus parser accepts `text` and sees `expected`:
/// the same trees, subfolders, names and filled-in archive URLs, and the default
/// terms and controls.
fn assert_census_accepts(text: &str, expected: &[Tree]) {
    let corpus = mcp_hint_census::corpus::file::parse("built.toml", text)
        .unwrap_or_else(|e| panic!("the census refuses the corpus: {e}\n{text}"));
    assert_eq!(
        corpus.columns,
        mcp_hint_census::count::terms::Columns::default_columns()
    );
    type Seen = (String, String, Option<String>, Option<String>, String);
    let got: Vec<Seen> = corpus
        .trees
        .iter()
        .map(|t| {
            let t = t.clone();
            let pin = t.pin_text().to_string();
            (t.repo, pin, t.subfolder, t.name, t.archive_url)
        })
        .collect();
    let want: Vec<Seen> = expected
        .iter()
        .map(|t| {
            (
                t["repo"].clone(),
                t["commit"].clone(),
                t.get("subfolder").cloned(),
                t.get("name").cloned(),
                archive_of(t),
            )
        })
        .collect();
    assert_eq!(got, want);
}

/// Sorts trees the documented way: repository (ASCII case-insensitively), subfolder, commit.
fn sorted(mut trees: Vec<Tree>) -> Vec<Tree> {
    trees.sort_by_key(|t| {
        (
            t["repo"].to_ascii_lowercase(),
            t.get("subfolder").cloned().unwrap_or_default(),
            t["commit"].clone(),
        )
    });
    trees
}

fn expected_registry_trees(c: &Commits) -> Vec<Tree> {
    let mono_note = "version 3.0.0: no tag 'v3.0.0' or '3.0.0', so default branch 'trunk' at HEAD";
    sorted(vec![
        tree(&[
            ("repo", "acme/tools"),
            ("commit", &c.tools_v120),
            ("name", "io.github.acme/tools"),
            (
                "note",
                "version 1.2.0: tag 'v1.2.0'; also listed as io.github.acme/tools-alias, \
                      io.github.acme/tools-case, io.github.acme/tools-git",
            ),
        ]),
        tree(&[
            ("repo", "acme/tools"),
            ("commit", &c.tools_090),
            ("name", "io.github.acme/tools-old"),
            ("note", "version 0.9.0: tag '0.9.0'"),
        ]),
        tree(&[
            ("repo", "acme/mono"),
            ("commit", &c.mono_head),
            ("subfolder", "servers/a"),
            ("name", "io.github.acme/mono-a"),
            ("note", mono_note),
        ]),
        tree(&[
            ("repo", "acme/mono"),
            ("commit", &c.mono_head),
            ("subfolder", "servers/b"),
            ("name", "io.github.acme/mono-b"),
            ("note", mono_note),
        ]),
        tree(&[
            ("repo", "group/proj"),
            ("commit", &c.gitlab_head),
            ("name", "com.gitlab/proj"),
            ("note", "version 2.0.0: tag 'v2.0.0'"),
            (
                "archive_url",
                "https://gitlab.com/{owner}/{name}/-/archive/{commit}/{name}-{commit}.tar.gz",
            ),
        ]),
        tree(&[
            ("repo", "cb/srv"),
            ("commit", &c.codeberg_head),
            ("name", "org.codeberg/srv"),
            (
                "note",
                "version 1.0.0: no tag 'v1.0.0' or '1.0.0', so default branch 'main' at HEAD",
            ),
            (
                "archive_url",
                "https://codeberg.org/{owner}/{name}/archive/{commit}.tar.gz",
            ),
        ]),
    ])
}

fn expected_skipped() -> Vec<[&'static str; 3]> {
    vec![
        ["com.example/empty-repo", "", "no repository"],
        ["com.example/no-repo", "", "no repository"],
        ["com.gitlab/nested", "https://gitlab.com/a/b/c",
         "not a repository URL: 'a/b/c' is in a nested GitLab group; a corpus repo is owner/name"],
        ["io.github.acme/missing", "https://github.com/acme/missing", "git ls-remote failed"],
        ["io.github.acme/mono-evil", "https://github.com/acme/mono",
         "subfolder '../x' is not valid: it has a '.' or '..' segment"],
        ["io.github.acme/web", "https://github.com/acme/tools/tree/main/src",
         "not a repository URL: it points inside the repository; give repository.subfolder instead"],
        ["org.example/selfhosted", "https://git.example.org/x/y",
         "host 'git.example.org' has no known archive URL"],
    ]
}

/// Checks the skipped list row by row; a reason from git is checked by its start.
fn assert_skipped(path: &Path, expected: &[[&str; 3]]) {
    let rows = read_csv(path);
    assert_eq!(
        rows[0],
        ["name", "version", "repository", "subfolder", "reason"]
    );
    assert_eq!(rows.len() - 1, expected.len(), "{rows:#?}");
    for (row, want) in rows[1..].iter().zip(expected) {
        assert_eq!(
            (row[0].as_str(), row[2].as_str()),
            (want[0], want[1]),
            "{rows:#?}"
        );
        if want[2] == "git ls-remote failed" {
            assert!(
                row[4].starts_with("git ls-remote failed (exit 128)")
                    && row[4].contains("does not appear to be a git repository"),
                "{row:?}"
            );
        } else {
            assert_eq!(row[4], want[2], "{rows:#?}");
        }
    }
}

#[test]
fn the_registry_becomes_a_pinned_sorted_corpus() {
    let forges = forges();
    let commits = make_repositories(&forges);
    let pages = pages();
    let registry = registry(
        pages.clone(),
        vec![CURSOR_1.to_string(), CURSOR_2.to_string()],
        Some(1),
    );
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("registry.toml");
    let saved = work.path().join("saved");
    let args = [
        "corpus",
        "registry",
        "--url",
        &registry.url(),
        "--out",
        "registry.toml",
        "--remotes",
        "servers.toml",
        "--save-pages",
        "saved",
        "--date",
        DATE,
        "--retries",
        "2",
        "--timeout",
        "20",
        "--jobs",
        "1",
    ];
    let run = forges.run(work.path(), &args);
    assert_eq!(run.status.code(), Some(0), "{}", show(&run));

    // Three pages, each asked for with the documented parameters, each cursor sent
    // back exactly as the page before gave it; the 503 was retried once.
    let requests = requests(&registry);
    assert_eq!(requests.len(), 4, "{requests:#?}");
    let cursors: Vec<Option<String>> = requests
        .iter()
        .map(|r| {
            let (path, params) = split_request(r);
            assert_eq!(path, "/v0.1/servers");
            assert_eq!(params["limit"], "100");
            assert_eq!(params["version"], "latest");
            params.get("cursor").cloned()
        })
        .collect();
    let c1 = Some(CURSOR_1.to_string());
    let c2 = Some(CURSOR_2.to_string());
    assert_eq!(cursors, [None, c1.clone(), c1, c2]);
    assert!(
        !requests[3].contains(' ') && !requests[3].contains("#"),
        "{}",
        requests[3]
    );

    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.starts_with(&format!(
            "# Built by `mcp-hint-census corpus registry` from the MCP Registry at {} \
             (version=latest, 3 pages) on {DATE}.\n# 17 entries read; 6 trees; 7 skipped, listed in registry-skipped.csv.\n",
            registry.url()
        )),
        "{text}"
    );
    let expected = expected_registry_trees(&commits);
    assert_eq!(read_trees(&text), expected, "{text}");
    assert!(
        !text.contains(&commits.tools_v120_tag_object),
        "a tag object is not a commit"
    );
    assert_census_accepts(&text, &expected);
    assert_skipped(
        &work.path().join("registry-skipped.csv"),
        &expected_skipped(),
    );

    // The servers file: Streamable HTTP endpoints only, no header value, the
    // needed header named in a comment.
    let servers = std::fs::read_to_string(work.path().join("servers.toml")).unwrap();
    let value: toml::Value = toml::from_str(&servers).unwrap();
    // Each with what joins its wire rows to its entry and its repository's tree.
    let got: Vec<(&str, &str, &str, Option<&str>)> = value["server"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let t = s.as_table().unwrap();
            (
                t["name"].as_str().unwrap(),
                t["url"].as_str().unwrap(),
                t["registry_name"].as_str().unwrap(),
                t.get("repository").and_then(|r| r.as_str()),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "com.example/no-repo",
                "https://remote.example/mcp",
                "com.example/no-repo",
                None
            ),
            (
                "io.github.acme/tools",
                "https://tools.example/mcp",
                "io.github.acme/tools",
                Some("https://github.com/acme/tools")
            )
        ]
    );
    assert!(servers.contains(
        "# needs header 'Authorization' (required, secret)\n[[server]]\nname = \"io.github.acme/tools\"\n"
    ), "{servers}");
    assert!(
        !servers.contains("Bearer") && !servers.contains("/sse"),
        "{servers}"
    );

    // Each page was saved as served.
    for (i, page) in pages.iter().enumerate() {
        let file = saved.join(format!("page-{:04}.json", i + 1));
        assert_eq!(&std::fs::read(&file).unwrap(), page, "{}", file.display());
    }
    assert_eq!(std::fs::read_dir(&saved).unwrap().count(), 3);
}

#[test]
fn the_same_input_gives_the_same_bytes_and_saved_pages_the_same_trees() {
    let forges = forges();
    let commits = make_repositories(&forges);
    let pages = pages();
    let cursors = vec![CURSOR_1.to_string(), CURSOR_2.to_string()];
    let work = tempfile::tempdir().unwrap();
    let mut outputs = Vec::new();
    let registry = registry(pages.clone(), cursors, None);
    for (run, jobs) in [("a", "1"), ("b", "8")] {
        std::fs::create_dir(work.path().join(run)).unwrap();
        let args = [
            "corpus",
            "registry",
            "--url",
            &registry.url(),
            "--out",
            "c.toml",
            "--remotes",
            "s.toml",
            "--date",
            DATE,
            "--jobs",
            jobs,
        ];
        let out = forges.run(&work.path().join(run), &args);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        let read = |f: &str| std::fs::read(work.path().join(run).join(f)).unwrap();
        outputs.push([read("c.toml"), read("c-skipped.csv"), read("s.toml")]);
    }
    assert!(outputs[0] == outputs[1], "two runs differ");
    assert_eq!(requests(&registry).len(), 6);

    // Saved pages, written here from the same answers, give the same trees and
    // the same skipped list; only the sentence naming the source differs.
    let saved = work.path().join("pages");
    std::fs::create_dir(&saved).unwrap();
    for (i, page) in pages.iter().enumerate() {
        std::fs::write(saved.join(format!("{i}.json")), page).unwrap();
    }
    std::fs::write(saved.join("notes.txt"), "not a page").unwrap();
    let args = [
        "corpus", "registry", "--pages", "pages", "--out", "c.toml", "--date", DATE,
    ];
    let out = forges.run(work.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let text = std::fs::read_to_string(work.path().join("c.toml")).unwrap();
    assert!(
        text.starts_with(&format!(
            "# Built by `mcp-hint-census corpus registry` from 3 saved MCP Registry answer pages on {DATE}.\n"
        )),
        "{text}"
    );
    let http = String::from_utf8(outputs[0][0].clone()).unwrap();
    let after_first_line = |t: &str| t.split_once('\n').unwrap().1.to_string();
    assert_eq!(after_first_line(&text), after_first_line(&http));
    assert_eq!(read_trees(&text), expected_registry_trees(&commits));
    assert_eq!(
        std::fs::read(work.path().join("c-skipped.csv")).unwrap(),
        outputs[0][1]
    );
}

#[test]
fn a_cursor_loop_stops_the_build_and_writes_nothing() {
    let forges = forges();
    let page = |next: &str| {
        serde_json::to_vec(&json!({"servers": [], "metadata": {"nextCursor": next}})).unwrap()
    };
    // Page 0 points to L1, L1's page to L2, and L2's page back to L1.
    let registry = registry(
        vec![page("L1"), page("L2"), page("L1")],
        vec!["L1".to_string(), "L2".to_string()],
        None,
    );
    let work = tempfile::tempdir().unwrap();
    let args = [
        "corpus",
        "registry",
        "--url",
        &registry.url(),
        "--out",
        "c.toml",
        "--date",
        DATE,
    ];
    let out = forges.run(work.path(), &args);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("pages loop: cursor 'L1' came back"),
        "{stderr}"
    );
    assert_eq!(requests(&registry).len(), 3);
    assert!(!work.path().join("c.toml").exists());
    assert!(!work.path().join("c-skipped.csv").exists());

    // A page limit bounds a registry that never ends.
    let out = forges.run(
        work.path(),
        &[
            "corpus",
            "registry",
            "--url",
            &registry.url(),
            "--out",
            "c.toml",
            "--max-pages",
            "2",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("more than 2 pages"),
        "{}",
        show(&out)
    );
}

#[test]
fn a_list_pins_refs_heads_and_commits() {
    let forges = forges();
    let c = make_repositories(&forges);
    let work = tempfile::tempdir().unwrap();
    let list = format!(
        "# repositories to survey\n\
         acme/tools                                    # the default branch\n\
         https://github.com/acme/tools ref=v1.2.0 name=tools-release\n\
         github.com/acme/tools ref=0.9.0 subfolder=src\n\
         \n\
         https://gitlab.com/group/proj.git ref=main\n\
         acme/mono ref={} subfolder=servers/a\n\
         acme/tools ref=nope\n\
         https://github.com/acme/tools subfolder=/abs\n\
         https://user:secret@git.example.org/x/y\n",
        c.mono_head
    );
    std::fs::write(work.path().join("repos.txt"), list).unwrap();
    let args = [
        "corpus",
        "list",
        "repos.txt",
        "--out",
        "l.toml",
        "--skipped",
        "why.csv",
        "--date",
        DATE,
    ];
    let out = forges.run(work.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let text = std::fs::read_to_string(work.path().join("l.toml")).unwrap();
    assert!(
        text.starts_with(&format!(
            "# Built by `mcp-hint-census corpus list` from the list 'repos.txt' on {DATE}.\n\
         # 8 entries read; 5 trees; 3 skipped, listed in why.csv.\n"
        )),
        "{text}"
    );
    let expected = sorted(vec![
        tree(&[
            ("repo", "acme/tools"),
            ("commit", &c.tools_head),
            ("note", "default branch 'main' at HEAD"),
        ]),
        tree(&[
            ("repo", "acme/tools"),
            ("commit", &c.tools_v120),
            ("name", "tools-release"),
            ("note", "tag 'v1.2.0'"),
        ]),
        tree(&[
            ("repo", "acme/tools"),
            ("commit", &c.tools_090),
            ("subfolder", "src"),
            ("note", "tag '0.9.0'"),
        ]),
        tree(&[
            ("repo", "group/proj"),
            ("commit", &c.gitlab_head),
            ("note", "branch 'main'"),
            (
                "archive_url",
                "https://gitlab.com/{owner}/{name}/-/archive/{commit}/{name}-{commit}.tar.gz",
            ),
        ]),
        tree(&[
            ("repo", "acme/mono"),
            ("commit", &c.mono_head),
            ("subfolder", "servers/a"),
            ("note", "commit given"),
        ]),
    ]);
    assert_eq!(read_trees(&text), expected, "{text}");
    assert_census_accepts(&text, &expected);
    assert_skipped(
        &work.path().join("why.csv"),
        &[
            [
                "",
                "acme/tools",
                "line 8: ref 'nope' not found as a tag or a branch",
            ],
            [
                "",
                "https://***@git.example.org/x/y",
                "line 10: host 'git.example.org' has no known archive URL",
            ],
            [
                "",
                "https://github.com/acme/tools",
                "line 9: subfolder '/abs' is not valid: it starts with '/' (it must be relative to the top folder)",
            ],
        ],
    );
}

#[test]
fn a_bad_list_line_is_an_error_naming_the_file_and_line() {
    let forges = forges();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(
        work.path().join("repos.txt"),
        "acme/tools\nacme/tools rev=v1\n",
    )
    .unwrap();
    let out = forges.run(
        work.path(),
        &["corpus", "list", "repos.txt", "--out", "l.toml"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("repos.txt:2: unknown key 'rev'"),
        "{stderr}"
    );
    assert!(!work.path().join("l.toml").exists());
}

#[test]
fn git_failures_that_may_pass_are_retried_then_fail_the_run() {
    // A smart-HTTP git server that is always busy, and one that never answers,
    // stand in for github.com and gitlab.com.
    let busy = Loopback::start(|_| reply(503, "busy"));
    let (silent_port, _) = silent_server();
    let git = Git::serving(&["codeberg.org"]);
    git.rule(&format!("{}/", busy.url()), "https://github.com/");
    git.rule(
        &format!("http://127.0.0.1:{silent_port}/"),
        "https://gitlab.com/",
    );
    // One repository that answers, so that the corpus is written and the run
    // still fails for the other two.
    git.repo("codeberg.org", "cb/good", "main", 1);
    let work = git.path();
    std::fs::write(
        work.join("repos.txt"),
        "acme/busy\nhttps://gitlab.com/acme/silent\nhttps://codeberg.org/cb/good\n",
    )
    .unwrap();
    let started = std::time::Instant::now();
    let out = git
        .bin(work)
        .args([
            "corpus",
            "list",
            "repos.txt",
            "--out",
            "l.toml",
            "--retries",
            "1",
            "--timeout",
            "2",
        ])
        .env("GIT_ALLOW_PROTOCOL", "http:file")
        .output();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("git ls-remote failed for 2 repositories"),
        "{stderr}"
    );
    let trees = read_trees(&std::fs::read_to_string(work.join("l.toml")).unwrap());
    assert_eq!(trees.len(), 1);
    assert_eq!(trees[0]["repo"], "cb/good");
    let rows = read_csv(&work.join("l-skipped.csv"));
    assert_eq!(rows.len(), 3, "{rows:#?}");
    assert_eq!(rows[1][2], "acme/busy");
    assert!(
        rows[1][4].starts_with("line 1: git ls-remote failed (exit 128)")
            && rows[1][4].contains("503")
            && rows[1][4].ends_with("(gave up after 2 tries)"),
        "{rows:#?}"
    );
    assert_eq!(rows[2][2], "https://gitlab.com/acme/silent");
    assert_eq!(
        rows[2][4],
        "line 2: git ls-remote took longer than 2 s and was stopped (gave up after 2 tries)"
    );
    // The silent server still holds its connections: git's HTTP helper was
    // ended with git's process group, by the time the run was over.
    let ps = std::process::Command::new("ps")
        .args(["-eo", "args"])
        .output()
        .unwrap();
    let helper = format!("http://127.0.0.1:{silent_port}/");
    assert!(
        !String::from_utf8_lossy(&ps.stdout).contains(&helper),
        "a git helper outlived its time limit"
    );
    let asked = requests(&busy);
    assert_eq!(asked.len(), 2, "one try and one retry: {asked:#?}");
    assert!(
        asked.iter().all(|u| u.starts_with("/acme/busy/info/refs")),
        "{asked:#?}"
    );
}

#[test]
fn missing_pages_exit_2_like_every_missing_input() {
    let forges = forges();
    let work = tempfile::tempdir().unwrap();
    let out = forges.run(
        work.path(),
        &[
            "corpus",
            "registry",
            "--pages",
            "missing.json",
            "--out",
            "c.toml",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("opening 'missing.json'"), "{stderr}");
    std::fs::create_dir(work.path().join("empty")).unwrap();
    let out = forges.run(
        work.path(),
        &["corpus", "registry", "--pages", "empty", "--out", "c.toml"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(!work.path().join("c.toml").exists());
}

#[test]
fn a_line_that_is_no_list_line_is_named_whole() {
    let forges = forges();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(
        work.path().join("repos.txt"),
        "acme/tools\nnot a repo line!!\n",
    )
    .unwrap();
    let out = forges.run(
        work.path(),
        &["corpus", "list", "repos.txt", "--out", "l.toml"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("repos.txt:2: 'not a repo line!!' is not a list line"),
        "{stderr}"
    );
    assert!(!stderr.contains("KEY=VALUE"), "{stderr}");
}

#[test]
fn list_help_speaks_of_no_registry() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), &["corpus", "list", "--help"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let help = String::from_utf8_lossy(&out.stdout).to_ascii_lowercase();
    assert!(
        help.contains("--timeout") && help.contains("--retries"),
        "{help}"
    );
    assert!(!help.contains("registry"), "{help}");
}

#[test]
fn the_packages_file_carries_the_commit_each_entry_was_pinned_at() {
    let forges = forges();
    let commits = make_repositories(&forges);
    let with_package = |mut entry: Value, registry: &str, identifier: &str, version: &str| {
        entry["server"]["packages"] = json!([{"registryType": registry, "identifier": identifier,
            "version": version, "transport": {"type": "stdio"}}]);
        entry
    };
    let mono_a = server(
        "io.github.acme/mono-a",
        "3.0.0",
        Some(
            json!({"url": "https://github.com/acme/mono", "source": "github",
                    "subfolder": "servers/a"}),
        ),
        json!([]),
    );
    let page = json!({"servers": [
        with_package(server("io.github.acme/tools", "1.2.0",
                            github("https://github.com/acme/tools"), json!([])),
                     "npm", "tools-mcp", "1.2.0"),
        // Pinned with the tree above, whose name is the other's.
        with_package(server("io.github.acme/tools-alias", "1.2.0",
                            github("https://github.com/ACME/tools.git"), json!([])),
                     "npm", "tools-alias-mcp", "1.2.0"),
        // The same repository at another version: another tree.
        with_package(server("io.github.acme/tools-old", "0.9.0",
                            github("https://github.com/acme/tools"), json!([])),
                     "pypi", "tools-old", "0.9.0"),
        with_package(mono_a, "npm", "mono-a", "3.0.0"),
        with_package(server("io.github.acme/missing", "1.0.0",
                            github("https://github.com/acme/missing"), json!([])),
                     "npm", "missing", "1.0.0"),
    ]});
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("page.json"), page.to_string()).unwrap();
    let args = [
        "corpus",
        "registry",
        "--pages",
        "page.json",
        "--out",
        "registry.toml",
        "--packages",
        "packages.toml",
        "--date",
        DATE,
        "--jobs",
        "1",
    ];
    let run = forges.run(work.path(), &args);
    let text = std::fs::read_to_string(work.path().join("packages.toml"))
        .unwrap_or_else(|_| panic!("no packages file\n{}", show(&run)));
    let value: toml::Value = toml::from_str(&text).unwrap();
    let got: Vec<(&str, Option<&str>)> = value["server"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap(),
                s.get("commit").and_then(|c| c.as_str()),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("io.github.acme/missing", None),
            ("io.github.acme/mono-a", Some(commits.mono_head.as_str())),
            ("io.github.acme/tools", Some(commits.tools_v120.as_str())),
            (
                "io.github.acme/tools-alias",
                Some(commits.tools_v120.as_str())
            ),
            ("io.github.acme/tools-old", Some(commits.tools_090.as_str())),
        ],
        "{}\n{text}",
        show(&run)
    );

    // Written again from the corpus alone (--pinned), with no forge to reach: the
    // same servers file, and the corpus left as it was.
    let corpus = std::fs::read(work.path().join("registry.toml")).unwrap();
    let mut again: Vec<&str> = args.to_vec();
    again[7] = "again.toml";
    again.push("--pinned");
    let rerun = crate::common::Run::new(work.path()).args(&again).output();
    assert!(rerun.status.success(), "{}", show(&rerun));
    assert_eq!(
        std::fs::read_to_string(work.path().join("again.toml")).unwrap(),
        text,
        "{}",
        show(&rerun)
    );
    assert_eq!(
        std::fs::read(work.path().join("registry.toml")).unwrap(),
        corpus
    );
}
