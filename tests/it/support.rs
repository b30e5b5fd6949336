//! Helpers shared by the probe tests: finding the pinned peers, running `probe`
//! against one, processes and ports, and an oracle for the CSV row a tool should
//! produce. Running the binary and reading what it wrote is `common`'s.
//!
//! A peer that is missing fails the test under `CI=true` and skips it elsewhere, with
//! a line saying why and how to install it (`tests/peers/install.sh`).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::run_env;

pub const HEADER: &str = "tool,readOnlyHint,destructiveHint,idempotentHint,openWorldHint,omits,resolved_readOnlyHint,resolved_destructiveHint,resolved_idempotentHint,resolved_openWorldHint,name_class";

pub fn peers() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers")
}

/// Returns the peer, or handles its absence: a failure under `CI=true`, else a
/// counted skip (see [`crate::common::skip`]).
pub fn require<T>(what: &str, peer: Option<T>) -> Option<T> {
    if peer.is_none() {
        crate::common::skip(&format!(
            "{what} is not installed; run tests/peers/install.sh"
        ));
    }
    peer
}

/// Returns a python3 able to run the standard-library fault server.
pub fn python3() -> Option<PathBuf> {
    let ok = Command::new("python3")
        .args(["-c", "import json, signal"])
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then(|| PathBuf::from("python3"))
}

/// Returns the pinned venv's python when it can import the official MCP SDK.
pub fn python_with_mcp() -> Option<PathBuf> {
    let python = peers().join(".venv/bin/python");
    let ok = Command::new(&python)
        .args(["-c", "import mcp.server.mcpserver, mcp.client.client"])
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some(python)
}

/// Returns the pinned reference memory server's entry point, when npm installed it.
pub fn memory_server() -> Option<PathBuf> {
    let entry = peers().join("node_modules/@modelcontextprotocol/server-memory/dist/index.js");
    let node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    (node && entry.is_file()).then_some(entry)
}

/// Returns the pinned reference "everything" server's entry point, when npm installed it.
pub fn everything_server() -> Option<PathBuf> {
    let entry = peers().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    (node && entry.is_file()).then_some(entry)
}

/// Returns the CSV row docs/probe.md prescribes for one tool object, worked out here from
/// the schema's rules independently of the crate.
pub fn expected_row(tool: &Value) -> Vec<String> {
    const NAMES: [&str; 4] = [
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
    ];
    const DEFAULTS: [bool; 4] = [false, true, false, true];
    let annotations = tool.get("annotations").filter(|a| a.is_object());
    let declared: Vec<Option<Result<bool, ()>>> = NAMES
        .iter()
        .map(|name| match annotations.and_then(|a| a.get(*name)) {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(Ok(*b)),
            Some(_) => Some(Err(())),
        })
        .collect();
    let read_only = declared[0] == Some(Ok(true));
    let meaningful = |i: usize| !(read_only && (i == 1 || i == 2));
    let mut row = vec![tool["name"].as_str().expect("a tool name").to_string()];
    for d in &declared {
        row.push(
            match d {
                None => "absent",
                Some(Ok(true)) => "true",
                Some(Ok(false)) => "false",
                Some(Err(())) => "invalid",
            }
            .to_string(),
        );
    }
    let omits: Vec<&str> = (0..4)
        .filter(|&i| meaningful(i) && !matches!(declared[i], Some(Ok(_))))
        .map(|i| NAMES[i])
        .collect();
    row.push(omits.join(";"));
    for i in 0..4 {
        row.push(if !meaningful(i) {
            "n/a".to_string()
        } else {
            match declared[i] {
                Some(Ok(b)) => b.to_string(),
                _ => DEFAULTS[i].to_string(),
            }
        });
    }
    let title = tool["title"]
        .as_str()
        .or_else(|| annotations.and_then(|a| a["title"].as_str()))
        .filter(|t| !t.is_empty());
    row.push(name_class(&row[0], title).to_string());
    row
}

/// Returns the verbs docs/method.md lists for `class` under "Name classes".
fn documented_verbs(class: &str) -> Vec<String> {
    let method = include_str!("../../docs/method.md");
    let start = format!("- `{class}`: ");
    let at = method
        .find(&start)
        .unwrap_or_else(|| panic!("docs/method.md lists no {class}"));
    let rest = &method[at + start.len()..];
    let end = rest.find(['.', ';']).unwrap();
    rest[..end]
        .split(',')
        .map(|w| w.trim().trim_matches('`').to_string())
        .collect()
}

/// Returns the name class of a tool named `name` (else titled `title`), by the rule
/// docs/method.md states, written here on its own: words are the runs of ASCII
/// letters, cut where a lower-case letter meets a capital and before the last
/// capital of a run that a lower-case letter follows; the first of the first two
/// words that a documented list holds decides.
pub fn name_class(name: &str, title: Option<&str>) -> &'static str {
    let text = if name.is_empty() {
        title.unwrap_or_default()
    } else {
        name
    };
    let chars: Vec<char> = text.chars().collect();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphabetic() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            continue;
        }
        let prev = if i > 0 { chars[i - 1] } else { ' ' };
        let next = chars.get(i + 1).copied().unwrap_or(' ');
        let cut = !word.is_empty()
            && ((prev.is_ascii_lowercase() && c.is_ascii_uppercase())
                || (prev.is_ascii_uppercase()
                    && c.is_ascii_uppercase()
                    && next.is_ascii_lowercase()));
        if cut {
            words.push(std::mem::take(&mut word));
        }
        word.push(c.to_ascii_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    for word in words.iter().take(2) {
        for class in ["read", "write", "destructive"] {
            if documented_verbs(class).contains(word) {
                return class;
            }
        }
    }
    "unknown"
}

/// Returns a port that was free on 127.0.0.1 a moment ago.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("binding port 0")
        .port()
}

/// Waits until something accepts connections on 127.0.0.1:`port`.
pub fn wait_for_port(port: u16, server: &mut ServerGuard) {
    let until = Instant::now() + Duration::from_secs(30);
    while Instant::now() < until {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        if let Ok(Some(status)) = server.0.try_wait() {
            panic!("the test server exited early: {status}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("nothing listens on 127.0.0.1:{port} after 30 s");
}

/// Kills and reaps a server the test started, however the test ends.
pub struct ServerGuard(pub Child);

impl Drop for ServerGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Returns true while process `pid` exists and is not a zombie.
pub fn is_alive(pid: u32) -> bool {
    let stat = Path::new("/proc").join(pid.to_string()).join("stat");
    if Path::new("/proc/self/stat").exists() {
        return match std::fs::read_to_string(stat) {
            // The state follows the command name, which is in parentheses.
            Ok(text) => text
                .rsplit(')')
                .next()
                .is_some_and(|rest| !rest.trim_start().starts_with('Z')),
            Err(_) => false,
        };
    }
    Command::new("kill")
        .args(["-0", &pid.to_string()])
        .status()
        .is_ok_and(|s| s.success())
}

/// Waits up to `grace` for process `pid` to be gone; returns true when it is.
pub fn is_gone_within(pid: u32, grace: Duration) -> bool {
    let until = Instant::now() + grace;
    while is_alive(pid) {
        if Instant::now() > until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    true
}

/// Runs `probe [flags] -- <server>` in `dir` with `envs` added to its environment.
pub fn probe_stdio(dir: &Path, server: &[String], flags: &[&str], envs: &[(&str, &str)]) -> Output {
    let mut args = vec!["probe"];
    args.extend_from_slice(flags);
    args.push("--");
    args.extend(server.iter().map(String::as_str));
    run_env(dir, &args, envs)
}
