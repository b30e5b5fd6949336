//! Tools named by the key they are the value of: `list_projects: tool({ ...,
//! annotations, execute })`, as supabase-mcp returns its tools, the object passed
//! to a helper of the tree that gives its argument back (`function tool(t) {
//! return t; }`, in a workspace package) and holding no `name` of its own
//! (docs/method.md, "What a tool definition is, per family"). A call of any other
//! function, or of an object that is not tool-shaped, is no tool.

use super::keys;
use super::model::Family;
use super::resolver::{Field, Resolved, Resolver, Via};
use super::value::{hint_of_key, Prop, Site, Val};

impl Resolver<'_> {
    /// Returns the tool a keyed call (`key: f({...})`, of `site`) defines, if any:
    /// one named `key` when `f` resolves to a function returning its parameter and
    /// the object is tool-shaped once its spreads resolve (a hint in its
    /// `annotations`, or a schema beside a handler).
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
        let (_, Val::Returns(params, returned)) = self.resolve(file, function, 0) else {
            return None;
        };
        let gives_back = matches!(&*returned, Val::Ref(path)
            if path.len() == 1 && params.first().is_some_and(|p| p.name == path[0]));
        let found = |key: &str| match self.field(file, object, key, 0) {
            Field::Found(f, v) => Some((f, v)),
            _ => None,
        };
        if !gives_back || !matches!(self.field(file, object, keys::NAME, 0), Field::Absent) {
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
        if !(hinted || schema && handler) {
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
}
