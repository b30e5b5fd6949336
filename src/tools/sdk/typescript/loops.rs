//! A registration run once per element: the `for ... of` loop or `forEach`/`map`/
//! `flatMap` callback it stands in, and the names the loop's variable binds.

use tree_sitter::Node;

use crate::tools::sdk::syntax::{children, text, Named};
use crate::tools::value::{Pattern, Val};

use super::values::val;

/// How far up from a registration its loop is looked for.
const LOOP_DEPTH: usize = 16;

/// Returns what a registration runs over when it stands in the body of a `for ...
/// of` loop or of a function passed to `forEach`, `map` or `flatMap`, with the
/// names the loop's variable binds (see
/// [`SiteKind::Each`](crate::tools::value::SiteKind::Each)); `None` elsewhere, and
/// at a function between the two (a function the loop calls is not followed).
pub(super) fn each(call: Node, src: &[u8]) -> Option<(Val, Pattern)> {
    let mut cur = call;
    for _ in 0..LOOP_DEPTH {
        let parent = cur.parent()?;
        match parent.kind_name() {
            "for_in_statement" => {
                let of = parent
                    .field("operator")
                    .is_some_and(|o| text(o, src) == "of");
                if !of || parent.field("body") != Some(cur) {
                    return None;
                }
                let mut pattern = pattern(parent.field("left")?, src)?;
                aliases(parent.field("body")?, src, &mut pattern);
                return Some((val(parent.field("right")?, src, 0), pattern));
            }
            "arrow_function" | "function_expression" | "function" => {
                let args = parent.parent().filter(|a| a.kind_name() == "arguments")?;
                let caller = args
                    .parent()
                    .filter(|c| c.kind_name() == "call_expression")?;
                let method = caller.field("function")?;
                let property = method.field("property")?;
                if !matches!(text(property, src), "forEach" | "map" | "flatMap")
                    || children(args).first() != Some(&parent)
                {
                    return None;
                }
                let first = match parent.field("parameter") {
                    Some(p) => p,
                    None => *children(parent.field("parameters")?).first()?,
                };
                let first = match first.kind_name() {
                    "required_parameter" | "optional_parameter" => first.field("pattern")?,
                    _ => first,
                };
                let items = val(method.field("object")?, src, 0);
                let mut pattern = pattern(first, src)?;
                if let Some(body) = parent.field("body") {
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
pub(super) fn aliases(body: Node, src: &[u8], pattern: &mut Pattern) {
    if body.kind_name() != "statement_block" {
        return;
    }
    for statement in children(body) {
        let is_const = statement.kind_name() == "lexical_declaration"
            && statement.child(0).is_some_and(|k| text(k, src) == "const");
        if !is_const {
            continue;
        }
        for declarator in children(statement) {
            let (Some(name), Some(value)) = (declarator.field("name"), declarator.field("value"))
            else {
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
            if name.kind_name() == "identifier" {
                pattern.push((text(name, src).to_string(), fields));
            }
        }
    }
}

/// Returns the names a loop's variable binds, each with its path in the element:
/// `t` the element, `[key, t]` a pair's two parts, `{ name, annotations: a }` its
/// fields.
pub(super) fn pattern(node: Node, src: &[u8]) -> Option<Pattern> {
    match node.kind_name() {
        "identifier" => Some(vec![(text(node, src).to_string(), Vec::new())]),
        "array_pattern" => Some(
            children(node)
                .into_iter()
                .enumerate()
                .filter(|(_, n)| n.kind_name() == "identifier")
                .map(|(i, n)| (text(n, src).to_string(), vec![i.to_string()]))
                .collect(),
        ),
        "object_pattern" => {
            let mut names = Vec::new();
            for p in children(node) {
                match p.kind_name() {
                    "shorthand_property_identifier_pattern" => {
                        let n = text(p, src).to_string();
                        names.push((n.clone(), vec![n]));
                    }
                    "pair_pattern" => {
                        let (Some(k), Some(v)) = (p.field("key"), p.field("value")) else {
                            continue;
                        };
                        if v.kind_name() == "identifier" {
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
