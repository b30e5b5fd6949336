declare module "@modelcontextprotocol/sdk/server/mcp.js" {
  export class McpServer {
    constructor(info: { name: string; version: string });
    registerTool(name: string, config: object, cb: (...args: any[]) => unknown): void;
    tool(name: string, ...rest: unknown[]): void;
  }
}

declare const process: { env: Record<string, string | undefined> };
