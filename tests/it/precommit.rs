//! The pre-commit hook (`.pre-commit-hooks.yaml`, docs/scan.md "Before a commit: the
//! pre-commit hook"): pre-commit itself (pinned in tests/peers/requirements.txt)
//! accepts the manifest, and the hook's entry, run as pre-commit runs it (from the
//! repository's top, no file names), fails on a tree with a silent tool and passes on
//! one whose tools declare what they should.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;
use crate::support::peers;

/// Returns the manifest's path.
fn manifest() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(".pre-commit-hooks.yaml")
}

/// Returns the peers' venv python when pre-commit is installed in it.
fn python_with_pre_commit() -> Option<PathBuf> {
    let python = peers().join(".venv/bin/python");
    let has = Command::new(&python)
        .args(["-c", "import pre_commit"])
        .output()
        .is_ok_and(|o| o.status.success());
    has.then_some(python)
}

#[test]
fn pre_commit_accepts_the_manifest_and_the_hook_gates_the_lint() {
    let Some(python) = python_with_pre_commit() else {
        skip("no pre-commit in tests/peers/.venv; run tests/peers/install.sh");
        return;
    };
    let out = Command::new(&python)
        .args(["-m", "pre_commit", "validate-manifest"])
        .arg(manifest())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", show(&out));

    // The hook as pre-commit reads it: its fields, and its entry split as a shell
    // splits it (pre-commit's own `shlex`).
    let out = Command::new(&python)
        .args([
            "-c",
            "import json, shlex, sys, yaml\n\
             hooks = yaml.safe_load(open(sys.argv[1]))\n\
             hook, = [h for h in hooks if h['id'] == 'mcp-hint-census']\n\
             hook['argv'] = shlex.split(hook['entry'])\n\
             print(json.dumps(hook))",
        ])
        .arg(manifest())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", show(&out));
    let hook: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(hook["language"], "rust");
    assert_eq!(hook["pass_filenames"], false);
    assert_eq!(hook["always_run"], true);
    let argv: Vec<String> = hook["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    // `language: rust` installs this crate's binary on the hook's PATH.
    assert_eq!(argv[0], "mcp-hint-census");
    let entry = |tree: &Path| {
        Command::new(env!("CARGO_BIN_EXE_mcp-hint-census"))
            .args(&argv[1..])
            .current_dir(tree)
            .output()
            .unwrap()
    };

    let head = "import { McpServer } from \"@modelcontextprotocol/sdk/server/mcp.js\";\n\
                const server = new McpServer({ name: \"x\", version: \"1\" });\n";
    let silent = TestTree::new();
    silent.file(
        "src/server.ts",
        format!(
            "{head}server.registerTool(\"get_note\", {{ annotations: {{ readOnlyHint: true, openWorldHint: false }} }}, cb);\n\
             server.registerTool(\"list_notes\", {{ description: \"d\" }}, cb);\n"
        ),
    );
    let out = entry(silent.path());
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    let err = stderr(&out);
    assert!(
        err.contains(
            "mcp-hint-census: src/server.ts:4: MHC001: tool 'list_notes' declares no hint"
        ),
        "{err}"
    );
    assert_eq!(err.matches(": MHC").count(), 1, "{err}");

    let declared = TestTree::new();
    declared.file(
        "src/server.ts",
        format!(
            "{head}server.registerTool(\"get_note\", {{ annotations: {{ readOnlyHint: true, openWorldHint: false }} }}, cb);\n\
             server.registerTool(\"delete_note\", {{ annotations: {{ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false }} }}, cb);\n"
        ),
    );
    let out = entry(declared.path());
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let listing = String::from_utf8_lossy(&out.stdout);
    assert!(listing.contains("2 found, 2 annotated"), "{listing}");
}
