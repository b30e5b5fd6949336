//! What is parsed: files kept aside until a lookup or a chain of imports needs
//! them, their bound, anchors that stand only in comments, bodies left out of the
//! parse, and the bounds on bad input.

use std::time::Duration;

use super::super::filter::skim;
use super::super::parse::parse;
use super::*;

#[test]
fn a_file_without_an_anchor_is_parsed_only_when_a_lookup_needs_it() {
    let mut tools = TreeTools::new();
    tools.add_file(b"a.ts", b"export const a = 1;\n");
    tools.add_file(
        b"src/presets.ts",
        b"export const RO = { readOnlyHint: true };\n",
    );
    tools.add_file(
        b"src/unused.ts",
        b"export const X = { readOnlyHint: false };\n",
    );
    tools.add_file(
        b"src/index.ts",
        b"import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nimport { RO } from './presets.js';\nserver.registerTool('r', { annotations: RO }, cb);\n",
    );
    assert_eq!(
        tools.files.len(),
        1,
        "only the file with an anchor is parsed at once"
    );
    let kept: Vec<(bool, &[u8])> = tools
        .aside
        .kept
        .keys()
        .map(|(plain, p)| (*plain, p.as_slice()))
        .collect();
    assert_eq!(
        kept,
        [
            (false, &b"src/presets.ts"[..]),
            (false, b"src/unused.ts"),
            (true, b"a.ts")
        ]
    );
    tools.resolve();
    let parsed: Vec<&[u8]> = tools.files.iter().map(|f| f.path.as_slice()).collect();
    assert_eq!(parsed, [&b"src/index.ts"[..], b"src/presets.ts"]);
}

/// A registration in a file that uses no SDK counts when a file using one imports
/// it, here through a file with no anchor in between: the files on that chain are
/// parsed, and nothing else.
#[test]
fn a_chain_of_imports_into_a_registration_is_parsed_and_nothing_else() {
    let files: &[(&str, &[u8])] = &[
        (
            "src/index.ts",
            b"import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nimport { registerAll } from './register.js';\nregisterAll(new McpServer({}));\n",
        ),
        (
            "src/register.ts",
            b"import { search } from './tools/search.js';\nexport function registerAll(s) { search(s); }\n",
        ),
        (
            "src/tools/search.ts",
            b"export function search(server) {\n  server.tool('search', 'Search', { readOnlyHint: true }, async () => ({}));\n}\n",
        ),
        (
            "src/other/lonely.ts",
            b"export function f(server) {\n  server.tool('lonely', { readOnlyHint: false }, cb);\n}\n",
        ),
        (
            "src/util.ts",
            b"import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nexport const x = 1;\n",
        ),
    ];
    assert_rows(&find(files), &["src/tools/search.ts:2 search t---"]);
    let mut tools = TreeTools::new();
    for (path, bytes) in files {
        tools.add_file(path.as_bytes(), bytes);
    }
    tools.resolve();
    let parsed: Vec<&[u8]> = tools.files.iter().map(|f| f.path.as_slice()).collect();
    assert_eq!(
        parsed,
        [
            &b"src/index.ts"[..],
            b"src/other/lonely.ts",
            b"src/register.ts",
            b"src/tools/search.ts"
        ],
        "the chain and the anchored files, not src/util.ts"
    );
}

/// A preset file with no registration spelling, reached through each kind of
/// reference the resolver follows, one hop further through a re-export.
#[test]
fn presets_in_files_that_register_nothing_are_resolved() {
    let found = find(&[
        ("ts/presets/base.ts", b"export const RO = { readOnlyHint: true };\n"),
        ("ts/presets/index.ts", b"export * from './base';\n"),
        (
            "ts/index.ts",
            b"import { RO } from './presets';\nimport * as p from './presets/base.js';\n\
server.registerTool('a', { annotations: RO }, cb);\n\
server.registerTool('b', { annotations: p.RO }, cb);\nimport '@modelcontextprotocol/sdk';\n",
        ),
        ("py/presets.py", b"READ_ONLY = {\"readOnlyHint\": True}\n"),
        ("py/hints/__init__.py", b"CLOSED = {\"openWorldHint\": False}\n"),
        (
            "py/server.py",
            b"from mcp.server.fastmcp import FastMCP\nfrom . import presets\nfrom .hints import CLOSED\n\
mcp = FastMCP('x')\n@mcp.tool(annotations=presets.READ_ONLY)\ndef a(): pass\n\
@mcp.tool(annotations=CLOSED)\ndef b(): pass\n",
        ),
        ("go/hints.go", b"package main\nvar readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true}\n"),
        ("go/hints_other.go", b"package main\nvar hint = 1\n"),
        (
            "go/main.go",
            b"package main\nfunc main() { mcp.AddTool(s, &mcp.Tool{Name: \"g\", Annotations: readOnly}, h) }\nimport \"github.com/modelcontextprotocol/go-sdk/mcp\"\n",
        ),
        ("go/sub/far.go", b"package sub\nvar readOnly = &mcp.ToolAnnotations{IdempotentHint: true}\n"),
    ]);
    assert_rows(
        &found,
        &[
            "go/main.go:2 g t---",
            "py/server.py:5 a t---",
            "py/server.py:7 b ---f",
            "ts/index.ts:3 a t---",
            "ts/index.ts:4 b t---",
        ],
    );
}

/// Past MAX_DEFERRED_BYTES the files last in path order are let go: one that a
/// registration reaches then reads `?` and counts as skipped, whatever the order
/// files arrive in and however a parallel walk splits them.
#[test]
fn files_kept_aside_are_bounded_and_the_bound_is_counted() {
    let mib = 1024 * 1024;
    let count = MAX_DEFERRED_BYTES / mib + 2;
    let presets: Vec<(String, Vec<u8>)> = (0..count)
        .map(|i| {
            let mut bytes = b"export const P = { readOnlyHint: true };\n//".to_vec();
            bytes.resize(mib - 1, b'x');
            bytes.push(b'\n');
            (format!("p{i:02}.ts"), bytes)
        })
        .collect();
    let index = format!(
        "import {{ P as first }} from './p00';\nimport {{ P as last }} from './p{:02}';\n\
server.registerTool('first', {{ annotations: first }}, cb);\n\
server.registerTool('last', {{ annotations: last }}, cb);\nimport '@modelcontextprotocol/sdk';\n",
        count - 1
    );
    let expected = ["index.ts:3 first t---", "index.ts:4 last ????"];

    let mut forward = TreeTools::new();
    forward.add_file(b"index.ts", index.as_bytes());
    for (path, bytes) in &presets {
        forward.add_file(path.as_bytes(), bytes);
    }
    assert!(forward.aside.bytes <= MAX_DEFERRED_BYTES);
    let forward = forward.finish();
    assert_rows(&forward, &expected);
    assert_eq!(forward.skipped_files, 1, "the reached file that was let go");

    // Backwards, split over two collectors as a parallel walk would.
    let mut a = TreeTools::new();
    let mut b = TreeTools::new();
    for (i, (path, bytes)) in presets.iter().enumerate().rev() {
        let side = if i % 2 == 0 { &mut a } else { &mut b };
        side.add_file(path.as_bytes(), bytes);
    }
    b.add_file(b"index.ts", index.as_bytes());
    a.merge(b);
    let split = a.finish();
    assert_eq!(split, forward);
}

#[test]
fn bad_input_never_panics_and_bounds_hold() {
    let mut nested = b"server.registerTool(\"deep\", { annotations: ".to_vec();
    let depth = 20_000;
    nested.extend(std::iter::repeat_n(b'[', depth));
    nested.extend(std::iter::repeat_n(b']', depth));
    nested.extend_from_slice(b" }, cb);\nimport '@modelcontextprotocol/sdk';\n");
    let mut bundle = Vec::with_capacity(50 << 20);
    while bundle.len() < 50 << 20 {
        bundle.extend_from_slice(b"s.registerTool(\"m\",{annotations:{readOnlyHint:!0}},c);");
    }
    let nul = b"server.registerTool(\"nul\", { annotations: { readOnlyHint: true } }, cb);\0\0\0\nimport '@modelcontextprotocol/sdk';\n";
    let invalid = b"server.registerTool(\"bad\xff\xfe\", { annotations: { readOnlyHint: false } }, cb);\nserver.registerTool(\"good\", {}, cb);\nimport '@modelcontextprotocol/sdk';\n";
    let found = find(&[
        ("deep.ts", &nested),
        ("bundle.js", &bundle),
        ("nul.js", nul),
        ("invalid.ts", invalid),
        ("garbage.ts", b"tool(((((( hint ]]]] \xc3\x28 {{{{"),
    ]);
    assert_rows(
        &found,
        &[
            "deep.ts:1 deep ????",
            "invalid.ts:1 <dynamic> f---",
            "invalid.ts:2 good ----",
            "nul.js:1 nul t---",
        ],
    );
    assert_eq!(found.skipped_files, 1, "the 50 MiB bundle");
}

#[test]
fn a_parse_past_its_budget_is_abandoned() {
    let src = b"server.registerTool(\"x\", {}, cb);\n".repeat(2000);
    assert!(parse(Lang::TypeScript, &src, &[], PARSE_BUDGET).is_some());
    assert!(parse(Lang::TypeScript, &src, &[], Duration::ZERO).is_none());
    // The thread's parser, reused, starts the next parse afresh: a small file,
    // then a file of another language.
    let small = b"server.registerTool(\"y\", {}, cb);\n";
    let tree = parse(Lang::TypeScript, small, &[], PARSE_BUDGET).expect("parsed");
    assert_eq!(tree.root_node().end_byte(), small.len());
    assert!(!tree.root_node().has_error());
    let py = b"@mcp.tool()\ndef f():\n    return 1\n";
    let tree = parse(Lang::Python, py, &[], PARSE_BUDGET).expect("parsed");
    assert_eq!(tree.root_node().kind(), "module");
    assert!(!tree.root_node().has_error());
}

/// An optional call of `server.tool` is a registration like any other, and its
/// file is parsed at once.
#[test]
fn an_optional_call_of_tool_is_anchored_and_found() {
    let files: &[(&str, &[u8])] = &[(
        "src/index.ts",
        b"import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nserver.tool?.('opt', { readOnlyHint: true }, async () => ({}));\n",
    )];
    assert_rows(&find(files), &["src/index.ts:2 opt t---"]);
}

/// A definition in a file that uses no SDK counts when a chain of imports reaches it
/// from one that does; the files kept aside on such chains are parsed from the
/// SDK's end, a round at a time, and once the definition counts, the rest of them
/// are not parsed at all.
#[test]
fn chains_are_read_from_the_sdk_end_and_no_further_than_they_need() {
    let files: &[(&str, &[u8])] = &[
        (
            "src/server.ts",
            b"import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nimport { all } from './tools/index';\nexport const s = new McpServer({ name: 's', version: '1' });\n",
        ),
        (
            "src/tools/index.ts",
            b"export * from './search';\nimport './helpers';\n",
        ),
        (
            "src/tools/helpers.ts",
            b"import { search } from './search';\nexport const names = [search.name];\n",
        ),
        (
            "src/tools/search.ts",
            b"import { names } from './helpers';\nexport const search = define({ name: 'search', annotations: { readOnlyHint: true } });\n",
        ),
    ];
    assert_rows(&find(files), &["src/tools/search.ts:2 search t---"]);
    let mut tools = TreeTools::new();
    for (path, bytes) in files {
        tools.add_file(path.as_bytes(), bytes);
    }
    tools.resolve();
    let parsed: Vec<&[u8]> = tools.files.iter().map(|f| f.path.as_slice()).collect();
    assert_eq!(
        parsed,
        [
            &b"src/server.ts"[..],
            b"src/tools/index.ts",
            b"src/tools/search.ts"
        ]
    );
}

/// An anchor spelled only in a comment, or in a string that cannot hold code (a
/// docstring, a Go, Java or Rust literal), is no reason to parse a file: it is read
/// as one without anchors. Beside such spellings, a registration in code is read,
/// and so is one inside a Python f-string's field or a TypeScript template's
/// substitution, which are code.
#[test]
fn an_anchor_in_a_comment_or_a_docstring_alone_is_no_reason_to_parse() {
    let quiet: [(&str, &str); 7] = [
        (
            "pkg/server.py",
            "from mcp.server.fastmcp import FastMCP\ndef f():\n    \"\"\"Use it as\n\n    @mcp.tool\n    def g(): ...\n    \"\"\"\n    return 1\n# mcp.add_tool(f)\nS = rb'Tool('\n",
        ),
        (
            "src/Main.java",
            "/** {@code new Tool(\"x\", \"d\", schema)} */\nclass A { String s = \"Tool(\"; String t = \"\"\"\n  Tool.builder()\n  \"\"\"; }\n",
        ),
        (
            "main.go",
            "package main\n// mcp.AddTool(s, &mcp.Tool{Name: \"x\"}, h)\nvar s = \"NewTool(\" + `AddTool(`\n",
        ),
        ("src/lib.rs", "/// #[tool(description = \"x\")]\nfn f() { let s = r#\"Tool::new\"#; }\n"),
        ("src/Tools.cs", "// [McpServerTool]\nclass A { }\n"),
        ("src/index.ts", "// server.tool(\"x\", {}, cb)\n/* server.registerTool( */ export const a = 1;\n"),
        // A page held in a string literal, as a generated UI module holds one.
        (
            "src/ui.ts",
            "export const Html = \"<script>x.tool(a);class A extends Tool{}var o={k:f({})}</script>\";\n",
        ),
    ];
    for (path, text) in quiet {
        let lang = Lang::of(path.as_bytes()).expect("a wanted file");
        assert!(
            prefilter::anchored(lang, text.as_bytes()),
            "{path} spells an anchor"
        );
        let read = TreeTools::new().read_file(path.as_bytes(), text.as_bytes());
        assert!(
            matches!(read, FileRead::Aside { .. } | FileRead::Nothing),
            "{path} is parsed"
        );
        find(&[(path, text.as_bytes())]);
    }
    let files: &[(&str, &[u8])] = &[
        (
            "pkg/server.py",
            b"from mcp.server.fastmcp import FastMCP\nmcp = FastMCP(\"s\")\n# @mcp.tool\n@mcp.tool(annotations={\"readOnlyHint\": True})  # a tool\ndef g():\n    \"\"\"Not @mcp.tool(), but a docstring.\"\"\"\n",
        ),
        (
            "pkg/fields.py",
            b"from mcp.server.fastmcp import FastMCP\nmcp = FastMCP(\"s\")\nlabel = f\"{mcp.add_tool(h, name='in_field', annotations={'readOnlyHint': False})}\"\n",
        ),
        (
            "src/index.ts",
            b"import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\n// server.tool('no', {}, cb)\nconst q = `${server.tool('held', { readOnlyHint: true }, cb)}`;\n",
        ),
    ];
    for file in files {
        let read = TreeTools::new().read_file(file.0.as_bytes(), file.1);
        assert!(matches!(read, FileRead::Parsed(_)), "{} is parsed", file.0);
    }
    assert_rows(
        &find(files),
        &[
            "pkg/fields.py:3 in_field f---",
            "pkg/server.py:4 g t---",
            "src/index.ts:3 held t---",
        ],
    );
}

/// Handlers whose bodies the parse leaves out (`skim`), full of what a lexer can
/// trip on, between registrations: every registration is still read, on the line
/// it is on, and `find` checks the same tools come of reading every byte.
#[test]
fn registrations_around_bodies_left_out_are_read() {
    let ts = br#"import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
const server = new McpServer({ name: "s", version: "1" });
server.registerTool("first", { annotations: { readOnlyHint: true } }, async (args) => {
  const re = /[}{]\//g;
  const t = `${"}"} ${ { a: 1 }.a } }`;
  // } a comment {
  if (re.test(t)) { return { content: [{ type: "text", text: "}" }] }; }
  return { content: [] };
});
function helper(x) { const y = x / 2; return y; }
server.tool("second", "d", {}, { destructiveHint: false }, async () => {
  const label = '{';
  return { content: [{ type: "text", text: label }] };
});
"#;
    let py = br#"from mcp.server.fastmcp import FastMCP
mcp = FastMCP("s")

@mcp.tool(annotations={"readOnlyHint": True})
async def first(x: int) -> str:
    """A docstring with a def f(): and a ( that is not closed."""
    text = f"{x}" + '}' + """
def not_a_function():
"""
    return text

@mcp.tool(annotations={"openWorldHint": False})
def second() -> str:
    y = [
        1,
    ]
    return str(y)
"#;
    let go = br#"package tools

import "github.com/mark3labs/mcp-go/mcp"

func First() (mcp.Tool, server.ToolHandlerFunc) {
	return mcp.NewTool("first", mcp.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s := `}{` + "}" + string('{')
			if len(s) > 0 {
				return nil, nil
			}
			return nil, nil
		}
}

func Second() mcp.Tool {
	return mcp.NewTool("second", mcp.WithDestructiveHintAnnotation(false))
}
"#;
    let found = find(&[
        ("src/index.ts", ts),
        ("pkg/server.py", py),
        ("tools/tools.go", go),
    ]);
    assert_rows(
        &found,
        &[
            "pkg/server.py:4 first t---",
            "pkg/server.py:12 second ---f",
            "src/index.ts:3 first t---",
            "src/index.ts:11 second -f--",
            "tools/tools.go:6 first t---",
            "tools/tools.go:17 second -f--",
        ],
    );
    for (lang, text) in [
        (Lang::TypeScript, &ts[..]),
        (Lang::Python, py),
        (Lang::Go, go),
    ] {
        assert!(!skim::bodies(lang, text).is_empty(), "a body is left out");
    }
}
