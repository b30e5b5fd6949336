//! rmcp, the official Rust SDK.
//!
//! - `#[tool(name = "...", description = "...", annotations(read_only_hint = true, ...))]`
//!   on a function (in a `#[tool_router]` impl): the name is `name = `, or the
//!   function's name, as the macro takes it;
//! - `Tool::new(name, description, schema)`, with `.annotate(annotations)` /
//!   `.with_annotations(annotations)` on it.
//!
//! Annotations are `ToolAnnotations::new().read_only(true)...` (also `with_title(..)`,
//! `default()`) or a `ToolAnnotations { read_only_hint: Some(true), .. }` literal.
//! Bindings: `const`, `static` and `let` of one name in the same file.

use tree_sitter::Node;

use super::model::Family;
use super::syntax::{children, line, preorder, text, unquote, Named};
use super::value::{FileSummary, Prop, Site, SiteKind, Val, MAX_VALUE_DEPTH};

/// Fills `out` from one parsed file.
pub(crate) fn collect(root: Node, src: &[u8], out: &mut FileSummary) {
    preorder(root, |node| match node.kind_name() {
        "const_item" | "static_item" => {
            if let (Some(n), Some(v)) = (node.field("name"), node.field("value")) {
                out.bind(text(n, src), val(v, src, 0));
            }
        }
        "let_declaration" => {
            if let (Some(p), Some(v)) = (node.field("pattern"), node.field("value")) {
                if p.kind_name() == "identifier" {
                    out.bind(text(p, src), val(v, src, 0));
                }
            }
        }
        "attribute_item" => attribute(node, src, out),
        "call_expression" => builder(node, src, out),
        _ => {}
    });
}

/// Reads `#[tool(...)]` on the function it precedes.
fn attribute(item: Node, src: &[u8], out: &mut FileSummary) {
    let Some(attr) = children(item)
        .into_iter()
        .find(|c| c.kind_name() == "attribute")
    else {
        return;
    };
    let parts = children(attr);
    let Some(path) = parts.first() else { return };
    let path = text(*path, src);
    if path != "tool" && !path.ends_with("::tool") {
        return;
    }
    // The function the attribute belongs to: the next item that is no attribute.
    let mut next = item.next_named_sibling();
    while let Some(n) = next {
        if n.kind_name() == "attribute_item" || n.kind_name().contains("comment") {
            next = n.next_named_sibling();
        } else {
            break;
        }
    }
    let Some(function) = next.filter(|n| n.kind_name() == "function_item") else {
        return;
    };
    let function_name = function.field("name").map(|n| text(n, src).to_string());
    let mut name = function_name.map(Val::Str);
    let mut props = Vec::new();
    if let Some(args) = attr.field("arguments") {
        let tokens = children(args);
        let mut i = 0;
        while i < tokens.len() {
            let t = tokens[i];
            if t.kind_name() == "identifier" {
                let key = text(t, src);
                // `key = value`
                if let Some(v) = tokens.get(i + 1).filter(|v| v.kind_name() != "token_tree") {
                    if key == "name" {
                        name = Some(token(*v, src));
                    }
                }
                // `annotations(...)`
                if key == "annotations" {
                    if let Some(tree) = tokens.get(i + 1).filter(|v| v.kind_name() == "token_tree")
                    {
                        props.push(Prop::Field(
                            "annotations".to_string(),
                            annotations_tokens(*tree, src),
                        ));
                    }
                }
            }
            i += 1;
        }
    }
    out.sites.push(Site {
        of_module: false,
        line: line(item),
        repeated: false,
        extent: item.byte_range(),
        spelled: [false; 4],
        family: Family::Rmcp,
        kind: SiteKind::Tool {
            name: Some(name.unwrap_or(Val::Other)),
            def: Val::obj(line(item), props),
        },
    });
}

/// Reads `read_only_hint = true, ...` inside `annotations(...)`.
fn annotations_tokens(tree: Node, src: &[u8]) -> Val {
    let tokens = children(tree);
    let mut props = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        if t.kind_name() != "identifier" {
            continue;
        }
        let key = match text(*t, src) {
            "read_only_hint" => "readOnlyHint",
            "destructive_hint" => "destructiveHint",
            "idempotent_hint" => "idempotentHint",
            "open_world_hint" => "openWorldHint",
            _ => continue,
        };
        let value = tokens.get(i + 1).map_or(Val::Other, |v| token(*v, src));
        props.push(Prop::Field(key.to_string(), value));
    }
    Val::obj(line(tree), props)
}

/// Reads one token of an attribute's arguments as a value.
fn token(node: Node, src: &[u8]) -> Val {
    match node.kind_name() {
        "boolean_literal" => Val::Bool(text(node, src) == "true"),
        "string_literal" | "raw_string_literal" => {
            unquote(text(node, src)).map_or(Val::Other, Val::Str)
        }
        "identifier" => Val::name_ref(text(node, src)),
        _ => Val::Other,
    }
}

/// Reads `Tool::new(name, ...)`, with the annotations of an `.annotate(..)` on it.
fn builder(node: Node, src: &[u8], out: &mut FileSummary) {
    let Some(function) = node.field("function") else {
        return;
    };
    let path = text(function, src);
    if function.kind_name() != "scoped_identifier"
        || !(path == "Tool::new" || path.ends_with("::Tool::new"))
    {
        return;
    }
    let args = node.field("arguments").map(children).unwrap_or_default();
    let Some(first) = args.first() else { return };
    let mut props = Vec::new();
    // `Tool::new(..).annotate(x)`: the call is the receiver of a method call.
    if let Some(field) = node
        .parent()
        .filter(|p| p.kind_name() == "field_expression")
    {
        let method = field.field("field").map(|f| text(f, src));
        let call = field
            .parent()
            .filter(|c| c.kind_name() == "call_expression");
        if let (Some("annotate" | "with_annotations"), Some(call)) = (method, call) {
            let arg = call.field("arguments").map(children).unwrap_or_default();
            if let Some(a) = arg.first() {
                props.push(Prop::Field("annotations".to_string(), val(*a, src, 0)));
            }
        }
    }
    let at = line(node);
    out.sites.push(Site {
        of_module: false,
        line: at,
        repeated: false,
        extent: node.byte_range(),
        spelled: [false; 4],
        family: Family::Rmcp,
        kind: SiteKind::Tool {
            name: Some(val(*first, src, 0)),
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
        "boolean_literal" => Val::Bool(text(node, src) == "true"),
        "string_literal" | "raw_string_literal" => {
            unquote(text(node, src)).map_or(Val::Other, Val::Str)
        }
        "identifier" => match text(node, src) {
            "None" => Val::Null,
            name => Val::name_ref(name),
        },
        "parenthesized_expression" | "reference_expression" => children(node)
            .into_iter()
            .last()
            .map_or(Val::Other, |inner| val(inner, src, depth + 1)),
        "struct_expression" => {
            let Some(body) = node.field("body") else {
                return Val::Other;
            };
            let mut props = Vec::new();
            for f in children(body) {
                if f.kind_name() != "field_initializer" {
                    continue;
                }
                let (Some(k), Some(v)) = (f.field("field"), f.field("value")) else {
                    continue;
                };
                let key = match text(k, src) {
                    "read_only_hint" => "readOnlyHint",
                    "destructive_hint" => "destructiveHint",
                    "idempotent_hint" => "idempotentHint",
                    "open_world_hint" => "openWorldHint",
                    other => other,
                };
                props.push(Prop::Field(key.to_string(), val(v, src, depth + 1)));
            }
            Val::obj(line(node), props)
        }
        "call_expression" => call(node, src, depth),
        _ => Val::Other,
    }
}

/// Reads `Some(x)`, `"x".into()`, and the `ToolAnnotations` builder chain.
fn call(node: Node, src: &[u8], depth: usize) -> Val {
    let Some(function) = node.field("function") else {
        return Val::Other;
    };
    let args = node.field("arguments").map(children).unwrap_or_default();
    match function.kind_name() {
        "identifier" if text(function, src) == "Some" && args.len() == 1 => {
            val(args[0], src, depth + 1)
        }
        "scoped_identifier" => {
            let path = text(function, src);
            if [
                "ToolAnnotations::new",
                "ToolAnnotations::default",
                "ToolAnnotations::with_title",
            ]
            .iter()
            .any(|p| path.ends_with(p))
            {
                Val::obj(line(node), Vec::new())
            } else {
                Val::Other
            }
        }
        "field_expression" => {
            let (Some(receiver), Some(method)) = (function.field("value"), function.field("field"))
            else {
                return Val::Other;
            };
            let hint = match text(method, src) {
                "into" | "to_string" | "to_owned" => return val(receiver, src, depth + 1),
                "read_only" => "readOnlyHint",
                "destructive" => "destructiveHint",
                "idempotent" => "idempotentHint",
                "open_world" => "openWorldHint",
                _ => return Val::Other,
            };
            match val(receiver, src, depth + 1) {
                Val::Obj { line, mut props } => {
                    let value = args.first().map_or(Val::Other, |a| val(*a, src, depth + 1));
                    props.push(Prop::Field(hint.to_string(), value));
                    Val::Obj { line, props }
                }
                _ => Val::Other,
            }
        }
        _ => Val::Other,
    }
}
