"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.IDEMPOTENT = exports.describedTool = void 0;
exports.defineTool = defineTool;
/** Gives a tool definition its type; the definition itself is returned. */
function defineTool(definition) {
    return definition;
}
/** A definition with a default description. */
const describedTool = (definition) => ({
    description: "No description.",
    ...definition,
});
exports.describedTool = describedTool;
exports.IDEMPOTENT = { idempotentHint: true };
