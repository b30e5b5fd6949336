import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import * as tools from "./tools/index.js";
import { EXTRA } from "./extra.js";

const server = new McpServer({ name: "files", version: "1.0.0" });

for (const tool of Object.values(tools)) {
  server.registerTool(
    tool.name,
    { description: tool.description, annotations: tool.annotations },
    tool.handler,
  );
}

EXTRA.forEach((t) => server.tool(t.name, t.description, t.annotations, async () => ({ content: [] })));

server.registerTool(
  process.env.STATUS_TOOL_NAME || "status",
  { description: "Server status", annotations: { readOnlyHint: true } },
  async () => ({ content: [] }),
);

export { server };
