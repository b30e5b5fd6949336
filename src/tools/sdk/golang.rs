//! Go: the official SDK and mcp-go.
//!
//! - Official SDK: `mcp.AddTool(server, &mcp.Tool{Name: ..., Annotations: &mcp.ToolAnnotations{...}}, h)`
//!   and `server.AddTool(&mcp.Tool{...}, h)`; the tool may be a variable bound to such a
//!   literal. In `ToolAnnotations`, `ReadOnlyHint` and `IdempotentHint` are plain `bool`
//!   with `omitempty`, so `false` is never sent and reads absent; `DestructiveHint` and
//!   `OpenWorldHint` are `*bool` (`jsonschema.Ptr(false)`, `new(bool)`, `&v`).
//! - mcp-go: `mcp.NewTool("name", mcp.WithReadOnlyHintAnnotation(true), ...,
//!   mcp.WithToolAnnotation(mcp.ToolAnnotation{...}))`. `NewTool` itself fills all four
//!   hints with the schema's defaults on the wire; the finder reports what the source
//!   declares (docs/method.md, "Tools").
//!
//! Bindings: `var`/`const` specs and `:=`; a package-level binding is visible to every
//! file of the same folder (the resolver looks there).

use tree_sitter::Node;

use super::model::Family;
use super::syntax::{children, line, preorder, text, unquote};
use super::value::{FileSummary, Import, Prop, Site, SiteKind, Spec, Val, MAX_VALUE_DEPTH};

/// Fills `out` from one parsed file.
pub(crate) fn collect(root: Node, src: &[u8], out: &mut FileSummary) {
    preorder(root, |node| match node.kind() {
        "var_spec" | "const_spec" => spec(node, src, out),
        "short_var_declaration" => short(node, src, out),
        "call_expression" => call(node, src, out),
        "import_spec" => import(node, src, out),
        _ => {}
    });
}

/// Records `import "mod/path/pkg"` (or `alias "..."`) under the name the file uses
/// for the package: the alias, else the path's last element (the one before a
/// major version's `/v2`). Whether the tree holds the package is the resolver's
/// question (see `packages`).
fn import(node: Node, src: &[u8], out: &mut FileSummary) {
    let Some(path) = node
        .child_by_field_name("path")
        .and_then(|p| unquote(text(p, src)))
    else {
        return;
    };
    let local = match node.child_by_field_name("name") {
        Some(n) if n.kind() == "package_identifier" => text(n, src).to_string(),
        Some(_) => return,
        None => {
            let mut parts = path.rsplit('/');
            let last = parts.next().unwrap_or(&path);
            let major = last.len() > 1
                && last.starts_with('v')
                && last[1..].bytes().all(|b| b.is_ascii_digit());
            match (major, parts.next()) {
                (true, Some(before)) => before.to_string(),
                _ => last.to_string(),
            }
        }
    };
    out.import(
        &local,
        Import {
            rel: Spec::Package(path),
            name: None,
        },
    );
}

fn spec(node: Node, src: &[u8], out: &mut FileSummary) {
    let mut cursor = node.walk();
    let names: Vec<Node> = node.children_by_field_name("name", &mut cursor).collect();
    let values = node
        .child_by_field_name("value")
        .map(children)
        .unwrap_or_default();
    if names.len() == values.len() {
        for (n, v) in names.iter().zip(&values) {
            out.bind(text(*n, src), val(*v, src, 0));
        }
    }
}

fn short(node: Node, src: &[u8], out: &mut FileSummary) {
    let (Some(left), Some(right)) = (
        node.child_by_field_name("left"),
        node.child_by_field_name("right"),
    ) else {
        return;
    };
    let names = children(left);
    let values = children(right);
    if names.len() == values.len() {
        for (n, v) in names.iter().zip(&values) {
            if n.kind() == "identifier" {
                out.bind(text(*n, src), val(*v, src, 0));
            }
        }
    }
}

/// Returns the last name of a call's function (`AddTool` of `mcp.AddTool`).
fn function_name<'a>(call: Node, src: &'a [u8]) -> Option<&'a str> {
    let f = call.child_by_field_name("function")?;
    match f.kind() {
        "selector_expression" => Some(text(f.child_by_field_name("field")?, src)),
        "identifier" => Some(text(f, src)),
        _ => None,
    }
}

fn call(node: Node, src: &[u8], out: &mut FileSummary) {
    let Some(name) = function_name(node, src) else {
        return;
    };
    let Some(args) = node.child_by_field_name("arguments") else {
        return;
    };
    let args = children(args);
    let at = line(node);
    match name {
        "AddTool" => {
            let tool = match args.len() {
                3 => args[1],
                2 => args[0],
                _ => return,
            };
            let literal = if tool.kind() == "unary_expression" {
                tool.child_by_field_name("operand").unwrap_or(tool)
            } else {
                tool
            };
            if literal.kind() == "composite_literal" && is_tool_type(literal, src) {
                out.sites.push(Site {
                    line: at,
                    repeated: false,
                    family: Family::Go,
                    kind: SiteKind::Tool {
                        name: None,
                        def: val(literal, src, 0),
                    },
                });
            } else if literal.kind() == "identifier" {
                // A variable: a tool only when it is bound to a `Tool` literal (an
                // mcp-go `NewTool` result is found at the `NewTool` call).
                out.sites.push(Site {
                    line: at,
                    repeated: false,
                    family: Family::Go,
                    kind: SiteKind::List {
                        items: Val::Arr(vec![val(literal, src, 0)]),
                        strict: true,
                    },
                });
            }
        }
        "NewTool" | "NewToolWithRawSchema" if !args.is_empty() => {
            let mut annotations = Vec::new();
            for option in &args[1..] {
                if option.kind() != "call_expression" {
                    continue;
                }
                let Some(option_name) = function_name(*option, src) else {
                    continue;
                };
                let option_args = option
                    .child_by_field_name("arguments")
                    .map(children)
                    .unwrap_or_default();
                let Some(first) = option_args.first() else {
                    continue;
                };
                let hint = match option_name {
                    "WithReadOnlyHintAnnotation" => "readOnlyHint",
                    "WithDestructiveHintAnnotation" => "destructiveHint",
                    "WithIdempotentHintAnnotation" => "idempotentHint",
                    "WithOpenWorldHintAnnotation" => "openWorldHint",
                    "WithToolAnnotation" => {
                        annotations.push(Prop::Spread(val(*first, src, 0)));
                        continue;
                    }
                    _ => continue,
                };
                annotations.push(Prop::Field(hint.to_string(), val(*first, src, 0)));
            }
            let props = if annotations.is_empty() {
                Vec::new()
            } else {
                vec![Prop::Field(
                    "annotations".to_string(),
                    Val::obj(at, annotations),
                )]
            };
            out.sites.push(Site {
                line: at,
                repeated: false,
                family: Family::McpGo,
                kind: SiteKind::Tool {
                    name: Some(val(args[0], src, 0)),
                    def: Val::obj(at, props),
                },
            });
        }
        _ => {}
    }
}

fn type_name<'a>(literal: Node, src: &'a [u8]) -> &'a str {
    let ty = literal
        .child_by_field_name("type")
        .map_or("", |t| text(t, src));
    ty.rsplit('.').next().unwrap_or(ty)
}

fn is_tool_type(literal: Node, src: &[u8]) -> bool {
    type_name(literal, src) == "Tool"
}

/// Translates an expression into a value.
fn val(node: Node, src: &[u8], depth: usize) -> Val {
    if depth > MAX_VALUE_DEPTH {
        return Val::Other;
    }
    match node.kind() {
        "interpreted_string_literal" | "raw_string_literal" => {
            unquote(text(node, src)).map_or(Val::Other, Val::Str)
        }
        "true" => Val::Bool(true),
        "false" => Val::Bool(false),
        "nil" => Val::Null,
        "identifier" => Val::name_ref(text(node, src)),
        // `pkg.Name`: a binding of an imported package (or a field of a value).
        "selector_expression" => match (
            node.child_by_field_name("operand"),
            node.child_by_field_name("field"),
        ) {
            (Some(o), Some(f)) => match val(o, src, depth + 1) {
                Val::Ref(mut path) => {
                    path.push(text(f, src).to_string());
                    Val::Ref(path)
                }
                _ => Val::Other,
            },
            _ => Val::Other,
        },
        "literal_element" | "parenthesized_expression" => children(node)
            .into_iter()
            .next()
            .map_or(Val::Other, |inner| val(inner, src, depth + 1)),
        "unary_expression" => match (
            node.child_by_field_name("operator").map(|o| text(o, src)),
            node.child_by_field_name("operand"),
        ) {
            (Some("&"), Some(operand)) => val(operand, src, depth + 1),
            _ => Val::Other,
        },
        "call_expression" => pointer_helper(node, src, depth),
        "composite_literal" => composite(node, src, depth),
        _ => Val::Other,
    }
}

/// Reads `new(bool)` as false, Go 1.26's `new(expr)` (`new(true)`) as its
/// operand, and a one-argument pointer helper (`jsonschema.Ptr(true)`,
/// `mcp.ToBoolPtr(false)`, `boolPtr(v)`) as its argument.
fn pointer_helper(node: Node, src: &[u8], depth: usize) -> Val {
    let Some(name) = function_name(node, src) else {
        return Val::Other;
    };
    let args = node
        .child_by_field_name("arguments")
        .map(children)
        .unwrap_or_default();
    if name == "new" {
        return match args.first() {
            Some(a) if text(*a, src) == "bool" => Val::Bool(false),
            // The grammar may read a literal there as a type's name.
            Some(a) if args.len() == 1 && matches!(text(*a, src), "true" | "false") => {
                Val::Bool(text(*a, src) == "true")
            }
            // `new(T)` of another type is a pointer to its zero value; a name may be
            // a type or a variable: only a literal or a name is read.
            Some(a) if args.len() == 1 => match val(*a, src, depth + 1) {
                v @ (Val::Bool(_) | Val::Ref(_)) => v,
                _ => Val::Other,
            },
            _ => Val::Other,
        };
    }
    let lower = name.to_ascii_lowercase();
    if args.len() == 1 && (lower.contains("ptr") || lower.contains("bool")) {
        return match val(args[0], src, depth + 1) {
            v @ (Val::Bool(_) | Val::Ref(_)) => v,
            _ => Val::Other,
        };
    }
    Val::Other
}

fn composite(node: Node, src: &[u8], depth: usize) -> Val {
    let ty = type_name(node, src);
    // The official SDK's `ToolAnnotations`: two plain bools the JSON encoder drops when false.
    let omits_false = ty == "ToolAnnotations";
    let Some(body) = node.child_by_field_name("body") else {
        return Val::Other;
    };
    let mut props = Vec::new();
    for element in children(body) {
        if element.kind() != "keyed_element" {
            continue;
        }
        let parts = children(element);
        let (Some(k), Some(v)) = (parts.first(), parts.get(1)) else {
            continue;
        };
        let key = match text(*k, src) {
            "Name" => "name",
            "Annotations" => "annotations",
            "ReadOnlyHint" => "readOnlyHint",
            "DestructiveHint" => "destructiveHint",
            "IdempotentHint" => "idempotentHint",
            "OpenWorldHint" => "openWorldHint",
            other => other,
        };
        let mut value = val(*v, src, depth + 1);
        if omits_false && matches!(key, "readOnlyHint" | "idempotentHint") {
            value = Val::OmitFalse(Box::new(value));
        }
        props.push(Prop::Field(key.to_string(), value));
    }
    Val::obj(line(node), props)
}
