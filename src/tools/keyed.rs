//! Tools named by the key they are the value of: `list_projects: tool({ ...,
//! annotations, execute })`, as supabase-mcp returns its tools, the object passed
//! to a helper of the tree that gives its argument back (`function tool(t) {
//! return t; }`, in a workspace package) and holding no `name` of its own
//! (docs/method.md, "What a tool definition is, per family"). The same call in a
//! bundle, where the helper is imported from a package the tree does not hold
//! (`import { tool as j } from "@supabase/mcp-utils"`) or is a wrapper the finder
//! cannot read (`p({ description, annotations, inject, execute })`, which hands the
//! fields on to that helper), is a tool when its object declares a hint in its
//! `annotations`: what the helper does with it cannot be read, but the object is a
//! tool's own declaration. A call of a function that returns something else, or of
//! an object that is not tool-shaped, is no tool.

use super::keys;
use super::model::Family;
use super::resolver::{Field, Resolved, Resolver, Via};
use super::value::{hint_of_key, Prop, Site, Val};

impl Resolver<'_> {
    /// Returns the tool a keyed call (`key: f({...})`, of `site`) defines, if any:
    /// one named `key` when `f` resolves to a function returning its parameter and
    /// the object is tool-shaped once its spreads resolve (a hint in its
    /// `annotations`, or a schema beside a handler); or when `f` cannot be read
    /// (a package's helper, a wrapper of it) and the object declares a hint.
    pub(crate) fn keyed(
        &self,
        file: usize,
        site: &Site,
        key: &str,
        call: &Val,
    ) -> Option<Resolved> {
        let Val::Call(function, args) = call else {
            return None;
        };
        let [object] = args.as_slice() else {
            return None;
        };
        let (gives_back, unread) = match self.resolve(file, function, 0) {
            (_, Val::Returns(params, returned)) => (
                matches!(&*returned, Val::Ref(path)
                    if path.len() == 1 && params.first().is_some_and(|p| p.name == path[0])),
                false,
            ),
            (_, Val::Other) => (false, self.is_unread_helper(file, function)),
            _ => return None,
        };
        let found = |key: &str| match self.field(file, object, key, 0) {
            Field::Found(f, v) => Some((f, v)),
            _ => None,
        };
        if !(gives_back || unread)
            || !matches!(self.field(file, object, keys::NAME, 0), Field::Absent)
        {
            return None;
        }
        let hinted = found(keys::ANNOTATIONS).is_some_and(|(f, annotations)| {
            match self.resolve(f, &annotations, 0) {
                (_, Val::Obj { props, .. }) => props
                    .iter()
                    .any(|p| matches!(p, Prop::Field(k, _) if hint_of_key(k).is_some())),
                _ => false,
            }
        });
        let schema = keys::SCHEMA.iter().any(|k| found(k).is_some());
        let handler = keys::HANDLER.iter().any(|k| found(k).is_some());
        // A helper that cannot be read makes a tool of a hinted object only: an
        // agent framework's `tool({ description, parameters, execute })` is none.
        if !(hinted || gives_back && schema && handler) {
            return None;
        }
        let def = Val::obj(
            site.line,
            vec![
                Prop::Spread(object.clone()),
                Prop::Field(keys::NAME.to_string(), Val::Str(key.to_string())),
            ],
        );
        let mut tool = self.tool(
            file,
            site.line,
            Family::TypeScript,
            None,
            &def,
            site.spelled,
        );
        tool.via = Via::Shaped;
        Some(tool)
    }

    /// Returns true when `function` names a helper the finder cannot read: one
    /// imported from a package the tree does not hold, or a binding of the tree
    /// whose value cannot be read. A name bound nowhere is neither.
    fn is_unread_helper(&self, file: usize, function: &Val) -> bool {
        let Val::Ref(path) = function else {
            return false;
        };
        let [name] = path.as_slice() else {
            return false;
        };
        match self.lookup(file, name, 0) {
            Some((_, bound)) => bound == Val::Other,
            None => self.files[file].imports.contains_key(name),
        }
    }
}
