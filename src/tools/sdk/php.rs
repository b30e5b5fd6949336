//! The official PHP SDK (`mcp/sdk`, family `php`) and laravel/mcp (family `laravel`):
//! two SDKs of one grammar, with different registrations.
//!
//! The official SDK:
//! - `#[McpTool(name: '...', annotations: new ToolAnnotations(...))]` on a method,
//!   named by `name` or else the method's name, or on an invokable class, named by
//!   `name` or else the class's short name, as the SDK's discoverer names them;
//! - `$builder->addTool($handler, name: '...', annotations: new ToolAnnotations(...))`
//!   (`Server::builder()->addTool(...)`) in a file that uses the `Mcp\` namespace; a
//!   tool without `name:` is named by the SDK from its handler: no name;
//! - `new Tool(name: '...', ..., annotations: ...)` (`Mcp\Schema\Tool`, for `add`).
//!
//! `ToolAnnotations(title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint)`
//! is read by name or by position, and `ToolAnnotations::fromArray([...])` and a plain
//! array by key; `null` is absent. A positional argument is read as the annotations
//! only when it builds a `ToolAnnotations`, since the positions moved between SDK
//! versions.
//!
//! laravel/mcp: a class extending `Laravel\Mcp\Server\Tool` (`Laravel\Mcp\Tools\Tool`
//! before 0.2) with the class attributes `#[IsReadOnly]`, `#[IsDestructive]`,
//! `#[IsIdempotent]`, `#[IsOpenWorld]`: each sets its hint to its argument, `true`
//! when it has none (`#[IsDestructive(false)]` is false). The name is `#[Name('...')]`,
//! else `protected string $name = '...'`, else a `name()` method returning a literal
//! (0.1); without them laravel/mcp derives it from the class name (kebab-case),
//! which the finder does not redo: no name. A class extending an application's own
//! base class is not read.
//!
//! Class names are resolved through the file's `namespace` and `use` clauses, so another
//! package's `McpTool` attribute or `Tool` class is not taken for the SDK's. Bindings:
//! `const` (global and class constants, looked up by their own name: `self::NAME`,
//! `Presets::NAME`) and assignments to a variable. `require`/`include` are not followed:
//! PHP code shares presets through autoloaded classes, which the finder does not map.

use std::collections::HashMap;

use memchr::memmem;
use tree_sitter::Node;

use super::derived;
use super::model::Family;
use super::syntax::{children, line, preorder, text, unquote, Named};
use super::value::{FileSummary, Prop, Site, SiteKind, Val, MAX_VALUE_DEPTH};

const POSITIONS: [&str; 4] = [
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

/// The file's namespace and `use` aliases, to resolve a class name as PHP does.
#[derive(Default)]
struct Names {
    namespace: String,
    /// Alias (the last segment unless `as` renames it) → fully qualified name.
    aliases: HashMap<String, String>,
    /// The file names a class of the official SDK's `Mcp\` namespace.
    uses_sdk: bool,
}

impl Names {
    fn read(root: Node, src: &[u8]) -> Names {
        let mut names = Names {
            // `\Mcp\...` written in full; not `Laravel\Mcp\`.
            uses_sdk: memmem::find_iter(src, b"\\Mcp\\")
                .any(|at| at == 0 || !(src[at - 1].is_ascii_alphanumeric() || src[at - 1] == b'_')),
            ..Names::default()
        };
        for stmt in children(root) {
            match stmt.kind_name() {
                "namespace_definition" => {
                    if let Some(n) = stmt.field("name") {
                        names.namespace = text(n, src).to_string();
                    }
                }
                "namespace_use_declaration" => names.uses(stmt, src),
                _ => {}
            }
        }
        names.uses_sdk |= names.namespace == "Mcp" || names.namespace.starts_with("Mcp\\");
        names
    }

    /// Records `use A\B;`, `use A\B as C;` and `use A\{B, C as D};`.
    fn uses(&mut self, decl: Node, src: &[u8]) {
        let parts = children(decl);
        let prefix = parts
            .iter()
            .find(|p| p.kind_name() == "namespace_name")
            .map(|p| format!("{}\\", text(*p, src)))
            .unwrap_or_default();
        let clauses = match decl.field("body") {
            Some(group) => children(group),
            None => parts,
        };
        for clause in clauses
            .into_iter()
            .filter(|c| c.kind_name() == "namespace_use_clause")
        {
            let Some(target) = children(clause)
                .into_iter()
                .find(|c| matches!(c.kind_name(), "qualified_name" | "name"))
            else {
                continue;
            };
            let full = format!("{prefix}{}", text(target, src).trim_start_matches('\\'));
            let alias = match clause.field("alias") {
                Some(a) => text(a, src).to_string(),
                None => full.rsplit('\\').next().unwrap_or(&full).to_string(),
            };
            self.uses_sdk |= full.starts_with("Mcp\\");
            self.aliases.insert(alias, full);
        }
    }

    /// Returns the fully qualified name a class name written in the file stands for.
    fn resolve(&self, written: &str) -> String {
        if let Some(full) = written.strip_prefix('\\') {
            return full.to_string();
        }
        let (first, rest) = match written.split_once('\\') {
            Some((first, rest)) => (first, Some(rest)),
            None => (written, None),
        };
        if let Some(full) = self.aliases.get(first) {
            return match rest {
                Some(rest) => format!("{full}\\{rest}"),
                None => full.clone(),
            };
        }
        match self.namespace.is_empty() {
            true => written.to_string(),
            false => format!("{}\\{written}", self.namespace),
        }
    }
}

/// Fills `out` from one parsed file.
pub(crate) fn collect(root: Node, src: &[u8], out: &mut FileSummary) {
    let names = Names::read(root, src);
    preorder(root, |node| match node.kind_name() {
        "const_element" => {
            let parts = children(node);
            if let [name, value] = parts.as_slice() {
                out.bind(text(*name, src), val(*value, src, 0));
            }
        }
        "assignment_expression" => {
            if let (Some(left), Some(right)) = (node.field("left"), node.field("right")) {
                if left.kind_name() == "variable_name" {
                    out.bind(text(left, src), val(right, src, 0));
                }
            }
        }
        "attribute" => mcp_tool(node, src, &names, out),
        "class_declaration" => laravel_tool(node, src, &names, out),
        "member_call_expression" => add_tool(node, src, &names, out),
        "object_creation_expression" => new_tool(node, src, &names, out),
        _ => {}
    });
}

/// Returns the class name an attribute, a `new` or an `extends` writes.
fn class_name<'t>(node: Node<'t>) -> Option<Node<'t>> {
    children(node)
        .into_iter()
        .find(|c| matches!(c.kind_name(), "name" | "qualified_name"))
}

/// Returns a call's positional and named arguments.
fn arguments<'t>(args: Option<Node<'t>>, src: &[u8]) -> (Vec<Node<'t>>, Vec<(String, Node<'t>)>) {
    let mut positional = Vec::new();
    let mut named = Vec::new();
    for a in args.map(children).unwrap_or_default() {
        if a.kind_name() != "argument" {
            continue;
        }
        // A spread (`...$args`) may hold any argument: not read.
        let Some(value) = children(a).into_iter().last() else {
            continue;
        };
        match a.field("name") {
            Some(n) if n.id() != value.id() => named.push((text(n, src).to_string(), value)),
            _ => positional.push(value),
        }
    }
    (positional, named)
}

fn named<'t>(named: &[(String, Node<'t>)], key: &str) -> Option<Node<'t>> {
    named.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
}

/// Returns `{annotations: ...}` from a named `annotations:` argument or a positional
/// one that builds a `ToolAnnotations`.
fn annotations_def(at: u32, positional: &[Node], named_args: &[(String, Node)], src: &[u8]) -> Val {
    let annotations = named(named_args, "annotations").or_else(|| {
        positional
            .iter()
            .copied()
            .find(|p| builds_annotations(*p, src))
    });
    let props = annotations
        .map(|a| vec![Prop::Field("annotations".to_string(), val(a, src, 0))])
        .unwrap_or_default();
    Val::obj(at, props)
}

/// Returns true for `new ToolAnnotations(...)` and `ToolAnnotations::fromArray(...)`.
fn builds_annotations(node: Node, src: &[u8]) -> bool {
    let class = match node.kind_name() {
        "object_creation_expression" => class_name(node),
        "scoped_call_expression" => node.field("scope"),
        _ => None,
    };
    class.is_some_and(|c| last_segment(text(c, src)) == "ToolAnnotations")
}

fn last_segment(name: &str) -> &str {
    name.rsplit('\\').next().unwrap_or(name)
}

/// Records a tool defined at line `at` by the bytes `extent` spans.
fn push(
    out: &mut FileSummary,
    family: Family,
    (at, extent): (u32, std::ops::Range<usize>),
    name: Val,
    def: Val,
) {
    out.sites.push(Site {
        of_module: false,
        line: at,
        repeated: false,
        extent,
        spelled: [false; 4],
        family,
        kind: SiteKind::Tool {
            name: Some(name),
            def,
        },
    });
}

/// `#[McpTool(...)]` on a method or on an invokable class.
fn mcp_tool(node: Node, src: &[u8], names: &Names, out: &mut FileSummary) {
    let Some(class) = class_name(node) else {
        return;
    };
    if names.resolve(text(class, src)) != "Mcp\\Capability\\Attribute\\McpTool" {
        return;
    }
    let (positional, named_args) = arguments(node.field("parameters"), src);
    // attribute → attribute_group → attribute_list → the declaration.
    let target = node
        .parent()
        .and_then(|g| g.parent())
        .and_then(|l| l.parent());
    let fallback = target
        .filter(|t| matches!(t.kind_name(), "method_declaration" | "class_declaration"))
        .and_then(|t| t.field("name"))
        .map_or(Val::Other, |n| Val::Str(text(n, src).to_string()));
    let name = named(&named_args, "name")
        .or_else(|| positional.first().copied())
        .map(|n| val(n, src, 0))
        .filter(|v| *v != Val::Null)
        .unwrap_or(fallback);
    let at = line(node);
    let def = annotations_def(at, &positional, &named_args, src);
    push(out, Family::Php, (at, node.byte_range()), name, def);
}

/// `->addTool(handler, name: ..., annotations: ...)` in a file of the SDK.
fn add_tool(node: Node, src: &[u8], names: &Names, out: &mut FileSummary) {
    let is_add_tool = node
        .field("name")
        .is_some_and(|n| text(n, src) == "addTool");
    if !is_add_tool || !names.uses_sdk {
        return;
    }
    let (positional, named_args) = arguments(node.field("arguments"), src);
    // addTool(handler, name, ...): the name is second.
    let name = named(&named_args, "name")
        .or_else(|| positional.get(1).copied())
        .map_or(Val::Other, |n| val(n, src, 0));
    // A builder chain starts where the chain does: report the call's own line.
    let at = node.field("name").map_or(line(node), line);
    // Its own bytes, from the method's name: a builder's chain before it holds
    // other tools' definitions.
    let own = node
        .field("name")
        .map_or(node.start_byte(), |n| n.start_byte())..node.end_byte();
    let def = annotations_def(at, &positional, &named_args, src);
    push(out, Family::Php, (at, own), name, def);
}

/// `new Tool(name: ..., annotations: ...)` of `Mcp\Schema\Tool`.
fn new_tool(node: Node, src: &[u8], names: &Names, out: &mut FileSummary) {
    let Some(class) = class_name(node) else {
        return;
    };
    if names.resolve(text(class, src)) != "Mcp\\Schema\\Tool" {
        return;
    }
    let args = children(node)
        .into_iter()
        .find(|c| c.kind_name() == "arguments");
    let (positional, named_args) = arguments(args, src);
    let name = named(&named_args, "name")
        .or_else(|| positional.first().copied())
        .map_or(Val::Other, |n| val(n, src, 0));
    let at = line(node);
    let def = annotations_def(at, &positional, &named_args, src);
    push(out, Family::Php, (at, node.byte_range()), name, def);
}

/// A laravel/mcp tool class and its hint attributes.
fn laravel_tool(node: Node, src: &[u8], names: &Names, out: &mut FileSummary) {
    let Some(base) = children(node)
        .into_iter()
        .find(|c| c.kind_name() == "base_clause")
        .and_then(class_name)
    else {
        return;
    };
    let base = names.resolve(text(base, src));
    if base != "Laravel\\Mcp\\Server\\Tool" && base != "Laravel\\Mcp\\Tools\\Tool" {
        return;
    }
    let mut attribute_name = None;
    let mut hints = Vec::new();
    let attributes = node.field("attributes");
    for group in attributes.map(children).unwrap_or_default() {
        for attribute in children(group) {
            let Some(class) = class_name(attribute) else {
                continue;
            };
            let (positional, named_args) = arguments(attribute.field("parameters"), src);
            let argument = named(&named_args, "value").or_else(|| positional.first().copied());
            let hint = match last_segment(text(class, src)) {
                "Name" => {
                    attribute_name = argument.map(|a| val(a, src, 0));
                    continue;
                }
                "IsReadOnly" => "readOnlyHint",
                "IsDestructive" => "destructiveHint",
                "IsIdempotent" => "idempotentHint",
                "IsOpenWorld" => "openWorldHint",
                _ => continue,
            };
            let value = argument.map_or(Val::Bool(true), |a| val(a, src, 0));
            hints.push(Prop::Field(hint.to_string(), value));
        }
    }
    let name = attribute_name
        .or_else(|| name_in_body(node, src).filter(|n| *n != Val::Str(String::new())))
        .or_else(|| class_basename(node, src))
        .unwrap_or(Val::Other);
    let at = line(node);
    let props = match hints.is_empty() {
        true => Vec::new(),
        false => vec![Prop::Field("annotations".to_string(), Val::obj(at, hints))],
    };
    push(
        out,
        Family::Laravel,
        (at, node.byte_range()),
        name,
        Val::obj(at, props),
    );
}

/// Returns the name laravel/mcp derives for a tool class that sets none (see
/// [`derived::laravel_class`]); `None` when the class declares a `name()` method
/// or a `$name` other than `''`, whatever they hold.
fn class_basename(class: Node, src: &[u8]) -> Option<Val> {
    let body = class.field("body")?;
    let names_itself = children(body)
        .into_iter()
        .any(|member| match member.kind_name() {
            "property_declaration" => children(member).into_iter().any(|e| {
                e.kind_name() == "property_element"
                    && e.field("name").is_some_and(|n| text(n, src) == "$name")
                    && e.field("default_value")
                        .is_none_or(|v| !matches!(text(v, src), "''" | "\"\""))
            }),
            "method_declaration" => member.field("name").is_some_and(|n| text(n, src) == "name"),
            _ => false,
        });
    let class_name = class.field("name")?;
    (!names_itself).then(|| Val::Str(derived::laravel_class(text(class_name, src))))
}

/// Returns the name a laravel/mcp tool class gives itself: `$name = '...'`, or a
/// `name()` method whose body is one `return` (0.1).
fn name_in_body(class: Node, src: &[u8]) -> Option<Val> {
    let body = class.field("body")?;
    for member in children(body) {
        match member.kind_name() {
            "property_declaration" => {
                for element in children(member)
                    .into_iter()
                    .filter(|e| e.kind_name() == "property_element")
                {
                    let is_name = element
                        .field("name")
                        .is_some_and(|n| text(n, src) == "$name");
                    if let (true, Some(v)) = (is_name, element.field("default_value")) {
                        return Some(val(v, src, 0));
                    }
                }
            }
            "method_declaration" => {
                let is_name = member.field("name").is_some_and(|n| text(n, src) == "name");
                let statements = member.field("body").map(children).unwrap_or_default();
                if let (true, [ret]) = (is_name, statements.as_slice()) {
                    if ret.kind_name() == "return_statement" {
                        return children(*ret).first().map(|v| val(*v, src, 0));
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// Translates an expression into a value.
fn val(node: Node, src: &[u8], depth: usize) -> Val {
    if depth > MAX_VALUE_DEPTH {
        return Val::Other;
    }
    match node.kind_name() {
        "boolean" => Val::Bool(text(node, src).eq_ignore_ascii_case("true")),
        "null" => Val::Null,
        "string" | "encapsed_string" => {
            // `"$x"` and `"{$x}"` interpolate.
            let plain = children(node)
                .iter()
                .all(|c| matches!(c.kind_name(), "string_content" | "escape_sequence"));
            match plain {
                true => unquote(text(node, src)).map_or(Val::Other, Val::Str),
                false => Val::Other,
            }
        }
        // A constant (`READ_ONLY`) or a variable (`$readOnly`).
        "name" | "variable_name" => Val::name_ref(text(node, src)),
        // `self::NAME`, `Presets::READ_ONLY`: looked up by the constant's own name.
        "class_constant_access_expression" => match children(node).last() {
            Some(n) if n.kind_name() == "name" && text(*n, src) != "class" => {
                Val::name_ref(text(*n, src))
            }
            _ => Val::Other,
        },
        "parenthesized_expression" => match children(node).as_slice() {
            [inner] => val(*inner, src, depth + 1),
            _ => Val::Other,
        },
        "array_creation_expression" => array(node, src, depth),
        "object_creation_expression" if builds_annotations(node, src) => {
            let args = children(node)
                .into_iter()
                .find(|c| c.kind_name() == "arguments");
            let (positional, named_args) = arguments(args, src);
            let mut props = Vec::new();
            for (h, a) in POSITIONS.iter().zip(positional.iter().skip(1)) {
                props.push(Prop::Field(h.to_string(), val(*a, src, depth + 1)));
            }
            for (k, v) in &named_args {
                if POSITIONS.contains(&k.as_str()) {
                    props.push(Prop::Field(k.clone(), val(*v, src, depth + 1)));
                }
            }
            Val::obj(line(node), props)
        }
        "scoped_call_expression" if builds_annotations(node, src) => {
            let is_from_array = node
                .field("name")
                .is_some_and(|n| text(n, src) == "fromArray");
            let (positional, _) = arguments(node.field("arguments"), src);
            match (is_from_array, positional.as_slice()) {
                (true, [data]) => val(*data, src, depth + 1),
                _ => Val::Other,
            }
        }
        _ => Val::Other,
    }
}

/// Reads `['key' => value, ...$spread]`; a list without keys is an array.
fn array(node: Node, src: &[u8], depth: usize) -> Val {
    let elements: Vec<Node> = children(node)
        .into_iter()
        .filter(|e| e.kind_name() == "array_element_initializer")
        .collect();
    let mut props = Vec::new();
    let mut items = Vec::new();
    for e in &elements {
        let parts = children(*e);
        let is_spread = text(*e, src).starts_with("...");
        match parts.as_slice() {
            [v] if is_spread => props.push(Prop::Spread(val(*v, src, depth + 1))),
            [v] => items.push(val(*v, src, depth + 1)),
            [k, v] => match val(*k, src, depth + 1) {
                Val::Str(key) => props.push(Prop::Field(key, val(*v, src, depth + 1))),
                // A computed key may be any field.
                _ => return Val::Other,
            },
            _ => return Val::Other,
        }
    }
    match (props.is_empty(), items.is_empty()) {
        (_, true) => Val::obj(line(node), props),
        (true, false) => Val::Arr(items),
        (false, false) => Val::Other,
    }
}
