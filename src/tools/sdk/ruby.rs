//! The official Ruby SDK (the `mcp` gem).
//!
//! - `class X < MCP::Tool` (or `::MCP::Tool`) with the class-level calls
//!   `tool_name "..."` and `annotations(read_only_hint: true, ...)`; each call replaces
//!   what an earlier one set, as the SDK's setters do, so the last one counts;
//! - `MCP::Tool.define(name: "...", annotations: {...}) { ... }`;
//! - `server.define_tool(name: "...", annotations: {...}) { ... }`.
//!
//! A class without `tool_name` is named by the SDK from the class name (snake_case),
//! which the finder does not redo: no name. A class whose superclass is not written
//! `MCP::Tool` (another gem's `Tool`, or an application's base class) is not read.
//! Annotations are keyword arguments, a hash (`{ read_only_hint: true }`,
//! `:read_only_hint => true`), `**PRESET` splats or `MCP::Tool::Annotations.new(...)`;
//! `nil` is absent. Bindings: assignments to a constant or a local name (`.freeze`
//! and `.dup` read through); a constant `A::B::NAME` is looked up by its last name.
//! Imports: `require_relative "presets"` makes every binding of that file visible.

use tree_sitter::Node;

use super::model::Family;
use super::syntax::{children, line, preorder, text, unquote, Named};
use super::value::{canonical_key, FileSummary, Prop, Site, SiteKind, Val, MAX_VALUE_DEPTH};

/// Fills `out` from one parsed file.
pub(crate) fn collect(root: Node, src: &[u8], out: &mut FileSummary) {
    preorder(root, |node| match node.kind_name() {
        "assignment" => assignment(node, src, out),
        "class" => class(node, src, out),
        "call" => call(node, src, out),
        _ => {}
    });
}

fn assignment(node: Node, src: &[u8], out: &mut FileSummary) {
    let (Some(left), Some(right)) = (node.field("left"), node.field("right")) else {
        return;
    };
    if matches!(left.kind_name(), "constant" | "identifier") {
        out.bind(text(left, src), val(right, src, 0));
    }
}

/// Returns true when a node names `MCP::Tool` or `::MCP::Tool`.
fn is_mcp_tool(node: Node, src: &[u8]) -> bool {
    node.kind_name() == "scope_resolution" && matches!(text(node, src), "MCP::Tool" | "::MCP::Tool")
}

fn class(node: Node, src: &[u8], out: &mut FileSummary) {
    let Some(superclass) = node
        .field("superclass")
        .and_then(|s| children(s).into_iter().next())
    else {
        return;
    };
    if !is_mcp_tool(superclass, src) {
        return;
    }
    let mut tool_name = None;
    let mut annotations = None;
    // Only calls made in the class body itself, not in its methods.
    let body = children(node)
        .into_iter()
        .find(|c| c.kind_name() == "body_statement");
    for stmt in body.map(children).unwrap_or_default() {
        if stmt.kind_name() != "call" || stmt.field("receiver").is_some() {
            continue;
        }
        let Some(method) = stmt.field("method") else {
            continue;
        };
        match text(method, src) {
            "tool_name" => {
                tool_name = arguments(stmt)
                    .first()
                    .map(|a| val(*a, src, 0))
                    .or(tool_name)
            }
            "annotations" => annotations = Some(arguments_value(stmt, src, 0)),
            _ => {}
        }
    }
    let at = line(node);
    out.sites.push(Site::new(
        at,
        node.byte_range(),
        Family::Ruby,
        SiteKind::Tool {
            name: Some(tool_name.unwrap_or(Val::Other)),
            def: Val::annotated(at, annotations),
        },
    ));
}

fn call(node: Node, src: &[u8], out: &mut FileSummary) {
    let Some(method) = node.field("method") else {
        return;
    };
    let receiver = node.field("receiver");
    match text(method, src) {
        "require_relative" if receiver.is_none() => {
            if let Some(Val::Str(rel)) = arguments(node).first().map(|a| val(*a, src, 0)) {
                out.star_exports.push(rel);
            }
        }
        "define" if receiver.is_some_and(|r| is_mcp_tool(r, src)) => definition(node, src, out),
        "define_tool" => definition(node, src, out),
        _ => {}
    }
}

/// Records `define(name: ..., annotations: ...)` / `define_tool(...)`; one without a
/// `name:` keyword is some other `define_tool`.
fn definition(node: Node, src: &[u8], out: &mut FileSummary) {
    let Val::Obj { props, .. } = arguments_value(node, src, 0) else {
        return;
    };
    let field = |key: &str| {
        props.iter().rev().find_map(|p| match p {
            Prop::Field(k, v) if k == key => Some(v.clone()),
            _ => None,
        })
    };
    let Some(tool_name) = field("name") else {
        return;
    };
    let at = line(node);
    out.sites.push(Site::new(
        at,
        node.byte_range(),
        Family::Ruby,
        SiteKind::Tool {
            name: Some(tool_name),
            def: Val::annotated(at, field("annotations")),
        },
    ));
}

/// Returns a call's argument nodes (keyword pairs and splats included).
fn arguments(call: Node) -> Vec<Node> {
    call.field("arguments").map(children).unwrap_or_default()
}

/// Returns a call's arguments as one value: its keyword arguments and `**` splats as
/// an object, or its single positional argument (a hash or a preset).
fn arguments_value(call: Node, src: &[u8], depth: usize) -> Val {
    let args = arguments(call);
    match args.as_slice() {
        [one] if !matches!(one.kind_name(), "pair" | "hash_splat_argument") => {
            val(*one, src, depth)
        }
        _ => hash(line(call), &args, src, depth),
    }
}

/// Reads hash entries: `key: value`, `:key => value`, `"key" => value` and `**splat`.
fn hash(at: u32, entries: &[Node], src: &[u8], depth: usize) -> Val {
    let mut props = Vec::new();
    for e in entries {
        match e.kind_name() {
            "pair" => {
                let (Some(k), Some(v)) = (e.field("key"), e.field("value")) else {
                    continue;
                };
                let key = match k.kind_name() {
                    "hash_key_symbol" => text(k, src).to_string(),
                    "simple_symbol" => text(k, src).trim_start_matches(':').to_string(),
                    _ => match val(k, src, depth + 1) {
                        Val::Str(s) => s,
                        // A computed key may be any field.
                        _ => return Val::Other,
                    },
                };
                props.push(Prop::Field(canonical_key(&key), val(v, src, depth + 1)));
            }
            "hash_splat_argument" => {
                let inner = children(*e).into_iter().next();
                props.push(Prop::Spread(
                    inner.map_or(Val::Other, |i| val(i, src, depth + 1)),
                ));
            }
            // A positional argument beside keywords: not an annotations hash.
            _ => return Val::Other,
        }
    }
    Val::obj(at, props)
}

/// Translates an expression into a value.
fn val(node: Node, src: &[u8], depth: usize) -> Val {
    if depth > MAX_VALUE_DEPTH {
        return Val::Other;
    }
    match node.kind_name() {
        "true" => Val::Bool(true),
        "false" => Val::Bool(false),
        "nil" => Val::Null,
        "string" => {
            // `#{expr}` is interpolation.
            if children(node)
                .iter()
                .any(|c| !matches!(c.kind_name(), "string_content" | "escape_sequence"))
            {
                return Val::Other;
            }
            unquote(text(node, src)).map_or(Val::Other, Val::Str)
        }
        "constant" | "identifier" => Val::name_ref(text(node, src)),
        "scope_resolution" => node
            .field("name")
            .filter(|n| n.kind_name() == "constant")
            .map_or(Val::Other, |n| Val::name_ref(text(n, src))),
        "parenthesized_statements" => match children(node).as_slice() {
            [inner] => val(*inner, src, depth + 1),
            _ => Val::Other,
        },
        "hash" => hash(line(node), &children(node), src, depth),
        "call" => {
            let Some(method) = node.field("method") else {
                return Val::Other;
            };
            let receiver = node.field("receiver");
            match (text(method, src), receiver) {
                ("freeze" | "dup", Some(r)) => val(r, src, depth + 1),
                ("new", Some(r)) if text(r, src).ends_with("Annotations") => {
                    arguments_value(node, src, depth + 1)
                }
                _ => Val::Other,
            }
        }
        _ => Val::Other,
    }
}
