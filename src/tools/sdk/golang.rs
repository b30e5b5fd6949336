//! Go: the official SDK and mcp-go.
//!
//! - Official SDK: `mcp.AddTool(server, &mcp.Tool{Name: ..., Annotations: &mcp.ToolAnnotations{...}}, h)`
//!   and `server.AddTool(&mcp.Tool{...}, h)`; the tool may be a variable bound to such a
//!   literal. A `Tool` literal of an SDK's `mcp` package with a `Name` is a tool wherever
//!   it stands (a project's own `NewTool(meta, mcp.Tool{...}, h)`, an element of a
//!   `[]mcp.Tool{...}`): one tool, unless a registration reads the same literal. In `ToolAnnotations`, `ReadOnlyHint` and `IdempotentHint` are plain `bool`
//!   with `omitempty`, so `false` is never sent and reads absent; `DestructiveHint` and
//!   `OpenWorldHint` are `*bool` (`jsonschema.Ptr(false)`, `new(bool)`, `&v`).
//! - mcp-go: `mcp.NewTool("name", mcp.WithReadOnlyHintAnnotation(true), ...,
//!   mcp.WithToolAnnotation(mcp.ToolAnnotation{...}))`, called through the name the file
//!   imports mcp-go's package under (a project's own `NewTool` is not it). `NewTool` itself fills all four
//!   hints with the schema's defaults on the wire; the finder reports what the source
//!   declares (docs/method.md, "Tools").
//!
//! Bindings: `var`/`const` specs and `:=`, and functions: one whose body is a single
//! `return` of one pointer (`&v`, `new(v)`) is read as a factory of it, its parameters bound to a call's
//! arguments (`func BoolPtr(b bool) *bool { return &b }` makes `BoolPtr(true)` read
//! `true`, whatever the helper is called); any other is a name the finder does not
//! read. A package-level binding is visible to every file of the same folder (the
//! resolver looks there).

use tree_sitter::Node;

use super::model::Family;
use super::syntax::{children, line, preorder, preorder_skipping, text, unquote, Named};
use super::value::{FileSummary, Import, Param, Prop, Site, SiteKind, Spec, Val, MAX_VALUE_DEPTH};
use super::wrappers;

/// Kinds of node that hold none the walk reads (declarations, calls, literals,
/// imports), so that it passes over them: strings, comments, type declarations and
/// parameter lists, whose types hold no value.
const UNREAD: [&str; 5] = [
    "interpreted_string_literal",
    "raw_string_literal",
    "comment",
    "type_declaration",
    "parameter_list",
];

/// Fills `out` from one parsed file.
pub(crate) fn collect(root: Node, src: &[u8], out: &mut FileSummary) {
    let sdks = &sdk_imports(root, src);
    let own = &own_tool_types(root, src, sdks);
    preorder_skipping(root, &UNREAD, |node| match node.kind_name() {
        "var_spec" | "const_spec" => spec(node, src, out),
        "short_var_declaration" => short(node, src, out),
        "call_expression" => call(node, src, sdks, out),
        "composite_literal" => literal(node, src, sdks, own, out),
        "import_spec" => import(node, src, out),
        "function_declaration" => function(node, src, sdks, out),
        _ => {}
    });
}

/// The names a file calls an SDK's packages by, each with its family: an import's
/// alias, else its path's last element; `.` for a dot import (its names unqualified).
type Sdks = Vec<(String, Family)>;

/// Returns the family whose module an import path is in: the official SDK's
/// (`github.com/modelcontextprotocol/go-sdk/...`) or mcp-go's
/// (`github.com/mark3labs/mcp-go/...`).
fn sdk_of(path: &str) -> Option<Family> {
    if path.contains("modelcontextprotocol/go-sdk/") {
        Some(Family::Go)
    } else if path.contains("mark3labs/mcp-go/") {
        Some(Family::McpGo)
    } else {
        None
    }
}

/// Returns the names the file imports an SDK's packages under (see [`Sdks`]).
fn sdk_imports(root: Node, src: &[u8]) -> Sdks {
    let mut out = Sdks::new();
    for declaration in children(root) {
        if declaration.kind_name() != "import_declaration" {
            continue;
        }
        let mut specs = Vec::new();
        preorder(declaration, |n| {
            if n.kind_name() == "import_spec" {
                specs.push(n);
            }
        });
        for spec in specs {
            let Some(path) = spec.field("path").and_then(|p| unquote(text(p, src))) else {
                continue;
            };
            let Some(family) = sdk_of(&path) else {
                continue;
            };
            let local = match spec.field("name") {
                Some(n) if n.kind_name() == "dot" => ".".to_string(),
                Some(n) if n.kind_name() == "package_identifier" => text(n, src).to_string(),
                Some(_) => continue,
                None => local_name(&path),
            };
            out.push((local, family));
        }
    }
    out
}

/// Returns the family of the SDK package a name is qualified by (`mcp` of
/// `mcp.Tool`), or of a dot import for an unqualified one (`None` for `package`).
fn family_of(sdks: &Sdks, package: Option<&str>) -> Option<Family> {
    let wanted = package.unwrap_or(".");
    sdks.iter().find(|(n, _)| n == wanted).map(|(_, f)| *f)
}

/// Returns the family of the SDK whose `Tool` type `ty` names (`mcp.Tool`, or
/// `Tool` under a dot import); `None` for any other type.
fn sdk_tool(ty: Node, src: &[u8], sdks: &Sdks) -> Option<Family> {
    match ty.kind_name() {
        "qualified_type" => {
            let package = ty.field("package")?;
            let name = ty.field("name")?;
            (text(name, src) == "Tool")
                .then(|| family_of(sdks, Some(text(package, src))))
                .flatten()
        }
        "type_identifier" if text(ty, src) == "Tool" => family_of(sdks, None),
        _ => None,
    }
}

/// Reads a composite literal of an SDK's `Tool` that names its tool (`Name:`) as a
/// tool wherever it stands, and each element of a `[]mcp.Tool{{...}}` or
/// `[]*mcp.Tool{...}` written without its type. A registration that reads the same
/// literal (`AddTool(s, &mcp.Tool{...}, h)`, a variable bound to it) defines the
/// same tool: the resolver keeps one (see `once_each`).
fn literal(node: Node, src: &[u8], sdks: &Sdks, own: &[&str], out: &mut FileSummary) {
    let Some(ty) = node.field("type") else {
        return;
    };
    let Some(body) = node.field("body") else {
        return;
    };
    if let Some(family) = sdk_tool(ty, src, sdks) {
        if !in_wrapper(node, src, sdks) {
            shaped(node, body, src, family, out);
        }
        return;
    }
    if own.contains(&text(ty, src)) {
        let before = out.sites.len();
        shaped(node, body, src, Family::Go, out);
        out.sites[before..]
            .iter_mut()
            .for_each(|s| s.of_module = true);
        return;
    }
    // A slice or an array of tools: its elements' types are left out.
    let element = match ty.kind_name() {
        "slice_type" | "array_type" | "implicit_length_array_type" => ty.field("element"),
        _ => None,
    };
    let element = match element {
        Some(e) if e.kind_name() == "pointer_type" => children(e).into_iter().next(),
        other => other,
    };
    let Some(family) = element.and_then(|e| sdk_tool(e, src, sdks)) else {
        return;
    };
    for item in children(body) {
        let inner = children(item).into_iter().next();
        if let Some(value) = inner.filter(|v| v.kind_name() == "literal_value") {
            shaped(value, value, src, family, out);
        }
    }
}

/// Returns the types of a project's own `Tool` (`api.Tool`, `Tool`: not an SDK's)
/// that the file writes as MCP tools: at least one of its literals with a `Name`
/// holds `Annotations` as a `ToolAnnotations` (or `ToolAnnotation`) literal, as
/// kubernetes-mcp-server's `api.Tool` does before it hands each to mcp-go. Every
/// literal of such a type with a `Name` is then a tool, annotated or not.
fn own_tool_types<'s>(root: Node, src: &'s [u8], sdks: &Sdks) -> Vec<&'s str> {
    let mut own = Vec::new();
    // The annotations' type is spelled in the file, or no type of it is a tool's.
    if memchr::memmem::find(src, b"ToolAnnotation").is_none() {
        return own;
    }
    preorder(root, |node| {
        if node.kind_name() != "composite_literal" {
            return;
        }
        let (Some(ty), Some(body)) = (node.field("type"), node.field("body")) else {
            return;
        };
        let is_own = match ty.kind_name() {
            "qualified_type" | "type_identifier" => {
                type_name(node, src) == "Tool" && sdk_tool(ty, src, sdks).is_none()
            }
            _ => false,
        };
        if !is_own || own.contains(&text(ty, src)) {
            return;
        }
        let annotated = keyed(body, "Annotations", src).is_some_and(|v| {
            let mut found = false;
            preorder(v, |n| {
                found |= n.kind_name() == "composite_literal"
                    && matches!(type_name(n, src), "ToolAnnotations" | "ToolAnnotation");
            });
            found
        });
        if annotated && keyed(body, "Name", src).is_some() {
            own.push(text(ty, src));
        }
    });
    own
}

/// Returns the value a composite literal's fields (`body`) give the field `key`.
fn keyed<'t>(body: Node<'t>, key: &str, src: &[u8]) -> Option<Node<'t>> {
    children(body).into_iter().find_map(|element| {
        let parts = children(element);
        (element.kind_name() == "keyed_element"
            && parts.first().is_some_and(|k| text(*k, src) == key))
        .then(|| parts.get(1).copied())
        .flatten()
    })
}

/// Records one tool literal (`node`, its fields in `body`) when it has a `Name`.
fn shaped(node: Node, body: Node, src: &[u8], family: Family, out: &mut FileSummary) {
    if keyed(body, "Name", src).is_some() {
        out.sites.push(Site::new(
            line(node),
            node.byte_range(),
            family,
            SiteKind::Shaped(fields(body, "Tool", src, 0, line(node))),
        ));
    }
}

/// Binds a function of the package: one whose body is a single `return` of one
/// pointer as what it returns (a pointer helper, a factory of annotations), its
/// parameters' names in order; any other as a name bound to something the finder
/// does not read, so that a call of it is never taken for a library helper of the
/// same name.
fn function(node: Node, src: &[u8], sdks: &Sdks, out: &mut FileSummary) {
    let Some(name) = node.field("name") else {
        return;
    };
    if let Some(tool_name) = wrapper_name(node, src, sdks) {
        let params = node
            .field("parameters")
            .map(|list| parameters(list, src))
            .unwrap_or_default();
        let wrapper = wrappers::binding(line(node), params, &tool_name);
        out.bind(text(name, src), wrapper);
        return;
    }
    let returned = node
        .field("body")
        .and_then(|body| single_return(body, src))
        .map(|value| {
            let params = node
                .field("parameters")
                .map(|list| parameters(list, src))
                .unwrap_or_default();
            Val::Returns(params, Box::new(val(value, src, 0)))
        });
    out.bind(text(name, src), returned.unwrap_or(Val::Other));
}

/// Returns the parameter a tool wrapper of mcp-go names its tool by, when the
/// function is one (see `wrappers`): its parameters end in a variadic of mcp-go's
/// `ToolOption` (`options ...mcp.ToolOption`), and one is a `string`, the one
/// called `name` or `toolName`, else the first.
fn wrapper_name(function: Node, src: &[u8], sdks: &Sdks) -> Option<String> {
    let declarations = children(function.field("parameters")?);
    let last = declarations.last()?;
    let options = last.field("type")?;
    let forwards = last.kind_name() == "variadic_parameter_declaration"
        && options.kind_name() == "qualified_type"
        && options
            .field("name")
            .is_some_and(|n| text(n, src) == "ToolOption")
        && options
            .field("package")
            .is_some_and(|p| family_of(sdks, Some(text(p, src))) == Some(Family::McpGo));
    if !forwards {
        return None;
    }
    let mut strings = Vec::new();
    for declaration in &declarations {
        let is_string = declaration
            .field("type")
            .is_some_and(|t| text(t, src) == "string");
        if declaration.kind_name() != "parameter_declaration" || !is_string {
            continue;
        }
        let mut cursor = declaration.walk();
        strings.extend(
            declaration
                .children_by_field_name("name", &mut cursor)
                .map(|n| text(n, src).to_string()),
        );
    }
    let named = strings
        .iter()
        .find(|n| matches!(n.as_str(), "name" | "toolName"));
    named.or(strings.first()).cloned()
}

/// Returns true when a node stands in a tool wrapper's body: its `Tool` literal
/// is what every call of the wrapper fills, each call a tool of its own.
fn in_wrapper(node: Node, src: &[u8], sdks: &Sdks) -> bool {
    let mut cur = node;
    while let Some(parent) = cur.parent() {
        if parent.kind_name() == "function_declaration" {
            return wrapper_name(parent, src, sdks).is_some();
        }
        cur = parent;
    }
    false
}

/// Returns the one value a body returns when it is its only statement and a
/// pointer to something.
fn single_return<'t>(body: Node<'t>, src: &[u8]) -> Option<Node<'t>> {
    let mut statements = children(body);
    if let [list] = statements.as_slice() {
        if list.kind_name() == "statement_list" {
            statements = children(*list);
        }
    }
    let [statement] = statements.as_slice() else {
        return None;
    };
    if statement.kind_name() != "return_statement" {
        return None;
    }
    let values: Vec<Node> = children(*statement)
        .into_iter()
        .flat_map(|c| match c.kind_name() {
            "expression_list" => children(c),
            _ => vec![c],
        })
        .collect();
    // A pointer (`&v`, `new(v)`): what the skim keeps of a body (see `skim`).
    match values.as_slice() {
        [one] if one.kind_name() == "unary_expression" && text(*one, src).starts_with('&') => {
            Some(*one)
        }
        [one]
            if one.kind_name() == "call_expression"
                && one.field("function").is_some_and(|f| text(f, src) == "new") =>
        {
            Some(*one)
        }
        _ => None,
    }
}

/// Returns a parameter list's names in order: one per name of `a, b bool`; a
/// variadic or unnamed parameter binds nothing the finder reads.
fn parameters(list: Node, src: &[u8]) -> Vec<Param> {
    let mut out = Vec::new();
    for declaration in children(list) {
        let mut cursor = declaration.walk();
        let names: Vec<Node> = declaration
            .children_by_field_name("name", &mut cursor)
            .collect();
        let named = declaration.kind_name() == "parameter_declaration" && !names.is_empty();
        match named {
            true => out.extend(names.iter().map(|n| Param {
                name: text(*n, src).to_string(),
                default: None,
            })),
            false => out.push(Param {
                name: String::new(),
                default: None,
            }),
        }
    }
    out
}

/// Records `import "mod/path/pkg"` (or `alias "..."`) under the name the file uses
/// for the package: the alias, else the path's last element (the one before a
/// major version's `/v2`). Whether the tree holds the package is the resolver's
/// question (see `packages`).
fn import(node: Node, src: &[u8], out: &mut FileSummary) {
    let Some(path) = node.field("path").and_then(|p| unquote(text(p, src))) else {
        return;
    };
    let local = match node.field("name") {
        Some(n) if n.kind_name() == "package_identifier" => text(n, src).to_string(),
        // `import _ "..."`, run for its `init` (a toolset registering itself): a
        // link between the files all the same, under a name nothing reads.
        Some(n) if n.kind_name() == "blank_identifier" => "_".to_string(),
        Some(_) => return,
        None => local_name(&path),
    };
    out.import(
        &local,
        Import {
            rel: Spec::Package(path),
            name: None,
        },
    );
}

/// Returns the name a package is used by when imported without an alias: its
/// path's last element, or the one before a major version's `/v2`.
fn local_name(path: &str) -> String {
    let mut parts = path.rsplit('/');
    let last = parts.next().unwrap_or(path);
    let major =
        last.len() > 1 && last.starts_with('v') && last[1..].bytes().all(|b| b.is_ascii_digit());
    match (major, parts.next()) {
        (true, Some(before)) => before.to_string(),
        _ => last.to_string(),
    }
}

fn spec(node: Node, src: &[u8], out: &mut FileSummary) {
    let mut cursor = node.walk();
    let names: Vec<Node> = node.children_by_field_name("name", &mut cursor).collect();
    let values = node.field("value").map(children).unwrap_or_default();
    if names.len() == values.len() {
        for (n, v) in names.iter().zip(&values) {
            out.bind(text(*n, src), val(*v, src, 0));
        }
    }
}

fn short(node: Node, src: &[u8], out: &mut FileSummary) {
    let (Some(left), Some(right)) = (node.field("left"), node.field("right")) else {
        return;
    };
    let names = children(left);
    let values = children(right);
    if names.len() == values.len() {
        for (n, v) in names.iter().zip(&values) {
            if n.kind_name() == "identifier" {
                out.bind(text(*n, src), val(*v, src, 0));
            }
        }
    }
}

/// Returns the last name of a call's function (`AddTool` of `mcp.AddTool`).
fn function_name<'a>(call: Node, src: &'a [u8]) -> Option<&'a str> {
    let f = call.field("function")?;
    match f.kind_name() {
        "selector_expression" => Some(text(f.field("field")?, src)),
        "identifier" => Some(text(f, src)),
        _ => None,
    }
}

/// Returns the package or value a call's function is selected from (`mcp` of
/// `mcp.NewTool`); `None` for a plain name.
fn qualifier<'a>(call: Node, src: &'a [u8]) -> Option<&'a str> {
    let f = call.field("function")?;
    match f.kind_name() {
        "selector_expression" => Some(text(f.field("operand")?, src)),
        _ => None,
    }
}

fn call(node: Node, src: &[u8], sdks: &Sdks, out: &mut FileSummary) {
    let Some(name) = function_name(node, src) else {
        return;
    };
    let Some(args) = node.field("arguments") else {
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
            let literal = if tool.kind_name() == "unary_expression" {
                tool.field("operand").unwrap_or(tool)
            } else {
                tool
            };
            if literal.kind_name() == "composite_literal" && is_tool_type(literal, src) {
                // mcp-go's `AddTool(mcp.Tool{...}, h)` takes its own `Tool`.
                let family = literal
                    .field("type")
                    .and_then(|ty| sdk_tool(ty, src, sdks))
                    .unwrap_or(Family::Go);
                out.sites.push(Site {
                    of_module: false,
                    line: at,
                    repeated: false,
                    extent: node.byte_range(),
                    spelled: [false; 4],
                    family,
                    kind: SiteKind::Tool {
                        name: None,
                        def: val(literal, src, 0),
                    },
                });
            } else if literal.kind_name() == "identifier" {
                // A variable: a tool only when it is bound to a `Tool` literal (an
                // mcp-go `NewTool` result is found at the `NewTool` call).
                out.sites.push(Site {
                    of_module: false,
                    line: at,
                    repeated: false,
                    extent: node.byte_range(),
                    spelled: [false; 4],
                    family: Family::Go,
                    kind: SiteKind::List {
                        items: Val::Arr(vec![val(literal, src, 0)]),
                        strict: true,
                    },
                });
            }
        }
        // mcp-go's, not a project's own `NewTool(meta, mcp.Tool{...}, h)`.
        "NewTool" | "NewToolWithRawSchema"
            if !args.is_empty() && family_of(sdks, qualifier(node, src)) == Some(Family::McpGo) =>
        {
            let annotations = option_annotations(&args[1..], src);
            let props = if annotations.is_empty() {
                Vec::new()
            } else {
                vec![Prop::Field(
                    "annotations".to_string(),
                    Val::obj(at, annotations),
                )]
            };
            out.sites.push(Site {
                of_module: false,
                line: at,
                repeated: false,
                extent: node.byte_range(),
                spelled: [false; 4],
                family: Family::McpGo,
                kind: SiteKind::Tool {
                    name: Some(val(args[0], src, 0)),
                    def: Val::obj(at, props),
                },
            });
        }
        _ => wrapper_call(node, src, sdks, &args, out),
    }
}

/// Returns the hints mcp-go's options among `options` set, as fields named as the
/// schema names them (`mcp.WithReadOnlyHintAnnotation(true)`), and
/// `mcp.WithToolAnnotation(...)` as a spread.
fn option_annotations(options: &[Node], src: &[u8]) -> Vec<Prop> {
    let mut annotations = Vec::new();
    for option in options {
        if option.kind_name() != "call_expression" {
            continue;
        }
        let Some(option_name) = function_name(*option, src) else {
            continue;
        };
        let option_args = option.field("arguments").map(children).unwrap_or_default();
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
    annotations
}

/// Records a call of a function of the tree that passes one of mcp-go's
/// annotation options (`mcp.WithTitleAnnotation(...)`, `mcp.WithReadOnlyHintAnnotation(...)`)
/// as a tool, when the function turns out to be a tool wrapper (see `wrappers`).
fn wrapper_call(node: Node, src: &[u8], sdks: &Sdks, args: &[Node], out: &mut FileSummary) {
    let passes_options = args.iter().any(|a| {
        a.kind_name() == "call_expression"
            && function_name(*a, src)
                .is_some_and(|n| n.starts_with("With") && n.ends_with("Annotation"))
            && family_of(sdks, qualifier(*a, src)) == Some(Family::McpGo)
    });
    let function = node.field("function");
    let Some(function) = function.filter(|f| {
        passes_options && matches!(f.kind_name(), "identifier" | "selector_expression")
    }) else {
        return;
    };
    let at = line(node);
    let read = args.iter().map(|a| val(*a, src, 0)).collect();
    let def = wrappers::call(
        val(function, src, 0),
        read,
        at,
        option_annotations(args, src),
    );
    out.sites.push(Site::new(
        at,
        node.byte_range(),
        Family::McpGo,
        SiteKind::Wrapped(def),
    ));
}

fn type_name<'a>(literal: Node, src: &'a [u8]) -> &'a str {
    let ty = literal.field("type").map_or("", |t| text(t, src));
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
    match node.kind_name() {
        "interpreted_string_literal" | "raw_string_literal" => {
            unquote(text(node, src)).map_or(Val::Other, Val::Str)
        }
        "true" => Val::Bool(true),
        "false" => Val::Bool(false),
        "nil" => Val::Null,
        "identifier" => Val::name_ref(text(node, src)),
        // `pkg.Name`: a binding of an imported package (or a field of a value).
        "selector_expression" => match (node.field("operand"), node.field("field")) {
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
            node.field("operator").map(|o| text(o, src)),
            node.field("operand"),
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
/// operand, a conversion `string(x)` as `x`, and another call as what the called function returns where the tree
/// defines it (see [`function`]). A one-argument call of a function the tree does
/// not define whose name holds `ptr` or `bool` (a library's pointer helper,
/// `jsonschema.Ptr(true)`, `mcp.ToBoolPtr(false)`) reads as its argument.
fn pointer_helper(node: Node, src: &[u8], depth: usize) -> Val {
    let Some(name) = function_name(node, src) else {
        return Val::Other;
    };
    let args = node.field("arguments").map(children).unwrap_or_default();
    // A conversion to `string` (`string(MethodSearch)`, a typed constant's value):
    // its operand, as a name is read.
    if name == "string" && args.len() == 1 && qualifier(node, src).is_none() {
        return val(args[0], src, depth + 1);
    }
    if name == "new" {
        return match args.first() {
            Some(a) if text(*a, src) == "bool" => Val::Bool(false),
            // The grammar may read a literal there as a type's name.
            Some(a) if args.len() == 1 && matches!(text(*a, src), "true" | "false") => {
                Val::Bool(text(*a, src) == "true")
            }
            // A name may be read as a type's (`new(b)` in a helper's body).
            Some(a) if args.len() == 1 && a.kind_name() == "type_identifier" => {
                Val::name_ref(text(*a, src))
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
    let Some(function) = node
        .field("function")
        .map(|f| val(f, src, depth + 1))
        .filter(|f| matches!(f, Val::Ref(_)))
    else {
        return Val::Other;
    };
    let read: Vec<Val> = args.iter().map(|a| val(*a, src, depth + 1)).collect();
    // `ptr.To(true)` (k8s.io/utils/ptr): the package's name says it too.
    let lower = match qualifier(node, src) {
        Some(package) => format!("{package}.{name}").to_ascii_lowercase(),
        None => name.to_ascii_lowercase(),
    };
    let library = match read.as_slice() {
        [v @ (Val::Bool(_) | Val::Ref(_))] if lower.contains("ptr") || lower.contains("bool") => {
            Some(v.clone())
        }
        _ => None,
    };
    let call = Val::Call(Box::new(function), read);
    match library {
        Some(arg) => Val::Helper(Box::new(call), Box::new(arg)),
        None => call,
    }
}

fn composite(node: Node, src: &[u8], depth: usize) -> Val {
    match node.field("body") {
        Some(body) => fields(body, type_name(node, src), src, depth, line(node)),
        None => Val::Other,
    }
}

/// Reads a literal's keyed elements (`body`, a `literal_value`) as an object of
/// type `ty` (its last name) at `at`.
fn fields(body: Node, ty: &str, src: &[u8], depth: usize, at: u32) -> Val {
    // The official SDK's `ToolAnnotations`: two plain bools the JSON encoder drops when false.
    let omits_false = ty == "ToolAnnotations";
    let mut props = Vec::new();
    for element in children(body) {
        if element.kind_name() != "keyed_element" {
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
        // A description's text is never read, only that it is a string: the parse
        // may leave it out (`Lexed::texts`).
        let is_string = |n: Node| {
            matches!(
                n.kind_name(),
                "interpreted_string_literal" | "raw_string_literal"
            )
        };
        let text = match v.kind_name() {
            "literal_element" => children(*v).first().is_some_and(|inner| is_string(*inner)),
            _ => is_string(*v),
        };
        let mut value = match key == "Description" && text {
            true => Val::Str(String::new()),
            false => val(*v, src, depth + 1),
        };
        // A pointer helper's value is a project's own `*bool` field: sent as written.
        let is_pointer = matches!(value, Val::Helper(..) | Val::Call(..));
        if omits_false && !is_pointer && matches!(key, "readOnlyHint" | "idempotentHint") {
            value = Val::OmitFalse(Box::new(value));
        }
        props.push(Prop::Field(key.to_string(), value));
    }
    Val::obj(at, props)
}
