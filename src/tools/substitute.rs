//! What a value reads as once names in it stand for something else: a factory's
//! parameters bound to a call's arguments, a loop's variable to one element of
//! what the loop runs over (docs/method.md, "How hints are resolved" and "Kinds").
//! The resolver follows the values these return; nothing here looks a name up.

use super::value::{Param, Prop, SiteKind, Val, MAX_VALUE_DEPTH};

/// Returns a factory's returned `value` with each reference to one of its `params`
/// replaced by the call's argument, read in the calling file `caller` (a missing
/// argument is the parameter's default, else `undefined`). Functions inside the
/// value are left as they are: their parameters are their own.
pub(super) fn bind(
    value: &Val,
    params: &[Param],
    args: &[Val],
    caller: usize,
    depth: usize,
) -> Val {
    if depth > MAX_VALUE_DEPTH {
        return Val::Other;
    }
    let again = |v: &Val| bind(v, params, args, caller, depth + 1);
    match value {
        Val::Ref(path) => {
            let Some(at) = params.iter().position(|p| p.name == path[0]) else {
                return value.clone();
            };
            // Keyword arguments by name, the others by position.
            let keyword = args.iter().find_map(|a| match a {
                Val::Keyword(k, v) if *k == path[0] => Some(&**v),
                _ => None,
            });
            let positional = args
                .iter()
                .filter(|a| !matches!(a, Val::Keyword(..)))
                .nth(at);
            let arg = match (keyword.or(positional), &params[at].default) {
                (Some(Val::Null) | None, Some(default)) => return default.clone(),
                (Some(arg), _) => arg.clone(),
                (None, None) => Val::Null,
            };
            match (path.len(), arg) {
                (1, arg) => Val::At(caller, Box::new(arg)),
                (_, Val::Ref(mut inner)) => {
                    inner.extend(path[1..].iter().cloned());
                    Val::At(caller, Box::new(Val::Ref(inner)))
                }
                _ => Val::Other,
            }
        }
        _ => map_children(value, again),
    }
}

/// Returns the value whose `name` field a name reads (`tool.name`), if it reads one.
pub(super) fn owner(name: &Val) -> Option<Val> {
    match name {
        Val::Ref(path) if path.len() > 1 && path.last()? == "name" => {
            Some(Val::Ref(path[..path.len() - 1].to_vec()))
        }
        Val::Field(inner, path) if path.last()? == "name" => match path.len() {
            1 => Some((**inner).clone()),
            n => Some(Val::Field(inner.clone(), path[..n - 1].to_vec())),
        },
        Val::At(f, inner) => owner(inner).map(|o| Val::At(*f, Box::new(o))),
        _ => None,
    }
}

/// Returns true when a registration's name or definition (a list's elements) reads
/// a name the loop's variable binds.
pub(super) fn reads_element(site: &SiteKind, pattern: &[(String, Vec<String>)]) -> bool {
    let marker = Val::Other;
    let changed = |v: &Val| substitute(v, pattern, &marker, 0) != *v;
    match site {
        SiteKind::Tool { name, def } => name.as_ref().is_some_and(changed) || changed(def),
        SiteKind::List { items, .. } => changed(items),
        _ => false,
    }
}

/// Returns a registration's value as it reads for one element of a loop: each
/// reference to a name of `pattern` replaced by the element's field at its path.
/// Functions inside the value are left as they are: their names are their own.
pub(super) fn substitute(
    value: &Val,
    pattern: &[(String, Vec<String>)],
    element: &Val,
    depth: usize,
) -> Val {
    if depth > MAX_VALUE_DEPTH {
        return Val::Other;
    }
    let again = |v: &Val| substitute(v, pattern, element, depth + 1);
    match value {
        Val::Ref(path) => {
            let Some((_, at)) = pattern.iter().find(|(n, _)| *n == path[0]) else {
                return value.clone();
            };
            let mut fields = at.clone();
            fields.extend(path[1..].iter().cloned());
            match fields.is_empty() {
                true => element.clone(),
                false => Val::Field(Box::new(element.clone()), fields),
            }
        }
        // A schema's shape is left as written: an element names no field of it.
        Val::Shape(_) => value.clone(),
        _ => map_children(value, again),
    }
}

/// Returns `value` with `again` applied to each value it holds (an object's fields
/// and spreads, a list's items, what a wrapper wraps, a call's function and
/// arguments); a value that holds none is cloned.
fn map_children(value: &Val, again: impl Fn(&Val) -> Val) -> Val {
    match value {
        Val::Obj { line, props } => Val::obj(
            *line,
            props
                .iter()
                .map(|p| match p {
                    Prop::Field(k, v) => Prop::Field(k.clone(), again(v)),
                    Prop::Spread(v) => Prop::Spread(again(v)),
                })
                .collect(),
        ),
        Val::Arr(items) => Val::Arr(items.iter().map(&again).collect()),
        Val::ToolArgs(items) => Val::ToolArgs(items.iter().map(&again).collect()),
        Val::Shape(v) => Val::Shape(Box::new(again(v))),
        Val::OmitFalse(v) => Val::OmitFalse(Box::new(again(v))),
        Val::Inherited(v) => Val::Inherited(Box::new(again(v))),
        Val::Values(v) => Val::Values(Box::new(again(v))),
        Val::Entries(v) => Val::Entries(Box::new(again(v))),
        Val::Field(v, path) => Val::Field(Box::new(again(v)), path.clone()),
        Val::Fallback(v, fallback) => Val::Fallback(Box::new(again(v)), Box::new(again(fallback))),
        Val::Call(f, a) => Val::Call(Box::new(again(f)), a.iter().map(&again).collect()),
        Val::Helper(c, l) => Val::Helper(Box::new(again(c)), Box::new(again(l))),
        Val::Keyword(k, v) => Val::Keyword(k.clone(), Box::new(again(v))),
        _ => value.clone(),
    }
}
