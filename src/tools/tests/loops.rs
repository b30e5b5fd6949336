//! Tool objects registered in a loop: over a list, over a module's bindings
//! (`Object.values`, `Object.entries`), made by a helper that returns its argument
//! or spreads it; a name with a literal fallback. Each fixture tree with its tools
//! written by hand; `find` holds every answer to what parsing every file whole
//! gives.

use super::{assert_rows, find};

const MAIN: &str = r#"import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import * as fileTools from "./tools/index.js";
import { NET_TOOLS } from "./net.js";
import { PRESETS } from "./presets.js";
const server = new McpServer({ name: "x", version: "1" });
for (const tool of Object.values(fileTools)) {
  server.registerTool(tool.name, { annotations: tool.annotations }, tool.handler);
}
NET_TOOLS.forEach((t) => server.tool(t.name, t.description, t.annotations, cb));
for (const [name, preset] of Object.entries(PRESETS)) {
  server.registerTool(name, { annotations: preset }, cb);
}
NET_TOOLS.map(({ name, annotations: hints }) =>
  server.registerTool(`net_${name}`, { annotations: hints }, cb));
for (const t of NET_TOOLS) {
  server.registerTool("once", { annotations: { openWorldHint: true } }, cb);
}
server.registerTool(process.env.NAME || "status", { annotations: { readOnlyHint: true } }, cb);
server.registerTool(config.name ?? "health", {}, cb);
"#;

const DEFINE: &str = r#"export function defineTool<T extends Definition<Args>>(definition: T): T {
  return definition;
}
export const withDescription = (definition) => ({ description: "none", ...definition });
"#;

const INDEX: &str = r#"export * from "./read.js";
export { write } from "./write.js";
"#;

const READ: &str = r#"import { defineTool } from "../define.js";
const READ_ONLY = { readOnlyHint: true };
export const read = defineTool({
  name: "read",
  annotations: READ_ONLY,
  handler: async () => "",
});
export const LIMIT = 10;
"#;

const WRITE: &str = r#"import { withDescription } from "../define.js";
export const write = withDescription({
  name: "write",
  annotations: { destructiveHint: true },
  handler: async () => "",
});
"#;

const NET: &str = r#"const fetchTool = { name: "fetch", description: "Fetch", annotations: { openWorldHint: true } };
export const NET_TOOLS = [fetchTool, { name: "ping", annotations: { idempotentHint: true } }, unknownTool];
"#;

const PRESETS: &str = r#"export const PRESETS = { list: { readOnlyHint: true }, purge: { destructiveHint: true } };
"#;

#[test]
fn tools_registered_in_loops_read_one_per_element() {
    let found = find(&[
        ("src/main.ts", MAIN.as_bytes()),
        ("src/define.ts", DEFINE.as_bytes()),
        ("src/tools/index.ts", INDEX.as_bytes()),
        ("src/tools/read.ts", READ.as_bytes()),
        ("src/tools/write.ts", WRITE.as_bytes()),
        ("src/net.ts", NET.as_bytes()),
        ("src/presets.ts", PRESETS.as_bytes()),
    ]);
    assert_rows(
        &found,
        &[
            // The element the finder cannot read is a tool of unknown name and hints.
            "src/main.ts:9 <dynamic> uuuu",
            // `Object.entries` of an object: each pair, its key the name.
            "src/main.ts:11 list t---",
            "src/main.ts:11 purge -t--",
            // A name the finder cannot read is no name, the element still one tool.
            "src/main.ts:14 <dynamic> ????",
            // A literal name in a loop is one tool.
            "src/main.ts:16 once ---t",
            // A name with a literal fallback reads the fallback.
            "src/main.ts:18 status t---",
            "src/main.ts:19 health ----",
            // The elements at their definitions.
            "src/net.ts:1 <dynamic> ---t",
            "src/net.ts:1 fetch ---t",
            "src/net.ts:2 <dynamic> --t-",
            "src/net.ts:2 ping --t-",
            // The module's tool objects, not its other bindings (`READ_ONLY`,
            // `LIMIT`); `read` is no tool-shaped object where it is written (its
            // annotations a constant), and the one passed to `withDescription` is
            // this tool, once.
            "src/tools/read.ts:3 read t---",
            "src/tools/write.ts:2 write -t--",
        ],
    );
    assert_eq!(found.columns(), [13, 10, 2, 0, 0]);
}

/// A tool-shaped object built once per pass of a counting loop, its name a
/// template: tools made at run time, a dynamic site as before.
#[test]
fn tool_objects_built_in_a_counting_loop_stay_dynamic() {
    let src = br#"import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
const tools = [];
for (let i = 1; i <= count; i++) {
  tools.push({ name: `tool_${i}`, inputSchema: {}, handler: async () => "" });
}
for (const t of tools) server.registerTool(t.name, {}, t.handler);
"#;
    let found = find(&[("src/index.ts", src)]);
    assert_rows(
        &found,
        &[
            "src/index.ts:4 <dynamic> ---- [dynamic]",
            // `tools` is bound to a list the code fills: no element is known.
            "src/index.ts:6 <dynamic> ---- [dynamic]",
        ],
    );
}

/// Tools defined lazily, an arrow function returning the tool object passed to
/// the project's helper, in the module of tools a server's loop builds them from:
/// each object is a tool where it is written.
#[test]
fn a_tool_object_an_arrow_function_returns_is_a_definition() {
    let main = br#"import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { createTools } from "./tools.js";
for (const tool of createTools(args)) register(tool);
"#;
    let tools = br#"import * as inputTools from "./input.js";
export const createTools = (args) => [...Object.values(inputTools)].map((t) => t(args));
"#;
    let input = br#"export const click = definePageTool(() => ({
  name: "click",
  annotations: { category: INPUT, readOnlyHint: false },
  schema: {},
  handler: async () => {},
}));
export const hover = definePageTool((args) => {
  return { name: "hover", annotations: { readOnlyHint: true } };
});
"#;
    let found = find(&[
        ("src/main.ts", main),
        ("src/tools.ts", tools),
        ("src/input.ts", input),
    ]);
    // A block body's returned object is no argument: not read.
    assert_rows(&found, &["src/input.ts:1 click f---"]);
}
