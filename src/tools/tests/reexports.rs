//! Tool objects gathered through a module that re-exports others, as compilers
//! write the re-exports: `tsc`'s CommonJS (`Object.defineProperty(exports, "x",
//! { get })` over a `require`, `__exportStar(require("./x"), exports)`,
//! `exports.x = ...` after `exports.x = void 0`) and esbuild's `__export(ns, { x:
//! () => x })`, read as the `export { x } from` they compile. Each chart module
//! exports `{ schema, tool }`, and the server lists `Object.values(Charts)`, as
//! @antv/mcp-server-chart does; the trees are written as `tsc` 5.9 and esbuild
//! 0.28 emit this source:
//!
//! ```ts
//! // src/charts/index.ts
//! export { area } from "./area";
//! export { districtMap as "district-map" } from "./district-map";
//! export * from "./pie";
//! // src/server.ts
//! import * as Charts from "./charts";
//! server.setRequestHandler(ListToolsRequestSchema, async () => ({
//!   tools: Object.values(Charts).map((chart) => chart.tool),
//! }));
//! ```

use super::{assert_rows, find};

const TSC_AREA: &str = r#""use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.area = void 0;
const zod_1 = require("zod");
// Area chart input schema
const schema = {
    data: zod_1.z.array(zod_1.z.object({ time: zod_1.z.string(), value: zod_1.z.number() })),
};
// Area chart tool descriptor
const tool = {
    name: "generate_area_chart",
    description: "Generate an area chart.",
    inputSchema: schema,
    annotations: {
        title: "Generate Area Chart",
        readOnlyHint: true,
    },
};
exports.area = {
    schema,
    tool,
};
"#;

const TSC_DISTRICT_MAP: &str = r#""use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.districtMap = void 0;
const zod_1 = require("zod");
const schema = {
    title: zod_1.z.string(),
};
const tool = {
    name: "generate_district_map",
    description: "Generate a district map.",
    inputSchema: schema,
    annotations: {
        title: "Generate District Map",
        readOnlyHint: false,
        openWorldHint: true,
    },
};
exports.districtMap = {
    schema,
    tool,
};
"#;

const TSC_PIE: &str = r#""use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.pie = void 0;
exports.pie = {
    schema: {},
    tool: {
        name: "generate_pie_chart",
        description: "Generate a pie chart.",
        annotations: { readOnlyHint: true, idempotentHint: true },
    },
};
"#;

const TSC_INDEX: &str = r#""use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __exportStar = (this && this.__exportStar) || function(m, exports) {
    for (var p in m) if (p !== "default" && !Object.prototype.hasOwnProperty.call(exports, p)) __createBinding(exports, m, p);
};
Object.defineProperty(exports, "__esModule", { value: true });
exports["district-map"] = exports.area = void 0;
var area_1 = require("./area.js");
Object.defineProperty(exports, "area", { enumerable: true, get: function () { return area_1.area; } });
var district_map_1 = require("./district-map.js");
Object.defineProperty(exports, "district-map", { enumerable: true, get: function () { return district_map_1.districtMap; } });
__exportStar(require("./pie.js"), exports);
"#;

const TSC_SERVER: &str = r#""use strict";
var __importStar = (this && this.__importStar) || (function () {
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        return result;
    };
})();
Object.defineProperty(exports, "__esModule", { value: true });
exports.createServer = createServer;
const index_js_1 = require("@modelcontextprotocol/sdk/server/index.js");
const types_js_1 = require("@modelcontextprotocol/sdk/types.js");
const Charts = __importStar(require("./charts/index.js"));
function createServer() {
    const server = new index_js_1.Server({ name: "charts", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler(types_js_1.ListToolsRequestSchema, async () => ({
        tools: Object.values(Charts).map((chart) => chart.tool),
    }));
    return server;
}
"#;

/// The three charts' tools, each where its `tool` object is written.
const TSC_TOOLS: [&str; 3] = [
    "build/charts/area.js:10 generate_area_chart t---",
    "build/charts/district-map.js:8 generate_district_map f--t",
    "build/charts/pie.js:6 generate_pie_chart t-t-",
];

fn tsc_tree(server: &str) -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("build/server.js", server.as_bytes().to_vec()),
        ("build/charts/index.js", TSC_INDEX.as_bytes().to_vec()),
        ("build/charts/area.js", TSC_AREA.as_bytes().to_vec()),
        (
            "build/charts/district-map.js",
            TSC_DISTRICT_MAP.as_bytes().to_vec(),
        ),
        ("build/charts/pie.js", TSC_PIE.as_bytes().to_vec()),
    ]
}

fn find_in(tree: &[(&str, Vec<u8>)]) -> super::FoundTools {
    let files: Vec<(&str, &[u8])> = tree.iter().map(|(p, b)| (*p, b.as_slice())).collect();
    find(&files)
}

#[test]
fn a_tools_list_mapped_over_a_tsc_reexporting_index_reads_each_tool_where_it_is_defined() {
    let found = find_in(&tsc_tree(TSC_SERVER));
    assert_rows(&found, &TSC_TOOLS);
}

#[test]
fn a_loop_over_a_tsc_reexporting_index_reads_each_tool_where_it_is_defined() {
    let server = TSC_SERVER.replace(
        "    server.setRequestHandler(types_js_1.ListToolsRequestSchema, async () => ({\n        tools: Object.values(Charts).map((chart) => chart.tool),\n    }));\n",
        "    for (const chart of Object.values(Charts)) {\n        server.registerTool(chart.tool.name, { description: chart.tool.description, annotations: chart.tool.annotations }, async () => ({ content: [] }));\n    }\n",
    );
    assert_ne!(server, TSC_SERVER, "the loop replaces the handler");
    let found = find_in(&tsc_tree(&server));
    assert_rows(&found, &TSC_TOOLS);
}

/// A getter `tsc` writes reads as the binding it returns, not as nothing: with the
/// index's re-exports unread, the answer is what code builds.
#[test]
fn a_tools_list_over_an_index_without_its_modules_is_a_dynamic_site() {
    let found = find_in(&tsc_tree(TSC_SERVER)[..2]);
    assert_rows(&found, &["build/server.js:16 <dynamic> uuuu [dynamic]"]);
}

/// esbuild 0.28's bundle of the same source (`--bundle --platform=node
/// --format=esm`): the index a namespace object its `__export` fills, each module's
/// `schema` and `tool` renamed apart.
const ESBUILD_BUNDLE: &str = r#"var __defProp = Object.defineProperty;
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};

// src/server.ts
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

// src/charts/index.ts
var charts_exports = {};
__export(charts_exports, {
  area: () => area,
  "district-map": () => districtMap,
  pie: () => pie
});

// src/charts/area.ts
import { z } from "zod";
var schema = {
  data: z.array(z.object({ time: z.string(), value: z.number() }))
};
var tool = {
  name: "generate_area_chart",
  description: "Generate an area chart.",
  inputSchema: schema,
  annotations: {
    title: "Generate Area Chart",
    readOnlyHint: true
  }
};
var area = {
  schema,
  tool
};

// src/charts/district-map.ts
import { z as z2 } from "zod";
var schema2 = {
  title: z2.string()
};
var tool2 = {
  name: "generate_district_map",
  description: "Generate a district map.",
  inputSchema: schema2,
  annotations: {
    title: "Generate District Map",
    readOnlyHint: false,
    openWorldHint: true
  }
};
var districtMap = {
  schema: schema2,
  tool: tool2
};

// src/charts/pie.ts
var pie = {
  schema: {},
  tool: {
    name: "generate_pie_chart",
    description: "Generate a pie chart.",
    annotations: { readOnlyHint: true, idempotentHint: true }
  }
};

// src/server.ts
function createServer() {
  const server = new Server({ name: "charts", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: Object.values(charts_exports).map((chart) => chart.tool)
  }));
  return server;
}
export {
  createServer
};
"#;

#[test]
fn a_tools_list_mapped_over_an_esbuild_namespace_reads_each_tool_where_it_is_defined() {
    let found = find(&[("build/index.js", ESBUILD_BUNDLE.as_bytes())]);
    assert_rows(
        &found,
        &[
            "build/index.js:24 generate_area_chart t---",
            "build/index.js:43 generate_district_map f--t",
            "build/index.js:61 generate_pie_chart t-t-",
        ],
    );
}
