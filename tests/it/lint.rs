//! The lint (docs/scan.md, "The lint") on hand-written trees of four SDK families
//! (the TypeScript SDK, FastMCP for Python, the Go SDK, the C# SDK): silent tools,
//! declarations their names contradict, the read-only and destructive pair, and
//! clean tools. Each definition's line carries the rule ids a reader expects there
//! (`expect: MHC001 ...`, or `expect: none`), and `scan --sarif` must give exactly
//! those results at exactly those lines, in a log the SARIF 2.1.0 schema of the OASIS
//! standard (tests/data) accepts, read by Python's `jsonschema`.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::*;
use crate::support::peers;

/// The fixture files: a path in the tree and its text.
const FILES: [(&str, &str); 4] = [
    (
        "src/server.ts",
        r###"import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

const server = new McpServer({ name: "fixture", version: "1.0.0" });
server.registerTool("list_notes", { description: "d" }, async () => ({ content: [] })); // expect: MHC001
server.registerTool("delete_note", { annotations: { readOnlyHint: true, openWorldHint: false } }, async () => ({ content: [] })); // expect: MHC002
server.registerTool("delete_all", { annotations: { readOnlyHint: true, destructiveHint: true } }, async () => ({ content: [] })); // expect: MHC002 MHC003 MHC004
server.registerTool("get_note", { annotations: { readOnlyHint: true, openWorldHint: false } }, async () => ({ content: [] })); // expect: none
server.tool("weather", "d", { readOnlyHint: false }, async () => ({ content: [] })); // expect: MHC004
server.registerTool("create_note", { annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } }, async () => ({ content: [] })); // expect: none
const names = { remove: process.env.TOOL };
server.registerTool(names.remove, { title: "Remove every note", annotations: { readOnlyHint: true, openWorldHint: false } }, async () => ({ content: [] })); // expect: MHC002
"###,
    ),
    (
        "app/server.py",
        r###"from fastmcp import FastMCP

mcp = FastMCP("fixture")


@mcp.tool  # expect: MHC001
def get_forecast(city: str) -> str:
    return city


@mcp.tool(annotations={"readOnlyHint": True, "openWorldHint": False})  # expect: MHC002
def delete_city(city: str) -> str:
    return city


@mcp.tool(annotations={"readOnlyHint": True, "destructiveHint": True, "openWorldHint": True})  # expect: MHC003
def list_cities() -> list:
    return []


@mcp.tool(annotations={"readOnlyHint": True, "openWorldHint": False})  # expect: none
def search_cities(q: str) -> list:
    return []


@mcp.tool(name="update_city", annotations={"readOnlyHint": False})  # expect: MHC004
def update(city: str) -> str:
    return city
"###,
    ),
    (
        "cmd/main.go",
        r###"package main

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func ptr(b bool) *bool { return &b }

func main() {
	server := mcp.NewServer(&mcp.Implementation{Name: "fixture", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "list_repos", Description: "d"}, handle) // expect: MHC001
	mcp.AddTool(server, &mcp.Tool{Name: "create_repo", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(true)}}, handle) // expect: MHC002
	mcp.AddTool(server, &mcp.Tool{Name: "get_repo", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: ptr(true), OpenWorldHint: ptr(false)}}, handle) // expect: MHC003
	mcp.AddTool(server, &mcp.Tool{Name: "drop_repo", Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(true)}}, handle) // expect: MHC004
	mcp.AddTool(server, &mcp.Tool{Name: "find_repo", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}}, handle) // expect: none
	_ = context.Background()
}
"###,
    ),
    (
        "Tools/Tools.cs",
        r###"using System.ComponentModel;
using ModelContextProtocol.Server;

[McpServerToolType]
public static class Tools
{
    [McpServerTool(Name = "get_time")] // expect: MHC001
    public static string GetTime() => "now";

    [McpServerTool(Name = "remove_user", ReadOnly = true, OpenWorld = false)] // expect: MHC002
    public static string RemoveUser(string id) => id;

    [McpServerTool(Name = "show_user", ReadOnly = true, Destructive = true, OpenWorld = false)] // expect: MHC003
    public static string ShowUser(string id) => id;

    [McpServerTool(Name = "send_mail", ReadOnly = false, Destructive = false, Idempotent = false, OpenWorld = true)] // expect: none
    public static string SendMail(string to) => to;

    [McpServerTool(ReadOnly = false)] // expect: MHC004
    public static string Archive(string id) => id;
}
"###,
    ),
];

/// A result's place and rule: (path, line, rule id).
type Placed = (String, u64, String);

/// Returns the (path, line, rule id) every `expect:` marker of the fixtures names, and
/// the lines marked `none`.
fn expected() -> (BTreeSet<Placed>, BTreeSet<(String, u64)>) {
    let mut flagged = BTreeSet::new();
    let mut clean = BTreeSet::new();
    for (path, text) in FILES {
        for (i, line) in text.lines().enumerate() {
            let Some((_, ids)) = line.split_once("expect: ") else {
                continue;
            };
            let at = (path.to_string(), i as u64 + 1);
            if ids.trim() == "none" {
                clean.insert(at);
                continue;
            }
            for id in ids.split_whitespace() {
                flagged.insert((at.0.clone(), at.1, id.to_string()));
            }
        }
    }
    (flagged, clean)
}

/// Returns a python that can import `jsonschema`: the pinned peers' venv
/// (tests/peers/requirements.txt), else the system's python3 when it has the package.
fn python_with_jsonschema() -> Option<PathBuf> {
    [peers().join(".venv/bin/python"), PathBuf::from("python3")]
        .into_iter()
        .find(|python| {
            Command::new(python)
                .args(["-c", "import jsonschema"])
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

/// Checks `log` against the SARIF 2.1.0 schema with Python's `jsonschema` (the schema
/// is draft-04), failing with the validator's message.
fn assert_valid_sarif(log: &Path) {
    let Some(python) = python_with_jsonschema() else {
        skip("no python with jsonschema; run tests/peers/install.sh");
        return;
    };
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sarif-schema-2.1.0.json");
    let out = Command::new(python)
        .args([
            "-c",
            "import json, sys, jsonschema\n\
             schema = json.load(open(sys.argv[1]))\n\
             log = json.load(open(sys.argv[2], encoding='utf-8'))\n\
             jsonschema.Draft4Validator(schema).validate(log)\n\
             print('valid')",
        ])
        .arg(&schema)
        .arg(log)
        .output()
        .unwrap();
    assert!(
        out.status.success() && out.stdout == b"valid\n",
        "{} is no valid SARIF 2.1.0:\n{}",
        log.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Returns the (uri, line, rule id) of each result of a SARIF log.
fn results(log: &Value) -> Vec<(String, u64, String)> {
    log["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            let at = &r["locations"][0]["physicalLocation"];
            (
                at["artifactLocation"]["uri"].as_str().unwrap().to_string(),
                at["region"]["startLine"].as_u64().unwrap(),
                r["ruleId"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn sarif_has_a_result_at_every_flagged_definition_and_none_at_a_clean_one() {
    let tmp = tempfile::tempdir().unwrap();
    for (path, text) in FILES {
        let at = tmp.path().join(path);
        fs::create_dir_all(at.parent().unwrap()).unwrap();
        fs::write(at, text).unwrap();
    }
    let out = run(tmp.path(), &["scan", "--sarif", "lint.sarif", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let log: Value =
        serde_json::from_str(&fs::read_to_string(tmp.path().join("lint.sarif")).unwrap()).unwrap();

    let (flagged, clean) = expected();
    assert!(
        flagged.len() >= 16 && clean.len() >= 5,
        "{flagged:?} {clean:?}"
    );
    let got = results(&log);
    let got_set: BTreeSet<(String, u64, String)> = got.iter().cloned().collect();
    assert_eq!(got.len(), got_set.len(), "a result twice: {got:?}");
    assert_eq!(got_set, flagged);
    for (path, line) in &clean {
        assert!(
            !got.iter().any(|(p, l, _)| p == path && l == line),
            "a result at the clean {path}:{line}"
        );
    }
    // Every rule is described once, each result points at its own, and each message
    // names its tool.
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["MHC001", "MHC002", "MHC003", "MHC004"]);
    for result in log["runs"][0]["results"].as_array().unwrap() {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
        let text = result["message"]["text"].as_str().unwrap();
        assert!(text.starts_with("Tool ") && text.ends_with('.'), "{text}");
    }
    assert_valid_sarif(&tmp.path().join("lint.sarif"));

    // The gate fails on the same findings, each named at its line with its id.
    let out = run(tmp.path(), &["scan", "--require-hints=tools", "."]);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    let err = stderr(&out);
    for (path, line, id) in &flagged {
        let want = format!("mcp-hint-census: {path}:{line}: {id}: tool ");
        assert!(err.contains(&want), "{want}\n{err}");
    }
    assert_eq!(err.matches(": MHC").count(), flagged.len(), "{err}");
}

#[test]
fn names_in_any_script_of_any_length_reach_sarif_escaped_and_valid() {
    let tmp = tempfile::tempdir().unwrap();
    let long = format!("delete_{}", "x".repeat(10_000));
    let names = [
        "получить_погоду".to_string(),
        "検索".to_string(),
        String::new(),
        "quote\\\"and\\u0007bell".to_string(),
        long.clone(),
        format!("remove_{}", "y".repeat(200)),
    ];
    let mut source = String::from(
        "import { McpServer } from \"@modelcontextprotocol/sdk/server/mcp.js\";\n\
         const server = new McpServer({ name: \"x\", version: \"1\" });\n",
    );
    for name in &names {
        source.push_str(&format!(
            "server.registerTool(\"{name}\", {{ description: \"d\" }}, async () => ({{ content: [] }}));\n"
        ));
    }
    fs::create_dir_all(tmp.path().join("t/a b")).unwrap();
    fs::write(tmp.path().join("t/a b/s.ts"), source).unwrap();
    let out = run(
        tmp.path(),
        &[
            "scan",
            "--sarif",
            "lint.sarif",
            "--tools-csv",
            "tools.csv",
            "t",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let log: Value =
        serde_json::from_str(&fs::read_to_string(tmp.path().join("lint.sarif")).unwrap()).unwrap();
    let got = results(&log);
    // One silent tool per name, each at its own line, the path percent-encoded and
    // relative to the scanned directory, which is in no git work tree.
    assert_eq!(got.len(), names.len(), "{got:?}");
    for (i, (uri, line, id)) in got.iter().enumerate() {
        assert_eq!(
            (uri.as_str(), *line, id.as_str()),
            ("a%20b/s.ts", i as u64 + 3, "MHC001")
        );
    }
    let texts: Vec<&str> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["message"]["text"].as_str().unwrap())
        .collect();
    assert!(texts[0].contains("'получить_погоду'"), "{}", texts[0]);
    // A string over the finder's 256 bytes is no literal it reads: the tool is still
    // a row, without a name; one under it is read whole.
    assert!(
        texts[4].starts_with("Tool (name not a literal) declares no hint"),
        "{}",
        texts[4]
    );
    assert!(texts[5].contains(&names[5]), "{}", texts[5]);
    // The name under the bound reads as destructive, the others as nothing the lists
    // hold.
    let table = read_csv(&tmp.path().join("tools.csv"));
    let at = table[0].iter().position(|c| c == "name_class").unwrap();
    let classes: Vec<&str> = table[1..].iter().map(|r| r[at].as_str()).collect();
    assert_eq!(
        classes,
        [
            "unknown",
            "unknown",
            "unknown",
            "unknown",
            "unknown",
            "destructive"
        ]
    );
    assert_valid_sarif(&tmp.path().join("lint.sarif"));
}

#[test]
fn a_sarif_path_that_cannot_be_written_is_an_error_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("s.py"), "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\n@mcp.tool()\ndef get(): pass\n").unwrap();
    let out = run(
        tmp.path(),
        &["scan", "--sarif", "no/such/dir/lint.sarif", "s.py"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let err = stderr(&out);
    assert!(err.contains("'no/such/dir'"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// Writes the fixture files under `dir`, each with `above` blank comment lines first.
fn write_fixtures(dir: &Path, above: usize) {
    for (path, text) in FILES {
        let at = dir.join(path);
        fs::create_dir_all(at.parent().unwrap()).unwrap();
        let comment = if path.ends_with(".py") { "#" } else { "//" };
        fs::write(
            at,
            format!("{}{text}", format!("{comment}\n").repeat(above)),
        )
        .unwrap();
    }
}

/// Returns each result's fingerprint of the tool's own key with its (uri, line, rule).
fn fingerprints(log: &Value) -> BTreeMap<String, (String, u64, String)> {
    let mut out = BTreeMap::new();
    for run in log["runs"].as_array().unwrap() {
        for r in run["results"].as_array().unwrap() {
            let at = &r["locations"][0]["physicalLocation"];
            let print = r["partialFingerprints"]["mcpHintCensus/v1"]
                .as_str()
                .unwrap()
                .to_string();
            let place = (
                at["artifactLocation"]["uri"].as_str().unwrap().to_string(),
                at["region"]["startLine"].as_u64().unwrap(),
                r["ruleId"].as_str().unwrap().to_string(),
            );
            assert!(out.insert(print, place).is_none(), "one fingerprint twice");
        }
    }
    out
}

#[test]
fn fingerprints_stay_when_lines_are_inserted_above_a_finding() {
    let tmp = tempfile::tempdir().unwrap();
    let sarif = |above: usize| -> Value {
        write_fixtures(tmp.path(), above);
        // One name defined twice in one file: told apart by their order.
        let extra = tmp.path().join("src/twice.ts");
        let line = "server.registerTool(\"list_twice\", { description: \"d\" }, cb);\n";
        fs::write(
            &extra,
            format!(
                "{}import {{ McpServer }} from \"@modelcontextprotocol/sdk/server/mcp.js\";\n{line}{line}",
                "//\n".repeat(above)
            ),
        )
        .unwrap();
        let out = run(tmp.path(), &["scan", "--sarif", "lint.sarif", "."]);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        serde_json::from_str(&fs::read_to_string(tmp.path().join("lint.sarif")).unwrap()).unwrap()
    };
    let before = fingerprints(&sarif(0));
    let after = fingerprints(&sarif(5));
    let (flagged, _) = expected();
    assert_eq!(before.len(), flagged.len() + 2, "{before:?}");
    // The same fingerprints, each at the same file and rule, five lines down.
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>()
    );
    for (print, (uri, line, rule)) in &before {
        assert_eq!(after[print], (uri.clone(), line + 5, rule.clone()));
    }
    let twice: Vec<u64> = before
        .values()
        .filter(|(uri, ..)| uri == "src/twice.ts")
        .map(|(_, line, _)| *line)
        .collect();
    assert_eq!(twice.len(), 2, "{before:?}");
}

/// Returns the pinned SARIF Multitool (tests/peers/package.json), a .NET program the
/// npm package ships, or skips the test.
fn multitool() -> Option<PathBuf> {
    let bin = peers().join("node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool");
    if !cfg!(target_os = "linux") || !bin.is_file() {
        skip("no SARIF Multitool in tests/peers; run tests/peers/install.sh");
        return None;
    }
    Some(bin)
}

/// Runs the Multitool's `validate` over `log` with the policy in tests/data (its own
/// rules and GitHub's ingestion rules) and returns each error and warning it reports,
/// about the log or about its own run. Its check that URIs are reachable goes through
/// a proxy on 127.0.0.1 that refuses, so the test never leaves the machine: such a
/// URI is a note, which is neither.
fn validate(bin: &Path, log: &Path) -> Vec<String> {
    let out_dir = tempfile::tempdir().unwrap();
    let report = out_dir.path().join("validation.sarif");
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let proxy = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let policy = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sarif-multitool.xml");
    let mut cmd = Command::new(bin);
    cmd.arg("validate")
        .arg("--config")
        .arg(&policy)
        .args(["--rule-kind", "Sarif;Ghas", "--output"])
        .arg(&report)
        .arg(log)
        // A machine without ICU runs .NET with invariant globalization only.
        .env("DOTNET_SYSTEM_GLOBALIZATION_INVARIANT", "1")
        .env("DOTNET_CLI_TELEMETRY_OPTOUT", "1")
        .env_remove("NO_PROXY")
        .env_remove("no_proxy");
    for var in [
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
    ] {
        cmd.env(var, &proxy);
    }
    let out = cmd.output().unwrap();
    assert!(
        report.is_file(),
        "the Multitool wrote no report on {}:\n{}",
        log.display(),
        show(&out)
    );
    let report: Value = serde_json::from_str(&fs::read_to_string(&report).unwrap()).unwrap();
    let mut found = Vec::new();
    for run in report["runs"].as_array().unwrap() {
        let results = run["results"].as_array().cloned().unwrap_or_default();
        let notifications = run["invocations"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|i| {
                i["toolExecutionNotifications"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .chain(
                run["invocations"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .flat_map(|i| {
                        i["toolConfigurationNotifications"]
                            .as_array()
                            .cloned()
                            .unwrap_or_default()
                    }),
            );
        for r in results.into_iter().chain(notifications) {
            // A result without a level is a warning (SARIF 2.1.0, 3.27.10).
            let level = r["level"].as_str().unwrap_or("warning");
            if level == "error" || level == "warning" {
                let id = r["ruleId"].as_str().or(r["descriptor"]["id"].as_str());
                found.push(format!(
                    "{level} {}: {}",
                    id.unwrap_or("?"),
                    // The Multitool's own messages are an id and arguments.
                    r["message"]["text"]
                        .as_str()
                        .map_or_else(|| r["message"]["arguments"].to_string(), str::to_string)
                ));
            }
        }
    }
    found
}

#[test]
fn the_sarif_sdk_validator_finds_no_error_or_warning_in_any_log_scan_writes() {
    let Some(bin) = multitool() else {
        return;
    };
    // The validator is alive: the log this module wrote before, a path from the
    // root and no base, breaks its rule SARIF1004.
    let tmp = tempfile::tempdir().unwrap();
    let old = tmp.path().join("old.sarif");
    let mut stale: Value = serde_json::from_str(
        r#"{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x", "informationUri": "https://example.org/"}},
            "results": [{"ruleId": "X1", "message": {"text": "A."},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": "/abs/x.ts"}, "region": {"startLine": 1}}}]}]}]}"#,
    )
    .unwrap();
    stale["$schema"] = Value::from(
        "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
    );
    fs::write(&old, stale.to_string()).unwrap();
    let got = validate(&bin, &old);
    assert!(
        got.iter().any(|f| f.starts_with("error SARIF1004")),
        "{got:?}"
    );

    // A git work tree with the fixtures in a folder, a tree in none, and an archive.
    let repo = tmp.path().join("repo");
    write_fixtures(&repo.join("pkg"), 0);
    crate::common::git(&repo, &["init", "-q", "-b", "main"]);
    crate::common::git(&repo, &["add", "-A"]);
    crate::common::git(
        &repo,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "-m",
            "t",
        ],
    );
    let plain = TestTree::new();
    for (path, text) in FILES {
        plain.file(path, text);
    }
    fs::write(tmp.path().join("server.tar.gz"), plain.archive(Kind::TarGz)).unwrap();
    let absolute = repo.join("pkg").to_string_lossy().into_owned();
    let plain_path = plain.path().to_string_lossy().into_owned();
    let (flagged, _) = expected();
    let shapes: [(&str, Vec<&str>, usize); 6] = [
        ("relative", vec!["repo/pkg"], 1),
        ("absolute", vec![&absolute], 1),
        ("root", vec!["repo"], 1),
        ("git", vec!["--git", "HEAD", "repo/pkg"], 1),
        ("archive", vec!["server.tar.gz"], 1),
        (
            "several",
            vec!["repo/pkg", &plain_path, "server.tar.gz", "missing"],
            4,
        ),
    ];
    let mut logs = BTreeMap::new();
    for (shape, paths, runs) in &shapes {
        let file = format!("{shape}.sarif");
        let mut args = vec!["scan", "--tools", "--sarif", &file];
        args.extend(paths.iter().copied());
        let out = run(tmp.path(), &args);
        let want = if *shape == "several" { 1 } else { 0 };
        assert_eq!(out.status.code(), Some(want), "{shape}: {}", show(&out));
        let log: Value =
            serde_json::from_str(&fs::read_to_string(tmp.path().join(&file)).unwrap()).unwrap();
        assert_eq!(log["runs"].as_array().unwrap().len(), *runs, "{shape}");
        let got = validate(&bin, &tmp.path().join(&file));
        assert!(
            got.is_empty(),
            "{shape}: the validator reports\n{}",
            got.join("\n")
        );
        assert_valid_sarif(&tmp.path().join(&file));
        logs.insert(*shape, log);
    }

    // A directory named relatively or absolutely, or read at a revision, gives the
    // same paths against the same base: the work tree's top.
    let top = format!(
        "file://{}/",
        fs::canonicalize(&repo)
            .unwrap()
            .to_string_lossy()
            .replace(' ', "%20")
    );
    for shape in ["relative", "absolute", "git", "root"] {
        let run = &logs[shape]["runs"][0];
        assert_eq!(
            run["originalUriBaseIds"]["SRCROOT"]["uri"],
            top.as_str(),
            "{shape}"
        );
        let uris: BTreeSet<(String, u64, String)> = results(&logs[shape]).into_iter().collect();
        let want: BTreeSet<(String, u64, String)> = flagged
            .iter()
            .map(|(p, l, r)| (format!("pkg/{p}"), *l, r.clone()))
            .collect();
        assert_eq!(uris, want, "{shape}");
    }
    for shape in ["relative", "absolute", "git"] {
        assert_eq!(
            logs[shape]["runs"][0]["automationDetails"]["id"], "mcp-hint-census/pkg/",
            "{shape}"
        );
    }
    // The repository's top is the category the Action's upload names.
    let action =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml")).unwrap();
    let category = action
        .lines()
        .find_map(|l| l.trim().strip_prefix("category: "))
        .expect("action.yml gives the upload a category");
    assert_eq!(
        logs["root"]["runs"][0]["automationDetails"]["id"],
        format!("{}/", category.trim_end_matches('/'))
    );
    // An archive's paths are inside it, the archive named in the run.
    let archive = &logs["archive"]["runs"][0];
    assert_eq!(archive["properties"]["archive"], "server.tar.gz");
    assert_eq!(
        archive["automationDetails"]["id"],
        "mcp-hint-census/server.tar.gz/"
    );
    let uris: BTreeSet<(String, u64, String)> = results(&logs["archive"]).into_iter().collect();
    assert_eq!(uris, flagged);
    // Several paths: a run each, each placed as it would be alone, the missing one a
    // failed run with no result.
    let several = logs["several"]["runs"].as_array().unwrap();
    for (i, shape) in ["relative", "", "archive"].iter().enumerate() {
        if shape.is_empty() {
            continue;
        }
        assert_eq!(
            several[i]["results"], logs[shape]["runs"][0]["results"],
            "{shape}"
        );
    }
    assert_eq!(several[1]["automationDetails"]["id"], "mcp-hint-census/");
    assert_eq!(several[3]["invocations"][0]["executionSuccessful"], false);
    assert_eq!(several[3]["results"].as_array().unwrap().len(), 0);
}
