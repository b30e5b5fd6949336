//! The forms real servers use beyond the SDKs' first examples, the three states of a
//! hint, dynamic registration sites, roles and the MCP-only rule: each fixture
//! tree with its tools written by hand.

use super::{assert_rows, find};

/// TypeScript 1.x `tool(...)`: a third argument that may be the schema or the
/// annotations is no declaration until it resolves.
const TS_OVERLOADS: &str = r#"import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
const SCHEMA = { q: z.string() };
const RO = { readOnlyHint: true };
server.tool(x.name, x.description, x.inputSchema, handler);
server.tool("a", "desc", SCHEMA, RO, cb);
server.tool("b", desc, SCHEMA, cb);
server.tool("c", desc, RO, cb);
server.tool("d", maybe, cb);
server.tool("e", "desc", SCHEMA, unknownAnnotations, cb);
server.tool("f", RO, cb);
server.tool("g", SCHEMA, cb);
server.tool("h", "text", cb);
"#;

#[test]
fn an_argument_that_may_be_a_schema_is_no_declaration() {
    let found = find(&[("src/index.ts", TS_OVERLOADS.as_bytes())]);
    assert_rows(
        &found,
        &[
            // Name, description and both objects unresolved: whether the third
            // argument is the annotations is not known.
            "src/index.ts:4 <dynamic> uuuu",
            "src/index.ts:5 a t---",
            // After a description of unknown kind, a schema: no annotations.
            "src/index.ts:6 b ----",
            "src/index.ts:7 c t---",
            "src/index.ts:8 d uuuu",
            // After a schema, only the annotations may stand: declared, unreadable.
            "src/index.ts:9 e ????",
            "src/index.ts:10 f t---",
            "src/index.ts:11 g ----",
            "src/index.ts:12 h ----",
        ],
    );
    let columns = found.columns();
    // a, c, f annotated; x.name's and d's unknown and e's `?` unresolved; the
    // first is a tool of no name, not in a loop.
    assert_eq!(columns, [9, 3, 3, 0, 0]);
}

/// Loops, per-element callbacks and lists that do not resolve register tools at run
/// time: dynamic sites, never tools.
const TS_DYNAMIC: &str = r#"import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
tools.forEach((t) => server.tool(t.schema.name, t.description, t.schema.shape, t.handler));
for (const t of TOOLS) {
  server.registerTool(t.name, { annotations: t.annotations }, t.handler);
}
for (const t of TOOLS) {
  server.registerTool("fixed", { annotations: { readOnlyHint: true } }, t.handler);
}
server.registerTool(computed(), { annotations: { readOnlyHint: false } }, cb);
low.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...a, ...b] }));
low.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: allTools }));
"#;

#[test]
fn registrations_repeated_over_data_are_dynamic_sites() {
    let found = find(&[("src/index.ts", TS_DYNAMIC.as_bytes())]);
    assert_rows(
        &found,
        &[
            // `t.schema.shape` is the parameters (a Zod object's shape): nothing declared.
            "src/index.ts:3 <dynamic> ---- [dynamic]",
            "src/index.ts:5 <dynamic> ???? [dynamic]",
            // A literal name in a loop is one tool.
            "src/index.ts:8 fixed t---",
            // No loop: one tool whose name is not a literal.
            "src/index.ts:10 <dynamic> f---",
            "src/index.ts:11 <dynamic> uuuu [dynamic]",
            "src/index.ts:12 <dynamic> uuuu [dynamic]",
        ],
    );
    assert_eq!(found.columns(), [2, 2, 0, 4, 0]);
}

/// The forms real TypeScript servers use: a constant or a factory given to
/// `addTool`, a tool-shaped object passed to a project's own helper in a file an
/// SDK file reaches, tool classes, a low-level handler in compiled JavaScript
/// whose schema name a bundler renamed.
const TS_MAIN: &str = r#"import { FastMCP } from "fastmcp";
import { createSearch } from "./factory.js";
import "./tools/all.js";
import { FindTool, PlainTool, ExternalTool } from "./classes.js";
const server = new FastMCP({ name: "x", version: "1" });
const echoTool = { name: "echo", annotations: { readOnlyHint: true, openWorldHint: false }, execute };
server.addTool(echoTool);
server.addTool(createSearch(client));
server.addTool(makeLocal());
function makeLocal() {
  return { name: "local", annotations: { destructiveHint: true } };
}
"#;

const TS_FACTORY: &str = r#"export const createSearch = (client) => ({
  name: "search",
  annotations: { idempotentHint: true },
  execute: async () => client.search(),
});
"#;

const TS_ALL: &str = r#"import { defineTool } from "./define.js";
export const click = defineTool({
  name: "click",
  annotations: { category: "input", readOnlyHint: false },
  schema: {},
  handler: async () => {},
});
export const snapshot = defineTool({ name: NAMES.SNAPSHOT, schema: {}, handler: async () => {} });
const notATool = configure({ name: "config", retries: 3 });
"#;

const TS_CLASSES: &str = r#"import { ToolBase } from "./base.js";
export class FindTool extends ToolBase {
  name = "find";
  static operationType = "read";
  protected async execute() {}
}
export class PlainTool extends ToolBase2 {
  name = "plain";
  annotations = { readOnlyHint: true };
}
export class ExternalTool extends MCPTool {
  name = "external";
  schema = {};
}
export class NotATool extends Base {
  name = "nope";
  execute() {}
}
export class StaticNamed extends MongoDBToolBase {
  static toolName = "count";
  public argsShape = {};
}
class Cursor extends AITool {
  name = "Cursor";
  configPath = "~/.cursor/mcp.json";
}
"#;

const TS_BASE: &str = r#"export abstract class ToolBase {
  abstract name: string;
  get annotations() { return computeFrom(this.operationType); }
}
"#;

const JS_BUNDLE: &str = r#"import { Server as Server2 } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema as ListToolsRequestSchema2 } from "@modelcontextprotocol/sdk/types.js";
server.setRequestHandler(ListToolsRequestSchema2, async () => {
  return {
    tools: [
      { name: "bundled", inputSchema: { type: "object" }, annotations: { readOnlyHint: !0 } },
    ],
  };
});
"#;

#[test]
fn typescript_forms_of_real_servers_are_found() {
    let found = find(&[
        ("src/main.ts", TS_MAIN.as_bytes()),
        ("src/factory.ts", TS_FACTORY.as_bytes()),
        ("src/tools/all.ts", TS_ALL.as_bytes()),
        ("src/classes.ts", TS_CLASSES.as_bytes()),
        ("src/base.ts", TS_BASE.as_bytes()),
        ("dist/bundle.js", JS_BUNDLE.as_bytes()),
    ]);
    assert_rows(
        &found,
        &[
            "dist/bundle.js:6 bundled t---",
            "src/classes.ts:2 find ????",
            "src/classes.ts:7 plain t---",
            // The base class is outside the tree: whether it declares is not known.
            "src/classes.ts:11 external uuuu",
            "src/classes.ts:19 count uuuu",
            "src/main.ts:7 echo t--f",
            "src/main.ts:8 search --t-",
            "src/main.ts:9 local -t--",
            "src/tools/all.ts:2 click f---",
            "src/tools/all.ts:8 <dynamic> ----",
        ],
    );
}

/// A tool defined in `src/` and again in `dist/` counts once; a test and an example
/// are listed, not counted; a published package's only copy counts.
#[test]
fn copies_tests_and_examples_are_listed_not_counted() {
    let src = br#"import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
server.registerTool("read", { annotations: { readOnlyHint: true } }, cb);
"#;
    let dist = br#"const mcp_js_1 = require("@modelcontextprotocol/sdk/server/mcp.js");
server.registerTool("read", { annotations: { readOnlyHint: !0 } }, cb);
server.registerTool("only_built", { annotations: { readOnlyHint: !1 } }, cb);
"#;
    let found = find(&[
        ("src/index.ts", src),
        ("dist/index.js", dist),
        ("dist/index.cjs", dist),
        ("src/index.test.ts", src),
        ("examples/demo/server.ts", src),
        ("node_modules/@x/server/dist/index.js", dist),
    ]);
    assert_rows(
        &found,
        &[
            // The first copy in path order of a tool no source file defines counts.
            "dist/index.cjs:2 read t--- [build]",
            "dist/index.cjs:3 only_built f---",
            "dist/index.js:2 read t--- [build]",
            "dist/index.js:3 only_built f--- [build]",
            "examples/demo/server.ts:2 read t--- [example]",
            "node_modules/@x/server/dist/index.js:2 read t--- [build]",
            "node_modules/@x/server/dist/index.js:3 only_built f--- [build]",
            "src/index.test.ts:2 read t--- [test]",
            "src/index.ts:2 read t---",
        ],
    );
    assert_eq!(found.columns(), [2, 2, 0, 0, 0]);
}

/// Only files that use an MCP SDK, and the files they reach, define MCP tools: an
/// agent framework's `@tool` beside them never counts.
#[test]
fn only_mcp_files_and_what_they_reach_count() {
    let server = br#"from mcp.server.fastmcp import FastMCP
from . import registered
mcp = FastMCP("x")
@mcp.tool()
def remember(): ...
"#;
    let registered = br#"from .server import app
@app.tool()
def reached(): ...
"#;
    let agent = br#"from langchain_core.tools import tool
from myagent import registry
@tool
def search(): ...
@registry.tool()
def load_skill(): ...
"#;
    let found = find(&[
        ("pkg/server.py", server),
        ("pkg/registered.py", registered),
        ("pkg/agent/tools.py", agent),
        ("pkg/agent/__init__.py", b"from .tools import search\n"),
    ]);
    assert_rows(
        &found,
        &[
            "pkg/registered.py:2 reached ----",
            "pkg/server.py:4 remember ----",
        ],
    );
}

/// Python's call forms and names given as enumeration members, as the reference
/// git server and released servers write them.
const PY_FORMS: &str = r#"from enum import Enum
from mcp.server.fastmcp import FastMCP
from mcp.types import Tool, ToolAnnotations

class GitTools(str, Enum):
    STATUS = "git_status"
    DIFF = "git_diff"

class Tools(Enum):
    LOG = "git_log"

class Presets:
    READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=False)

mcp = FastMCP("git")

def list_tools():
    return [
        Tool(name=GitTools.STATUS, description="Status", inputSchema={}),
        Tool(name=GitTools.DIFF.value, description="Diff", inputSchema={}, annotations=Presets.READ_ONLY),
    ]

@mcp.tool(name=Tools.LOG.value, annotations=Presets.READ_ONLY)
def log(): ...
@mcp.tool(name=Tools.LOG.name)
def log_by_member_name(): ...

def status(): ...
mcp.tool(name="status_call", annotations={"destructiveHint": False})(status)

class Server:
    def __init__(self):
        self.mcp = FastMCP("s")
        self.mcp.tool(name="bound")(self.search)
        self.mcp.tool()(self.fetch)
        self.mcp.tool(annotations=ToolAnnotations(idempotentHint=True))(self.update)

for name in NAMES:
    mcp.tool(name=name)(make(name))
"#;

#[test]
fn python_call_forms_and_enumeration_names_are_read() {
    let found = find(&[("server.py", PY_FORMS.as_bytes())]);
    assert_rows(
        &found,
        &[
            "server.py:19 git_status ----",
            "server.py:20 git_diff t--f",
            "server.py:23 git_log t--f",
            // `.name` is the member's own name, as Python's `Enum` gives it.
            "server.py:25 LOG ----",
            "server.py:29 status_call -f--",
            "server.py:34 bound ----",
            "server.py:35 fetch ----",
            "server.py:36 update --t-",
            "server.py:39 <dynamic> ---- [dynamic]",
        ],
    );
}

/// xmcp's file-routed tools, as localstack-mcp-server and xmcp's documentation
/// write them: each file of the tools folder exports its `metadata` and a default
/// handler, and the framework registers every such file.
#[test]
fn xmcp_file_routed_tools_are_read_from_their_metadata() {
    let typed = br#"import { z } from "zod";
import { type ToolMetadata, type InferSchema } from "xmcp";

export const schema = { action: z.enum(["inject", "clear"]) };

export const metadata: ToolMetadata = {
  name: "localstack-chaos-injector",
  description: "Injects faults",
  annotations: {
    title: "LocalStack Chaos Injector",
    readOnlyHint: false,
    destructiveHint: true,
  },
};

export default async function chaos({ action }: InferSchema<typeof schema>) {
  return action;
}
"#;
    let untyped = br#"import { type InferSchema } from 'xmcp';

export const metadata = {
  name: "greet",
  description: "Greet the user",
  annotations: { title: "Greet", readOnlyHint: true, idempotentHint: true },
};

export default async function greet({ name }: InferSchema<typeof schema>) {
  return `Hello, ${name}!`;
}
"#;
    // A page's metadata in a file that does not use xmcp: no tool.
    let page = br#"export const metadata = { name: "About", annotations: {} };
export default function About() { return null; }
"#;
    let found = find(&[
        ("src/tools/localstack-chaos-injector.ts", typed.as_slice()),
        ("src/tools/greet.ts", untyped.as_slice()),
        ("src/app/about/page.tsx", page.as_slice()),
    ]);
    assert_rows(
        &found,
        &[
            "src/tools/greet.ts:3 greet t-t-",
            "src/tools/localstack-chaos-injector.ts:6 localstack-chaos-injector ft--",
        ],
    );
}

/// Tools written as constants of the protocol's shape, each file one or more, and
/// gathered by a `tools/list` handler elsewhere, as attio's server writes them.
#[test]
fn constants_of_the_tools_shape_are_tools() {
    let notes = br#"import { createNoteSchema, listNotesSchema } from './schemas.js';

export const createNoteDefinition = {
  name: 'create-note',
  description: formatToolDescription({ capability: 'Create note' }),
  inputSchema: createNoteSchema,
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
  },
};

export const listNotesDefinition = {
  name: 'list-notes',
  description: 'Retrieve notes',
  inputSchema: listNotesSchema,
};

// Not a tool: no input schema.
export const notesConfig = { name: 'notes', description: 'Notes' };
"#;
    let index = br#"import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createNoteDefinition, listNotesDefinition } from './notes.js';

export const definitions = { 'create-note': createNoteDefinition, 'list-notes': listNotesDefinition };

export function register(server: Server) {
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: payload() }));
}
"#;
    let found = find(&[
        ("src/tools/notes.ts", notes.as_slice()),
        ("src/tools/index.ts", index.as_slice()),
    ]);
    assert_rows(
        &found,
        &[
            "src/tools/index.ts:8 <dynamic> uuuu [dynamic]",
            "src/tools/notes.ts:3 create-note ff--",
            "src/tools/notes.ts:13 list-notes ----",
        ],
    );
}

/// A list of the SDK's `Tool` written out: a method declared to return `Tool[]`, as
/// SCB-MCP answers `tools/list` from its own class, and a constant of that type.
#[test]
fn a_list_typed_as_the_sdks_tools_is_read_element_by_element() {
    let server = br#"import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Tool } from '@modelcontextprotocol/sdk/types.js';

export class ScbServer {
  public getTools(): Tool[] {
    return [
      {
        name: 'scb_get_api_status',
        inputSchema: { type: 'object', properties: {} },
        annotations: { title: 'API Status', readOnlyHint: true, openWorldHint: true },
      },
      { name: 'scb_search_tables', inputSchema: { type: 'object' } },
    ];
  }

  public getNames(): string[] {
    return ['a', 'b'];
  }
}

export const extra: Array<Tool> = [{ name: 'extra_tool', inputSchema: {} }];

export const more = (): Promise< Tool [] > => {
  return [{ name: 'arrow_tool', inputSchema: {} }];
};
"#;
    let found = find(&[("src/index.ts", server.as_slice())]);
    assert_rows(
        &found,
        &[
            "src/index.ts:7 scb_get_api_status t--t",
            "src/index.ts:12 scb_search_tables ----",
            "src/index.ts:21 extra_tool ----",
            "src/index.ts:24 arrow_tool ----",
        ],
    );
}

/// A list whose type is written after it (`[...] as Tool[]`, `satisfies`), as the faf
/// servers build their `tools/list` answer inside a method; `as const` types nothing.
#[test]
fn a_list_typed_after_its_value_is_read_element_by_element() {
    let server = br#"import { Tool } from '@modelcontextprotocol/sdk/types.js';

export class Handler {
  async listTools(): Promise<{ tools: Tool[] }> {
    const allTools = [
      { name: 'faf', description: 'd', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
      { name: 'faf_sync', description: 'd', inputSchema: { type: 'object' } },
    ] as Tool[];
    return { tools: filterTools(allTools) };
  }
}

export const checked = [
  { name: 'checked', description: 'd', inputSchema: {} },
] satisfies Tool[];
export const twice = [{ name: 'twice', inputSchema: {} }] as unknown as Tool[];
export const names = ['not_a_tool'] as const;
"#;
    let found = find(&[("src/handler.ts", server.as_slice())]);
    assert_rows(
        &found,
        &[
            "src/handler.ts:6 faf t---",
            "src/handler.ts:7 faf_sync ----",
            "src/handler.ts:14 checked ----",
            "src/handler.ts:16 twice ----",
        ],
    );
}

/// A class's field declared with a tool type, as kubeview-mcp writes each of its tools
/// (`tool: Tool = { name, ... }` in a class its own wrapper registers): the object is
/// one tool when its `name` is a literal: `name: this.name` is the class's own, which
/// the class rule reads when the class is a tool.
#[test]
fn a_class_field_typed_as_a_tool_is_one() {
    let tools = br#"import { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { OwnToolDefinition } from './types.js';

export class ArgoCronListTool implements ArgoBaseTool {
  tool: Tool = {
    name: 'argo_cron_list',
    description: 'List Argo cron workflows',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true, openWorldHint: false },
  };
  public readonly helper: Tool = { name: this.name, inputSchema: {} };
  private own: OwnToolDefinition = { name: 'own_tool', inputSchema: {} };
  private named: OwnToolDefinition = { name: this.name, inputSchema: {} };
  private config: Config = { name: 'not_a_tool', inputSchema: {} };
  async execute(params: unknown): Promise<unknown> {
    return run(params);
  }
}
"#;
    let found = find(&[("src/tools/ArgoCronListTool.ts", tools.as_slice())]);
    assert_rows(
        &found,
        &[
            "src/tools/ArgoCronListTool.ts:5 argo_cron_list t--f",
            "src/tools/ArgoCronListTool.ts:12 own_tool ----",
        ],
    );
}

/// A project's own tool type with type arguments, each tool a constant named by a
/// constant of its file, as cyanheads' template writes them (`export const getStudyTool:
/// ToolDefinition<typeof In, typeof Out> = { name: TOOL_NAME, ... }`), registered
/// through dependency injection: each constant is one tool, with its annotations. A
/// function's one name is its parameter's, no tool.
#[test]
fn a_generic_own_tool_type_named_by_a_constant_gives_its_tools() {
    let tool = br#"import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { ToolAnnotations, ToolDefinition } from '@/mcp-server/tools/utils/toolDefinition.js';

const TOOL_NAME = 'clinicaltrials_get_study';
const TOOL_ANNOTATIONS: ToolAnnotations = {
  readOnlyHint: true,
  idempotentHint: true,
  openWorldHint: true,
};

export const getStudyTool: ToolDefinition<
  typeof InputSchema,
  typeof OutputSchema
> = {
  name: TOOL_NAME,
  description: 'Fetches one study.',
  inputSchema: InputSchema,
  annotations: TOOL_ANNOTATIONS,
  logic,
};

export const fromConfig: ToolDefinition<typeof InputSchema> = {
  name: config.name,
  inputSchema: InputSchema,
};

export function makeTool(name: string): ToolDefinition<typeof InputSchema> {
  return { name, inputSchema: InputSchema };
}
"#;
    let found = find(&[(
        "src/mcp-server/tools/definitions/get-study.tool.ts",
        tool.as_slice(),
    )]);
    assert_rows(
        &found,
        &["src/mcp-server/tools/definitions/get-study.tool.ts:14 clinicaltrials_get_study t-tt"],
    );
}

/// A project's own tool type (`ToolDefinition`, whose name holds `Tool`): each
/// function declared to give one returns the tool's object, as postgres-mcp writes
/// each of its tools, and a list of them is read element by element. Of such a type
/// an object is a tool only with the protocol's `inputSchema`: a model's function
/// (`parameters`) or a tool call typed alike is none.
#[test]
fn a_projects_own_tool_type_gives_its_tools() {
    let tools = br#"import type { ToolDefinition, ToolCall } from '../types.js';

export function getTextTools(adapter: Adapter): ToolDefinition[] {
  return [createSearchTool(adapter), createRankTool(adapter)];
}

function createSearchTool(adapter: Adapter): ToolDefinition {
  return {
    name: "pg_text_search",
    description: "Full-text search.",
    inputSchema: SearchSchema,
    annotations: { readOnlyHint: true, openWorldHint: false },
    handler: async (params: unknown) => {
      return adapter.query(params);
    },
  };
}

const createRankTool = (adapter: Adapter): ToolDefinition => ({
  name: "pg_text_rank",
  description: "Ranks.",
  inputSchema: RankSchema,
  handler: async () => adapter.rank(),
});

export const extraTools: ToolDefinition[] = [
  { name: "pg_extra", description: "More.", inputSchema: {}, annotations: { destructiveHint: true } },
];

export function modelFunctions(): ToolDefinition[] {
  return [{ name: "not_mcp", description: "A model's function.", parameters: {} }];
}

export function lastCall(): ToolCall {
  return { name: "called", arguments: {} };
}
"#;
    let server = br#"import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { getTextTools } from "./tools/text.js";

export const server = new McpServer({ name: "pg", version: "1" });
export const all = getTextTools(adapter);
"#;
    let found = find(&[
        ("src/index.ts", server.as_slice()),
        ("src/tools/text.ts", tools.as_slice()),
    ]);
    assert_rows(
        &found,
        &[
            "src/tools/text.ts:8 pg_text_search t--f",
            "src/tools/text.ts:19 pg_text_rank ----",
            "src/tools/text.ts:27 pg_extra -t--",
        ],
    );
}
