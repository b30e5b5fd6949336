//! The Python SDK's registrations (1.x `FastMCP`, 2.x `MCPServer`) and standalone
//! FastMCP's:
//!
//! - `@server.tool(...)` / `@server.tool` on a function: the name is `name=`, a first
//!   positional string, or the function's name, as the SDKs take it;
//! - the decorator's call forms, `server.tool(fn, name=...)` and
//!   `server.tool(name=..., annotations=...)(fn)` (also `self.mcp.tool(...)(self.method)`);
//! - `server.add_tool(fn, name=..., annotations=...)`;
//! - standalone FastMCP 2's tool objects, `Tool.from_function(fn, name=...,
//!   annotations=...)` (`FunctionTool.from_function`), passed to `server.add_tool(...)`
//!   or bound to a name it is given; one written elsewhere is a tool too, unless a
//!   registration reads the same call;
//! - `Tool(name=..., annotations=...)` / `types.Tool(...)` in low-level servers.
//!
//! The receiver must look like an MCP server, since other libraries decorate tools
//! with the same word (LangChain's `@tool`, pydantic-ai's `@agent.tool`): its name
//! holds `mcp` (`mcp`, `app_mcp`, `MCP`), or the file imports from a module named
//! `mcp...` or `fastmcp...`. Annotations are `ToolAnnotations(...)` keyword calls or
//! dicts; hint keys are read in camelCase and snake_case (2.x). Bindings: assignments
//! to a name, and classes as their attributes (an `Enum`'s members with `.value` and
//! `.name`, a string enumeration's member read as its value); imports:
//! `from .module import NAME` and `from . import module`.

use tree_sitter::Node;

use super::model::Family;
use super::syntax::{children, line, preorder, text, unquote, Named};
use super::value::{
    canonical_key, python_relative, FileSummary, Import, Param, Prop, Site, SiteKind, Spec, Val,
    MAX_VALUE_DEPTH,
};

/// Fills `out` from one parsed file.
pub(crate) fn collect(root: Node, src: &[u8], out: &mut FileSummary) {
    let scope = &Scope {
        imports_mcp: imports_an_mcp_module(root, src),
        relative: relative_names(root, src),
        tool_objects: tool_objects(root, src),
        sdk_names: sdk_names(root, src),
    };
    let mut top = Vec::new();
    let mut nested = Vec::new();
    preorder(root, |node| match node.kind_name() {
        "assignment" => assignment(node, src, &mut top, &mut nested),
        "import_from_statement" => import(node, src, out),
        "import_statement" => import_as(node, src, out),
        "decorated_definition" => decorated(node, src, scope, out),
        "call" => call(node, src, scope, out),
        "class_definition" => class(node, src, &mut top),
        "function_definition" => function(node, src, &mut top),
        _ => {}
    });
    for (name, val) in &top {
        out.bind(name, val.clone());
    }
    for (name, val) in nested {
        if !top.iter().any(|(n, _)| *n == name) {
            out.bind(&name, val);
        }
    }
}

/// Returns the names a file imports from relative modules (`from .server import app`):
/// a server object another module of the tree made.
fn relative_names(root: Node, src: &[u8]) -> Vec<String> {
    imported_names(root, src, |module| module.kind_name() == "relative_import")
}

/// Returns the local names (an alias where one is given) that the file's `from M
/// import ...` statements bind, of those whose module `M` is `from_module`.
fn imported_names(root: Node, src: &[u8], from_module: impl Fn(Node) -> bool) -> Vec<String> {
    let mut names = Vec::new();
    for stmt in children(root) {
        if stmt.kind_name() != "import_from_statement"
            || stmt.field("module_name").is_none_or(|m| !from_module(m))
        {
            continue;
        }
        let mut cursor = stmt.walk();
        for name in stmt.children_by_field_name("name", &mut cursor) {
            let local = match name.kind_name() {
                "aliased_import" => name.field("alias"),
                _ => Some(name),
            };
            names.extend(local.map(|l| text(l, src).to_string()));
        }
    }
    names
}

fn imports_an_mcp_module(root: Node, src: &[u8]) -> bool {
    children(root).into_iter().any(|stmt| {
        let module = match stmt.kind_name() {
            "import_from_statement" => stmt.field("module_name"),
            "import_statement" => stmt.field("name"),
            _ => None,
        };
        module.is_some_and(|m| {
            let name = text(m, src);
            let first = name.split('.').next().unwrap_or("");
            first == "mcp" || first == "fastmcp"
        })
    })
}

/// What a file says of the receivers of its registrations.
struct Scope {
    /// The file imports from an `mcp...` or `fastmcp...` module.
    imports_mcp: bool,
    /// Names imported from relative modules.
    relative: Vec<String>,
    /// Names the file binds to a tool object (`t = Tool.from_function(...)`).
    tool_objects: Vec<String>,
    /// Names the file imports from an `mcp...` or `fastmcp...` module
    /// (`from fastmcp.tools import FunctionTool`), and those two modules' own names.
    sdk_names: Vec<String>,
}

/// Returns the names a file imports from an `mcp...` or `fastmcp...` module, and
/// `mcp` and `fastmcp` themselves: where a `Tool` comes from the SDK, not from
/// another library that names a class so (LangChain's `Tool.from_function`).
fn sdk_names(root: Node, src: &[u8]) -> Vec<String> {
    let mut names = vec!["mcp".to_string(), "fastmcp".to_string()];
    names.extend(imported_names(root, src, |module| {
        let first = text(module, src).split('.').next().unwrap_or("");
        first == "mcp" || first == "fastmcp"
    }));
    names
}

/// Returns the names a file assigns a tool object to, `Tool.from_function(...)`
/// (see [`from_function`]); a file that does not spell it is not walked again.
fn tool_objects(root: Node, src: &[u8]) -> Vec<String> {
    let mut names = Vec::new();
    if memchr::memmem::find(src, b"from_function").is_none() {
        return names;
    }
    preorder(root, |node| {
        if node.kind_name() != "assignment" {
            return;
        }
        let (Some(left), Some(right)) = (node.field("left"), node.field("right")) else {
            return;
        };
        if left.kind_name() == "identifier" && from_function(right, src, 0).is_some() {
            names.push(text(left, src).to_string());
        }
    });
    names
}

/// Reads FastMCP 2's `Tool.from_function(fn, name=..., annotations=...)` (also
/// `FunctionTool.from_function`, `tools.Tool.from_function`) as a tool object: its
/// `name`, else the function's name (`fn`, positional or by keyword), as FastMCP
/// derives it, and its annotations. `None` for any other node. Which library's
/// `Tool` it is, the caller asks (see [`is_sdk_class`]).
fn from_function(node: Node, src: &[u8], depth: usize) -> Option<Val> {
    if node.kind_name() != "call" {
        return None;
    }
    let (receiver, method) = callee(node.field("function")?, src)?;
    let receiver = receiver.and_then(|r| dotted(r, src))?;
    if method != "from_function" || !matches!(receiver.last()?.as_str(), "Tool" | "FunctionTool") {
        return None;
    }
    let (positional, keywords) = arguments(node, src);
    let at = line(node);
    let function = keyword(&keywords, "fn").or_else(|| positional.first().copied());
    let name = keyword(&keywords, "name")
        .map(|n| val(n, src, depth + 1))
        .or_else(|| function_name(&function?, src).map(Val::Str))
        .unwrap_or(Val::Other);
    let mut props = vec![Prop::Field("name".to_string(), name)];
    props.extend(annotation_props(&keywords, src, depth + 1));
    Some(Val::obj(at, props))
}

/// Returns true when the receiver of a call (`Tool` of `Tool.from_function(...)`)
/// is a name the file imports from an SDK module, or a path through one
/// (`fastmcp.tools.Tool`).
fn is_sdk_class(call: Node, src: &[u8], scope: &Scope) -> bool {
    let path = call
        .field("function")
        .and_then(|f| f.field("object"))
        .and_then(|r| dotted(r, src));
    path.and_then(|p| p.into_iter().next())
        .is_some_and(|first| scope.sdk_names.contains(&first))
}

/// Returns the name of a function passed by name (`f`, `self.f`, `tools.f`): the
/// name a tool made from it takes.
fn function_name(node: &Node, src: &[u8]) -> Option<String> {
    match node.kind_name() {
        "identifier" => Some(text(*node, src).to_string()),
        "attribute" => node.field("attribute").map(|a| text(a, src).to_string()),
        _ => None,
    }
}

/// Returns true when a receiver (`mcp`, `self.mcp`, `server`) may be an MCP server:
/// the file imports an MCP module, the receiver's name holds `mcp`, or it is a name
/// imported from a relative module (whether that module's file uses an SDK, or is
/// reached from one, decides whether the definition counts).
fn is_server(receiver: Node, src: &[u8], scope: &Scope) -> bool {
    let name = text(receiver, src);
    scope.imports_mcp
        || name.to_ascii_lowercase().contains("mcp")
        || scope.relative.iter().any(|r| r == name)
}

fn assignment(
    node: Node,
    src: &[u8],
    top: &mut Vec<(String, Val)>,
    nested: &mut Vec<(String, Val)>,
) {
    let (Some(left), Some(right)) = (node.field("left"), node.field("right")) else {
        return;
    };
    if left.kind_name() != "identifier" {
        return;
    }
    let at_top = node
        .parent()
        .filter(|p| p.kind_name() == "expression_statement")
        .and_then(|p| p.parent())
        .is_some_and(|g| g.kind_name() == "module");
    let entry = (text(left, src).to_string(), val(right, src, 0));
    if at_top {
        top.push(entry);
    } else {
        nested.push(entry);
    }
}

fn import(node: Node, src: &[u8], out: &mut FileSummary) {
    let Some(module) = node.field("module_name") else {
        return;
    };
    let rel = match module.kind_name() {
        "relative_import" => Spec::Relative(python_relative(text(module, src))),
        // An absolute import: a module of the tree's own packages, if it holds it.
        // One inside a function is read there only, and left out with its body.
        "dotted_name" if !in_function(node) => Spec::Package(text(module, src).replace('.', "/")),
        _ => return,
    };
    let mut cursor = node.walk();
    for name in node.children_by_field_name("name", &mut cursor) {
        let (imported, local) = match name.kind_name() {
            "aliased_import" => match (name.field("name"), name.field("alias")) {
                (Some(n), Some(a)) => (text(n, src), text(a, src)),
                _ => continue,
            },
            _ => (text(name, src), text(name, src)),
        };
        out.import(
            local,
            Import {
                rel: rel.clone(),
                name: Some(imported.to_string()),
            },
        );
    }
}

/// Reads `import app.presets as p`: a module of the tree's own packages, if it
/// holds it, under a name; and a plain `import app.tools.presets`, which makes
/// `app.tools.presets.X` (and `app.tools.X`, `app.X`) readable: each dotted prefix
/// is recorded under its dotted spelling, which the resolver tries before the
/// first name (see `Resolver::resolve`).
fn import_as(node: Node, src: &[u8], out: &mut FileSummary) {
    if in_function(node) {
        return;
    }
    let mut cursor = node.walk();
    for name in node.children_by_field_name("name", &mut cursor) {
        let module = |m: &str| Import {
            rel: Spec::Package(m.replace('.', "/")),
            name: None,
        };
        match (name.field("name"), name.field("alias")) {
            (Some(dotted), Some(alias)) => out.import(text(alias, src), module(text(dotted, src))),
            _ if name.kind_name() == "dotted_name" => {
                let dotted = text(name, src);
                for (at, _) in dotted.match_indices('.').chain([(dotted.len(), "")]) {
                    out.import(&dotted[..at], module(&dotted[..at]));
                }
            }
            _ => {}
        }
    }
}

/// Returns true for a node inside a function's body.
fn in_function(node: Node) -> bool {
    let mut at = node.parent();
    while let Some(p) = at {
        if p.kind_name() == "function_definition" {
            return true;
        }
        at = p.parent();
    }
    false
}

/// Reads `server.tool(name=..., annotations=...)(function)`: the decorator applied
/// by hand, as servers that register bound methods write it.
fn applied_decorator(node: Node, src: &[u8], scope: &Scope, out: &mut FileSummary) {
    let Some(inner) = node.field("function") else {
        return;
    };
    let Some((Some(receiver), method)) = inner.field("function").and_then(|f| callee(f, src))
    else {
        return;
    };
    if method != "tool" || !is_server(receiver, src, scope) {
        return;
    }
    let (_, keywords) = arguments(inner, src);
    let (positional, _) = arguments(node, src);
    let function = positional.first().and_then(|f| function_name(f, src));
    let at = line(node);
    let name = keyword(&keywords, "name")
        .map(|n| val(n, src, 0))
        .or(function.map(Val::Str))
        .unwrap_or(Val::Other);
    out.sites.push(Site::new(
        at,
        node.byte_range(),
        Family::Python,
        SiteKind::Tool {
            name: Some(name),
            def: annotations_def(at, &keywords, src),
        },
    ));
}

/// Binds a class's name to its attributes: `NAME = value` in its body. The members
/// of an `Enum` subclass are members (`.value`, `.name`); of a `str` enumeration,
/// read as their value where a string is wanted.
fn class(node: Node, src: &[u8], top: &mut Vec<(String, Val)>) {
    let (Some(name), Some(body)) = (node.field("name"), node.field("body")) else {
        return;
    };
    let bases = node.field("superclasses").map_or("", |b| text(b, src));
    let is_enum = bases.contains("Enum");
    let mut props = Vec::new();
    for stmt in children(body) {
        let Some(assignment) = children(stmt).into_iter().next().filter(|a| {
            stmt.kind_name() == "expression_statement" && a.kind_name() == "assignment"
        }) else {
            continue;
        };
        let (Some(left), Some(right)) = (assignment.field("left"), assignment.field("right"))
        else {
            continue;
        };
        if left.kind_name() != "identifier" {
            continue;
        }
        let key = text(left, src).to_string();
        let value = val(right, src, 1);
        let value = match is_enum {
            true => Val::Member {
                name: key.clone(),
                value: Box::new(value),
            },
            false => value,
        };
        props.push(Prop::Field(key, value));
    }
    top.push((text(name, src).to_string(), Val::obj(line(node), props)));
}

/// Returns the call's function as (receiver, method name) or (None, name); a
/// call of a call (`f(...)(...)`) has no name.
fn callee<'t>(function: Node<'t>, src: &[u8]) -> Option<(Option<Node<'t>>, String)> {
    match function.kind_name() {
        "call" => Some((None, String::new())),
        "attribute" => Some((
            function.field("object"),
            text(function.field("attribute")?, src).to_string(),
        )),
        "identifier" => Some((None, text(function, src).to_string())),
        _ => None,
    }
}

/// Returns the positional and keyword arguments of a call.
fn arguments<'t>(call: Node<'t>, src: &[u8]) -> (Vec<Node<'t>>, Vec<(String, Node<'t>)>) {
    let mut positional = Vec::new();
    let mut keywords = Vec::new();
    let Some(args) = call.field("arguments") else {
        return (positional, keywords);
    };
    for a in children(args) {
        if a.kind_name() == "keyword_argument" {
            if let (Some(n), Some(v)) = (a.field("name"), a.field("value")) {
                keywords.push((text(n, src).to_string(), v));
            }
        } else if a.kind_name() == "dictionary_splat" {
            // `**options`: keywords the finder reads once `options` resolves.
            if let Some(inner) = children(a).into_iter().next() {
                keywords.push((SPLAT.to_string(), inner));
            }
        } else {
            positional.push(a);
        }
    }
    (positional, keywords)
}

fn keyword<'t>(keywords: &[(String, Node<'t>)], name: &str) -> Option<Node<'t>> {
    keywords.iter().find(|(k, _)| k == name).map(|(_, v)| *v)
}

fn decorated(node: Node, src: &[u8], scope: &Scope, out: &mut FileSummary) {
    let Some(definition) = node.field("definition") else {
        return;
    };
    let function_name = definition.field("name").map(|n| text(n, src).to_string());
    for decorator in children(node)
        .into_iter()
        .filter(|c| c.kind_name() == "decorator")
    {
        let Some(expr) = children(decorator).into_iter().next() else {
            continue;
        };
        let (target, call) = if expr.kind_name() == "call" {
            match expr.field("function") {
                Some(f) => (f, Some(expr)),
                None => continue,
            }
        } else {
            (expr, None)
        };
        let Some((receiver, method)) = callee(target, src) else {
            continue;
        };
        if method != "tool" {
            continue;
        }
        let is_mcp = match receiver {
            Some(r) => is_server(r, src, scope),
            None => scope.imports_mcp,
        };
        if !is_mcp {
            continue;
        }
        let (positional, keywords) = call.map(|c| arguments(c, src)).unwrap_or_default();
        let name = keyword(&keywords, "name")
            .or_else(|| {
                positional
                    .first()
                    .copied()
                    .filter(|p| p.kind_name() == "string")
            })
            .map(|n| val(n, src, 0))
            .or_else(|| function_name.clone().map(Val::Str));
        out.sites.push(Site {
            of_module: false,
            line: line(decorator),
            repeated: false,
            extent: decorator.byte_range(),
            spelled: [false; 4],
            family: Family::Python,
            kind: SiteKind::Tool {
                name,
                def: annotations_def(line(decorator), &keywords, src),
            },
        });
    }
}

/// The key [`arguments`] records a `**` splat under: no keyword is spelled so.
const SPLAT: &str = "**";

/// Returns `{annotations: ...}` from a call's `annotations=` keyword, after the `**`
/// splats that may hold it (hidden, so unknown, when one does not resolve).
fn annotations_def(at: u32, keywords: &[(String, Node)], src: &[u8]) -> Val {
    Val::obj(at, annotation_props(keywords, src, 0))
}

/// Returns the fields [`annotations_def`] reads from a call's keywords.
fn annotation_props(keywords: &[(String, Node)], src: &[u8], depth: usize) -> Vec<Prop> {
    let mut props: Vec<Prop> = keywords
        .iter()
        .filter(|(k, _)| k == SPLAT)
        .map(|(_, v)| Prop::Spread(val(*v, src, depth)))
        .collect();
    if let Some(a) = keyword(keywords, "annotations") {
        props.push(Prop::Field("annotations".to_string(), val(a, src, depth)));
    }
    props
}

fn call(node: Node, src: &[u8], scope: &Scope, out: &mut FileSummary) {
    let Some((receiver, method)) = node.field("function").and_then(|f| callee(f, src)) else {
        return;
    };
    let at = line(node);
    match method.as_str() {
        "add_tool" => {
            let Some(r) = receiver else { return };
            if !is_server(r, src, scope) || forwards(node, r, src) {
                return;
            }
            let (positional, keywords) = arguments(node, src);
            // A tool object: FastMCP 2's `add_tool(Tool.from_function(f, ...))`, or a
            // name the file binds to one.
            let object = positional.first().and_then(|p| match p.kind_name() {
                "identifier" if scope.tool_objects.iter().any(|n| n == text(*p, src)) => {
                    Some(val(*p, src, 0))
                }
                _ => from_function(*p, src, 0),
            });
            if let Some(def) = object {
                out.sites.push(Site::new(
                    at,
                    node.byte_range(),
                    Family::Python,
                    SiteKind::Tool { name: None, def },
                ));
                return;
            }
            let name = match keyword(&keywords, "name") {
                Some(n) => Some(val(n, src, 0)),
                None => positional
                    .first()
                    .filter(|p| p.kind_name() == "identifier")
                    .map(|p| Val::Str(text(*p, src).to_string())),
            };
            out.sites.push(Site {
                of_module: false,
                line: at,
                repeated: false,
                extent: node.byte_range(),
                spelled: [false; 4],
                family: Family::Python,
                kind: SiteKind::Tool {
                    name: Some(name.unwrap_or(Val::Other)),
                    def: annotations_def(at, &keywords, src),
                },
            });
        }
        // `server.tool(function, name=...)`, the call form of the decorator.
        "tool" if node.parent().is_none_or(|p| p.kind_name() != "decorator") => {
            if node.parent().is_some_and(|p| p.kind_name() == "call") {
                // The inner call of `server.tool(name=...)(function)`: read there.
                return;
            }
            let Some(r) = receiver else { return };
            let (positional, keywords) = arguments(node, src);
            let Some(function) = positional.first().filter(|p| p.kind_name() == "identifier")
            else {
                return;
            };
            if !is_server(r, src, scope) {
                return;
            }
            let name = keyword(&keywords, "name")
                .map(|n| val(n, src, 0))
                .unwrap_or_else(|| Val::Str(text(*function, src).to_string()));
            out.sites.push(Site {
                of_module: false,
                line: at,
                repeated: false,
                extent: node.byte_range(),
                spelled: [false; 4],
                family: Family::Python,
                kind: SiteKind::Tool {
                    name: Some(name),
                    def: annotations_def(at, &keywords, src),
                },
            });
        }
        _ if method.is_empty() => applied_decorator(node, src, scope, out),
        // A tool object made where no registration takes it at once (bound to a
        // name, put in a list): a tool, unless a registration reads the same call.
        "from_function" if is_sdk_class(node, src, scope) => {
            if let Some(def) = from_function(node, src, 0) {
                out.sites.push(Site::new(
                    at,
                    node.byte_range(),
                    Family::Python,
                    SiteKind::Shaped(def),
                ));
            }
        }
        // A low-level server's `Tool(...)` comes from the SDK's `mcp.types`: in a file
        // that imports no MCP module, a `Tool` is another library's (a model of its own).
        "Tool" if scope.imports_mcp => {
            let (_, keywords) = arguments(node, src);
            if keyword(&keywords, "name").is_none() {
                return;
            }
            out.sites.push(Site {
                of_module: false,
                line: at,
                repeated: false,
                extent: node.byte_range(),
                spelled: [false; 4],
                family: Family::Python,
                kind: SiteKind::Tool {
                    name: None,
                    def: val(node, src, 0),
                },
            });
        }
        _ => {}
    }
}

/// Returns true for `super().add_tool(tool)` in a method of the same name: an
/// override passing its argument on, which defines no tool of its own.
fn forwards(call: Node, receiver: Node, src: &[u8]) -> bool {
    if text(receiver, src) != "super()" {
        return false;
    }
    let mut at = call.parent();
    while let Some(p) = at {
        if p.kind_name() == "function_definition" {
            return p.field("name").is_some_and(|n| text(n, src) == "add_tool");
        }
        at = p.parent();
    }
    false
}

/// Translates an expression into a value.
fn val(node: Node, src: &[u8], depth: usize) -> Val {
    if depth > MAX_VALUE_DEPTH {
        return Val::Other;
    }
    match node.kind_name() {
        "string" => {
            if children(node)
                .iter()
                .any(|c| c.kind_name() == "interpolation")
            {
                return Val::Other;
            }
            unquote(text(node, src)).map_or(Val::Other, Val::Str)
        }
        "true" => Val::Bool(true),
        "false" => Val::Bool(false),
        "none" => Val::Null,
        "identifier" => Val::name_ref(text(node, src)),
        "attribute" => dotted(node, src).map_or(Val::Other, Val::Ref),
        "parenthesized_expression" => children(node)
            .into_iter()
            .next()
            .map_or(Val::Other, |inner| val(inner, src, depth + 1)),
        "dictionary" => {
            let mut props = Vec::new();
            for p in children(node) {
                match p.kind_name() {
                    "pair" => {
                        let (Some(k), Some(v)) = (p.field("key"), p.field("value")) else {
                            continue;
                        };
                        match val(k, src, depth + 1) {
                            Val::Str(key) => {
                                props
                                    .push(Prop::Field(canonical_key(&key), val(v, src, depth + 1)));
                            }
                            // A computed key may be any field.
                            _ => return Val::Other,
                        }
                    }
                    "dictionary_splat" => {
                        let inner = children(p).into_iter().next();
                        props.push(Prop::Spread(
                            inner.map_or(Val::Other, |i| val(i, src, depth + 1)),
                        ));
                    }
                    _ => {}
                }
            }
            Val::obj(line(node), props)
        }
        "list" | "tuple" => Val::Arr(
            children(node)
                .into_iter()
                .map(|c| val(c, src, depth + 1))
                .collect(),
        ),
        "call" => {
            if let Some(tool) = from_function(node, src, depth) {
                return tool;
            }
            let Some((_, name)) = node.field("function").and_then(|f| callee(f, src)) else {
                return Val::Other;
            };
            let Some(args) = node.field("arguments") else {
                return Val::Other;
            };
            if !matches!(name.as_str(), "ToolAnnotations" | "Tool" | "dict") {
                return factory_call(node, args, src, depth);
            }
            let mut props = Vec::new();
            for a in children(args) {
                match a.kind_name() {
                    "keyword_argument" => {
                        if let (Some(n), Some(v)) = (a.field("name"), a.field("value")) {
                            props.push(Prop::Field(
                                canonical_key(text(n, src)),
                                val(v, src, depth + 1),
                            ));
                        }
                    }
                    "dictionary_splat" => {
                        let inner = children(a).into_iter().next();
                        props.push(Prop::Spread(
                            inner.map_or(Val::Other, |i| val(i, src, depth + 1)),
                        ));
                    }
                    // A positional argument of a model: not read.
                    _ => return Val::Other,
                }
            }
            Val::obj(line(node), props)
        }
        _ => Val::Other,
    }
}

/// Reads a call of another function as what it returns where the tree defines it
/// as a factory (see [`function`]): positional arguments in order, keyword ones by
/// name. A splat (`*a`, `**k`) leaves it unread.
fn factory_call(node: Node, args: Node, src: &[u8], depth: usize) -> Val {
    let Some(function) = node.field("function").and_then(|f| dotted(f, src)) else {
        return Val::Other;
    };
    let mut read = Vec::new();
    for a in children(args) {
        match a.kind_name() {
            "keyword_argument" => match (a.field("name"), a.field("value")) {
                (Some(n), Some(v)) => read.push(Val::Keyword(
                    text(n, src).to_string(),
                    Box::new(val(v, src, depth + 1)),
                )),
                _ => return Val::Other,
            },
            "list_splat" | "dictionary_splat" | "parenthesized_list_splat" => return Val::Other,
            "comment" => {}
            _ => read.push(val(a, src, depth + 1)),
        }
    }
    Val::Call(Box::new(Val::Ref(function)), read)
}

/// Binds a function defined at the top of a module whose body is a single `return`
/// of one value as a factory of it, its parameters in order with their defaults
/// (`def writes(*, destructive): return ToolAnnotations(destructive_hint=destructive)`);
/// a call binds them (see [`factory_call`]).
fn function(node: Node, src: &[u8], top: &mut Vec<(String, Val)>) {
    if node.parent().is_none_or(|p| p.kind_name() != "module") {
        return;
    }
    let (Some(name), Some(body)) = (node.field("name"), node.field("body")) else {
        return;
    };
    let statements: Vec<Node> = children(body)
        .into_iter()
        .filter(|c| c.kind_name() != "comment")
        .collect();
    let returned = match statements.as_slice() {
        [one] if one.kind_name() == "return_statement" => children(*one).into_iter().next(),
        _ => None,
    };
    let value = match (returned, node.field("parameters")) {
        (Some(value), Some(params)) => {
            Val::Returns(parameters(params, src), Box::new(val(value, src, 0)))
        }
        _ => Val::Other,
    };
    top.push((text(name, src).to_string(), value));
}

/// Returns a `def`'s parameters in order (the `*` and `/` markers left out), each
/// with its default; a splat binds nothing the finder reads.
fn parameters(list: Node, src: &[u8]) -> Vec<Param> {
    let mut out = Vec::new();
    for p in children(list) {
        let (name, default) = match p.kind_name() {
            "identifier" => (text(p, src).to_string(), None),
            "typed_parameter" => (
                children(p)
                    .into_iter()
                    .next()
                    .filter(|n| n.kind_name() == "identifier")
                    .map_or(String::new(), |n| text(n, src).to_string()),
                None,
            ),
            "default_parameter" | "typed_default_parameter" => (
                p.field("name")
                    .map_or(String::new(), |n| text(n, src).to_string()),
                p.field("value").map(|v| val(v, src, 0)),
            ),
            "keyword_separator" | "positional_separator" | "comment" => continue,
            _ => (String::new(), None),
        };
        out.push(Param { name, default });
    }
    out
}

fn dotted(node: Node, src: &[u8]) -> Option<Vec<String>> {
    let mut path = Vec::new();
    let mut cur = node;
    loop {
        match cur.kind_name() {
            "attribute" => {
                path.push(text(cur.field("attribute")?, src).to_string());
                cur = cur.field("object")?;
            }
            "identifier" => {
                path.push(text(cur, src).to_string());
                path.reverse();
                return Some(path);
            }
            _ => return None,
        }
        if path.len() > MAX_VALUE_DEPTH {
            return None;
        }
    }
}
