//! A registration run once per element: the `for ... of` loop or `forEach`/`map`/
//! `flatMap` callback it stands in, and the names the loop's variable binds.

use tree_sitter::Node;

use crate::tools::sdk::syntax::{children, text};
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
pub(super) fn aliases(body: Node, src: &[u8], pattern: &mut Pattern) {
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
pub(super) fn pattern(node: Node, src: &[u8]) -> Option<Pattern> {
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
