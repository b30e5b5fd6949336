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
