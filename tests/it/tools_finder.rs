//! The tool finder against the wire: for pinned npm and PyPI servers that list their
//! tools without credentials, the finder's reading of the package's own files and
//! the probe's reading of the same package's `tools/list` must agree tool by tool
//! (names and hint states), except where a documented reason says why.
//!
//! Versions (tests/peers/package-lock.json, requirements.txt): server-memory,
//! server-everything, server-filesystem and server-sequential-thinking 2026.8.31;
//! mcp 2.3.0 (tests/peers/hinted/), fastmcp 4.1.6 (tests/peers/fastmcp_server.py).

use std::collections::BTreeMap;
use std::path::Path;

use mcp_hint_census::tools::{HintState, TreeTools};

use crate::common::{read_csv, show};
use crate::support::{peers, probe_stdio, python_with_mcp, require};

/// A tool's four hint cells as the probe's CSV spells them: `true`, `false`, `absent`.
type Cells = [String; 4];

/// Runs the finder over every file under `dir` (paths relative to it) and returns
/// each tool by name, with how many definitions had no literal name.
fn finder(dir: &Path) -> (BTreeMap<String, Cells>, usize) {
    let mut tools = TreeTools::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("the package folder reads") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n == "node_modules") {
                    continue;
                }
                stack.push(path);
                continue;
            }
            let rel = path
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if TreeTools::wants(rel.as_bytes()) {
                tools.add_file(rel.as_bytes(), &std::fs::read(&path).unwrap());
            }
        }
    }
    let found = tools.finish();
    assert_eq!(found.skipped_files, 0, "{}", dir.display());
    let mut by_name = BTreeMap::new();
    let mut unnamed = 0;
    // The package's own tools: kind `tool`, role `source`, as a row counts them.
    for t in found.counted().cloned() {
        let cells = t.hints.map(|h| {
            match h {
                Some(HintState::True) => "true",
                Some(HintState::False) => "false",
                Some(HintState::Unresolved) => "?",
                Some(HintState::Unknown) => "unknown",
                None => "absent",
            }
            .to_string()
        });
        match t.name {
            Some(name) => {
                let at = format!("{}:{}", String::from_utf8_lossy(&t.path), t.line);
                assert!(
                    by_name.insert(name.clone(), cells).is_none(),
                    "{name} defined twice (again at {at})"
                );
            }
            None => unnamed += 1,
        }
    }
    (by_name, unnamed)
}

/// Probes a server over stdio and returns each listed tool's declared hint cells.
fn wire(server: &[String], flags: &[&str], envs: &[(&str, &str)]) -> BTreeMap<String, Cells> {
    let dir = tempfile::tempdir().unwrap();
    let mut args = flags.to_vec();
    args.extend(["--csv", "hints.csv"]);
    let out = probe_stdio(dir.path(), server, &args, envs);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let rows: Vec<Vec<String>> = read_csv(&dir.path().join("hints.csv"))
        .into_iter()
        .skip(1)
        .collect();
    rows.into_iter()
        .map(|r| {
            let cells = [r[1].clone(), r[2].clone(), r[3].clone(), r[4].clone()];
            (r[0].clone(), cells)
        })
        .collect()
}

fn node_package(name: &str) -> Option<std::path::PathBuf> {
    let dir = peers()
        .join("node_modules/@modelcontextprotocol")
        .join(name);
    let node = std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    (node && dir.join("dist/index.js").is_file()).then_some(dir)
}

fn node_server(dir: &Path, args: &[&str]) -> Vec<String> {
    let mut server = vec![
        "node".to_string(),
        dir.join("dist/index.js").display().to_string(),
    ];
    server.extend(args.iter().map(|a| a.to_string()));
    server
}

fn assert_agree(what: &str, source: &BTreeMap<String, Cells>, wire: &BTreeMap<String, Cells>) {
    assert!(!wire.is_empty(), "{what}: the wire lists tools");
    assert_eq!(source, wire, "{what}: source (left) and wire (right)");
}

#[test]
fn the_memory_server_reads_the_same_in_source_and_on_the_wire() {
    let Some(dir) = require(
        "@modelcontextprotocol/server-memory (npm)",
        node_package("server-memory"),
    ) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let memory = tmp.path().join("memory.jsonl");
    let envs = [("MEMORY_FILE_PATH", memory.to_str().unwrap())];
    let (source, unnamed) = finder(&dir.join("dist"));
    assert_eq!(unnamed, 0);
    assert_eq!(source.len(), 9);
    assert_agree(
        "server-memory",
        &source,
        &wire(&node_server(&dir, &[]), &[], &envs),
    );
}

#[test]
fn the_filesystem_server_reads_the_same_in_source_and_on_the_wire() {
    let Some(dir) = require(
        "@modelcontextprotocol/server-filesystem (npm)",
        node_package("server-filesystem"),
    ) else {
        return;
    };
    let allowed = tempfile::tempdir().unwrap();
    let server = node_server(&dir, &[allowed.path().to_str().unwrap()]);
    let (source, unnamed) = finder(&dir.join("dist"));
    assert_eq!(unnamed, 0);
    assert_agree("server-filesystem", &source, &wire(&server, &[], &[]));
}

#[test]
fn the_sequential_thinking_server_reads_the_same_in_source_and_on_the_wire() {
    let Some(dir) = require(
        "@modelcontextprotocol/server-sequential-thinking (npm)",
        node_package("server-sequential-thinking"),
    ) else {
        return;
    };
    let (source, unnamed) = finder(&dir.join("dist"));
    assert_eq!(unnamed, 0);
    assert_agree(
        "server-sequential-thinking",
        &source,
        &wire(&node_server(&dir, &[]), &[], &[]),
    );
}

#[test]
fn the_everything_server_reads_the_same_in_source_and_on_the_wire() {
    let Some(dir) = require(
        "@modelcontextprotocol/server-everything (npm)",
        node_package("server-everything"),
    ) else {
        return;
    };
    let (source, unnamed) = finder(&dir.join("dist"));
    assert_eq!(unnamed, 0);
    // The server registers some tools only when the client offers a capability
    // (docs/tools.md, "The wire as oracle"): offered everything they ask for, the
    // wire lists every tool the source defines.
    let everything = r#"{"roots":{},"sampling":{},"elicitation":{"form":{},"url":{}},"tasks":{"requests":{"sampling":{"createMessage":{}},"elicitation":{"create":{}}}}}"#;
    let server = node_server(&dir, &["stdio"]);
    let all = wire(&server, &["--capabilities", everything], &[]);
    assert_agree("server-everything, every capability", &source, &all);
    // Offered what the probe offers by default (no tasks), two of them are not registered.
    let default = wire(&server, &["--capabilities", "default"], &[]);
    let missing: Vec<&String> = source
        .keys()
        .filter(|k| !default.contains_key(*k))
        .collect();
    assert_eq!(
        missing,
        [
            "trigger-elicitation-request-async",
            "trigger-sampling-request-async",
        ]
    );
    for (name, cells) in &default {
        assert_eq!(source.get(name), Some(cells), "{name}");
    }
}

fn python_server_agrees(what: &str, files: &Path, server: &[String], envs: &[(&str, &str)]) {
    let (source, unnamed) = finder(files);
    assert_eq!(unnamed, 0, "{what}");
    assert_agree(what, &source, &wire(server, &[], envs));
}

#[test]
fn a_server_on_the_official_python_sdk_reads_the_same_in_source_and_on_the_wire() {
    let Some(python) = require("the mcp Python SDK (tests/peers/.venv)", python_with_mcp()) else {
        return;
    };
    let server = vec![
        python.display().to_string(),
        "-m".to_string(),
        "hinted.server".to_string(),
    ];
    let path = peers();
    let envs = [("PYTHONPATH", path.to_str().unwrap())];
    python_server_agrees("mcp 2.3.0", &peers().join("hinted"), &server, &envs);
}

#[test]
fn a_server_on_standalone_fastmcp_reads_the_same_in_source_and_on_the_wire() {
    let Some(python) = require("the mcp Python SDK (tests/peers/.venv)", python_with_mcp()) else {
        return;
    };
    let has_fastmcp = std::process::Command::new(&python)
        .args(["-c", "import fastmcp"])
        .output()
        .is_ok_and(|o| o.status.success());
    let Some(()) = require("fastmcp (tests/peers/.venv)", has_fastmcp.then_some(())) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    std::fs::copy(
        peers().join("fastmcp_server.py"),
        tmp.path().join("fastmcp_server.py"),
    )
    .unwrap();
    let server = vec![
        python.display().to_string(),
        tmp.path().join("fastmcp_server.py").display().to_string(),
    ];
    python_server_agrees("fastmcp 4.1.6", tmp.path(), &server, &[]);
}
