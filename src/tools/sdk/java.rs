//! The official Java SDK.
//!
//! - `new McpSchema.Tool(name, ...)` / `new Tool(name, ...)`: the annotations are the
//!   argument that constructs `ToolAnnotations`, or the sixth of the full record
//!   constructor (name, title, description, inputSchema, outputSchema, annotations, meta);
//! - `McpSchema.Tool.builder().name(..).annotations(..).build()`.
//!
//! Annotations are the positional record `new McpSchema.ToolAnnotations(title, readOnlyHint,
//! destructiveHint, idempotentHint, openWorldHint, returnDirect)` (a `null` is absent) or
//! `ToolAnnotations.builder().readOnlyHint(true)...build()`. Bindings: field and local
//! variable declarators of the same file.

use tree_sitter::Node;

use super::model::Family;
use super::syntax::{children, line, preorder, text, unquote, Named};
use super::value::{FileSummary, Prop, Site, SiteKind, Val, MAX_VALUE_DEPTH};

/// The hints in the record's order, after its title.
const POSITIONS: [&str; 4] = [
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

/// Fills `out` from one parsed file.
pub(crate) fn collect(root: Node, src: &[u8], out: &mut FileSummary) {
    preorder(root, |node| match node.kind_name() {
        "variable_declarator" => {
            if let (Some(n), Some(v)) = (node.field("name"), node.field("value")) {
                out.bind(text(n, src), val(v, src, 0));
            }
        }
        "object_creation_expression" => constructor(node, src, out),
        "method_invocation" => builder(node, src, out),
        _ => {}
    });
}

fn last_segment(ty: &str) -> &str {
    let ty = ty.split('<').next().unwrap_or(ty);
    ty.rsplit('.').next().unwrap_or(ty)
}

fn arguments<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    node.field("arguments").map(children).unwrap_or_default()
}

fn constructor(node: Node, src: &[u8], out: &mut FileSummary) {
    let ty = node.field("type").map_or("", |t| text(t, src));
    if last_segment(ty) != "Tool" {
        return;
    }
    let args = arguments(node);
    let Some(first) = args.first() else { return };
    let annotations = args
        .iter()
        .find(|a| is_annotations(**a, src))
        .or_else(|| (args.len() >= 7).then(|| &args[5]));
    let at = line(node);
    let props = annotations
        .map(|a| vec![Prop::Field("annotations".to_string(), val(*a, src, 0))])
        .unwrap_or_default();
    out.sites.push(Site {
        of_module: false,
        line: at,
        repeated: false,
        extent: node.byte_range(),
        spelled: [false; 4],
        family: Family::Java,
        kind: SiteKind::Tool {
            name: Some(val(*first, src, 0)),
            def: Val::obj(at, props),
        },
    });
}

fn is_annotations(node: Node, src: &[u8]) -> bool {
    node.kind_name() == "object_creation_expression"
        && node
            .field("type")
            .is_some_and(|t| last_segment(text(t, src)) == "ToolAnnotations")
}

/// Returns the calls of a builder chain from its first call to `node`, and the
/// object the chain starts from (`McpSchema.Tool` of `McpSchema.Tool.builder()`).
fn chain<'t>(node: Node<'t>, src: &[u8]) -> (Vec<Node<'t>>, String) {
    let mut calls = Vec::new();
    let mut cur = node;
    loop {
        if cur.kind_name() != "method_invocation" || calls.len() > 64 {
            return (calls, String::new());
        }
        calls.push(cur);
        match cur.field("object") {
            Some(o) if o.kind_name() == "method_invocation" => cur = o,
            Some(o) => {
                calls.reverse();
                return (calls, text(o, src).to_string());
            }
            None => return (calls, String::new()),
        }
    }
}

fn method_name<'a>(call: Node, src: &'a [u8]) -> &'a str {
    call.field("name").map_or("", |n| text(n, src))
}

fn builder(node: Node, src: &[u8], out: &mut FileSummary) {
    if method_name(node, src) != "build" {
        return;
    }
    let (calls, base) = chain(node, src);
    if last_segment(&base) != "Tool"
        || calls.first().map(|c| method_name(*c, src)) != Some("builder")
    {
        return;
    }
    let mut name = Val::Other;
    let mut props = Vec::new();
    for call in &calls {
        let arg = arguments(*call).first().copied();
        match (method_name(*call, src), arg) {
            ("name", Some(a)) => name = val(a, src, 0),
            ("annotations", Some(a)) => {
                props.push(Prop::Field("annotations".to_string(), val(a, src, 0)));
            }
            _ => {}
        }
    }
    let at = line(node);
    out.sites.push(Site {
        of_module: false,
        line: at,
        repeated: false,
        extent: node.byte_range(),
        spelled: [false; 4],
        family: Family::Java,
        kind: SiteKind::Tool {
            name: Some(name),
            def: Val::obj(at, props),
        },
    });
}

/// Translates an expression into a value.
fn val(node: Node, src: &[u8], depth: usize) -> Val {
    if depth > MAX_VALUE_DEPTH {
        return Val::Other;
    }
    match node.kind_name() {
        "true" => Val::Bool(true),
        "false" => Val::Bool(false),
        "null_literal" => Val::Null,
        "string_literal" => unquote(text(node, src)).map_or(Val::Other, Val::Str),
        "identifier" => Val::name_ref(text(node, src)),
        "field_access" => match text(node, src) {
            "Boolean.TRUE" => Val::Bool(true),
            "Boolean.FALSE" => Val::Bool(false),
            path => Val::Ref(path.split('.').map(str::to_string).collect()),
        },
        "parenthesized_expression" => children(node)
            .into_iter()
            .next()
            .map_or(Val::Other, |inner| val(inner, src, depth + 1)),
        "object_creation_expression" if is_annotations(node, src) => {
            let args = arguments(node);
            if args.len() < 5 {
                return Val::Other;
            }
            let props = POSITIONS
                .iter()
                .zip(&args[1..5])
                .map(|(h, a)| Prop::Field(h.to_string(), val(*a, src, depth + 1)))
                .collect();
            Val::obj(line(node), props)
        }
        "method_invocation" if method_name(node, src) == "build" => {
            let (calls, base) = chain(node, src);
            if last_segment(&base) != "ToolAnnotations" {
                return Val::Other;
            }
            let mut props = Vec::new();
            for call in &calls {
                let name = method_name(*call, src);
                if let (Some(h), Some(a)) = (
                    POSITIONS.iter().find(|h| **h == name),
                    arguments(*call).first(),
                ) {
                    props.push(Prop::Field(h.to_string(), val(*a, src, depth + 1)));
                }
            }
            Val::obj(line(node), props)
        }
        _ => Val::Other,
    }
}
