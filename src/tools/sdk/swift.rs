//! The official Swift SDK (`import MCP`).
//!
//! - `Tool(name: "...", description: ..., inputSchema: ..., annotations: ...)`, also
//!   `MCP.Tool(...)` and with a trailing closure (wrappers of the same shape).
//!
//! `Tool` counts in a file that imports `MCP` (`import MCP`, `@_exported import MCP`,
//! `import struct MCP.Tool`), or written `MCP.Tool`; the call must label both `name:`
//! and `inputSchema:`, as the SDK's initializer requires (other libraries' `Tool`
//! types, such as Anthropic clients', take the same labels, hence the import).
//! Annotations are `.init(title:readOnlyHint:destructiveHint:idempotentHint:openWorldHint:)`
//! or `Tool.Annotations(...)` by label; `nil` is absent. Bindings: `let`/`var`
//! (also `static let`) of the same file, reached by name or as an implicit member
//! (`annotations: .readOnly` for `static let readOnly` in an extension). Swift has no
//! relative imports: a name bound in another file of the module reads `?`.

use tree_sitter::Node;

use super::model::Family;
use super::syntax::{children, line, preorder, text, unquote, Named};
use super::value::{FileSummary, Prop, Site, SiteKind, Val, MAX_VALUE_DEPTH};

const HINTS: [&str; 4] = [
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

/// Fills `out` from one parsed file.
pub(crate) fn collect(root: Node, src: &[u8], out: &mut FileSummary) {
    let imports_mcp = imports_mcp(root, src);
    preorder(root, |node| match node.kind_name() {
        "property_declaration" => binding(node, src, out),
        "call_expression" => call(node, src, imports_mcp, out),
        _ => {}
    });
}

fn imports_mcp(root: Node, src: &[u8]) -> bool {
    children(root)
        .into_iter()
        .filter(|n| n.kind_name() == "import_declaration")
        .filter_map(|n| {
            children(n)
                .into_iter()
                .find(|c| c.kind_name() == "identifier")
        })
        .any(|id| {
            let module = text(id, src);
            module == "MCP" || module.starts_with("MCP.")
        })
}

/// Binds `let NAME = value` (each `name`/`value` pair of the declaration).
fn binding(node: Node, src: &[u8], out: &mut FileSummary) {
    let mut cursor = node.walk();
    let names: Vec<Node> = node.children_by_field_name("name", &mut cursor).collect();
    let mut cursor = node.walk();
    let values: Vec<Node> = node.children_by_field_name("value", &mut cursor).collect();
    if names.len() != values.len() {
        return;
    }
    for (name, value) in names.into_iter().zip(values) {
        let Some(id) = name.field("bound_identifier") else {
            continue;
        };
        out.bind(text(id, src), val(value, src, 0));
    }
}

/// Returns the called name and what qualifies it: `("MCP", "Tool")` for `MCP.Tool(...)`,
/// `("Tool", "Annotations")` for `Tool.Annotations(...)`, `("", "init")` for `.init(...)`.
fn callee<'a>(call: Node, src: &'a [u8]) -> Option<(&'a str, &'a str)> {
    let f = children(call).into_iter().next()?;
    match f.kind_name() {
        "simple_identifier" => Some(("", text(f, src))),
        "navigation_expression" => {
            let target = f.field("target")?;
            let suffix = f.field("suffix")?.field("suffix")?;
            Some((text(target, src), text(suffix, src)))
        }
        "prefix_expression" if is_implicit_member(f, src) => {
            Some(("", text(f.field("target")?, src)))
        }
        _ => None,
    }
}

/// Returns true for `.name`, a member of the type the context expects.
fn is_implicit_member(node: Node, src: &[u8]) -> bool {
    node.field("operation")
        .is_some_and(|op| text(op, src) == ".")
        && node
            .field("target")
            .is_some_and(|t| t.kind_name() == "simple_identifier")
}

/// Returns a call's labelled arguments; unlabelled ones are left out.
fn labelled<'t>(call: Node<'t>, src: &[u8]) -> Vec<(String, Node<'t>)> {
    let Some(args) = children(call)
        .into_iter()
        .find(|c| c.kind_name() == "call_suffix")
        .and_then(|s| {
            children(s)
                .into_iter()
                .find(|c| c.kind_name() == "value_arguments")
        })
    else {
        return Vec::new();
    };
    children(args)
        .into_iter()
        .filter_map(|a| {
            let label = a.field("name")?;
            let value = a.field("value")?;
            Some((text(label, src).to_string(), value))
        })
        .collect()
}

fn call(node: Node, src: &[u8], imports_mcp: bool, out: &mut FileSummary) {
    let Some((qualifier, name)) = callee(node, src) else {
        return;
    };
    let is_tool = name == "Tool" && (qualifier == "MCP" || qualifier.is_empty() && imports_mcp);
    if !is_tool {
        return;
    }
    let args = labelled(node, src);
    let arg = |label: &str| args.iter().find(|(l, _)| l == label).map(|(_, v)| *v);
    let (Some(tool_name), Some(_)) = (arg("name"), arg("inputSchema")) else {
        return;
    };
    let at = line(node);
    let props = arg("annotations")
        .map(|a| vec![Prop::Field("annotations".to_string(), val(a, src, 0))])
        .unwrap_or_default();
    out.sites.push(Site {
        of_module: false,
        line: at,
        repeated: false,
        extent: node.byte_range(),
        spelled: [false; 4],
        family: Family::Swift,
        kind: SiteKind::Tool {
            name: Some(val(tool_name, src, 0)),
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
        "nil_literal" => Val::Null,
        "line_string_literal" => {
            // `\(expr)` is interpolation.
            let plain = children(node)
                .iter()
                .all(|c| matches!(c.kind_name(), "line_str_text" | "str_escaped_char"));
            match plain {
                true => unquote(text(node, src)).map_or(Val::Other, Val::Str),
                false => Val::Other,
            }
        }
        "simple_identifier" => Val::name_ref(text(node, src)),
        // `.readOnly`: a static member of the expected type, bound by its name.
        "prefix_expression" if is_implicit_member(node, src) => node
            .field("target")
            .map_or(Val::Other, |t| Val::name_ref(text(t, src))),
        // `Presets.readOnly`, `Tool.Annotations.readOnly`: bound by its last name.
        "navigation_expression" => node
            .field("suffix")
            .and_then(|s| s.field("suffix"))
            .filter(|s| s.kind_name() == "simple_identifier")
            .map_or(Val::Other, |s| Val::name_ref(text(s, src))),
        "call_expression" => match callee(node, src) {
            Some(("" | "Tool" | "MCP.Tool", "Annotations")) | Some(("", "init")) => {
                let props = labelled(node, src)
                    .into_iter()
                    .filter(|(l, _)| HINTS.contains(&l.as_str()))
                    .map(|(l, v)| Prop::Field(l, val(v, src, depth + 1)))
                    .collect();
                Val::obj(line(node), props)
            }
            _ => Val::Other,
        },
        _ => Val::Other,
    }
}
