var __defProp = Object.defineProperty;
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};

// src/index.ts
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

// src/tools/index.ts
var tools_exports = {};
__export(tools_exports, {
  listDir: () => listDir,
  readFile: () => readFile,
  touch: () => touch,
  writeFile: () => writeFile
});

// src/define.ts
function defineTool(definition) {
  return definition;
}
var describedTool = (definition) => ({
  description: "No description.",
  ...definition
});
var IDEMPOTENT = { idempotentHint: true };

// src/tools/read.ts
var readFile = defineTool({
  name: "read_file",
  description: "Read a file",
  annotations: { readOnlyHint: true, openWorldHint: false },
  handler: async (args) => String(args.path)
});
var listDir = defineTool({
  name: "list_dir",
  description: "List a folder",
  annotations: { readOnlyHint: true },
  handler: async () => ""
});

// src/tools/write.ts
var writeFile = defineTool({
  name: "write_file",
  description: "Write a file",
  annotations: { readOnlyHint: false, destructiveHint: true, ...IDEMPOTENT },
  handler: async () => "ok"
});
var touch = describedTool({
  name: "touch",
  annotations: { destructiveHint: false },
  handler: async () => "ok"
});

// src/extra.ts
var ping = {
  name: "ping",
  description: "Answer pong",
  annotations: { readOnlyHint: true, idempotentHint: true }
};
var echo = {
  name: "echo",
  description: "Say it back",
  annotations: { openWorldHint: false }
};
var EXTRA = [ping, echo];

// src/index.ts
var server = new McpServer({ name: "files", version: "1.0.0" });
for (const tool of Object.values(tools_exports)) {
  server.registerTool(
    tool.name,
    { description: tool.description, annotations: tool.annotations },
    tool.handler
  );
}
EXTRA.forEach((t) => server.tool(t.name, t.description, t.annotations, async () => ({ content: [] })));
server.registerTool(
  process.env.STATUS_TOOL_NAME || "status",
  { description: "Server status", annotations: { readOnlyHint: true } },
  async () => ({ content: [] })
);
export {
  server
};
