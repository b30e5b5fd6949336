//! Tests of packages as a corpus (`corpus packages`, `[[package]]`, the census of
//! what ships), against an npm registry and a PyPI index served on 127.0.0.1.
//!
//! The artifacts are written by Python's `tarfile` and `zipfile`, and Python counts
//! them too, member by member, as the oracle: the census must give its counts, stamp
//! the registry's digest, refuse bytes that are not the registry's, send a token
//! only where npm's configuration binds it, and never ask the index again.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use crate::common::*;

/// Writes the artifacts into `dir` with Python and returns, per artifact file
/// name, its oracle's view: regular files, bytes, each term's count, and its sha512
/// (base64) and sha256 (hex).
const ORACLE: &str = r##"
import base64, hashlib, io, json, os, sys, tarfile, zipfile
out = sys.argv[1]
terms = sys.argv[2:]
def tgz(name, files):
    path = os.path.join(out, name)
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for member, data in files:
            info = tarfile.TarInfo(member)
            info.size = len(data)
            info.mtime = 499162500
            tar.addfile(info, io.BytesIO(data))
def whl(name, files):
    with zipfile.ZipFile(os.path.join(out, name), "w", zipfile.ZIP_DEFLATED) as z:
        for member, data in files:
            z.writestr(member, data)
server = b'server.registerTool("get_x", {annotations: {readOnlyHint: true, openWorldHint: false}}, h);\n'
tgz("srv-1.0.0.tgz", [
    ("package/package.json", b'{"name": "@acme/srv", "version": "1.0.0"}'),
    ("package/dist/index.js", server * 3 + b"// READONLYHINT destructiveHint\n"),
    ("package/README.md", b"annotations: idempotentHint, IdempotentHint\n"),
])
head = b'from mcp.server.fastmcp import FastMCP\nfrom mcp.types import ToolAnnotations\nmcp = FastMCP("y")\n'
py = b'@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True, destructiveHint=False))\ndef get_y(): ...\n'
whl("x_mcp-1.0-py3-none-any.whl", [
    ("x_mcp/__init__.py", b""),
    ("x_mcp/server.py", head + py + b"# readonlyhint, destructiveHINT\n"),
    ("x_mcp-1.0.dist-info/RECORD", b"x_mcp/server.py,,\n"),
])
tgz("x_mcp-1.0.tar.gz", [("x_mcp-1.0/x_mcp/server.py", py * 7)])
whl("x_mcp-0.9-py3-none-any.whl", [("x_mcp/server.py", py)])
tgz("x_only-0.3.tar.gz", [
    ("x_only-0.3/PKG-INFO", b"Name: x-only\n"),
    ("x_only-0.3/x_only/main.py", b"openWorldHint openworldhint OPENWORLDHINT\n"),
])
whl("tampered-2.0-py3-none-any.whl", [("tampered/a.py", b"readOnlyHint\n")])
view = {}
for name in sorted(os.listdir(out)):
    path = os.path.join(out, name)
    blobs = []
    if name.endswith(".whl"):
        with zipfile.ZipFile(path) as z:
            blobs = [z.read(i) for i in z.infolist() if not i.is_dir()]
    else:
        with tarfile.open(path) as tar:
            blobs = [tar.extractfile(m).read() for m in tar.getmembers() if m.isreg()]
    raw = open(path, "rb").read()
    view[name] = {
        "files": len(blobs),
        "bytes": sum(len(b) for b in blobs),
        "counts": [sum(b.lower().count(t.lower().encode()) for b in blobs) for t in terms],
        "sha512": base64.b64encode(hashlib.sha512(raw).digest()).decode(),
        "sha256": hashlib.sha256(raw).hexdigest(),
    }
print(json.dumps(view))
"##;

const TOKEN: &str = "s3cret-npm-token";

#[derive(Clone, Debug)]
struct Oracle {
    files: u64,
    bytes: u64,
    counts: Vec<u64>,
    sha512: String,
    sha256: String,
}

fn oracle(dir: &Path) -> BTreeMap<String, Oracle> {
    let out = Command::new("python3")
        .arg("-c")
        .arg(ORACLE)
        .arg(dir)
        .args(TERMS)
        .output()
        .expect("python3 is the oracle");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let view: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    view.as_object()
        .unwrap()
        .iter()
        .map(|(name, v)| {
            let n = |k: &str| v[k].as_u64().unwrap();
            (
                name.clone(),
                Oracle {
                    files: n("files"),
                    bytes: n("bytes"),
                    counts: v["counts"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|c| c.as_u64().unwrap())
                        .collect(),
                    sha512: v["sha512"].as_str().unwrap().to_string(),
                    sha256: v["sha256"].as_str().unwrap().to_string(),
                },
            )
        })
        .collect()
}

/// Serves the registry and the index of the artifacts in `dir`: a scoped npm
/// package behind a token, a PyPI project with a wheel, an sdist and a yanked
/// release, an sdist-only one (HTML page), one whose file is served altered, and
/// the answers of an index that will not: 404, 401, an HTML page that is no project
/// page.
fn serve(dir: &Path, view: &BTreeMap<String, Oracle>) -> Loopback {
    let dir = dir.to_path_buf();
    let view = view.clone();
    let port = std::sync::Arc::new(std::sync::OnceLock::<String>::new());
    let base = port.clone();
    let server = Loopback::start(move |request| {
        let url = base.get().cloned().unwrap_or_default();
        let file = |name: &str| std::fs::read(dir.join(name)).unwrap();
        let json = |body: String, kind: &str| {
            tiny_http::Response::from_data(body.into_bytes())
                .with_header(header(&format!("Content-Type: {kind}")))
                .boxed()
        };
        let simple = |files: &[(&str, Option<&str>)]| {
            let files: Vec<String> = files
                .iter()
                .map(|(name, yanked)| {
                    let yanked = yanked.map_or("false".to_string(), |y| format!("{y:?}"));
                    format!(
                        r#"{{"filename":"{name}","url":"../../files/{name}","hashes":{{"sha256":"{}"}},"yanked":{yanked}}}"#,
                        view[*name].sha256
                    )
                })
                .collect();
            json(
                format!(
                    r#"{{"meta":{{"api-version":"1.1"}},"files":[{}]}}"#,
                    files.join(",")
                ),
                "application/vnd.pypi.simple.v1+json",
            )
        };
        let is_authorized =
            request.header("Authorization").as_deref() == Some(&format!("Bearer {TOKEN}"));
        match request.url.as_str() {
            "/npm/@acme%2fsrv" | "/npm/@acme/srv/-/srv-1.0.0.tgz" if !is_authorized => {
                reply(401, "token needed")
            }
            "/npm/@acme%2fsrv" => json(
                format!(
                    r#"{{"name":"@acme/srv","dist-tags":{{"latest":"1.0.0"}},"versions":{{"1.0.0":{{
                      "gitHead":"0123456789abcdef0123456789abcdef01234567",
                      "repository":{{"type":"git","url":"git+https://forge.test/acme/srv.git"}},
                      "dist":{{"tarball":"{url}/npm/@acme/srv/-/srv-1.0.0.tgz",
                               "integrity":"sha512-{}"}}}}}}}}"#,
                    view["srv-1.0.0.tgz"].sha512
                ),
                "application/json",
            ),
            "/npm/@acme/srv/-/srv-1.0.0.tgz" => reply(200, file("srv-1.0.0.tgz")),
            "/simple/x-mcp/" => simple(&[
                ("x_mcp-0.9-py3-none-any.whl", Some("broken entry point")),
                ("x_mcp-1.0.tar.gz", None),
                ("x_mcp-1.0-py3-none-any.whl", None),
            ]),
            "/simple/x-only/" => tiny_http::Response::from_data(
                format!(
                    "<html><body><a href=\"../../files/x_only-0.3.tar.gz#sha256={}\">x_only-0.3.tar.gz</a></body></html>",
                    view["x_only-0.3.tar.gz"].sha256
                )
                .into_bytes(),
            )
            .with_header(header("Content-Type: text/html"))
            .boxed(),
            "/simple/tampered/" => simple(&[("tampered-2.0-py3-none-any.whl", None)]),
            "/files/tampered-2.0-py3-none-any.whl" => {
                let mut bytes = file("tampered-2.0-py3-none-any.whl");
                // The same zip with the first local header's modification time
                // changed (no reader compares it to the directory's): a good archive
                // whose bytes are not the ones the index gave the digest of.
                assert_eq!(&bytes[..4], b"PK\x03\x04");
                bytes[10] ^= 1;
                reply(200, bytes)
            }
            "/simple/locked/" => reply(401, "sign in"),
            "/simple/html-error/" => tiny_http::Response::from_data(
                b"<html><body><h1>Sign in to continue</h1></body></html>".to_vec(),
            )
            .with_header(header("Content-Type: text/html"))
            .boxed(),
            other => match other.strip_prefix("/files/") {
                Some(name) if view.contains_key(name) => reply(200, file(name)),
                _ => reply(404, "not found"),
            },
        }
    });
    port.set(server.url()).unwrap();
    server
}

/// Returns the environment that points npm and pip at `server`, with a user
/// `.npmrc` in `dir` binding the token to the registry's path.
fn index_env(dir: &Path, server: &Loopback) -> Vec<(String, String)> {
    let npmrc = dir.join("npmrc");
    std::fs::write(
        &npmrc,
        format!(
            "//127.0.0.1:{}/npm/:_authToken=${{NPM_TOKEN}}\n",
            server.port()
        ),
    )
    .unwrap();
    [
        ("NPM_CONFIG_REGISTRY", format!("{}/npm/", server.url())),
        ("NPM_CONFIG_USERCONFIG", npmrc.display().to_string()),
        (
            "NPM_CONFIG_GLOBALCONFIG",
            dir.join("none").display().to_string(),
        ),
        ("NPM_TOKEN", TOKEN.to_string()),
        ("PIP_INDEX_URL", format!("{}/simple", server.url())),
        ("UV_DEFAULT_INDEX", String::new()),
        ("UV_INDEX_URL", String::new()),
        ("NETRC", dir.join("no-netrc").display().to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

fn run_with(dir: &Path, args: &[&str], env: &[(String, String)]) -> std::process::Output {
    let mut run = Run::new(dir).args(args);
    for (k, v) in env {
        run = run.env(k, v);
    }
    run.output()
}

#[test]
fn a_package_census_counts_what_ships_as_python_reads_it_and_refuses_other_bytes() {
    let work = tempfile::tempdir().unwrap();
    let artifacts = work.path().join("artifacts");
    std::fs::create_dir(&artifacts).unwrap();
    let view = oracle(&artifacts);
    let server = serve(&artifacts, &view);
    let env = index_env(work.path(), &server);
    std::fs::write(
        work.path().join("list.txt"),
        "# what ships\nnpm:@acme/srv\npypi:x-mcp==1.0\npypi:x_only\npypi:x-mcp==0.9\n\
         pypi:tampered==2.0\nnpm:gone@1.0.0\npypi:locked\npypi:html-error\n",
    )
    .unwrap();

    let out = run_with(
        work.path(),
        // One request at a time: the loopback server answers one at a time.
        &[
            "corpus", "packages", "list.txt", "--out", "c.toml", "--jobs", "1",
        ],
        &env,
    );
    // Two indexes refused to answer (401, a page that is no project page): the
    // run says so by its status, and keeps what it pinned.
    assert_code(&out, 1);
    let corpus = std::fs::read_to_string(work.path().join("c.toml")).unwrap();
    let skipped = read_csv(&work.path().join("c-skipped.csv"));
    let reasons: BTreeMap<&str, &str> = skipped[1..]
        .iter()
        .map(|r| (r[0].as_str(), r[4].as_str()))
        .collect();
    assert!(
        reasons["npm:gone"].ends_with("/npm/gone: HTTP 404 Not Found"),
        "{reasons:?}"
    );
    assert!(
        reasons["pypi:locked"].contains("/simple/locked/: HTTP 401"),
        "{reasons:?}"
    );
    assert!(
        reasons["pypi:html-error"].contains("lists no file"),
        "{reasons:?}"
    );
    assert_eq!(reasons.len(), 3, "{reasons:?}");
    // The wheel is chosen over the sdist, and the digest is the index's own.
    assert!(
        corpus.contains("artifact = \"x_mcp-1.0-py3-none-any.whl\""),
        "{corpus}"
    );
    assert!(corpus.contains(&format!(
        "digest = \"sha512-{}\"",
        view["srv-1.0.0.tgz"].sha512
    )));
    assert!(
        corpus.contains("yanked = \"broken entry point\""),
        "{corpus}"
    );
    assert!(!corpus.contains(TOKEN));

    let census = |extra: &[&str]| {
        let mut args = vec![
            "census",
            "--corpus",
            "c.toml",
            "--out",
            "out",
            "--cache",
            "cache",
            "--date",
            "2026-12-01",
            "--jobs",
            "1",
            "--downloads",
            "1",
        ];
        args.extend_from_slice(extra);
        run_with(work.path(), &args, &env)
    };
    let before = server.seen().len();
    let out = census(&[]);
    // The tampered artifact fails; every other row is counted.
    assert_code(&out, 1);
    let asked_index: Vec<String> = server.seen()[before..]
        .iter()
        .filter(|r| r.url.starts_with("/simple/") || r.url == "/npm/@acme%2fsrv")
        .map(|r| format!("{} (request {} of it)", r.url, r.nth))
        .collect();
    assert_eq!(
        asked_index,
        Vec::<String>::new(),
        "a census never asks the index again"
    );
    let table = read_csv(&work.path().join("out/census-2026-12-01.csv"));
    let header = &table[0];
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows: BTreeMap<(String, String), &Vec<String>> = table[1..]
        .iter()
        .map(|r| ((r[0].clone(), r[1].clone()), r))
        .collect();
    assert_eq!(rows.len(), 5);
    for (repo, version, artifact) in [
        ("npm:@acme/srv", "1.0.0", "srv-1.0.0.tgz"),
        ("pypi:x-mcp", "1.0", "x_mcp-1.0-py3-none-any.whl"),
        ("pypi:x_only", "0.3", "x_only-0.3.tar.gz"),
        ("pypi:x-mcp", "0.9", "x_mcp-0.9-py3-none-any.whl"),
    ] {
        let row = rows[&(repo.to_string(), version.to_string())];
        let want = &view[artifact];
        assert_eq!(row[at("status")], "ok", "{row:?}");
        assert_eq!(row[at("artifact")], artifact);
        assert_eq!(
            row[at("files_walked")],
            want.files.to_string(),
            "{artifact}"
        );
        assert_eq!(row[at("bytes_read")], want.bytes.to_string(), "{artifact}");
        let counted: Vec<u64> = TERMS.iter().map(|t| row[at(t)].parse().unwrap()).collect();
        assert_eq!(counted, want.counts, "{artifact}: the counts Python gives");
        assert_eq!(row[at("archive_sha256")], want.sha256);
        assert_eq!(row[at("commit_source")], "package");
    }
    let srv = rows[&("npm:@acme/srv".to_string(), "1.0.0".to_string())];
    assert_eq!(
        srv[at("commit")],
        "0123456789abcdef0123456789abcdef01234567"
    );
    assert_eq!(srv[at("repository")], "git+https://forge.test/acme/srv.git");
    assert_eq!(
        srv[at("digest")],
        format!("sha512-{}", view["srv-1.0.0.tgz"].sha512)
    );
    let tampered = rows[&("pypi:tampered".to_string(), "2.0".to_string())];
    assert_eq!(tampered[at("status")], "error");
    assert_eq!(
        tampered[at("readOnlyHint")],
        "",
        "no count of bytes that are not the registry's"
    );
    let why = &tampered[at("error")];
    assert!(
        why.contains(&format!(
            "not the registry's 'sha256:{}'",
            view["tampered-2.0-py3-none-any.whl"].sha256
        )) && why.contains("the artifact's digest is 'sha256:"),
        "{why}"
    );
    assert!(
        !work
            .path()
            .join("cache/packages/pypi/tampered/2.0/tampered-2.0-py3-none-any.whl")
            .exists(),
        "bytes that are not the registry's are not cached"
    );
    // The token went to the registry's place only, and is written nowhere.
    for request in server.seen() {
        let sent = request.header("Authorization").is_some();
        assert_eq!(sent, request.url.starts_with("/npm/"), "{}", request.url);
    }
    for entry in walk(work.path()) {
        let bytes = std::fs::read(&entry).unwrap();
        assert_eq!(
            naive_exact(&bytes, TOKEN.as_bytes()),
            0,
            "{}",
            entry.display()
        );
    }
    assert_eq!(naive_exact(&out.stderr, TOKEN.as_bytes()), 0);

    // The wire's rows join to the package rows of the same registry, name and
    // version: by bytes where the wire installed the artifact counted, by version
    // where it installed another file of that release.
    let wire = |name: &str, text: String| std::fs::write(work.path().join(name), text).unwrap();
    wire(
        "wire-2026-12-02-servers.csv",
        format!(
            "server,registry_name,repository,subfolder,package_registry,package,package_version,artifact,outcome\n\
             srv,io.github.acme/srv,,,npm,@acme/srv,1.0.0,sha512-{},listed\n\
             y,io.github.acme/y,,,pypi,X_MCP,1.0,sha256:{},listed\n",
            view["srv-1.0.0.tgz"].sha512,
            "e".repeat(64)
        ),
    );
    wire(
        "wire-2026-12-02.csv",
        "server,tool,readOnlyHint,destructiveHint,idempotentHint,openWorldHint\n\
         srv,get_x,true,absent,absent,false\n\
         y,get_y,true,false,absent,absent\n"
            .to_string(),
    );
    let out = run_with(
        work.path(),
        &[
            "join",
            "wire-2026-12-02.csv",
            "--source-table",
            "out/census-2026-12-01.csv",
        ],
        &env,
    );
    assert_code(&out, 0);
    let join = read_csv(&work.path().join("join-2026-12-02.csv"));
    let col = |name: &str| join[0].iter().position(|h| h == name).unwrap();
    let links: BTreeMap<&str, (&str, &str, &str)> = join[1..]
        .iter()
        .map(|r| {
            let cells = (
                r[col("repo")].as_str(),
                r[col("join")].as_str(),
                r[col("presence")].as_str(),
            );
            (r[col("server")].as_str(), cells)
        })
        .collect();
    assert_eq!(
        links["srv"],
        ("npm:@acme/srv", "joined", "both"),
        "{join:?}"
    );
    assert_eq!(
        links["y"],
        ("pypi:x-mcp", "joined by version, not by bytes", "both"),
        "{join:?}"
    );

    // From the cache, offline, the counted rows are the same bytes.
    let first = std::fs::read_to_string(work.path().join("out/census-2026-12-01.csv")).unwrap();
    std::fs::remove_dir_all(work.path().join("out")).unwrap();
    let out = census(&["--offline"]);
    assert_code(&out, 1);
    let again = std::fs::read_to_string(work.path().join("out/census-2026-12-01.csv")).unwrap();
    let ok_lines = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !l.starts_with("pypi:tampered"))
            .map(String::from)
            .collect()
    };
    assert_eq!(ok_lines(&first), ok_lines(&again));
}

#[test]
fn a_corpus_of_packages_is_checked_before_anything_is_downloaded() {
    let dir = tempfile::tempdir().unwrap();
    let package = |extra: &str| {
        format!(
            "[[package]]\nregistry = \"npm\"\nname = \"a\"\nversion = \"1.0.0\"\n\
             artifact = \"a-1.0.0.tgz\"\nurl = \"http://127.0.0.1:9/a.tgz\"\n{extra}"
        )
    };
    for (text, why) in [
        (package("digest = \"md5-x\"\n"), "key 'digest'"),
        (
            package("digest = \"sha256:00\"\n").replace("\"npm\"", "\"cargo\""),
            "key 'registry': 'cargo' is neither npm nor pypi",
        ),
        (
            package(&format!("digest = \"sha256:{}\"\n", "0".repeat(64)))
                .replace("a-1.0.0.tgz", "../a.tgz"),
            "key 'artifact': '../a.tgz' is not a file name",
        ),
        (
            package(&format!("digest = \"sha256:{}\"\n", "0".repeat(64)))
                .replace("version = \"1.0.0\"", "version = \"..\""),
            "key 'version'",
        ),
    ] {
        std::fs::write(dir.path().join("c.toml"), &text).unwrap();
        let out = run(dir.path(), &["census", "--corpus", "c.toml", "--offline"]);
        assert_code(&out, 2);
        assert!(stderr(&out).contains(why), "{text}\n{}", stderr(&out));
    }
}

#[test]
fn options_that_mean_nothing_for_packages_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("l.txt"), "npm:a\n").unwrap();
    for flag in [&["--at", "2026-01-01"][..], &["--cache", "c"][..]] {
        let mut args = vec!["corpus", "packages", "l.txt", "--out", "c.toml"];
        args.extend_from_slice(flag);
        let out = run(dir.path(), &args);
        assert_code(&out, 2);
        assert!(
            stderr(&out).contains(&format!("{} means nothing for packages", flag[0])),
            "{}",
            stderr(&out)
        );
    }
}

/// Returns every file under `root`.
fn walk(root: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            match entry.file_type().unwrap().is_dir() {
                true => folders.push(path),
                false => files.push(path),
            }
        }
    }
    files
}

#[test]
fn a_survey_accounts_for_every_latest_entry_of_a_saved_listing() {
    let work = tempfile::tempdir().unwrap();
    let artifacts = work.path().join("artifacts");
    std::fs::create_dir(&artifacts).unwrap();
    let view = oracle(&artifacts);
    let server = serve(&artifacts, &view);
    let env = index_env(work.path(), &server);
    let entry = |name: &str, version: &str, latest: bool, status: &str, body: &str| {
        format!(
            r#"{{"server":{{"name":"{name}","version":"{version}"{body}}},
               "_meta":{{"io.modelcontextprotocol.registry/official":{{"status":"{status}","isLatest":{latest}}}}}}}"#
        )
    };
    let package = |kind: &str, id: &str, version: &str| {
        format!(
            r#","packages":[{{"registryType":"{kind}","identifier":"{id}","version":"{version}","transport":{{"type":"stdio"}}}}]"#
        )
    };
    // As daily copies keep it: a bare array behind a byte-order mark, every version.
    let listing = [
        entry(
            "io.a/srv",
            "0.9.0",
            false,
            "active",
            &package("npm", "@acme/srv", "0.9.0"),
        ),
        entry(
            "io.a/srv",
            "1.0.0",
            true,
            "active",
            &package("npm", "@acme/srv", "1.0.0"),
        ),
        entry(
            "io.a/y",
            "1.0",
            true,
            "active",
            &format!(
                r#","repository":{{"url":"https://github.com/Acme/Y","source":"github"}}{}"#,
                package("pypi", "x-mcp", "1.0")
            ),
        ),
        // The same repository at the same tag: one tree, which stands for both.
        entry(
            "io.a/y-too",
            "1.0",
            true,
            "active",
            r#","repository":{"url":"https://github.com/Acme/Y","source":"github"}"#,
        ),
        entry(
            "io.a/gone",
            "1.0.0",
            true,
            "active",
            &format!(
                r#","repository":{{"url":"https://github.com/acme/gone-repo","source":"github"}}{}"#,
                package("npm", "gone", "1.0.0")
            ),
        ),
        entry(
            "io.a/hosted",
            "2",
            true,
            "active",
            r#","remotes":[{"type":"streamable-http","url":"https://hosted.test/mcp?key=k"}]"#,
        ),
        entry(
            "io.a/image",
            "3",
            true,
            "active",
            &package("oci", "docker.io/a/b", "3"),
        ),
        entry(
            "io.a/old",
            "1",
            true,
            "deleted",
            &package("pypi", "x-only", "0.3"),
        ),
    ]
    .join(",\n");
    std::fs::write(
        work.path().join("servers.json"),
        format!("\u{feff}[\n{listing}\n]\n"),
    )
    .unwrap();
    // The repository is read from a local mirror, as a machine with no route to the
    // forge reads it: a bare clone under `--mirrors`, asked to pin and packed to count.
    let source = TestTree::new();
    let server_py = "# readOnlyHint idempotentHint\nopenWorldHint = True\n";
    source.file("server.py", server_py);
    source.git();
    git(source.path(), &["tag", "v1.0"]);
    let mirror = work.path().join("mirrors/acme+y");
    std::fs::create_dir_all(&mirror).unwrap();
    git(
        work.path(),
        &[
            "clone",
            "-q",
            "--bare",
            &source.path().display().to_string(),
            &mirror.join("repo").display().to_string(),
        ],
    );
    let mut with_mirrors = env.clone();
    // No configuration of the machine's points anywhere: the mirrors are the tool's.
    with_mirrors.push(("GIT_CONFIG_NOSYSTEM".to_string(), "1".to_string()));
    let out = run_with(
        work.path(),
        &[
            "corpus",
            "registry",
            "--pages",
            "servers.json",
            "--out",
            "repos.toml",
            "--shipped",
            "shipped.toml",
            "--date",
            "2025-12-18",
            "--jobs",
            "1",
            "--mirrors",
            "mirrors",
        ],
        &with_mirrors,
    );
    assert_code(&out, 0);
    let repos = std::fs::read_to_string(work.path().join("repos.toml")).unwrap();
    assert!(repos.contains("tag 'v1.0'"), "{repos}");
    // The repository without a mirror is not pinned, and the forge is not asked.
    let skipped = std::fs::read_to_string(work.path().join("repos-skipped.csv")).unwrap();
    assert!(
        skipped.contains("no mirror of acme/gone-repo in the mirrors folder"),
        "{skipped}"
    );
    assert!(
        !skipped.contains(&work.path().display().to_string()),
        "{skipped}"
    );
    let out = run_with(
        work.path(),
        &[
            "census",
            "--corpus",
            "repos.toml",
            "--out",
            "repos-out",
            "--cache",
            "repo-cache",
            "--mirrors",
            "mirrors",
            "--date",
            "2025-12-18",
        ],
        &env,
    );
    assert_code(&out, 0);
    let out = run_with(
        work.path(),
        &[
            "census",
            "--corpus",
            "shipped.toml",
            "--out",
            "out",
            "--cache",
            "cache",
            "--date",
            "2025-12-18",
            "--jobs",
            "1",
            "--downloads",
            "1",
        ],
        &env,
    );
    assert_code(&out, 0);
    std::fs::write(
        work.path().join("wire-2026-12-04-servers.csv"),
        "server,registry_name,repository,subfolder,package_registry,package,package_version,artifact,outcome\n\
         io.a/y,io.a/y,,,pypi,x-mcp,1.0,,listed with placeholders\n\
         io.a/srv,io.a/srv,,,npm,@acme/srv,1.0.0,,install failed\n",
    )
    .unwrap();
    // The run's log: one step sampled three times, 65 s apart end to end, holding
    // at most 1 MiB; another sampled twice.
    std::fs::write(
        work.path().join("run.csv"),
        "step,unix_seconds,disk_bytes\n\
         count what ships,1000,10\n\
         count what ships,1030,1048576\n\
         count what ships,1065,2048\n\
         probe the wire,1065,2048\n\
         probe the wire,1070,4096\n",
    )
    .unwrap();
    std::fs::write(
        work.path().join("wire-2026-12-04.csv"),
        "server,tool,readOnlyHint,destructiveHint,idempotentHint,openWorldHint\n\
         io.a/y,get_y,true,false,absent,absent\n\
         io.a/y,put_y,absent,absent,absent,absent\n\
         io.a/srv,,,,,\n",
    )
    .unwrap();
    // The remote endpoints, probed on another day from a machine that reaches them,
    // as `probe --servers remotes.toml` writes them: joined by registry name.
    std::fs::create_dir(work.path().join("remote")).unwrap();
    std::fs::write(
        work.path().join("remote/wire-2026-12-06-servers.csv"),
        "server,registry_name,repository,subfolder,package_registry,package,package_version,artifact,outcome\n\
         io.a/hosted,io.a/hosted,,,,,,,listed\n",
    )
    .unwrap();
    std::fs::write(
        work.path().join("remote/wire-2026-12-06.csv"),
        "server,tool,readOnlyHint,destructiveHint,idempotentHint,openWorldHint\n\
         io.a/hosted,find,true,absent,absent,false\n",
    )
    .unwrap();
    let out = run_with(
        work.path(),
        &[
            "survey",
            "--pages",
            "servers.json",
            "--shipped",
            "shipped.toml",
            "--shipped-table",
            "out/census-2025-12-18.csv",
            "--repos",
            "repos.toml",
            "--repos-table",
            "repos-out/census-2025-12-18.csv",
            "--wire",
            "wire-2026-12-04.csv",
            "--wire",
            "remote/wire-2026-12-06.csv",
            "--run-log",
            "run.csv",
            "--run-on",
            "two cores",
            "--out",
            "survey",
            "--date",
            "2025-12-18",
        ],
        &env,
    );
    assert_code(&out, 0);
    let table = read_csv(&work.path().join("survey/entries-2025-12-18.csv"));
    let col = |name: &str| table[0].iter().position(|h| h == name).unwrap();
    let rows: BTreeMap<&str, Vec<&str>> = table[1..]
        .iter()
        .map(|r| {
            let cells = [
                "version",
                "group",
                "package",
                "repository",
                "wire",
                "shipped_hints",
            ]
            .map(|c| r[col(c)].as_str());
            (r[col("server")].as_str(), cells.to_vec())
        })
        .collect();
    // One row per latest entry; the older version and the deleted entry have none.
    assert_eq!(rows.len(), 6, "{table:?}");
    assert_eq!(
        rows["io.a/y-too"],
        ["1.0", "other", "none", "counted", "none", ""],
        "the tree named after io.a/y stands for it too"
    );
    // The hint names the oracle counts in each package's artifact: srv spells
    // readOnlyHint, destructiveHint, idempotentHint and openWorldHint; the wheel
    // readOnlyHint and destructiveHint.
    let spelled = |artifact: &str| {
        view[artifact].counts[..4]
            .iter()
            .filter(|&&n| n > 0)
            .count()
            .to_string()
    };
    let (srv_hints, y_hints) = (
        spelled("srv-1.0.0.tgz"),
        spelled("x_mcp-1.0-py3-none-any.whl"),
    );
    assert_eq!(
        rows["io.a/srv"],
        [
            "1.0.0",
            "npm",
            "counted",
            "none",
            "install failed",
            srv_hints.as_str()
        ]
    );
    assert_eq!(
        rows["io.a/y"],
        [
            "1.0",
            "PyPI",
            "counted",
            "counted",
            "listed with placeholders",
            y_hints.as_str()
        ]
    );
    assert_eq!(
        rows["io.a/gone"],
        [
            "1.0.0",
            "npm",
            "not served by the index",
            "not pinned",
            "not run",
            ""
        ]
    );
    assert_eq!(
        rows["io.a/hosted"],
        ["2", "remote", "none", "none", "listed", ""]
    );
    assert_eq!(
        rows["io.a/image"],
        [
            "3",
            "other",
            "another registry (oci)",
            "none",
            "another registry",
            ""
        ]
    );
    let y = table[1..]
        .iter()
        .find(|r| r[col("server")] == "io.a/y")
        .unwrap();
    assert_eq!(
        [&y[col("wire_tools")], &y[col("wire_tools_annotated")]],
        ["2", "1"]
    );
    // The mirror's file spells three of the four hint names, whatever their case.
    let in_repo = HINTS
        .iter()
        .filter(|h| naive(server_py.as_bytes(), h) > 0)
        .count();
    assert_eq!(y[col("repository_hints")], in_repo.to_string());
    let hosted = table[1..]
        .iter()
        .find(|r| r[col("server")] == "io.a/hosted")
        .unwrap();
    assert_eq!(
        hosted[col("remotes")],
        "streamable-http hosted.test",
        "no path, no key"
    );
    let report = std::fs::read_to_string(work.path().join("survey/survey-2025-12-18.md")).unwrap();
    assert!(
        report.contains("| counted | 1 | 1 | 0 | 0 | 2 |"),
        "{report}"
    );
    assert!(
        report.contains("of the 2 entries whose package was counted"),
        "{report}"
    );
    // The wire's tools as the table above holds them: of io.a/y's two, get_y declares
    // readOnlyHint and destructiveHint, put_y nothing; so the entry is one whose
    // tools some declare a hint.
    assert!(
        report.contains("| wire | pypi | 2 | 1 (50.0%) | 1 (50.0%) | 0 (0.0%) | 0 (0.0%) |"),
        "{report}"
    );
    // The endpoint's one tool declares readOnlyHint and openWorldHint: every tool
    // of that entry declares one.
    assert!(
        report.contains("| wire | remote | 1 | 1 (100.0%) | 0 (0.0%) | 0 (0.0%) | 1 (100.0%) |"),
        "{report}"
    );
    assert!(
        report.contains("| wire | 2 | 0 (0.0%) | 0 (0.0%) | 1 (50.0%) | 1 (50.0%) |"),
        "{report}"
    );
    // The servers run as the listing gives them, and those given placeholders, apart:
    // io.a/y listed with placeholders, the endpoint as given.
    for line in [
        "| wire | as given | 1 | 1 (100.0%) | 0 (0.0%) | 0 (0.0%) | 1 (100.0%) |",
        "| wire | with placeholders | 2 | 1 (50.0%) | 1 (50.0%) | 0 (0.0%) | 0 (0.0%) |",
        "| wire, as given | 1 | 0 (0.0%) | 0 (0.0%) | 0 (0.0%) | 1 (100.0%) |",
        "| wire, with placeholders | 1 | 0 (0.0%) | 0 (0.0%) | 1 (100.0%) | 0 (0.0%) |",
    ] {
        assert!(report.contains(line), "{line}\n{report}");
    }
    assert!(
        report.contains("the wire's in `wire-2026-12-04.csv` and `wire-2026-12-06.csv`"),
        "{report}"
    );
    assert!(work.path().join("survey/survey-2025-12-18.svg").is_file());
    // The run log's steps: 1065 - 1000 s and at most 1048576 bytes; 5 s; the run
    // from 1000 to 1070.
    assert!(report.contains("On two cores."), "{report}");
    assert!(
        report.contains("| count what ships | 1970-01-01 | 1 min 05 s | 1.0 MiB |"),
        "{report}"
    );
    assert!(
        report.contains("| probe the wire | 1970-01-01 | 5 s | 0.0 MiB |"),
        "{report}"
    );
    assert!(
        report.contains("| the whole run | 1970-01-01 | 1 min 10 s | 1.0 MiB |"),
        "{report}"
    );
}

/// Returns the `[[package]]` block of `name` in a corpus file, its URL replaced.
fn package_block(corpus: &str, name: &str, url: &str) -> String {
    let block = corpus
        .split("\n[[package]]\n")
        .find(|b| b.contains(&format!("\nname = \"{name}\"\n")))
        .unwrap_or_else(|| panic!("{name} is not in the published corpus"));
    let block: Vec<String> = block
        .lines()
        .map(|line| match line.starts_with("url = ") {
            true => format!("url = \"{url}\""),
            false => line.to_string(),
        })
        .collect();
    format!("\n[[package]]\n{}\n", block.join("\n"))
}

#[test]
fn published_rows_of_what_ships_are_rerun_byte_for_byte_from_their_artifacts() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let published = root.join("results/registry-2025-12-18/shipped");
    let fixtures = root.join("tests/data/registry-2025-12-18");
    let artifacts = [
        (
            "zmanim-mcp-server",
            "zmanim_mcp_server-0.2.0-py3-none-any.whl",
        ),
        ("anilist-mcp", "anilist-mcp-1.4.0.tgz"),
    ];
    let served = fixtures.clone();
    let server = Loopback::start(move |request| {
        match std::fs::read(served.join(request.url.trim_start_matches('/'))) {
            Ok(bytes) => reply(200, bytes),
            Err(_) => reply(404, "not found"),
        }
    });
    let corpus = std::fs::read_to_string(published.join("shipped.toml")).unwrap();
    let opening: String = corpus.split("\n[[package]]\n").next().unwrap().to_string();
    let mut text = opening;
    for (name, file) in artifacts {
        text.push_str(&package_block(
            &corpus,
            name,
            &format!("{}/{file}", server.url()),
        ));
    }
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("c.toml"), text).unwrap();
    // The census of the corpus into `out`, with `extra` options.
    let census = |out: &str, extra: &[&str]| {
        let mut args = vec![
            "census",
            "--corpus",
            "c.toml",
            "--out",
            out,
            "--no-cache",
            "--date",
            "2025-12-18",
        ];
        args.extend_from_slice(extra);
        run(work.path(), &args)
    };
    assert_code(&census("out", &[]), 0);
    // Every table's rows of these packages are the published rows, byte for byte.
    for table in ["census", "files", "tools"] {
        let name = format!("{table}-2025-12-18.csv");
        let mine = std::fs::read_to_string(work.path().join("out").join(&name)).unwrap();
        let mut theirs = std::fs::read_to_string(published.join(&name)).unwrap();
        // The published census holds family members, so it has a `family` column,
        // empty for a package that is no member; this corpus has none.
        if theirs
            .lines()
            .next()
            .is_some_and(|h| h.ends_with(",family"))
            && !mine.lines().next().is_some_and(|h| h.ends_with(",family"))
        {
            theirs = theirs
                .lines()
                .map(|l| {
                    l.strip_suffix(",family")
                        .or(l.strip_suffix(','))
                        .unwrap_or(l)
                })
                .map(|l| format!("{l}\n"))
                .collect();
        }
        let mut lines = mine.lines();
        assert_eq!(lines.next(), theirs.lines().next(), "{name}: the header");
        let rerun: Vec<&str> = lines.collect();
        assert!(!rerun.is_empty() || table == "files", "{name}: no row");
        for line in &rerun {
            assert!(
                theirs.lines().any(|l| l == *line),
                "{name}: {line} is not published"
            );
        }
        let published_rows = theirs
            .lines()
            .filter(|l| {
                l.starts_with("pypi:zmanim-mcp-server,") || l.starts_with("npm:anilist-mcp,")
            })
            .count();
        assert_eq!(rerun.len(), published_rows, "{name}");
    }
    // Shards of packages merge into the one run's tables, byte for byte.
    for k in ["1/2", "2/2"] {
        let folder = format!("shard-{}", &k[..1]);
        assert_code(&census(&folder, &["--shard", k]), 0);
    }
    let out = run(
        work.path(),
        &[
            "merge",
            "--corpus",
            "c.toml",
            "--out",
            "merged",
            "shard-1/census-2025-12-18.csv",
            "shard-2/census-2025-12-18.csv",
        ],
    );
    assert_code(&out, 0);
    for table in ["census", "files", "tools"] {
        let name = format!("{table}-2025-12-18.csv");
        let one = std::fs::read(work.path().join("out").join(&name)).unwrap();
        let merged = std::fs::read(work.path().join("merged").join(&name)).unwrap();
        assert!(one == merged, "{name}: the merge differs from one run");
    }
    // An artifact past --max-archive is refused naming the bound, and counts nothing.
    let out = census("small", &["--max-archive", "4KiB"]);
    assert_code(&out, 1);
    assert!(
        !work.path().join("small").exists(),
        "no table of nothing but errors"
    );
    assert!(stderr(&out).contains("--max-archive"), "{}", stderr(&out));
}
