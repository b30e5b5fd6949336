//! Expressions read as values: literals, names and dotted names, objects, lists,
//! calls of a file's functions, a name with a literal fallback; anything else is
//! `Other`.

use tree_sitter::Node;

use crate::tools::keys;
use crate::tools::sdk::syntax::{children, line, text, unquote, Named};
use crate::tools::value::{Param, Prop, Val, MAX_VALUE_DEPTH};

/// Translates an expression into a value, `Other` for anything but literals, names
/// and dotted names.
pub(crate) fn val(node: Node, src: &[u8], depth: usize) -> Val {
    if depth > MAX_VALUE_DEPTH {
        return Val::Other;
    }
    match node.kind_name() {
        "string" | "template_string" if is_text(node) => {
            unquote(text(node, src)).map_or(Val::Other, Val::Str)
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
            .find(|c| !c.kind_name().starts_with("type") && !c.kind_name().ends_with("_type"))
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
            if items.iter().any(|c| c.kind_name() == "spread_element") {
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
pub(super) fn call_val(node: Node, src: &[u8], depth: usize) -> Val {
    let (Some(f), Some(args)) = (node.field("function"), node.field("arguments")) else {
        return Val::Other;
    };
    let args = children(args);
    let f = callee(f);
    match (text(f, src), args.as_slice()) {
        ("Object.values", [x]) => return Val::Values(Box::new(val(*x, src, depth + 1))),
        ("Object.entries", [x]) => return Val::Entries(Box::new(val(*x, src, depth + 1))),
        // esbuild's `__name(f, "f")` keeps a function's name and returns it.
        ("__name", [x, name]) if name.kind_name() == "string" => return val(*x, src, depth + 1),
        _ => {}
    }
    if text(f, src) == "Object.assign" {
        let props = args
            .iter()
            .map(|a| match a.kind_name() {
                "spread_element" => Prop::Spread(Val::Other),
                _ => Prop::Spread(val(*a, src, depth + 1)),
            })
            .collect();
        return Val::obj(line(node), props);
    }
    if !matches!(f.kind_name(), "identifier" | "member_expression") || depth > 2 {
        return Val::Other;
    }
    // A Zod object schema: its shape is never read, so the parse may leave it out.
    if keys::is_zod_object(text(f, src).as_bytes()) {
        let args = args.iter().map(|_| Val::Other).collect();
        return Val::Call(Box::new(val(f, src, depth + 1)), args);
    }
    let args = args
        .iter()
        .map(|a| match a.kind_name() {
            "spread_element" => Val::Other,
            _ => val(*a, src, depth + 1),
        })
        .collect();
    Val::Call(Box::new(val(f, src, depth + 1)), args)
}

/// Returns the function a call calls: `(0, m.f)` as `m.f`, parentheses left out.
pub(super) fn callee(mut f: Node) -> Node {
    for _ in 0..4 {
        match f.kind_name() {
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
pub(super) fn fallback<'t>(node: Node<'t>, src: &[u8]) -> Option<(Node<'t>, Node<'t>)> {
    let operator = node.field("operator")?;
    let (left, right) = (node.field("left")?, node.field("right")?);
    (matches!(text(operator, src), "||" | "??")
        && matches!(right.kind_name(), "string" | "template_string"))
    .then_some((left, right))
}

pub(super) fn object(node: Node, src: &[u8], depth: usize) -> Val {
    let mut props = Vec::new();
    for p in children(node) {
        match p.kind_name() {
            "pair" => {
                let (Some(k), Some(v)) = (p.field("key"), p.field("value")) else {
                    continue;
                };
                let key = match k.kind_name() {
                    "property_identifier" => text(k, src).to_string(),
                    "string" => match unquote(text(k, src)) {
                        Some(s) => s,
                        None => continue,
                    },
                    // A computed key may be any field: what it shadows is not known.
                    _ => return Val::Other,
                };
                // A schema's content is never read, only that it is there and is
                // a schema (which a 1.x `tool(...)`'s overloads tell apart from
                // annotations): kept whole, a list of tools with their JSON schemas
                // would pass the bound on a binding's size and no tool of it would
                // be read.
                let value = match keys::is_schema(key.as_bytes()) && v.kind_name() == "object" {
                    true => Val::Shape(Box::new(Val::Other)),
                    // A description's text is never read, only that it is a string
                    // (a 1.x `tool(...)`'s overloads tell a description by it): the
                    // parse may leave it out (`Lexed::texts`).
                    false if key == "description" && is_text(v) => Val::Str(String::new()),
                    // A handler is run, never called for a value: what it returns is
                    // never read as a factory's (`handler: async () => { return
                    // { content } }`), so the parse may leave its body out.
                    false
                        if keys::is_one_of(key.as_bytes(), &keys::HANDLER)
                            && matches!(
                                v.kind_name(),
                                "arrow_function" | "function_expression" | "function"
                            ) =>
                    {
                        Val::Other
                    }
                    false => val(v, src, depth + 1),
                };
                props.push(Prop::Field(key, value));
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
                if let Some(k) = p.field("name") {
                    props.push(Prop::Field(text(k, src).to_string(), Val::Other));
                }
            }
            _ => {}
        }
    }
    Val::obj(line(node), props)
}

/// Returns true when `node` is a string literal or a template without
/// substitutions.
fn is_text(node: Node) -> bool {
    match node.kind_name() {
        "string" => true,
        "template_string" => !children(node)
            .iter()
            .any(|c| c.kind_name() == "template_substitution"),
        _ => false,
    }
}

/// Returns `a.b.c` as its names, `None` when a part is not a plain name.
pub(super) fn dotted(node: Node, src: &[u8]) -> Option<Vec<String>> {
    let mut path = Vec::new();
    let mut cur = node;
    loop {
        match cur.kind_name() {
            "member_expression" => {
                let property = cur.field("property")?;
                if property.kind_name() != "property_identifier" {
                    return None;
                }
                path.push(text(property, src).to_string());
                cur = cur.field("object")?;
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

/// Returns what a function returns when it is one object literal (an arrow
/// function's expression body, or the last `return` of a block), with the
/// function's parameters, which a call binds (see [`Val::Returns`]).
pub(super) fn returned(function: Node, src: &[u8]) -> Option<Val> {
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
pub(super) fn params(function: Node, src: &[u8]) -> Vec<Param> {
    let list = function
        .field("parameters")
        .map(children)
        .or_else(|| function.field("parameter").map(|p| vec![p]))
        .unwrap_or_default();
    list.into_iter()
        .map(|p| {
            let (pattern, default) = match p.kind_name() {
                "required_parameter" | "optional_parameter" => {
                    (p.field("pattern"), p.field("value"))
                }
                "assignment_pattern" => (p.field("left"), p.field("right")),
                _ => (Some(p), None),
            };
            let name = pattern
                .filter(|n| n.kind_name() == "identifier")
                .map_or(String::new(), |n| text(n, src).to_string());
            Param {
                name,
                default: default.map(|d| val(d, src, 1)),
            }
        })
        .collect()
}

/// Returns what a function returns, read as a value: its expression body, or the
/// last `return` of its block.
pub(super) fn returned_expression(function: Node, src: &[u8]) -> Option<Val> {
    Some(val(returned_node(function)?, src, 1))
}

/// Returns the expression a function returns: its expression body, or what the
/// last `return` of its block returns.
pub(super) fn returned_node(function: Node) -> Option<Node> {
    let body = function.field("body")?;
    match body.kind_name() {
        "statement_block" => {
            let last = children(body)
                .into_iter()
                .rev()
                .find(|c| c.kind_name() == "return_statement")?;
            children(last).into_iter().next()
        }
        _ => Some(body),
    }
}
