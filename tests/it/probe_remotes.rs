//! `probe --servers` over remote endpoints, as `corpus registry --remotes` lists
//! them, against a scripted HTTP server on 127.0.0.1: a 401 or 403 carrying a
//! `WWW-Authenticate` challenge is `needs authorization` (with the RFC 9728
//! resource metadata URL when the challenge gives one), every other HTTP ending is an
//! outcome of its own with its status, and no more than two sessions of one host
//! run at once. The answers are written here; the expected rows follow from them.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::common::{raw_server, read_csv, run_env, show};
use serde_json::{json, Value};

const DATE: &str = "2026-09-07";
const METADATA: &str = "http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp";

fn http(status: &str, headers: &[&str], body: &str) -> Vec<u8> {
    let mut head = format!("HTTP/1.1 {status}\r\nContent-Length: {}\r\n", body.len());
    for h in headers {
        head.push_str(h);
        head.push_str("\r\n");
    }
    format!("{head}\r\n{body}").into_bytes()
}

fn json_answer(message: &Value) -> Vec<u8> {
    http(
        "200 OK",
        &["Content-Type: application/json"],
        &message.to_string(),
    )
}

/// Serves every path of the script on 127.0.0.1; returns its base URL and the most
/// `initialize` requests it held at once (each is held 300 ms on `/slow...`).
fn scripted() -> (String, Arc<AtomicUsize>) {
    let now = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let seen = most.clone();
    let port = raw_server(move |stream| {
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut stream = stream;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let mut words = line.split(' ');
            let verb = words.next().unwrap_or_default().to_string();
            let path = words.next().unwrap_or_default().to_string();
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
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let method = message["method"].as_str().unwrap_or_default().to_string();
            let challenge = format!(
                "WWW-Authenticate: Bearer resource_metadata=\"{METADATA}\", scope=\"tools\""
            );
            let reply = match (verb.as_str(), path.as_str(), method.as_str()) {
                (_, "/auth-meta", _) => http("401 Unauthorized", &[&challenge], ""),
                (_, "/auth-bare", _) => http(
                    "403 Forbidden",
                    &["WWW-Authenticate: Bearer error=\"insufficient_scope\""],
                    "",
                ),
                (_, "/forbidden", _) => http("403 Forbidden", &[], "no"),
                (_, "/broken", _) => http("500 Internal Server Error", &[], "boom"),
                (_, "/html", _) => http(
                    "200 OK",
                    &["Content-Type: text/html"],
                    "<html><body>Sign in</body></html>",
                ),
                ("POST", _, "initialize") => {
                    let is_slow = path.starts_with("/slow");
                    if is_slow {
                        let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(n, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(300));
                        now.fetch_sub(1, Ordering::SeqCst);
                    }
                    json_answer(&json!({ "jsonrpc": "2.0", "id": message["id"], "result": {
                        "protocolVersion": "2025-06-18", "capabilities": { "tools": {} },
                        "serverInfo": { "name": "remote", "version": "1" } } }))
                }
                ("POST", _, "tools/list") => json_answer(&json!({
                    "jsonrpc": "2.0", "id": message["id"],
                    "result": { "tools": [{ "name": "only", "inputSchema": {} }] } })),
                ("POST", _, _) => http("202 Accepted", &[], ""),
                _ => http("200 OK", &[], ""),
            };
            if stream.write_all(&reply).is_err() {
                return;
            }
        }
    });
    (format!("http://127.0.0.1:{port}"), seen)
}

fn write_servers(dir: &Path, entries: &[(&str, String)]) {
    let text: String = entries
        .iter()
        .map(|(name, url)| format!("[[server]]\nname = \"{name}\"\nurl = \"{url}\"\n\n"))
        .collect();
    std::fs::write(dir.join("servers.toml"), text).unwrap();
}

fn servers_rows(dir: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let rows = read_csv(&dir.join(format!("out/wire-{DATE}-servers.csv")));
    let header = rows[0].clone();
    rows[1..]
        .iter()
        .map(|r| header.iter().cloned().zip(r.iter().cloned()).collect())
        .collect()
}

#[test]
fn every_http_ending_of_a_remote_is_an_outcome_and_a_challenge_needs_authorization() {
    let dir = tempfile::tempdir().unwrap();
    let (base, _) = scripted();
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    write_servers(
        dir.path(),
        &[
            ("auth-meta", format!("{base}/auth-meta")),
            ("auth-bare", format!("{base}/auth-bare")),
            ("forbidden", format!("{base}/forbidden")),
            ("broken", format!("{base}/broken")),
            ("html", format!("{base}/html")),
            ("closed", format!("http://127.0.0.1:{closed}/mcp")),
            ("ok", format!("{base}/ok")),
        ],
    );
    let out = run_env(
        dir.path(),
        &[
            "probe",
            "--servers",
            "servers.toml",
            "--date",
            DATE,
            "--out",
            "out",
            "--timeout",
            "10",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let rows = servers_rows(dir.path());
    let got: Vec<[&str; 4]> = rows
        .iter()
        .map(|r| {
            [
                r["server"].as_str(),
                r["outcome"].as_str(),
                r["http_status"].as_str(),
                r["resource_metadata"].as_str(),
            ]
        })
        .collect();
    assert_eq!(
        got,
        [
            ["auth-meta", "needs authorization", "401", METADATA],
            ["auth-bare", "needs authorization", "403", ""],
            ["forbidden", "http error", "403", ""],
            ["broken", "http error", "500", ""],
            ["html", "not mcp", "", ""],
            ["closed", "unreachable", "", ""],
            ["ok", "listed", "", ""],
        ],
        "{}",
        show(&out)
    );
    assert!(
        rows[0]["error"].contains("HTTP 401 Unauthorized: it needs authorization (WWW-Authenticate: Bearer resource_metadata="),
        "{}",
        rows[0]["error"]
    );
    assert!(
        rows[3]["error"].ends_with("HTTP 500 Internal Server Error: 'boom'"),
        "{}",
        rows[3]["error"]
    );
}

#[test]
fn no_more_than_two_sessions_of_one_host_run_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let (base, most) = scripted();
    let (other, other_most) = scripted();
    let mut entries: Vec<(String, String)> = (0..6)
        .map(|i| (format!("a{i}"), format!("{base}/slow{i}")))
        .collect();
    entries.extend((0..2).map(|i| (format!("b{i}"), format!("{other}/slow{i}"))));
    let entries: Vec<(&str, String)> = entries
        .iter()
        .map(|(n, u)| (n.as_str(), u.clone()))
        .collect();
    write_servers(dir.path(), &entries);
    let out = run_env(
        dir.path(),
        &[
            "probe",
            "--servers",
            "servers.toml",
            "--date",
            DATE,
            "--out",
            "out",
            "--jobs",
            "8",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(servers_rows(dir.path()).len(), 8);
    assert_eq!(
        most.load(Ordering::SeqCst),
        2,
        "sessions of one host at once"
    );
    // Another host has slots of its own.
    assert_eq!(other_most.load(Ordering::SeqCst), 2);
}
