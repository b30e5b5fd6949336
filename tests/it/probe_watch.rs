//! `probe --watch`: against `tests/peers/changing_server.py` (written with the pinned
//! Python SDK) over stdio, changing its tools and their hints on a timer or never, and
//! against a scripted Streamable HTTP server on 127.0.0.1 doing the same on its event
//! stream. Each server pings before each change and goes on only once the ping is
//! answered.
//!
//! The expected change lines are worked out here from the server's own list of states
//! (`changing_server.py --expected`), with the schema's defaults and the directions
//! written out by hand, not by the crate.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::common::{raw_server, run_env, show, stderr, stdout};
use crate::support::*;
use serde_json::{json, Value};

/// The hints in the order `diff` prints them, each with its default and the value that
/// asks a client for less caution.
const HINTS: [(&str, bool, bool); 4] = [
    ("readOnlyHint", false, true),
    ("destructiveHint", true, false),
    ("idempotentHint", false, true),
    ("openWorldHint", true, false),
];

/// Returns the server's states: for each, the tools by name with their annotations.
fn states(python: &Path) -> Vec<serde_json::Map<String, Value>> {
    let out = std::process::Command::new(python)
        .arg(peers().join("changing_server.py"))
        .arg("--expected")
        .output()
        .expect("the changing server runs");
    assert!(out.status.success());
    let states: Vec<Value> = serde_json::from_slice(&out.stdout).expect("JSON");
    states
        .into_iter()
        .map(|s| s.as_object().expect("a state is an object").clone())
        .collect()
}

/// Returns what a hint declares in `annotations`: its boolean, or `None`.
fn declared(annotations: &Value, hint: &str) -> Option<bool> {
    annotations.get(hint).and_then(Value::as_bool)
}

/// Returns the value a client acts on, `None` for n/a.
fn resolved(annotations: &Value, hint: usize) -> Option<bool> {
    let read_only = declared(annotations, "readOnlyHint").unwrap_or(false);
    if read_only && (hint == 1 || hint == 2) {
        return None;
    }
    let (name, default, _) = HINTS[hint];
    Some(declared(annotations, name).unwrap_or(default))
}

/// Works out the lines `diff` prints between two states, and how many changes are more
/// permissive.
fn change_lines(
    before: &serde_json::Map<String, Value>,
    after: &serde_json::Map<String, Value>,
) -> (Vec<String>, usize) {
    let mut lines = Vec::new();
    let mut names_after: Vec<&String> = after.keys().collect();
    names_after.sort();
    let mut names_before: Vec<&String> = before.keys().collect();
    names_before.sort();
    let added: Vec<&&String> = names_after
        .iter()
        .filter(|n| !before.contains_key(**n))
        .collect();
    let removed: Vec<&&String> = names_before
        .iter()
        .filter(|n| !after.contains_key(**n))
        .collect();
    for name in &added {
        lines.push(format!("added    tool '{name}'"));
    }
    for name in &removed {
        lines.push(format!("removed  tool '{name}'"));
    }
    let show = |v: Option<bool>| v.map_or("absent".to_string(), |b| b.to_string());
    let show_resolved = |v: Option<bool>| v.map_or("n/a".to_string(), |b| b.to_string());
    let (mut permissive, mut cautious, mut neutral) = (0, 0, 0);
    for name in names_before.iter().filter(|n| after.contains_key(**n)) {
        let (a, b) = (&before[*name], &after[*name]);
        for (index, (hint, _, loose)) in HINTS.iter().enumerate() {
            let (was, is) = (declared(a, hint), declared(b, hint));
            if was == is {
                continue;
            }
            let (old, new) = (resolved(a, index), resolved(b, index));
            let direction = match (old, new) {
                (Some(x), Some(y)) if x != y && y == *loose => {
                    permissive += 1;
                    "more-permissive"
                }
                (Some(x), Some(y)) if x != y => {
                    cautious += 1;
                    "more-cautious"
                }
                _ => {
                    neutral += 1;
                    "neutral"
                }
            };
            lines.push(format!(
                "changed  tool '{name}' {hint}: {} -> {} (resolved {} -> {}) {direction}",
                show(was),
                show(is),
                show_resolved(old),
                show_resolved(new)
            ));
        }
    }
    let changes = permissive + cautious + neutral;
    lines.push(format!(
        "{} {} added, {} removed; {changes} {}: {permissive} more-permissive, {cautious} more-cautious, {neutral} neutral",
        added.len(),
        if added.len() == 1 { "tool" } else { "tools" },
        removed.len(),
        if changes == 1 { "hint change" } else { "hint changes" },
    ));
    (lines, permissive)
}

/// Returns the blocks of lines under each `change N at ...` line of a watch's output,
/// with the number of tools that line names.
fn change_blocks(stdout: &str) -> Vec<(usize, Vec<String>)> {
    let mut blocks: Vec<(usize, Vec<String>)> = Vec::new();
    let mut inside = false;
    for line in stdout.lines() {
        if line.starts_with("change ") {
            let tools = line
                .rsplit_once(": ")
                .and_then(|(_, t)| t.split(' ').next())
                .and_then(|n| n.parse().ok())
                .expect("a change line names the number of tools");
            blocks.push((tools, Vec::new()));
            inside = true;
        } else if line.starts_with("watch ended") || line.starts_with("at ") {
            inside = false;
        } else if inside {
            blocks.last_mut().unwrap().1.push(line.to_string());
        }
    }
    blocks
}

/// Checks a watch that saw every change of `states` and ended by its count.
fn assert_every_change_seen(out: &std::process::Output, states: &[serde_json::Map<String, Value>]) {
    let text = stdout(out);
    let blocks = change_blocks(&text);
    assert_eq!(blocks.len(), states.len() - 1, "{}", show(out));
    let mut permissive = 0;
    for (k, (tools, lines)) in blocks.iter().enumerate() {
        let (expected, loose) = change_lines(&states[k], &states[k + 1]);
        assert_eq!(lines, &expected, "change {}", k + 1);
        assert_eq!(*tools, states[k + 1].len(), "change {}", k + 1);
        permissive += loose;
    }
    assert!(permissive > 0, "the states make some hint more permissive");
    let changes = states.len() - 1;
    assert!(
        text.contains(&format!(
            "watch ended after {changes} changes (--watch-changes); {permissive} more-permissive hint changes in all\n"
        )),
        "{}",
        show(out)
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(out));
}

#[test]
fn a_server_changing_its_hints_on_a_timer_is_followed_change_by_change() {
    let Some(python) = require("the mcp Python SDK (tests/peers/.venv)", python_with_mcp()) else {
        return;
    };
    let states = states(&python);
    let dir = tempfile::tempdir().unwrap();
    let server = vec![
        python.display().to_string(),
        peers().join("changing_server.py").display().to_string(),
        "--interval".to_string(),
        "0.3".to_string(),
    ];
    let changes = (states.len() - 1).to_string();
    let started = Instant::now();
    let out = probe_stdio(
        dir.path(),
        &server,
        &["--watch", "--watch-for", "120", "--watch-changes", &changes],
        &[],
    );
    assert!(
        started.elapsed() < Duration::from_secs(100),
        "{:?}",
        started.elapsed()
    );
    assert_every_change_seen(&out, &states);
    assert!(
        !stderr(&out).contains("ping not answered"),
        "{}",
        show(&out)
    );
    // The first listing is shown as a probe shows it.
    assert!(
        stdout(&out).contains(&format!("\n{} tools: ", states[0].len())),
        "{}",
        show(&out)
    );
}

#[test]
fn a_server_that_never_changes_is_watched_until_the_time_is_up() {
    let Some(python) = require("the mcp Python SDK (tests/peers/.venv)", python_with_mcp()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = vec![
        python.display().to_string(),
        peers().join("changing_server.py").display().to_string(),
        "--still".to_string(),
    ];
    let started = Instant::now();
    let out = probe_stdio(dir.path(), &server, &["--watch", "--watch-for", "3"], &[]);
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(took >= Duration::from_secs(3), "took {took:?}");
    let text = stdout(&out);
    assert!(
        text.contains("watching for changes to the tools: up to 3 s (--watch-for) and 10 changes (--watch-changes)\n"),
        "{text}"
    );
    assert!(
        text.ends_with("watch ended after 3 s (--watch-for), 0 changes; 0 more-permissive hint changes in all\n"),
        "{text}"
    );
    assert!(change_blocks(&text).is_empty(), "{text}");
}

#[test]
fn watch_options_need_watch_and_watch_shuns_the_one_shot_outputs() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        vec!["probe", "--watch-for", "5", "--", "true"],
        vec!["probe", "--watch-changes", "5", "--", "true"],
        vec!["probe", "--watch", "--save", "s.json", "--", "true"],
        vec!["probe", "--watch", "--require", "all", "--", "true"],
        vec!["probe", "--watch", "--watch-for", "0", "--", "true"],
    ] {
        let out = run_env(dir.path(), &args, &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", show(&out));
    }
}

/// What the scripted HTTP server saw of the client's answers to its pings.
type Answers = Arc<Mutex<Vec<Value>>>;

/// Serves Streamable HTTP on 127.0.0.1, one request per connection: `initialize`
/// (declaring `tools.listChanged`), notifications (202), `tools/list` from the current
/// state, answers to its pings (recorded), a GET event stream on which it moves through
/// `states`, pinging before each change, and DELETE.
fn changing_http_server(states: Vec<serde_json::Map<String, Value>>) -> (String, Answers) {
    let current = Mutex::new(0usize);
    let answers: Answers = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&answers);
    let port = raw_server(move |stream| serve_one(stream, &current, &seen, &states));
    (format!("http://127.0.0.1:{port}/mcp"), answers)
}

fn respond(stream: &mut TcpStream, status: &str, content_type: &str, body: &str) {
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nMcp-Session-Id: watched-1\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

fn serve_one(
    mut stream: TcpStream,
    current: &Mutex<usize>,
    answers: &Mutex<Vec<Value>>,
    states: &[serde_json::Map<String, Value>],
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).is_err() || line == "\r\n" || line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let method = request_line.split(' ').next().unwrap_or_default();
    match method {
        "GET" => {
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n: the server's own stream\n\n"
            );
            let _ = stream.flush();
            for index in 1..states.len() {
                thread::sleep(Duration::from_millis(300));
                let id = format!("ping-{index}");
                let ping = json!({ "jsonrpc": "2.0", "id": id, "method": "ping" });
                if write!(stream, "data: {ping}\n\n").is_err() {
                    return;
                }
                let _ = stream.flush();
                let until = Instant::now() + Duration::from_secs(20);
                while !answers.lock().unwrap().iter().any(|a| a["id"] == id) {
                    if Instant::now() > until {
                        return;
                    }
                    thread::sleep(Duration::from_millis(20));
                }
                *current.lock().unwrap() = index;
                let changed =
                    json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed" });
                let _ = write!(stream, "data: {changed}\n\n");
                let _ = stream.flush();
            }
            // Held open until the client goes.
            let _ = stream.read(&mut [0; 1]);
        }
        "DELETE" => respond(&mut stream, "200 OK", "text/plain", ""),
        _ => {
            let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let id = message.get("id").cloned();
            match message.get("method").and_then(Value::as_str) {
                Some("initialize") => respond(
                    &mut stream,
                    "200 OK",
                    "application/json",
                    &json!({ "jsonrpc": "2.0", "id": id, "result": {
                        "protocolVersion": "2025-11-25",
                        "capabilities": { "tools": { "listChanged": true } },
                        "serverInfo": { "name": "changing-http", "version": "1" },
                    }})
                    .to_string(),
                ),
                Some("tools/list") => {
                    let state = &states[*current.lock().unwrap()];
                    let tools: Vec<Value> = state
                        .iter()
                        .map(|(name, annotations)| {
                            let mut tool =
                                json!({ "name": name, "inputSchema": { "type": "object" } });
                            if !annotations.is_null() {
                                tool["annotations"] = annotations.clone();
                            }
                            tool
                        })
                        .collect();
                    respond(
                        &mut stream,
                        "200 OK",
                        "application/json",
                        &json!({ "jsonrpc": "2.0", "id": id, "result": { "tools": tools } })
                            .to_string(),
                    );
                }
                Some(_) => respond(&mut stream, "202 Accepted", "text/plain", ""),
                None => {
                    answers.lock().unwrap().push(message);
                    respond(&mut stream, "202 Accepted", "text/plain", "");
                }
            }
        }
    }
}

#[test]
fn a_streamable_http_server_announcing_changes_on_its_event_stream_is_followed() {
    let Some(python) = require("python3", python3()) else {
        return;
    };
    let states = states(&python);
    let (url, answers) = changing_http_server(states.clone());
    let dir = tempfile::tempdir().unwrap();
    let changes = (states.len() - 1).to_string();
    let out = run_env(
        dir.path(),
        &[
            "probe",
            "--url",
            &url,
            "--watch",
            "--watch-for",
            "60",
            "--watch-changes",
            &changes,
        ],
        &[],
    );
    assert_every_change_seen(&out, &states);
    // Every ping was answered with an empty result.
    let answers = answers.lock().unwrap();
    assert_eq!(answers.len(), states.len() - 1, "{answers:?}");
    for answer in answers.iter() {
        assert_eq!(answer["result"], json!({}), "{answer}");
    }
}
