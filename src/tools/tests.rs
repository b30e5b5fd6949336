//! Fixture trees per SDK family, built in code after each SDK's documented
//! examples, with the tools and hints known by hand; and the bounds on bad input.

use super::*;

/// Runs the finder over `(path, text)` files.
pub(crate) fn find(files: &[(&str, &[u8])]) -> FoundTools {
    let mut tools = TreeTools::new();
    for (path, bytes) in files {
        assert!(TreeTools::wants(path.as_bytes()), "{path} is wanted");
        tools.add_file(path.as_bytes(), bytes);
    }
    tools.finish()
}

/// Returns each tool as `path:line name hints`, the hints as four letters in
/// `Hint::ALL` order: `t` true, `f` false, `?` unresolved, `-` absent.
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
                    None => '-',
                })
                .collect();
            format!(
                "{}:{} {} {hints}",
                String::from_utf8_lossy(&t.path),
                t.line,
                t.name.as_deref().unwrap_or("<dynamic>")
            )
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
"#;

/// Parses, but with syntax errors after a well-formed registration.
const TS_BROKEN: &str = r#"server.registerTool("broken_ok", { annotations: { readOnlyHint: true } }, cb);
let = ;
server.registerTool("after_error", { annotations: { idempotentHint: false } }, cb);
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
            "test/server.test.ts:4 in_test -t--",
        ],
    );
    assert_eq!(found.skipped_files, 1, "the file over MAX_PARSE_BYTES");
    assert!(found.tools.iter().all(|t| t.family == Family::TypeScript));
    let annotated = found.tools.iter().filter(|t| t.is_annotated()).count();
    assert_eq!(annotated, 15);
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
"#,
    )]);
    assert_rows(&found, &["index.ts:2 x ????", "index.ts:3 y f???"]);
}

#[test]
fn wants_goes_by_extension_alone() {
    for yes in ["a.ts", "b/c.mjs", "x.CJS", "d.tsx", "e.jsx"] {
        assert!(TreeTools::wants(yes.as_bytes()), "{yes}");
    }
    for no in ["README.md", "ts", "a.json", "Makefile", ".ts"] {
        assert!(!TreeTools::wants(no.as_bytes()), "{no}");
    }
}

#[test]
fn a_file_without_a_registration_spelling_is_not_parsed() {
    assert!(may_define(b"server.registerTool("));
    assert!(may_define(b"READ_ONLY_HINT = 1"));
    assert!(!may_define(b"const x = { readOnly: true };"));
    let found = find(&[("a.ts", b"export const a = 1;\n")]);
    assert_eq!(found, FoundTools::default());
}

#[test]
fn bad_input_never_panics_and_bounds_hold() {
    let mut nested = b"server.registerTool(\"deep\", { annotations: ".to_vec();
    let depth = 20_000;
    nested.extend(std::iter::repeat_n(b'[', depth));
    nested.extend(std::iter::repeat_n(b']', depth));
    nested.extend_from_slice(b" }, cb);\n");
    let mut bundle = Vec::with_capacity(50 << 20);
    while bundle.len() < 50 << 20 {
        bundle.extend_from_slice(b"s.registerTool(\"m\",{annotations:{readOnlyHint:!0}},c);");
    }
    let nul = b"server.registerTool(\"nul\", { annotations: { readOnlyHint: true } }, cb);\0\0\0\n";
    let invalid = b"server.registerTool(\"bad\xff\xfe\", { annotations: { readOnlyHint: false } }, cb);\nserver.registerTool(\"good\", {}, cb);\n";
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
    assert!(parse(Lang::TypeScript, &src, PARSE_BUDGET).is_some());
    assert!(parse(Lang::TypeScript, &src, Duration::ZERO).is_none());
}
