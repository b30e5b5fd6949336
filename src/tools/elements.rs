//! Registrations run once per element of a list (`for (const t of tools)`,
//! `tools.forEach(...)`, a `tools/list` answer mapped from a list): the elements
//! a loop runs over (a written list, the fields of an object, the tool objects
//! among a module's bindings and re-exports), and the tool each element gives
//! (docs/tools.md, "Loops over tool objects"). What a loop runs over when code
//! builds it (a filter, a push, a function's result) is not read here: the
//! registration is then read once, as it is written.

use super::keys;
use super::resolver::{Field, Resolved, Resolver, Via, MAX_CHAIN, MAX_ELEMENTS};
use super::substitute::{owner, reads_element, substitute};
use super::value::{Pattern, Prop, Site, SiteKind, Spec, Val};

impl Resolver<'_> {
    /// Adds the tools a registration run once per element of `items` defines: one
    /// per element, reported where the element's tool object is written; read as it
    /// is written, once, when the elements cannot all be read.
    pub(super) fn each_tools(
        &self,
        file: usize,
        site: &Site,
        items: &Val,
        pattern: &Pattern,
        each: &SiteKind,
        out: &mut Vec<Resolved>,
    ) {
        let within = within(each, pattern);
        let elements = match self.elements(file, items, &within, 0) {
            // A registration that reads nothing of the element (a literal name in a
            // loop) is one tool; a list written empty is filled by code.
            Some(elements) if !elements.is_empty() && reads_element(each, pattern) => elements,
            // A list answered per element: what code builds when its elements
            // cannot be read.
            _ if matches!(each, SiteKind::List { .. }) => {
                let unread = SiteKind::List {
                    items: Val::Other,
                    strict: false,
                };
                return self.site_tools(file, site, &unread, out);
            }
            _ => return self.site_tools(file, site, each, out),
        };
        for (g, element) in elements {
            let element = Val::At(g, Box::new(element));
            let (name, def) = match each {
                SiteKind::Tool { name, def } => (name, def),
                SiteKind::List { items, strict } => {
                    let items = substitute(items, pattern, &element, 0);
                    let list = SiteKind::List {
                        items,
                        strict: *strict,
                    };
                    self.site_tools(file, site, &list, out);
                    continue;
                }
                _ => return,
            };
            let name = name.as_ref().map(|n| substitute(n, pattern, &element, 0));
            let def = substitute(def, pattern, &element, 0);
            let mut tool = self.tool(
                file,
                site.line,
                site.family,
                name.as_ref(),
                &def,
                site.spelled,
            );
            // Reported where the element's tool object is defined, when it is an
            // object: the element itself when a factory's call gives it (read as if
            // written in place).
            let at = match self.made_by_call(file, &element, &within) {
                true => element.clone(),
                false => field_at(&element, &within),
            };
            if let Some((f, line)) = self.origin(file, &at) {
                (tool.file, tool.line) = (f, line);
                tool.origin = Some((f, line));
            }
            tool.via = Via::Element;
            out.push(tool);
        }
    }

    /// Returns true when a field on the path from an element to its tool object is
    /// written as a call (`{ def: getLogIncidentTool(server) }`).
    fn made_by_call(&self, file: usize, element: &Val, within: &[String]) -> bool {
        let (mut f, mut cur) = (file, element.clone());
        for key in within {
            match self.field(f, &cur, key, 0) {
                Field::Found(_, Val::Call(..)) => return true,
                Field::Found(g, v) => (f, cur) = (g, v),
                Field::Absent | Field::Hidden => return false,
            }
        }
        false
    }

    /// Returns the elements a loop runs over, each with the file it is read in: a
    /// list's elements, or the values of an object's fields and the tool objects
    /// among a module's bindings (`Object.values`, `Object.entries` as `[key,
    /// value]` pairs); a binding whose field at `within` is a tool object counts as
    /// one (a module exporting `{ schema, tool }`). `None` when they cannot all be
    /// read.
    fn elements(
        &self,
        file: usize,
        items: &Val,
        within: &[String],
        depth: u8,
    ) -> Option<Vec<(usize, Val)>> {
        if depth > MAX_CHAIN {
            return None;
        }
        let (f, list) = self.resolve(file, items, depth);
        let (inner, pairs) = match list {
            Val::Arr(items) => return Some(items.into_iter().map(|v| (f, v)).collect()),
            Val::Values(inner) => (inner, false),
            Val::Entries(inner) => (inner, true),
            _ => return None,
        };
        let mut fields = Vec::new();
        self.fields_of(f, &inner, &mut fields, depth + 1)?;
        let tools = fields
            .into_iter()
            .filter(|(_, g, v, binding)| !binding || self.is_tool(*g, &field_at(v, within)))
            .map(|(key, g, v, _)| match pairs {
                true => (g, Val::Arr(vec![Val::Str(key), v])),
                false => (g, v),
            })
            .collect();
        Some(tools)
    }

    /// Adds the fields of an object value, or the bindings of a module, to `out`,
    /// each with the file its value is read in and whether it is a binding (which
    /// may be anything a module holds, not only what it exports); `None` when a
    /// part of them cannot be read (an unresolved spread).
    fn fields_of(
        &self,
        file: usize,
        val: &Val,
        out: &mut Vec<(String, usize, Val, bool)>,
        depth: u8,
    ) -> Option<()> {
        if depth > MAX_CHAIN || out.len() > MAX_ELEMENTS {
            return None;
        }
        match self.resolve(file, val, depth) {
            (f, Val::Obj { props, .. }) => {
                for prop in &props {
                    match prop {
                        Prop::Field(k, v) => out.push((k.clone(), f, v.clone(), false)),
                        Prop::Spread(v) => self.fields_of(f, v, out, depth + 1)?,
                    }
                }
            }
            (_, Val::Module(m)) => {
                let summary = &self.files[m];
                let mut names: Vec<&String> = summary.bindings.keys().collect();
                // A named import of a module that is read for its values is one of
                // its re-exports (`export { a } from "./a"`, a barrel file).
                names.extend(
                    summary
                        .imports
                        .iter()
                        .filter(|(_, i)| i.name.is_some())
                        .map(|(n, _)| n),
                );
                names.sort();
                names.dedup();
                for name in names {
                    if let Some((g, v)) = self.lookup(m, name, depth + 1) {
                        out.push((name.clone(), g, v, true));
                    }
                }
                for rel in &summary.star_exports {
                    if let Some(t) = self.module(m, &Spec::Relative(rel.clone())) {
                        self.fields_of(t, &Val::Module(t), out, depth + 1)?;
                    }
                }
            }
            _ => return None,
        }
        Some(())
    }

    /// Returns true when a value is a tool object: an object with a `name` beside
    /// annotations, a description, a schema or a handler.
    fn is_tool(&self, file: usize, val: &Val) -> bool {
        let found = |key: &str| matches!(self.field(file, val, key, 0), Field::Found(..));
        let (_, resolved) = self.resolve(file, val, 0);
        matches!(resolved, Val::Obj { .. })
            && found(keys::NAME)
            && [keys::ANNOTATIONS, "description"]
                .iter()
                .chain(keys::SCHEMA.iter())
                .chain(keys::HANDLER.iter())
                .any(|k| found(k))
    }
}

/// Returns the path, in a loop's element, of the tool object the registration
/// reads: the fields before `name` in `chart.tool.name`, or the path the whole
/// definition reads (`addTool(chart.tool)`, a list answered as `chart.tool`);
/// empty when it reads the element itself or nothing of it.
fn within(each: &SiteKind, pattern: &Pattern) -> Vec<String> {
    let (name, def) = match each {
        SiteKind::Tool { name, def } => (name.as_ref(), def),
        SiteKind::List {
            items: Val::Arr(items),
            ..
        } if items.len() == 1 => (None, &items[0]),
        _ => return Vec::new(),
    };
    // A value no source spells stands for the element, so that what a reference
    // reads of it is a path from it.
    let marker = Val::Ref(vec![String::new()]);
    let path = |v: &Val| match v {
        Val::Field(inner, path) if **inner == marker => Some(path.clone()),
        _ => None,
    };
    name.and_then(|n| owner(&substitute(n, pattern, &marker, 0)))
        .and_then(|o| path(&o))
        .or_else(|| path(&substitute(def, pattern, &marker, 0)))
        .unwrap_or_default()
}

/// Returns a value's field at `path`, the value itself for an empty path.
fn field_at(val: &Val, path: &[String]) -> Val {
    match path.is_empty() {
        true => val.clone(),
        false => Val::Field(Box::new(val.clone()), path.to_vec()),
    }
}
