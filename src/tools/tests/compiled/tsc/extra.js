"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.EXTRA = exports.echo = exports.ping = void 0;
exports.ping = {
    name: "ping",
    description: "Answer pong",
    annotations: { readOnlyHint: true, idempotentHint: true },
};
exports.echo = {
    name: "echo",
    description: "Say it back",
    annotations: { openWorldHint: false },
};
exports.EXTRA = [exports.ping, exports.echo];
