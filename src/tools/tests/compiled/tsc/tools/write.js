"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.touch = exports.writeFile = void 0;
const define_js_1 = require("../define.js");
exports.writeFile = (0, define_js_1.defineTool)({
    name: "write_file",
    description: "Write a file",
    annotations: { readOnlyHint: false, destructiveHint: true, ...define_js_1.IDEMPOTENT },
    handler: async () => "ok",
});
exports.touch = (0, define_js_1.describedTool)({
    name: "touch",
    annotations: { destructiveHint: false },
    handler: async () => "ok",
});
