//! The names a file binds: `const`/`let`/`var` declarators, functions that return
//! an object literal (factories, read one level) or their argument, and classes,
//! a tool class recorded as a definition.

use tree_sitter::Node;

use crate::tools::keys;
use crate::tools::model::Family;
use crate::tools::sdk::syntax::{children, descendants, line, text, Named};
use crate::tools::value::{field, FileSummary, Import, Prop, Site, SiteKind, Spec, Val};

use super::modules::{destructured_imports, require_of};
use super::values::{returned, returned_node, val};

/// Returns the ids of the file's top-level declarators, sorted: those of a
/// declaration at the top of the file, exported or not. Read once a file, so that no
/// declarator asks for its parents (tree-sitter finds a node's parent by walking
/// down from the root).
pub(super) fn top_declarators(root: Node) -> Vec<usize> {
    let mut out = Vec::new();
    let declarators = |declaration: Node, out: &mut Vec<usize>| {
        let mut cursor = declaration.walk();
        out.extend(
            declaration
                .named_children(&mut cursor)
                .filter(|d| d.kind_name() == "variable_declarator")
                .map(|d| d.id()),
        );
    };
    let mut cursor = root.walk();
    for statement in root.named_children(&mut cursor) {
        match statement.kind_name() {
            "export_statement" => {
                let mut inner = statement.walk();
                for declaration in statement.named_children(&mut inner) {
                    declarators(declaration, &mut out);
                }
            }
            _ => declarators(statement, &mut out),
        }
    }
    out.sort_unstable();
    out
}

pub(super) fn declarator(
    node: Node,
    src: &[u8],
    out: &mut FileSummary,
    tops: &[usize],
    top: &mut Vec<(String, Val)>,
    nested: &mut Vec<(String, Val)>,
) {
    let (Some(name), Some(value)) = (node.field("name"), node.field("value")) else {
        return;
    };
    if let Some(rel) = require_of(value, src) {
        match name.kind_name() {
            "identifier" => out.import(text(name, src), Import { rel, name: None }),
            "object_pattern" => destructured_imports(name, src, &rel, out),
            _ => {}
        }
        return;
    }
    if name.kind_name() != "identifier" {
        return;
    }
    let entry = (text(name, src).to_string(), val(value, src, 0));
    xmcp_tool(node, value, &entry.1, src, out);
    if tops.binary_search(&node.id()).is_ok() {
        tool_constant(value, &entry.1, out);
        top.push(entry);
    } else {
        nested.push(entry);
    }
}

/// Records xmcp's file-routed tool (see [`is_xmcp_metadata`]): its `metadata`
/// object is one tool, unless a registration of the tree defines the same (see
/// [`SiteKind::Shaped`]).
fn xmcp_tool(node: Node, value: Node, read: &Val, src: &[u8], out: &mut FileSummary) {
    if value.kind_name() == "object" && is_xmcp_metadata(node, src, out) {
        shaped_once(value, read.clone(), out);
    }
}

/// Records `object`, an object literal read as `read`, as one tool-shaped
/// definition, unless a definition of the file stands on the same bytes already
/// (a constant both typed `Tool` and of the tool's shape).
fn shaped_once(object: Node, read: Val, out: &mut FileSummary) {
    if !out.sites.iter().any(|s| s.extent == object.byte_range()) {
        out.sites.push(Site::new(
            line(object),
            object.byte_range(),
            Family::TypeScript,
            SiteKind::Shaped(read),
        ));
    }
}

/// Records a constant at the top of a file bound to an object literal written as
/// the protocol's tool (`export const createNoteDefinition = { name: 'create-note',
/// description, inputSchema, annotations: {...} }`, as attio's server writes each
/// tool before a `tools/list` handler gathers them): a literal `name` and an
/// `inputSchema`, beside a `description` or an `annotations` object. One tool,
/// unless a registration of the tree defines the same (see [`SiteKind::Shaped`]).
fn tool_constant(value: Node, read: &Val, out: &mut FileSummary) {
    let Val::Obj { props, .. } = read else {
        return;
    };
    let shaped = matches!(field(props, keys::NAME), Some(Val::Str(_)))
        && field(props, "inputSchema").is_some()
        && (field(props, "description").is_some()
            || matches!(field(props, keys::ANNOTATIONS), Some(Val::Obj { .. })));
    if shaped && value.kind_name() == "object" {
        shaped_once(value, read.clone(), out);
    }
}

/// A constant's type and value, the type written after the value when it is not
/// before it: `[...] as Tool[]`, `{...} satisfies Tool` (and through `as unknown as`).
fn after_the_value<'t>(
    mut annotation: Option<Node<'t>>,
    mut value: Option<Node<'t>>,
) -> (Option<Node<'t>>, Option<Node<'t>>) {
    while let Some(typed) =
        value.filter(|v| matches!(v.kind_name(), "as_expression" | "satisfies_expression"))
    {
        let inner = children(typed);
        annotation = annotation.or_else(|| inner.get(1).copied());
        value = inner.first().copied();
    }
    (annotation, value)
}

/// Records the tools a constant or a function declared with a tool type gives: a
/// constant declared as the SDK's `Tool` (`export const tool: Tool = { name,
/// inputSchema, annotations }`, as Stainless generates one file per tool; the type
/// says what the object is, its keys need not), or a class's field so declared
/// with a literal `name` (`tool: Tool = { name: 'kube_list', ... }`); each element of a list of tools
/// written as an array literal, a constant declared `Tool[]` (or `Array<Tool>`) or a
/// function or method declared to return one (`getTools(): Tool[] { return [{ name,
/// annotations }, ...] }`, as servers that answer `tools/list` from a method of
/// their own class write it); and the object a function declared to return one tool
/// gives (`function searchTool(a): ToolDefinition { return { name, inputSchema,
/// annotations, handler }; }`, as postgres-mcp writes each of its tools). The type
/// may be the SDK's `Tool` or the project's own (see [`keys::tool_type`]). Each
/// object literal with a `name` (a literal one when a function gives it alone or the
/// type is the project's, which also needs an `inputSchema`) is one tool, unless a
/// registration of the tree defines the same (see [`SiteKind::Shaped`]).
pub(super) fn typed_list(node: Node, src: &[u8], out: &mut FileSummary) {
    let (annotation, list) = match node.kind_name() {
        // A constant, or a class's field (`tool: Tool = { name, ... }`, as
        // kubeview-mcp writes each tool a class of its own runs).
        "variable_declarator" | "public_field_definition" => {
            after_the_value(node.field("type"), node.field("value"))
        }
        // The return type first: most functions have none, and what one returns
        // is found by a walk over its body.
        "function_declaration" | "method_definition" | "function_expression" | "arrow_function" => {
            match node.field("return_type") {
                Some(annotation) => (Some(annotation), returned_node(node)),
                None => return,
            }
        }
        _ => return,
    };
    let (Some(annotation), Some(list)) = (annotation, list) else {
        return;
    };
    let Some(typed) = keys::tool_type(text(annotation, src).as_bytes()) else {
        return;
    };
    let is_function = !matches!(
        node.kind_name(),
        "variable_declarator" | "public_field_definition"
    );
    // An arrow function's `=> ({ ... })`.
    let mut list = list;
    while is_function && list.kind_name() == "parenthesized_expression" {
        let Some(&inner) = children(list).first() else {
            return;
        };
        list = inner;
    }
    let elements = match (typed.is_list, list.kind_name()) {
        (true, "array") => children(list),
        (false, "object") => vec![list],
        _ => return,
    };
    // One a function gives, a class's field, or of a project's own type: a name that
    // is no literal may be a config's that a `tools/list` answer or a registration
    // copies (`name: config.name`), or the class's own (`name: this.name`, a class
    // the class rule reads as the tool already), no tool alone. A constant's or a
    // field's name may still be one name (`name: TOOL_NAME`, a constant of the file,
    // as cyanheads' template names each tool); a function's may be its parameter.
    let in_a_class = node.kind_name() == "public_field_definition";
    let literal = typed.is_own || in_a_class || (!typed.is_list && is_function);
    for element in elements.into_iter().filter(|e| e.kind_name() == "object") {
        let read = val(element, src, 0);
        let tool = matches!(&read, Val::Obj { props, .. }
            if match field(props, keys::NAME) {
                Some(Val::Str(_)) => true,
                Some(Val::Ref(path)) if path.len() == 1 && !is_function => true,
                Some(_) => !literal,
                None => false,
            } && (!typed.is_own || field(props, "inputSchema").is_some()));
        if tool {
            shaped_once(element, read, out);
        }
    }
}

/// Returns true for xmcp's file-routed tool: `export const metadata = {...}` at the
/// top of a file that imports from `xmcp` (its `ToolMetadata` type, `InferSchema`).
/// The framework registers every file of its tools folder as one tool, named by
/// `metadata.name` (else by the file's name, which the row leaves unnamed).
fn is_xmcp_metadata(node: Node, src: &[u8], out: &FileSummary) -> bool {
    let exported = || {
        node.parent()
            .and_then(|d| d.parent())
            .is_some_and(|e| e.kind_name() == "export_statement")
    };
    node.field("name")
        .is_some_and(|n| text(n, src) == "metadata")
        && exported()
        && out
            .imports
            .values()
            .any(|i| matches!(&i.rel, Spec::Package(p) if p == "xmcp"))
}

/// Binds `function f() { return {...}; }` to what it returns (a factory).
pub(super) fn function(node: Node, src: &[u8], top: &mut Vec<(String, Val)>) {
    let Some(name) = node.field("name") else {
        return;
    };
    if let Some(returned) = returned(node, src) {
        top.push((text(name, src).to_string(), returned));
    } else if takes_annotations_apart(node, src) {
        // Bound, to a value the finder cannot read: a key's value this wrapper makes
        // is read as a helper's of a package (see `keyed`).
        top.push((text(name, src).to_string(), Val::Other));
    }
}

/// Returns true when a function's first parameter takes a tool object apart,
/// naming its `annotations` (`function p({ description, annotations, execute })`,
/// a wrapper that hands the fields on to a package's `tool`).
fn takes_annotations_apart(function: Node, src: &[u8]) -> bool {
    let Some(first) = function
        .field("parameters")
        .and_then(|p| children(p).into_iter().next())
    else {
        return false;
    };
    let pattern = match first.kind_name() {
        "required_parameter" | "optional_parameter" => first.field("pattern"),
        _ => Some(first),
    };
    pattern
        .filter(|p| p.kind_name() == "object_pattern")
        .is_some_and(|p| {
            children(p).into_iter().any(|c| {
                let key = match c.kind_name() {
                    "shorthand_property_identifier_pattern" => Some(c),
                    "pair_pattern" => c.field("key"),
                    _ => None,
                };
                key.is_some_and(|k| text(k, src) == keys::ANNOTATIONS)
            })
        })
}

/// Reads a class: binds its name to its fields (a base class spread first), and
/// records a tool class (see the module's documentation) as a definition.
pub(super) fn class(node: Node, src: &[u8], out: &mut FileSummary, top: &mut Vec<(String, Val)>) {
    let Some(body) = node.field("body") else {
        return;
    };
    let base = children(node)
        .into_iter()
        .find(|c| c.kind_name() == "class_heritage")
        .and_then(|h| {
            descendants(h, 64, |n| {
                matches!(n.kind_name(), "identifier" | "member_expression")
            })
            .into_iter()
            .next()
        });
    let mut props = Vec::new();
    if let Some(base) = base {
        props.push(Prop::Spread(val(base, src, 0)));
    }
    for member in children(body) {
        let key = member.field("property").or_else(|| member.field("name"));
        let Some(key) = key else { continue };
        let key = text(key, src).to_string();
        let value = match member.kind_name() {
            "public_field_definition" | "field_definition" => {
                member.field("value").map_or(Val::Other, |v| val(v, src, 0))
            }
            // A getter or a method computes the field.
            _ => Val::Other,
        };
        props.push(Prop::Field(key, value));
    }
    // The tool's name: a literal `name` field, or a static `toolName`.
    let name = props.iter().rev().find_map(|p| match p {
        Prop::Field(k, v @ Val::Str(_)) if k == "name" || k == "toolName" => Some(v.clone()),
        _ => None,
    });
    let has = |keys: &[&str]| {
        props
            .iter()
            .any(|p| matches!(p, Prop::Field(k, _) if keys.contains(&k.as_str())))
    };
    // What makes a class a tool beside its name: something to run or a schema.
    let tool_like = has(&keys::CLASS);
    let tool_base = base.filter(|b| text(*b, src).contains("Tool"));
    if let (Some(name), true, Some(base)) = (name, tool_like, tool_base) {
        let mut def = props.clone();
        def.push(Prop::Field("name".to_string(), name));
        if !has(&[keys::ANNOTATIONS]) {
            def.push(Prop::Field(
                "annotations".to_string(),
                Val::Inherited(Box::new(val(base, src, 0))),
            ));
        }
        out.sites.push(Site::new(
            line(node),
            node.byte_range(),
            Family::TypeScript,
            SiteKind::Tool {
                name: None,
                def: Val::obj(line(node), def),
            },
        ));
    }
    if let Some(name) = node.field("name") {
        top.push((text(name, src).to_string(), Val::obj(line(node), props)));
    }
}
