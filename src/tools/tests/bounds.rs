//! The finder's bounds at scale (docs/method.md, "Bounds"): a tree of thousands of
//! files kept aside, on a cycle of imports, is resolved in a bounded number of
//! rounds, and only the files the answer needs are parsed.

use super::super::chains::FRONTIER_ROUNDS;
use super::{assert_rows, find, TreeTools};

/// How many files stand on the cycle: a monorepo's worth.
const FILES: usize = 10_000;

/// The server (it uses the SDK, no anchor: kept aside), a cycle of `FILES` modules
/// each importing the next for its effect (the last one imports the first), and a
/// registration in a file that uses no SDK, imported by the last module when
/// `reached`.
fn tree(reached: bool) -> Vec<(String, Vec<u8>)> {
    let mut files = vec![
        (
            "src/index.ts".to_string(),
            b"import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nimport './m/0.js';\n".to_vec(),
        ),
        (
            "src/tools.ts".to_string(),
            b"export function leaf(server) {\n  server.tool('leaf', 'Leaf', { readOnlyHint: true }, async () => ({}));\n}\n".to_vec(),
        ),
    ];
    for k in 0..FILES {
        let mut text = format!(
            "import './{}.js';\nexport const v{k} = {k};\n",
            (k + 1) % FILES
        );
        if reached && k == FILES - 1 {
            text.push_str("import '../tools.js';\n");
        }
        files.push((format!("src/m/{k}.ts"), text.into_bytes()));
    }
    files
}

fn collect(files: &[(String, Vec<u8>)]) -> TreeTools {
    let mut tools = TreeTools::new();
    for (path, bytes) in files {
        tools.add_file(path.as_bytes(), bytes);
    }
    tools
}

#[test]
fn a_cycle_of_ten_thousand_files_into_a_registration_takes_bounded_rounds() {
    let files = tree(true);
    let borrowed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    // The parse-everything oracle agrees.
    assert_rows(&find(&borrowed), &["src/tools.ts:2 leaf t---"]);
    let mut tools = collect(&files);
    assert_eq!(tools.files.len(), 1, "only the registering file at once");
    let (found, rounds) = tools.resolve_in_rounds();
    assert_eq!(found.len(), 1);
    // One file of the chain a round at first, then the rest of it at once.
    assert_eq!(rounds, FRONTIER_ROUNDS + 2);
    // Each module of the cycle imports something, so is kept once parsed.
    assert_eq!(tools.files.len(), FILES + 2);
}

#[test]
fn a_cycle_of_ten_thousand_files_that_reaches_no_registration_is_not_parsed() {
    let mut tools = collect(&tree(false));
    let (found, rounds) = tools.resolve_in_rounds();
    // The registration is reached from no file that uses the SDK: not the tree's.
    assert!(found.is_empty());
    assert_eq!(rounds, 1);
    let parsed: Vec<&[u8]> = tools.files.iter().map(|f| f.path.as_slice()).collect();
    assert_eq!(parsed, [&b"src/tools.ts"[..]]);
}

#[test]
fn of_the_chains_to_a_registration_only_the_cheapest_is_read() {
    // The server (parsed: it registers a tool of its own) reaches the registration
    // in `leaf.ts` through one file kept aside and, longer, through three; twenty
    // clients using the SDK, kept aside, reach it too.
    let mut files = vec![
        (
            "src/server.ts".to_string(),
            b"import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nimport './long/a.js';\nimport './short.js';\nserver.registerTool('own', { annotations: { readOnlyHint: true } }, cb);\n".to_vec(),
        ),
        ("src/long/a.ts".to_string(), b"import './b.js';\n".to_vec()),
        ("src/long/b.ts".to_string(), b"import './c.js';\n".to_vec()),
        ("src/long/c.ts".to_string(), b"import '../leaf.js';\n".to_vec()),
        ("src/short.ts".to_string(), b"import './leaf.js';\n".to_vec()),
        (
            "src/leaf.ts".to_string(),
            b"export function leaf(server) {\n  server.tool('leaf', 'Leaf', { destructiveHint: true }, async () => ({}));\n}\n".to_vec(),
        ),
    ];
    for k in 0..20 {
        let text = "import { Client } from '@modelcontextprotocol/sdk/client/index.js';\nimport '../long/a.js';\n";
        files.push((format!("src/clients/c{k}.ts"), text.as_bytes().to_vec()));
    }
    let borrowed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    // The parse-everything oracle agrees.
    assert_rows(
        &find(&borrowed),
        &["src/leaf.ts:2 leaf -t--", "src/server.ts:4 own t---"],
    );
    let mut tools = collect(&files);
    let (found, rounds) = tools.resolve_in_rounds();
    assert_eq!(found.len(), 2);
    assert_eq!(rounds, 2);
    let parsed: Vec<&[u8]> = tools.files.iter().map(|f| f.path.as_slice()).collect();
    assert_eq!(
        parsed,
        [&b"src/leaf.ts"[..], b"src/server.ts", b"src/short.ts"]
    );
}
