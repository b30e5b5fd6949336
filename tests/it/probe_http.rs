//! `probe --url` against a scripted Streamable HTTP server on 127.0.0.1, for
//! what the Python SDK's server does not exercise: a ping sent on the event stream,
//! an answer split over several `data:` lines, a batch, a negotiated-down protocol
//! version carried on every request, a DELETE refused with 405, and HTTP errors.

use crate::common::{read_csv, run_env, show, stderr, stdout, Loopback, Request};
use crate::support::*;
use serde_json::{json, Value};
use tiny_http::{Header, Response};

/// One request the scripted server received.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    session: Vec<String>,
    protocol: Vec<String>,
    body: Value,
}

impl Seen {
    fn of(request: &Request) -> Seen {
        Seen {
            method: request.method.clone(),
            session: request.header_values("Mcp-Session-Id"),
            protocol: request.header_values("MCP-Protocol-Version"),
            body: serde_json::from_slice(&request.body).unwrap_or(Value::Null),
        }
    }
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).unwrap()
}

/// Serves requests with `answer` until the server is dropped; returns the URL of
/// its endpoint and the server, which records what it saw.
fn serve(
    answer: impl Fn(&Seen) -> Response<std::io::Cursor<Vec<u8>>> + Send + 'static,
) -> (String, Loopback) {
    let server = Loopback::start(move |request| answer(&Seen::of(request)).boxed());
    (format!("{}/mcp", server.url()), server)
}

fn sse(events: &str) -> Response<std::io::Cursor<Vec<u8>>> {
    Response::from_data(events.as_bytes().to_vec())
        .with_header(header("Content-Type", "text/event-stream"))
}

fn json_body(value: &Value) -> Response<std::io::Cursor<Vec<u8>>> {
    Response::from_data(value.to_string().into_bytes())
        .with_header(header("Content-Type", "application/json"))
}

fn tools() -> Value {
    json!([
        { "name": "first", "annotations": { "readOnlyHint": true, "openWorldHint": false } },
        { "name": "second", "annotations": { "destructiveHint": false } },
        { "name": "third" },
    ])
}

#[test]
fn event_streams_pings_batches_and_headers_follow_the_transport_rules() {
    let (url, server) = serve(|req| {
        if req.method == "DELETE" {
            return Response::from_data(Vec::new()).with_status_code(405);
        }
        let id = req.body["id"].clone();
        match req.body["method"].as_str() {
            Some("initialize") => {
                let ping = json!({ "jsonrpc": "2.0", "id": "p1", "method": "ping" });
                let result = json!({ "jsonrpc": "2.0", "id": id, "result": {
                    "protocolVersion": "2025-03-26",
                    "capabilities": { "tools": {} },
                    "serverInfo": { "name": "scripted", "version": "9" },
                }});
                sse(&format!(": priming comment\n\nid: 1\nevent: message\ndata: {ping}\n\ndata: {result}\n\n"))
                    .with_header(header("Mcp-Session-Id", "sess-1"))
            }
            Some("tools/list") if req.body["params"]["cursor"].is_null() => {
                let page = json!({ "jsonrpc": "2.0", "id": id, "result": {
                    "tools": tools().as_array().unwrap()[..2], "nextCursor": "c2",
                }});
                // The JSON split over two data lines, which SSE joins with a newline.
                let text = page.to_string();
                let (head, tail) = text.split_at(text.find(',').unwrap() + 1);
                let notice =
                    json!({ "jsonrpc": "2.0", "method": "notifications/message", "params": {} });
                sse(&format!("data: {notice}\n\ndata: {head}\ndata: {tail}\n\n"))
            }
            Some("tools/list") => {
                let page =
                    json!({ "jsonrpc": "2.0", "id": id, "result": { "tools": [tools()[2]] } });
                json_body(
                    &json!([{ "jsonrpc": "2.0", "method": "notifications/progress", "params": {} }, page]),
                )
            }
            _ => Response::from_data(Vec::new()).with_status_code(202),
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let out = run_env(
        dir.path(),
        &[
            "probe",
            "--url",
            &url,
            "--csv",
            "hints.csv",
            "--timeout",
            "10",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(!stderr(&out).contains("warning"), "{}", show(&out));
    let rows: Vec<Vec<String>> = read_csv(&dir.path().join("hints.csv"))
        .into_iter()
        .skip(1)
        .collect();
    let expected: Vec<Vec<String>> = tools()
        .as_array()
        .unwrap()
        .iter()
        .map(expected_row)
        .collect();
    assert_eq!(rows, expected);
    assert!(
        stdout(&out).contains(
            "server 'scripted' version '9', protocol '2025-03-26', 2 tools/list pages read"
        ),
        "{}",
        show(&out)
    );

    let seen: Vec<Seen> = server.seen().iter().map(Seen::of).collect();
    let what: Vec<String> = seen
        .iter()
        .map(|s| match s.body["method"].as_str() {
            Some(m) => format!("{} {m}", s.method),
            None if s.method == "POST" => format!("POST answer to {}", s.body["id"]),
            None => s.method.clone(),
        })
        .collect();
    assert_eq!(
        what,
        [
            "POST initialize",
            "POST answer to \"p1\"",
            "POST notifications/initialized",
            "POST tools/list",
            "POST tools/list",
            "DELETE",
        ]
    );
    assert_eq!(
        seen[1].body,
        json!({ "jsonrpc": "2.0", "id": "p1", "result": {} })
    );
    assert!(
        seen[0].session.is_empty() && seen[0].protocol.is_empty(),
        "{:?}",
        seen[0]
    );
    // The ping is answered before initialize completes, so it carries the session only.
    assert_eq!(seen[1].session, ["sess-1"]);
    for later in &seen[2..] {
        assert_eq!(later.session, ["sess-1"], "{later:?}");
        assert_eq!(later.protocol, ["2025-03-26"], "{later:?}");
    }
}

#[test]
fn http_errors_name_the_status_and_the_body() {
    let (url, _server) = serve(|_| Response::from_string("database is down").with_status_code(500));
    let dir = tempfile::tempdir().unwrap();
    let out = run_env(dir.path(), &["probe", "--url", &url], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        stderr(&out).contains(&format!(
            "initialize: POST {url}: HTTP 500 Internal Server Error: 'database is down'"
        )),
        "{}",
        show(&out)
    );

    let (url, _server) = serve(|req| {
        match req.body["method"].as_str() {
        Some("initialize") => json_body(&json!({ "jsonrpc": "2.0", "id": req.body["id"], "result": {
            "protocolVersion": "2025-06-18", "capabilities": { "tools": {} }, "serverInfo": { "name": "x", "version": "1" },
        }}))
        .with_header(header("Mcp-Session-Id", "gone-soon")),
        Some("tools/list") => Response::from_string("").with_status_code(404),
        _ => Response::from_data(Vec::new()).with_status_code(202),
    }
    });
    let out = run_env(dir.path(), &["probe", "--url", &url], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        stderr(&out).contains("HTTP 404: the server no longer knows this session"),
        "{}",
        show(&out)
    );

    let out = run_env(dir.path(), &["probe", "--url", "ftp://127.0.0.1/mcp"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
}
