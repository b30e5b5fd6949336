//! HTTPS as the machine trusts it: a server on 127.0.0.1 whose certificate a CA made
//! here signed, trusted only through `SSL_CERT_FILE` (or `SSL_CERT_DIR`), reached by
//! `corpus registry` (the shared client with retries) and `probe --url` (a remote MCP
//! server); without them, the same requests fail naming the certificate. A proxy
//! named in `HTTPS_PROXY` is used, and `NO_PROXY` bypasses it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread;

use serde_json::{json, Value};

use crate::common::{reply, show, stderr, Loopback, Run};

/// A CA made for one test, and a server certificate for 127.0.0.1 it signed.
struct Pki {
    ca_pem: String,
    server: rustls::ServerConfig,
}

fn pki() -> Pki {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "mcp-hint-census test CA");
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let params = rcgen::CertificateParams::new(vec!["127.0.0.1".to_string()]).unwrap();
    let cert = params.signed_by(&key, &ca, &ca_key).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let server = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![cert.der().clone()],
            rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
        )
        .unwrap();
    Pki {
        ca_pem: ca.pem(),
        server,
    }
}

/// Serves HTTPS on 127.0.0.1 in front of the plain `backend`: each request read
/// whole, passed on with `Connection: close`, its answer read to the end and sent
/// back. Returns the port.
fn tls_front(config: rustls::ServerConfig, backend: u16) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let config = Arc::new(config);
    thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let config = config.clone();
            thread::spawn(move || {
                let connection = rustls::ServerConnection::new(config).unwrap();
                let mut tls = rustls::StreamOwned::new(connection, stream);
                // A client that refuses the certificate ends here.
                let Some(request) = read_request(&mut tls) else {
                    return;
                };
                let mut plain = TcpStream::connect(("127.0.0.1", backend)).unwrap();
                plain.write_all(&request).unwrap();
                let mut answer = Vec::new();
                let _ = plain.read_to_end(&mut answer);
                let _ = tls.write_all(&answer);
                tls.conn.send_close_notify();
                let _ = tls.flush();
            });
        }
    });
    port
}

/// Reads one HTTP/1.1 request (head and `Content-Length` body) and returns it with
/// `Connection: close`; `None` when the handshake or the read failed.
fn read_request(from: &mut impl Read) -> Option<Vec<u8>> {
    let mut reader = BufReader::new(from);
    let mut head = Vec::new();
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if line == "\r\n" {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if lower.starts_with("connection:") {
            continue;
        }
        if let Some(value) = lower.strip_prefix("content-length:") {
            length = value.trim().parse().ok()?;
        }
        head.extend_from_slice(line.as_bytes());
    }
    head.extend_from_slice(b"Connection: close\r\n\r\n");
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    head.extend(body);
    Some(head)
}

/// A registry answering one empty page, and a scripted MCP server with two tools.
fn backend() -> Loopback {
    Loopback::start(|request| {
        if request.url.starts_with("/v0.1/servers") {
            return reply(
                200,
                json!({"servers": [], "metadata": {"count": 0}}).to_string(),
            );
        }
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let result = match body["method"].as_str() {
            Some("initialize") => {
                json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                                          "serverInfo": {"name": "tls", "version": "1.0.0"}})
            }
            Some("tools/list") => json!({"tools": [
                {"name": "read", "annotations": {"readOnlyHint": true}}, {"name": "write"}]}),
            _ => return reply(202, Vec::new()),
        };
        let answer = json!({"jsonrpc": "2.0", "id": body["id"], "result": result});
        tiny_http::Response::from_data(answer.to_string().into_bytes())
            .with_header(crate::common::header("Content-Type: application/json"))
            .boxed()
    })
}

/// Returns a run whose trust and proxies come only from what the test sets.
fn bare(dir: &Path) -> Run {
    let mut run = Run::new(dir);
    for name in [
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "HTTPS_PROXY",
        "https_proxy",
        "HTTP_PROXY",
        "http_proxy",
        "ALL_PROXY",
        "all_proxy",
        "NO_PROXY",
        "no_proxy",
    ] {
        run.command().env_remove(name);
    }
    run
}

fn registry_run(dir: &Path, port: u16) -> Run {
    bare(dir).args([
        "corpus",
        "registry",
        "--url",
        &format!("https://127.0.0.1:{port}"),
        "--out",
        "c.toml",
        "--date",
        "2026-11-30",
    ])
}

fn probe_run(dir: &Path, port: u16) -> Run {
    bare(dir).args([
        "probe",
        "--url",
        &format!("https://127.0.0.1:{port}/mcp"),
        "--timeout",
        "20",
    ])
}

#[test]
fn https_trusts_a_ca_given_only_through_ssl_cert_file() {
    let work = tempfile::tempdir().unwrap();
    let pki = pki();
    let ca: PathBuf = work.path().join("ca.pem");
    std::fs::write(&ca, &pki.ca_pem).unwrap();
    let server = backend();
    let port = tls_front(pki.server, server.port());

    let trusted = registry_run(work.path(), port)
        .env("SSL_CERT_FILE", &ca)
        .output();
    // The page was read: an empty registry pins no tree.
    assert!(
        stderr(&trusted).contains("no tree could be pinned"),
        "{}",
        show(&trusted)
    );
    assert_eq!(
        server.hits("/v0.1/servers?limit=100&version=latest"),
        1,
        "{:#?}",
        server.seen()
    );
    let probed = probe_run(work.path(), port)
        .env("SSL_CERT_FILE", &ca)
        .output();
    assert_eq!(probed.status.code(), Some(0), "{}", show(&probed));
    let said = String::from_utf8_lossy(&probed.stdout);
    assert!(
        said.contains("read") && said.contains("write"),
        "{}",
        show(&probed)
    );

    // The same CA as the only file of SSL_CERT_DIR.
    let dir = work.path().join("certs");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("ca.pem"), &pki.ca_pem).unwrap();
    let by_dir = probe_run(work.path(), port)
        .env("SSL_CERT_DIR", &dir)
        .output();
    assert_eq!(by_dir.status.code(), Some(0), "{}", show(&by_dir));

    // Without it the machine's own store holds no such CA: both fail, saying why.
    let before = server.seen().len();
    for run in [
        registry_run(work.path(), port),
        probe_run(work.path(), port),
    ] {
        let untrusted = run.output();
        let text = stderr(&untrusted);
        assert_ne!(untrusted.status.code(), Some(0), "{}", show(&untrusted));
        assert!(
            text.contains("invalid peer certificate: UnknownIssuer")
                && text.contains("SSL_CERT_FILE"),
            "{}",
            show(&untrusted)
        );
    }
    assert_eq!(
        server.seen().len(),
        before,
        "no request got through untrusted"
    );
}

#[test]
fn https_goes_through_the_proxy_the_environment_names_unless_no_proxy_says() {
    let work = tempfile::tempdir().unwrap();
    let pki = pki();
    let ca = work.path().join("ca.pem");
    std::fs::write(&ca, &pki.ca_pem).unwrap();
    let server = backend();
    let port = tls_front(pki.server, server.port());
    // A proxy that takes the CONNECT and answers it with 403: the request went to it.
    let proxy = TcpListener::bind("127.0.0.1:0").unwrap();
    let proxy_port = proxy.local_addr().unwrap().port();
    let asked = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let log = asked.clone();
    thread::spawn(move || {
        for mut stream in proxy.incoming().flatten() {
            let mut line = String::new();
            let _ = BufReader::new(&mut stream).read_line(&mut line);
            log.lock().unwrap().push(line.trim().to_string());
            let _ = stream.write_all(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");
        }
    });
    let proxy_url = format!("http://127.0.0.1:{proxy_port}");
    let through = probe_run(work.path(), port)
        .env("SSL_CERT_FILE", &ca)
        .env("HTTPS_PROXY", &proxy_url)
        .output();
    assert_ne!(through.status.code(), Some(0), "{}", show(&through));
    assert_eq!(
        asked.lock().unwrap().first().map(String::as_str),
        Some(format!("CONNECT 127.0.0.1:{port} HTTP/1.1").as_str()),
        "{}",
        show(&through)
    );
    let bypassed = probe_run(work.path(), port)
        .env("SSL_CERT_FILE", &ca)
        .env("HTTPS_PROXY", &proxy_url)
        .env("NO_PROXY", "127.0.0.1")
        .output();
    assert_eq!(bypassed.status.code(), Some(0), "{}", show(&bypassed));
}
