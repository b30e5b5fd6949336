//! `probe` over stdio against `tests/peers/fault_server.py`, a small server that pages,
//! interleaves, prints garbage, crashes, hangs, loops, errs, floods, nests and orphans on
//! request, and over Streamable HTTP against scripted servers that send what no server
//! should. The tools it serves are written here, and the expected CSV rows are worked
//! out from them by `support::expected_row`, not by the crate.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::{
    bin, first_line, raw_server, read_csv, run_env, run_into_closed_pipe, show, stderr, stdout,
};
use crate::support::*;
use serde_json::{json, Value};

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
    if !is_gone_within(pid, Duration::from_secs(2)) {
        // Not left behind for the next test run to trip over.
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
        panic!("the {which} server {pid} is still running");
    }
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
    let header = first_line(&dir.path().join("hints.csv"));
    let rows: Vec<Vec<String>> = read_csv(&dir.path().join("hints.csv"))
        .into_iter()
        .skip(1)
        .collect();
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
    let rows: Vec<Vec<String>> = read_csv(&dir.path().join("hints.csv"))
        .into_iter()
        .skip(1)
        .collect();
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
    // Worked out by hand from docs/probe.md's rules for the seven tools of `mixed_tools`.
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
                "tool 'nothing' lacks title, both readOnlyHint and destructiveHint (declaring either passes)",
                "tool 'null_annotations' lacks title, both readOnlyHint and destructiveHint (declaring either passes)",
                "tool 'read_only' lacks title",
                "tool 'read_only_closed' lacks title",
                "tool 'explicit_false' lacks title",
                "tool 'invalid' lacks title, both readOnlyHint and destructiveHint (declaring either passes)",
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
        assert!(
            stdout(&out).contains(&format!(
                "require {rule}: {} of 7 tools break the rule\n",
                lacking.len()
            )),
            "{rule}: {}",
            show(&out)
        );
    }

    let complete = json!([
        { "name": "a", "title": "A", "annotations": { "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false } },
    ]);
    let one_bare = json!([{ "name": "bare" }]);
    let out = probe_stdio(
        dir.path(),
        &server,
        &["--require", "all"],
        &[("FAULT_TOOLS", &one_bare.to_string())],
    );
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert!(
        stdout(&out).contains("require all: 1 of 1 tool breaks the rule\n"),
        "{}",
        show(&out)
    );
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
    let out = run_env(
        dir.path(),
        &["probe", "--require", "strict", "--", "/nonexistent/server"],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        stderr(&out).contains("possible values: meaningful, all, openai, anthropic"),
        "{}",
        show(&out)
    );

    let out = run_env(dir.path(), &["probe"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));

    let out = run_env(dir.path(), &["probe", "--", "/nonexistent/server"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        stderr(&out).contains("starting '/nonexistent/server'"),
        "{}",
        show(&out)
    );
}

#[test]
fn client_requests_are_answered_as_the_offered_capabilities_allow() {
    let Some(server) = fault_server() else { return };
    // The answers the MCP schema allows a client that runs no model and asks no user:
    // no roots, a sampling request the user rejected (code -1, the sampling section's
    // example), an elicitation declined; without the capability, method-not-found.
    // What the Python SDK's client builds from such callbacks (see probe_peers).
    let offered = json!({
        "roots": { "listChanged": true },
        "sampling": {},
        "elicitation": { "form": {}, "url": {} },
    });
    let cases = [
        (
            "default",
            offered.clone(),
            [
                json!({ "result": { "roots": [] } }),
                json!({ "error": -1 }),
                json!({ "result": { "action": "decline" } }),
            ],
        ),
        (
            "none",
            json!({}),
            [
                json!({ "error": -32601 }),
                json!({ "error": -32601 }),
                json!({ "error": -32601 }),
            ],
        ),
        (
            r#"{"roots":{"listChanged":true}}"#,
            json!({ "roots": { "listChanged": true } }),
            [
                json!({ "result": { "roots": [] } }),
                json!({ "error": -32601 }),
                json!({ "error": -32601 }),
            ],
        ),
    ];
    for (flag, capabilities, answers) in cases {
        let dir = tempfile::tempdir().unwrap();
        let record = dir.path().join("record.jsonl");
        let out = probe_stdio(
            dir.path(),
            &server,
            &["--capabilities", flag],
            &[
                ("FAULT_MODES", "ask"),
                ("FAULT_RECORD", record.to_str().unwrap()),
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{flag}: {}", show(&out));
        let sent = records(&record);
        assert_eq!(sent[0]["params"]["capabilities"], capabilities, "{flag}");
        let got: Vec<Value> = sent
            .iter()
            .filter(|m| m.get("method").is_none())
            .map(|m| match m.get("error") {
                Some(e) => json!({ "error": e["code"] }),
                None => json!({ "result": m["result"] }),
            })
            .collect();
        assert_eq!(got, answers, "{flag}");
        let names: Vec<&str> = capabilities
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let shown = if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        };
        assert!(
            stdout(&out).contains(&format!("client capabilities offered: {shown}\n")),
            "{flag}: {}",
            show(&out)
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let out = probe_stdio(dir.path(), &server, &["--capabilities", "[1]"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
}

#[test]
fn a_stdout_line_past_max_message_fails_naming_the_limit() {
    let Some(server) = fault_server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let started = Instant::now();
    let out = probe_stdio(
        dir.path(),
        &server,
        &["--max-message", "10KiB"],
        &[
            ("FAULT_MODES", "huge"),
            ("FAULT_HUGE", "300000"),
            ("FAULT_PIDFILE", pidfile.to_str().unwrap()),
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(
        stderr(&out)
            .contains("a line on the server's stdout is longer than 10240 bytes (--max-message)"),
        "{}",
        show(&out)
    );
    assert_server_gone(&pidfile, "flooding");

    // The same line fits under a limit above its size; the server then hangs.
    let out = probe_stdio(
        dir.path(),
        &server,
        &["--max-message", "400000", "--timeout", "2"],
        &[("FAULT_MODES", "huge"), ("FAULT_HUGE", "300000")],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        stderr(&out).contains("no answer to 'tools/list' within 2 s"),
        "{}",
        show(&out)
    );
}

#[test]
fn a_server_that_exits_while_a_grandchild_holds_its_stdout_is_noticed_promptly() {
    let Some(server) = fault_server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let started = Instant::now();
    let out = probe_stdio(
        dir.path(),
        &server,
        &["--timeout", "30"],
        &[
            ("FAULT_MODES", "orphan"),
            ("FAULT_PIDFILE", pidfile.to_str().unwrap()),
        ],
    );
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(took < Duration::from_secs(10), "took {took:?}");
    let err = stderr(&out);
    assert!(
        err.contains("the server exited before answering 'tools/list' (exit status 5); a process it started still holds its stdout open"),
        "{err}"
    );
    assert!(
        err.contains("| fault_server: leaving a child behind"),
        "{err}"
    );
    assert_server_gone(&pidfile, "exited");
    assert_server_gone(&dir.path().join("pid.child"), "grandchild");
}

#[test]
fn json_nested_past_the_parser_limit_is_named_not_dropped_silently() {
    let Some(server) = fault_server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let out = probe_stdio(
        dir.path(),
        &server,
        &["--timeout", "30"],
        &[("FAULT_MODES", "deep-answer")],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(
        stderr(&out).contains(
            "the answer to 'tools/list' is JSON nested deeper than 128 levels, more than this client reads"
        ),
        "{}",
        show(&out)
    );

    let out = probe_stdio(dir.path(), &server, &[], &[("FAULT_MODES", "deep-notice")]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        stderr(&out).contains(
            "warning: dropped a notification 'notifications/message' nested deeper than 128 levels"
        ),
        "{}",
        show(&out)
    );
}

#[test]
fn a_program_that_echoes_is_not_an_mcp_server() {
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let out = probe_stdio(dir.path(), &["cat".to_string()], &["--timeout", "20"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(
        stderr(&out).contains(
            "the program sent our 'initialize' request back unchanged: it echoes its input and is not an MCP server"
        ),
        "{}",
        show(&out)
    );
}

#[test]
fn a_protocol_version_the_client_does_not_know_ends_the_probe() {
    let Some(server) = fault_server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("record.jsonl");
    let out = probe_stdio(
        dir.path(),
        &server,
        &[],
        &[
            ("FAULT_PROTOCOL", "2099-01-01"),
            ("FAULT_RECORD", record.to_str().unwrap()),
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        stderr(&out).contains(
            "the server answered protocol version '2099-01-01', which this client does not support (it offered '2025-11-25'"
        ),
        "{}",
        show(&out)
    );
    // Disconnected after initialize: nothing more was sent.
    let methods: Vec<Value> = records(&record)
        .iter()
        .map(|m| m["method"].clone())
        .collect();
    assert_eq!(methods, [json!("initialize")]);

    // A published version above the one offered is read, with a warning.
    let out = probe_stdio(
        dir.path(),
        &server,
        &["--protocol-version", "2025-03-26"],
        &[("FAULT_PROTOCOL", "2025-06-18")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        stderr(&out).contains(
            "warning: the server answered protocol version '2025-06-18', newer than the '2025-03-26' offered"
        ),
        "{}",
        show(&out)
    );
}

#[test]
fn date_flags_that_cannot_be_used_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_env(
        dir.path(),
        &["probe", "--date", "2026-09-07", "--", "/nonexistent/server"],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        stderr(&out).contains("--date stamps the --save snapshot or the --servers tables"),
        "{}",
        show(&out)
    );
    let out = run_env(
        dir.path(),
        &[
            "probe",
            "--date",
            "2026-02-30",
            "--save",
            "s.json",
            "--",
            "/nonexistent/server",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        stderr(&out).contains("'2026-02-30' does not exist: February 2026 has 28 days"),
        "{}",
        show(&out)
    );
}

#[test]
fn a_closed_stdout_stops_probe_and_diff_quietly() {
    let Some(server) = fault_server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let tools = mixed_tools();
    let mut args = vec!["probe", "--save", "snap.json", "--date", "2026-09-07", "--"];
    args.extend(server.iter().map(String::as_str));
    let out = run_into_closed_pipe(dir.path(), &args, &[("FAULT_TOOLS", &tools.to_string())]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(!stderr(&out).contains("panicked"), "{}", show(&out));
    // The work was still done.
    assert!(dir.path().join("snap.json").is_file());

    let out = run_into_closed_pipe(dir.path(), &["diff", "snap.json", "snap.json"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(out.stderr.is_empty(), "{}", show(&out));
}

/// Serves raw HTTP on 127.0.0.1: `initialize` is answered with `answer`'s bytes (a
/// whole response, status line included), notifications with 202, anything else
/// with `tools/list` of one plain tool as JSON, DELETE with 200.
fn raw_http(answer: Vec<u8>) -> String {
    raw_http_seeing(answer).0
}

/// [`raw_http`], also returning every `Authorization` header the server received.
fn raw_http_seeing(answer: Vec<u8>) -> (String, Arc<Mutex<Vec<String>>>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let port = raw_server(move |stream| {
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut stream = stream;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let verb = line.split(' ').next().unwrap_or_default().to_string();
            let mut length = 0;
            loop {
                let mut header = String::new();
                reader.read_line(&mut header).unwrap();
                if header.trim().is_empty() {
                    break;
                }
                if let Some((k, v)) = header.split_once(':') {
                    if k.eq_ignore_ascii_case("content-length") {
                        length = v.trim().parse().unwrap();
                    }
                    if k.eq_ignore_ascii_case("authorization") {
                        log.lock().unwrap().push(v.trim().to_string());
                    }
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let reply = match (verb.as_str(), message["method"].as_str()) {
                ("POST", Some("initialize")) => answer.clone(),
                ("POST", Some("tools/list")) => {
                    let body = json!({ "jsonrpc": "2.0", "id": message["id"], "result": { "tools": [{ "name": "only" }] } }).to_string();
                    format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
                }
                ("POST", _) => b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n".to_vec(),
                _ => b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".to_vec(),
            };
            if stream.write_all(&reply).is_err() {
                return;
            }
            if reply
                .windows(17)
                .any(|w| w.eq_ignore_ascii_case(b"connection: close"))
            {
                return;
            }
        }
    });
    (format!("http://127.0.0.1:{port}/mcp"), seen)
}

fn init_result() -> String {
    json!({ "jsonrpc": "2.0", "id": 1, "result": {
        "protocolVersion": "2025-06-18",
        "capabilities": { "tools": {} },
        "serverInfo": { "name": "raw", "version": "1" },
    }})
    .to_string()
}

fn sse_response(body: &[u8]) -> Vec<u8> {
    let mut out =
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n".to_vec();
    out.extend_from_slice(body);
    out
}

#[test]
fn http_messages_past_max_message_fail_naming_the_limit() {
    let long = "x".repeat(300_000);
    let json_body = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"protocolVersion\":\"2025-06-18\",\"pad\":\"{long}\"}}}}"
    );
    let mut chunked =
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            .to_vec();
    for piece in json_body.as_bytes().chunks(4096) {
        chunked.extend_from_slice(format!("{:x}\r\n", piece.len()).as_bytes());
        chunked.extend_from_slice(piece);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "one data line",
            sse_response(format!("data: {json_body}\n\n").as_bytes()),
            "a line of the event stream answering 'initialize' is longer than 10240 bytes (--max-message)",
        ),
        (
            "a data line without a newline",
            sse_response(format!("data: {long}").as_bytes()),
            "a line of the event stream answering 'initialize' is longer than 10240 bytes (--max-message)",
        ),
        (
            "many data lines and no blank line",
            sse_response("data: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n".repeat(5000).as_bytes()),
            "an event of the event stream answering 'initialize' is longer than 10240 bytes (--max-message)",
        ),
        (
            "a JSON body with its length",
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{json_body}",
                json_body.len()
            )
            .into_bytes(),
            "the answer to 'initialize' is longer than 10240 bytes (--max-message)",
        ),
        (
            "a chunked JSON body",
            chunked,
            "the answer to 'initialize' is longer than 10240 bytes (--max-message)",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (what, answer, says) in cases {
        let url = raw_http(answer);
        let out = run_env(
            dir.path(),
            &[
                "probe",
                "--max-message",
                "10KiB",
                "--timeout",
                "10",
                "--url",
                &url,
            ],
            &[],
        );
        assert_eq!(out.status.code(), Some(1), "{what}: {}", show(&out));
        assert!(stderr(&out).contains(says), "{what}: {}", show(&out));
    }
}

#[test]
fn an_event_that_is_not_utf8_is_skipped_and_the_answer_after_it_read() {
    let mut body = b"id: 0\ndata: \xff\xfe priming\n\n".to_vec();
    body.extend_from_slice(format!("data: {}\n\n", init_result()).as_bytes());
    let url = raw_http(sse_response(&body));
    let dir = tempfile::tempdir().unwrap();
    let out = run_env(
        dir.path(),
        &["probe", "--timeout", "10", "--url", &url],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        stderr(&out).contains(
            "warning: skipped an event that is not UTF-8 in the event stream answering 'initialize'"
        ),
        "{}",
        show(&out)
    );
    assert!(
        stdout(&out).contains("server 'raw' version '1'"),
        "{}",
        show(&out)
    );
}

/// Quotes a string for TOML.
fn toml_str(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

#[test]
fn a_servers_file_gives_one_table_with_a_row_per_failure_and_leaves_no_process() {
    let Some(server) = fault_server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let tools = mixed_tools();
    let (url, authorizations) = raw_http_seeing(
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{}",
            init_result().len(),
            init_result()
        )
        .into_bytes(),
    );
    let (python, script) = (toml_str(&server[0]), toml_str(&server[1]));
    let hung_pid = dir.path().join("hung.pid");
    let wrapped_pid = dir.path().join("wrapped.pid");
    let wrapper = toml_str(&format!(
        "'{}' '{}'; echo wrapper done",
        server[0], server[1]
    ));
    let file = format!(
        r#"
[[server]]
name = "paged"
command = {python}
args = [{script}]
env = {{ FAULT_TOOLS = {tools}, FAULT_PAGE_SIZE = "3" }}

[[server]]
name = "hung"
command = {python}
args = [{script}]
env = {{ FAULT_MODES = "hang", FAULT_PIDFILE = {hung} }}

[[server]]
name = "wrapped"
command = "sh"
args = ["-c", {wrapper}]
env = {{ FAULT_MODES = "linger", FAULT_PIDFILE = {wrapped} }}

[[server]]
name = "crashing"
command = {python}
args = [{script}]
env = {{ FAULT_MODES = "crash" }}

[[server]]
name = "no-token"
url = {url}
headers = {{ Authorization = {{ env = "MCP_HINT_CENSUS_TEST_NOT_SET", prefix = "Bearer " }} }}

[[server]]
name = "token"
url = {url}
headers = {{ Authorization = {{ env = "PROBE_TEST_TOKEN", prefix = "Bearer " }} }}
"#,
        tools = toml_str(&tools.to_string()),
        hung = toml_str(hung_pid.to_str().unwrap()),
        wrapped = toml_str(wrapped_pid.to_str().unwrap()),
        url = toml_str(&url),
    );
    std::fs::write(dir.path().join("servers.toml"), file).unwrap();
    let args = [
        "probe",
        "--servers",
        "servers.toml",
        "--jobs",
        "3",
        "--timeout",
        "5",
        "--date",
        "2026-09-07",
        "--out",
        "out",
    ];
    let envs = [("PROBE_TEST_TOKEN", "s3cret")];
    let started = Instant::now();
    let first = run_env(dir.path(), &args, &envs);
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(first.status.code(), Some(1), "{}", show(&first));
    assert_server_gone(&hung_pid, "hung");
    assert_server_gone(&wrapped_pid, "lingering");
    let csv_path = dir.path().join("out/wire-2026-09-07.csv");
    let md_path = dir.path().join("out/wire-2026-09-07.md");
    let (csv_one, md_one) = (
        std::fs::read(&csv_path).unwrap(),
        std::fs::read(&md_path).unwrap(),
    );

    let header = first_line(&csv_path);
    let rows: Vec<Vec<String>> = read_csv(&csv_path).into_iter().skip(1).collect();
    assert_eq!(
        header,
        format!("server,server_version,protocol,capabilities,{HEADER},error")
    );
    let caps = "roots;sampling;elicitation";
    // The fault server answers with the version offered, the scripted one with its own.
    let ok_rows =
        |name: &str, version: &str, protocol: &str, tools: &[Value]| -> Vec<Vec<String>> {
            tools
                .iter()
                .map(|tool| {
                    let mut row = vec![
                        name.to_string(),
                        version.to_string(),
                        protocol.to_string(),
                        caps.to_string(),
                    ];
                    row.extend(expected_row(tool));
                    row.push(String::new());
                    row
                })
                .collect()
        };
    let mut expected = ok_rows("paged", "0.0.1", "2025-11-25", tools.as_array().unwrap());
    let error_row = |name: &str| {
        let mut row = vec![
            name.to_string(),
            String::new(),
            String::new(),
            caps.to_string(),
        ];
        // Eleven empty tool cells, and the reason, checked below.
        row.extend((0..12).map(|_| String::new()));
        row
    };
    expected.push(error_row("hung"));
    expected.extend(ok_rows(
        "wrapped",
        "0.0.1",
        "2025-11-25",
        &[json!({ "name": "only" })],
    ));
    expected.push(error_row("crashing"));
    expected.push(error_row("no-token"));
    expected.extend(ok_rows(
        "token",
        "1",
        "2025-06-18",
        &[json!({ "name": "only" })],
    ));
    // The reasons are checked apart; the rest of each row is exact.
    let reasons: Vec<String> = rows.iter().map(|r| r[r.len() - 1].clone()).collect();
    let without_reason: Vec<Vec<String>> = rows.iter().map(|r| r[..r.len() - 1].to_vec()).collect();
    let expected_without: Vec<Vec<String>> =
        expected.iter().map(|r| r[..r.len() - 1].to_vec()).collect();
    assert_eq!(without_reason, expected_without, "{}", show(&first));
    assert!(
        reasons[7].contains("no answer to 'tools/list' within 5 s"),
        "{reasons:?}"
    );
    assert!(
        reasons[9].contains("the server exited before answering 'tools/list' (exit status 7)"),
        "{reasons:?}"
    );
    assert_eq!(
        reasons[10],
        "the environment variable 'MCP_HINT_CENSUS_TEST_NOT_SET' for header 'Authorization' is not set"
    );
    // The token came from the environment, behind its prefix, on every request.
    let seen = authorizations.lock().unwrap().clone();
    assert!(
        !seen.is_empty() && seen.iter().all(|a| a == "Bearer s3cret"),
        "{seen:?}"
    );

    let md = String::from_utf8(md_one.clone()).unwrap();
    // "What silence costs": each class's tools, those declaring nothing, and those
    // declaring readOnlyHint true and false, counted here from what the servers
    // listed (the rows just checked).
    let listed: Vec<&Vec<String>> = expected.iter().filter(|r| !r[4].is_empty()).collect();
    for class in ["read", "write", "destructive", "unknown"] {
        let of: Vec<&&Vec<String>> = listed.iter().filter(|r| r[14] == class).collect();
        let silent = of
            .iter()
            .filter(|r| r[5..9].iter().all(|c| c == "absent"))
            .count();
        let ro = |v: &str| of.iter().filter(|r| r[5] == v).count();
        let line = format!(
            "| {class} | {} | {silent} | {} | {} |",
            of.len(),
            ro("true"),
            ro("false")
        );
        assert!(md.contains(&format!("{line}\n")), "{line}\n{md}");
    }
    for line in [
        "| paged | 0.0.1 | 2025-11-25 | 7 | 2 | 2 | |",
        "| wrapped | 0.0.1 | 2025-11-25 | 1 | 0 | 1 | |",
        "| token | 1 | 2025-06-18 | 1 | 0 | 1 | |",
    ] {
        assert!(md.contains(&format!("{line}\n")), "{line}\n{md}");
    }
    assert!(md.contains("| hung | | | | | | "), "{md}");

    // The same answers on the same date give the same bytes.
    let second = run_env(dir.path(), &args, &envs);
    assert_eq!(second.status.code(), Some(1), "{}", show(&second));
    assert_eq!(std::fs::read(&csv_path).unwrap(), csv_one);
    assert_eq!(std::fs::read(&md_path).unwrap(), md_one);
}

#[test]
fn a_servers_file_with_a_literal_header_is_refused_before_anything_starts() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("servers.toml"),
        "[[server]]\nname = \"r\"\nurl = \"http://127.0.0.1:9/mcp\"\nheaders = { Authorization = \"Bearer s3cret\" }\n",
    )
    .unwrap();
    let out = run_env(dir.path(), &["probe", "--servers", "servers.toml"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        stderr(&out).contains("header 'Authorization' is written in the file"),
        "{}",
        show(&out)
    );
    assert!(!dir.path().join("results").exists());
}

#[test]
fn an_interrupted_probe_takes_its_servers_with_it() {
    let Some(server) = fault_server() else { return };
    for signal in ["INT", "TERM"] {
        let dir = tempfile::tempdir().unwrap();
        let pids: Vec<_> = (0..2)
            .map(|i| dir.path().join(format!("{i}.pid")))
            .collect();
        let mut file = String::new();
        for (i, pid) in pids.iter().enumerate() {
            file.push_str(&format!(
                "[[server]]\nname = \"s{i}\"\ncommand = {}\nargs = [{}]\nenv = {{ FAULT_MODES = \"hang\", FAULT_PIDFILE = {} }}\n",
                toml_str(&server[0]),
                toml_str(&server[1]),
                toml_str(pid.to_str().unwrap())
            ));
        }
        std::fs::write(dir.path().join("servers.toml"), file).unwrap();
        let mut probe = std::process::Command::new(bin())
            .current_dir(dir.path())
            .args([
                "probe",
                "--servers",
                "servers.toml",
                "--timeout",
                "60",
                "--jobs",
                "2",
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let until = Instant::now() + Duration::from_secs(20);
        while !pids
            .iter()
            .all(|p| p.is_file() && std::fs::read_to_string(p).is_ok_and(|t| !t.is_empty()))
        {
            assert!(Instant::now() < until, "the servers did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        // Both servers are waiting on tools/list once the probe has sent it.
        std::thread::sleep(Duration::from_millis(500));
        let sent = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &probe.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let status = probe.wait().unwrap();
        assert!(!status.success(), "{signal}: {status:?}");
        for pid in &pids {
            assert_server_gone(pid, &format!("SIG{signal}ed probe's"));
        }
    }
}

#[test]
fn a_server_that_floods_requests_and_reads_nothing_cannot_block_the_probe() {
    let Some(server) = fault_server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let mut probe = std::process::Command::new(bin())
        .current_dir(dir.path())
        .args(["probe", "--timeout", "30", "--"])
        .args(&server)
        .env("FAULT_MODES", "flood")
        .env("FAULT_PIDFILE", &pidfile)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = probe.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(20) {
            let _ = probe.kill();
            let _ = probe.wait();
            assert_server_gone(&pidfile, "flooding");
            panic!("the probe was still blocked after 20 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(probe.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(err.contains("it does not read its input"), "{err}");
    assert_server_gone(&pidfile, "flooding");
}

/// Returns the lines the fault server writes on stderr in `usage` mode, read straight
/// from it: the oracle for what a probe shows.
fn usage_lines(server: &[String], usage: &str) -> Vec<String> {
    let out = std::process::Command::new(&server[0])
        .args(&server[1..])
        .env("FAULT_MODES", "usage")
        .env("FAULT_USAGE", usage)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    String::from_utf8(out.stderr)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Returns the first ten and the last ten of `lines` as a probe quotes them, with the
/// count of those between, worked out here by hand.
fn quoted_ends(lines: &[String]) -> (String, Vec<String>) {
    let n = lines.len();
    let noun = |n: usize| if n == 1 { "line" } else { "lines" };
    if n <= 20 {
        let quoted = lines.iter().map(|l| format!("  | {l}")).collect();
        return (format!("; its stderr ({n} {}):", noun(n)), quoted);
    }
    let mut quoted: Vec<String> = lines[..10].iter().map(|l| format!("  | {l}")).collect();
    quoted.push(format!("  | ... {} more {} ...", n - 20, noun(n - 20)));
    quoted.extend(lines[n - 10..].iter().map(|l| format!("  | {l}")));
    (
        format!("; its stderr ({n} lines; the first 10 and the last 10):"),
        quoted,
    )
}

#[test]
fn an_error_followed_by_a_long_usage_text_keeps_the_error() {
    let Some(server) = fault_server() else { return };
    let dir = tempfile::tempdir().unwrap();
    // 166 lines (the error first, as Go's flag package writes it), 21 and 1.
    for usage in ["165", "20", "0"] {
        let lines = usage_lines(&server, usage);
        let out = probe_stdio(
            dir.path(),
            &server,
            &[],
            &[("FAULT_MODES", "usage"), ("FAULT_USAGE", usage)],
        );
        assert_eq!(out.status.code(), Some(1), "{}", show(&out));
        let err = stderr(&out);
        assert!(
            err.contains("the server exited before answering 'initialize' (exit status 2)"),
            "{err}"
        );
        let (clause, quoted) = quoted_ends(&lines);
        let expected = format!("{clause}\n{}\n", quoted.join("\n"));
        assert!(
            err.ends_with(&expected),
            "{usage}: expected\n{expected}\ngot\n{err}"
        );
        assert!(
            err.contains("| flag provided but not defined: -bogus\n"),
            "{err}"
        );
    }
}

#[test]
fn the_servers_table_and_summary_quote_both_ends_of_the_stderr() {
    let Some(server) = fault_server() else { return };
    let dir = tempfile::tempdir().unwrap();
    let lines = usage_lines(&server, "165");
    std::fs::write(
        dir.path().join("servers.toml"),
        format!(
            "[[server]]\nname = \"go\"\ncommand = {}\nargs = [{}]\nenv = {{ FAULT_MODES = \"usage\" }}\n",
            toml_str(&server[0]),
            toml_str(&server[1])
        ),
    )
    .unwrap();
    let out = run_env(
        dir.path(),
        &["probe", "--servers", "servers.toml", "--date", "2026-09-07"],
        &[],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let (clause, quoted) = quoted_ends(&lines);
    let ends = format!("{clause}\n{}", quoted.join("\n"));
    assert!(
        stdout(&out).contains("server 'go': failed: ") && stdout(&out).contains(&ends),
        "expected\n{ends}\n{}",
        show(&out)
    );
    let rows: Vec<Vec<String>> = read_csv(&dir.path().join("results/wire-2026-09-07.csv"))
        .into_iter()
        .skip(1)
        .collect();
    let error = rows[0].last().unwrap();
    assert!(error.ends_with(&ends), "expected\n{ends}\ngot\n{error}");
    let md = std::fs::read_to_string(dir.path().join("results/wire-2026-09-07.md")).unwrap();
    let row = md
        .lines()
        .find(|l| l.starts_with("| go | "))
        .expect("a row for go");
    let cell = ends
        .split('\n')
        .map(|l| l.replace('|', "\\|"))
        .collect::<Vec<_>>()
        .join("<br>");
    assert!(
        row.ends_with(&format!("{cell} |")),
        "expected\n{cell}\ngot\n{row}"
    );
}

/// Returns the processes alive in the process group `group`, from `/proc`.
fn live_group_members(group: u32) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // PID (COMM) STATE PPID PGRP ...
        let Some(rest) = stat.rsplit_once(')').map(|(_, rest)| rest) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.len() > 2 && fields[2] == group.to_string() && fields[0] != "Z" {
            found.push(stat);
        }
    }
    found
}

#[test]
fn no_process_of_the_servers_group_is_left_when_the_probe_returns() {
    let Some(server) = fault_server() else { return };
    if !Path::new("/proc/self/stat").exists() {
        eprintln!("skipped: no /proc to list a process group's members");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let out = probe_stdio(
        dir.path(),
        &server,
        &[],
        &[
            ("FAULT_MODES", "child"),
            ("FAULT_PIDFILE", pidfile.to_str().unwrap()),
        ],
    );
    // Read at once: the probe must have waited, not the test.
    let read = |path: &Path| -> u32 {
        std::fs::read_to_string(path)
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    let group = read(&pidfile);
    let left = live_group_members(group);
    let child = read(&dir.path().join("pid.child"));
    if !left.is_empty() {
        let _ = std::process::Command::new("kill")
            .args(["-9", &format!("-{group}")])
            .status();
    }
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(left, Vec::<String>::new(), "group {group}, child {child}");
    assert!(!is_alive(child), "the child {child} outlived the probe");
}

#[test]
fn a_resumed_servers_run_probes_only_the_servers_that_did_not_list() {
    let Some(server) = fault_server() else { return };
    let dir = tempfile::tempdir().unwrap();
    // Each server notes every start in a file of its own before it runs.
    let started = |name: &str| dir.path().join(format!("{name}.started"));
    let entry = |name: &str, modes: &str| {
        let line = format!(
            "echo started >> '{}'; exec '{}' '{}'",
            started(name).display(),
            server[0],
            server[1]
        );
        format!(
            "[[server]]\nname = \"{name}\"\ncommand = \"sh\"\nargs = [\"-c\", {}]\nenv = {{ FAULT_MODES = \"{modes}\" }}\n\n",
            toml_str(&line)
        )
    };
    let file = entry("lists", "") + &entry("crashes", "crash");
    std::fs::write(dir.path().join("servers.toml"), file).unwrap();
    let args = [
        "probe",
        "--servers",
        "servers.toml",
        "--date",
        "2026-09-07",
        "--out",
        "out",
        "--resume",
    ];
    let starts = |name: &str| {
        std::fs::read_to_string(started(name))
            .unwrap_or_default()
            .lines()
            .count()
    };
    let tables = || {
        [
            "wire-2026-09-07.csv",
            "wire-2026-09-07-servers.csv",
            "wire-2026-09-07.md",
        ]
        .map(|name| std::fs::read(dir.path().join("out").join(name)).unwrap())
    };
    let first = run_env(dir.path(), &args, &[]);
    assert_eq!(first.status.code(), Some(1), "{}", show(&first));
    let written = tables();
    let journal = dir.path().join("out/wire-2026-09-07.journal");
    assert!(journal.is_file(), "a server failed: the journal stays");

    let second = run_env(dir.path(), &args, &[]);
    assert_eq!(second.status.code(), Some(1), "{}", show(&second));
    assert_eq!((starts("lists"), starts("crashes")), (1, 2));
    assert!(tables() == written, "the resumed run wrote other tables");

    // Another servers file is another run: its journal is refused, not mixed in.
    std::fs::write(
        dir.path().join("servers.toml"),
        entry("lists", "") + &entry("crashes", "crash") + "# edited\n",
    )
    .unwrap();
    let refused = run_env(dir.path(), &args, &[]);
    assert_eq!(refused.status.code(), Some(2), "{}", show(&refused));
    assert!(
        stderr(&refused).contains("is the journal of another run"),
        "{}",
        show(&refused)
    );
    assert_eq!((starts("lists"), starts("crashes")), (1, 2));

    // Once every server lists, the journal is gone.
    std::fs::write(dir.path().join("servers.toml"), entry("lists", "")).unwrap();
    std::fs::remove_file(&journal).unwrap();
    let done = run_env(dir.path(), &args, &[]);
    assert_eq!(done.status.code(), Some(0), "{}", show(&done));
    assert!(!journal.exists());
}
