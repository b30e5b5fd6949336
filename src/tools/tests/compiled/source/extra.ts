export const ping = {
  name: "ping",
  description: "Answer pong",
  annotations: { readOnlyHint: true, idempotentHint: true },
};

export const echo = {
  name: "echo",
  description: "Say it back",
  annotations: { openWorldHint: false },
};

export const EXTRA = [ping, echo];
