//! Tools as registries ship them: a bundler's chunk whose helper is imported from a
//! package the tarball does not hold, one generated file per tool declared as the
//! SDK's `Tool`, and a `tools/list` answer filtered from a written list.

use super::*;

/// tsup's ESM chunk of supabase-mcp (npm 0.5.10, minified, on one line in the
/// package): `tool` comes from `@supabase/mcp-utils`, a package the tarball does
/// not hold, and `p` is a wrapper of it that takes the tool object apart to inject
/// arguments. A call of a name bound nowhere (`sortBy`) and an object without a
/// hint (`options`) stay no tool.
const SUPABASE_CHUNK: &str = r#"import{createMcpServer as mt}from"@supabase/mcp-utils";
import{tool as j}from"@supabase/mcp-utils";import{z as d}from"zod";
function pe({account:t,readOnly:a}){return{
list_organizations:j({description:"Lists all organizations.",annotations:{title:"List organizations",readOnlyHint:!0,destructiveHint:!1,idempotentHint:!0,openWorldHint:!1},parameters:d.object({}),execute:async()=>await t.listOrganizations()}),
pause_project:j({description:"Pauses a project.",annotations:{title:"Pause project",readOnlyHint:!1,destructiveHint:!1},parameters:d.object({project_id:d.string()}),execute:async({project_id:n})=>{if(a)throw new Error("read-only");return await t.pauseProject(n)}}),
sorted:sortBy({annotations:{readOnlyHint:!0},execute:run}),
options:j({description:"No tool.",parameters:d.object({}),execute:run})}}
import{tool as le}from"@supabase/mcp-utils";
function p({description:t,annotations:a,parameters:n,inject:r,execute:i}){if(!r||Object.values(r).every(c=>c===void 0))return le({description:t,annotations:a,parameters:n,execute:i});let s=Object.fromEntries(Object.entries(r).filter(([c,l])=>l!==void 0).map(([c])=>[c,!0]));return le({description:t,annotations:a,parameters:n.omit(s),execute:c=>i({...c,...r})})}
function je({database:t,projectId:a,readOnly:n}){let r=a;return{
list_tables:p({description:"Lists all tables.",annotations:{title:"List tables",readOnlyHint:!0,destructiveHint:!1,idempotentHint:!0,openWorldHint:!1},parameters:d.object({project_id:d.string()}),inject:{project_id:r},execute:async({project_id:s})=>t.listTables(s)}),
execute_sql:p({description:"Executes raw SQL.",annotations:{title:"Execute SQL",readOnlyHint:n??!1,destructiveHint:!0,idempotentHint:!1,openWorldHint:!0},parameters:d.object({query:d.string()}),inject:{project_id:r},execute:async({query:s})=>t.executeSql(s)})}}
export{pe as a,je as b,mt as c};
"#;

/// A bundle that imports its `tool` helper from a package it does not ship, and a
/// wrapper of it the finder cannot read: each key whose object declares a hint is
/// a tool named by the key, its hints as written.
#[test]
fn a_bundled_helper_from_another_package_makes_tools_named_by_their_keys() {
    let found = find(&[
        (
            "package/package.json",
            br#"{"name": "@supabase/mcp-server-supabase", "dependencies": {"@supabase/mcp-utils": "0.2.4"}}"#,
        ),
        ("package/dist/chunk-TOWYE6YC.js", SUPABASE_CHUNK.as_bytes()),
    ]);
    assert_rows(
        &found,
        &[
            "package/dist/chunk-TOWYE6YC.js:4 list_organizations tftf",
            "package/dist/chunk-TOWYE6YC.js:5 pause_project ff--",
            "package/dist/chunk-TOWYE6YC.js:11 list_tables tftf",
            "package/dist/chunk-TOWYE6YC.js:12 execute_sql ?tft",
        ],
    );
}

/// A file Stainless generates for each tool of an API (`@mux/mcp` 12.8.0's
/// `src/tools/data/metrics/list-data-metrics.ts`): the tool is a constant declared
/// as the SDK's `Tool`, gathered with its handler into a default export that an
/// index pushes into the list a `tools/list` handler filters at run time.
const STAINLESS_TOOL: &str = r#"// File generated from our OpenAPI spec by Stainless. See CONTRIBUTING.md for details.

import { Metadata, asTextContentResult } from '@mux/mcp/tools/types';

import { Tool } from '@modelcontextprotocol/sdk/types.js';
import Mux from '@mux/mux-node';

export const metadata: Metadata = {
  resource: 'data.metrics',
  operation: 'read',
  httpMethod: 'get',
};

export const tool: Tool = {
  name: 'list_data_metrics',
  description: 'List all of the values across every breakdown for a specific metric.',
  inputSchema: {
    type: 'object',
    properties: { jq_filter: { type: 'string', title: 'jq Filter' } },
    required: [],
  },
  annotations: {
    readOnlyHint: true,
  },
};

export const handler = async (client: Mux, args: Record<string, unknown> | undefined) => {
  return asTextContentResult(await client.data.metrics.list(args));
};

export default { metadata, tool, handler };
"#;

const STAINLESS_DELETE: &str = r#"import { Tool } from '@modelcontextprotocol/sdk/types.js';

export const tool: Tool = {
  name: 'delete_video_assets',
  description: 'Deletes a video asset and all its data.',
  inputSchema: { type: 'object', properties: { ASSET_ID: { type: 'string' } } },
  annotations: {
    idempotentHint: true,
  },
};

// Typed as something else, or without a name: no tool.
export const metadata: types.Metadata = { name: 'not_a_tool', annotations: { readOnlyHint: true } };
export const partial: Tool = { description: 'no name' };

export default { tool };
"#;

const STAINLESS_SERVER: &str = r#"import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { endpoints, query } from './tools';

export function initMcpServer(server) {
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    return { tools: query(filters, endpoints).map((endpoint) => endpoint.tool) };
  });
}
"#;

#[test]
fn a_constant_declared_as_the_sdks_tool_is_a_tool() {
    let found = find(&[
        (
            "package/src/tools/data/metrics/list-data-metrics.ts",
            STAINLESS_TOOL.as_bytes(),
        ),
        (
            "package/src/tools/video/assets/delete-video-assets.ts",
            STAINLESS_DELETE.as_bytes(),
        ),
        ("package/src/server.ts", STAINLESS_SERVER.as_bytes()),
    ]);
    assert_rows(
        &found,
        &[
            "package/src/server.ts:5 <dynamic> uuuu [dynamic]",
            "package/src/tools/data/metrics/list-data-metrics.ts:14 list_data_metrics t---",
            "package/src/tools/video/assets/delete-video-assets.ts:3 delete_video_assets --t-",
        ],
    );
}

/// DesktopCommander 0.2.24 (`dist/server.js`, as `tsc` emits it): the handler
/// writes its tools in a list and answers with the tools a filter keeps for the
/// client; each is a tool the source defines.
const FILTERED_ANSWER: &str = r#"import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
export const server = new Server({ name: "desktop-commander", version: "0.2.24" }, { capabilities: { tools: {} } });
function shouldIncludeTool(toolName) {
    return toolName !== 'give_feedback_to_desktop_commander';
}
server.setRequestHandler(ListToolsRequestSchema, async () => {
    try {
        const allTools = [
            {
                name: "get_config",
                description: `Get the complete server configuration as JSON.`,
                inputSchema: zodToJsonSchema(GetConfigArgsSchema),
                annotations: {
                    title: "Get Configuration",
                    readOnlyHint: true,
                },
            },
            {
                name: "write_file",
                description: `Write or append to file contents.`,
                inputSchema: zodToJsonSchema(WriteFileArgsSchema),
                annotations: {
                    title: "Write File",
                    readOnlyHint: false,
                    destructiveHint: true,
                    openWorldHint: false,
                },
            },
            {
                name: "give_feedback_to_desktop_commander",
                description: `Open feedback form in browser.`,
                inputSchema: zodToJsonSchema(GiveFeedbackArgsSchema),
            }
        ];
        const filteredTools = allTools.filter(tool => shouldIncludeTool(tool.name));
        return {
            tools: filteredTools,
        };
    }
    catch (error) {
        throw error;
    }
});
"#;

#[test]
fn a_tools_list_answer_filtered_from_a_written_list_is_the_lists_tools() {
    let found = find(&[("package/dist/server.js", FILTERED_ANSWER.as_bytes())]);
    assert_rows(
        &found,
        &[
            "package/dist/server.js:10 get_config t---",
            "package/dist/server.js:19 write_file ft-f",
            "package/dist/server.js:30 give_feedback_to_desktop_commander ----",
        ],
    );
}

/// frappe-dev-mcp-server 1.0.1 (`src/index.ts`): 29 tools written with their JSON
/// schemas in one list, answered by a class's method. Read whole, the list passed
/// the bound on a binding's size and read as a dynamic site.
#[test]
fn a_long_list_of_tools_with_their_schemas_is_read() {
    let tool = |i: usize| {
        format!(
            r#"  {{
    name: "frappe_tool_{i}",
    description: "Tool {i}",
    inputSchema: {{
      type: "object",
      properties: {{
        app_name: {{ type: "string", description: "Name of the Frappe app" }},
        fields: {{ type: "array", items: {{ type: "object", properties: {{ fieldname: {{ type: "string" }}, reqd: {{ type: "boolean", default: false }} }} }} }},
      }},
      required: ["app_name"],
    }},
  }},
"#
        )
    };
    let mut src = String::from(
        "import { Server } from \"@modelcontextprotocol/sdk/server/index.js\";\n\
         import { ListToolsRequestSchema } from \"@modelcontextprotocol/sdk/types.js\";\n\
         const frappeTools = [\n",
    );
    for i in 0..29 {
        src.push_str(&tool(i));
    }
    src.push_str(
        "];\nclass FrappeMCPServer {\n  private setupToolHandlers(server: Server) {\n    \
         server.setRequestHandler(ListToolsRequestSchema, async () => {\n      \
         return { tools: frappeTools };\n    });\n  }\n}\n",
    );
    let found = find(&[("package/src/index.ts", src.as_bytes())]);
    let rows = rows(&found);
    assert_eq!(rows.len(), 29, "{rows:#?}");
    assert_eq!(rows[0], "package/src/index.ts:4 frappe_tool_0 ----");
    assert_eq!(rows[28], "package/src/index.ts:340 frappe_tool_28 ----");
}

/// reddit-buddy-mcp 1.0.6-test.7 (`dist/mcp-server.js`): the `tools/list`
/// handler is a field of an object of handlers, which an HTTP transport calls too,
/// and is registered by name.
const HANDLER_APART: &str = r#"import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
export async function createMCPServer() {
    const server = new Server({ name: 'reddit-buddy', version: '1.0.6' }, { capabilities: { tools: {} } });
    const toolDefinitions = [
        {
            name: 'browse_subreddit',
            description: 'Fetch posts from a subreddit.',
            inputSchema: { type: 'object', properties: { subreddit: { type: 'string' } } }
        },
        {
            name: 'search_reddit',
            description: 'Search for posts across Reddit.',
            inputSchema: { type: 'object', properties: { query: { type: 'string' } } },
            annotations: { readOnlyHint: true }
        }
    ];
    const handlers = {
        'tools/list': async () => ({
            tools: toolDefinitions,
        }),
        'tools/call': async (params) => run(params),
    };
    server.setRequestHandler(ListToolsRequestSchema, handlers['tools/list']);
    server.setRequestHandler(CallToolRequestSchema, async (request) => handlers['tools/call'](request.params));
    return { server, handlers };
}
"#;

const HANDLER_NAMED: &str = r#"import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
async function listTools() {
    return { tools: [{ name: 'ping', inputSchema: { type: 'object' }, annotations: { idempotentHint: true } }] };
}
server.setRequestHandler(ListToolsRequestSchema, listTools);
"#;

#[test]
fn a_tools_list_handler_written_apart_answers_with_its_tools() {
    let found = find(&[
        ("package/dist/mcp-server.js", HANDLER_APART.as_bytes()),
        ("package/dist/ping.js", HANDLER_NAMED.as_bytes()),
    ]);
    assert_rows(
        &found,
        &[
            "package/dist/mcp-server.js:6 browse_subreddit ----",
            "package/dist/mcp-server.js:11 search_reddit t---",
            "package/dist/ping.js:3 ping --t-",
        ],
    );
}
