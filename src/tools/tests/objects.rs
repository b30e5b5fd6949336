//! Tool objects gathered into lists and registered in a loop, and tool objects a
//! factory of the tree returns, written the way real servers write them.

use super::*;

const CCI_INDEX: &str = r#"import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CCI_TOOLS, CCI_HANDLERS } from './circleci-tools.js';

const server = new McpServer({ name: 'mcp-server-circleci', version: '1.0.0' });

CCI_TOOLS.forEach((tool) => {
  const handler = CCI_HANDLERS[tool.name];
  const annotations = (tool as { annotations?: Record<string, unknown> }).annotations;
  if (annotations) {
    server.tool(tool.name, tool.description, { params: tool.inputSchema.optional() }, annotations, handler);
  } else {
    server.tool(tool.name, tool.description, { params: tool.inputSchema.optional() }, handler);
  }
});
"#;

const CCI_TOOLS: &str = r#"import { listFollowedProjectsTool } from './tools/listFollowedProjects/tool.js';
import { runPipelineTool } from './tools/runPipeline/tool.js';

export const CCI_TOOLS = [listFollowedProjectsTool, runPipelineTool];
"#;

const LIST_FOLLOWED: &str = r#"import { listFollowedProjectsInputSchema } from './inputSchema.js';

export const listFollowedProjectsTool = {
  name: 'list_followed_projects' as const,
  description: `List the projects the user follows.`,
  inputSchema: listFollowedProjectsInputSchema,
};
"#;

const RUN_PIPELINE: &str = r#"import { runPipelineInputSchema } from './inputSchema.js';

export const runPipelineTool = {
  name: 'run_pipeline' as const,
  description: `Triggers a new pipeline.`,
  annotations: {
    destructiveHint: true,
  },
  inputSchema: runPipelineInputSchema,
};
"#;

/// CircleCI's server registers each object of a list, reading `annotations` off
/// an object that may have none: one without the key declares nothing.
#[test]
fn a_tool_object_without_annotations_declares_nothing_whatever_the_loop_reads_from_it() {
    let found = find(&[
        ("src/index.ts", CCI_INDEX.as_bytes()),
        ("src/circleci-tools.ts", CCI_TOOLS.as_bytes()),
        (
            "src/tools/listFollowedProjects/tool.ts",
            LIST_FOLLOWED.as_bytes(),
        ),
        ("src/tools/runPipeline/tool.ts", RUN_PIPELINE.as_bytes()),
    ]);
    assert_rows(
        &found,
        &[
            "src/tools/listFollowedProjects/tool.ts:3 list_followed_projects ----",
            "src/tools/runPipeline/tool.ts:3 run_pipeline -t--",
        ],
    );
    assert!(found.tools.iter().all(|t| t.family == Family::TypeScript));
}

const APPSIGNAL_TOOLS: &str = r#"import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { getLogIncidentTool } from './tools/get-log-incident.js';
import { searchLogsTool } from './tools/search-logs.js';

export function registerTools(server: McpServer, clientFactory: () => Client) {
  return () => {
    const toolDefs = [
      { def: getLogIncidentTool(server, clientFactory), key: 'getLogIncident' },
      {
        def: searchLogsTool(server, clientFactory),
        key: 'searchLogs',
      },
    ];

    toolDefs.forEach(({ def, key }) => {
      mainTools[key] = server.tool(def.name, def.description, def.inputSchema, def.handler);
    });
  };
}
"#;

const GET_LOG_INCIDENT: &str = r#"import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export function getLogIncidentTool(_server: McpServer, clientFactory: () => Client) {
  const GetLogIncidentShape = {
    incidentNumber: z.string().describe('The number of the log incident'),
  };

  return {
    name: 'get_log_incident',
    description: `Retrieve a log incident.`,
    inputSchema: GetLogIncidentShape,
    handler: async (args: unknown) => {
      return { content: [] };
    },
  };
}
"#;

const SEARCH_LOGS: &str = r#"import { z } from 'zod';

export function searchLogsTool(_server: unknown, clientFactory: () => Client) {
  return {
    name: 'search_logs',
    description: 'Search logs.',
    inputSchema: { query: z.string() },
    annotations: { readOnlyHint: true },
    handler: async () => ({ content: [] }),
  };
}
"#;

/// pulsemcp's appsignal server lists `{ def: factory(server, client), key }`
/// objects and registers each `def`: a factory's object reads as if written in
/// place, even as a field of a list's element.
#[test]
fn a_tool_object_a_factory_returns_in_a_list_element_is_read_in_place() {
    let found = find(&[
        ("shared/src/tools.ts", APPSIGNAL_TOOLS.as_bytes()),
        (
            "shared/src/tools/get-log-incident.ts",
            GET_LOG_INCIDENT.as_bytes(),
        ),
        ("shared/src/tools/search-logs.ts", SEARCH_LOGS.as_bytes()),
    ]);
    assert_rows(
        &found,
        &[
            "shared/src/tools.ts:8 get_log_incident ----",
            "shared/src/tools.ts:9 search_logs ----",
        ],
    );
    assert!(found.tools.iter().all(|t| t.family == Family::TypeScript));
}

/// A description's text is left out of the parse (`Lexed::texts`) and read as a
/// string without its text: the 1.x overloads still tell it from a schema or the
/// annotations when it is passed by a field, and a name taken from a description
/// reads the same as in a whole parse.
#[test]
fn a_description_left_out_of_the_parse_is_still_a_description() {
    let tools = r#"import { z } from 'zod';

export const listTool = {
  name: 'list_items',
  description: "Lists the items of one project, newest first, fifty at a time at most.",
  annotations: { readOnlyHint: true, openWorldHint: false },
};

export const dropTool = {
  name: 'drop_item',
  'description': `Drops one item for good.
It cannot be undone, and its history goes with it.`,
  schema: { id: z.string() },
};

export const oddTool = {
  description: "A name taken from a description is read as a whole parse reads it.",
};
"#;
    let index = r#"import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { listTool, dropTool, oddTool } from './tools.js';

const server = new McpServer({ name: 's', version: '1.0.0' });
server.tool(listTool.name, listTool.description, listTool.annotations, async () => ({ content: [] }));
server.tool(dropTool.name, dropTool.description, dropTool.schema, { destructiveHint: true }, async () => ({ content: [] }));
server.tool(oddTool.description, {}, async () => ({ content: [] }));
"#;
    let found = find(&[
        ("src/tools.ts", tools.as_bytes()),
        ("src/index.ts", index.as_bytes()),
    ]);
    assert_rows(
        &found,
        &[
            "src/index.ts:5 list_items t--f",
            "src/index.ts:6 drop_item -t--",
            // The description's text is not read: an empty name, in both parses.
            "src/index.ts:7  ----",
        ],
    );
}

/// A handler key's function is run, never called for a value: read as nothing in
/// every parse, its body (which returns the tool's result, an object) is left out
/// of the parse. A factory under another key is still read where it is called.
#[test]
fn a_handler_returning_an_object_is_no_factory() {
    let index = r#"import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

const defs = {
  make: () => {
    return { name: 'made', annotations: { readOnlyHint: true } };
  },
  handler: async (args: { id: string }): Promise<{ content: unknown[] }> => {
    const found = await lookUp(args.id);
    return { name: 'from_handler', content: [found] };
  },
};

const server = new McpServer({ name: 's', version: '1.0.0' });
const made = defs.make();
server.registerTool(made.name, { annotations: made.annotations }, defs.handler);
server.registerTool('drop', { annotations: { destructiveHint: true } }, defs.handler);
const byHandler = defs.handler();
server.registerTool(byHandler.name, {}, defs.handler);
"#;
    let found = find(&[("src/index.ts", index.as_bytes())]);
    assert_rows(
        &found,
        &[
            "src/index.ts:15 made t---",
            "src/index.ts:16 drop -t--",
            // What a handler returns is not read, its name either, in both parses.
            "src/index.ts:18 <dynamic> ----",
        ],
    );
}

/// A Zod object schema's shape is never read, only that it is there: read so in
/// every parse, the object literal `z.object(...)` is first given is left out of
/// the parse. A 1.x `tool(...)` still tells its `.shape` for the parameters, and an
/// object of tool-like keys given to it is no tool.
#[test]
fn a_zod_object_s_shape_is_never_read() {
    let schemas = r#"import { z } from 'zod';

export const SearchInput = z.object({
  query: z.string().describe('What to look for'),
  limit: z.number().int().max(50).optional(),
});

export const ToolConfig = z.object({
  name: z.string(),
  inputSchema: z.record(z.unknown()),
  handler: z.function(),
});
"#;
    let index = r#"import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { SearchInput } from './schemas.js';

const server = new McpServer({ name: 's', version: '1.0.0' });
server.tool('search', 'Searches.', SearchInput.shape, { readOnlyHint: true }, async () => ({ content: [] }));
server.registerTool('drop', {
  inputSchema: z.object({ id: z.string() }).shape,
  annotations: { destructiveHint: true },
}, async () => ({ content: [] }));
"#;
    let found = find(&[
        ("src/schemas.ts", schemas.as_bytes()),
        ("src/index.ts", index.as_bytes()),
    ]);
    assert_rows(
        &found,
        &["src/index.ts:6 search t---", "src/index.ts:7 drop -t--"],
    );
}
