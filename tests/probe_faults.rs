//! Issue 4: `probe` over stdio against `tests/peers/fault_server.py`, a small server
//! that pages, interleaves, prints garbage, crashes, hangs, loops and errs on request.
//! The tools it serves are written here, and the expected CSV rows are worked out from
//! them by `support::expected_row`, not by the crate.

#[path = "peers/support.rs"]
mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::*;

fn fault_server() -> Option<Vec<String>> {
    let python = require("python3", python3())?;
    Some(vec![
        python.display().to_string(),
        peers().join("fault_server.py").display().to_string(),
    ])
}

/// Asserts that the server whose pid the fault server wrote to `pidfile` is gone
/// within two seconds.
fn assert_server_gone(pidfile: &Path, which: &str) {
    let pid: u32 = std::fs::read_to_string(pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        is_gone_within(pid, Duration::from_secs(2)),
        "the {which} server {pid} is still running"
    );
}

fn mixed_tools() -> Value {
    json!([
        { "name": "nothing", "inputSchema": { "type": "object" } },
        { "name": "null_annotations", "annotations": null, "inputSchema": { "type": "object" } },
        { "name": "read_only", "annotations": { "readOnlyHint": true } },
        { "name": "read_only_closed", "annotations": { "readOnlyHint": true, "openWorldHint": false } },
        { "name": "explicit_false", "annotations": { "readOnlyHint": false, "destructiveHint": false, "idempotentHint": false, "openWorldHint": false } },
        { "name": "invalid", "annotations": { "readOnlyHint": "yes", "destructiveHint": 0, "openWorldHint": false } },
        { "name": "titled", "title": "Titled", "annotations": { "destructiveHint": true } },
    ])
}

fn records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("the fault server recorded its input")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a recorded JSON line"))
        .collect()
}

#[test]
fn paging_follows_every_cursor_and_keeps_the_servers_order() {
    let Some(server) = fault_server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let tools = mixed_tools();
    let record = dir.path().join("record.jsonl");
    let out = probe_stdio(
        dir.path(),
        &server,
        &["--csv", "hints.csv"],
        &[
            ("FAULT_TOOLS", &tools.to_string()),
            ("FAULT_PAGE_SIZE", "3"),
            ("FAULT_RECORD", record.to_str().unwrap()),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let (header, rows) = read_csv(&dir.path().join("hints.csv"));
    assert_eq!(header, HEADER);
    let expected: Vec<Vec<String>> = tools.as_array().unwrap().iter().map(expected_row).collect();
    assert_eq!(rows, expected, "{}", show(&out));
    let text = stdout(&out);
    assert!(
        text.contains("7 tools: 2 declare every meaningful hint, 2 declare nothing"),
        "{text}"
    );
    assert!(text.contains("3 tools/list pages read"), "{text}");
    assert!(
        text.contains("server 'fault-server' version '0.0.1'"),
        "{text}"
    );

    let sent = records(&record);
    let methods: Vec<&str> = sent.iter().filter_map(|m| m["method"].as_str()).collect();
    assert_eq!(
        methods,
        [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/list",
            "tools/list"
        ]
    );
    let cursors: Vec<&Value> = sent[2..].iter().map(|m| &m["params"]["cursor"]).collect();
    assert_eq!(cursors, [&Value::Null, &json!("page-3"), &json!("page-6")]);
}

#[test]
fn interleaved_notifications_and_server_requests_are_answered() {
    let Some(server) = fault_server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("record.jsonl");
    let tools = mixed_tools();
    let out = probe_stdio(
        dir.path(),
        &server,
        &["--csv", "hints.csv"],
        &[
            ("FAULT_TOOLS", &tools.to_string()),
            ("FAULT_PAGE_SIZE", "4"),
            ("FAULT_MODES", "interleave"),
            ("FAULT_RECORD", record.to_str().unwrap()),
        ],
    );
    // The server exits with status 9 on a wrong answer, so success already says a lot.
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let (_, rows) = read_csv(&dir.path().join("hints.csv"));
    assert_eq!(rows.len(), 7);
    let answers: Vec<Value> = records(&record)
        .into_iter()
        .filter(|m| m.get("method").is_none())
        .collect();
    // initialize and two tools/list pages: a ping and a roots/list before each answer.
    assert_eq!(answers.len(), 6, "{answers:?}");
    for pair in answers.chunks(2) {
        assert_eq!(pair[0]["result"], json!({}), "{pair:?}");
        assert_eq!(pair[1]["error"]["code"], json!(-32601), "{pair:?}");
    }
}

#[test]
fn lines_that_are_not_json_are_skipped_counted_and_warned_about() {
    let Some(server) = fault_server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = probe_stdio(dir.path(), &server, &[], &[("FAULT_MODES", "garbage")]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let err = stderr(&out);
    // Two stray lines before the initialize answer and two before the tools/list page.
    assert!(
        err.contains("warning: skipped 4 line(s) on the server's stdout that are not JSON"),
        "{err}"
    );
    assert!(
        err.contains("'Starting server... this line is not JSON'"),
        "{err}"
    );
    assert!(
        stdout(&out).contains("1 tool: 0 declare every meaningful hint, 1 declares nothing"),
        "{}",
        show(&out)
    );
}

#[test]
fn a_crash_reports_the_exit_status_and_the_stderr_tail() {
    let Some(server) = fault_server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = probe_stdio(dir.path(), &server, &[], &[("FAULT_MODES", "crash")]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let err = stderr(&out);
    assert!(
        err.contains("the server exited before answering 'tools/list' (exit status 7)"),
        "{err}"
    );
    assert!(err.contains("| fault_server: started\n"), "{err}");
    assert!(
        err.contains("| fatal: the tool registry is corrupt"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "{}", show(&out));
}

#[test]
fn a_hang_is_stopped_at_the_timeout_and_the_server_killed() {
    let Some(server) = fault_server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let started = Instant::now();
    let out = probe_stdio(
        dir.path(),
        &server,
        &["--timeout", "2"],
        &[
            ("FAULT_MODES", "hang"),
            ("FAULT_PIDFILE", pidfile.to_str().unwrap()),
        ],
    );
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert!(took >= Duration::from_secs(2), "took {took:?}");
    let err = stderr(&out);
    assert!(
        err.contains("no answer to 'tools/list' within 2 s (--timeout); the server was stopped"),
        "{err}"
    );
    assert_server_gone(&pidfile, "hung");
}

#[test]
fn a_lingering_server_behind_a_wrapper_is_killed_after_a_clean_run() {
    let Some(server) = fault_server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    // The shell does not exec the server, so the server is a grandchild of the probe.
    let script = format!("'{}' '{}'; echo wrapper done", server[0], server[1]);
    let wrapper = vec!["sh".to_string(), "-c".to_string(), script];
    let out = probe_stdio(
        dir.path(),
        &wrapper,
        &[],
        &[
            ("FAULT_MODES", "linger"),
            ("FAULT_PIDFILE", pidfile.to_str().unwrap()),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_server_gone(&pidfile, "lingering");
}

#[test]
fn a_repeated_cursor_is_reported_as_a_loop() {
    let Some(server) = fault_server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = probe_stdio(dir.path(), &server, &[], &[("FAULT_MODES", "loop")]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let err = stderr(&out);
    assert!(
        err.contains("tools/list, page 2: the server sent cursor 'again' a second time"),
        "{err}"
    );
}

#[test]
fn a_json_rpc_error_shows_its_code_and_message() {
    let Some(server) = fault_server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = probe_stdio(dir.path(), &server, &[], &[("FAULT_MODES", "error")]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let err = stderr(&out);
    assert!(
        err.contains(
            "tools/list, page 1: JSON-RPC error -32603: 'the tool registry is unavailable'"
        ),
        "{err}"
    );
}

#[test]
fn the_offered_protocol_version_goes_out_and_the_negotiated_one_is_reported() {
    let Some(server) = fault_server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("record.jsonl");
    let out = probe_stdio(
        dir.path(),
        &server,
        &["--protocol-version", "2025-03-26"],
        &[
            ("FAULT_PROTOCOL", "2024-11-05"),
            ("FAULT_RECORD", record.to_str().unwrap()),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let init = &records(&record)[0];
    assert_eq!(init["params"]["protocolVersion"], "2025-03-26");
    assert_eq!(init["params"]["clientInfo"]["name"], "mcp-hint-census");
    assert_eq!(
        init["params"]["clientInfo"]["version"],
        env!("CARGO_PKG_VERSION")
    );
    assert!(
        stdout(&out).contains("protocol '2024-11-05'"),
        "{}",
        show(&out)
    );
}

#[test]
fn contradictions_and_duplicates_are_warnings_not_failures() {
    let Some(server) = fault_server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let tools = json!([
        { "name": "twice", "annotations": { "readOnlyHint": false } },
        { "name": "twice" },
        { "name": "both", "annotations": { "readOnlyHint": true, "destructiveHint": true } },
    ]);
    let out = probe_stdio(
        dir.path(),
        &server,
        &[],
        &[("FAULT_TOOLS", &tools.to_string())],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let err = stderr(&out);
    assert!(
        err.contains("warning: tool 'twice' is listed more than once"),
        "{err}"
    );
    assert!(
        err.contains("warning: tool 'both' is declared both read-only and destructive"),
        "{err}"
    );
}

#[test]
fn each_require_rule_lists_the_tools_that_break_it() {
    let Some(server) = fault_server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let tools = mixed_tools();
    // Worked out by hand from issue 4's rules for the seven tools of `mixed_tools`.
    let cases: [(&str, &[&str]); 4] = [
        (
            "meaningful",
            &[
                "tool 'nothing' lacks readOnlyHint, destructiveHint, idempotentHint, openWorldHint",
                "tool 'null_annotations' lacks readOnlyHint, destructiveHint, idempotentHint, openWorldHint",
                "tool 'read_only' lacks openWorldHint",
                "tool 'invalid' lacks readOnlyHint, destructiveHint, idempotentHint",
                "tool 'titled' lacks readOnlyHint, idempotentHint, openWorldHint",
            ],
        ),
        (
            "all",
            &[
                "tool 'nothing' lacks readOnlyHint, destructiveHint, idempotentHint, openWorldHint",
                "tool 'null_annotations' lacks readOnlyHint, destructiveHint, idempotentHint, openWorldHint",
                "tool 'read_only' lacks destructiveHint, idempotentHint, openWorldHint",
                "tool 'read_only_closed' lacks destructiveHint, idempotentHint",
                "tool 'invalid' lacks readOnlyHint, destructiveHint, idempotentHint",
                "tool 'titled' lacks readOnlyHint, idempotentHint, openWorldHint",
            ],
        ),
        (
            "openai",
            &[
                "tool 'nothing' lacks readOnlyHint, destructiveHint, openWorldHint",
                "tool 'null_annotations' lacks readOnlyHint, destructiveHint, openWorldHint",
                "tool 'read_only' lacks destructiveHint, openWorldHint",
                "tool 'read_only_closed' lacks destructiveHint",
                "tool 'invalid' lacks readOnlyHint, destructiveHint",
                "tool 'titled' lacks readOnlyHint, openWorldHint",
            ],
        ),
        (
            "anthropic",
            &[
                "tool 'nothing' lacks title, readOnlyHint or destructiveHint",
                "tool 'null_annotations' lacks title, readOnlyHint or destructiveHint",
                "tool 'read_only' lacks title",
                "tool 'read_only_closed' lacks title",
                "tool 'explicit_false' lacks title",
                "tool 'invalid' lacks title, readOnlyHint or destructiveHint",
            ],
        ),
    ];
    for (rule, lacking) in cases {
        let out = probe_stdio(
            dir.path(),
            &server,
            &["--require", rule],
            &[("FAULT_TOOLS", &tools.to_string())],
        );
        assert_eq!(out.status.code(), Some(3), "{rule}: {}", show(&out));
        let got: Vec<String> = stdout(&out)
            .lines()
            .filter_map(|l| l.strip_prefix(&format!("require {rule}: tool ")))
            .map(|l| format!("tool {l}"))
            .collect();
        assert_eq!(got, lacking, "{rule}: {}", show(&out));
    }

    let complete = json!([
        { "name": "a", "title": "A", "annotations": { "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false } },
    ]);
    for rule in ["meaningful", "all", "openai", "anthropic"] {
        let out = probe_stdio(
            dir.path(),
            &server,
            &["--require", rule],
            &[("FAULT_TOOLS", &complete.to_string())],
        );
        assert_eq!(out.status.code(), Some(0), "{rule}: {}", show(&out));
        assert!(
            stdout(&out).contains(&format!("require {rule}: every tool passes")),
            "{}",
            show(&out)
        );
    }
}

#[test]
fn bad_command_lines_are_usage_errors_and_start_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(
        dir.path(),
        &["probe", "--require", "strict", "--", "/nonexistent/server"],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        stderr(&out).contains("--require 'strict' is not a rule"),
        "{}",
        show(&out)
    );

    let out = run(dir.path(), &["probe"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));

    let out = run(dir.path(), &["probe", "--", "/nonexistent/server"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        stderr(&out).contains("starting '/nonexistent/server'"),
        "{}",
        show(&out)
    );
}
