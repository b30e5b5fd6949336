//! Tests of a package's family (docs/method.md, "A package's family"), against an npm
//! registry served on 127.0.0.1: a server package whose tools are defined only in a
//! dependency it pins to one exact version. The member must be pinned by its own
//! digest, fetched once, counted as its own bytes (the naive counter over the
//! fixture's files is the oracle), and its tools joined to the wire as the server's;
//! a ranged dependency is never asked for, and a member the registry does not serve
//! is named in the skipped list without costing its package.

use std::collections::BTreeMap;
use std::io::Write as _;

use base64::Engine as _;
use sha2::Digest as _;

use crate::common::*;

const TERMS: [&str; 5] = [
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
    "annotations",
];

/// The member's tools: defined in the member only, with hints.
const SPECS: [ToolSpec; 2] = [
    ToolSpec {
        name: "list",
        hints: ["true", "", "", "false"],
    },
    ToolSpec {
        name: "remove",
        hints: ["false", "true", "", ""],
    },
];

/// Returns an npm tarball of `items` under `package/`, gzip-compressed.
fn tarball(items: &[Item]) -> Vec<u8> {
    let tar = tar_bytes("package", None, items);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&tar).unwrap();
    gz.finish().unwrap()
}

fn file(path: &str, bytes: impl Into<Vec<u8>>) -> Item {
    Item::File(format!("package/{path}"), bytes.into())
}

/// Returns a packument of `name` at 1.0.0 with `dependencies`, its tarball at `url`.
fn packument(name: &str, url: &str, bytes: &[u8], dependencies: &str) -> String {
    let integrity = base64::engine::general_purpose::STANDARD.encode(sha2::Sha512::digest(bytes));
    format!(
        r#"{{"name":"{name}","dist-tags":{{"latest":"1.0.0"}},"versions":{{"1.0.0":{{
            "dependencies":{dependencies},
            "dist":{{"tarball":"{url}","integrity":"sha512-{integrity}"}}}}}}}}"#
    )
}

#[test]
fn an_exact_pinned_dependency_is_pinned_counted_and_joined_as_its_packages_own() {
    let work = tempfile::tempdir().unwrap();
    let (tools_js, lines) = ts_server(&SPECS);
    let parent_items = [
        file(
            "package.json",
            r#"{"name":"srv","version":"1.0.0","dependencies":{"@acme/srv-tools":"1.0.0","lib-ranged":"^2.0.0","srv-gone":"1.0.0"}}"#,
        ),
        // The server itself: it only starts what the member defines.
        file(
            "index.js",
            "import { start } from \"@acme/srv-tools\";\n// annotations live there\nstart();\n",
        ),
    ];
    let member_items = [
        file(
            "package.json",
            r#"{"name":"@acme/srv-tools","version":"1.0.0"}"#,
        ),
        file("dist/tools.js", tools_js),
        file(
            "README.md",
            "Each tool sets readOnlyHint and openWorldHint.\n",
        ),
    ];
    let parent = tarball(&parent_items);
    let member = tarball(&member_items);
    let (parent_tgz, member_tgz) = (parent.clone(), member.clone());
    let base = std::sync::Arc::new(std::sync::OnceLock::<String>::new());
    let url = base.clone();
    let server = Loopback::start(move |request| {
        let at = url.get().cloned().unwrap_or_default();
        let json = |body: String| {
            tiny_http::Response::from_data(body.into_bytes())
                .with_header(header("Content-Type: application/json"))
                .boxed()
        };
        match request.url.as_str() {
            "/npm/srv" => json(packument(
                "srv",
                &format!("{at}/npm/srv/-/srv-1.0.0.tgz"),
                &parent_tgz,
                r#"{"@acme/srv-tools":"1.0.0","lib-ranged":"^2.0.0","srv-gone":"1.0.0"}"#,
            )),
            "/npm/@acme%2fsrv-tools" => json(packument(
                "@acme/srv-tools",
                &format!("{at}/npm/@acme/srv-tools/-/srv-tools-1.0.0.tgz"),
                &member_tgz,
                // The member's own exact dependency: one level only.
                r#"{"deeper":"1.0.0"}"#,
            )),
            "/npm/srv/-/srv-1.0.0.tgz" => reply(200, parent_tgz.clone()),
            "/npm/@acme/srv-tools/-/srv-tools-1.0.0.tgz" => reply(200, member_tgz.clone()),
            _ => reply(404, "not found"),
        }
    });
    base.set(server.url()).unwrap();
    let env: Vec<(String, String)> = [
        ("NPM_CONFIG_REGISTRY", format!("{}/npm/", server.url())),
        (
            "NPM_CONFIG_USERCONFIG",
            work.path().join("none").display().to_string(),
        ),
        (
            "NPM_CONFIG_GLOBALCONFIG",
            work.path().join("none").display().to_string(),
        ),
        ("NETRC", work.path().join("no-netrc").display().to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let run = |args: &[&str]| {
        let mut run = Run::new(work.path()).args(args);
        for (k, v) in &env {
            run = run.env(k, v);
        }
        run.output()
    };
    std::fs::write(work.path().join("list.txt"), "npm:srv@1.0.0\n").unwrap();

    let out = run(&[
        "corpus", "packages", "list.txt", "--out", "c.toml", "--jobs", "1",
    ]);
    assert_code(&out, 0);
    let corpus = std::fs::read_to_string(work.path().join("c.toml")).unwrap();
    let member_digest = format!(
        "sha512-{}",
        base64::engine::general_purpose::STANDARD.encode(sha2::Sha512::digest(&member))
    );
    for want in [
        "name = \"@acme/srv-tools\"".to_string(),
        format!("digest = \"{member_digest}\""),
        "family = \"npm:srv@1.0.0\"".to_string(),
        "note = \"exact-pinned dependency of srv 1.0.0\"".to_string(),
    ] {
        assert!(corpus.contains(&want), "{want} in:\n{corpus}");
    }
    assert_eq!(server.hits("/npm/@acme%2fsrv-tools"), 1);
    assert_eq!(
        server.hits("/npm/lib-ranged"),
        0,
        "a range is not the family"
    );
    assert_eq!(
        server.hits("/npm/deeper"),
        0,
        "the family is one level deep"
    );
    let skipped = read_csv(&work.path().join("c-skipped.csv"));
    assert_eq!(skipped.len(), 2, "{skipped:?}");
    assert_eq!(skipped[1][0], "npm:srv-gone");
    assert!(
        skipped[1][4].starts_with("an exact-pinned dependency of 'npm:srv@1.0.0', not pinned:")
            && skipped[1][4].contains("HTTP 404"),
        "{skipped:?}"
    );

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
        run(&args)
    };
    assert_code(&census(&[]), 0);
    let table = read_csv(&work.path().join("out/census-2026-12-01.csv"));
    let at = |name: &str| table[0].iter().position(|h| h == name).unwrap();
    let rows: BTreeMap<&str, &Vec<String>> =
        table[1..].iter().map(|r| (r[0].as_str(), r)).collect();
    assert_eq!(
        rows.keys().copied().collect::<Vec<_>>(),
        ["npm:@acme/srv-tools", "npm:srv"]
    );
    for (repo, items, family) in [
        ("npm:srv", &parent_items[..], ""),
        ("npm:@acme/srv-tools", &member_items, "npm:srv@1.0.0"),
    ] {
        let row = rows[repo];
        let want = expected(items, &TERMS);
        assert_eq!(row[at("status")], "ok", "{row:?}");
        assert_eq!(row[at("files_walked")], want.files.to_string(), "{repo}");
        assert_eq!(row[at("bytes_read")], want.bytes.to_string(), "{repo}");
        let got: Vec<u64> = TERMS.iter().map(|t| row[at(t)].parse().unwrap()).collect();
        assert_eq!(got, want.counts, "{repo}: its own bytes, counted naively");
        assert_eq!(row[at("family")], family, "{repo}");
    }
    let member_row = rows["npm:@acme/srv-tools"];
    assert_eq!(member_row[at("digest")], member_digest);
    assert_eq!(member_row[at("tools")], "2");
    assert_eq!(
        rows["npm:srv"][at("tools")],
        "0",
        "the package defines none itself"
    );

    // The cache serves the member again: downloaded once.
    std::fs::remove_dir_all(work.path().join("out")).unwrap();
    assert_code(&census(&[]), 0);
    assert_eq!(
        server.hits("/npm/@acme/srv-tools/-/srv-tools-1.0.0.tgz"),
        1,
        "each member is downloaded once"
    );

    // The wire lists the member's tools under the server that runs them.
    let write = |name: &str, text: String| std::fs::write(work.path().join(name), text).unwrap();
    write(
        "wire-2026-12-02-servers.csv",
        format!(
            "server,registry_name,repository,subfolder,package_registry,package,package_version,artifact,outcome\n\
             srv,io.github.acme/srv,,,npm,srv,1.0.0,sha512-{},listed\n",
            base64::engine::general_purpose::STANDARD.encode(sha2::Sha512::digest(&parent))
        ),
    );
    write(
        "wire-2026-12-02.csv",
        "server,tool,readOnlyHint,destructiveHint,idempotentHint,openWorldHint\n\
         srv,list,true,false,false,false\n\
         srv,remove,false,true,false,true\n"
            .to_string(),
    );
    let out = run(&[
        "join",
        "wire-2026-12-02.csv",
        "--source-table",
        "out/census-2026-12-01.csv",
    ]);
    assert_code(&out, 0);
    let join = read_csv(&work.path().join("join-2026-12-02.csv"));
    let col = |name: &str| join[0].iter().position(|h| h == name).unwrap();
    let got: Vec<[&str; 6]> = join[1..]
        .iter()
        .map(|r| {
            [
                r[col("repo")].as_str(),
                r[col("join")].as_str(),
                r[col("tool")].as_str(),
                r[col("presence")].as_str(),
                r[col("source_path")].as_str(),
                r[col("source_line")].as_str(),
            ]
        })
        .collect();
    let path = "npm:@acme/srv-tools@1.0.0/package/dist/tools.js";
    let (list, remove) = (lines[0].to_string(), lines[1].to_string());
    assert_eq!(
        got,
        [
            ["npm:srv", "joined", "list", "both", path, list.as_str()],
            ["npm:srv", "joined", "remove", "both", path, remove.as_str()],
        ],
        "{join:?}"
    );
}
