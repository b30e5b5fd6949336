//! The registrations a call makes: the SDK's `registerTool`, `tool`, `addTool`, a
//! `tools/list` handler's answer, a tool-shaped object passed to any other call,
//! and a key's value made by a helper (see the folder's documentation).

use tree_sitter::Node;

use crate::tools::keys;
use crate::tools::model::Family;
use crate::tools::sdk::syntax::{children, descendants, line, text, unquote, Named};
use crate::tools::value::{field, hint_of_key, FileSummary, Prop, Site, SiteKind, Val};

use super::loops::{each, pattern};
use super::values::{fallback, returned_node, val};

/// At most this many nodes of a `tools/list` handler are searched for its answer.
pub(super) const HANDLER_BUDGET: usize = 200_000;

pub(super) fn call(node: Node, function: Node, args: &[Node], src: &[u8], out: &mut FileSummary) {
    if function.kind_name() != "member_expression" {
        keyed(node, function, args, src, out);
        return tool_shaped(args, src, out);
    }
    let Some(method) = function.field("property") else {
        return;
    };
    let at = line(node);
    // Its own bytes, from the method's name: a chain before it may hold others'.
    let extent = method.start_byte()..node.end_byte();
    let site = |kind| Site {
        of_module: false,
        line: at,
        repeated: false,
        extent: extent.clone(),
        spelled: [false; 4],
        family: Family::TypeScript,
        // A registration in a loop or a per-element callback is read once per
        // element. Asked only of a registration: climbing a node's parents costs a
        // walk down from the root each, and most calls register nothing.
        kind: match each(node, src) {
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
            let handler = handler_named(node, args[1], src).unwrap_or(args[1]);
            for value in answers(handler, src) {
                if let Some(site) = mapped(at, value, src) {
                    out.sites.push(site);
                    continue;
                }
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
        // A Zod object schema's shape is never read (see `keys::is_zod_object`).
        _ if keys::is_zod_object(text(function, src).as_bytes()) => {}
        _ => tool_shaped(args, src, out),
    }
}

/// Reads a middle argument of a 1.x `tool(...)` call: `<value>.shape`, a Zod object's
/// shape, is marked as such ([`Val::Shape`]), which the SDK's overloads read as the
/// parameters; anything else is its value.
pub(super) fn tool_arg(node: Node, src: &[u8]) -> Val {
    let is_shape = node.kind_name() == "member_expression"
        && node
            .field("property")
            .is_some_and(|p| text(p, src) == "shape");
    match is_shape {
        true => Val::Shape(Box::new(val(node, src, 0))),
        false => val(node, src, 0),
    }
}

/// Returns true for an argument that can give a tool object: a literal, a name, or
/// a call of a factory.
pub(super) fn is_definition(node: Node) -> bool {
    matches!(
        node.kind_name(),
        "object" | "identifier" | "member_expression" | "call_expression"
    )
}

/// Records each tool-shaped object literal among a call's arguments as a
/// definition (see the module's documentation).
pub(super) fn tool_shaped(args: &[Node], src: &[u8], out: &mut FileSummary) {
    for arg in args.iter().filter_map(|a| object_given(*a)) {
        let Val::Obj { props, .. } = val(arg, src, 0) else {
            continue;
        };
        let field = |key: &str| field(&props, key);
        let hinted = matches!(field(keys::ANNOTATIONS), Some(Val::Obj { props, .. })
            if props.iter().any(|p| matches!(p, Prop::Field(k, _) if hint_of_key(k).is_some())));
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
pub(super) fn keyed(node: Node, function: Node, args: &[Node], src: &[u8], out: &mut FileSummary) {
    let [arg] = args else {
        return;
    };
    let Some(pair) = node.parent().filter(|p| p.kind_name() == "pair") else {
        return;
    };
    let Some(key) = pair.field("key").and_then(|k| match k.kind_name() {
        "property_identifier" => Some(text(k, src).to_string()),
        "string" => unquote(text(k, src)),
        _ => None,
    }) else {
        return;
    };
    let Some(object) = asserted(*arg).filter(|a| a.kind_name() == "object") else {
        return;
    };
    let Val::Obj { props, .. } = val(object, src, 0) else {
        return;
    };
    let has = |set: &[&str]| {
        props
            .iter()
            .any(|p| matches!(p, Prop::Field(k, _) if set.contains(&k.as_str())))
    };
    let named = has(&[keys::NAME]);
    // What the resolver needs of the object, as the lexer confirms the form
    // (`Forms::keyed`): annotations, or a schema beside a handler, or a spread
    // that may bring them.
    let shaped = has(&[keys::ANNOTATIONS])
        || props.iter().any(|p| matches!(p, Prop::Spread(_)))
        || has(&keys::SCHEMA) && has(&keys::HANDLER);
    // `f<T>({...})` is left out: the prefilter's anchor reads `f({` (see
    // `prefilter::keyed_call`).
    let typed = node.field("type_arguments").is_some();
    if function.kind_name() == "identifier" && !named && shaped && !typed {
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
pub(super) fn object_given(arg: Node) -> Option<Node> {
    let arg = asserted(arg)?;
    match arg.kind_name() {
        "object" => Some(arg),
        "arrow_function" => {
            let body = arg.field("body")?;
            if body.kind_name() != "parenthesized_expression" {
                return None;
            }
            let inner = asserted(body)?;
            (inner.kind_name() == "object").then_some(inner)
        }
        _ => None,
    }
}

/// Returns the expression a type assertion, a `satisfies` or parentheses wrap,
/// any number of them deep; the node itself when it is none of them.
pub(super) fn asserted(mut node: Node) -> Option<Node> {
    while matches!(
        node.kind_name(),
        "parenthesized_expression" | "as_expression" | "satisfies_expression"
    ) {
        node = *children(node).first()?;
    }
    Some(node)
}

/// Returns true for a node that can name a tool: a string, a template, a name, or
/// a name with a literal fallback (`name || "status"`).
pub(super) fn is_name(node: Node, src: &[u8]) -> bool {
    match node.kind_name() {
        "string" | "template_string" | "identifier" | "member_expression" | "call_expression" => {
            true
        }
        "binary_expression" => fallback(node, src).is_some(),
        _ => false,
    }
}

/// Returns the values of the `tools` fields a `tools/list` handler answers with.
pub(super) fn answers<'t>(handler: Node<'t>, src: &[u8]) -> Vec<Node<'t>> {
    let mut found = Vec::new();
    for pair in descendants(handler, HANDLER_BUDGET, |n| match n.kind_name() {
        "pair" => n
            .field("key")
            .is_some_and(|k| matches!(text(k, src), "tools" | "\"tools\"" | "'tools'")),
        "shorthand_property_identifier" => text(n, src) == "tools",
        _ => false,
    }) {
        let value = match pair.kind_name() {
            "shorthand_property_identifier" => Some(pair),
            _ => pair.field("value"),
        };
        if let Some(v) = value {
            found.push(unfiltered(handler, v, src));
        }
    }
    found
}

/// Returns the function a `tools/list` handler names when it is written apart:
/// a function or constant of the file (`setRequestHandler(ListToolsRequestSchema,
/// listTools)`), or a field of an object constant (`handlers['tools/list']`, as
/// reddit-buddy-mcp keeps its handlers for HTTP too). `None` when `handler` names
/// none, or is the function itself.
fn handler_named<'t>(call: Node<'t>, handler: Node<'t>, src: &[u8]) -> Option<Node<'t>> {
    let (name, field) = match handler.kind_name() {
        "identifier" => (handler, None),
        "subscript_expression" => {
            let index = handler.field("index")?;
            let key = match index.kind_name() {
                "string" => unquote(text(index, src))?,
                _ => return None,
            };
            (handler.field("object")?, Some(key))
        }
        "member_expression" => (
            handler.field("object")?,
            Some(text(handler.field("property")?, src).to_string()),
        ),
        _ => return None,
    };
    if name.kind_name() != "identifier" {
        return None;
    }
    let mut root = call;
    while let Some(parent) = root.parent() {
        root = parent;
    }
    let wanted = text(name, src);
    let named = descendants(root, HANDLER_BUDGET, |n| {
        matches!(
            n.kind_name(),
            "variable_declarator" | "function_declaration"
        ) && n
            .field("name")
            .is_some_and(|id| id.kind_name() == "identifier" && text(id, src) == wanted)
    });
    let [bound] = named.as_slice() else {
        return None;
    };
    let value = match bound.kind_name() {
        "function_declaration" => *bound,
        _ => bound.field("value")?,
    };
    let Some(field) = field else {
        return Some(value);
    };
    let object = asserted(value).filter(|v| v.kind_name() == "object")?;
    children(object).into_iter().find_map(|pair| {
        let key = pair.field("key")?;
        let key = match key.kind_name() {
            "string" => unquote(text(key, src))?,
            _ => text(key, src).to_string(),
        };
        (pair.kind_name() == "pair" && key == field)
            .then(|| pair.field("value"))
            .flatten()
    })
}

/// Returns the list a `tools/list` answer is taken from, through the handler's own
/// bindings and any `filter` calls (DesktopCommander's `const filteredTools =
/// allTools.filter((t) => shouldIncludeTool(t.name))` over a written list): a
/// filter decides at run time which of the list's tools are served, and each of
/// them is a tool the source defines.
fn unfiltered<'t>(handler: Node<'t>, mut answer: Node<'t>, src: &[u8]) -> Node<'t> {
    for _ in 0..8 {
        answer = bound_in(handler, answer, src).unwrap_or(answer);
        let list = (answer.kind_name() == "call_expression")
            .then(|| answer.field("function"))
            .flatten()
            .filter(|f| {
                f.kind_name() == "member_expression"
                    && f.field("property")
                        .is_some_and(|p| text(p, src) == "filter")
            })
            .and_then(|f| f.field("object"));
        match list {
            Some(list) => answer = list,
            None => break,
        }
    }
    answer
}

/// Returns a `tools/list` answer mapped from a list (`Object.values(Charts).map(
/// (chart) => chart.tool)`), of the handler at line `at`, as a list answered once
/// per element of the list, holding what the callback returns; `None` for any
/// other answer. When the list cannot be read, the answer is what code builds:
/// a dynamic site, as any answer the finder cannot read.
pub(super) fn mapped(at: u32, answer: Node, src: &[u8]) -> Option<Site> {
    if answer.kind_name() != "call_expression" {
        return None;
    }
    let method = answer.field("function")?;
    let property = method.field("property")?;
    let [callback] = children(answer.field("arguments")?)[..] else {
        return None;
    };
    if text(property, src) != "map"
        || !matches!(
            callback.kind_name(),
            "arrow_function" | "function_expression"
        )
    {
        return None;
    }
    let first = match callback.field("parameter") {
        Some(p) => p,
        None => *children(callback.field("parameters")?).first()?,
    };
    let first = match first.kind_name() {
        "required_parameter" | "optional_parameter" => first.field("pattern")?,
        _ => first,
    };
    let pattern = pattern(first, src)?;
    let returned = returned_node(callback)?;
    let items = val(method.field("object")?, src, 0);
    Some(Site::new(
        at,
        answer.byte_range(),
        Family::TypeScript,
        SiteKind::Each {
            items,
            pattern,
            site: Box::new(SiteKind::List {
                items: Val::Arr(vec![val(returned, src, 0)]),
                strict: false,
            }),
        },
    ))
}

/// Returns the value a name is bound to inside the handler, when one declarator
/// there binds it (`const tools = [...]; return { tools };`): the handler's own
/// binding, whatever other functions of the file bind to the same name (a
/// compiled file's CLI that prints the same list).
pub(super) fn bound_in<'t>(handler: Node<'t>, name: Node<'t>, src: &[u8]) -> Option<Node<'t>> {
    if !matches!(
        name.kind_name(),
        "identifier" | "shorthand_property_identifier"
    ) {
        return None;
    }
    let wanted = text(name, src);
    let declarators = descendants(handler, HANDLER_BUDGET, |n| {
        n.kind_name() == "variable_declarator"
            && n.field("name")
                .is_some_and(|id| id.kind_name() == "identifier" && text(id, src) == wanted)
    });
    match declarators.as_slice() {
        [one] => one.field("value"),
        _ => None,
    }
}
