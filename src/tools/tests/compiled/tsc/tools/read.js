"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.listDir = exports.readFile = void 0;
const define_js_1 = require("../define.js");
exports.readFile = (0, define_js_1.defineTool)({
    name: "read_file",
    description: "Read a file",
    annotations: { readOnlyHint: true, openWorldHint: false },
    handler: async (args) => String(args.path),
});
exports.listDir = (0, define_js_1.defineTool)({
    name: "list_dir",
    description: "List a folder",
    annotations: { readOnlyHint: true },
    handler: async () => "",
});
