//! `corpus registry --packages` and `probe --servers` over registry packages, offline:
//! a loopback npm registry serving packuments and tarballs built here, a loopback
//! PyPI simple index serving a wheel built here (and a release with an sdist only),
//! and every package server run in the bubblewrap sandbox. The servers are plain
//! JSON-RPC over stdio, written here, with no dependency.

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};
use sha1_checked::Digest;

use crate::common::{
    assert_code, gzip, header, marking_object, read_csv, reply, show, skip, stderr, targz, Item,
    Loopback, Run,
};

const DATE: &str = "2026-11-30";
const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";
/// When the loopback npm registry says each fixture was published.
const PUBLISHED: &str = "2026-01-02T03:04:05.000Z";

/// Returns a server that tries to get out of its sandbox and lists, as its tools'
/// names, what each try gave: writing beside its code (which it may, into a copy),
/// into its prefix, /etc and a folder of the host
/// (`host`), reading the user's HOME (`home`), one file past the file-size bound, and
/// its HOME past the tmpfs bound.
fn escape_server(host: &Path, home: &str) -> String {
    let tries = format!(
        r#"const fs = require("fs");
const tried = (f) => {{ try {{ f(); return "done"; }} catch (e) {{ return e.code || String(e); }} }};
const chunk = Buffer.alloc(1 << 20, 1);
const fill = (path, mib) => tried(() => {{
  const fd = fs.openSync(path, "w");
  try {{ for (let i = 0; i < mib; i++) fs.writeSync(fd, chunk); }} finally {{ fs.closeSync(fd); }}
}});
const seen = {{
  beside: tried(() => fs.writeFileSync(__dirname + "/planted", "x")),
  prefix: tried(() => fs.writeFileSync(__dirname + "/../../planted", "x")),
  etc: tried(() => fs.writeFileSync("/etc/planted", "x")),
  host: tried(() => fs.writeFileSync({host:?}, "x")),
  // The host's home: absent, or the sandbox's own private one (what /etc/passwd
  // names is linked to it), never the host's files.
  home: (() => {{
    try {{
      const own = new Set(fs.readdirSync(process.env.HOME));
      return fs.readdirSync({home:?}).some((n) => !own.has(n)) ? "LEAKED" : "private";
    }} catch (e) {{ return e.code === "ENOENT" ? "private" : e.code || String(e); }}
  }})(),
  file: fill("/tmp/big", 100),
  fill: ["a", "b", "c"].map((n) => fill(process.env.HOME + "/" + n, 60)).join("+"),
}};
"#,
        host = host.display().to_string()
    );
    tries
        + &js_serving(
            r#"Object.entries(seen).map(([k, v]) => ({ name: k + "=" + v, inputSchema: {} }))"#,
            None,
        )
}

/// Returns a stdio MCP server in plain JS listing `tools`; with `connect`, it first
/// opens a TCP connection to 127.0.0.1:PORT and exits saying so when that fails.
fn js_server(tools: &Value, connect: Option<u16>) -> String {
    js_serving(&tools.to_string(), connect)
}

/// Returns [`js_server`] listing the tools the JavaScript expression `tools` gives.
fn js_serving(tools: &str, connect: Option<u16>) -> String {
    let serve = format!(
        r#"const tools = {tools};
function serve() {{
  let buf = "";
  process.stdin.on("data", (d) => {{
    buf += d;
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {{
      const line = buf.slice(0, i); buf = buf.slice(i + 1);
      if (!line.trim()) continue;
      const m = JSON.parse(line);
      if (m.id === undefined) continue;
      let result = {{}};
      if (m.method === "initialize") result = {{ protocolVersion: m.params.protocolVersion,
        capabilities: {{ tools: {{}} }}, serverInfo: {{ name: "fixture", version: "9.9.9" }} }};
      else if (m.method === "tools/list") result = {{ tools }};
      process.stdout.write(JSON.stringify({{ jsonrpc: "2.0", id: m.id, result }}) + "\n");
    }}
  }});
}}
"#
    );
    match connect {
        None => format!("{serve}serve();\n"),
        Some(port) => format!(
            "{serve}const s = require('net').connect({port}, '127.0.0.1');\n\
             s.on('connect', () => {{ s.end(); serve(); }});\n\
             s.on('error', (e) => {{ console.error('connect failed: ' + e.code); process.exit(3); }});\n"
        ),
    }
}

/// Returns an npm tarball of `name`@1.0.0 whose bin runs `source`, and whose install
/// scripts would write `marker`.
fn npm_tarball(name: &str, source: &str, marker: &Path) -> Vec<u8> {
    let write = format!(
        "node -e \"require('fs').writeFileSync('{}', 'ran')\"",
        marker.display()
    );
    let manifest = json!({
        "name": name, "version": "1.0.0", "bin": {name: "server.js"},
        "scripts": {"preinstall": write, "install": write, "postinstall": write},
    });
    targz(
        "package",
        None,
        &[
            Item::File("package.json".into(), manifest.to_string().into_bytes()),
            Item::File(
                "server.js".into(),
                format!("#!/usr/bin/env node\n{source}").into_bytes(),
            ),
        ],
    )
}

/// Returns the `[console_scripts]` of the fixture wheel `name`: one named after it
/// (`hintjsonapi`'s only one is named otherwise: `jsonapi-server`), and for
/// `hintx_mcp` the server as `hintx` beside a `hintx-test` that cannot start, for
/// `hinttwo` two that serve, neither named after it.
fn console_scripts(name: &str) -> String {
    match name {
        "hintjsonapi" => "jsonapi-server = hintjsonapi:main\n".to_string(),
        "hintx_mcp" => "hintx-test = hintx_mcp:absent\nhintx = hintx_mcp:main\n".to_string(),
        "hinttwo" => "alpha = hinttwo:main\nbeta = hinttwo:main\n".to_string(),
        _ => format!("{name} = {name}:main\n"),
    }
}

/// Returns what the fixture server `name` does before it serves: `hintlocal` binds
/// `localhost` (resolving it) and names its tool after the address it bound;
/// `hintcrash` raises, naming its own file and the folder it runs in.
fn prelude(name: &str) -> &'static str {
    match name {
        // Fails at start, its traceback quoting where it was installed.
        "hintcrash" => {
            "import os\n\
             raise RuntimeError('no configuration next to ' + __file__ + ' nor in ' + os.getcwd())\n"
        }
        // Names its tool after the MCP SDK it was installed with.
        "hintsdk" => {
            "import importlib.metadata as _m\n\
             TOOLS[0]['name'] = 'mcp_' + _m.version('mcp').replace('.', '_')\n"
        }
        // Exits with argparse's usage error unless given --pcap-path; names its tool
        // after the value.
        "hintargs" => {
            "import argparse\n_p = argparse.ArgumentParser(prog='hintargs')\n\
             _p.add_argument('--pcap-path', required=True)\n_a = _p.parse_args()\n\
             TOOLS[0]['name'] = 'pcap' + _a.pcap_path.replace('/', '_')\n"
        }
        // A command group, as click writes one: exits with its usage unless told
        // its command that serves MCP, itself a group of transports.
        "hintgroup" => {
            "import sys as _sys\n\
             if _sys.argv[1:2] != ['serve']:\n\
             \x20   print('Usage: hintgroup [OPTIONS] COMMAND [ARGS]...\\n\\nOptions:\\n  --help  Show this message and exit.\\n\\nCommands:\\n  index  Build the index.\\n  resource  Show an MCP resource.\\n  serve  Start the MCP server.', file=_sys.stderr)\n\
             \x20   _sys.exit(2)\n\
             if _sys.argv[2:3] != ['stdio']:\n\
             \x20   print('Usage: hintgroup serve [OPTIONS] COMMAND [ARGS]...\\n\\nCommands:\\n  http   Start the MCP server over HTTP.\\n  stdio  Start the MCP server over stdio.', file=_sys.stderr)\n\
             \x20   _sys.exit(2)\n"
        }
        // Writes under the home the password database names, as a child started
        // without HOME does (ipybox's Jupyter kernel gateway): its private HOME.
        "hinthome" => {
            "import os as _os, pwd as _pwd\n\
             _home = _pwd.getpwuid(_os.getuid()).pw_dir\n\
             _os.makedirs(_os.path.join(_home, '.local/share/jupyter/runtime'), exist_ok=True)\n\
             TOOLS[0]['name'] = 'home_written'\n"
        }
        // Exits naming two variables as missing unless one is set, as servers
        // that read a key or an endpoint at start do; names its tool after the URL.
        "hintenv" => {
            "import os as _os, sys as _sys\n\
             if not (_os.environ.get('ACME_API_KEY') or _os.environ.get('ACME_API_URL')):\n\
             \x20   print('Either ACME_API_KEY or ACME_API_URL must be provided', file=_sys.stderr)\n\
             \x20   _sys.exit(1)\n\
             TOOLS[0]['name'] = 'url_' + _os.environ['ACME_API_URL'].replace(':', '_').replace('/', '_').replace('.', '_')\n"
        }
        "hintlocal" => {
            "import socket\n_s = socket.socket()\n_s.bind(('localhost', 0))\n\
             TOOLS[0]['name'] = 'bound_' + _s.getsockname()[0].replace('.', '_')\n"
        }
        _ => "",
    }
}

/// Returns a wheel of `name` at `version` requiring `requires`; with `tools`, the
/// console scripts of [`console_scripts`] serving them. `hintbig` carries a MiB of
/// data besides.
fn wheel(
    dir: &Path,
    name: &str,
    version: &str,
    requires: &[&str],
    tools: Option<&Value>,
) -> Vec<u8> {
    let server = match tools {
        None => String::new(),
        Some(tools) => format!(
            "import json, sys\nTOOLS = json.loads({:?})\n{}\
         def main():\n\
         \x20   for line in sys.stdin:\n\
         \x20       if not line.strip():\n\
         \x20           continue\n\
         \x20       m = json.loads(line)\n\
         \x20       if 'id' not in m:\n\
         \x20           continue\n\
         \x20       r = {{}}\n\
         \x20       if m['method'] == 'initialize':\n\
         \x20           r = {{'protocolVersion': m['params']['protocolVersion'], 'capabilities': {{'tools': {{}}}}, 'serverInfo': {{'name': 'hintpy', 'version': '1.0.0'}}}}\n\
         \x20       elif m['method'] == 'tools/list':\n\
         \x20           r = {{'tools': TOOLS}}\n\
         \x20       print(json.dumps({{'jsonrpc': '2.0', 'id': m['id'], 'result': r}}), flush=True)\n",
            tools.to_string(),
            prelude(name)
        ),
    };
    let source = dir.join(format!("{name}-{version}.py"));
    std::fs::write(&source, server).unwrap();
    let path = dir.join(format!("{name}-{version}-py3-none-any.whl"));
    let script = r#"
import sys, zipfile, hashlib, base64
out, server, name, version, scripts = sys.argv[1], open(sys.argv[2]).read(), sys.argv[3], sys.argv[4], sys.argv[5]
requires = "".join(f"Requires-Dist: {r}\n" for r in sys.argv[6:])
info = f"{name}-{version}.dist-info"
files = {
  f"{name}/__init__.py": server,
  f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n{requires}",
  f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
if server:
    files[f"{info}/entry_points.txt"] = f"[console_scripts]\n{scripts}"
if name.startswith("hintbig"):
    files[f"{name}/blob.bin"] = "".join(chr(33 + (i * 7919 + i // 97) % 90) for i in range(1 << 20))
record = []
with zipfile.ZipFile(out, "w") as z:
    for file, text in files.items():
        data = text.encode()
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{file},sha256={digest},{len(data)}")
        z.writestr(file, data)
    record.append(f"{info}/RECORD,,")
    z.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
"#;
    let made = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&path)
        .arg(&source)
        .args([name, version])
        .arg(console_scripts(name))
        .args(requires)
        .output()
        .expect("running python3");
    assert!(made.status.success(), "{made:?}");
    std::fs::read(&path).unwrap()
}

/// When the loopback PyPI index says each file was uploaded: `hintpy` and
/// `hintnojson` 1.0.0 between the two releases of their dependency `hintdep`.
const UPLOADED: &str = "2026-01-02T03:04:05.123456Z";
const DEP_OLD: (&str, &str) = ("1.0.0", "2025-06-01T00:00:00.000000Z");
const DEP_NEW: (&str, &str) = ("2.0.0", "2026-06-01T00:00:00.000000Z");

/// Holds the files of the loopback PyPI index: each project's wheels (version,
/// upload time, bytes) and sdists.
#[derive(Clone, Default)]
struct PypiFiles {
    wheels: BTreeMap<String, Vec<(String, String, Vec<u8>)>>,
    sdists: BTreeMap<String, String>,
    /// The `Requires-Python` of a project's files.
    requires: BTreeMap<String, String>,
    /// The projects whose Simple API page gives no upload time (no PEP 700).
    no_upload_time: Vec<String>,
    /// The projects whose Simple API page gives no file size, as an index older
    /// than PEP 700 does.
    no_size: Vec<String>,
}

/// Returns the fixture PyPI projects: `hintpy` serving `tools`, `hintjsonapi` the
/// same (its upload time only in the JSON API), `hintnojson` the same (its upload
/// time nowhere) and `hintfuture` (needing a Python no machine has), all requiring
/// `hintdep` of which two releases are there; and `sdistonly`, with an sdist only.
fn pypi_files(dir: &Path, tools: &Value) -> PypiFiles {
    let mut files = PypiFiles::default();
    for name in ["hintpy", "hintnojson", "hintjsonapi", "hintfuture"] {
        let bytes = wheel(dir, name, "1.0.0", &["hintdep"], Some(tools));
        files.wheels.insert(
            name.to_string(),
            vec![("1.0.0".to_string(), UPLOADED.to_string(), bytes)],
        );
    }
    let dep = [DEP_OLD, DEP_NEW]
        .iter()
        .map(|(version, at)| {
            (
                version.to_string(),
                at.to_string(),
                wheel(dir, "hintdep", version, &[], None),
            )
        })
        .collect();
    files.wheels.insert("hintdep".to_string(), dep);
    files
        .sdists
        .insert("sdistonly".to_string(), "1.0.0".to_string());
    files
        .requires
        .insert("hintfuture".to_string(), ">=3.99".to_string());
    files.no_upload_time = vec!["hintnojson".to_string(), "hintjsonapi".to_string()];
    files
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    format!("{:x}", sha2::Sha256::digest(bytes))
}

/// One file of a project's index page: its name, version, upload time, SHA-256
/// (empty for none) and size (`None` for an sdist).
type Listed = (String, String, Option<String>, String, Option<usize>);

/// Answers a request of the PyPI index at `base` (its `simple/` pages, as HTML or,
/// when asked, as PEP 691 JSON with upload times, its `files/`, and its JSON API
/// `pypi/NAME/VERSION/json`, missing for `hintnojson`); `None` for another path.
fn pypi_answer(
    files: &PypiFiles,
    base: &str,
    request: &crate::common::Request,
) -> Option<crate::common::Response> {
    let path = request.url.trim_start_matches('/');
    if let Some(project) = path
        .strip_prefix("simple/")
        .and_then(|p| p.strip_suffix('/'))
    {
        // Asked for by its normalized name: `hintx-mcp` is the project `hintx_mcp`.
        let project = files
            .wheels
            .keys()
            .chain(files.sdists.keys())
            .find(|key| key.replace('_', "-") == project)
            .map_or(project, String::as_str);
        let mut listed: Vec<Listed> = Vec::new();
        for (version, at, bytes) in files.wheels.get(project).into_iter().flatten() {
            listed.push((
                format!("{project}-{version}-py3-none-any.whl"),
                version.clone(),
                Some(at.clone()),
                sha256_hex(bytes),
                Some(bytes.len()),
            ));
        }
        if let Some(version) = files.sdists.get(project) {
            listed.push((
                format!("{project}-{version}.tar.gz"),
                version.clone(),
                None,
                String::new(),
                None,
            ));
        }
        if listed.is_empty() {
            return Some(reply(404, "not here"));
        }
        let wants_json = request
            .header("Accept")
            .is_some_and(|a| a.contains("application/vnd.pypi.simple.v1+json"));
        let requires = files.requires.get(project);
        let has_upload_time = !files.no_upload_time.iter().any(|p| p == project);
        let has_size = !files.no_size.iter().any(|p| p == project);
        if wants_json {
            let page = json!({
                "meta": {"api-version": "1.1"},
                "name": project,
                "versions": listed.iter().map(|f| f.1.clone()).collect::<Vec<_>>(),
                "files": listed.iter().map(|(file, _, at, sha, size)| {
                    let mut entry = json!({
                        "filename": file, "url": format!("{base}/files/{file}"),
                        "hashes": if sha.is_empty() { json!({}) } else { json!({"sha256": sha}) },
                        "requires-python": requires,
                    });
                    if has_upload_time {
                        entry["upload-time"] = json!(at.clone().unwrap_or_else(|| UPLOADED.to_string()));
                    }
                    if let (true, Some(size)) = (has_size, size) {
                        entry["size"] = json!(size);
                    }
                    entry
                }).collect::<Vec<_>>(),
            });
            return Some(
                reply(200, page.to_string())
                    .with_header(header("Content-Type: application/vnd.pypi.simple.v1+json")),
            );
        }
        let links: String = listed
            .iter()
            .map(|(file, _, _, sha, _)| {
                let hash = if sha.is_empty() {
                    String::new()
                } else {
                    format!("#sha256={sha}")
                };
                let requires = requires
                    .map(|r| {
                        let r = r.replace('>', "&gt;").replace('<', "&lt;");
                        format!(" data-requires-python=\"{r}\"")
                    })
                    .unwrap_or_default();
                format!("<a href=\"{base}/files/{file}{hash}\"{requires}>{file}</a>")
            })
            .collect();
        return Some(html(format!("<html><body>{links}</body></html>")));
    }
    if let Some(file) = path.strip_prefix("files/") {
        if file.ends_with(".tar.gz") {
            return Some(reply(200, gzip(b"never built")));
        }
        for (project, releases) in &files.wheels {
            for (version, _, bytes) in releases {
                if file == format!("{project}-{version}-py3-none-any.whl") {
                    return Some(reply(200, bytes.clone()));
                }
            }
        }
        return Some(reply(404, "not here"));
    }
    if let Some(rest) = path.strip_prefix("pypi/") {
        let parts: Vec<&str> = rest.split('/').collect();
        let [project, version, "json"] = parts.as_slice() else {
            return Some(reply(404, "not here"));
        };
        if *project == "hintnojson" {
            return Some(reply(404, "{}"));
        }
        let urls: Vec<Value> = files
            .wheels
            .get(*project)
            .into_iter()
            .flatten()
            .filter(|(v, _, _)| v == version)
            .map(|(v, at, bytes)| {
                json!({
                    "filename": format!("{project}-{v}-py3-none-any.whl"),
                    "packagetype": "bdist_wheel",
                    "digests": {"sha256": sha256_hex(bytes)},
                    "upload_time_iso_8601": at,
                })
            })
            .collect();
        if urls.is_empty() {
            return Some(reply(404, "{}"));
        }
        return Some(reply(
            200,
            json!({"info": {"name": project, "version": version}, "urls": urls}).to_string(),
        ));
    }
    None
}

/// Returns the tools the fixture PyPI servers list.
fn py_tools() -> Value {
    json!([{"name": "py_tool", "inputSchema": {},
            "annotations": {"readOnlyHint": true, "openWorldHint": false}}])
}

/// Returns PATH without its folders that hold a `uv`, so that pip installs.
fn path_without_uv() -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept: Vec<_> = std::env::split_paths(&path)
        .filter(|dir| !dir.join("uv").exists())
        .collect();
    std::env::join_paths(kept)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// Returns uv: on PATH, else the pinned one tests/peers installs.
fn find_uv() -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("uv"))
        .chain([Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/.venv/bin/uv")])
        .find(|uv| {
            Command::new(uv)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

/// Returns a registry answer entry with one package.
fn entry(name: &str, package: Value) -> Value {
    json!({"server": {"name": name, "version": "1.0.0", "description": "d",
                      "packages": [package]},
           "_meta": {"io.modelcontextprotocol.registry/official":
                     {"status": "active", "isLatest": true}}})
}

fn npm(identifier: &str) -> Value {
    json!({"registryType": "npm", "identifier": identifier, "version": "1.0.0",
           "runtimeHint": "npx", "transport": {"type": "stdio"},
           "runtimeArguments": [{"type": "positional", "value": "-y"}]})
}

/// Returns a simple index page, as pip reads it only with an HTML content type.
fn html(body: String) -> crate::common::Response {
    reply(200, body).with_header(header("Content-Type: text/html"))
}

/// Returns whether bwrap can make the sandbox here, with the sized tmpfs it uses.
fn has_bwrap() -> bool {
    Command::new("bwrap")
        .args([
            "--ro-bind",
            "/",
            "/",
            "--size",
            "1048576",
            "--tmpfs",
            "/tmp",
            "true",
        ])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn has_tools() -> bool {
    ["node", "npm", "python3"].iter().all(|tool| {
        Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// Returns the servers table as maps from column to cell, keyed by server.
fn servers_table(path: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    let rows = read_csv(path);
    let header = rows[0].clone();
    rows[1..]
        .iter()
        .map(|row| {
            let cells: BTreeMap<String, String> =
                header.iter().cloned().zip(row.iter().cloned()).collect();
            (row[0].clone(), cells)
        })
        .collect()
}

#[test]
fn registry_packages_install_without_scripts_and_run_in_the_sandbox() {
    if !has_tools() {
        return skip("node, npm or python3 is not installed");
    }
    if !has_bwrap() {
        return skip("bwrap cannot run here (or knows no --size); apt-get install bubblewrap");
    }
    let work = tempfile::tempdir().unwrap();
    let marker = work.path().join("install-script-ran");
    // A listener the socket server tries to reach; inside the sandbox it must not.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let reached = Arc::new(AtomicUsize::new(0));
    {
        let reached = reached.clone();
        std::thread::spawn(move || {
            for _ in listener.incoming().flatten() {
                reached.fetch_add(1, Ordering::SeqCst);
            }
        });
    }

    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".to_string());
    // A folder of the host the sandbox does not bind (under /tmp, it would write into
    // its own private /tmp, which the prefix's parents are made in).
    std::fs::create_dir(work.path().join("host")).unwrap();
    // Prints on `stream` without end, never answering.
    let flood = |stream: &str| {
        format!(
            "const line = 'a log line that is not JSON '.repeat(40) + '\\n';\n\
             (function flood() {{ while (process.{stream}.write(line)) {{}} process.{stream}.once('drain', flood); }})();\n"
        )
    };
    let hinted_tools = json!([
        {"name": "read", "inputSchema": {"type": "object"},
         "annotations": {"readOnlyHint": true, "destructiveHint": false,
                         "idempotentHint": true, "openWorldHint": false}},
        {"name": "write", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": false}},
        {"name": "bare", "inputSchema": {"type": "object"}}
    ]);
    let tarballs: BTreeMap<&str, Vec<u8>> = [
        (
            "hinted-fixture",
            npm_tarball("hinted-fixture", &js_server(&hinted_tools, None), &marker),
        ),
        (
            "escape-fixture",
            npm_tarball(
                "escape-fixture",
                &escape_server(&work.path().join("host/planted"), &home),
                &marker,
            ),
        ),
        // Starts a process every 10 ms and never answers.
        (
            "fork-fixture",
            npm_tarball(
                "fork-fixture",
                "const { spawn } = require('child_process');\n\
                 setInterval(() => { try { spawn('sleep', ['30'], { stdio: 'ignore' }); } catch (e) {} }, 10);\n",
                &marker,
            ),
        ),
        // Maps heap until it is refused.
        (
            "memory-fixture",
            npm_tarball(
                "memory-fixture",
                "const held = [];\n\
                 try { for (;;) held.push(Buffer.allocUnsafe(64 << 20)); }\n\
                 catch (e) { console.error(String(e)); process.exit(6); }\n",
                &marker,
            ),
        ),
        (
            "stdout-flood-fixture",
            npm_tarball("stdout-flood-fixture", &flood("stdout"), &marker),
        ),
        (
            "stderr-flood-fixture",
            npm_tarball("stderr-flood-fixture", &flood("stderr"), &marker),
        ),
        (
            "network-fixture",
            npm_tarball(
                "network-fixture",
                "console.log('connecting to registry.example.com');\n\
                 require('dns').lookup('registry.example.com', (err) => {\n\
                 console.error('starting');\n\
                 console.error(String(err));\n\
                 process.exit(4);\n});\n",
                &marker,
            ),
        ),
        (
            "socket-fixture",
            npm_tarball(
                "socket-fixture",
                &js_server(&json!([{"name": "reached", "inputSchema": {}}]), Some(port)),
                &marker,
            ),
        ),
        // Exits unless its key is set and its port is a number, as servers that check
        // their configuration at start do; lists tools named after both.
        (
            "needy-fixture",
            npm_tarball(
                "needy-fixture",
                &format!(
                    "if (!process.env.API_KEY) {{ console.error('API_KEY is required'); process.exit(1); }}\n\
                     if (!/^[0-9]+$/.test(process.env.PORT || '')) {{ console.error('PORT must be a number'); process.exit(1); }}\n{}",
                    js_serving(
                        r#"[{ name: "key_" + process.env.API_KEY, inputSchema: {} },
                            { name: "port_" + process.env.PORT, inputSchema: {} }]"#,
                        None
                    )
                ),
                &marker,
            ),
        ),
    ]
    .into_iter()
    .collect();
    let pypi = pypi_files(work.path(), &py_tools());
    let wheel_sha = sha256_hex(&pypi.wheels["hintpy"][0].2);
    let registry = {
        let tarballs = tarballs.clone();
        let base = Arc::new(std::sync::Mutex::new(String::new()));
        let at = base.clone();
        let server = Loopback::start(move |request| {
            let base = at.lock().unwrap().clone();
            let path = request.url.trim_start_matches('/');
            if let Some(name) = path.strip_prefix("npm/") {
                if let Some(file) = name.strip_suffix("-1.0.0.tgz") {
                    return reply(200, tarballs[file].clone());
                }
                let Some(tgz) = tarballs.get(name) else {
                    return reply(404, "{}");
                };
                let shasum = format!("{:x}", sha1_checked::Sha1::digest(tgz));
                let packument = json!({"name": name, "dist-tags": {"latest": "1.0.0"},
                    "time": {"created": PUBLISHED, "modified": PUBLISHED, "1.0.0": PUBLISHED},
                    "versions": {"1.0.0": {"name": name, "version": "1.0.0",
                        "bin": {name: "server.js"}, "hasInstallScript": true,
                        "dist": {"tarball": format!("{base}/npm/{name}-1.0.0.tgz"),
                                 "shasum": shasum}}}});
                return reply(200, packument.to_string());
            }
            pypi_answer(&pypi, &base, request).unwrap_or_else(|| reply(404, "not here"))
        });
        *base.lock().unwrap() = server.url();
        server
    };

    // The registry page: what corpus registry --packages turns into the servers file.
    let page = json!({"servers": [
        entry("io.github.fixture/hinted", npm("hinted-fixture")),
        entry("io.github.fixture/socket", npm("socket-fixture")),
        entry("io.github.fixture/network", npm("network-fixture")),
        entry("io.github.fixture/escape", npm("escape-fixture")),
        entry("io.github.fixture/fork", npm("fork-fixture")),
        entry("io.github.fixture/memory", npm("memory-fixture")),
        entry("io.github.fixture/stdout-flood", npm("stdout-flood-fixture")),
        entry("io.github.fixture/stderr-flood", npm("stderr-flood-fixture")),
        entry("io.github.fixture/secret", {
            let mut p = npm("hinted-fixture");
            p["environmentVariables"] = json!([
                {"name": "API_TOKEN", "isRequired": true, "isSecret": true},
                {"name": "LOG_LEVEL", "default": "info"}]);
            p
        }),
        entry("io.github.fixture/needy", {
            let mut p = npm("needy-fixture");
            p["environmentVariables"] = json!([
                {"name": "API_KEY", "isRequired": true, "isSecret": true},
                {"name": "PORT", "isRequired": true, "format": "number"}]);
            p
        }),
        entry("io.github.fixture/py", json!({"registryType": "pypi", "identifier": "hintpy",
            "version": "1.0.0", "runtimeHint": "uvx", "transport": {"type": "stdio"}})),
        entry("io.github.fixture/sdist", json!({"registryType": "pypi", "identifier": "sdistonly",
            "version": "1.0.0", "transport": {"type": "stdio"}})),
    ]});
    std::fs::write(work.path().join("page.json"), page.to_string()).unwrap();
    let built = Run::new(work.path())
        .args([
            "corpus",
            "registry",
            "--pages",
            "page.json",
            "--out",
            "c.toml",
        ])
        .args(["--packages", "servers.toml", "--date", DATE])
        .output();
    let text = std::fs::read_to_string(work.path().join("servers.toml"))
        .unwrap_or_else(|_| panic!("no servers file\n{}", show(&built)));
    assert!(
        text.contains(
            "name = \"io.github.fixture/secret\"\nregistry_name = \"io.github.fixture/secret\"\n\
             package = { registry = \"npm\", name = \"hinted-fixture\", version = \"1.0.0\" }\n\
             env = { \"API_TOKEN\" = \"placeholder\", \"LOG_LEVEL\" = \"info\" }\n\
             placeholders = [\"API_TOKEN\"]\n"
        ),
        "{text}"
    );

    // A census of the hinted server's source, by hand: `read` and `write` as the wire
    // lists them, `gone` defined but not listed; the wire's `bare` is not in it.
    std::fs::write(
        work.path().join(format!("census-{DATE}.csv")),
        format!(
            "repo,pinned,subfolder,server,commit,tools,status,error\n\
         fixture/hinted,v1,,io.github.fixture/hinted,{COMMIT},3,ok,\n"
        ),
    )
    .unwrap();
    std::fs::write(
        work.path().join(format!("tools-{DATE}.csv")),
        "repo,pinned,subfolder,path,line,kind,role,sdk,tool,readOnlyHint,destructiveHint,idempotentHint,openWorldHint\n\
         fixture/hinted,v1,,src/index.ts,3,tool,source,typescript,read,true,false,true,false\n\
         fixture/hinted,v1,,src/index.ts,9,tool,source,typescript,write,false,,,\n\
         fixture/hinted,v1,,src/index.ts,12,tool,source,typescript,gone,,,,\n",
    )
    .unwrap();

    // The corpus commit of a server, as the servers file may carry it.
    let text = text.replace(
        "registry_name = \"io.github.fixture/hinted\"\n",
        &format!("registry_name = \"io.github.fixture/hinted\"\ncommit = \"{COMMIT}\"\n"),
    );
    std::fs::write(work.path().join("servers.toml"), &text).unwrap();

    let npm_cache = work.path().join("npm-cache");
    let probe = |file: &str, extra: &[&str], out: &str| {
        let mut run = Run::new(work.path())
            .args([
                "probe",
                "--servers",
                file,
                "--date",
                DATE,
                "--cache",
                "cache",
            ])
            .args(["--out", out, "--timeout", "20", "-j", "2"])
            .args(extra)
            .env("npm_config_registry", format!("{}/npm/", registry.url()))
            .env("npm_config_cache", &npm_cache)
            .env("PIP_INDEX_URL", format!("{}/simple", registry.url()))
            .env("PIP_CONFIG_FILE", "/dev/null")
            // pip installs here, as where uv is not installed; the uv test is below.
            .env("PATH", path_without_uv());
        run.command().env_remove("PIP_FIND_LINKS");
        run.output()
    };
    let out = probe(
        "servers.toml",
        &["--source-table", &format!("census-{DATE}.csv")],
        "results",
    );
    assert_code(&out, 1);
    // Without uv, said once at the start, with what it costs and how to install it.
    assert_eq!(
        stderr(&out)
            .matches("uv is not on PATH: PyPI packages are installed with pip")
            .count(),
        1,
        "{}",
        show(&out)
    );
    assert!(stderr(&out).contains("`pip install uv`"), "{}", show(&out));
    let table = servers_table(&work.path().join(format!("results/wire-{DATE}-servers.csv")));
    let cell = |server: &str, column: &str| table[server][column].clone();
    let summary = |server: &str| {
        [
            "outcome",
            "package_version",
            "tools",
            "tools_every_meaningful_hint",
            "tools_some_hints",
            "tools_no_hint",
        ]
        .map(|c| cell(server, c))
    };
    assert_eq!(
        summary("io.github.fixture/hinted"),
        ["listed", "1.0.0", "3", "1", "1", "1"],
        "{}",
        show(&out)
    );
    assert_eq!(
        summary("io.github.fixture/py"),
        ["listed", "1.0.0", "1", "1", "0", "0"],
        "{}",
        show(&out)
    );
    assert_eq!(
        cell("io.github.fixture/py", "artifact"),
        format!("sha256:{wheel_sha}")
    );
    // A required variable the entry gives no value is given a placeholder, and a
    // server that checks its configuration at start lists with it.
    assert_eq!(
        cell("io.github.fixture/secret", "outcome"),
        "listed with placeholders"
    );
    assert_eq!(
        cell("io.github.fixture/secret", "placeholders"),
        "API_TOKEN"
    );
    assert_eq!(
        [
            cell("io.github.fixture/needy", "outcome"),
            cell("io.github.fixture/needy", "placeholders")
        ],
        ["listed with placeholders", "API_KEY; PORT"],
        "{}",
        show(&out)
    );
    let wire = read_csv(&work.path().join(format!("results/wire-{DATE}.csv")));
    let tool = wire[0].iter().position(|c| c == "tool").unwrap();
    let needy: Vec<&str> = wire[1..]
        .iter()
        .filter(|row| row[0] == "io.github.fixture/needy")
        .map(|row| row[tool].as_str())
        .collect();
    assert_eq!(needy, ["key_placeholder", "port_1"]);
    let md = std::fs::read_to_string(work.path().join(format!("results/wire-{DATE}.md"))).unwrap();
    assert!(
        md.contains("| listed with placeholders | 2 | 0 | 2 |"),
        "{md}"
    );
    assert_eq!(cell("io.github.fixture/sdist", "outcome"), "no wheel");
    assert_eq!(cell("io.github.fixture/hinted", "commit"), COMMIT);
    // npm resolved as of the version's publish time, and the resolution is kept beside
    // the row under its sha256.
    assert_eq!(cell("io.github.fixture/hinted", "before"), PUBLISHED);
    // Without uv, pip resolved the PyPI package on the day, and the row says so: the
    // dependency is its latest release, uploaded after the package.
    assert_eq!(cell("io.github.fixture/py", "before"), "");
    assert_eq!(
        cell("io.github.fixture/py", "before_note"),
        "uv is not installed: pip resolved the dependencies on the day"
    );
    assert_eq!(cell("io.github.fixture/hinted", "before_note"), "");
    let lock = |server: &str, extension: &str| {
        let cell = cell(server, "lock");
        let hex = cell
            .strip_prefix("sha256:")
            .unwrap_or_else(|| panic!("{server}: '{cell}'"));
        let path = work
            .path()
            .join(format!("results/wire-{DATE}-locks/{hex}.{extension}"));
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        use sha2::Digest as _;
        assert_eq!(format!("{:x}", sha2::Sha256::digest(&bytes)), hex);
        String::from_utf8(bytes).unwrap()
    };
    let npm_lock = lock("io.github.fixture/hinted", "json");
    assert!(
        npm_lock.contains("\"node_modules/hinted-fixture\""),
        "{npm_lock}"
    );
    assert!(!npm_lock.contains(".partial-"), "{npm_lock}");
    assert_eq!(
        lock("io.github.fixture/py", "txt"),
        "hintdep==2.0.0\nhintpy==1.0.0\n"
    );
    assert_eq!(
        cell("io.github.fixture/hinted", "stdout_lines_skipped"),
        "0"
    );
    assert_eq!(
        cell("io.github.fixture/secret", "stdout_lines_skipped"),
        "0"
    );
    // The server that looks a name up cannot in the sandbox: it needs the network,
    // the line that says so is its cause, and its banner on stdout was skipped.
    assert_eq!(
        [
            cell("io.github.fixture/network", "outcome"),
            cell("io.github.fixture/network", "stdout_lines_skipped")
        ],
        ["needs network", "1"],
        "{}",
        show(&out)
    );
    let cause = cell("io.github.fixture/network", "cause");
    assert!(
        cause.starts_with("Error: getaddrinfo E") && cause.ends_with(" registry.example.com"),
        "{cause}"
    );
    // The socket server could not reach the host's loopback, and said so.
    assert_eq!(
        cell("io.github.fixture/socket", "outcome"),
        "exited",
        "{}",
        show(&out)
    );
    assert!(
        cell("io.github.fixture/socket", "error").contains("connect failed: ECONNREFUSED"),
        "{}",
        cell("io.github.fixture/socket", "error")
    );
    assert_eq!(reached.load(Ordering::SeqCst), 0);
    // No install script ran, and the per-tool table keeps its rows.
    assert!(!marker.exists(), "an install script ran");
    let tools = read_csv(&work.path().join(format!("results/wire-{DATE}.csv")));
    let hinted: Vec<&str> = tools
        .iter()
        .filter(|r| r[0] == "io.github.fixture/hinted")
        .map(|r| r[4].as_str())
        .collect();
    assert_eq!(hinted, ["read", "write", "bare"]);
    // The join of the wire to the census, as written by hand.
    let join = read_csv(&work.path().join(format!("results/join-{DATE}.csv")));
    let hinted = format!(
        "io.github.fixture/hinted,io.github.fixture/hinted,npm,hinted-fixture,1.0.0,{},fixture/hinted,v1,,{COMMIT},joined",
        cell("io.github.fixture/hinted", "artifact")
    );
    let agree = |v: &str| format!("{v},{v},agrees");
    let expected = [
        format!("{hinted},bare,wire only,,,,absent,,,absent,,,absent,,,absent,"),
        format!("{hinted},gone,source only,src/index.ts,12,absent,,,absent,,,absent,,,absent,,"),
        format!(
            "{hinted},read,both,src/index.ts,3,{},{},{},{}",
            agree("true"),
            agree("false"),
            agree("true"),
            agree("false")
        ),
        format!(
            "{hinted},write,both,src/index.ts,9,{},{},{},{}",
            agree("false"),
            agree("absent"),
            agree("absent"),
            agree("absent")
        ),
    ];
    let got: Vec<String> = join
        .iter()
        .filter(|r| r[0] == "io.github.fixture/hinted")
        .map(|r| r.join(","))
        .collect();
    assert_eq!(got, expected, "{}", show(&out));
    // Joined again from the tables alone, without probing: the same bytes.
    let rejoined = Run::new(work.path())
        .args(["join", &format!("results/wire-{DATE}.csv")])
        .args(["--source-table", &format!("tools-{DATE}.csv")])
        .args(["--out", "rejoined"])
        .output();
    assert_code(&rejoined, 0);
    let bytes = |path: String| {
        std::fs::read(work.path().join(&path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    assert!(
        bytes(format!("rejoined/join-{DATE}.csv")) == bytes(format!("results/join-{DATE}.csv")),
        "{}",
        show(&rejoined)
    );
    let section = String::from_utf8(bytes(format!("rejoined/join-{DATE}.md"))).unwrap();
    assert!(section.contains("\n## Source and wire\n"), "{section}");
    let link = |server: &str| {
        let rows: Vec<&Vec<String>> = join.iter().filter(|r| r[0] == server).collect();
        assert_eq!(rows.len(), 1, "{server}: {rows:?}");
        rows[0][10].clone()
    };
    assert_eq!(link("io.github.fixture/py"), "no census row");
    assert_eq!(link("io.github.fixture/escape"), "no census row");
    assert_eq!(link("io.github.fixture/socket"), "not listed");
    assert_eq!(join.len(), 1 + 4 + 11);
    let report =
        std::fs::read_to_string(work.path().join(format!("results/wire-{DATE}.md"))).unwrap();
    assert!(
        report.contains("only on the wire, which the source census could not see: 1 (33.3%)"),
        "{report}"
    );
    // It opens with the outcomes per registry, counted here from the servers table,
    // and the share listed of the servers that could run (all but those needing
    // configuration).
    let table = servers_table(&work.path().join(format!("results/wire-{DATE}-servers.csv")));
    let tally = |registry: &str, keep: &dyn Fn(&str) -> bool| {
        table
            .values()
            .filter(|r| r["package_registry"] == registry && keep(&r["outcome"]))
            .count()
    };
    let could = |o: &str| o != "needs configuration";
    // Listed with placeholders or without.
    let listed = |o: &str| o.starts_with("listed");
    let (npm_listed, npm_could) = (tally("npm", &listed), tally("npm", &could));
    let (py_listed, py_could) = (tally("pypi", &listed), tally("pypi", &could));
    assert!(npm_listed > 0 && py_listed > 0 && npm_could > npm_listed);
    let share = |k: usize, n: usize| format!("{k} of {n} ({}%)", (k * 100 + n / 2) / n);
    let plain = |registry: &str| tally(registry, &|o| o == "listed");
    let listed_row = format!(
        "| listed | {} | {} | {} |",
        plain("npm"),
        plain("pypi"),
        plain("npm") + plain("pypi")
    );
    let share_row = format!(
        "| **listed, of those that could run** | {} | {} | {} |",
        share(npm_listed, npm_could),
        share(py_listed, py_could),
        share(npm_listed + py_listed, npm_could + py_could)
    );
    let opening = report.split("## Servers").next().unwrap();
    assert!(
        opening.contains("| outcome | npm | PyPI | all |")
            && opening.contains(&listed_row)
            && opening.contains(&share_row),
        "expected\n{listed_row}\n{share_row}\ngot\n{report}"
    );

    // With --no-placeholders, a server the file gives placeholders is never installed
    // or run: its package is not even asked for, and its row says what it needs.
    let needy: String = text
        .split_inclusive("\n\n")
        .filter(|block| !block.contains("[[server]]") || block.contains("fixture/needy\""))
        .collect();
    std::fs::write(work.path().join("needy.toml"), &needy).unwrap();
    let before = registry.seen().len();
    let refused = probe("needy.toml", &["--no-placeholders"], "refused");
    assert_code(&refused, 1);
    let asked: Vec<String> = registry.seen()[before..]
        .iter()
        .map(|r| r.url.clone())
        .collect();
    assert!(asked.is_empty(), "{asked:#?}");
    let refused = servers_table(&work.path().join(format!("refused/wire-{DATE}-servers.csv")));
    assert_eq!(
        [
            refused["io.github.fixture/needy"]["outcome"].as_str(),
            refused["io.github.fixture/needy"]["error"].as_str()
        ],
        [
            "needs configuration",
            "needs API_KEY, PORT (the file gives placeholders, and --no-placeholders was given)"
        ]
    );

    // Each way out of the sandbox was closed, and its row says how.
    let escaped: Vec<&str> = tools
        .iter()
        .filter(|r| r[0] == "io.github.fixture/escape")
        .map(|r| r[4].as_str())
        .collect();
    assert_eq!(
        escaped,
        [
            "beside=done",
            "prefix=EROFS",
            "etc=EROFS",
            "host=ENOENT",
            "home=private",
            "file=EFBIG",
            "fill=done+done+ENOSPC",
        ],
        "{}",
        show(&out)
    );
    assert!(!work.path().join("host/planted").exists());
    let ended = |server: &str| [cell(server, "outcome"), cell(server, "error")];
    let [outcome, error] = ended("io.github.fixture/fork");
    assert_eq!(outcome, "too many processes", "{error}");
    assert!(error.contains("more than 64 processes"), "{error}");
    let [outcome, error] = ended("io.github.fixture/memory");
    assert_eq!(outcome, "exited", "{error}");
    assert_eq!(
        cell("io.github.fixture/memory", "cause"),
        "RangeError: Array buffer allocation failed"
    );
    let [outcome, error] = ended("io.github.fixture/stdout-flood");
    assert_eq!(outcome, "too much output", "{error}");
    assert!(error.contains("more than 16 MiB on stdout"), "{error}");
    let skipped: usize = cell("io.github.fixture/stdout-flood", "stdout_lines_skipped")
        .parse()
        .unwrap();
    assert!(skipped > 10_000, "{skipped}");
    let [outcome, error] = ended("io.github.fixture/stderr-flood");
    assert_eq!(outcome, "too much output", "{error}");
    // Stopped by the probe, or exited of the closed pipe first: either way past the bound.
    assert!(error.contains("more than 16 MiB on stderr"), "{error}");

    // Split into shards and merged, a survey of the packages whose runs give the
    // same bytes every time is one run's: tables, summary with its join, and locks.
    let kept =
        ["hinted", "py", "secret", "sdist"].map(|n| format!("name = \"io.github.fixture/{n}\"\n"));
    let subset: String = text
        .split_inclusive("\n\n")
        .filter(|block| {
            !block.contains("[[server]]") || kept.iter().any(|k| block.contains(k.as_str()))
        })
        .collect();
    assert_eq!(subset.matches("[[server]]").count(), 4, "{subset}");
    std::fs::write(work.path().join("subset.toml"), &subset).unwrap();
    let source = ["--source-table", &format!("census-{DATE}.csv")];
    let one = probe("subset.toml", &source, "subset-one");
    assert_code(&one, 1);
    let mut tables = Vec::new();
    for k in 1..=3 {
        let out = probe(
            "subset.toml",
            &[&source[..], &["--shard", &format!("{k}/3")]].concat(),
            &format!("subset-{k}"),
        );
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", show(&out));
        tables.push(format!("subset-{k}/wire-{DATE}.csv"));
    }
    let merged = Run::new(work.path())
        .args([
            "merge",
            "--servers",
            "subset.toml",
            "--out",
            "subset-merged",
        ])
        .args(source)
        .args(&tables)
        .output();
    assert_code(&merged, 1);
    let listing = |dir: &str| -> Vec<(String, Vec<u8>)> {
        let mut files = Vec::new();
        for sub in ["", &format!("wire-{DATE}-locks")] {
            let at = work.path().join(dir).join(sub);
            for entry in std::fs::read_dir(&at).unwrap() {
                let entry = entry.unwrap();
                if entry.file_type().unwrap().is_file() {
                    let name = format!("{sub}/{}", entry.file_name().to_string_lossy());
                    files.push((name, std::fs::read(entry.path()).unwrap()));
                }
            }
        }
        files.sort();
        files
    };
    let (one, merged) = (listing("subset-one"), listing("subset-merged"));
    let names: Vec<&str> = one.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.len(), 6, "{names:?}");
    assert!(
        names.iter().filter(|n| n.contains("-locks/")).count() == 2,
        "{names:?}"
    );
    assert!(
        one == merged,
        "{names:?} vs {:?}",
        merged.iter().map(|(n, _)| n).collect::<Vec<_>>()
    );

    // Outside the sandbox, given the flag, the same package reaches the listener:
    // the sandbox, not the fixture, kept it out. Only that package runs there: the
    // others would reach the network or the host.
    std::fs::write(
        work.path().join("trusted.toml"),
        "[[server]]\nname = \"io.github.fixture/socket\"\n\
         package = { registry = \"npm\", name = \"socket-fixture\", version = \"1.0.0\" }\n",
    )
    .unwrap();
    let out = probe(
        "trusted.toml",
        &["--no-sandbox-i-trust-these-packages"],
        "trusted",
    );
    let table = servers_table(&work.path().join(format!("trusted/wire-{DATE}-servers.csv")));
    assert_eq!(
        table["io.github.fixture/socket"]["outcome"],
        "listed",
        "{}",
        show(&out)
    );
    assert!(reached.load(Ordering::SeqCst) >= 1);
}

#[test]
fn without_bwrap_registry_packages_are_refused_naming_the_package_to_install() {
    let work = tempfile::tempdir().unwrap();
    std::fs::write(
        work.path().join("servers.toml"),
        "[[server]]\nname = \"p\"\npackage = { registry = \"npm\", name = \"x\", version = \"1.0.0\" }\n",
    )
    .unwrap();
    let out = Run::new(work.path())
        .args([
            "probe",
            "--servers",
            "servers.toml",
            "--date",
            DATE,
            "--cache",
            "cache",
        ])
        .env("PATH", "/nonexistent")
        .output();
    assert_code(&out, 2);
    let err = stderr(&out);
    assert!(err.contains("apt-get install bubblewrap"), "{err}");
    assert!(err.contains("--no-sandbox-i-trust-these-packages"), "{err}");
    assert!(!work.path().join("cache").exists(), "nothing is installed");
}

#[test]
fn pypi_packages_resolve_with_uv_as_of_the_release_upload_time() {
    let Some(uv) = sandbox_and_uv() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let bin = work.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(&uv, bin.join("uv")).unwrap();
    let mut pypi = pypi_files(work.path(), &py_tools());
    let wheel_sha = sha256_hex(&pypi.wheels["hintpy"][0].2);
    // The Python the probe must choose for hintpy: the one `python3` is, as it says.
    let python3 = std::process::Command::new("python3")
        .args(["-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"])
        .env("PATH", path_without_uv())
        .output()
        .expect("python3 runs");
    let python3 = String::from_utf8_lossy(&python3.stdout).trim().to_string();
    let minor = python3.rsplit_once('.').unwrap().0.to_string();
    pypi.requires
        .insert("hintpy".to_string(), format!("=={minor}.*"));
    let base = Arc::new(std::sync::Mutex::new(String::new()));
    let index = {
        let at = base.clone();
        Loopback::start(move |request| {
            let base = at.lock().unwrap().clone();
            pypi_answer(&pypi, &base, request).unwrap_or_else(|| reply(404, "not here"))
        })
    };
    *base.lock().unwrap() = index.url();
    std::fs::write(
        work.path().join("servers.toml"),
        "[[server]]\nname = \"py\"\n\
         package = { registry = \"pypi\", name = \"hintpy\", version = \"1.0.0\" }\n\
         [[server]]\nname = \"nojson\"\n\
         package = { registry = \"pypi\", name = \"hintnojson\", version = \"1.0.0\" }\n\
         [[server]]\nname = \"jsonapi\"\n\
         package = { registry = \"pypi\", name = \"hintjsonapi\", version = \"1.0.0\" }\n\
         [[server]]\nname = \"future\"\n\
         package = { registry = \"pypi\", name = \"hintfuture\", version = \"1.0.0\" }\n\
         [[server]]\nname = \"sdist\"\n\
         package = { registry = \"pypi\", name = \"sdistonly\", version = \"1.0.0\" }\n",
    )
    .unwrap();
    let probe = |extra: &[&str], dir: &str| {
        let mut run = Run::new(work.path())
            .args(["probe", "--servers", "servers.toml", "--date", DATE])
            .args(["--cache", "cache", "--out", dir, "--timeout", "20"])
            .args(extra)
            .env("PIP_INDEX_URL", format!("{}/simple", index.url()))
            .env("PIP_CONFIG_FILE", "/dev/null")
            .env("UV_CACHE_DIR", work.path().join("uv-cache"))
            .env("PATH", format!("{}:{}", bin.display(), path_without_uv()));
        for name in [
            "UV_INDEX_URL",
            "UV_DEFAULT_INDEX",
            "UV_EXCLUDE_NEWER",
            "PIP_FIND_LINKS",
        ] {
            run.command().env_remove(name);
        }
        let out = run.output();
        let table = servers_table(&work.path().join(format!("{dir}/wire-{DATE}-servers.csv")));
        (out, table)
    };
    let lock = |out: &str, cell: &str| {
        let hex = cell
            .strip_prefix("sha256:")
            .unwrap_or_else(|| panic!("'{cell}'"));
        std::fs::read_to_string(
            work.path()
                .join(format!("{out}/wire-{DATE}-locks/{hex}.txt")),
        )
        .unwrap()
    };

    // As of the release's upload time: the dependency's release uploaded later is
    // not installed.
    let (out, table) = probe(&[], "dated");
    assert_code(&out, 1);
    let py = &table["py"];
    assert_eq!(py["outcome"], "listed", "{}", show(&out));
    assert_eq!(py["tools"], "1");
    assert_eq!(
        [py["before"].as_str(), py["before_note"].as_str()],
        [UPLOADED, ""]
    );
    assert_eq!(py["artifact"], format!("sha256:{wheel_sha}"));
    assert_eq!(
        lock("dated", &py["lock"]),
        "hintdep==1.0.0\nhintpy==1.0.0\n"
    );
    // Its upload time came from the Simple API: the JSON API was not asked.
    assert_eq!(index.hits("/pypi/hintpy/1.0.0/json"), 0);
    // The Python its Requires-Python admits (python3's minor version, of which the
    // newest micro on PATH), and the table says which.
    assert!(
        py["python"].starts_with(&format!("{minor}.")),
        "{minor}: {}",
        show(&out)
    );
    // Where the Simple API gives no upload time, PyPI's JSON API is asked; uv leaves
    // out every file without one under --exclude-newer, so the release is resolved
    // on the day, the row saying when the JSON API says it was uploaded.
    let jsonapi = &table["jsonapi"];
    assert_eq!(jsonapi["outcome"], "listed", "{}", show(&out));
    assert_eq!(jsonapi["before"], "");
    let note = &jsonapi["before_note"];
    assert!(
        note.contains("the index's Simple API gives no upload time (PEP 700)")
            && note.contains(&format!("its JSON API says it was uploaded at {UPLOADED}"))
            && note.ends_with("uv resolved the dependencies on the day"),
        "{note}"
    );
    assert_eq!(
        lock("dated", &jsonapi["lock"]),
        "hintdep==2.0.0\nhintjsonapi==1.0.0\n"
    );
    assert_eq!(index.hits("/pypi/hintjsonapi/1.0.0/json"), 1);
    // Where neither says when it was uploaded, the row says so and uv resolved it on
    // the day.
    let nojson = &table["nojson"];
    assert_eq!(nojson["outcome"], "listed", "{}", show(&out));
    assert_eq!(nojson["before"], "");
    let note = &nojson["before_note"];
    assert!(
        note.contains("the index's Simple API gives no upload time (PEP 700)")
            && note.contains("/pypi/hintnojson/1.0.0/json: HTTP 404")
            && note.ends_with("uv resolved the dependencies on the day"),
        "{note}"
    );
    // A release needing a Python the machine lacks is not installed.
    let future = &table["future"];
    assert_eq!(future["outcome"], "no python", "{}", show(&out));
    assert!(
        future["error"].starts_with("hintfuture==1.0.0 needs Python >=3.99; this machine has ")
            && future["error"].contains(&format!("{minor}.")),
        "{}",
        future["error"]
    );
    assert!(!work.path().join("cache/pypi/hintfuture@1.0.0").exists());
    assert_eq!(
        lock("dated", &nojson["lock"]),
        "hintdep==2.0.0\nhintnojson==1.0.0\n"
    );
    // uv builds no sdist.
    assert_eq!(table["sdist"]["outcome"], "no wheel", "{}", show(&out));

    // --before holds for PyPI too.
    let (out, table) = probe(&["--before", "2026-07-01"], "before");
    let py = &table["py"];
    assert_eq!(py["outcome"], "listed", "{}", show(&out));
    assert_eq!(
        [py["before"].as_str(), py["before_note"].as_str()],
        ["2026-07-01", ""]
    );
    assert_eq!(
        lock("before", &py["lock"]),
        "hintdep==2.0.0\nhintpy==1.0.0\n"
    );
}

#[test]
fn join_reads_wire_tables_and_a_dated_census_without_probing() {
    let work = tempfile::tempdir().unwrap();
    let at = |name: &str, text: &str| std::fs::write(work.path().join(name), text).unwrap();
    at(
        &format!("wire-{DATE}-servers.csv"),
        "server,registry_name,repository,subfolder,package_registry,package,package_version,artifact,outcome\n\
         s,io.github.fixture/s,,,npm,s,1.0.0,sha512-x,listed\n",
    );
    at(
        &format!("wire-{DATE}.csv"),
        "server,tool,readOnlyHint,destructiveHint,idempotentHint,openWorldHint\n\
         s,read,true,absent,absent,absent\n",
    );
    at(
        "census-dated.csv",
        &format!(
            "repo,pinned,subfolder,as_of,server,commit,tools,status,error\n\
             fixture/s,v1,,2026-10-31,io.github.fixture/s,{COMMIT},1,ok,\n\
             fixture/s,v2,,{DATE},io.github.fixture/s,{},1,ok,\n\
             fixture/s,v3,,2026-12-31,io.github.fixture/s,{},1,ok,\n",
            "1".repeat(40),
            "2".repeat(40)
        ),
    );
    at(
        "tools-dated.csv",
        "repo,pinned,subfolder,as_of,path,line,kind,role,sdk,tool,readOnlyHint,destructiveHint,idempotentHint,openWorldHint\n\
         fixture/s,v1,,2026-10-31,a.ts,1,tool,source,typescript,read,false,,,\n\
         fixture/s,v2,,2026-11-30,a.ts,2,tool,source,typescript,read,true,,,\n",
    );
    let out = Run::new(work.path())
        .args([
            "join",
            &format!("wire-{DATE}.csv"),
            "--source-table",
            "census-dated.csv",
        ])
        .output();
    assert_code(&out, 0);
    let join = read_csv(&work.path().join(format!("join-{DATE}.csv")));
    // The census of the wire's own date, not the earlier one nor the later.
    assert_eq!(join.len(), 2, "{join:?}");
    assert_eq!(
        [
            &join[1][7],
            &join[1][9],
            &join[1][10],
            &join[1][11],
            &join[1][14]
        ],
        ["v2", &"1".repeat(40), "joined", "read", "2"],
        "{}",
        show(&out)
    );
    // A wire table not named as probe names it is refused, naming it.
    std::fs::copy(
        work.path().join(format!("wire-{DATE}.csv")),
        work.path().join("wire.csv"),
    )
    .unwrap();
    let out = Run::new(work.path())
        .args(["join", "wire.csv", "--source-table", "census-dated.csv"])
        .output();
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains("'wire.csv' is not named wire-DATE.csv"),
        "{}",
        show(&out)
    );
}

/// Returns `n` bytes no compressor shrinks (xorshift64), for a tarball of that size.
fn noise(n: usize) -> Vec<u8> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// Returns the number of regular files under `dir` and the bytes they take.
fn files_under(dir: &Path) -> (usize, u64) {
    let (mut files, mut bytes) = (0, 0);
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                stack.push(entry.path());
            } else if kind.is_file() {
                files += 1;
                bytes += entry.metadata().unwrap().len();
            }
        }
    }
    (files, bytes)
}

#[test]
fn installs_leave_the_cache_once_probed_and_a_full_disk_fails_only_its_server() {
    if !has_tools() {
        return skip("node, npm or python3 is not installed");
    }
    if !has_bwrap() {
        return skip("bwrap cannot run here (or knows no --size); apt-get install bubblewrap");
    }
    let work = tempfile::tempdir().unwrap();
    let marker = work.path().join("install-script-ran");
    let tools = json!([{"name": "t", "inputSchema": {}, "annotations": {"readOnlyHint": true}}]);
    let server = js_server(&tools, None);
    // 4 MiB that do not compress: more than the 3 MiB disk below holds.
    let big = {
        let manifest =
            json!({"name": "big-fixture", "version": "1.0.0", "bin": {"big-fixture": "server.js"}});
        targz(
            "package",
            None,
            &[
                Item::File("package.json".into(), manifest.to_string().into_bytes()),
                Item::File("server.js".into(), server.clone().into_bytes()),
                Item::File("blob.bin".into(), noise(4 << 20)),
            ],
        )
    };
    let tarballs: BTreeMap<&str, Vec<u8>> = [
        ("a-fixture", npm_tarball("a-fixture", &server, &marker)),
        ("big-fixture", big),
        ("c-fixture", npm_tarball("c-fixture", &server, &marker)),
    ]
    .into_iter()
    .collect();
    let pypi = pypi_files(work.path(), &py_tools());
    let base = Arc::new(std::sync::Mutex::new(String::new()));
    let registry = {
        let at = base.clone();
        Loopback::start(move |request| {
            let base = at.lock().unwrap().clone();
            let path = request.url.trim_start_matches('/');
            if let Some(name) = path.strip_prefix("npm/") {
                if let Some(file) = name.strip_suffix("-1.0.0.tgz") {
                    return reply(200, tarballs[file].clone());
                }
                let Some(tgz) = tarballs.get(name) else {
                    return reply(404, "{}");
                };
                let shasum = format!("{:x}", sha1_checked::Sha1::digest(tgz));
                let packument = json!({"name": name, "dist-tags": {"latest": "1.0.0"},
                    "time": {"1.0.0": PUBLISHED},
                    "versions": {"1.0.0": {"name": name, "version": "1.0.0",
                        "bin": {name: "server.js"},
                        "dist": {"tarball": format!("{base}/npm/{name}-1.0.0.tgz"),
                                 "shasum": shasum}}}});
                return reply(200, packument.to_string());
            }
            pypi_answer(&pypi, &base, request).unwrap_or_else(|| reply(404, "not here"))
        })
    };
    *base.lock().unwrap() = registry.url();
    let npm_entry = |name: &str| {
        format!("[[server]]\nname = \"{name}\"\npackage = {{ registry = \"npm\", name = \"{name}\", version = \"1.0.0\" }}\n\n")
    };
    std::fs::write(
        work.path().join("servers.toml"),
        npm_entry("a-fixture")
            + "[[server]]\nname = \"py\"\npackage = { registry = \"pypi\", name = \"hintpy\", version = \"1.0.0\" }\n\n",
    )
    .unwrap();
    std::fs::write(
        work.path().join("full.toml"),
        npm_entry("a-fixture") + &npm_entry("big-fixture") + &npm_entry("c-fixture"),
    )
    .unwrap();
    let cache = work.path().join("cache");
    let probe = |run: Run, file: &str, cache: &Path, out: &str, extra: &[&str]| {
        let mut run = run
            .args(["probe", "--servers", file, "--date", DATE, "-j", "1"])
            .arg("--cache")
            .arg(cache)
            .args(["--out", out, "--timeout", "20"])
            .args(extra)
            .env("npm_config_registry", format!("{}/npm/", registry.url()))
            .env("PIP_INDEX_URL", format!("{}/simple", registry.url()))
            .env("PIP_CONFIG_FILE", "/dev/null")
            .env("PATH", path_without_uv());
        run.command().env_remove("PIP_FIND_LINKS");
        run.output()
    };

    // Without --keep-installs, nothing of the installs or their downloads stays.
    let out = probe(Run::new(work.path()), "servers.toml", &cache, "one", &[]);
    assert_code(&out, 0);
    let table = servers_table(&work.path().join(format!("one/wire-{DATE}-servers.csv")));
    assert_eq!(table["a-fixture"]["outcome"], "listed", "{}", show(&out));
    assert_eq!(table["py"]["outcome"], "listed", "{}", show(&out));
    let (files, bytes) = files_under(&cache);
    assert_eq!(
        (files, bytes),
        (0, 0),
        "{:?}",
        std::fs::read_dir(&cache).unwrap().collect::<Vec<_>>()
    );
    assert!(bytes <= 256 << 20);
    // The locks stay with the tables.
    let (locks, _) = files_under(&work.path().join(format!("one/wire-{DATE}-locks")));
    assert_eq!(locks, 2);

    // With it, the installs and the run's downloads are kept, and reused.
    let kept = probe(
        Run::new(work.path()),
        "servers.toml",
        &cache,
        "kept",
        &["--keep-installs"],
    );
    assert_code(&kept, 0);
    assert!(cache
        .join("npm/a-fixture@1.0.0/node_modules/a-fixture")
        .is_dir());
    assert!(files_under(&cache.join("downloads/npm")).0 > 0);
    let asked = registry.seen().len();
    let again = probe(
        Run::new(work.path()),
        "servers.toml",
        &cache,
        "again",
        &["--keep-installs"],
    );
    assert_code(&again, 0);
    assert_eq!(
        registry.seen().len(),
        asked,
        "a kept install was fetched again"
    );
    for name in [
        format!("wire-{DATE}.csv"),
        format!("wire-{DATE}-servers.csv"),
    ] {
        assert!(
            std::fs::read(work.path().join("kept").join(&name)).unwrap()
                == std::fs::read(work.path().join("one").join(&name)).unwrap(),
            "{name}"
        );
    }

    // A disk that fills: the server whose install filled it fails naming the
    // folder, and the others list. The cache is a 3 MiB tmpfs of its own.
    let small = work.path().join("small");
    std::fs::create_dir(&small).unwrap();
    let bwrap = Run::of("bwrap", work.path())
        .arg("--dev-bind")
        .arg("/")
        .arg("/")
        .args(["--size", "3145728", "--tmpfs"])
        .arg(&small)
        .arg("--")
        .arg(crate::common::bin());
    let full = probe(
        bwrap,
        "full.toml",
        &small.join("cache"),
        "full",
        &["--no-sandbox-i-trust-these-packages"],
    );
    assert_code(&full, 1);
    let table = servers_table(&work.path().join(format!("full/wire-{DATE}-servers.csv")));
    assert_eq!(table["a-fixture"]["outcome"], "listed", "{}", show(&full));
    assert_eq!(table["c-fixture"]["outcome"], "listed", "{}", show(&full));
    assert_eq!(table["big-fixture"]["outcome"], "install failed");
    let error = &table["big-fixture"]["error"];
    // The cache folder is named as every row names it, the same on any machine.
    assert!(
        error.starts_with("the disk holding '{cache}' is full ("),
        "{error}"
    );
    // npm writes no log file whose path, new at each run, the row would quote.
    assert!(!error.contains("A complete log"), "{error}");
    assert!(!marker.exists(), "an install script ran");
}

/// Returns the bytes the loopback index serves as `files/NAME`, fetched here as
/// any client would, with no help from the test's own fixture.
fn index_file_size(index: &Loopback, name: &str) -> usize {
    let url = format!("{}/files/{name}", index.url());
    let out = Command::new("python3")
        .args([
            "-c",
            "import sys, urllib.request; print(len(urllib.request.urlopen(sys.argv[1]).read()))",
            &url,
        ])
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

/// Returns a PyPI index on loopback serving `files`.
fn pypi_index(files: PypiFiles) -> Loopback {
    let base = Arc::new(std::sync::Mutex::new(String::new()));
    let index = {
        let at = base.clone();
        Loopback::start(move |request| {
            let base = at.lock().unwrap().clone();
            pypi_answer(&files, &base, request).unwrap_or_else(|| reply(404, "not here"))
        })
    };
    *base.lock().unwrap() = index.url();
    index
}

/// Returns the version and executable `python3` reports.
fn python3() -> (String, std::path::PathBuf) {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sys; print('%d.%d.%d' % sys.version_info[:3], sys.executable)",
        ])
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let (version, executable) = text.split_once(' ').unwrap();
    (version.to_string(), executable.into())
}

/// A machine whose only Python of the version a release needs is in a pyenv tree,
/// not on PATH: the row says which and how to offer it, and with `--python` it is
/// used. The tree is a temporary PYENV_ROOT whose interpreter links to the real one.
#[test]
fn a_python_only_pyenv_has_is_named_then_offered_with_python() {
    if !has_tools() {
        return skip("node, npm or python3 is not installed");
    }
    if !has_bwrap() {
        return skip("bwrap cannot run here (or knows no --size); apt-get install bubblewrap");
    }
    let work = tempfile::tempdir().unwrap();
    let (version, real) = python3();
    let minor = version.rsplit_once('.').unwrap().0.to_string();
    let bin = work.path().join(format!("pyenv/versions/{version}/bin"));
    std::fs::create_dir_all(&bin).unwrap();
    let link = bin.join(format!("python{minor}"));
    std::os::unix::fs::symlink(&real, &link).unwrap();
    // PATH holds bwrap and no Python, nor uv.
    let path = work.path().join("path");
    std::fs::create_dir(&path).unwrap();
    let bwrap = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join("bwrap"))
        .find(|file| file.is_file())
        .unwrap();
    std::os::unix::fs::symlink(&bwrap, path.join("bwrap")).unwrap();
    let mut files = PypiFiles::default();
    files.wheels.insert(
        "hintpy".to_string(),
        vec![(
            "1.0.0".to_string(),
            UPLOADED.to_string(),
            wheel(work.path(), "hintpy", "1.0.0", &[], Some(&py_tools())),
        )],
    );
    files
        .requires
        .insert("hintpy".to_string(), format!("=={minor}.*"));
    let index = pypi_index(files);
    std::fs::write(
        work.path().join("servers.toml"),
        "[[server]]\nname = \"py\"\n\
         package = { registry = \"pypi\", name = \"hintpy\", version = \"1.0.0\" }\n",
    )
    .unwrap();
    let cache = work.path().join("cache");
    let probe = |extra: &[&std::ffi::OsStr], out: &str| {
        let mut run = Run::new(work.path())
            .args(["probe", "--servers", "servers.toml", "--date", DATE])
            .arg("--cache")
            .arg(&cache)
            .args(["--out", out, "--timeout", "20"])
            .args(extra)
            .env("PIP_INDEX_URL", format!("{}/simple", index.url()))
            .env("PIP_CONFIG_FILE", "/dev/null")
            .env("PYENV_ROOT", work.path().join("pyenv"))
            .env("UV_PYTHON_INSTALL_DIR", work.path().join("no-uv-pythons"))
            .env("PATH", &path);
        run.command().env_remove("PIP_FIND_LINKS");
        let output = run.output();
        let table = servers_table(&work.path().join(format!("{out}/wire-{DATE}-servers.csv")));
        (output, table)
    };

    let (out, table) = probe(&[], "off-path");
    assert_code(&out, 1);
    let py = &table["py"];
    assert_eq!(py["outcome"], "no python", "{}", show(&out));
    let offered = format!("{version} '{}'", link.display());
    assert!(
        py["error"].starts_with(&format!(
            "hintpy==1.0.0 needs Python =={minor}.*; no Python 3 on PATH; installed here but not offered: "
        )) && py["error"].contains(&offered)
            && py["error"].ends_with("(give --python PATH, or put its folder on PATH)"),
        "{}",
        py["error"]
    );
    // Said once at the start too.
    let said = stderr(&out);
    assert_eq!(
        said.matches("installed here but offered neither on PATH")
            .count(),
        1,
        "{said}"
    );
    assert!(said.contains(&offered), "{said}");
    assert_eq!(files_under(&cache), (0, 0), "a refused install left files");

    let (out, table) = probe(&["--python".as_ref(), link.as_os_str()], "offered");
    assert_code(&out, 0);
    let py = &table["py"];
    assert_eq!(py["outcome"], "listed", "{}", show(&out));
    assert_eq!(py["python"], version);
    assert_eq!(py["tools"], "1");
    assert_eq!(files_under(&cache), (0, 0));

    // A path that is no Python is refused before any server runs.
    let (out, _) = (
        Run::new(work.path())
            .args(["probe", "--servers", "servers.toml", "--date", DATE])
            .args(["--python", "/nowhere/python3.12", "--out", "refused"])
            .output(),
        (),
    );
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains("--python '/nowhere/python3.12' is not a CPython 3 interpreter"),
        "{}",
        show(&out)
    );
}

/// Of PyPI releases resolved with uv: one whose dependency had no wheel as of its
/// upload time is resolved on the day, the row saying why; of a wheel's scripts
/// `hintx` and `hintx-test`, the package `hintx_mcp` starts `hintx`; two scripts
/// neither named so are refused; a server binding `localhost` resolves it in the
/// sandbox; an install past --max-install-size is counted apart; and nothing of any
/// of them stays in the cache.
#[test]
fn pypi_rows_fall_back_to_the_day_choose_the_plain_script_and_leave_the_cache_empty() {
    let Some(uv) = sandbox_and_uv() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let bin = work.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(&uv, bin.join("uv")).unwrap();
    let tools = py_tools();
    let mut files = PypiFiles::default();
    let release = |name: &str, requires: &[&str]| {
        vec![(
            "1.0.0".to_string(),
            UPLOADED.to_string(),
            wheel(work.path(), name, "1.0.0", requires, Some(&tools)),
        )]
    };
    files.wheels.insert(
        "hintlate".to_string(),
        release("hintlate", &["hintwheelless"]),
    );
    for name in [
        "hintx_mcp",
        "hinttwo",
        "hintlocal",
        "hintbig",
        "hintbigquiet",
    ] {
        files.wheels.insert(name.to_string(), release(name, &[]));
    }
    // hintbigquiet's index page lists no sizes: only its install's end tells.
    files.no_size.push("hintbigquiet".to_string());
    // hintwheelless 1.0.0, uploaded with hintlate, is an sdist; 2.0.0, uploaded
    // later, a wheel.
    files.wheels.insert(
        "hintwheelless".to_string(),
        vec![(
            DEP_NEW.0.to_string(),
            DEP_NEW.1.to_string(),
            wheel(work.path(), "hintwheelless", DEP_NEW.0, &[], None),
        )],
    );
    files
        .sdists
        .insert("hintwheelless".to_string(), "1.0.0".to_string());
    let index = pypi_index(files);
    let mut servers = String::new();
    for (server, name) in [
        ("late", "hintlate"),
        ("x", "hintx_mcp"),
        ("two", "hinttwo"),
        ("local", "hintlocal"),
        ("big", "hintbig"),
        ("bigquiet", "hintbigquiet"),
    ] {
        servers.push_str(&format!(
            "[[server]]\nname = \"{server}\"\n\
             package = {{ registry = \"pypi\", name = \"{name}\", version = \"1.0.0\" }}\n\n"
        ));
    }
    std::fs::write(work.path().join("servers.toml"), servers).unwrap();
    let cache = work.path().join("cache");
    let mut run = Run::new(work.path())
        .args(["probe", "--servers", "servers.toml", "--date", DATE])
        .arg("--cache")
        .arg(&cache)
        // A venv of a small wheel takes less; one with a MiB more.
        .args([
            "--out",
            "out",
            "--timeout",
            "20",
            "--max-install-size",
            "768KiB",
        ])
        .env("PIP_INDEX_URL", format!("{}/simple", index.url()))
        .env("PIP_CONFIG_FILE", "/dev/null")
        .env("PATH", format!("{}:{}", bin.display(), path_without_uv()));
    for name in [
        "UV_INDEX_URL",
        "UV_DEFAULT_INDEX",
        "UV_EXCLUDE_NEWER",
        "PIP_FIND_LINKS",
    ] {
        run.command().env_remove(name);
    }
    let out = run.output();
    assert_code(&out, 1);
    let table = servers_table(&work.path().join(format!("out/wire-{DATE}-servers.csv")));
    let tools_of = |server: &str| -> Vec<String> {
        let rows = read_csv(&work.path().join(format!("out/wire-{DATE}.csv")));
        let tool = rows[0].iter().position(|c| c == "tool").unwrap();
        rows[1..]
            .iter()
            .filter(|row| row[0] == server)
            .map(|row| row[tool].clone())
            .collect()
    };

    // As of hintlate's upload only the sdist of its dependency stood: uv found no
    // solution, so it resolved on the day, and the row says so.
    let late = &table["late"];
    assert_eq!(late["outcome"], "listed", "{}", show(&out));
    assert_eq!(late["before"], "");
    let note = &late["before_note"];
    assert!(
        note.starts_with(&format!(
            "as of {UPLOADED}, No solution found when resolving dependencies: "
        )) && note.contains("hintwheelless==1.0.0 has no usable wheels")
            && note.ends_with(": uv resolved the dependencies on the day"),
        "{note}"
    );
    let lock = late["lock"].strip_prefix("sha256:").unwrap().to_string();
    assert_eq!(
        std::fs::read_to_string(
            work.path()
                .join(format!("out/wire-{DATE}-locks/{lock}.txt"))
        )
        .unwrap(),
        "hintlate==1.0.0\nhintwheelless==2.0.0\n"
    );
    // hintx, not hintx-test (which cannot start), is what runs.
    assert_eq!(table["x"]["outcome"], "listed", "{}", show(&out));
    assert_eq!(tools_of("x"), ["py_tool"]);
    let two = &table["two"];
    assert_eq!(two["outcome"], "install failed", "{}", show(&out));
    assert_eq!(
        two["error"],
        "hinttwo==1.0.0 declares the console scripts 'alpha', 'beta', none named after the \
         package; name one with program = \"...\" in the servers file"
    );
    // localhost resolves to the sandbox's own loopback.
    assert_eq!(table["local"]["outcome"], "listed", "{}", show(&out));
    assert_eq!(tools_of("local"), ["bound_127_0_0_1"]);
    // hintbig is refused from the size its index lists for its one wheel, the
    // bytes served here, before it is installed; hintbigquiet, whose index lists
    // no size, once its install ends.
    let big = &table["big"];
    assert_eq!(big["outcome"], "too large", "{}", show(&out));
    let listed = index_file_size(&index, "hintbig-1.0.0-py3-none-any.whl");
    assert!(listed > 786_432);
    assert_eq!(
        big["error"],
        format!(
            "its resolution's wheels take {listed} bytes compressed as the index lists \
             them (1 wheel), more than --max-install-size (786432 bytes), so it was not installed"
        )
    );
    let quiet = &table["bigquiet"];
    assert_eq!(quiet["outcome"], "too large", "{}", show(&out));
    assert!(
        quiet["error"].starts_with("the install takes ")
            && quiet["error"].ends_with("bytes, more than --max-install-size (786432 bytes)"),
        "{}",
        quiet["error"]
    );
    // The summary counts them apart.
    let md = std::fs::read_to_string(work.path().join(format!("out/wire-{DATE}.md"))).unwrap();
    assert!(md.contains("| too large | 2 | 2 |"), "{md}");
    assert!(md.contains("| install failed | 1 | 1 |"), "{md}");
    // Nothing stays: not the listed, nor the refused, nor the too large.
    assert_eq!(
        files_under(&cache),
        (0, 0),
        "{:?}",
        std::fs::read_dir(&cache).unwrap().collect::<Vec<_>>()
    );
}

/// Starts the server a `--write-commands` line names as the line says a replay does:
/// bwrap with the line's `launch_env` alone, the server's `env` (each value read from
/// the environment given by `secrets`) handed to it on descriptor `env_fd` as
/// `--clearenv` then `--setenv NAME VALUE`, NUL-terminated, and a hosts file of the
/// same bytes bound where the run's own was. Returns the tools its server lists, in a
/// plain JSON-RPC exchange.
fn replay(line: &Value, dir: &Path, secrets: &[(&str, &str)]) -> Value {
    let hosts = dir.join("hosts");
    let mut command: Vec<String> = serde_json::from_value(line["command"].clone()).unwrap();
    let sandbox = &line["sandbox"];
    std::fs::write(&hosts, sandbox["hosts"]["text"].as_str().unwrap()).unwrap();
    let old = sandbox["hosts"]["path"].as_str().unwrap();
    assert!(!Path::new(old).exists(), "the run's hosts file outlived it");
    for word in &mut command {
        if word == old {
            *word = hosts.display().to_string();
        }
    }
    // A fresh copy of each folder the run bound a copy of, writable, in its place.
    for (i, writable) in sandbox["writable"].as_array().unwrap().iter().enumerate() {
        let copy = dir.join(format!("writable-{i}"));
        let made = Command::new("cp")
            .arg("-a")
            .arg(writable["of"].as_str().unwrap())
            .arg(&copy)
            .status()
            .unwrap();
        assert!(made.success());
        let old = writable["copy"].as_str().unwrap();
        assert!(!Path::new(old).exists(), "the run's copy outlived it");
        for word in &mut command {
            if word == old {
                *word = copy.display().to_string();
            }
        }
    }
    let mut words = b"--clearenv\0".to_vec();
    for (name, value) in line["env"].as_object().unwrap() {
        let value = match value {
            Value::String(text) => text.clone(),
            named => {
                let (_, secret) = secrets
                    .iter()
                    .find(|(var, _)| named["env"] == *var)
                    .unwrap_or_else(|| panic!("no value for {named}"));
                format!("{}{secret}", named["prefix"].as_str().unwrap())
            }
        };
        for word in ["--setenv", name, &value] {
            words.extend_from_slice(word.as_bytes());
            words.push(0);
        }
    }
    let words_file = dir.join("replay-env");
    std::fs::write(&words_file, words).unwrap();
    let fd = sandbox["env_fd"].as_u64().unwrap();
    // A shell opens the words on the descriptor, then becomes bwrap.
    let mut child = Command::new("/bin/sh");
    child
        .arg("-c")
        .arg(format!("exec \"$@\" {fd}<\"$0\""))
        .arg(&words_file)
        .args(&command)
        .env_clear();
    for (name, value) in sandbox["launch_env"].as_object().unwrap() {
        child.env(name, value.as_str().unwrap());
    }
    // The server's stderr says the loader passed over a preload it cannot see.
    let mut child = child
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "replay", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ];
    let mut stdin = child.stdin.take().unwrap();
    for message in messages {
        std::io::Write::write_all(&mut stdin, format!("{message}\n").as_bytes()).unwrap();
    }
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(child.stdout.take().unwrap()));
    let tools = loop {
        let answer: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
        if answer["id"] == 2 {
            break answer["result"]["tools"].clone();
        }
    };
    drop(stdin);
    child.kill().unwrap();
    child.wait().unwrap();
    tools
}

#[test]
fn a_written_command_starts_the_server_the_survey_probed_and_names_its_secrets() {
    if !has_tools() {
        return skip("node, npm or python3 is not installed");
    }
    if !has_bwrap() {
        return skip("bwrap cannot run here (or knows no --size); apt-get install bubblewrap");
    }
    let work = tempfile::tempdir().unwrap();
    let marker = work.path().join("install-script-ran");
    // Its tools name what the sandbox gave it: the secret, the literal, the HOME and
    // the hosts file's first line.
    let server = js_serving(
        r#"[process.env.KEY, process.env.LEVEL, process.env.HOME,
            require("fs").readFileSync("/etc/hosts", "utf8").split("\n")[0]]
           .map((v, i) => ({ name: "t" + i + "_" + String(v).replace(/[^A-Za-z0-9]/g, "_"),
                             inputSchema: {},
                             annotations: { readOnlyHint: i % 2 === 0, openWorldHint: false } }))"#,
        None,
    );
    let registry = npm_registry("w-fixture", npm_tarball("w-fixture", &server, &marker));
    std::fs::write(
        work.path().join("servers.toml"),
        "[[server]]\nname = \"w\"\n\
         package = { registry = \"npm\", name = \"w-fixture\", version = \"1.0.0\" }\n\
         env = { LEVEL = \"info\", KEY = { env = \"MHC_TEST_KEY\", prefix = \"k-\" } }\n",
    )
    .unwrap();
    let secret = ("MHC_TEST_KEY", "s3cret");
    let probe = |out: &str, extra: &[&str]| {
        Run::new(work.path())
            .args(["probe", "--servers", "servers.toml", "--date", DATE])
            .args(["--cache", "cache", "--keep-installs", "--out", out])
            .args(extra)
            .env(secret.0, secret.1)
            .env("npm_config_registry", format!("{}/npm/", registry.url()))
            .output()
    };
    let out = probe("plain", &[]);
    assert_code(&out, 0);
    assert!(!work
        .path()
        .join(format!("plain/wire-{DATE}-commands.jsonl"))
        .exists());
    let out = probe("shown", &["--write-commands"]);
    assert_code(&out, 0);
    let path = work
        .path()
        .join(format!("shown/wire-{DATE}-commands.jsonl"));
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains(secret.1), "a secret was written: {text}");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{text}");
    assert_eq!(lines[0]["server"], "w");
    assert_eq!(
        lines[0]["env"]["KEY"],
        json!({"env": "MHC_TEST_KEY", "prefix": "k-"})
    );
    assert_eq!(lines[0]["sandbox"]["rlimits"]["fsize"], 64 << 20);
    let command = lines[0]["command"].as_array().unwrap();
    assert!(command[0].as_str().unwrap().ends_with("bwrap"), "{text}");

    // The server the line starts lists what the probe's table holds, as the probe
    // read it, from inside the same walls.
    let tools = replay(&lines[0], work.path(), &[secret]);
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "t0_k_s3cret",
            "t1_info",
            "t2__home_probe",
            "t3_127_0_0_1_localhost"
        ],
        "{}",
        show(&out)
    );
    let table = read_csv(&work.path().join(format!("shown/wire-{DATE}.csv")));
    let column = |name: &str| table[0].iter().position(|c| c == name).unwrap();
    let probed: Vec<(String, String, String)> = table[1..]
        .iter()
        .map(|row| {
            (
                row[column("tool")].clone(),
                row[column("readOnlyHint")].clone(),
                row[column("openWorldHint")].clone(),
            )
        })
        .collect();
    let replayed: Vec<(String, String, String)> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let hint = |h: &str| t["annotations"][h].as_bool().unwrap().to_string();
            (
                t["name"].as_str().unwrap().to_string(),
                hint("readOnlyHint"),
                hint("openWorldHint"),
            )
        })
        .collect();
    assert_eq!(probed, replayed);
    assert!(!marker.exists(), "an install script ran");
}

/// Returns a loopback npm registry serving `name`@1.0.0 as `tarball`.
fn npm_registry(name: &'static str, tarball: Vec<u8>) -> Loopback {
    let base = Arc::new(std::sync::Mutex::new(String::new()));
    let registry = {
        let at = base.clone();
        Loopback::start(move |request| {
            let base = at.lock().unwrap().clone();
            let file = format!("/npm/{name}-1.0.0.tgz");
            match request.url.as_str() {
                url if url == file => reply(200, tarball.clone()),
                url if url == format!("/npm/{name}") => {
                    let shasum = format!("{:x}", sha1_checked::Sha1::digest(&tarball));
                    let packument = json!({"name": name, "dist-tags": {"latest": "1.0.0"},
                        "time": {"1.0.0": PUBLISHED},
                        "versions": {"1.0.0": {"name": name, "version": "1.0.0",
                            "bin": {name: "server.js"},
                            "dist": {"tarball": format!("{base}{file}"), "shasum": shasum}}}});
                    reply(200, packument.to_string())
                }
                _ => reply(404, "{}"),
            }
        })
    };
    *base.lock().unwrap() = registry.url();
    registry
}

/// Writes, for each of `programs` found on PATH, a wrapper into `dir` that appends the
/// environment it was started with to `logs/NAME.PID`, then becomes the program.
fn logging_wrappers(dir: &Path, logs: &Path, programs: &[(&str, &Path)]) {
    use std::os::unix::fs::PermissionsExt;
    for (name, real) in programs {
        let wrapper = dir.join(name);
        std::fs::write(
            &wrapper,
            format!(
                "#!/bin/sh\n/usr/bin/env > '{}/{name}.'$$\nexec '{}' \"$@\"\n",
                logs.display(),
                real.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// Returns the full path of `program` as PATH finds it.
fn on_path(program: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|file| file.is_file())
}

/// A listing's environment variables are the server's, set inside the walls: bwrap,
/// npm, uv and Python on the host never see them, so a shared object the entry
/// preloads never runs there; a `--write-commands` replay sets them inside too.
#[test]
fn a_listings_preload_reaches_no_host_process() {
    let Some(uv) = sandbox_and_uv() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let marks = work.path().join("marks");
    let logs = work.path().join("logs");
    let wrappers = work.path().join("wrap");
    for dir in [&marks, &logs, &wrappers] {
        std::fs::create_dir(dir).unwrap();
    }
    let Some(object) = marking_object(work.path(), &marks) else {
        return skip("no C compiler ('cc') to build the preloaded object with");
    };
    // The object marks whatever loads it.
    let proof = Command::new("/bin/true")
        .env("LD_PRELOAD", &object)
        .status()
        .unwrap();
    assert!(proof.success());
    let made: Vec<_> = std::fs::read_dir(&marks).unwrap().flatten().collect();
    assert_eq!(made.len(), 1, "the object marks what loads it");
    std::fs::remove_file(made[0].path()).unwrap();

    let real = |name: &str| on_path(name).unwrap_or_else(|| panic!("{name} on PATH"));
    let (npm, bwrap, python) = (real("npm"), real("bwrap"), real("python3"));
    logging_wrappers(
        &wrappers,
        &logs,
        &[
            ("npm", &npm),
            ("bwrap", &bwrap),
            ("python3", &python),
            ("uv", &uv),
        ],
    );
    let marker = work.path().join("install-script-ran");
    // It writes beside its code, into its own folder's throwaway copy.
    let server = format!(
        "require('fs').writeFileSync(__dirname + '/state.json', '{{}}');\n{}",
        js_serving(
            r#"["LISTED_WORD", "LD_PRELOAD", "GCONV_PATH", "XDG_CONFIG_HOME"]
           .map((k) => ({ name: k + "_" + String(process.env[k]).replace(/[^A-Za-z0-9]/g, "_"),
                          inputSchema: {} }))"#,
            None,
        )
    );
    let registry = npm_registry("e-fixture", npm_tarball("e-fixture", &server, &marker));
    let index = pypi_index(pypi_files(work.path(), &py_tools()));
    let env = format!(
        "env = {{ LD_PRELOAD = {object:?}, LD_LIBRARY_PATH = {dir:?}, GCONV_PATH = {dir:?}, \
         LISTED_WORD = \"from-the-listing\" }}\n",
        object = object.display().to_string(),
        dir = work.path().display().to_string(),
    );
    std::fs::write(
        work.path().join("servers.toml"),
        format!(
            "[[server]]\nname = \"n\"\n\
             package = {{ registry = \"npm\", name = \"e-fixture\", version = \"1.0.0\" }}\n{env}\
             [[server]]\nname = \"p\"\n\
             package = {{ registry = \"pypi\", name = \"hintpy\", version = \"1.0.0\" }}\n{env}"
        ),
    )
    .unwrap();
    let probe = |out: &str, path: String| {
        let mut run = Run::new(work.path())
            .args(["probe", "--servers", "servers.toml", "--date", DATE])
            .args(["--cache", "cache", "--keep-installs", "--write-commands"])
            .args(["--out", out, "--timeout", "20"])
            .env("npm_config_registry", format!("{}/npm/", registry.url()))
            .env("PIP_INDEX_URL", format!("{}/simple", index.url()))
            .env("PIP_CONFIG_FILE", "/dev/null")
            .env("UV_CACHE_DIR", work.path().join("uv-cache"))
            .env("PATH", path);
        for name in ["UV_INDEX_URL", "UV_DEFAULT_INDEX", "UV_EXCLUDE_NEWER"] {
            run.command().env_remove(name);
        }
        run.output()
    };
    // With uv, then with pip: every installer and the sandbox, started on the host.
    let with_uv = format!("{}:{}", wrappers.display(), path_without_uv());
    let out = probe("uv", with_uv);
    assert_code(&out, 0);
    std::fs::remove_file(wrappers.join("uv")).unwrap();
    let with_pip = format!("{}:{}", wrappers.display(), path_without_uv());
    let out_pip = probe("pip", with_pip);
    assert_code(&out_pip, 0);

    let marked: Vec<String> = std::fs::read_dir(&marks)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        marked.is_empty(),
        "host processes loaded the listing's object: {marked:?}\n{}",
        show(&out)
    );
    let mut started = BTreeMap::<String, usize>::new();
    for log in std::fs::read_dir(&logs).unwrap().flatten() {
        let name = log.file_name().to_string_lossy().into_owned();
        let program = name.split('.').next().unwrap().to_string();
        let text = std::fs::read_to_string(log.path()).unwrap();
        for word in [
            "LD_PRELOAD",
            "LD_LIBRARY_PATH",
            "GCONV_PATH",
            "LISTED_WORD",
            "from-the-listing",
        ] {
            assert!(
                !text.contains(word),
                "{program} was started with {word}:\n{text}"
            );
        }
        if program == "bwrap" {
            let names: Vec<&str> = text
                .lines()
                .filter_map(|l| l.split_once('='))
                .map(|(k, _)| k)
                .collect();
            assert!(
                names
                    .iter()
                    .all(|k| ["PATH", "PWD", "SHLVL", "_"].contains(k)),
                "bwrap starts with a fixed environment: {names:?}"
            );
        }
        *started.entry(program).or_default() += 1;
    }
    for program in ["npm", "bwrap", "python3", "uv"] {
        assert!(
            started.contains_key(program),
            "{program} never ran: {started:?}"
        );
    }
    // Inside, the variables are as the entry gives them.
    let table = read_csv(&work.path().join(format!("uv/wire-{DATE}.csv")));
    let tool = table[0].iter().position(|c| c == "tool").unwrap();
    let tools: Vec<String> = table[1..].iter().map(|row| row[tool].clone()).collect();
    assert!(
        tools.contains(&"LISTED_WORD_from_the_listing".to_string()),
        "{tools:?}"
    );
    // Its state folders are the sandbox's own, and what it wrote beside its code went
    // into a throwaway copy: the install is as it was.
    assert!(
        tools.contains(&"XDG_CONFIG_HOME__home_probe__config".to_string()),
        "{tools:?}"
    );
    let install = work
        .path()
        .join("cache/npm/e-fixture@1.0.0/node_modules/e-fixture");
    assert!(install.join("server.js").is_file(), "{}", install.display());
    assert!(
        !install.join("state.json").exists(),
        "the install was written into"
    );
    let preload = format!(
        "LD_PRELOAD_{}",
        object
            .display()
            .to_string()
            .replace(|c: char| !c.is_ascii_alphanumeric(), "_")
    );
    assert!(tools.contains(&preload), "{tools:?}");

    // The written command puts them inside too: bwrap's line and its launch hold none.
    let text = std::fs::read_to_string(work.path().join(format!("uv/wire-{DATE}-commands.jsonl")))
        .unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let npm_line = lines
        .iter()
        .find(|l| l["server"] == "n")
        .expect("the npm server's line");
    let command = npm_line["command"].to_string();
    assert!(
        !command.contains("LD_PRELOAD") && command.contains(r#""--args","3","--""#),
        "{command}"
    );
    assert_eq!(
        npm_line["sandbox"]["launch_env"],
        json!({"PATH": "/usr/bin:/bin"})
    );
    assert_eq!(
        npm_line["env"]["LD_PRELOAD"],
        json!(object.display().to_string())
    );
    let replayed = replay(npm_line, work.path(), &[]);
    let names: Vec<&str> = replayed
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"LISTED_WORD_from_the_listing"), "{names:?}");
    let marked: Vec<_> = std::fs::read_dir(&marks)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(
        marked.is_empty(),
        "the replay loaded the object on the host: {marked:?}"
    );
    assert!(!marker.exists(), "an install script ran");
}

/// A row quotes no folder of the machine that wrote it: a server whose traceback names
/// its install, run from two cache folders, writes the same servers table, the
/// install written as `{install}`, the interpreter's folder as `{runtime}` and the
/// sandbox's HOME, where the server runs, as `{home}`.
#[test]
fn a_table_written_from_two_cache_folders_is_the_same_bytes() {
    let Some(uv) = sandbox_and_uv() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let index = pypi_index(pypi_servers(
        work.path(),
        &["hintcrash", "hintargs", "hintenv", "hintgroup", "hinthome"],
    ));
    std::fs::write(
        work.path().join("servers.toml"),
        "[[server]]\nname = \"home\"\n\
         package = { registry = \"pypi\", name = \"hinthome\", version = \"1.0.0\" }\n\
         [[server]]\nname = \"crash\"\n\
         package = { registry = \"pypi\", name = \"hintcrash\", version = \"1.0.0\" }\n\
         [[server]]\nname = \"args\"\n\
         package = { registry = \"pypi\", name = \"hintargs\", version = \"1.0.0\" }\n\
         [[server]]\nname = \"env\"\n\
         package = { registry = \"pypi\", name = \"hintenv\", version = \"1.0.0\" }\n\
         [[server]]\nname = \"group\"\n\
         package = { registry = \"pypi\", name = \"hintgroup\", version = \"1.0.0\" }\n",
    )
    .unwrap();
    let probe = |cache: &Path, out: &str| {
        pypi_probe(work.path(), &index, &uv)
            .arg("--cache")
            .arg(cache)
            .args(["--out", out, "--timeout", "20"])
            .output()
    };
    let first = work.path().join("first-cache");
    let second = tempfile::tempdir().unwrap();
    let out = probe(&first, "one");
    assert_code(&out, 1);
    assert_code(&probe(second.path(), "two"), 1);
    let table = |dir: &str| {
        std::fs::read_to_string(work.path().join(format!("{dir}/wire-{DATE}-servers.csv"))).unwrap()
    };
    let one = table("one");
    assert_eq!(one, table("two"));
    assert!(
        one.contains("no configuration next to {install}/lib/python3."),
        "{one}\n{}",
        show(&out)
    );
    assert!(
        one.contains("/hintcrash/__init__.py nor in {home}"),
        "{one}\n{}",
        show(&out)
    );
    for folder in [work.path(), second.path()] {
        assert!(!one.contains(&folder.display().to_string()), "{one}");
    }
    let report = |dir: &str| {
        std::fs::read_to_string(work.path().join(format!("{dir}/wire-{DATE}.md"))).unwrap()
    };
    assert_eq!(report("one"), report("two"));
    // The server whose argument parser asked for a required option was started once
    // more with a placeholder for it, and the row says so.
    let servers = servers_table(&work.path().join(format!("one/wire-{DATE}-servers.csv")));
    assert_eq!(
        [
            servers["args"]["outcome"].as_str(),
            servers["args"]["placeholders"].as_str()
        ],
        [
            "listed with placeholders",
            "argument '--pcap-path' (its usage error)"
        ],
        "{one}"
    );
    // The server that named two variables as missing was started once more with a
    // placeholder for each: a word for the key, a loopback URL for the endpoint.
    assert_eq!(
        [
            servers["env"]["outcome"].as_str(),
            servers["env"]["placeholders"].as_str()
        ],
        [
            "listed with placeholders",
            "variable 'ACME_API_KEY' (named as missing when it exited); \
             variable 'ACME_API_URL' (named as missing when it exited)"
        ],
        "{one}"
    );
    // The command group was started again with the one command its usage says
    // serves MCP, then with that group's stdio command.
    assert_eq!(
        [
            servers["group"]["outcome"].as_str(),
            servers["group"]["placeholders"].as_str()
        ],
        [
            "listed with placeholders",
            "command 'serve' (its usage names it as the MCP server); \
             command 'stdio' (its usage names it as the MCP server)"
        ],
        "{one}"
    );
    // The home the password database names is private and writable.
    assert_eq!(servers["home"]["outcome"].as_str(), "listed", "{one}");
    let wire = read_csv(&work.path().join(format!("one/wire-{DATE}.csv")));
    let tool = wire[0].iter().position(|c| c == "tool").unwrap();
    assert!(
        wire[1..]
            .iter()
            .any(|row| row[0] == "home" && row[tool] == "home_written"),
        "{wire:?}"
    );
    assert!(
        wire[1..]
            .iter()
            .any(|row| row[0] == "args" && row[tool] == "pcap_etc_hosts"),
        "{wire:?}"
    );
    assert!(
        wire[1..]
            .iter()
            .any(|row| row[0] == "env" && row[tool] == "url_http___127_0_0_1_9"),
        "{wire:?}"
    );
}

/// Where no resolution stood as of a release's upload time, uv resolves on the day,
/// but the MCP SDK stays what stood then: the server gets `mcp` 1.0.0, not the 2.0.0
/// uploaded after it, and the row says so.
#[test]
fn a_days_resolution_keeps_the_mcp_sdk_of_the_release_day() {
    let Some(uv) = sandbox_and_uv() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let mut files = PypiFiles::default();
    let server = wheel(
        work.path(),
        "hintsdk",
        "1.0.0",
        &["mcp", "hintlater"],
        Some(&py_tools()),
    );
    files.wheels.insert(
        "hintsdk".to_string(),
        vec![("1.0.0".to_string(), UPLOADED.to_string(), server)],
    );
    let sdk = [DEP_OLD, DEP_NEW]
        .iter()
        .map(|(version, at)| {
            let bytes = wheel(work.path(), "mcp", version, &[], None);
            (version.to_string(), at.to_string(), bytes)
        })
        .collect();
    files.wheels.insert("mcp".to_string(), sdk);
    // Its only release came after the server's: nothing resolves as of that day.
    let later = wheel(work.path(), "hintlater", "1.0.0", &[], None);
    files.wheels.insert(
        "hintlater".to_string(),
        vec![("1.0.0".to_string(), DEP_NEW.1.to_string(), later)],
    );
    let index = pypi_index(files);
    std::fs::write(
        work.path().join("servers.toml"),
        "[[server]]\nname = \"sdk\"\n\
         package = { registry = \"pypi\", name = \"hintsdk\", version = \"1.0.0\" }\n",
    )
    .unwrap();
    let out = pypi_probe(work.path(), &index, &uv)
        .args(["--cache", "cache", "--out", "out", "--timeout", "20"])
        .output();
    assert_code(&out, 0);
    let servers = servers_table(&work.path().join(format!("out/wire-{DATE}-servers.csv")));
    let note = &servers["sdk"]["before_note"];
    assert!(
        note.ends_with(
            "uv resolved the dependencies on the day, the MCP SDK held to what stood then (mcp<=1.0.0)"
        ),
        "{note}\n{}",
        show(&out)
    );
    let wire = read_csv(&work.path().join(format!("out/wire-{DATE}.csv")));
    let tool = wire[0].iter().position(|c| c == "tool").unwrap();
    assert_eq!(wire[1][tool], "mcp_1_0_0", "{}", show(&out));
}

/// Returns `probe --servers servers.toml --date DATE` run in `dir` against the PyPI
/// `index`, uv the one `find_uv` gives (alone in a folder of `dir` put first on PATH),
/// no pip configuration of the machine's and none of uv's index settings.
fn pypi_probe(dir: &Path, index: &Loopback, uv: &Path) -> Run {
    let bin = dir.join("uv-bin");
    if !bin.exists() {
        std::fs::create_dir(&bin).unwrap();
        std::os::unix::fs::symlink(uv, bin.join("uv")).unwrap();
    }
    let mut run = Run::new(dir)
        .args(["probe", "--servers", "servers.toml", "--date", DATE])
        .env("PIP_INDEX_URL", format!("{}/simple", index.url()))
        .env("PIP_CONFIG_FILE", "/dev/null")
        .env("UV_CACHE_DIR", dir.join("uv-cache"))
        .env("PATH", format!("{}:{}", bin.display(), path_without_uv()));
    for name in ["UV_INDEX_URL", "UV_DEFAULT_INDEX", "UV_EXCLUDE_NEWER"] {
        run.command().env_remove(name);
    }
    run
}

/// Returns the PyPI index files of `names`, each a fixture server at 1.0.0 with no
/// dependency.
fn pypi_servers(dir: &Path, names: &[&str]) -> PypiFiles {
    let mut files = PypiFiles::default();
    for name in names {
        let bytes = wheel(dir, name, "1.0.0", &[], Some(&py_tools()));
        files.wheels.insert(
            name.to_string(),
            vec![("1.0.0".to_string(), UPLOADED.to_string(), bytes)],
        );
    }
    files
}

/// Returns uv where node, npm, python3, bubblewrap and uv are all here, as the PyPI
/// tests of the sandbox need them; else says which is missing (`skip`) and returns
/// none.
fn sandbox_and_uv() -> Option<std::path::PathBuf> {
    if !has_tools() {
        skip("node, npm or python3 is not installed");
        return None;
    }
    if !has_bwrap() {
        skip("bwrap cannot run here (or knows no --size); apt-get install bubblewrap");
        return None;
    }
    let uv = find_uv();
    if uv.is_none() {
        skip("uv is not installed; sh tests/peers/install.sh installs the pinned one");
    }
    uv
}
