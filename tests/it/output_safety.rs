//! Text from outside never drives the terminal: every printer is fed names, cells,
//! commits and messages holding an escape sequence, a C1 control and bidirectional
//! overrides, and no such byte may come out on stdout or stderr.

use std::path::Path;
use std::process::Output;

use crate::common::*;

/// The hostile pieces, each of which a terminal would act on.
const ESC: &str = "\u{1b}[2J\u{1b}]0;owned\u{7}";
const BIDI: &str = "\u{202e}evil\u{2066}x\u{2069}\u{202c}";
const C1: &str = "\u{9b}31m";

/// Returns the hostile string used for one value.
fn hostile(base: &str) -> String {
    format!("{base}{ESC}{BIDI}{C1}")
}

/// Fails when the run's output holds a byte or character a terminal would act on.
fn assert_clean(what: &str, out: &Output) {
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let text = String::from_utf8_lossy(bytes);
        let bad: Vec<char> = text
            .chars()
            .filter(|&c| {
                (c.is_control() && c != '\n' && c != '\t')
                    || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
            })
            .collect();
        assert!(
            bad.is_empty(),
            "{what}: {stream} carries {bad:?}\n{}",
            show(out)
        );
    }
    assert_ne!(
        out.status.code(),
        Some(101),
        "{what} panicked\n{}",
        show(out)
    );
}

/// Writes a tiny MCP stdio server (Python) whose server and tool names are hostile.
fn hostile_server(dir: &Path) -> String {
    let name = serde_json::to_string(&hostile("tool")).unwrap();
    let server = serde_json::to_string(&hostile("server")).unwrap();
    let script = format!(
        r#"import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    if msg["method"] == "initialize":
        result = {{"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {{"tools": {{}}}},
                  "serverInfo": {{"name": {server}, "version": {server}}}}}
    elif msg["method"] == "tools/list":
        result = {{"tools": [{{"name": {name}, "title": {name}, "inputSchema": {{"type": "object"}},
                   "annotations": {{"readOnlyHint": True, "title": {name}}}}}]}}
    else:
        result = {{}}
    print(json.dumps({{"jsonrpc": "2.0", "id": msg["id"], "result": result}}), flush=True)
"#
    );
    let path = dir.join("server.py");
    std::fs::write(&path, script).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn no_printer_passes_control_or_bidi_characters_through() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();

    // scan: a file name, a term in the header, and a listing of files.
    let tree = root.join("tree");
    std::fs::create_dir_all(&tree).unwrap();
    std::fs::write(tree.join(hostile("f")), b"readOnlyHint x").unwrap();
    let term = format!("x{ESC}");
    let out = run(root, &["scan", "--files", "--by-extension", "tree"]);
    assert_clean("scan --files", &out);
    let out = run(
        root,
        &["scan", "--terms", &format!("readOnlyHint,{term}"), "tree"],
    );
    assert_clean("scan --terms", &out);
    let out = run(root, &["scan", &hostile("missing")]);
    assert_clean("scan of a missing path", &out);

    // compare: hostile cells, commits and column names.
    let a = format!(
        "repo,pinned,commit,files_walked,{h},status,error\n{r},abcd,{c},1,1,ok,\n",
        h = hostile("col"),
        r = hostile("o/r"),
        c = hostile("abcd")
    );
    let b = format!(
        "repo,pinned,commit,files_walked,{h},status,error\n{r},abcd,{c},2,2,error,{e}\n",
        h = hostile("col"),
        r = hostile("o/r"),
        c = hostile("ffff"),
        e = hostile("why")
    );
    std::fs::write(root.join("a.csv"), a).unwrap();
    std::fs::write(root.join("b.csv"), &b).unwrap();
    let out = run(root, &["compare", "a.csv", "b.csv"]);
    assert_clean("compare", &out);
    std::fs::write(root.join("b.csv"), b.replace(",error,", ",ok,")).unwrap();
    let out = run(root, &["compare", "a.csv", "b.csv"]);
    assert_clean("compare of differing cells", &out);

    // census: a corpus term in the table header.
    std::fs::write(
        root.join("corpus.toml"),
        format!(
            "[census]\nterms = [{}]\narchive_url = \"http://127.0.0.1:9/{{repo}}\"\n[[tree]]\nrepo = \"o/r\"\ncommit = \"abcd\"\n",
            serde_json::to_string(&hostile("t")).unwrap()
        ),
    )
    .unwrap();
    let out = run(
        root,
        &[
            "census",
            "--corpus",
            "corpus.toml",
            "--offline",
            "--cache",
            "c",
            "--quiet",
        ],
    );
    assert_clean("census", &out);

    // probe and diff: hostile server and tool names and titles.
    let server = hostile_server(root);
    let out = run(
        root,
        &[
            "probe",
            "--save",
            "s.json",
            "--date",
            "2026-09-07",
            "--",
            "python3",
            &server,
        ],
    );
    assert_clean("probe", &out);
    assert!(root.join("s.json").exists(), "{}", show(&out));
    let snapshot = std::fs::read_to_string(root.join("s.json")).unwrap();
    std::fs::write(
        root.join("t.json"),
        snapshot.replace("\"readOnlyHint\": true", "\"readOnlyHint\": false"),
    )
    .unwrap();
    let out = run(root, &["diff", "s.json", "t.json"]);
    assert_clean("diff", &out);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let out = run(root, &["diff", "t.json", "s.json"]);
    assert_clean("diff of a permissive change", &out);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
}
