import { defineTool } from "../define.js";

export const readFile = defineTool({
  name: "read_file",
  description: "Read a file",
  annotations: { readOnlyHint: true, openWorldHint: false },
  handler: async (args) => String(args.path),
});

export const listDir = defineTool({
  name: "list_dir",
  description: "List a folder",
  annotations: { readOnlyHint: true },
  handler: async () => "",
});
