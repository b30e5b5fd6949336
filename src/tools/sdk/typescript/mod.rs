//! The TypeScript SDK's registrations, in TypeScript and in the JavaScript npm
//! packages ship (ES modules and CommonJS as `tsc` emits them):
//!
//! - `server.registerTool(name, { annotations: {...}, ... }, cb)`, and
//!   `server.experimental.tasks.registerToolTask(...)` of the same shape;
//! - `server.tool(name, description?, paramsSchema?, annotations?, cb)` (the 1.x
//!   overloads: with one object between name and callback, it is the annotations
//!   when it sets a hint or a title, as the SDK tells a schema from annotations);
//! - `server.addTool({ name, annotations, ... })` (FastMCP for TypeScript), or a
//!   constant or a factory call giving that object;
//! - `server.setRequestHandler(ListToolsRequestSchema, ...)` answering `{ tools: [...] }`:
//!   each element of the list is a tool (a list the answer filters, and a handler
//!   registered by name or as a field of an object of handlers, read as written);
//! - a constant declared as the SDK's `Tool` with a `name` (`export const tool:
//!   Tool = {...}`, as Stainless generates one file per tool);
//! - a tool-shaped object literal passed to any other call (a project's own
//!   `defineTool({...})`): a `name` beside an `annotations` object holding a hint
//!   key, or beside a schema (`inputSchema`, `schema`, `parameters`) and a handler;
//! - a class with a literal `name` field (or a static `toolName`) and something to
//!   run or a schema (`execute`, `handler`, `run`, `schema`, `inputSchema`,
//!   `argsShape`, `parameters`, `annotations`), extending a class whose name holds
//!   `Tool` (mcp-framework's `MCPTool`, a project's own base): its `annotations`
//!   field, or the base class's when the tree holds it.
//!
//! Bindings: `const`/`let`/`var` declarators, CommonJS `exports.NAME = ...`,
//! functions that return an object literal (factories, read one level) and classes;
//! imports: `import`, `export ... from` and `require` of relative modules, and
//! modules imported for their effect alone.

mod bindings;
mod loops;
mod modules;
mod registrations;
mod values;

use tree_sitter::Node;

use super::syntax::{children, preorder_skipping, Named};
use super::value::FileSummary;

use bindings::{class, declarator, function, top_declarators, typed_list};
use modules::{bare_require, commonjs_export, compiled_export, import, reexport};
use registrations::call;

/// Kinds of nodes that hold none of those [`collect`] reads: types (a declarator's
/// or a function's type is read from the declarator or the function itself), string
/// literals and comments.
const UNREAD: [&str; 7] = [
    "type_annotation",
    "type_arguments",
    "type_parameters",
    "interface_declaration",
    "type_alias_declaration",
    "string",
    "comment",
];

/// Fills `out` from one parsed file.
pub(crate) fn collect(root: Node, src: &[u8], out: &mut FileSummary) {
    let mut top = Vec::new();
    let mut nested = Vec::new();
    let mut namespaces = Vec::new();
    let tops = top_declarators(root);
    preorder_skipping(root, &UNREAD, |node| match node.kind_name() {
        "variable_declarator" => {
            typed_list(node, src, out);
            declarator(node, src, out, &tops, &mut top, &mut nested)
        }
        "method_definition"
        | "function_expression"
        | "arrow_function"
        | "public_field_definition" => typed_list(node, src, out),
        "assignment_expression" => commonjs_export(node, src, &mut top),
        "import_statement" => import(node, src, out),
        "export_statement" => reexport(node, src, out),
        "call_expression" => {
            let (Some(function), Some(arguments)) =
                (node.field("function"), node.field("arguments"))
            else {
                return;
            };
            let args = children(arguments);
            call(node, function, &args, src, out);
            compiled_export(node, function, &args, src, out, &mut top, &mut namespaces);
        }
        "expression_statement" => bare_require(node, src, out),
        "function_declaration" => {
            typed_list(node, src, out);
            function(node, src, &mut top)
        }
        "class_declaration" | "abstract_class_declaration" | "class" => {
            class(node, src, out, &mut top)
        }
        _ => {}
    });
    // A bundler's namespace object is declared empty and filled by its helper: the
    // helper's fields are its value.
    top.retain(|(name, _)| !namespaces.iter().any(|(n, _)| n == name));
    top.extend(namespaces);
    // A name bound at the top of the file is read at that value; a name bound only
    // inside functions is read when it is bound once.
    for (name, val) in &top {
        out.bind(name, val.clone());
    }
    for (name, val) in nested {
        if !top.iter().any(|(n, _)| *n == name) {
            out.bind(&name, val);
        }
    }
}
