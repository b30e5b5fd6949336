//! Tool objects written as the servers that define them write them: apify's
//! frozen `ToolEntry` objects, named by a member of a const object of the tree.

use super::*;

const APIFY_SERVER: &str = r#"import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { toolCategories } from '../tools/registry.js';

export function serve(server: Server) {
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listed(toolCategories) }));
}
"#;

const APIFY_CONST: &str = r#"export const HELPER_TOOLS = {
    STORE_SEARCH: 'search-actors',
    DATASET_GET: 'get-dataset',
} as const;
"#;

const APIFY_REGISTRY: &str = r#"import { searchActors } from './actors/search_actors.js';
import { getDataset } from './storage/get_dataset.js';

export const toolCategories = {
    actors: [searchActors],
    storage: [getDataset],
} satisfies Record<string, ToolEntry[]>;
"#;

const APIFY_SEARCH: &str = r#"import dedent from 'dedent';
import { HELPER_TOOLS } from '../../const.js';

function buildDescription({ hasTool }: ToolDescriptionContext): string {
    return dedent`
        Search the Apify Store (\`apify.com/store\`) for Actors.
        Then call ${hasTool(HELPER_TOOLS.DATASET_GET) ? `\`${HELPER_TOOLS.DATASET_GET}\`` : 'nothing'}.`;
}

export const searchActors: ToolEntry = Object.freeze({
    name: HELPER_TOOLS.STORE_SEARCH,
    description: buildDescription(ALL_TOOLS_PRESENT),
    annotations: {
        title: 'Search Actors',
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
    },
    call: async (toolArgs: InternalToolArgs) => respondOk(`\`${toolArgs.args}\``),
} as const satisfies HelperTool);
"#;

const APIFY_DATASET: &str = r#"import { HELPER_TOOLS } from '../../const.js';

export const getDataset: ToolEntry = Object.freeze({
    name: HELPER_TOOLS.DATASET_GET,
    annotations: {
        readOnlyHint: true,
        openWorldHint: false,
    },
    call: async () => ({ content: [] }),
} as const);
"#;

/// apify-mcp-server freezes each tool object `as const`: an object passed through
/// a type assertion, read as no argument before, is the tool object all the same.
#[test]
fn a_tool_object_frozen_as_const_is_a_tool_object() {
    let found = find(&[
        ("src/mcp/server.ts", APIFY_SERVER.as_bytes()),
        ("src/const.ts", APIFY_CONST.as_bytes()),
        ("src/tools/registry.ts", APIFY_REGISTRY.as_bytes()),
        ("src/tools/actors/search_actors.ts", APIFY_SEARCH.as_bytes()),
        ("src/tools/storage/get_dataset.ts", APIFY_DATASET.as_bytes()),
    ]);
    assert_rows(
        &found,
        &[
            "src/mcp/server.ts:6 <dynamic> uuuu [dynamic]",
            "src/tools/actors/search_actors.ts:10 search-actors tftf",
            "src/tools/storage/get_dataset.ts:3 get-dataset t--f",
        ],
    );
    assert!(found.tools.iter().all(|t| t.family == Family::TypeScript));
}

const SUPABASE_UTILS_PACKAGE: &str = r#"{
  "name": "@supabase/mcp-utils",
  "type": "module",
  "exports": { ".": { "import": "./dist/index.js", "types": "./dist/index.d.ts" } }
}"#;

const SUPABASE_UTILS_SERVER: &str = r#"import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/**
 * Helper function to define an MCP tool while preserving type information.
 */
export function tool<Params extends z.ZodObject<any>>(tool: Tool<Params>) {
  return tool;
}

export function createMcpServer(options: McpServerOptions) {
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools = await options.tools();
    return { tools: Object.entries(tools).map(([name, tool]) => ({ name, annotations: tool.annotations })) };
  });
}
"#;

const SUPABASE_ACCOUNT_TOOLS: &str = r#"import { tool } from '@supabase/mcp-utils';
import { z } from 'zod/v4';

export const accountToolDefs = {
  list_organizations: {
    description: 'Lists all organizations that the user is a member of.',
    parameters: z.object({}),
    annotations: {
      title: 'List organizations',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
  },
} as const satisfies ToolDefs;

export function getAccountTools({ account, readOnly }: AccountToolsOptions) {
  return {
    list_organizations: tool({
      ...accountToolDefs.list_organizations,
      execute: async () => {
        return { organizations: await account.listOrganizations() };
      },
    }),
    pause_project: tool({
      description: 'Pauses a Supabase project.',
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
      },
      parameters: z.object({ project_id: z.string() }),
      execute: async ({ project_id }) => account.pauseProject(project_id),
    }),
    // A call of another function, and an object that is no tool: no tool.
    sorted: sortBy({ annotations: { readOnlyHint: true }, execute: run }),
    options: tool({ readOnly }),
  };
}
"#;

/// The workspace package holding supabase-mcp's `tool` helper.
const SUPABASE_UTILS: [(&str, &[u8]); 3] = [
    (
        "packages/mcp-utils/package.json",
        SUPABASE_UTILS_PACKAGE.as_bytes(),
    ),
    (
        "packages/mcp-utils/src/index.ts",
        b"export * from './server.js';\n",
    ),
    (
        "packages/mcp-utils/src/server.ts",
        SUPABASE_UTILS_SERVER.as_bytes(),
    ),
];

const SUPABASE_SERVER: &str = r#"import { createMcpServer } from '@supabase/mcp-utils';
import { getAccountTools } from './tools/account-tools.js';

export function createSupabaseMcpServer(options: SupabaseMcpServerOptions) {
  return createMcpServer({
    tools: async () => {
      const tools: Record<string, Tool> = {};
      Object.assign(tools, getAccountTools({ account, readOnly }));
      return tools;
    },
  });
}
"#;

/// supabase-mcp returns its tools as the keys of an object, each made by
/// `tool({...})`, a helper of a workspace package that gives its argument back: the
/// key names the tool.
#[test]
fn a_tool_object_a_helper_gives_back_is_named_by_its_key() {
    let own: [(&str, &[u8]); 3] = [
        (
            "packages/mcp-server-supabase/package.json",
            br#"{"name": "@supabase/mcp-server-supabase", "dependencies": {"@supabase/mcp-utils": "workspace:^"}}"#,
        ),
        (
            "packages/mcp-server-supabase/src/server.ts",
            SUPABASE_SERVER.as_bytes(),
        ),
        (
            "packages/mcp-server-supabase/src/tools/account-tools.ts",
            SUPABASE_ACCOUNT_TOOLS.as_bytes(),
        ),
    ];
    let found = find(&[&SUPABASE_UTILS[..], &own].concat());
    assert_rows(
        &found,
        &[
            "packages/mcp-server-supabase/src/tools/account-tools.ts:20 list_organizations tftf",
            "packages/mcp-server-supabase/src/tools/account-tools.ts:26 pause_project ff--",
            "packages/mcp-utils/src/server.ts:12 <dynamic> uuuu [dynamic]",
        ],
    );
    assert!(found.tools.iter().all(|t| t.family == Family::TypeScript));
}

/// Each file holds one keyed call, whose object brings what the recogniser needs
/// its own way: the hints through a spread, a schema beside a handler, annotations
/// named by a constant; and one whose object is no tool (a style helper of a
/// bundle). Through `find`, the lexer's confirmation of the form changes no answer.
#[test]
fn a_keyed_call_is_read_whichever_way_its_object_brings_its_keys() {
    let file = |body: &str| format!("import {{ tool }} from '@supabase/mcp-utils';\n{body}\n");
    let spread = file(
        "const defs = { a: { annotations: { readOnlyHint: true } } };\n\
         export const t = { spread_tool: tool({ ...defs.a, execute: run }) };",
    );
    let shaped = file(
        "export const t = {\n  shaped_tool: tool({ description: 'd', parameters: s, execute() {} }),\n};",
    );
    let named = file(
        "const RO = { readOnlyHint: true, openWorldHint: false };\n\
         export const t = { named_tool: tool({ annotations: RO, execute: run }) };",
    );
    let style = "const css = (o) => o;\nexport const styles = { root: css({ color: 'red' }) };\n";
    let own: [(&str, &[u8]); 5] = [
        (
            "packages/server/package.json",
            br#"{"name": "server", "dependencies": {"@supabase/mcp-utils": "workspace:^"}}"#,
        ),
        ("packages/server/src/spread.ts", spread.as_bytes()),
        ("packages/server/src/shaped.ts", shaped.as_bytes()),
        ("packages/server/src/named.ts", named.as_bytes()),
        ("packages/server/src/style.js", style.as_bytes()),
    ];
    let found = find(&[&SUPABASE_UTILS[..], &own].concat());
    assert_rows(
        &found,
        &[
            "packages/mcp-utils/src/server.ts:12 <dynamic> uuuu [dynamic]",
            "packages/server/src/named.ts:3 named_tool t--f",
            "packages/server/src/shaped.ts:3 shaped_tool ----",
            "packages/server/src/spread.ts:3 spread_tool t---",
        ],
    );
}
