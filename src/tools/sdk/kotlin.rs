//! The official Kotlin SDK.
//!
//! - `server.addTool(name = "...", description = "...", ..., toolAnnotations = ToolAnnotations(...)) { ... }`
//!   (named, or positional with the annotations sixth);
//! - `Tool(name = "...", ..., annotations = ToolAnnotations(...))` (positional: sixth).
//!
//! `ToolAnnotations(title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint)`
//! is read by name or by position; `null` is absent. Bindings: `val`/`var` of the same file.

use tree_sitter::Node;

use super::model::Family;
use super::syntax::{children, line, preorder, text, unquote, Named};
use super::value::{FileSummary, Prop, Site, SiteKind, Val, MAX_VALUE_DEPTH};

const POSITIONS: [&str; 4] = [
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

/// Fills `out` from one parsed file.
pub(crate) fn collect(root: Node, src: &[u8], out: &mut FileSummary) {
    preorder(root, |node| match node.kind_name() {
        "property_declaration" => {
            let parts = children(node);
            let name = parts
                .iter()
                .find(|p| p.kind_name() == "variable_declaration")
                .and_then(|v| {
                    children(*v)
                        .into_iter()
                        .find(|c| c.kind_name() == "identifier")
                });
            let value = parts
                .last()
                .filter(|p| p.kind_name() != "variable_declaration");
            if let (Some(n), Some(v)) = (name, value) {
                out.bind(text(n, src), val(*v, src, 0));
            }
        }
        "call_expression" => call(node, src, out),
        _ => {}
    });
}

/// Returns the called name (`addTool` of `server.addTool`).
fn callee<'a>(call: Node, src: &'a [u8]) -> Option<&'a str> {
    let f = children(call).into_iter().next()?;
    match f.kind_name() {
        "identifier" => Some(text(f, src)),
        "navigation_expression" => children(f)
            .into_iter()
            .last()
            .filter(|l| l.kind_name() == "identifier")
            .map(|l| text(l, src)),
        _ => None,
    }
}

/// Returns a call's positional and named arguments.
fn arguments<'t>(call: Node<'t>, src: &[u8]) -> (Vec<Node<'t>>, Vec<(String, Node<'t>)>) {
    let mut positional = Vec::new();
    let mut named = Vec::new();
    let Some(args) = children(call)
        .into_iter()
        .find(|c| c.kind_name() == "value_arguments")
    else {
        return (positional, named);
    };
    for a in children(args) {
        let parts = children(a);
        match parts.as_slice() {
            [n, v] if n.kind_name() == "identifier" => named.push((text(*n, src).to_string(), *v)),
            [v] => positional.push(*v),
            _ => {}
        }
    }
    (positional, named)
}

fn argument<'t>(
    positional: &[Node<'t>],
    named: &[(String, Node<'t>)],
    names: &[&str],
    at: usize,
) -> Option<Node<'t>> {
    named
        .iter()
        .find(|(k, _)| names.contains(&k.as_str()))
        .map(|(_, v)| *v)
        .or_else(|| positional.get(at).copied())
}

fn call(node: Node, src: &[u8], out: &mut FileSummary) {
    let Some(name) = callee(node, src) else {
        return;
    };
    let (positional, named) = arguments(node, src);
    let annotations_names: &[&str] = match name {
        "addTool" => {
            let has_name = named.iter().any(|(k, _)| k == "name" || k == "description")
                || positional
                    .first()
                    .is_some_and(|p| p.kind_name() == "string_literal")
                || positional
                    .get(1)
                    .is_some_and(|p| p.kind_name() == "string_literal");
            if !has_name {
                return;
            }
            &["toolAnnotations", "annotations"]
        }
        "Tool" => {
            let has_name = named.iter().any(|(k, _)| k == "name")
                || positional
                    .first()
                    .is_some_and(|p| p.kind_name() == "string_literal");
            if !has_name {
                return;
            }
            &["annotations", "toolAnnotations"]
        }
        _ => return,
    };
    let tool_name = argument(&positional, &named, &["name"], 0).map(|n| val(n, src, 0));
    let props = argument(&positional, &named, annotations_names, 5)
        .map(|a| vec![Prop::Field("annotations".to_string(), val(a, src, 0))])
        .unwrap_or_default();
    let at = line(node);
    out.sites.push(Site {
        of_module: false,
        line: at,
        repeated: false,
        extent: node.byte_range(),
        spelled: [false; 4],
        family: Family::Kotlin,
        kind: SiteKind::Tool {
            name: Some(tool_name.unwrap_or(Val::Other)),
            def: Val::obj(at, props),
        },
    });
}

/// Translates an expression into a value.
fn val(node: Node, src: &[u8], depth: usize) -> Val {
    if depth > MAX_VALUE_DEPTH {
        return Val::Other;
    }
    match text(node, src) {
        "true" => return Val::Bool(true),
        "false" => return Val::Bool(false),
        "null" => return Val::Null,
        _ => {}
    }
    match node.kind_name() {
        "string_literal" => {
            // `$name` and `${expr}` are templates.
            if text(node, src).contains('$')
                || children(node)
                    .iter()
                    .any(|c| c.kind_name() != "string_content")
            {
                return Val::Other;
            }
            unquote(text(node, src)).map_or(Val::Other, Val::Str)
        }
        "identifier" => Val::name_ref(text(node, src)),
        "parenthesized_expression" => children(node)
            .into_iter()
            .next()
            .map_or(Val::Other, |inner| val(inner, src, depth + 1)),
        "call_expression" if callee(node, src) == Some("ToolAnnotations") => {
            let (positional, named) = arguments(node, src);
            let mut props = Vec::new();
            for (h, a) in POSITIONS.iter().zip(positional.iter().skip(1)) {
                props.push(Prop::Field(h.to_string(), val(*a, src, depth + 1)));
            }
            for (k, v) in &named {
                if POSITIONS.contains(&k.as_str()) {
                    props.push(Prop::Field(k.clone(), val(*v, src, depth + 1)));
                }
            }
            Val::obj(line(node), props)
        }
        _ => Val::Other,
    }
}
