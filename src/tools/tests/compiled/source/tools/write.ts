import { defineTool, describedTool, IDEMPOTENT } from "../define.js";

export const writeFile = defineTool({
  name: "write_file",
  description: "Write a file",
  annotations: { readOnlyHint: false, destructiveHint: true, ...IDEMPOTENT },
  handler: async () => "ok",
});

export const touch = describedTool({
  name: "touch",
  annotations: { destructiveHint: false },
  handler: async () => "ok",
});
