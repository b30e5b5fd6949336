//! The official C# SDK.
//!
//! - `[McpServerTool(Name = "...", ReadOnly = true, Destructive = false, Idempotent = true,
//!   OpenWorld = false)]` on a method (also `[McpServerTool]` and `McpServerToolAttribute`);
//! - `new McpServerToolCreateOptions { Name = "...", ReadOnly = true, ... }`.
//!
//! The attribute's hints are absent unless set: the SDK sends only those assigned. A
//! method's tool without `Name` is named as the SDK names it from the method (see
//! [`derived::csharp_method`]); a `Name` that is no literal gives no name. A hint
//! set from a constant reads `?`.

use tree_sitter::Node;

use super::derived;
use super::model::Family;
use super::syntax::{children, line, preorder, text, unquote, Named};
use super::value::{FileSummary, Prop, Site, SiteKind, Val};

/// Fills `out` from one parsed file.
pub(crate) fn collect(root: Node, src: &[u8], out: &mut FileSummary) {
    preorder(root, |node| match node.kind_name() {
        "attribute" => attribute(node, src, out),
        "object_creation_expression" => options(node, src, out),
        _ => {}
    });
}

/// Returns the schema name of a hint property.
fn hint(property: &str) -> Option<&'static str> {
    Some(match property {
        "ReadOnly" => "readOnlyHint",
        "Destructive" => "destructiveHint",
        "Idempotent" => "idempotentHint",
        "OpenWorld" => "openWorldHint",
        _ => return None,
    })
}

fn attribute(node: Node, src: &[u8], out: &mut FileSummary) {
    let Some(name) = node.field("name") else {
        return;
    };
    let name = text(name, src);
    let last = name.rsplit('.').next().unwrap_or(name);
    if last != "McpServerTool" && last != "McpServerToolAttribute" {
        return;
    }
    let mut assigned = Vec::new();
    if let Some(args) = children(node)
        .into_iter()
        .find(|c| c.kind_name() == "attribute_argument_list")
    {
        for arg in children(args) {
            // `Name = value`: the argument's `name` field and its last child.
            if let (Some(key), Some(value)) = (arg.field("name"), children(arg).pop()) {
                if value.id() != key.id() {
                    assigned.push((key, value));
                }
            }
        }
    }
    let derived = method_name(node, src);
    record(node, src, assigned, derived, out);
}

/// Returns the name the SDK gives the tool of the method an attribute stands on,
/// when no `Name` is assigned (see [`derived::csharp_method`]).
fn method_name(attribute: Node, src: &[u8]) -> Option<Val> {
    let method = attribute.parent()?.parent()?;
    if method.kind_name() != "method_declaration" {
        return None;
    }
    let name = text(method.field("name")?, src);
    let returns = method.field("returns").map_or("", |r| text(r, src));
    Some(Val::Str(derived::csharp_method(name, returns)))
}

/// Records the tool defined at `node` from its `Name = ...` and hint assignments,
/// as (property, value) pairs, else named `derived`; other properties are not read.
fn record(
    node: Node,
    src: &[u8],
    assigned: Vec<(Node, Node)>,
    derived: Option<Val>,
    out: &mut FileSummary,
) {
    let mut tool_name = None;
    let mut hints = Vec::new();
    for (key, value) in assigned {
        let key = text(key, src);
        if key == "Name" {
            tool_name = Some(val(value, src));
        } else if let Some(h) = hint(key) {
            hints.push(Prop::Field(h.to_string(), val(value, src)));
        }
    }
    let at = line(node);
    out.sites.push(Site {
        of_module: false,
        line: at,
        repeated: false,
        extent: node.byte_range(),
        spelled: [false; 4],
        family: Family::CSharp,
        kind: SiteKind::Tool {
            name: Some(tool_name.or(derived).unwrap_or(Val::Other)),
            def: definition(at, hints),
        },
    });
}

fn definition(at: u32, hints: Vec<Prop>) -> Val {
    let props = if hints.is_empty() {
        Vec::new()
    } else {
        vec![Prop::Field("annotations".to_string(), Val::obj(at, hints))]
    };
    Val::obj(at, props)
}

fn options(node: Node, src: &[u8], out: &mut FileSummary) {
    let ty = node.field("type").map_or("", |t| text(t, src));
    if ty.rsplit('.').next() != Some("McpServerToolCreateOptions") {
        return;
    }
    let Some(init) = node.field("initializer") else {
        return;
    };
    let assigned = children(init)
        .into_iter()
        .filter(|a| a.kind_name() == "assignment_expression")
        .filter_map(|a| Some((a.field("left")?, a.field("right")?)))
        .collect();
    record(node, src, assigned, None, out);
}

fn val(node: Node, src: &[u8]) -> Val {
    match node.kind_name() {
        "boolean_literal" => Val::Bool(text(node, src) == "true"),
        "null_literal" => Val::Null,
        "string_literal" | "verbatim_string_literal" | "raw_string_literal" => {
            unquote(text(node, src)).map_or(Val::Other, Val::Str)
        }
        _ => Val::Other,
    }
}
