//! `diff OLD.json NEW.json` on snapshots written here by hand, and on
//! snapshots `probe --save` took of the fault server serving two releases.

use std::path::Path;

use crate::common::{run_env, show, stderr, stdout};
use crate::support::*;
use serde_json::{json, Value};

fn write_snapshot(path: &Path, tools: Value) {
    let snapshot = json!({
        "server": { "name": "s", "version": "1" },
        "protocolVersion": "2025-06-18",
        "date": "2026-09-07",
        "tools": tools,
    });
    std::fs::write(path, serde_json::to_string_pretty(&snapshot).unwrap()).unwrap();
}

/// Returns the `added`, `removed` and `changed` lines of a diff's output.
fn change_lines(out: &std::process::Output) -> Vec<String> {
    stdout(out)
        .lines()
        .filter(|l| l.starts_with("added") || l.starts_with("removed") || l.starts_with("changed"))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_change_is_listed_and_marked_and_permissive_ones_fail() {
    let dir = tempfile::tempdir().unwrap();
    write_snapshot(
        &dir.path().join("old.json"),
        json!([
            { "name": "gone" },
            { "name": "search" },
            { "name": "write", "annotations": { "readOnlyHint": false, "destructiveHint": false, "openWorldHint": false } },
            { "name": "same", "annotations": { "readOnlyHint": true } },
        ]),
    );
    write_snapshot(
        &dir.path().join("new.json"),
        json!([
            { "name": "fresh", "annotations": { "readOnlyHint": true } },
            { "name": "search", "annotations": { "readOnlyHint": true } },
            { "name": "write", "annotations": { "readOnlyHint": false, "idempotentHint": "yes" } },
            { "name": "same", "annotations": { "readOnlyHint": true } },
        ]),
    );
    let out = run_env(dir.path(), &["diff", "old.json", "new.json"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    // Worked out by hand from docs/probe.md's directions; tools in name order, hints in schema order.
    assert_eq!(
        change_lines(&out),
        [
            "added    tool 'fresh'",
            "removed  tool 'gone'",
            "changed  tool 'search' readOnlyHint: absent -> true (resolved false -> true) more-permissive",
            "changed  tool 'write' destructiveHint: false -> absent (resolved false -> true) more-cautious",
            "changed  tool 'write' idempotentHint: absent -> invalid \"yes\" (resolved false -> false) neutral",
            "changed  tool 'write' openWorldHint: false -> absent (resolved false -> true) more-cautious",
        ],
        "{}",
        show(&out)
    );
    assert!(
        stdout(&out).contains("1 tool added, 1 removed; 4 hint changes: 1 more-permissive, 2 more-cautious, 1 neutral\n"),
        "{}",
        show(&out)
    );
}

#[test]
fn only_cautious_changes_pass() {
    let dir = tempfile::tempdir().unwrap();
    write_snapshot(
        &dir.path().join("old.json"),
        json!([{ "name": "t", "annotations": { "readOnlyHint": true, "openWorldHint": false } }]),
    );
    write_snapshot(
        &dir.path().join("new.json"),
        json!([{ "name": "t", "annotations": null }]),
    );
    let out = run_env(dir.path(), &["diff", "old.json", "new.json"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(
        change_lines(&out),
        [
            "changed  tool 't' readOnlyHint: true -> absent (resolved true -> false) more-cautious",
            "changed  tool 't' openWorldHint: false -> absent (resolved false -> true) more-cautious",
        ]
    );
}

#[test]
fn a_file_that_is_not_a_snapshot_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("old.json"), "{\"tools\": 3}").unwrap();
    write_snapshot(&dir.path().join("new.json"), json!([]));
    let out = run_env(dir.path(), &["diff", "old.json", "new.json"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        stderr(&out).contains("'old.json' is not a probe snapshot: it has no 'tools' array"),
        "{}",
        show(&out)
    );
}

#[test]
fn probe_snapshots_of_two_releases_diff_as_expected() {
    let Some(python) = require("python3", python3()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = python.display().to_string();
    let script = peers().join("fault_server.py").display().to_string();
    let release_one = json!([
        { "name": "drop", "annotations": { "readOnlyHint": false, "destructiveHint": true } },
        { "name": "list", "annotations": { "readOnlyHint": true, "openWorldHint": false } },
        { "name": "add", "annotations": null },
    ]);
    let release_two = json!([
        { "name": "drop", "annotations": { "readOnlyHint": false, "destructiveHint": false } },
        { "name": "list", "annotations": { "readOnlyHint": true, "openWorldHint": false } },
        { "name": "add" },
    ]);
    for (file, tools) in [
        ("one.json", &release_one),
        ("two.json", &release_two),
        ("two-again.json", &release_two),
    ] {
        let out = run_env(
            dir.path(),
            &[
                "probe",
                "--save",
                file,
                "--date",
                "2026-09-07",
                "--",
                &server,
                &script,
            ],
            &[("FAULT_TOOLS", &tools.to_string())],
        );
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    }
    let one = std::fs::read_to_string(dir.path().join("one.json")).unwrap();
    let two = std::fs::read(dir.path().join("two.json")).unwrap();
    assert_eq!(
        two,
        std::fs::read(dir.path().join("two-again.json")).unwrap(),
        "snapshots are stable"
    );
    let snapshot: Value = serde_json::from_str(&one).unwrap();
    assert_eq!(
        snapshot,
        json!({
            "server": { "name": "fault-server", "version": "0.0.1" },
            "protocolVersion": "2025-11-25",
            "capabilities": {
                "roots": { "listChanged": true },
                "sampling": {},
                "elicitation": { "form": {}, "url": {} },
            },
            "date": "2026-09-07",
            "tools": [
                { "name": "add", "annotations": null },
                { "name": "drop", "annotations": { "readOnlyHint": false, "destructiveHint": true } },
                { "name": "list", "annotations": { "readOnlyHint": true, "openWorldHint": false } },
            ],
        })
    );
    assert!(
        one.ends_with("}\n") && one.contains("\n  \"tools\": [\n"),
        "{one}"
    );

    let out = run_env(dir.path(), &["diff", "one.json", "two.json"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert_eq!(
        change_lines(&out),
        ["changed  tool 'drop' destructiveHint: true -> false (resolved true -> false) more-permissive"],
        "{}",
        show(&out)
    );
    let out = run_env(dir.path(), &["diff", "two.json", "two-again.json"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(change_lines(&out).is_empty(), "{}", show(&out));
}

fn write_snapshot_of(path: &Path, server: &str, tools: Value) {
    let snapshot = json!({
        "server": { "name": server, "version": "1" },
        "protocolVersion": "2025-06-18",
        "date": "2026-09-07",
        "tools": tools,
    });
    std::fs::write(path, serde_json::to_string_pretty(&snapshot).unwrap()).unwrap();
}

#[test]
fn a_permissive_duplicate_shows_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    write_snapshot(
        &dir.path().join("old.json"),
        json!([{ "name": "drop", "annotations": { "destructiveHint": true } }]),
    );
    write_snapshot(
        &dir.path().join("new.json"),
        json!([
            { "name": "drop", "annotations": { "destructiveHint": true } },
            { "name": "drop", "annotations": { "destructiveHint": false } },
        ]),
    );
    let out = run_env(dir.path(), &["diff", "old.json", "new.json"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        stdout(&out).contains("duplicate tool 'drop' listed 2 times in the new snapshot\n"),
        "{}",
        show(&out)
    );
    assert_eq!(
        change_lines(&out),
        ["changed  tool 'drop' (listing 2 of 2) destructiveHint: true -> false (resolved true -> false) more-permissive"],
        "{}",
        show(&out)
    );
    assert!(
        stdout(&out).contains("0 tools added, 0 removed; 1 hint change: 1 more-permissive, 0 more-cautious, 0 neutral\n"),
        "{}",
        show(&out)
    );
}

#[test]
fn titles_are_compared_and_other_servers_named() {
    let dir = tempfile::tempdir().unwrap();
    write_snapshot_of(
        &dir.path().join("old.json"),
        "alpha",
        json!([
            { "name": "a", "title": "Read A" },
            { "name": "b", "annotations": { "title": "Bee" } },
            { "name": "c", "title": "C" },
        ]),
    );
    write_snapshot_of(
        &dir.path().join("new.json"),
        "beta",
        json!([
            { "name": "a", "title": "Read all of A" },
            { "name": "b" },
            { "name": "c", "title": "C", "annotations": { "title": "ignored: title wins" } },
        ]),
    );
    let out = run_env(dir.path(), &["diff", "old.json", "new.json"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(
        change_lines(&out),
        [
            "changed  tool 'a' title: 'Read A' -> 'Read all of A'",
            "changed  tool 'b' title: 'Bee' -> absent",
        ],
        "{}",
        show(&out)
    );
    assert!(
        stdout(&out).contains("; 2 title changes\n"),
        "{}",
        show(&out)
    );
    assert!(
        stderr(&out)
            .contains("warning: the snapshots are of two different servers, 'alpha' and 'beta'"),
        "{}",
        show(&out)
    );
}

#[test]
fn whatever_probe_saves_diff_reads() {
    let Some(python) = require("python3", python3()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = python.display().to_string();
    let script = peers().join("fault_server.py").display().to_string();
    // Shapes the schema forbids but a server can send.
    let tools = json!([
        { "name": 12345, "annotations": { "readOnlyHint": true } },
        { "annotations": { "readOnlyHint": true } },
        7,
        "text",
        { "name": "ok", "title": "OK", "annotations": { "readOnlyHint": true } },
    ]);
    let out = run_env(
        dir.path(),
        &[
            "probe",
            "--save",
            "odd.json",
            "--date",
            "2026-09-07",
            "--",
            &server,
            &script,
        ],
        &[("FAULT_TOOLS", &tools.to_string())],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let out = run_env(dir.path(), &["diff", "odd.json", "odd.json"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(change_lines(&out).is_empty(), "{}", show(&out));
    assert!(
        stdout(&out).contains("5 tools, dated 2026-09-07"),
        "{}",
        show(&out)
    );
    // Each entry went into the snapshot as the server sent it.
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("odd.json")).unwrap())
            .unwrap();
    let mut names: Vec<String> = saved["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.to_string())
        .collect();
    let mut sent: Vec<String> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.to_string())
        .collect();
    names.sort();
    sent.sort();
    assert_eq!(names, sent);
}
