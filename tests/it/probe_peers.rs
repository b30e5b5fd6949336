//! `probe` against real, pinned peers installed by `tests/peers/install.sh`:
//! the reference memory server from npm, and a server written with the official
//! Python SDK from PyPI over stdio and over Streamable HTTP on 127.0.0.1.
//!
//! The oracles come from the other side: the SDK's own client listing the same server
//! (`sdk_list_tools.py`), and the Python server's declaration list (`--expected`).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{first_line, read_csv, run_env, show, silent_server, stderr, stdout};
use crate::support::*;
use serde_json::{json, Value};

/// Lists the tools of a server with the official Python SDK's client.
fn sdk_listing(python: &Path, target: &[String], envs: &[(&str, &str)]) -> Vec<Value> {
    sdk_answer(python, target, envs)["tools"]
        .as_array()
        .expect("a tools array")
        .clone()
}

/// Returns what the official Python SDK's client offered in initialize (`protocolVersion`,
/// `capabilities`) and the tools it listed (`tools`).
fn sdk_answer(python: &Path, target: &[String], envs: &[(&str, &str)]) -> Value {
    let out = Command::new(python)
        .arg(peers().join("sdk_list_tools.py"))
        .args(target)
        .envs(envs.iter().copied())
        .stderr(Stdio::inherit())
        .output()
        .expect("the SDK oracle runs");
    assert!(
        out.status.success(),
        "the SDK oracle failed: {:?}",
        out.status
    );
    serde_json::from_slice(&out.stdout).expect("the SDK oracle prints JSON")
}

/// Returns the mixed server's tools as a server sends them, from its own declaration list.
fn mixed_expected(python: &Path) -> Vec<Value> {
    let out = Command::new(python)
        .arg(peers().join("mixed_server.py"))
        .arg("--expected")
        .output()
        .expect("the mixed server runs");
    assert!(out.status.success());
    let declared: Vec<Value> = serde_json::from_slice(&out.stdout).expect("JSON");
    declared
        .into_iter()
        .map(|d| {
            let mut tool = json!({ "name": d["name"] });
            if !d["title"].is_null() {
                tool["title"] = d["title"].clone();
            }
            if !d["annotations"].is_null() {
                tool["annotations"] = d["annotations"].clone();
            }
            tool
        })
        .collect()
}

fn snapshot_tools(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).expect("the snapshot was written");
    let snapshot: Value = serde_json::from_str(&text).expect("the snapshot is JSON");
    snapshot["tools"].as_array().expect("a tools array").clone()
}

/// Returns each tool's name, title and annotations, sorted by name: what a snapshot
/// must hold.
fn name_and_annotations_sorted(tools: &[Value]) -> Vec<Value> {
    let mut out: Vec<Value> = tools
        .iter()
        .map(|t| {
            let mut entry = json!({ "name": t["name"] });
            for key in ["title", "annotations"] {
                if let Some(value) = t.get(key) {
                    entry[key] = value.clone();
                }
            }
            entry
        })
        .collect();
    out.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    out
}

#[test]
fn the_reference_memory_server_declares_all_four_hints_on_nine_tools() {
    let Some(entry) = require("@modelcontextprotocol/server-memory (npm)", memory_server()) else {
        return;
    };
    let Some(python) = require("the mcp Python SDK (tests/peers/.venv)", python_with_mcp()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let memory_file = dir.path().join("memory.jsonl");
    let envs = [("MEMORY_FILE_PATH", memory_file.to_str().unwrap())];
    let server = vec!["node".to_string(), entry.display().to_string()];

    let oracle = sdk_listing(&python, &server, &envs);
    assert_eq!(
        oracle.len(),
        9,
        "the pinned memory server lists nine tools: {oracle:?}"
    );

    let out = probe_stdio(
        dir.path(),
        &server,
        &[
            "--csv",
            "hints.csv",
            "--save",
            "snap.json",
            "--require",
            "all",
        ],
        &envs,
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let header = first_line(&dir.path().join("hints.csv"));
    let rows: Vec<Vec<String>> = read_csv(&dir.path().join("hints.csv"))
        .into_iter()
        .skip(1)
        .collect();
    assert_eq!(header, HEADER);
    let expected: Vec<Vec<String>> = oracle.iter().map(expected_row).collect();
    assert_eq!(rows, expected);
    assert!(rows
        .iter()
        .all(|r| r[1..5].iter().all(|c| c == "true" || c == "false")));
    let text = stdout(&out);
    assert!(
        text.contains("9 tools: 9 declare every meaningful hint, 0 declare nothing"),
        "{text}"
    );
    assert!(text.contains("require all: every tool passes"), "{text}");
    assert_eq!(
        snapshot_tools(&dir.path().join("snap.json")),
        name_and_annotations_sorted(&oracle)
    );
}

#[test]
fn a_python_sdk_server_over_stdio_shows_absent_and_explicit_false_apart() {
    let Some(python) = require("the mcp Python SDK (tests/peers/.venv)", python_with_mcp()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = vec![
        python.display().to_string(),
        peers().join("mixed_server.py").display().to_string(),
    ];
    let expected_tools = mixed_expected(&python);
    // The SDK's own client must see what the server script declares, or the oracle is wrong.
    assert_eq!(sdk_listing(&python, &server, &[]), expected_tools);

    let out = probe_stdio(
        dir.path(),
        &server,
        &[
            "--csv",
            "hints.csv",
            "--save",
            "snap.json",
            "--date",
            "2026-09-07",
            "--require",
            "meaningful",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    let rows: Vec<Vec<String>> = read_csv(&dir.path().join("hints.csv"))
        .into_iter()
        .skip(1)
        .collect();
    let expected: Vec<Vec<String>> = expected_tools.iter().map(expected_row).collect();
    assert_eq!(rows, expected);

    let breaking: Vec<String> = expected
        .iter()
        .filter(|row| !row[5].is_empty())
        .map(|row| {
            format!(
                "require meaningful: tool '{}' lacks {}",
                row[0],
                row[5].replace(';', ", ")
            )
        })
        .collect();
    let got: Vec<String> = stdout(&out)
        .lines()
        .filter(|l| l.starts_with("require meaningful: tool "))
        .map(str::to_string)
        .collect();
    assert_eq!(got, breaking);

    let snapshot: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("snap.json")).unwrap())
            .unwrap();
    assert_eq!(
        snapshot["server"],
        json!({ "name": "mixed-hints", "version": "1.2.3" })
    );
    assert_eq!(snapshot["date"], "2026-09-07");
    assert_eq!(
        snapshot["tools"],
        Value::Array(name_and_annotations_sorted(&expected_tools))
    );
}

/// Starts the mixed server on Streamable HTTP; its output, uvicorn's access log
/// included, goes to a file.
fn start_http(python: &Path, dir: &Path, json_response: bool) -> (ServerGuard, u16, PathBuf) {
    let port = free_port();
    let log = dir.join("server.log");
    let file = std::fs::File::create(&log).unwrap();
    let mut cmd = Command::new(python);
    cmd.arg(peers().join("mixed_server.py"))
        .args(["--http", &port.to_string()])
        .stdin(Stdio::null())
        .stdout(file.try_clone().unwrap())
        .stderr(file);
    if json_response {
        cmd.arg("--json-response");
    }
    let mut guard = ServerGuard(cmd.spawn().expect("the HTTP server starts"));
    wait_for_port(port, &mut guard);
    (guard, port, log)
}

fn http_case(json_response: bool) {
    let Some(python) = require("the mcp Python SDK (tests/peers/.venv)", python_with_mcp()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (_server, port, log) = start_http(&python, dir.path(), json_response);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let expected_tools = mixed_expected(&python);
    assert_eq!(
        sdk_listing(&python, &["--url".to_string(), url.clone()], &[]),
        expected_tools
    );

    let out = run_env(
        dir.path(),
        &["probe", "--url", &url, "--csv", "hints.csv"],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let rows: Vec<Vec<String>> = read_csv(&dir.path().join("hints.csv"))
        .into_iter()
        .skip(1)
        .collect();
    let expected: Vec<Vec<String>> = expected_tools.iter().map(expected_row).collect();
    assert_eq!(rows, expected);
    assert!(
        stdout(&out).contains("server 'mixed-hints' version '1.2.3'"),
        "{}",
        show(&out)
    );

    // The session is ended with a DELETE, which the server logs and accepts.
    let until = Instant::now() + Duration::from_secs(5);
    let mut text = String::new();
    while Instant::now() < until {
        text.clear();
        std::fs::File::open(&log)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        if text.matches("\"DELETE /mcp HTTP/1.1\" 200").count() >= 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    // One DELETE from the oracle's client, one from the probe.
    assert_eq!(
        text.matches("\"DELETE /mcp HTTP/1.1\" 200").count(),
        2,
        "{text}"
    );
}

#[test]
fn a_python_sdk_server_over_streamable_http_answering_with_event_streams() {
    http_case(false);
}

#[test]
fn a_python_sdk_server_over_streamable_http_answering_with_json() {
    http_case(true);
}

#[test]
fn an_http_server_that_never_answers_times_out() {
    // Accepts connections and reads, but never writes a byte back.
    let (port, _) = silent_server();
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let out = run_env(dir.path(), &["probe", "--timeout", "2", "--url", &url], &[]);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        stderr(&out).contains("no answer to 'initialize' within 2 s (--timeout)"),
        "{}",
        show(&out)
    );
}

#[test]
fn the_everything_server_lists_what_the_offered_capabilities_unlock() {
    let Some(entry) = require(
        "@modelcontextprotocol/server-everything (npm)",
        everything_server(),
    ) else {
        return;
    };
    let Some(python) = require("the mcp Python SDK (tests/peers/.venv)", python_with_mcp()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = vec![
        "node".to_string(),
        entry.display().to_string(),
        "stdio".to_string(),
    ];
    let mut seen = Vec::new();
    // `default` against the SDK's client given roots, sampling and elicitation
    // callbacks; the others against the SDK's client offering the same object.
    for (flag, sdk_flags, tools) in [
        ("default", vec!["--callbacks".to_string()], 17),
        (
            r#"{"roots":{},"sampling":{},"elicitation":{}}"#,
            vec![
                "--capabilities".to_string(),
                r#"{"roots":{},"sampling":{},"elicitation":{}}"#.to_string(),
            ],
            16,
        ),
        (
            "none",
            vec!["--capabilities".to_string(), "{}".to_string()],
            13,
        ),
    ] {
        let mut target = sdk_flags;
        target.extend(server.iter().cloned());
        let sdk = sdk_answer(&python, &target, &[]);
        let oracle = sdk["tools"].as_array().expect("a tools array").clone();
        assert_eq!(oracle.len(), tools, "{flag}: {oracle:?}");

        let out = probe_stdio(
            dir.path(),
            &server,
            &[
                "--capabilities",
                flag,
                "--csv",
                "hints.csv",
                "--save",
                "snap.json",
                "--date",
                "2026-09-07",
            ],
            &[],
        );
        assert_eq!(out.status.code(), Some(0), "{flag}: {}", show(&out));
        let rows: Vec<Vec<String>> = read_csv(&dir.path().join("hints.csv"))
            .into_iter()
            .skip(1)
            .collect();
        let expected: Vec<Vec<String>> = oracle.iter().map(expected_row).collect();
        let mut rows_sorted = rows.clone();
        let mut expected_sorted = expected.clone();
        // Tools registered once the client is known may come in either order.
        rows_sorted.sort();
        expected_sorted.sort();
        assert_eq!(rows_sorted, expected_sorted, "{flag}");
        assert!(
            stdout(&out).contains(&format!("\n{tools} tools: ")),
            "{flag}: {}",
            show(&out)
        );
        if flag == "default" {
            // The same offer as the SDK built from its callbacks, at the same version.
            let text = std::fs::read_to_string(dir.path().join("snap.json")).unwrap();
            let snapshot: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(snapshot["capabilities"], sdk["capabilities"], "{text}");
            assert_eq!(
                snapshot["protocolVersion"], sdk["protocolVersion"],
                "{text}"
            );
            assert_eq!(sdk["protocolVersion"], "2025-11-25");
        }
        seen.push(
            rows.iter()
                .map(|r| r[0].clone())
                .collect::<std::collections::BTreeSet<_>>(),
        );
    }
    let unlocked: Vec<&String> = seen[0].difference(&seen[2]).collect();
    assert_eq!(
        unlocked,
        [
            "get-roots-list",
            "trigger-elicitation-request",
            "trigger-sampling-request",
            "trigger-url-elicitation"
        ]
    );
    // URL-mode elicitation is what the bare `elicitation: {}` lacks.
    let url_only: Vec<&String> = seen[0].difference(&seen[1]).collect();
    assert_eq!(url_only, ["trigger-url-elicitation"]);
}

#[test]
fn a_servers_file_of_real_peers_gives_the_rows_their_own_clients_see() {
    let Some(memory) = require("@modelcontextprotocol/server-memory (npm)", memory_server()) else {
        return;
    };
    let Some(everything) = require(
        "@modelcontextprotocol/server-everything (npm)",
        everything_server(),
    ) else {
        return;
    };
    let Some(python) = require("the mcp Python SDK (tests/peers/.venv)", python_with_mcp()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let memory_file = dir.path().join("memory.jsonl");
    let quote = |text: &str| serde_json::to_string(text).unwrap();
    let file = format!(
        r#"
[[server]]
name = "memory"
command = "node"
args = [{memory}]
env = {{ MEMORY_FILE_PATH = {memory_file} }}

[[server]]
name = "everything"
command = "node"
args = [{everything}, "stdio"]

[[server]]
name = "mixed"
command = {python}
args = [{mixed}]
"#,
        memory = quote(&memory.display().to_string()),
        memory_file = quote(memory_file.to_str().unwrap()),
        everything = quote(&everything.display().to_string()),
        python = quote(&python.display().to_string()),
        mixed = quote(&peers().join("mixed_server.py").display().to_string()),
    );
    std::fs::write(dir.path().join("servers.toml"), file).unwrap();
    let out = run_env(
        dir.path(),
        &[
            "probe",
            "--servers",
            "servers.toml",
            "--date",
            "2026-09-07",
            "--jobs",
            "2",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));

    let oracle = |target: Vec<String>, envs: &[(&str, &str)]| {
        let mut args = vec!["--callbacks".to_string()];
        args.extend(target);
        sdk_listing(&python, &args, envs)
    };
    let memory_tools = oracle(
        vec!["node".into(), memory.display().to_string()],
        &[("MEMORY_FILE_PATH", memory_file.to_str().unwrap())],
    );
    let everything_tools = oracle(
        vec![
            "node".into(),
            everything.display().to_string(),
            "stdio".into(),
        ],
        &[],
    );
    let mixed_tools = oracle(
        vec![
            python.display().to_string(),
            peers().join("mixed_server.py").display().to_string(),
        ],
        &[],
    );
    let rows: Vec<Vec<String>> = read_csv(&dir.path().join("results/wire-2026-09-07.csv"))
        .into_iter()
        .skip(1)
        .collect();
    for (name, tools) in [
        ("memory", &memory_tools),
        ("everything", &everything_tools),
        ("mixed", &mixed_tools),
    ] {
        let mut got: Vec<Vec<String>> = rows
            .iter()
            .filter(|r| r[0] == name)
            .map(|r| {
                assert_eq!(r[3], "roots;sampling;elicitation", "{r:?}");
                assert_eq!(r[r.len() - 1], "", "{r:?}");
                r[4..r.len() - 1].to_vec()
            })
            .collect();
        let mut want: Vec<Vec<String>> = tools.iter().map(expected_row).collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{name}");
    }
    // The summary's counts, worked out from the oracle's rows: omits empty means every
    // meaningful hint, four omitted names with no read-only means nothing declared.
    let md = std::fs::read_to_string(dir.path().join("results/wire-2026-09-07.md")).unwrap();
    for (name, tools) in [
        ("memory", &memory_tools),
        ("everything", &everything_tools),
        ("mixed", &mixed_tools),
    ] {
        let rows: Vec<Vec<String>> = tools.iter().map(expected_row).collect();
        let complete = rows.iter().filter(|r| r[5].is_empty()).count();
        let nothing = rows
            .iter()
            .filter(|r| r[1..5].iter().all(|c| c == "absent" || c == "invalid"))
            .count();
        let line = md
            .lines()
            .find(|l| l.starts_with(&format!("| {name} | ")))
            .unwrap_or_else(|| panic!("no line for {name}: {md}"));
        assert!(
            line.ends_with(&format!("| {} | {complete} | {nothing} | |", rows.len())),
            "{line}"
        );
    }
}

/// Counts `term` in every file under `dir` the naive way: lower-case both, count the
/// non-overlapping occurrences.
fn naive_count(dir: &Path, term: &str) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            for entry in std::fs::read_dir(&path).unwrap() {
                stack.push(entry.unwrap().path());
            }
        } else {
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).to_lowercase();
            total += text.matches(&term.to_lowercase()).count() as u64;
        }
    }
    total
}

#[test]
fn the_memory_servers_source_and_wire_agree() {
    let Some(entry) = require("@modelcontextprotocol/server-memory (npm)", memory_server()) else {
        return;
    };
    let Some(python) = require("the mcp Python SDK (tests/peers/.venv)", python_with_mcp()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let memory_file = dir.path().join("memory.jsonl");
    let envs = [("MEMORY_FILE_PATH", memory_file.to_str().unwrap())];
    let server = vec!["node".to_string(), entry.display().to_string()];
    let source = peers().join("node_modules/@modelcontextprotocol/server-memory");
    let oracle = sdk_listing(&python, &server, &envs);

    let out = probe_stdio(
        dir.path(),
        &server,
        &["--source", source.to_str().unwrap()],
        &envs,
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let hints = [
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
    ];
    let literal: Vec<String> = hints
        .iter()
        .map(|h| format!("{h} {}", naive_count(&source, h)))
        .collect();
    let declared: Vec<String> = hints
        .iter()
        .map(|h| {
            let n = oracle
                .iter()
                .filter(|t| t["annotations"][*h].is_boolean())
                .count();
            format!("{h} {n}")
        })
        .collect();
    assert_eq!(literal, declared, "the pinned memory server's halves agree");
    let text = stdout(&out);
    assert!(
        text.contains(&format!(
            "literal counts: {}, annotations {}\n",
            literal.join(", "),
            naive_count(&source, "annotations")
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "wire: {} tools; tools declaring: {}\n",
            oracle.len(),
            declared.join(", ")
        )),
        "{text}"
    );
    assert!(text.contains("verdict: source and wire agree"), "{text}");

    let out = probe_stdio(
        dir.path(),
        &server,
        &["--source", "/nonexistent/src"],
        &envs,
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
}
