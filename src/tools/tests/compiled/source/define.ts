export interface ToolDefinition {
  name: string;
  description: string;
  annotations?: Record<string, boolean | string>;
  handler: (args: Record<string, unknown>) => Promise<string>;
}

/** Gives a tool definition its type; the definition itself is returned. */
export function defineTool<T extends ToolDefinition>(definition: T): T {
  return definition;
}

/** A definition with a default description. */
export const describedTool = (definition: Omit<ToolDefinition, "description">): ToolDefinition => ({
  description: "No description.",
  ...definition,
});

export const IDEMPOTENT = { idempotentHint: true } as const;
