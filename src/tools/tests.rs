//! Fixture trees per SDK family, built in code after each SDK's documented
//! examples, with the tools and hints known by hand; and the bounds on bad input.

use super::*;

mod bounds;
mod packages;
mod php;
mod ruby;
mod swift;

/// Runs the finder over `(path, text)` files, and checks that what it finds is what
/// parsing every file whole would find: the spelling filter, the files kept aside
/// and the bodies left out change how much is parsed, never the answer.
pub(crate) fn find(files: &[(&str, &[u8])]) -> FoundTools {
    let mut tools = TreeTools::new();
    for (path, bytes) in files {
        assert!(TreeTools::wants(path.as_bytes()), "{path} is wanted");
        tools.add_file(path.as_bytes(), bytes);
    }
    let found = tools.finish();
    let everything = parse_everything(files);
    assert_eq!(
        found.tools, everything.tools,
        "the filter changed the answer"
    );
    assert_eq!(found.skipped_files, everything.skipped_files);
    found
}

/// The finder without its filter: every file within the size bound is parsed, and
/// parsed whole (no function body is left out, see `skim`). Each
/// file a registration is read in must hold one of its family's anchors.
fn parse_everything(files: &[(&str, &[u8])]) -> FoundTools {
    let mut tools = TreeTools::new();
    tools.reading = Reading::Whole;
    for (path, bytes) in files {
        let Some(lang) = Lang::of(path.as_bytes()) else {
            // A manifest: read as it arrives, never parsed.
            tools.add_file(path.as_bytes(), bytes);
            continue;
        };
        match bytes.len() > MAX_PARSE_BYTES {
            true => tools.skipped += 1,
            false => tools.read(lang, path.as_bytes(), bytes, Why::Anchor),
        }
    }
    // Where a lexer follows the file, in its code: not in its comments, nor in
    // strings that cannot hold code.
    let code_anchored = |lang: Lang, bytes: &[u8]| match lex::lex(lang, bytes) {
        Some(lexed) => prefilter::anchored(lang, &lexed.code(bytes)),
        None => prefilter::anchored(lang, bytes),
    };
    for file in &tools.files {
        assert!(
            file.sites.is_empty()
                || files.iter().any(|(p, b)| p.as_bytes() == file.path
                    && code_anchored(Lang::of(&file.path).unwrap(), b)),
            "{} registers a tool without an anchor in its code",
            String::from_utf8_lossy(&file.path)
        );
    }
    tools.finish()
}

/// Returns each definition as `path:line name hints`, the hints as four letters in
/// `Hint::ALL` order: `t` true, `f` false, `?` unresolved, `u` unknown, `-` absent;
/// a role other than `source` and a dynamic site follow in brackets.
pub(crate) fn rows(found: &FoundTools) -> Vec<String> {
    found
        .tools
        .iter()
        .map(|t| {
            let hints: String = t
                .hints
                .iter()
                .map(|h| match h {
                    Some(HintState::True) => 't',
                    Some(HintState::False) => 'f',
                    Some(HintState::Unresolved) => '?',
                    Some(HintState::Unknown) => 'u',
                    None => '-',
                })
                .collect();
            let mut row = format!(
                "{}:{} {} {hints}",
                String::from_utf8_lossy(&t.path),
                t.line,
                t.name.as_deref().unwrap_or("<dynamic>")
            );
            if t.role != Role::Source {
                row.push_str(&format!(" [{}]", t.role.as_str()));
            }
            if t.kind == DefKind::Dynamic {
                row.push_str(" [dynamic]");
            }
            row
        })
        .collect()
}

fn assert_rows(found: &FoundTools, expected: &[&str]) {
    let got = rows(found);
    assert_eq!(
        got,
        expected,
        "\nexpected:\n{}\ngot:\n{}",
        expected.join("\n"),
        got.join("\n")
    );
}

const TS_PRESETS: &str = r#"import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";

export const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;

export const ANNOTATIONS = {
  destructive: { readOnlyHint: false, destructiveHint: true },
} satisfies Record<string, ToolAnnotations>;
"#;

const TS_INDEX: &str = r#"import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { READ_ONLY, ANNOTATIONS as A } from "./presets.js";
import * as presets from "./presets.js";
import { EXTERNAL } from "some-package";

const server = new McpServer({ name: "demo", version: "1.0.0" });
// server.registerTool("commented_out", { annotations: { readOnlyHint: true } }, cb);
/* server.tool("also_commented", { readOnlyHint: true }, cb); */
server.registerTool(
  "echo",
  { title: "Echo", inputSchema: { message: z.string() }, annotations: { readOnlyHint: true, destructiveHint: false } },
  async ({ message }) => ({ content: [{ type: "text", text: message }] }),
);
server.registerTool("preset", { annotations: READ_ONLY }, cb);
server.registerTool("spread", { annotations: { ...READ_ONLY, openWorldHint: true, idempotentHint: true } }, cb);
server.registerTool("member", { annotations: A.destructive }, cb);
server.registerTool("namespace", { annotations: presets.READ_ONLY }, cb);
server.registerTool("external", { annotations: EXTERNAL }, cb);
server.registerTool("variable", { annotations: { readOnlyHint: isReadOnly, destructiveHint: false } }, cb);
server.registerTool(`tool_${n}`, { description: "dynamic" }, cb);
server.tool("legacy", "a description", { a: z.string() }, { idempotentHint: true }, cb);
server.tool("legacy_schema_only", { a: z.string() }, cb);
server.tool("legacy_annotations", { readOnlyHint: false }, cb);
server.tool("legacy_plain", async () => ({ content: [] }));
const name = "named_by_const";
const config = { annotations: { openWorldHint: false, readOnlyHint: undefined } };
server.registerTool(name, config, cb);
"#;

/// CommonJS as `tsc` emits it for a low-level server.
const JS_LOWLEVEL: &str = r#""use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.CLOSED = void 0;
const index_js_1 = require("@modelcontextprotocol/sdk/server/index.js");
const types_js_1 = require("@modelcontextprotocol/sdk/types.js");
const presets_js_1 = require("./presets.js");
exports.CLOSED = { openWorldHint: !1 };
const ECHO_TOOL = {
    name: "ll_echo",
    inputSchema: { type: "object" },
    annotations: { readOnlyHint: !0, ...exports.CLOSED },
};
const server = new index_js_1.Server({ name: "ll", version: "1" }, { capabilities: { tools: {} } });
server.setRequestHandler(types_js_1.ListToolsRequestSchema, async () => ({
    tools: [
        ECHO_TOOL,
        { name: "ll_inline", inputSchema: {}, annotations: presets_js_1.READ_ONLY },
        { name: "ll_plain", inputSchema: {} },
    ],
}));
"#;

const TS_TEST: &str = r#"import { describe, it } from "vitest";
describe("server", () => {
  it("registers", () => {
    server.registerTool("in_test", { annotations: { destructiveHint: true } }, cb);
  });
});
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
"#;

/// Parses, but with syntax errors after a well-formed registration.
const TS_BROKEN: &str = r#"server.registerTool("broken_ok", { annotations: { readOnlyHint: true } }, cb);
let = ;
server.registerTool("after_error", { annotations: { idempotentHint: false } }, cb);
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
"#;

fn too_large() -> Vec<u8> {
    let mut big =
        b"server.registerTool(\"huge\", { annotations: { readOnlyHint: true } }, cb);\n".to_vec();
    big.resize(MAX_PARSE_BYTES + 1, b' ');
    big
}

#[test]
fn typescript_fixture_tree_is_exact() {
    let big = too_large();
    let found = find(&[
        ("src/presets.ts", TS_PRESETS.as_bytes()),
        ("src/index.ts", TS_INDEX.as_bytes()),
        ("src/lowlevel.js", JS_LOWLEVEL.as_bytes()),
        ("test/server.test.ts", TS_TEST.as_bytes()),
        ("src/broken.ts", TS_BROKEN.as_bytes()),
        ("dist/bundle.min.js", &big),
    ]);
    assert_rows(
        &found,
        &[
            "src/broken.ts:1 broken_ok t---",
            "src/broken.ts:3 after_error --f-",
            "src/index.ts:10 echo tf--",
            "src/index.ts:15 preset t--f",
            "src/index.ts:16 spread t-tt",
            "src/index.ts:17 member ft--",
            "src/index.ts:18 namespace t--f",
            "src/index.ts:19 external ????",
            "src/index.ts:20 variable ?f--",
            "src/index.ts:21 <dynamic> ----",
            "src/index.ts:22 legacy --t-",
            "src/index.ts:23 legacy_schema_only ----",
            "src/index.ts:24 legacy_annotations f---",
            "src/index.ts:25 legacy_plain ----",
            "src/index.ts:28 named_by_const ---f",
            "src/lowlevel.js:8 ll_echo t--f",
            "src/lowlevel.js:17 ll_inline t--f",
            "src/lowlevel.js:18 ll_plain ----",
            "test/server.test.ts:4 in_test -t-- [test]",
        ],
    );
    assert_eq!(found.skipped_files, 1, "the file over MAX_PARSE_BYTES");
    assert!(found.tools.iter().all(|t| t.family == Family::TypeScript));
    // Every row with a `t` or an `f`: `external`'s `????` is declared, not annotated.
    let annotated = found.tools.iter().filter(|t| t.is_annotated()).count();
    assert_eq!(annotated, 14);
}

#[test]
fn the_answer_does_not_depend_on_the_order_files_arrive_in() {
    let files: [(&str, &[u8]); 3] = [
        ("src/presets.ts", TS_PRESETS.as_bytes()),
        ("src/index.ts", TS_INDEX.as_bytes()),
        ("src/lowlevel.js", JS_LOWLEVEL.as_bytes()),
    ];
    let whole = find(&files);
    let mut a = TreeTools::new();
    let mut b = TreeTools::new();
    b.add_file(files[2].0.as_bytes(), files[2].1);
    a.add_file(files[1].0.as_bytes(), files[1].1);
    b.add_file(files[0].0.as_bytes(), files[0].1);
    b.skip_file(b"huge.ts");
    a.merge(b);
    let merged = a.finish();
    assert_eq!(merged.tools, whole.tools);
    assert_eq!(merged.skipped_files, 1);
}

#[test]
fn a_preset_imported_from_outside_the_tree_is_unresolved() {
    let found = find(&[(
        "index.ts",
        br#"import { READ_ONLY } from "../outside/presets";
server.registerTool("x", { annotations: READ_ONLY }, cb);
server.registerTool("y", { annotations: { ...READ_ONLY, readOnlyHint: false } }, cb);
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
"#,
    )]);
    assert_rows(&found, &["index.ts:2 x ????", "index.ts:3 y f???"]);
}

#[test]
fn wants_goes_by_extension_alone() {
    for yes in [
        "a.ts",
        "b/c.mjs",
        "x.CJS",
        "d.tsx",
        "e.jsx",
        "go.mod",
        "go.work",
        "p/package.json",
        "tsconfig.base.json",
        "srv/pyproject.toml",
    ] {
        assert!(TreeTools::wants(yes.as_bytes()), "{yes}");
    }
    for no in [
        "README.md",
        "ts",
        "a.json",
        "Makefile",
        ".ts",
        "go.sum",
        "go.work.sum",
        "setup.cfg",
    ] {
        assert!(!TreeTools::wants(no.as_bytes()), "{no}");
    }
}

#[test]
fn every_sdk_is_recognised_by_its_spelling_and_look_alikes_are_not() {
    let uses: &[(&str, &[u8])] = &[
        (
            "a.ts",
            b"import { McpServer } from \"@modelcontextprotocol/sdk/server/mcp.js\";",
        ),
        (
            "a.ts",
            b"import { McpServer } from '@modelcontextprotocol/server';",
        ),
        (
            "a.js",
            b"const sdk = require(\"@modelcontextprotocol/sdk/server/index.js\");",
        ),
        ("a.ts", b"import { FastMCP } from \"fastmcp\";"),
        ("a.ts", b"import { FastMCP } from \"./FastMCP.js\";"),
        (
            "a.ts",
            b"context.registerTool('x', { annotations: {} }, cb);",
        ),
        (
            "a.js",
            b"server.setRequestHandler(types_js_1.ListToolsRequestSchema, h);",
        ),
        (
            "a.ts",
            b"import type { ToolArgs } from \"@mongodb-js/mcp-core\";",
        ),
        (
            "a.ts",
            b"import {\n  createApp,\n} from '@repo/mcp-common/src/mcp-app'",
        ),
        ("a.js", b"const core = require( \"acme-mcp-kit\" );"),
        ("a.mjs", b"const m = await import(`@x/mcp-utils`);"),
        ("a.py", b"from mcp.server.fastmcp import FastMCP"),
        ("a.py", b"import mcp.types as types"),
        ("a.py", b"from fastmcp import FastMCP"),
        ("a.py", b"from .server import mcp"),
        (
            "a.go",
            b"import \"github.com/modelcontextprotocol/go-sdk/mcp\"",
        ),
        ("a.go", b"import \"github.com/mark3labs/mcp-go/server\""),
        ("a.rs", b"use rmcp::{tool, tool_router};"),
        ("a.cs", b"using ModelContextProtocol.Server;"),
        ("a.cs", b"[McpServerToolType] public static class T {}"),
        ("a.java", b"import io.modelcontextprotocol.spec.McpSchema;"),
        (
            "a.kt",
            b"import io.modelcontextprotocol.kotlin.sdk.server.Server",
        ),
    ];
    for (path, bytes) in uses {
        let lang = Lang::of(path.as_bytes()).unwrap();
        assert!(lang.uses_sdk(bytes), "{}", String::from_utf8_lossy(bytes));
    }
    let others: &[(&str, &[u8])] = &[
        (
            "a.ts",
            b"import { tool } from \"ai\";\nconst t = tool({ description: 'x' });",
        ),
        (
            "a.py",
            b"from langchain_core.tools import tool\n@tool\ndef f(): ...",
        ),
        ("a.py", b"from pydantic_ai import Agent"),
        ("a.ts", b"import { x } from './mcp-helpers.js';"),
        ("a.ts", b"const s = \"uses mcp for tools\"; // from mcp"),
        (
            "a.ts",
            b"import { x } from \"y\"; const url = \"https://mcp.example\";",
        ),
        ("a.go", b"import \"github.com/other/mcp\""),
        ("a.cs", b"using Microsoft.SemanticKernel;"),
        (
            "a.java",
            b"import org.springframework.ai.tool.annotation.Tool;",
        ),
    ];
    for (path, bytes) in others {
        let lang = Lang::of(path.as_bytes()).unwrap();
        assert!(!lang.uses_sdk(bytes), "{}", String::from_utf8_lossy(bytes));
    }
    assert!(mentions(b"READ_ONLY_HINT = 1") && mentions(b"let toolbox = 1;"));
    assert!(!mentions(b"const x = { readOnly: true };") && !mentions(b""));
}

#[test]
fn a_language_is_told_by_its_extension_in_any_case() {
    let cases: [(&str, Option<Lang>); 9] = [
        ("src/a.ts", Some(Lang::TypeScript)),
        ("src/A.TSX", Some(Lang::Tsx)),
        ("x/b.Py", Some(Lang::Python)),
        ("c.swift", Some(Lang::Swift)),
        ("c.swiftx", None),
        ("src.ts/README", None),
        (".ts", None),
        ("a.", None),
        ("Makefile", None),
    ];
    for (path, want) in cases {
        assert_eq!(Lang::of(path.as_bytes()), want, "{path}");
    }
}

proptest::proptest! {
    /// `mentions` finds what comparing every four bytes, folded to lower case, finds:
    /// texts of the two words' letters in both cases, near misses among them
    /// (`tooL`, `hinT`, `thin`), any length around the search's block sizes.
    #[test]
    fn mentions_finds_either_word_in_any_case(text in "[toolhintTOOLHINTx .]{0,80}") {
        let bytes = text.as_bytes();
        let naive = bytes
            .windows(4)
            .any(|w| w.eq_ignore_ascii_case(b"tool") || w.eq_ignore_ascii_case(b"hint"));
        proptest::prop_assert_eq!(mentions(bytes), naive);
        // The search a CPU without a packed one makes, of the same spellings.
        let spellings = ["tool", "hint"].iter().flat_map(|w| {
            (0..16u8).map(move |upper| {
                w.bytes()
                    .enumerate()
                    .map(|(i, b)| if upper >> i & 1 == 1 { b.to_ascii_uppercase() } else { b })
                    .collect::<Vec<u8>>()
            })
        });
        let plain = Spellings { packed: None, spellings: spellings.collect() };
        proptest::prop_assert_eq!(plain.found_in(bytes), naive);
    }
}

#[test]
fn every_language_is_listed_at_its_own_index() {
    for (i, lang) in Lang::ALL.iter().enumerate() {
        assert_eq!(*lang as usize, i, "{lang:?}");
    }
    assert_eq!(Lang::ALL.len(), Lang::Swift as usize + 1);
}

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
}

const PY_PRESETS: &str = r#"from mcp.types import ToolAnnotations

READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
DESTRUCTIVE = {"readOnlyHint": False, "destructiveHint": True}
"#;

const PY_SERVER: &str = r#"from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations
from .presets import READ_ONLY, DESTRUCTIVE as D
from . import presets

mcp = FastMCP("demo")
LOCAL = {"idempotentHint": True}

# @mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))
# def commented_out(): ...
@mcp.tool()
def plain(x: int) -> int:
    return x

@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True, destructiveHint=False))
def literal(): ...

@mcp.tool(name="renamed", annotations=READ_ONLY)
def f1(): ...

@mcp.tool(annotations={**LOCAL, "openWorldHint": False})
def spread(): ...

@mcp.tool(annotations=D)
def imported_dict(): ...

@mcp.tool(annotations=presets.READ_ONLY)
def module_attr(): ...

@mcp.tool(annotations=ToolAnnotations(read_only_hint=flag, idempotent_hint=True))
def variable(): ...

@mcp.tool(f"dyn_{x}")
def dynamic(): ...

@mcp.tool
def bare(): ...

def later(): ...
mcp.add_tool(later, annotations=ToolAnnotations(openWorldHint=True))
mcp.tool(later, name="call_form", annotations=None)
"#;

const PY_LOWLEVEL: &str = r#"import mcp.types as types
from mcp.server.lowlevel import Server

server = Server("ll")

@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return [
        types.Tool(name="ll_one", inputSchema={}, annotations=types.ToolAnnotations(destructiveHint=False)),
        types.Tool(name="ll_two", inputSchema={}),
    ]
"#;

const PY_TEST: &str = r#"from fastmcp import FastMCP
mcp = FastMCP("t")
@mcp.tool(annotations={"readOnlyHint": True})
def in_test(): ...
"#;

/// Other libraries decorate tools with the same word.
const PY_NOT_MCP: &str = r#"from langchain_core.tools import tool
@tool
def not_mcp(): ...
@agent.tool
def also_not(): ...
"#;

#[test]
fn python_fixture_tree_is_exact() {
    let big = too_large();
    let found = find(&[
        ("pkg/__init__.py", b"" as &[u8]),
        ("pkg/presets.py", PY_PRESETS.as_bytes()),
        ("pkg/server.py", PY_SERVER.as_bytes()),
        ("pkg/lowlevel.py", PY_LOWLEVEL.as_bytes()),
        ("tests/test_server.py", PY_TEST.as_bytes()),
        ("pkg/agent.py", PY_NOT_MCP.as_bytes()),
        ("pkg/generated.py", &big),
    ]);
    assert_rows(
        &found,
        &[
            "pkg/lowlevel.py:9 ll_one -f--",
            "pkg/lowlevel.py:10 ll_two ----",
            "pkg/server.py:11 plain ----",
            "pkg/server.py:15 literal tf--",
            "pkg/server.py:18 renamed t--f",
            "pkg/server.py:21 spread --tf",
            "pkg/server.py:24 imported_dict ft--",
            "pkg/server.py:27 module_attr t--f",
            "pkg/server.py:30 variable ?-t-",
            "pkg/server.py:33 <dynamic> ----",
            "pkg/server.py:36 bare ----",
            "pkg/server.py:40 later ---t",
            "pkg/server.py:41 call_form ----",
            "tests/test_server.py:3 in_test t--- [test]",
        ],
    );
    assert_eq!(found.skipped_files, 1);
    assert!(found.tools.iter().all(|t| t.family == Family::Python));
}

const GO_PRESETS: &str = r#"package tools

import "github.com/modelcontextprotocol/go-sdk/mcp"

var ReadOnly = &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: jsonschema.Ptr(false)}
"#;

const GO_SERVER: &str = r#"package tools

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcp.AddTool(server, &mcp.Tool{Name: "commented"}, h)
func Register(server *mcp.Server, flag bool, name string) {
	mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "say hi"}, SayHi)
	mcp.AddTool(server, &mcp.Tool{
		Name:        "lookup",
		Annotations: ReadOnly,
	}, Lookup)
	f := false
	server.AddTool(&mcp.Tool{Name: "writer", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: &f, IdempotentHint: true}}, Write)
	mcp.AddTool(server, &mcp.Tool{Name: "flagged", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: flag, OpenWorldHint: new(bool)}}, H)
	deleteTool := &mcp.Tool{Name: "delete", Annotations: &mcp.ToolAnnotations{DestructiveHint: jsonschema.Ptr(true)}}
	mcp.AddTool(server, deleteTool, Delete)
	mcp.AddTool(server, &mcp.Tool{Name: name}, H)
}
"#;

const MCPGO_MAIN: &str = r#"package main

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	s := server.NewMCPServer("demo", "1.0.0")
	s.AddTool(mcp.NewTool("hello", mcp.WithDescription("hi")), helloHandler)
	tool := mcp.NewTool("calc",
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
	)
	s.AddTool(tool, calcHandler)
	s.AddTool(mcp.NewTool("struct", mcp.WithToolAnnotation(mcp.ToolAnnotation{ReadOnlyHint: mcp.ToBoolPtr(false), DestructiveHint: mcp.ToBoolPtr(true)})), h)
}
"#;

const MCPGO_TEST: &str = r#"package main

func TestTool(t *testing.T) {
	tool := mcp.NewTool("in_test", mcp.WithIdempotentHintAnnotation(readOnly))
	_ = tool
}
"#;

#[test]
fn go_fixture_tree_is_exact() {
    let big = too_large();
    let found = find(&[
        ("tools/presets.go", GO_PRESETS.as_bytes()),
        ("tools/server.go", GO_SERVER.as_bytes()),
        ("mcpgo/main.go", MCPGO_MAIN.as_bytes()),
        ("mcpgo/main_test.go", MCPGO_TEST.as_bytes()),
        ("tools/zz_generated.go", &big),
    ]);
    assert_rows(
        &found,
        &[
            "mcpgo/main.go:10 hello ----",
            "mcpgo/main.go:11 calc t--f",
            "mcpgo/main.go:16 struct ft--",
            "mcpgo/main_test.go:4 in_test --?- [test]",
            "tools/server.go:10 greet ----",
            "tools/server.go:11 lookup t--f",
            "tools/server.go:16 writer -ft-",
            "tools/server.go:17 flagged ?--f",
            "tools/server.go:18 delete -t--",
            "tools/server.go:20 <dynamic> ----",
        ],
    );
    assert_eq!(found.skipped_files, 1);
    let families: Vec<Family> = found.tools.iter().map(|t| t.family).collect();
    assert_eq!(&families[..4], &[Family::McpGo; 4]);
    assert_eq!(&families[4..], &[Family::Go; 6]);
}

const RMCP_SERVER: &str = r#"use rmcp::{tool, tool_router, model::*};

const READ_ONLY: bool = true;

#[tool_router]
impl Counter {
    #[tool(description = "Increment the counter by 1")]
    async fn increment(&self) -> Result<CallToolResult, McpError> { todo!() }

    #[tool(name = "get_value", description = "Get", annotations(read_only_hint = true, open_world_hint = false))]
    async fn get(&self) -> String { String::new() }

    // #[tool(name = "commented", annotations(read_only_hint = true))]
    #[tool(annotations(title = "Reset", destructive_hint = true, idempotent_hint = READ_ONLY))]
    async fn reset(&self) {}

    #[tool(annotations(read_only_hint = flag()))]
    async fn dynamic_hint(&self) {}
}

fn builder() -> Tool {
    Tool::new("built", "desc", schema()).annotate(ToolAnnotations::new().read_only(true).destructive(false))
}
fn literal() -> Tool {
    let ann = ToolAnnotations { read_only_hint: Some(false), open_world_hint: None, ..Default::default() };
    Tool::new("literal".to_string(), "d", s).with_annotations(ann)
}
"#;

#[test]
fn rmcp_fixture_tree_is_exact() {
    let big = too_large();
    let found = find(&[
        ("src/server.rs", RMCP_SERVER.as_bytes()),
        ("tests/it.rs", b"#[tool]\nfn in_test() {}\n"),
        ("src/generated.rs", &big),
    ]);
    assert_rows(
        &found,
        &[
            "src/server.rs:7 increment ----",
            "src/server.rs:10 get_value t--f",
            "src/server.rs:14 reset -tt-",
            "src/server.rs:17 dynamic_hint ?---",
            "src/server.rs:22 built tf--",
            "src/server.rs:26 literal f---",
        ],
    );
    assert_eq!(found.skipped_files, 1);
    assert!(found.tools.iter().all(|t| t.family == Family::Rmcp));
}

const CS_TOOLS: &str = r#"using ModelContextProtocol.Server;
using System.ComponentModel;

[McpServerToolType]
public static class EchoTool
{
    [McpServerTool, Description("Echoes the message back to the client.")]
    public static string Echo(string message) => $"hello {message}";

    [McpServerTool(Name = "get_weather", ReadOnly = true, OpenWorld = false)]
    public static string Weather(string city) => city;

    // [McpServerTool(Name = "commented", ReadOnly = true)]
    [McpServerTool(Name = "delete_file", Destructive = true, Idempotent = Flags.Idem, ReadOnly = false)]
    public static void Delete(string path) { }

    /* [McpServerTool(Name = "block")] */
    [ModelContextProtocol.Server.McpServerToolAttribute(Name = "qualified")]
    public static void Q() { }
}

public class Setup {
    void Configure() {
        var tool = McpServerTool.Create(Handler, new McpServerToolCreateOptions { Name = "created", Idempotent = true });
    }
}
"#;

#[test]
fn csharp_fixture_tree_is_exact() {
    let big = too_large();
    let found = find(&[
        ("src/Tools.cs", CS_TOOLS.as_bytes()),
        (
            "tests/ToolTests.cs",
            b"class T { [McpServerTool(Name = \"in_test\", Destructive = true)] void M() {} }\n",
        ),
        ("src/Generated.cs", &big),
    ]);
    assert_rows(
        &found,
        &[
            "src/Tools.cs:7 <dynamic> ----",
            "src/Tools.cs:10 get_weather t--f",
            "src/Tools.cs:14 delete_file ft?-",
            "src/Tools.cs:18 qualified ----",
            "src/Tools.cs:24 created --t-",
            "tests/ToolTests.cs:1 in_test -t-- [test]",
        ],
    );
    assert_eq!(found.skipped_files, 1);
    assert!(found.tools.iter().all(|t| t.family == Family::CSharp));
}

const JAVA_TOOLS: &str = r#"package demo;

import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.Tool;

public class Tools {
    static final McpSchema.ToolAnnotations READ_ONLY = new McpSchema.ToolAnnotations("Read", true, false, true, false, false);

    // new Tool("commented", "c", schema)
    SyncToolSpecification a = new McpServerFeatures.SyncToolSpecification(new Tool("calculator", "Basic calculator", schema), handler);
    Tool b = McpSchema.Tool.builder()
        .name("search")
        .annotations(new McpSchema.ToolAnnotations("Search", true, null, null, false, null))
        .build();
    Tool c = Tool.builder().name("preset").annotations(READ_ONLY).build();
    Tool d = new McpSchema.Tool("full", "Full", "desc", schema, null, new McpSchema.ToolAnnotations(null, false, true, flag, true, null), null);
    Tool e = Tool.builder().name(dynamicName()).annotations(McpSchema.ToolAnnotations.builder().readOnlyHint(Boolean.FALSE).openWorldHint(true).build()).build();
}
"#;

#[test]
fn java_fixture_tree_is_exact() {
    let big = too_large();
    let found = find(&[
        ("src/main/java/demo/Tools.java", JAVA_TOOLS.as_bytes()),
        (
            "src/test/java/demo/ToolsTest.java",
            b"class T { Tool t = new Tool(\"in_test\", \"d\", \"{}\"); }\n",
        ),
        ("src/main/java/demo/Generated.java", &big),
    ]);
    assert_rows(
        &found,
        &[
            "src/main/java/demo/Tools.java:10 calculator ----",
            "src/main/java/demo/Tools.java:11 search t--f",
            "src/main/java/demo/Tools.java:15 preset tftf",
            "src/main/java/demo/Tools.java:16 full ft?t",
            "src/main/java/demo/Tools.java:17 <dynamic> f--t",
        ],
    );
    assert_eq!(found.skipped_files, 1);
    assert!(found.tools.iter().all(|t| t.family == Family::Java));
}

const KOTLIN_SERVER: &str = r#"import io.modelcontextprotocol.kotlin.sdk.*

val READ_ONLY = ToolAnnotations("Read", true, openWorldHint = false)

fun configure(server: Server, flag: Boolean) {
    // server.addTool(name = "commented", description = "c") { r -> r }
    server.addTool(name = "plain", description = "No hints") { request -> result() }
    server.addTool(
        name = "weather",
        description = "Weather",
        toolAnnotations = ToolAnnotations(readOnlyHint = true, destructiveHint = false, idempotentHint = null),
    ) { request -> result() }
    server.addTool(name = "preset", description = "d", toolAnnotations = READ_ONLY) { r -> r }
    server.addTool(name = "variable", description = "d", toolAnnotations = ToolAnnotations(readOnlyHint = flag)) { r -> r }
    val tool = Tool(name = "constructed", annotations = ToolAnnotations(null, false, true, true, true))
    server.addTool(tool) { r -> r }
    server.addTool(name = "tool_$flag", description = "dynamic") { r -> r }
}
"#;

#[test]
fn kotlin_fixture_tree_is_exact() {
    let big = too_large();
    let found = find(&[
        ("src/main/kotlin/Server.kt", KOTLIN_SERVER.as_bytes()),
        (
            "src/test/kotlin/ServerTest.kt",
            b"fun t() { server.addTool(name = \"in_test\", description = \"d\", toolAnnotations = ToolAnnotations(openWorldHint = true)) { r -> r } }\n",
        ),
        ("build.gradle.kts", &big),
    ]);
    assert_rows(
        &found,
        &[
            "src/main/kotlin/Server.kt:7 plain ----",
            "src/main/kotlin/Server.kt:8 weather tf--",
            "src/main/kotlin/Server.kt:13 preset t--f",
            "src/main/kotlin/Server.kt:14 variable ?---",
            "src/main/kotlin/Server.kt:15 constructed fttt",
            "src/main/kotlin/Server.kt:17 <dynamic> ----",
        ],
    );
    assert_eq!(found.skipped_files, 1);
    assert!(found.tools.iter().all(|t| t.family == Family::Kotlin));
}

mod forms;

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
    let quiet: [(&str, &str); 6] = [
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

/// A tree and its subfolder tree read a file once between them: what each finds is
/// what reading the file for each alone finds.
#[test]
fn collectors_sharing_a_read_find_what_each_finds_alone() {
    let files: [(&str, &[u8]); 3] = [
        ("src/index.ts", TS_INDEX.as_bytes()),
        ("src/presets.ts", TS_PRESETS.as_bytes()),
        ("src/huge.ts", &too_large()),
    ];
    let (mut a, mut b) = (TreeTools::new(), TreeTools::new());
    for (path, bytes) in files {
        TreeTools::add_file_to_each([&mut a, &mut b], path.as_bytes(), bytes);
    }
    let alone = find(&files);
    assert!(!alone.tools.is_empty());
    for shared in [a.finish(), b.finish()] {
        assert_eq!(shared.tools, alone.tools);
        assert_eq!(shared.skipped_files, alone.skipped_files);
    }
}

mod skimmed_against_whole {
    //! Random well-formed sources, registrations nested in callbacks, functions and
    //! blocks among strings, regular expressions, templates and comments that hold
    //! brackets: reading them with bodies left out finds what parsing every byte finds
    //! (`find` checks it), and no lexer panics on any bytes.

    use super::*;
    use proptest::prelude::*;

    /// TypeScript statements, nested up to four deep.
    fn typescript() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("const s = \"}\";".to_string()),
            Just("const r = /[}{]\\//g;".to_string()),
            Just("const t = `${ { a: 1 }.a } }`;".to_string()),
            Just("// } {\n".to_string()),
            Just("/* { */ const n = a / 2;".to_string()),
            Just("const c = { name: \"c\", inputSchema: s, execute: e };".to_string()),
            Just("return { content: [] };".to_string()),
            // `var` is hoisted out of a block: a registration outside may read it.
            Just("var VA = { readOnlyHint: true };".to_string()),
            Just("server.tool(\"v\", VA, cb);".to_string()),
            Just("const w = \"import { x } from './y'\"; // var require(exports)".to_string()),
            Just("interface I<T extends { a: 1 }> extends B { name: string; annotations: { readOnlyHint: true } }".to_string()),
            Just("export type T = { f: () => { name: \"t\" } };".to_string()),
            Just(
                "return (\n  <T>{ name: \"n\", annotations: { readOnlyHint: true } }\n);"
                    .to_string()
            ),
            Just("return (a ?? { name: \"m\" });".to_string()),
            // Anchors in comments register nothing; in a template's substitution, code.
            Just("// server.tool(\"hid\", { readOnlyHint: true }, cb);\n".to_string()),
            Just("/* server.registerTool(\"hid2\", {}, cb) */ const h = 1;".to_string()),
            Just("const q = `${ server.tool(\"th\", { readOnlyHint: true }, cb) }`;".to_string()),
            (0u8..3)
                .prop_map(|i| format!("server.tool(\"leaf{i}\", {{ readOnlyHint: true }}, cb);")),
            // A factory's call: a top-level `function mk{i}` may return its config.
            (0u8..3).prop_map(|i| format!("server.registerTool(\"fx{i}\", mk{i}(), cb);")),
        ];
        leaf.prop_recursive(4, 48, 4, |inner| {
            let body = prop::collection::vec(inner, 0..4).prop_map(|b| b.join("\n"));
            (0u8..6, 0u8..4, body).prop_map(|(form, i, body)| match form {
                0 => format!("server.tool(\"t{i}\", {{ destructiveHint: false }}, async (a) => {{\n{body}\n}});"),
                1 => format!("server.registerTool(\"r{i}\", {{ annotations: {{ readOnlyHint: true }} }}, async () => {{\n{body}\n}});"),
                2 => format!("describe(\"d\", () => {{\n{body}\n}});"),
                3 => format!("if (x) {{\n{body}\n}}"),
                4 => format!("function f{i}(): Promise<void> {{\n{body}\n}}"),
                _ => format!("class C{i} {{\n  m(): T {{\n{body}\n  }}\n}}"),
            })
        })
    }

    /// JSX elements, their holes holding registrations, handlers and nested
    /// elements, among text that spells anchors and brackets.
    fn tsx() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("<p>server.tool(\"text\", {}, cb) don't {\"}\"}</p>".to_string()),
            Just("<br />".to_string()),
            Just(
                "<Input value={v} // why\n  onChange={(e) => { set(e.target.value); }} />"
                    .to_string()
            ),
            Just("<>{items.map((t) => { return <li key={t}>{t}</li>; })}</>".to_string()),
            Just(
                "<b title='x'>{server.tool(\"hole\", { readOnlyHint: true }, cb)}</b>".to_string()
            ),
            Just("<a.B c-d=\"e\">&amp; {/* } */}</a.B>".to_string()),
        ];
        leaf.prop_recursive(3, 24, 3, |inner| {
            prop::collection::vec(inner, 1..3).prop_map(|kids| {
                format!(
                    "<section onClick={{() => {{ go(); }}}}>\n{}\n</section>",
                    kids.join("\n")
                )
            })
        })
    }

    /// Python statements at an indentation, nested up to four deep.
    fn python(depth: usize) -> BoxedStrategy<String> {
        let pad = "    ".repeat(depth);
        let leaf = prop_oneof![
            Just(format!("{pad}x = \"}}(\"\n")),
            Just(format!("{pad}y = [\n{pad}    1,\n{pad}]\n")),
            Just(format!("{pad}# ( {{\n")),
            Just(format!("{pad}return x\n")),
            (0u8..3).prop_map({
                let pad = pad.clone();
                move |i| format!("{pad}mcp.add_tool(f, name=\"leaf{i}\")\n")
            }),
            Just(format!("{pad}mcp.add_tool(f)\n")),
            // Anchors in a comment or a docstring register nothing; in an f-string's
            // field, code.
            Just(format!(
                "{pad}\"\"\"@mcp.tool\n{pad}mcp.add_tool(f, name=\"doc\")\"\"\"\n"
            )),
            Just(format!("{pad}# mcp.add_tool(f, name=\"hid\")\n")),
            Just(format!(
                "{pad}s = f\"{{mcp.add_tool(f, name='fs')}}\"  # Tool(\n"
            )),
            // A name made global in a body: a registration outside reads it.
            Just(format!(
                "{pad}global ANN\n{pad}ANN = {{\"readOnlyHint\": True}}\n"
            )),
            Just(format!(
                "{pad}mcp.add_tool(f, name=\"g\", annotations=ANN)\n"
            )),
            Just(format!(
                "{pad}s = \"global ANN; from .m import x\"  # nonlocal y\n"
            )),
        ]
        .boxed();
        if depth >= 3 {
            return leaf;
        }
        let body = prop::collection::vec(python(depth + 1), 1..4).prop_map(|b| b.concat());
        let nested = (0u8..7, 0u8..4, body).prop_map(move |(form, i, body)| {
            let inner = "    ".repeat(depth + 1);
            match form {
                0 => format!("{pad}@mcp.tool(annotations={{\"readOnlyHint\": True}})\n{pad}def t{i}(a):\n{body}"),
                1 => format!("{pad}def f{i}(a: int) -> str:\n{inner}\"\"\"Doc {{ (\n\n{inner}More.\"\"\"\n{body}"),
                2 => format!("{pad}async def g{i}():\n{body}"),
                3 => format!("{pad}def p{i}(a=[v for v in w], b=\")\", c=lambda: mcp.add_tool(f)): mcp.add_tool(g)\n{body}"),
                4 => format!("{pad}def q{i}(a: Annotated[str, Field(description=\"for a )\")] = \"#\",  # c)\n{inner}b=h(1)) -> int:\n{body}"),
                5 => format!("{pad}def r{i}(\n{inner}b=mcp.add_tool(h, name=\"p{i}\"),\n{pad}):\n{body}"),
                _ => format!("{pad}class K{i}:\n{body}"),
            }
        });
        prop_oneof![leaf, nested].boxed()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn typescript_sources(
            statements in prop::collection::vec(typescript(), 1..5),
            factories in prop::collection::vec((0u8..3, typescript()), 0..3),
        ) {
            // A name bound inside a function body is seen by no registration outside
            // it, so the factories the calls name are declared at the top level.
            let factories: Vec<String> = factories
                .into_iter()
                .map(|(i, body)| format!("function mk{i}(): T {{\n{body}\n}}"))
                .collect();
            let text = format!(
                "import {{ McpServer }} from \"@modelcontextprotocol/sdk/server/mcp.js\";\n{}\n{}\n",
                statements.join("\n"),
                factories.join("\n")
            );
            find(&[("src/index.ts", text.as_bytes())]);
        }

        #[test]
        fn tsx_sources(
            statements in prop::collection::vec(typescript(), 1..5),
            elements in prop::collection::vec(tsx(), 1..3),
        ) {
            let text = format!(
                "import {{ McpServer }} from \"@modelcontextprotocol/sdk/server/mcp.js\";\n{}\nexport function View() {{\n  return (\n    <main>\n{}\n    </main>\n  );\n}}\n",
                statements.join("\n"),
                elements.join("\n"),
            );
            find(&[("src/App.tsx", text.as_bytes())]);
        }

        #[test]
        fn python_sources(statements in prop::collection::vec(python(0), 1..5)) {
            let text = format!("from mcp.server.fastmcp import FastMCP\n{}", statements.concat());
            find(&[("pkg/server.py", text.as_bytes())]);
        }

        #[test]
        fn no_lexer_panics(bytes in prop::collection::vec(prop::sample::select(
            b"{}()[]\"'`/\\*\n #:=>|-r$@.,;abdefT".to_vec()), 0..120)) {
            for lang in [Lang::TypeScript, Lang::Tsx, Lang::Python, Lang::Go, Lang::Rust, Lang::Java, Lang::CSharp] {
                let skipped = skim::bodies(lang, &bytes);
                let mut end = 0;
                for r in &skipped {
                    prop_assert!(r.start >= end && r.start < r.end && r.end <= bytes.len());
                    end = r.end;
                }
                skim::included(&bytes, &skipped);
            }
            lex::typescript_shaped(&bytes, false);
            lex::typescript_shaped(&bytes, true);
        }
    }
}
