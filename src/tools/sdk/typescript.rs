//! The TypeScript SDK's registrations, in TypeScript and in the JavaScript npm
//! packages ship (ES modules and CommonJS as `tsc` emits them):
//!
//! - `server.registerTool(name, { annotations: {...}, ... }, cb)`, and
//!   `server.experimental.tasks.registerToolTask(...)` of the same shape;
//! - `server.tool(name, description?, paramsSchema?, annotations?, cb)` (the 1.x
//!   overloads: with one object between name and callback, it is the annotations
//!   when it sets a hint or a title, as the SDK tells a schema from annotations);
//! - `server.addTool({ name, annotations, ... })` (FastMCP for TypeScript), or a
//!   constant or a factory call giving that object;
//! - `server.setRequestHandler(ListToolsRequestSchema, ...)` answering `{ tools: [...] }`:
//!   each element of the list is a tool;
//! - a tool-shaped object literal passed to any other call (a project's own
//!   `defineTool({...})`): a `name` beside an `annotations` object holding a hint
//!   key, or beside a schema (`inputSchema`, `schema`, `parameters`) and a handler;
//! - a class with a literal `name` field (or a static `toolName`) and something to
//!   run or a schema (`execute`, `handler`, `run`, `schema`, `inputSchema`,
//!   `argsShape`, `parameters`, `annotations`), extending a class whose name holds
//!   `Tool` (mcp-framework's `MCPTool`, a project's own base): its `annotations`
//!   field, or the base class's when the tree holds it.
//!
//! Bindings: `const`/`let`/`var` declarators, CommonJS `exports.NAME = ...`,
//! functions that return an object literal (factories, read one level) and classes;
//! imports: `import`, `export ... from` and `require` of relative modules, and
//! modules imported for their effect alone.

use tree_sitter::Node;

use super::keys;
use super::model::Family;
use super::packages::spec_of;
use super::syntax::{children, descendants, line, preorder, text, unquote};
use super::value::{
    FileSummary, Import, Param, Pattern, Prop, Site, SiteKind, Spec, Val, MAX_VALUE_DEPTH,
};

/// At most this many nodes of a `tools/list` handler are searched for its answer.
const HANDLER_BUDGET: usize = 200_000;

/// Fills `out` from one parsed file.
pub(crate) fn collect(root: Node, src: &[u8], out: &mut FileSummary) {
    let mut top = Vec::new();
    let mut nested = Vec::new();
    let mut namespaces = Vec::new();
    preorder(root, |node| match node.kind() {
        "variable_declarator" => declarator(node, src, out, &mut top, &mut nested),
        "assignment_expression" => commonjs_export(node, src, &mut top),
        "import_statement" => import(node, src, out),
        "export_statement" => reexport(node, src, out),
        "call_expression" => {
            call(node, src, out);
            compiled_export(node, src, out, &mut top, &mut namespaces);
        }
        "expression_statement" => bare_require(node, src, out),
        "function_declaration" => function(node, src, &mut top),
        "class_declaration" | "abstract_class_declaration" | "class" => {
            class(node, src, out, &mut top)
        }
        _ => {}
    });
    // A bundler's namespace object is declared empty and filled by its helper: the
    // helper's fields are its value.
    top.retain(|(name, _)| !namespaces.iter().any(|(n, _)| n == name));
    top.extend(namespaces);
    // A name bound at the top of the file is read at that value; a name bound only
    // inside functions is read when it is bound once.
    for (name, val) in &top {
        out.bind(name, val.clone());
    }
    for (name, val) in nested {
        if !top.iter().any(|(n, _)| *n == name) {
            out.bind(&name, val);
        }
    }
}

fn is_top_level(declarator: Node) -> bool {
    let Some(decl) = declarator.parent() else {
        return false;
    };
    match decl.parent() {
        Some(p) if p.kind() == "program" => true,
        Some(p) if p.kind() == "export_statement" => {
            p.parent().is_some_and(|g| g.kind() == "program")
        }
        _ => false,
    }
}

fn declarator(
    node: Node,
    src: &[u8],
    out: &mut FileSummary,
    top: &mut Vec<(String, Val)>,
    nested: &mut Vec<(String, Val)>,
) {
    let (Some(name), Some(value)) = (
        node.child_by_field_name("name"),
        node.child_by_field_name("value"),
    ) else {
        return;
    };
    if let Some(rel) = require_of(value, src) {
        match name.kind() {
            "identifier" => out.import(text(name, src), Import { rel, name: None }),
            "object_pattern" => destructured_imports(name, src, &rel, out),
            _ => {}
        }
        return;
    }
    if name.kind() != "identifier" {
        return;
    }
    let entry = (text(name, src).to_string(), val(value, src, 0));
    if is_top_level(node) {
        top.push(entry);
    } else {
        nested.push(entry);
    }
}

/// Returns the module of `require("./x")` or `require("pkg")`, also as the
/// interop helpers of compilers wrap it (`__importStar(require("./x"))`,
/// `__importDefault(...)`, esbuild's `__toESM(...)`, under any name).
fn require_of(value: Node, src: &[u8]) -> Option<Spec> {
    if value.kind() != "call_expression" {
        return None;
    }
    let function = value.child_by_field_name("function")?;
    let args = children(value.child_by_field_name("arguments")?);
    let first = args.first().copied()?;
    if text(function, src) != "require" {
        return match (args.len(), first.kind()) {
            (1 | 2, "call_expression")
                if first
                    .child_by_field_name("function")
                    .is_some_and(|f| text(f, src) == "require") =>
            {
                require_of(first, src)
            }
            _ => None,
        };
    }
    module_spec(first, src)
}

fn destructured_imports(pattern: Node, src: &[u8], rel: &Spec, out: &mut FileSummary) {
    for p in children(pattern) {
        match p.kind() {
            "shorthand_property_identifier_pattern" => {
                let n = text(p, src);
                out.import(
                    n,
                    Import {
                        rel: rel.clone(),
                        name: Some(n.to_string()),
                    },
                );
            }
            "pair_pattern" => {
                if let (Some(k), Some(v)) =
                    (p.child_by_field_name("key"), p.child_by_field_name("value"))
                {
                    if v.kind() == "identifier" {
                        out.import(
                            text(v, src),
                            Import {
                                rel: rel.clone(),
                                name: Some(text(k, src).to_string()),
                            },
                        );
                    }
                }
            }
            _ => {}
        }
    }
}

/// Returns the module a string node names: relative (`./x`), or by package
/// (`@acme/core`, `@/lib/x`; see `packages`).
fn module_spec(node: Node, src: &[u8]) -> Option<Spec> {
    if node.kind() != "string" {
        return None;
    }
    let spec = unquote(text(node, src))?;
    (!spec.is_empty()).then(|| spec_of(&spec))
}

/// Reads `exports.NAME = value` and `module.exports.NAME = value` (not `void 0`).
fn commonjs_export(node: Node, src: &[u8], top: &mut Vec<(String, Val)>) {
    let (Some(left), Some(right)) = (
        node.child_by_field_name("left"),
        node.child_by_field_name("right"),
    ) else {
        return;
    };
    // `exports.a = exports.b = void 0` declares; the inner assignment is read apart.
    if left.kind() != "member_expression"
        || text(right, src).starts_with("void")
        || right.kind() == "assignment_expression"
    {
        return;
    }
    let (Some(object), Some(property)) = (
        left.child_by_field_name("object"),
        left.child_by_field_name("property"),
    ) else {
        return;
    };
    // `exports.f = f` exports a function or constant the file binds already.
    if matches!(text(object, src), "exports" | "module.exports")
        && text(right, src) != text(property, src)
    {
        top.push((text(property, src).to_string(), val(right, src, 0)));
    }
}

/// Reads the exports compilers write as calls: `Object.defineProperty(exports,
/// "x", { get: function () { return m.x; } })` (`tsc`'s re-export), the star
/// re-export `__exportStar(require("./x"), exports)`, and a bundler's namespace
/// object filled by its helper (esbuild's `__export(ns, { x: () => x })`, webpack's
/// `__webpack_require__.d(...)`, under any name): `ns` is an object of those fields.
fn compiled_export(
    node: Node,
    src: &[u8],
    out: &mut FileSummary,
    top: &mut Vec<(String, Val)>,
    namespaces: &mut Vec<(String, Val)>,
) {
    let (Some(function), Some(args)) = (
        node.child_by_field_name("function"),
        node.child_by_field_name("arguments"),
    ) else {
        return;
    };
    let args = children(args);
    let callee = text(function, src);
    match args.as_slice() {
        [target, key, descriptor]
            if callee == "Object.defineProperty"
                && matches!(text(*target, src), "exports" | "module.exports") =>
        {
            let Some(key) = unquote(text(*key, src)) else {
                return;
            };
            if let Some(value) = getter(*descriptor, src) {
                top.push((key, value));
            }
        }
        [module, target] if callee.ends_with("__exportStar") && text(*target, src) == "exports" => {
            if let Some(Spec::Relative(rel)) = require_of(*module, src) {
                out.star_exports.push(rel);
            }
        }
        [target, fields] if target.kind() == "identifier" && fields.kind() == "object" => {
            let mut props = Vec::new();
            for pair in children(*fields) {
                let (Some(k), Some(getter)) = (
                    pair.child_by_field_name("key"),
                    pair.child_by_field_name("value"),
                ) else {
                    return;
                };
                match (getter.kind(), getter.child_by_field_name("body")) {
                    ("arrow_function", Some(body))
                        if getter.child_by_field_name("parameter").is_none()
                            && getter
                                .child_by_field_name("parameters")
                                .is_some_and(|p| children(p).is_empty())
                            && matches!(body.kind(), "identifier" | "member_expression") =>
                    {
                        let key = unquote(text(k, src)).unwrap_or_else(|| text(k, src).to_string());
                        props.push(Prop::Field(key, val(body, src, 1)));
                    }
                    _ => return,
                }
            }
            if !props.is_empty() {
                namespaces.push((text(*target, src).to_string(), Val::obj(line(node), props)));
            }
        }
        _ => {}
    }
}

/// Returns the value a property descriptor gives: its `value`, or what its `get`
/// function returns.
fn getter(descriptor: Node, src: &[u8]) -> Option<Val> {
    if descriptor.kind() != "object" {
        return None;
    }
    for p in children(descriptor) {
        let key = p
            .child_by_field_name("key")
            .or_else(|| p.child_by_field_name("name"))
            .map(|k| text(k, src));
        match (p.kind(), key) {
            ("pair", Some("value")) => return Some(val(p.child_by_field_name("value")?, src, 1)),
            ("pair", Some("get")) => {
                return returned_expression(p.child_by_field_name("value")?, src)
            }
            ("method_definition", Some("get")) => return returned_expression(p, src),
            _ => {}
        }
    }
    None
}

/// Returns what a function returns, read as a value: its expression body, or the
/// last `return` of its block.
fn returned_expression(function: Node, src: &[u8]) -> Option<Val> {
    let body = function.child_by_field_name("body")?;
    let value = match body.kind() {
        "statement_block" => {
            let last = children(body)
                .into_iter()
                .rev()
                .find(|c| c.kind() == "return_statement")?;
            children(last).into_iter().next()?
        }
        _ => body,
    };
    Some(val(value, src, 1))
}

fn import(node: Node, src: &[u8], out: &mut FileSummary) {
    let Some(rel) = node
        .child_by_field_name("source")
        .and_then(|s| module_spec(s, src))
    else {
        return;
    };
    let Some(clause) = children(node)
        .into_iter()
        .find(|c| c.kind() == "import_clause")
    else {
        // `import "./tools.js"`: for its effect alone.
        if let Spec::Relative(rel) = rel {
            out.reach(rel);
        }
        return;
    };
    for part in children(clause) {
        match part.kind() {
            // A default import: the module's `default` binding.
            "identifier" => out.import(
                text(part, src),
                Import {
                    rel: rel.clone(),
                    name: Some("default".to_string()),
                },
            ),
            "namespace_import" => {
                if let Some(id) = children(part)
                    .into_iter()
                    .find(|c| c.kind() == "identifier")
                {
                    out.import(
                        text(id, src),
                        Import {
                            rel: rel.clone(),
                            name: None,
                        },
                    );
                }
            }
            "named_imports" => {
                for spec in children(part) {
                    specifier(spec, src, &rel, out);
                }
            }
            _ => {}
        }
    }
}

/// Records `{ name as alias }` of an import or re-export.
fn specifier(spec: Node, src: &[u8], rel: &Spec, out: &mut FileSummary) {
    let Some(name) = spec.child_by_field_name("name") else {
        return;
    };
    let local = spec.child_by_field_name("alias").unwrap_or(name);
    let imported = unquote(text(name, src)).unwrap_or_else(|| text(name, src).to_string());
    out.import(
        text(local, src),
        Import {
            rel: rel.clone(),
            name: Some(imported),
        },
    );
}

fn reexport(node: Node, src: &[u8], out: &mut FileSummary) {
    let Some(rel) = node
        .child_by_field_name("source")
        .and_then(|s| module_spec(s, src))
    else {
        // `export default X`: the module's `default` binding.
        if let Some(value) = node.child_by_field_name("value") {
            out.bind("default", val(value, src, 0));
        }
        return;
    };
    let parts = children(node);
    let mut any = false;
    for part in &parts {
        match part.kind() {
            "export_clause" => {
                any = true;
                for spec in children(*part) {
                    specifier(spec, src, &rel, out);
                }
            }
            "namespace_export" => {
                any = true;
                if let Some(id) = children(*part).first() {
                    out.import(
                        text(*id, src),
                        Import {
                            rel: rel.clone(),
                            name: None,
                        },
                    );
                }
            }
            _ => {}
        }
    }
    if let (false, Spec::Relative(rel)) = (any, rel) {
        out.star_exports.push(rel);
    }
}

fn call(node: Node, src: &[u8], out: &mut FileSummary) {
    let Some(function) = node.child_by_field_name("function") else {
        return;
    };
    let Some(args) = node.child_by_field_name("arguments") else {
        return;
    };
    let args = children(args);
    if function.kind() != "member_expression" {
        keyed(node, function, &args, src, out);
        return tool_shaped(&args, src, out);
    }
    let Some(method) = function.child_by_field_name("property") else {
        return;
    };
    let at = line(node);
    // A registration in a loop or a per-element callback is read once per element.
    let each = each(node, src);
    // Its own bytes, from the method's name: a chain before it may hold others'.
    let extent = method.start_byte()..node.end_byte();
    let site = |kind| Site {
        line: at,
        repeated: false,
        extent: extent.clone(),
        spelled: [false; 4],
        family: Family::TypeScript,
        kind: match each.clone() {
            Some((items, pattern)) => SiteKind::Each {
                items,
                pattern,
                site: Box::new(kind),
            },
            None => kind,
        },
    };
    match text(method, src) {
        // `registerToolTask` is the experimental tasks API's `registerTool`.
        "registerTool" | "registerToolTask" if args.len() >= 2 && is_name(args[0], src) => {
            out.sites.push(site(SiteKind::Tool {
                name: Some(val(args[0], src, 0)),
                def: val(args[1], src, 0),
            }));
        }
        "tool" if args.len() >= 2 && is_name(args[0], src) => {
            let middle = &args[1..args.len() - 1];
            let props = match middle.is_empty() {
                true => Vec::new(),
                false => vec![Prop::Field(
                    "annotations".to_string(),
                    Val::ToolArgs(middle.iter().map(|a| tool_arg(*a, src)).collect()),
                )],
            };
            out.sites.push(site(SiteKind::Tool {
                name: Some(val(args[0], src, 0)),
                def: Val::obj(at, props),
            }));
        }
        "addTool" if args.len() == 1 && is_definition(args[0]) => {
            out.sites.push(site(SiteKind::Tool {
                name: None,
                def: val(args[0], src, 0),
            }));
        }
        "setRequestHandler"
            if args.len() >= 2 && text(args[0], src).contains("ListToolsRequestSchema") =>
        {
            for value in answers(args[1], src) {
                out.sites.push(Site::new(
                    at,
                    node.byte_range(),
                    Family::TypeScript,
                    SiteKind::List {
                        items: val(value, src, 0),
                        strict: false,
                    },
                ));
            }
        }
        _ => tool_shaped(&args, src, out),
    }
}

/// Reads a middle argument of a 1.x `tool(...)` call: `<value>.shape`, a Zod object's
/// shape, is marked as such ([`Val::Shape`]), which the SDK's overloads read as the
/// parameters; anything else is its value.
fn tool_arg(node: Node, src: &[u8]) -> Val {
    let is_shape = node.kind() == "member_expression"
        && node
            .child_by_field_name("property")
            .is_some_and(|p| text(p, src) == "shape");
    match is_shape {
        true => Val::Shape(Box::new(val(node, src, 0))),
        false => val(node, src, 0),
    }
}

/// How far up from a registration its loop is looked for.
const LOOP_DEPTH: usize = 16;

/// Returns what a registration runs over when it stands in the body of a `for ...
/// of` loop or of a function passed to `forEach`, `map` or `flatMap`, with the
/// names the loop's variable binds (see [`SiteKind::Each`]); `None` elsewhere, and
/// at a function between the two (a function the loop calls is not followed).
fn each(call: Node, src: &[u8]) -> Option<(Val, Pattern)> {
    let mut cur = call;
    for _ in 0..LOOP_DEPTH {
        let parent = cur.parent()?;
        match parent.kind() {
            "for_in_statement" => {
                let of = parent
                    .child_by_field_name("operator")
                    .is_some_and(|o| text(o, src) == "of");
                if !of || parent.child_by_field_name("body") != Some(cur) {
                    return None;
                }
                let mut pattern = pattern(parent.child_by_field_name("left")?, src)?;
                aliases(parent.child_by_field_name("body")?, src, &mut pattern);
                return Some((val(parent.child_by_field_name("right")?, src, 0), pattern));
            }
            "arrow_function" | "function_expression" | "function" => {
                let args = parent.parent().filter(|a| a.kind() == "arguments")?;
                let caller = args.parent().filter(|c| c.kind() == "call_expression")?;
                let method = caller.child_by_field_name("function")?;
                let property = method.child_by_field_name("property")?;
                if !matches!(text(property, src), "forEach" | "map" | "flatMap")
                    || children(args).first() != Some(&parent)
                {
                    return None;
                }
                let first = match parent.child_by_field_name("parameter") {
                    Some(p) => p,
                    None => *children(parent.child_by_field_name("parameters")?).first()?,
                };
                let first = match first.kind() {
                    "required_parameter" | "optional_parameter" => {
                        first.child_by_field_name("pattern")?
                    }
                    _ => first,
                };
                let items = val(method.child_by_field_name("object")?, src, 0);
                let mut pattern = pattern(first, src)?;
                if let Some(body) = parent.child_by_field_name("body") {
                    aliases(body, src, &mut pattern);
                }
                return Some((items, pattern));
            }
            "function_declaration" | "method_definition" | "class_body" | "program" => return None,
            _ => cur = parent,
        }
    }
    None
}

/// Adds to `pattern` the constants a loop's body binds, at its top, to a field of
/// the element (`const annotations = (tool as T).annotations;`): each stands for
/// the element's field at its path.
fn aliases(body: Node, src: &[u8], pattern: &mut Pattern) {
    if body.kind() != "statement_block" {
        return;
    }
    for statement in children(body) {
        let is_const = statement.kind() == "lexical_declaration"
            && statement.child(0).is_some_and(|k| text(k, src) == "const");
        if !is_const {
            continue;
        }
        for declarator in children(statement) {
            let (Some(name), Some(value)) = (
                declarator.child_by_field_name("name"),
                declarator.child_by_field_name("value"),
            ) else {
                continue;
            };
            let Val::Ref(path) = val(value, src, 0) else {
                continue;
            };
            let Some((_, at)) = pattern.iter().find(|(n, _)| *n == path[0]) else {
                continue;
            };
            let mut fields = at.clone();
            fields.extend(path[1..].iter().cloned());
            if name.kind() == "identifier" {
                pattern.push((text(name, src).to_string(), fields));
            }
        }
    }
}

/// Returns the names a loop's variable binds, each with its path in the element:
/// `t` the element, `[key, t]` a pair's two parts, `{ name, annotations: a }` its
/// fields.
fn pattern(node: Node, src: &[u8]) -> Option<Pattern> {
    match node.kind() {
        "identifier" => Some(vec![(text(node, src).to_string(), Vec::new())]),
        "array_pattern" => Some(
            children(node)
                .into_iter()
                .enumerate()
                .filter(|(_, n)| n.kind() == "identifier")
                .map(|(i, n)| (text(n, src).to_string(), vec![i.to_string()]))
                .collect(),
        ),
        "object_pattern" => {
            let mut names = Vec::new();
            for p in children(node) {
                match p.kind() {
                    "shorthand_property_identifier_pattern" => {
                        let n = text(p, src).to_string();
                        names.push((n.clone(), vec![n]));
                    }
                    "pair_pattern" => {
                        let (Some(k), Some(v)) =
                            (p.child_by_field_name("key"), p.child_by_field_name("value"))
                        else {
                            continue;
                        };
                        if v.kind() == "identifier" {
                            names.push((text(v, src).to_string(), vec![text(k, src).to_string()]));
                        }
                    }
                    _ => {}
                }
            }
            Some(names)
        }
        _ => None,
    }
}

/// Returns true for an argument that can give a tool object: a literal, a name, or
/// a call of a factory.
fn is_definition(node: Node) -> bool {
    matches!(
        node.kind(),
        "object" | "identifier" | "member_expression" | "call_expression"
    )
}

/// Records each tool-shaped object literal among a call's arguments as a
/// definition (see the module's documentation).
fn tool_shaped(args: &[Node], src: &[u8], out: &mut FileSummary) {
    for arg in args.iter().filter_map(|a| object_given(*a)) {
        let Val::Obj { props, .. } = val(arg, src, 0) else {
            continue;
        };
        let field = |key: &str| {
            props.iter().find_map(|p| match p {
                Prop::Field(k, v) if k == key => Some(v),
                _ => None,
            })
        };
        let hinted = matches!(field(keys::ANNOTATIONS), Some(Val::Obj { props, .. })
            if props.iter().any(|p| matches!(p, Prop::Field(k, _) if super::value::hint_of_key(k).is_some())));
        let schema = keys::SCHEMA.iter().any(|k| field(k).is_some());
        let handler = keys::HANDLER.iter().any(|k| field(k).is_some());
        if field(keys::NAME).is_some() && (hinted || (schema && handler)) {
            out.sites.push(Site::new(
                line(arg),
                arg.byte_range(),
                Family::TypeScript,
                SiteKind::Shaped(Val::obj(line(arg), props)),
            ));
        }
    }
}

/// Records `key: f({...})`, a call of a named function of one object literal
/// without a `name`, the value of an object's key (supabase-mcp's
/// `list_projects: tool({ ...defs.list_projects, execute })`): the resolver reads
/// it as a tool named `key` when `f` gives its argument back (see `keyed`).
fn keyed(node: Node, function: Node, args: &[Node], src: &[u8], out: &mut FileSummary) {
    let [arg] = args else {
        return;
    };
    let Some(pair) = node.parent().filter(|p| p.kind() == "pair") else {
        return;
    };
    let Some(key) = pair
        .child_by_field_name("key")
        .and_then(|k| match k.kind() {
            "property_identifier" => Some(text(k, src).to_string()),
            "string" => unquote(text(k, src)),
            _ => None,
        })
    else {
        return;
    };
    let Some(object) = asserted(*arg).filter(|a| a.kind() == "object") else {
        return;
    };
    let Val::Obj { props, .. } = val(object, src, 0) else {
        return;
    };
    let named = props
        .iter()
        .any(|p| matches!(p, Prop::Field(k, _) if k == keys::NAME));
    // `f<T>({...})` is left out: the prefilter's anchor reads `f({` (see
    // `prefilter::keyed_call`).
    let typed = node.child_by_field_name("type_arguments").is_some();
    if function.kind() == "identifier" && !named && !typed {
        let call = Val::Call(
            Box::new(val(function, src, 0)),
            vec![Val::obj(line(object), props)],
        );
        out.sites.push(Site::new(
            line(node),
            node.byte_range(),
            Family::TypeScript,
            SiteKind::Keyed { key, call },
        ));
    }
}

/// Returns the object literal an argument gives: the argument itself, or the body
/// of an arrow function that is one (`defineTool(() => ({ name, ... }))`, a tool
/// defined lazily); either through a type assertion (`Object.freeze({ ... } as
/// const satisfies T)`, as apify-mcp-server writes its tools).
fn object_given(arg: Node) -> Option<Node> {
    let arg = asserted(arg)?;
    match arg.kind() {
        "object" => Some(arg),
        "arrow_function" => {
            let body = arg.child_by_field_name("body")?;
            if body.kind() != "parenthesized_expression" {
                return None;
            }
            let inner = asserted(body)?;
            (inner.kind() == "object").then_some(inner)
        }
        _ => None,
    }
}

/// Returns the expression a type assertion, a `satisfies` or parentheses wrap,
/// any number of them deep; the node itself when it is none of them.
fn asserted(mut node: Node) -> Option<Node> {
    while matches!(
        node.kind(),
        "parenthesized_expression" | "as_expression" | "satisfies_expression"
    ) {
        node = *children(node).first()?;
    }
    Some(node)
}

/// Reads `require("./x");` on its own: a module required for its effect.
fn bare_require(node: Node, src: &[u8], out: &mut FileSummary) {
    if let Some(call) = children(node).first() {
        if let Some(Spec::Relative(rel)) = require_of(*call, src) {
            out.reach(rel);
        }
    }
}

/// Binds `function f() { return {...}; }` to what it returns (a factory).
fn function(node: Node, src: &[u8], top: &mut Vec<(String, Val)>) {
    let Some(name) = node.child_by_field_name("name") else {
        return;
    };
    if let Some(returned) = returned(node, src) {
        top.push((text(name, src).to_string(), returned));
    }
}

/// Returns what a function returns when it is one object literal (an arrow
/// function's expression body, or the last `return` of a block), with the
/// function's parameters, which a call binds (see [`Val::Returns`]).
fn returned(function: Node, src: &[u8]) -> Option<Val> {
    let params = params(function, src);
    match returned_expression(function, src)? {
        obj @ Val::Obj { .. } => Some(Val::Returns(params, Box::new(obj))),
        // A helper that returns its argument (`defineTool(t) { return t; }`).
        Val::Ref(path) if path.len() == 1 && params.iter().any(|p| p.name == path[0]) => {
            Some(Val::Returns(params, Box::new(Val::Ref(path))))
        }
        _ => None,
    }
}

/// Returns a function's parameters: `a`, `a: T`, `a?: T`, `a = d`, `a: T = d`; a
/// destructuring or rest parameter binds no name the finder reads.
fn params(function: Node, src: &[u8]) -> Vec<Param> {
    let list = function
        .child_by_field_name("parameters")
        .map(children)
        .or_else(|| function.child_by_field_name("parameter").map(|p| vec![p]))
        .unwrap_or_default();
    list.into_iter()
        .map(|p| {
            let (pattern, default) = match p.kind() {
                "required_parameter" | "optional_parameter" => (
                    p.child_by_field_name("pattern"),
                    p.child_by_field_name("value"),
                ),
                "assignment_pattern" => (
                    p.child_by_field_name("left"),
                    p.child_by_field_name("right"),
                ),
                _ => (Some(p), None),
            };
            let name = pattern
                .filter(|n| n.kind() == "identifier")
                .map_or(String::new(), |n| text(n, src).to_string());
            Param {
                name,
                default: default.map(|d| val(d, src, 1)),
            }
        })
        .collect()
}

/// Reads a class: binds its name to its fields (a base class spread first), and
/// records a tool class (see the module's documentation) as a definition.
fn class(node: Node, src: &[u8], out: &mut FileSummary, top: &mut Vec<(String, Val)>) {
    let Some(body) = node.child_by_field_name("body") else {
        return;
    };
    let base = children(node)
        .into_iter()
        .find(|c| c.kind() == "class_heritage")
        .and_then(|h| {
            descendants(h, 64, |n| {
                matches!(n.kind(), "identifier" | "member_expression")
            })
            .into_iter()
            .next()
        });
    let mut props = Vec::new();
    if let Some(base) = base {
        props.push(Prop::Spread(val(base, src, 0)));
    }
    for member in children(body) {
        let key = member
            .child_by_field_name("property")
            .or_else(|| member.child_by_field_name("name"));
        let Some(key) = key else { continue };
        let key = text(key, src).to_string();
        let value = match member.kind() {
            "public_field_definition" | "field_definition" => member
                .child_by_field_name("value")
                .map_or(Val::Other, |v| val(v, src, 0)),
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
    if let Some(name) = node.child_by_field_name("name") {
        top.push((text(name, src).to_string(), Val::obj(line(node), props)));
    }
}

/// Returns true for a node that can name a tool: a string, a template, a name, or
/// a name with a literal fallback (`name || "status"`).
fn is_name(node: Node, src: &[u8]) -> bool {
    match node.kind() {
        "string" | "template_string" | "identifier" | "member_expression" | "call_expression" => {
            true
        }
        "binary_expression" => fallback(node, src).is_some(),
        _ => false,
    }
}

/// Returns the values of the `tools` fields a `tools/list` handler answers with.
fn answers<'t>(handler: Node<'t>, src: &[u8]) -> Vec<Node<'t>> {
    let mut found = Vec::new();
    for pair in descendants(handler, HANDLER_BUDGET, |n| match n.kind() {
        "pair" => n
            .child_by_field_name("key")
            .is_some_and(|k| matches!(text(k, src), "tools" | "\"tools\"" | "'tools'")),
        "shorthand_property_identifier" => text(n, src) == "tools",
        _ => false,
    }) {
        let value = match pair.kind() {
            "shorthand_property_identifier" => Some(pair),
            _ => pair.child_by_field_name("value"),
        };
        if let Some(v) = value {
            found.push(bound_in(handler, v, src).unwrap_or(v));
        }
    }
    found
}

/// Returns the value a name is bound to inside the handler, when one declarator
/// there binds it (`const tools = [...]; return { tools };`): the handler's own
/// binding, whatever other functions of the file bind to the same name (a
/// compiled file's CLI that prints the same list).
fn bound_in<'t>(handler: Node<'t>, name: Node<'t>, src: &[u8]) -> Option<Node<'t>> {
    if !matches!(name.kind(), "identifier" | "shorthand_property_identifier") {
        return None;
    }
    let wanted = text(name, src);
    let declarators = descendants(handler, HANDLER_BUDGET, |n| {
        n.kind() == "variable_declarator"
            && n.child_by_field_name("name")
                .is_some_and(|id| id.kind() == "identifier" && text(id, src) == wanted)
    });
    match declarators.as_slice() {
        [one] => one.child_by_field_name("value"),
        _ => None,
    }
}

/// Translates an expression into a value, `Other` for anything but literals, names
/// and dotted names.
pub(crate) fn val(node: Node, src: &[u8], depth: usize) -> Val {
    if depth > MAX_VALUE_DEPTH {
        return Val::Other;
    }
    match node.kind() {
        "string" => unquote(text(node, src)).map_or(Val::Other, Val::Str),
        "template_string" => {
            if children(node)
                .iter()
                .any(|c| c.kind() == "template_substitution")
            {
                Val::Other
            } else {
                unquote(text(node, src)).map_or(Val::Other, Val::Str)
            }
        }
        "true" => Val::Bool(true),
        "false" => Val::Bool(false),
        "null" | "undefined" => Val::Null,
        "identifier" | "shorthand_property_identifier" => match text(node, src) {
            "undefined" => Val::Null,
            name => Val::name_ref(name),
        },
        "member_expression" => match dotted(node, src) {
            // CommonJS reads its own exports back as `exports.NAME`.
            Some(path) if path.len() == 2 && path[0] == "exports" => Val::name_ref(&path[1]),
            Some(path) => Val::Ref(path),
            None => Val::Other,
        },
        // Minifiers write `!0` for true and `!1` for false.
        "unary_expression" => match text(node, src) {
            "!0" => Val::Bool(true),
            "!1" => Val::Bool(false),
            _ => Val::Other,
        },
        "parenthesized_expression"
        | "as_expression"
        | "satisfies_expression"
        | "non_null_expression"
        | "type_assertion" => children(node)
            .into_iter()
            .find(|c| !c.kind().starts_with("type") && !c.kind().ends_with("_type"))
            .map_or(Val::Other, |inner| val(inner, src, depth + 1)),
        "object" => object(node, src, depth),
        // `(0, m.f)`: what `tsc` and bundlers call a module's function through.
        "sequence_expression" => children(node)
            .last()
            .map_or(Val::Other, |last| val(*last, src, depth + 1)),
        "binary_expression" => match fallback(node, src) {
            Some((first, literal)) => Val::Fallback(
                Box::new(val(first, src, depth + 1)),
                Box::new(val(literal, src, depth + 1)),
            ),
            None => Val::Other,
        },
        "arrow_function" | "function_expression" | "function" => {
            returned(node, src).unwrap_or(Val::Other)
        }
        "call_expression" => call_val(node, src, depth),
        "array" => {
            let items = children(node);
            if items.iter().any(|c| c.kind() == "spread_element") {
                return Val::Other;
            }
            Val::Arr(items.into_iter().map(|c| val(c, src, depth + 1)).collect())
        }
        _ => Val::Other,
    }
}

/// Reads a call: `Object.assign(a, b, ...)` as the object its arguments merge into,
/// in order; a call of a name at the top of a value as that function's result,
/// its arguments bound to its parameters (one level: an argument that is itself
/// a call is not followed).
fn call_val(node: Node, src: &[u8], depth: usize) -> Val {
    let (Some(f), Some(args)) = (
        node.child_by_field_name("function"),
        node.child_by_field_name("arguments"),
    ) else {
        return Val::Other;
    };
    let args = children(args);
    let f = callee(f);
    match (text(f, src), args.as_slice()) {
        ("Object.values", [x]) => return Val::Values(Box::new(val(*x, src, depth + 1))),
        ("Object.entries", [x]) => return Val::Entries(Box::new(val(*x, src, depth + 1))),
        // esbuild's `__name(f, "f")` keeps a function's name and returns it.
        ("__name", [x, name]) if name.kind() == "string" => return val(*x, src, depth + 1),
        _ => {}
    }
    if text(f, src) == "Object.assign" {
        let props = args
            .iter()
            .map(|a| match a.kind() {
                "spread_element" => Prop::Spread(Val::Other),
                _ => Prop::Spread(val(*a, src, depth + 1)),
            })
            .collect();
        return Val::obj(line(node), props);
    }
    if !matches!(f.kind(), "identifier" | "member_expression") || depth > 2 {
        return Val::Other;
    }
    let args = args
        .iter()
        .map(|a| match a.kind() {
            "spread_element" => Val::Other,
            _ => val(*a, src, depth + 1),
        })
        .collect();
    Val::Call(Box::new(val(f, src, depth + 1)), args)
}

/// Returns the function a call calls: `(0, m.f)` as `m.f`, parentheses left out.
fn callee(mut f: Node) -> Node {
    for _ in 0..4 {
        match f.kind() {
            "parenthesized_expression" | "sequence_expression" => match children(f).last() {
                Some(inner) => f = *inner,
                None => break,
            },
            _ => break,
        }
    }
    f
}

/// Returns the two sides of `a || "literal"` and `a ?? "literal"`: a value with a
/// literal fallback.
fn fallback<'t>(node: Node<'t>, src: &[u8]) -> Option<(Node<'t>, Node<'t>)> {
    let operator = node.child_by_field_name("operator")?;
    let (left, right) = (
        node.child_by_field_name("left")?,
        node.child_by_field_name("right")?,
    );
    (matches!(text(operator, src), "||" | "??")
        && matches!(right.kind(), "string" | "template_string"))
    .then_some((left, right))
}

fn object(node: Node, src: &[u8], depth: usize) -> Val {
    let mut props = Vec::new();
    for p in children(node) {
        match p.kind() {
            "pair" => {
                let (Some(k), Some(v)) =
                    (p.child_by_field_name("key"), p.child_by_field_name("value"))
                else {
                    continue;
                };
                let key = match k.kind() {
                    "property_identifier" => text(k, src).to_string(),
                    "string" => match unquote(text(k, src)) {
                        Some(s) => s,
                        None => continue,
                    },
                    // A computed key may be any field: what it shadows is not known.
                    _ => return Val::Other,
                };
                props.push(Prop::Field(key, val(v, src, depth + 1)));
            }
            "shorthand_property_identifier" => {
                let name = text(p, src);
                props.push(Prop::Field(name.to_string(), Val::name_ref(name)));
            }
            "spread_element" => {
                let inner = children(p).first().copied();
                props.push(Prop::Spread(
                    inner.map_or(Val::Other, |i| val(i, src, depth + 1)),
                ));
            }
            "method_definition" => {
                if let Some(k) = p.child_by_field_name("name") {
                    props.push(Prop::Field(text(k, src).to_string(), Val::Other));
                }
            }
            _ => {}
        }
    }
    Val::obj(line(node), props)
}

/// Returns `a.b.c` as its names, `None` when a part is not a plain name.
fn dotted(node: Node, src: &[u8]) -> Option<Vec<String>> {
    let mut path = Vec::new();
    let mut cur = node;
    loop {
        match cur.kind() {
            "member_expression" => {
                let property = cur.child_by_field_name("property")?;
                if property.kind() != "property_identifier" {
                    return None;
                }
                path.push(text(property, src).to_string());
                cur = cur.child_by_field_name("object")?;
            }
            "identifier" | "this" => {
                path.push(text(cur, src).to_string());
                path.reverse();
                return Some(path);
            }
            // `(tool as T).annotations`: the same value's field.
            "parenthesized_expression"
            | "as_expression"
            | "satisfies_expression"
            | "non_null_expression" => cur = *children(cur).first()?,
            _ => return None,
        }
        if path.len() > MAX_VALUE_DEPTH {
            return None;
        }
    }
}
