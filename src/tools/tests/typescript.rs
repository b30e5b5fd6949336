//! TypeScript and JavaScript fixture trees, after the SDK's documented examples:
//! presets across files, the low-level handler, tests and broken files, and the
//! answer whatever order files arrive in.

use super::*;

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

/// The 1.x `tool(...)` overloads as the SDK's `McpServer.tool` reads them: a Zod raw
/// shape (an object whose values are Zod schemas, or a Zod object's `.shape`) is the
/// parameters, which declare nothing; an object with hint keys is the annotations.
#[test]
fn a_zod_shape_passed_to_tool_is_the_parameters_not_the_annotations() {
    let found = find(&[(
        "src/index.ts",
        br#"import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
const server = new McpServer({ name: "shapes", version: "1.0.0" });
const schema = z.object({ q: z.string() });
const READ_ONLY = { readOnlyHint: true, openWorldHint: false };
server.tool("list_items", "List items", schema.shape, async () => ({ content: [] }));
server.tool("get_item", "d", z.object({ id: z.string() }).shape, { readOnlyHint: true, openWorldHint: false }, cb);
server.tool("shape_then_preset", "d", schema.shape, READ_ONLY, cb);
server.tool("title_param", "d", { title: z.string(), limit: z.number().optional() }, cb);
server.tool("title_param_then_hints", "d", { title: z.string() }, { destructiveHint: false }, cb);
server.tool("titled", "d", { title: "Titled", readOnlyHint: false }, cb);
server.tool("translated_title", "d", { readOnlyHint: true, title: t("x") }, cb);
server.tool("from_definition", def.description, def.inputSchema, cb);
server.tool("shape_of_a_preset", "d", presets.shape, cb);
const presets = { shape: { idempotentHint: true } };
"#,
    )]);
    assert_rows(
        &found,
        &[
            "src/index.ts:6 list_items ----",
            "src/index.ts:7 get_item t--f",
            "src/index.ts:8 shape_then_preset t--f",
            "src/index.ts:9 title_param ----",
            "src/index.ts:10 title_param_then_hints -f--",
            "src/index.ts:11 titled f---",
            "src/index.ts:12 translated_title t---",
            "src/index.ts:13 from_definition uuuu",
            "src/index.ts:14 shape_of_a_preset --t-",
        ],
    );
}

/// A schema's object literal (`inputSchema: {...}`, `outputSchema`, `schema`,
/// `parameters`) is read as a schema without its inside, so the parse leaves the
/// inside out; one holding a registration or an import is parsed. The oracle in
/// `find` parses every file whole.
#[test]
fn a_schema_left_out_of_the_parse_changes_no_answer() {
    let found = find(&[(
        "src/index.ts",
        br#"import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
const server = new McpServer({ name: "schemas", version: "1.0.0" });
server.registerTool("search", { inputSchema: { q: z.string().describe("{") }, outputSchema: { hits: z.array(z.string()) }, annotations: { readOnlyHint: true } }, cb);
const TOOLS: Tool[] = [
  { name: "list", inputSchema: { type: "object", properties: { a: { type: "string", default: "}" } } }, annotations: { destructiveHint: false } },
  { name: "odd", "inputSchema": { inner: server.registerTool("inner", { annotations: { idempotentHint: true } }, cb) } },
];
server.registerTool("wrapped", { inputSchema: { x: z.string() }, annotations: { openWorldHint: false } }, cb);
server.addTool({ name: "added", parameters: { x: z.string() }, annotations: { readOnlyHint: false }, execute });
"#,
    )]);
    assert_rows(
        &found,
        &[
            "src/index.ts:4 search t---",
            "src/index.ts:6 list -f--",
            "src/index.ts:7 inner --t-",
            "src/index.ts:7 odd --?-",
            "src/index.ts:9 wrapped ---f",
            "src/index.ts:10 added f---",
        ],
    );
}
