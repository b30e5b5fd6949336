//! The resolver: follows the references a file's summary records, within the file
//! and across the files of one tree (relative imports, the tree's own packages, a
//! Go folder), to the literal values of each tool's name and hints
//! (docs/method.md, "How hints are resolved"). A lookup that meets a file not
//! parsed yet records it, and the collector parses it before resolving again.
//! Everything here is bounded: the length of a chain of references and the depth
//! of a value.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::keys;
use super::model::{DefKind, Family, HintState};
use super::packages::Modules;
use super::substitute::{bind, owner};
use super::value::{
    extension, extension_as_written, hint_index, hint_of_key, parent, FileSummary, Prop, Site,
    SiteKind, Spec, Val,
};
use super::wrappers;

/// References are followed at most this deep (a chain of constants, imports and spreads).
pub(super) const MAX_CHAIN: u8 = 16;
/// A loop over an object's fields or a module's bindings reads at most this many.
pub(super) const MAX_ELEMENTS: usize = 4096;
/// What a tool of a `tools/list` answer's element is said to spell: its bytes are
/// not the handler's, which answers with many tools.
const NAMES_NONE: [bool; 4] = [false; 4];

/// A tool once its references are followed: the file and line it is reported at.
pub(crate) struct Resolved {
    pub(crate) file: usize,
    pub(crate) line: u32,
    pub(crate) kind: DefKind,
    pub(crate) family: Family,
    pub(crate) name: Option<String>,
    /// The literal `title` (or `annotations.title`), read only when the name is not
    /// a literal: the name class falls back on it (docs/method.md, "Name classes").
    pub(crate) title: Option<String>,
    pub(crate) hints: [Option<HintState>; 4],
    /// The file and line of the object that defines the tool, when one does: the
    /// definition itself, or the object whose `name` field names the tool.
    pub(crate) origin: Option<(usize, u32)>,
    pub(crate) via: Via,
}

/// What a tool was read from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Via {
    /// A registration.
    Registration,
    /// One element of a list a registration runs over.
    Element,
    /// A tool-shaped object passed to a call that is no registration.
    Shaped,
}

/// What an object value says of one of its fields.
pub(crate) enum Field {
    /// The field's value, and the file it was found in.
    Found(usize, Val),
    /// The object has no such field.
    Absent,
    /// Something the finder cannot read (an unresolved spread, a value that is no
    /// object) may hold it.
    Hidden,
}

/// The files of a tree not parsed yet, by path: their bytes, or `None` for a file
/// let go past the bound on files kept aside.
pub(crate) type Unread<'a> = BTreeMap<&'a [u8], Option<&'a [u8]>>;

/// Follows references within and across the files of one tree.
pub(crate) struct Resolver<'a> {
    pub(super) files: &'a [FileSummary],
    /// Where each file of `modules` stands, by its id.
    at: Vec<At>,
    pending: RefCell<BTreeSet<Vec<u8>>>,
    /// Where the modules imports name are (see `packages`).
    modules: &'a Modules,
    /// Go folder → its files, parsed and unread.
    go_folders: HashMap<&'a [u8], GoPackage<'a>>,
    /// (Go folder, name) already searched for in the folder's unread files.
    pended: RefCell<HashSet<(Vec<u8>, String)>>,
}

/// Where a file of the tree stands for a resolver.
#[derive(Clone, Copy, PartialEq, Eq)]
enum At {
    /// Neither parsed nor kept aside (one that held nothing).
    Nowhere,
    /// Parsed: its index in `files`.
    Parsed(usize),
    /// Not parsed yet: a lookup that meets it cannot be answered until it is,
    /// and records it in `pending`.
    Unread,
}

/// The Go files of one folder, in path order.
#[derive(Default)]
struct GoPackage<'a> {
    parsed: Vec<usize>,
    unread: Vec<(&'a [u8], Option<&'a [u8]>)>,
}

impl<'a> Resolver<'a> {
    /// Indexes the files by path; every file of the tree is parsed, `modules`
    /// indexes them.
    #[cfg(test)]
    pub(crate) fn new(files: &'a [FileSummary], modules: &'a Modules) -> Resolver<'a> {
        static NONE: Unread<'static> = BTreeMap::new();
        Resolver::with_unread(files, &NONE, modules)
    }

    /// Indexes the files by path; `unread` are the tree's other files, those not
    /// parsed yet.
    pub(crate) fn with_unread(
        files: &'a [FileSummary],
        unread: &'a Unread<'a>,
        modules: &'a Modules,
    ) -> Resolver<'a> {
        let mut at = vec![At::Nowhere; modules.len()];
        for (id, _) in modules.ids(unread.keys().copied()) {
            at[id] = At::Unread;
        }
        for (id, i) in modules.ids(files.iter().map(|f| f.path.as_slice())) {
            at[id] = At::Parsed(i);
        }
        let mut go_folders: HashMap<&[u8], GoPackage> = HashMap::new();
        for (i, f) in files.iter().enumerate() {
            if extension(&f.path) == b"go" {
                go_folders
                    .entry(parent(&f.path))
                    .or_default()
                    .parsed
                    .push(i);
            }
        }
        for (path, bytes) in unread.iter() {
            if extension_as_written(path).eq_ignore_ascii_case(b"go") {
                let package = go_folders.entry(parent(path)).or_default();
                package.unread.push((path, *bytes));
            }
        }
        Resolver {
            files,
            at,
            pending: RefCell::new(BTreeSet::new()),
            modules,
            go_folders,
            pended: RefCell::new(HashSet::new()),
        }
    }

    /// Returns the unread files the lookups so far met: until they are parsed,
    /// what this resolver answered may differ from what parsing every file gives.
    pub(crate) fn pending(self) -> BTreeSet<Vec<u8>> {
        self.pending.into_inner()
    }

    /// Records the unread Go files of the folder of `file` that may bind `name`:
    /// those whose text holds it (a file let go may hold anything).
    fn pend_package(&self, file: usize, name: &str) {
        let folder = parent(&self.files[file].path);
        // Many tools look the same preset up in one package: its folder's text is
        // searched once a name.
        if !self
            .pended
            .borrow_mut()
            .insert((folder.to_vec(), name.to_string()))
        {
            return;
        }
        let Some(package) = self.go_folders.get(folder) else {
            return;
        };
        let mut pending = self.pending.borrow_mut();
        for (path, bytes) in &package.unread {
            if bytes.is_none_or(|b| memchr::memmem::find(b, name.as_bytes()).is_some()) {
                pending.insert(path.to_vec());
            }
        }
    }

    /// Returns every tool the file's registrations define, and each registration
    /// that defines tools at run time (`DefKind::Dynamic`).
    pub(crate) fn tools(&self, file: usize) -> Vec<Resolved> {
        let mut out = Vec::new();
        for site in &self.files[file].sites {
            self.site_tools(file, site, &site.kind, &mut out);
        }
        out
    }

    /// Adds the tools one registration (`kind`, of `site`) defines.
    pub(super) fn site_tools(
        &self,
        file: usize,
        site: &Site,
        kind: &SiteKind,
        out: &mut Vec<Resolved>,
    ) {
        match kind {
            SiteKind::Tool { name, def } => {
                let mut tool = self.tool(
                    file,
                    site.line,
                    site.family,
                    name.as_ref(),
                    def,
                    site.spelled,
                );
                if site.repeated && tool.name.is_none() {
                    tool.kind = DefKind::Dynamic;
                }
                out.push(tool);
            }
            SiteKind::Shaped(def) => {
                let family = match site.of_module {
                    true => (self.modules.go_sdk(&self.files[file].path)).unwrap_or(site.family),
                    false => site.family,
                };
                let mut tool = self.tool(file, site.line, family, None, def, site.spelled);
                if site.repeated && tool.name.is_none() {
                    tool.kind = DefKind::Dynamic;
                }
                tool.via = Via::Shaped;
                out.push(tool);
            }
            SiteKind::Keyed { key, call } => out.extend(self.keyed(file, site, key, call)),
            SiteKind::Wrapped(def) => {
                if let Field::Found(..) = self.field(file, def, wrappers::FORWARDS, 0) {
                    let mut tool = self.tool(file, site.line, site.family, None, def, site.spelled);
                    if site.repeated && tool.name.is_none() {
                        tool.kind = DefKind::Dynamic;
                    }
                    tool.origin = None;
                    out.push(tool);
                }
            }
            SiteKind::Each {
                items,
                pattern,
                site: each,
            } => self.each_tools(file, site, items, pattern, each, out),
            SiteKind::List { items, strict } => {
                let dynamic = |out: &mut Vec<Resolved>, f: usize| {
                    let mut tool =
                        self.tool(f, site.line, site.family, None, &Val::Other, NAMES_NONE);
                    tool.kind = DefKind::Dynamic;
                    out.push(tool);
                };
                let (f, list) = self.resolve(file, items, 0);
                let Val::Arr(items) = list else {
                    if !strict {
                        dynamic(out, f);
                    }
                    return;
                };
                for item in &items {
                    let (g, val) = self.resolve(f, item, 0);
                    match &val {
                        Val::Obj { line, .. } => {
                            out.push(self.tool(g, *line, site.family, None, &val, NAMES_NONE));
                        }
                        _ if *strict => {}
                        _ if site.repeated => dynamic(out, f),
                        _ => out.push(self.tool(
                            f,
                            site.line,
                            site.family,
                            None,
                            &Val::Other,
                            NAMES_NONE,
                        )),
                    }
                }
            }
        }
    }

    /// Returns the file and line of the object a value resolves to; for an object
    /// that spreads a named object into its own (a helper's `{ ...definition }`),
    /// that object's.
    pub(super) fn origin(&self, file: usize, val: &Val) -> Option<(usize, u32)> {
        self.origin_within(file, val, 0)
    }

    fn origin_within(&self, file: usize, val: &Val, depth: u8) -> Option<(usize, u32)> {
        if depth > MAX_CHAIN {
            return None;
        }
        let (f, Val::Obj { line, props }) = self.resolve(file, val, depth) else {
            return None;
        };
        let named = props.iter().rev().find_map(|p| match p {
            Prop::Spread(v)
                if matches!(self.field(f, v, keys::NAME, depth + 1), Field::Found(..)) =>
            {
                self.origin_within(f, v, depth + 1)
            }
            _ => None,
        });
        let own_name = props
            .iter()
            .any(|p| matches!(p, Prop::Field(k, _) if k == keys::NAME));
        match (own_name, named) {
            (false, Some(origin)) => Some(origin),
            _ => Some((f, line)),
        }
    }

    /// Returns the tool a definition `def` (its name given apart, or its own `name`)
    /// defines at `line`; `spelled` are the hints its own bytes name (see
    /// `hints::spelled`).
    pub(crate) fn tool(
        &self,
        file: usize,
        line: u32,
        family: Family,
        name: Option<&Val>,
        def: &Val,
        spelled: [bool; 4],
    ) -> Resolved {
        let given = name;
        let name = match name {
            Some(v) => self.string(file, v),
            None => match self.field(file, def, "name", 0) {
                Field::Found(f, v) => self.string(f, &v),
                Field::Absent | Field::Hidden => None,
            },
        };
        let mut hints = [None; 4];
        let mut named = [false; 4];
        let annotations = self.field(file, def, "annotations", 0);
        match &annotations {
            Field::Absent => {}
            Field::Found(f, v) => self.apply(*f, v, &mut hints, &mut named, 0),
            // The definition itself is unreadable: whether it declares is not known.
            Field::Hidden => hints = [Some(HintState::Unknown); 4],
        }
        // A hint the definition's own bytes name is declared, though no field read
        // here names it (a form the recogniser does not read): `?`, never absent.
        for (i, hint) in hints.iter_mut().enumerate() {
            if hint.is_none() && spelled[i] && !named[i] {
                *hint = Some(HintState::Unresolved);
            }
        }
        let title = match name {
            Some(_) => None,
            None => self.title(file, def, &annotations),
        };
        let origin = match given {
            Some(v) => owner(v).and_then(|o| self.origin(file, &o)),
            None => self.origin(file, def),
        };
        Resolved {
            file,
            line,
            kind: DefKind::Tool,
            family,
            name,
            title,
            hints,
            origin,
            via: Via::Registration,
        }
    }

    /// Returns a definition's literal `title`, else its annotations' `title`.
    fn title(&self, file: usize, def: &Val, annotations: &Field) -> Option<String> {
        let literal = |field: Field| match field {
            Field::Found(f, v) => self.string(f, &v),
            Field::Absent | Field::Hidden => None,
        };
        literal(self.field(file, def, "title", 0)).or_else(|| match annotations {
            Field::Found(f, v) => literal(self.field(*f, v, "title", 0)),
            Field::Absent | Field::Hidden => None,
        })
    }

    /// Picks the annotations among a 1.x `tool(...)` call's middle arguments as the
    /// SDK's overloads do (`McpServer.tool` in the TypeScript SDK's `server/mcp.ts`):
    /// a leading string is the description; then a Zod raw shape is the parameter
    /// schema, which annotations may follow, and another object is the annotations.
    /// The SDK tells a raw shape by its values (one is a Zod schema, or it is empty);
    /// here an object is the annotations when it sets a hint to something other than
    /// a call, or holds a `title` and no call; an object with a call among its values
    /// (`z.string()`) or none of those keys is a schema, and so is
    /// `<value>.shape`, a Zod object's shape ([`Val::Shape`]), unless the value
    /// resolves to an object literal. `Ok(None)`: none; `Err(())`: an argument the
    /// finder cannot resolve leaves it open whether the annotations are there.
    fn overload(&self, file: usize, args: &[Val]) -> Result<Option<(usize, Val)>, ()> {
        #[derive(PartialEq)]
        enum Arg {
            Text,
            Annotations,
            Schema,
            Unknown,
        }
        let read = |v: &Val| {
            let (is_shape, v) = match v {
                Val::Shape(inner) => (true, &**inner),
                v => (false, v),
            };
            let (f, v) = self.resolve(file, v, 0);
            // A field that holds a schema (a tool object's `inputSchema: {...}`).
            let (is_shape, (f, v)) = match v {
                Val::Shape(inner) => (true, self.resolve(f, &inner, 0)),
                v => (is_shape, (f, v)),
            };
            let arg = match &v {
                Val::Str(_) => Arg::Text,
                Val::Obj { props, .. } => annotations_or_schema(props),
                _ if is_shape => Arg::Schema,
                _ => Arg::Unknown,
            };
            (arg, f, v)
        };
        /// Reads an object literal in the place of the schema or the annotations.
        fn annotations_or_schema(props: &[Prop]) -> Arg {
            let fields = || {
                props.iter().filter_map(|p| match p {
                    Prop::Field(k, v) => Some((k.as_str(), v)),
                    Prop::Spread(_) => None,
                })
            };
            let is_call = |v: &Val| matches!(v, Val::Call(..));
            if fields().any(|(k, v)| hint_of_key(k).is_some() && !is_call(v)) {
                return Arg::Annotations;
            }
            if fields().any(|(_, v)| is_call(v)) {
                return Arg::Schema;
            }
            match fields().any(|(k, _)| k == "title") {
                true => Arg::Annotations,
                false => Arg::Schema,
            }
        }
        let mut read: Vec<(Arg, usize, Val)> = args.iter().map(read).collect();
        match read.first().map(|a| &a.0) {
            Some(Arg::Text) => {
                read.remove(0);
            }
            // Three arguments: a description, a schema and the annotations.
            Some(Arg::Unknown) if read.len() == 3 => {
                read.remove(0);
            }
            _ => {}
        }
        match read.as_slice() {
            [] => Ok(None),
            [(Arg::Annotations, f, v), ..] => Ok(Some((*f, v.clone()))),
            [(Arg::Schema, ..)] | [(Arg::Text, ..)] => Ok(None),
            // After a schema only the annotations may stand.
            [(Arg::Schema, ..), (_, f, v), ..] => Ok(Some((*f, v.clone()))),
            // A description or a schema of unknown kind, then an object: the
            // annotations when it sets a hint, else a schema after a description.
            [(Arg::Unknown, ..), (Arg::Annotations, f, v)] => Ok(Some((*f, v.clone()))),
            [(Arg::Unknown, ..), (Arg::Schema | Arg::Text, ..)] => Ok(None),
            _ => Err(()),
        }
    }

    /// Returns the string a value resolves to.
    fn string(&self, file: usize, val: &Val) -> Option<String> {
        match self.resolve(file, val, 0) {
            (_, Val::Str(s)) => Some(s),
            // A member of a string enumeration is its value.
            (f, Val::Member { value, .. }) => self.string(f, &value),
            _ => None,
        }
    }

    /// Applies an annotations value to the four hints, later fields over earlier ones,
    /// and marks in `named` each hint a field names, whatever the value it reads
    /// (the Go SDK's `ReadOnlyHint: false` and a `None` are named, and absent).
    fn apply(
        &self,
        file: usize,
        val: &Val,
        hints: &mut [Option<HintState>; 4],
        named: &mut [bool; 4],
        depth: u8,
    ) {
        if depth > MAX_CHAIN {
            *hints = [Some(HintState::Unresolved); 4];
            return;
        }
        let (f, val) = self.resolve(file, val, depth);
        match &val {
            Val::Null => {}
            Val::ToolArgs(args) => match self.overload(f, args) {
                Ok(None) => {}
                Ok(Some((g, v))) => self.apply(g, &v, hints, named, depth + 1),
                Err(()) => *hints = [Some(HintState::Unknown); 4],
            },
            Val::Inherited(base) => match self.field(f, base, "annotations", depth + 1) {
                Field::Absent => {}
                Field::Found(g, v) => self.apply(g, &v, hints, named, depth + 1),
                Field::Hidden => *hints = [Some(HintState::Unknown); 4],
            },
            Val::Obj { props, .. } => {
                for prop in props {
                    match prop {
                        Prop::Field(key, v) => {
                            if let Some(hint) = hint_of_key(key) {
                                hints[hint_index(hint)] = self.state(f, v, depth);
                                named[hint_index(hint)] = true;
                            }
                        }
                        Prop::Spread(v) => self.apply(f, v, hints, named, depth + 1),
                    }
                }
            }
            // Which hints an unresolved preset sets is not known: all four read `?`.
            _ => *hints = [Some(HintState::Unresolved); 4],
        }
    }

    /// Returns the state one hint's value gives.
    fn state(&self, file: usize, val: &Val, depth: u8) -> Option<HintState> {
        let (f, val) = self.resolve(file, val, depth + 1);
        match val {
            Val::Bool(true) => Some(HintState::True),
            Val::Bool(false) => Some(HintState::False),
            Val::Null => None,
            // Sent only by the official Go SDK's versions without `omitempty`.
            Val::OmitFalse(inner) => match self.state(f, &inner, depth + 1) {
                Some(HintState::False) if !self.modules.go_sends_false(&self.files[f].path) => None,
                other => other,
            },
            _ => Some(HintState::Unresolved),
        }
    }

    /// Returns the value of field `key` of an object value (the last one, spreads
    /// included): `Absent` when the object has no such field, `Hidden` when an
    /// unresolved spread or a value that is no object hides it.
    pub(crate) fn field(&self, file: usize, obj: &Val, key: &str, depth: u8) -> Field {
        if depth > MAX_CHAIN {
            return Field::Hidden;
        }
        let (f, obj) = self.resolve(file, obj, depth);
        match &obj {
            Val::Obj { props, .. } => {
                for prop in props.iter().rev() {
                    match prop {
                        Prop::Field(k, v) if k == key => return Field::Found(f, v.clone()),
                        Prop::Field(..) => {}
                        Prop::Spread(v) => match self.field(f, v, key, depth + 1) {
                            Field::Absent => {}
                            found => return found,
                        },
                    }
                }
                Field::Absent
            }
            Val::Module(m) => match self.lookup(*m, key, depth + 1) {
                Some((g, v)) => Field::Found(g, v),
                None => Field::Hidden,
            },
            Val::Member { name, value } => match key {
                "value" => Field::Found(f, (**value).clone()),
                "name" => Field::Found(f, Val::Str(name.clone())),
                _ => Field::Hidden,
            },
            // A pair of `Object.entries`: its key and its value.
            Val::Arr(items) => match key.parse::<usize>().ok().and_then(|i| items.get(i)) {
                Some(v) => Field::Found(f, v.clone()),
                None => Field::Hidden,
            },
            Val::Null => Field::Absent,
            _ => Field::Hidden,
        }
    }

    /// Follows references until the value is no reference; `Other` when one cannot
    /// be followed. Returns the file the value was found in.
    pub(crate) fn resolve(&self, file: usize, val: &Val, depth: u8) -> (usize, Val) {
        if depth > MAX_CHAIN {
            return (file, Val::Other);
        }
        match val {
            Val::Call(function, args) => {
                // One level: a factory's own value, its parameters bound to the
                // call's arguments, not what it calls.
                return match self.resolve(file, function, depth + 1) {
                    (f, Val::Returns(params, value)) => {
                        let bound = bind(&value, &params, args, file, 0);
                        self.resolve(f, &bound, depth + 1)
                    }
                    _ => (file, Val::Other),
                };
            }
            Val::At(f, inner) => return self.resolve(*f, inner, depth + 1),
            Val::Field(inner, path) => {
                let (mut f, mut cur) = self.resolve(file, inner, depth + 1);
                for seg in path {
                    match self.field(f, &cur, seg, depth + 1) {
                        Field::Found(g, v) => (f, cur) = (g, v),
                        // A field an element written in full lacks is `undefined`.
                        Field::Absent => return (file, Val::Null),
                        Field::Hidden => return (file, Val::Other),
                    }
                }
                return self.resolve(f, &cur, depth + 1);
            }
            Val::Fallback(first, fallback) => {
                return match self.resolve(file, first, depth + 1) {
                    found @ (_, Val::Str(_) | Val::Member { .. }) => found,
                    _ => self.resolve(file, fallback, depth + 1),
                };
            }
            Val::Helper(call, library) => {
                let defined = match &**call {
                    Val::Call(function, _) => match &**function {
                        Val::Ref(path) => self.lookup(file, &path[0], depth + 1).is_some(),
                        _ => true,
                    },
                    _ => true,
                };
                let read = if defined { call } else { library };
                return self.resolve(file, read, depth + 1);
            }
            _ => {}
        }
        let Val::Ref(path) = val else {
            return (file, val.clone());
        };
        if depth > MAX_CHAIN {
            return (file, Val::Other);
        }
        // Python's `import a.b` makes `a.b.X` a name of module `a/b`: the longest
        // dotted prefix the file imports so is looked up first.
        let dotted = (2..path.len())
            .rev()
            .map(|n| (n, path[..n].join(".")))
            .find(|(_, key)| self.files[file].imports.contains_key(key));
        let (first, rest) = match &dotted {
            Some((n, key)) => (key.as_str(), &path[*n..]),
            None => (path[0].as_str(), &path[1..]),
        };
        let Some((mut f, mut cur)) = self.lookup(file, first, depth + 1) else {
            return (file, Val::Other);
        };
        for seg in rest {
            match self.field(f, &cur, seg, depth + 1) {
                Field::Found(g, v) => (f, cur) = (g, v),
                Field::Absent | Field::Hidden => return (file, Val::Other),
            }
        }
        self.resolve(f, &cur, depth + 1)
    }

    /// Returns what `name` is bound to in a file: its own binding, an import from a
    /// relative module of the tree, a star re-export, or (Go) a binding of another file
    /// of the same package folder.
    pub(super) fn lookup(&self, file: usize, name: &str, depth: u8) -> Option<(usize, Val)> {
        if depth > MAX_CHAIN {
            return None;
        }
        let summary = &self.files[file];
        if let Some(bound) = summary.bindings.get(name) {
            return Some((file, bound.clone().unwrap_or(Val::Other)));
        }
        if let Some(import) = summary.imports.get(name) {
            let target = self.module(file, &import.rel);
            let child = |n: &str| import.rel.child(n);
            return match (&import.name, target) {
                (None, Some(t)) => Some((t, Val::Module(t))),
                (Some(n), Some(t)) => match self.lookup(t, n, depth + 1) {
                    Some(found) => Some(found),
                    // `from . import presets` names a module, not a binding.
                    None => self.module(file, &child(n)).map(|m| (m, Val::Module(m))),
                },
                (Some(n), None) => self.module(file, &child(n)).map(|m| (m, Val::Module(m))),
                (None, None) => None,
            };
        }
        for rel in &summary.star_exports {
            if let Some(t) = self.module(file, &Spec::Relative(rel.clone())) {
                if let Some(found) = self.lookup(t, name, depth + 1) {
                    return Some(found);
                }
            }
        }
        if extension(&summary.path) == b"go" {
            self.pend_package(file, name);
            let parsed = self
                .go_folders
                .get(parent(&summary.path))
                .map_or(&[][..], |p| p.parsed.as_slice());
            for &i in parsed.iter().filter(|&&i| i != file) {
                if let Some(bound) = self.files[i].bindings.get(name) {
                    return Some((i, bound.clone().unwrap_or(Val::Other)));
                }
            }
        }
        None
    }

    /// Returns the files `file` reaches: each module its imports, star re-exports and
    /// effect imports name (a named import also as a module of its own), and in Go
    /// every other file of its folder. An import whose first file is unread reaches
    /// it, not a parsed file further down the list, unless the unread file turns
    /// out to hold nothing: such a parsed file is returned in `Reach::unsure`, with
    /// the unread path it waits on.
    pub(crate) fn reaches(&self, file: usize) -> Reach<'_> {
        let summary = &self.files[file];
        let mut reach = Reach::default();
        let mut add = |rel: &Spec| match self.module_at(file, rel) {
            Module::Parsed(i) => reach.sure.push(i),
            Module::Unread(path, Some(i)) => reach.unsure.push((i, path)),
            Module::Unread(_, None) | Module::Missing => {}
        };
        for rel in summary.modules() {
            add(&rel);
        }
        if let Some(package) = self.go_folders.get(parent(&summary.path)) {
            if extension(&summary.path) == b"go" {
                reach.package = &package.parsed;
            }
        }
        reach
    }

    /// Returns the file a relative module names from `file`: the first of
    /// [`module_paths`] the tree holds. Meeting an unread file first, it records
    /// the file as pending and answers `None`.
    pub(super) fn module(&self, file: usize, rel: &Spec) -> Option<usize> {
        match self.module_at(file, rel) {
            Module::Parsed(i) => Some(i),
            Module::Unread(path, _) => {
                self.pending.borrow_mut().insert(path);
                None
            }
            Module::Missing => None,
        }
    }

    /// Returns where a relative module is: the first of [`module_paths`] that is a
    /// parsed file holding something, or an unread file (with the parsed file after
    /// it, which the module is when the unread file holds nothing).
    fn module_at(&self, file: usize, rel: &Spec) -> Module {
        let from = &self.files[file].path;
        // A Go package is every file of its folder: one parsed file of it answers,
        // and a lookup there records the unread ones that may bind the name.
        let folder = matches!(rel, Spec::Package(_)) && extension(from) == b"go";
        let mut unread = None;
        for &id in self.modules.of(from, rel).iter() {
            match self.at[id] {
                At::Parsed(i) if i != file => {
                    let unread = unread.map(|u| self.modules.path(u).to_vec());
                    return match unread {
                        Some(u) if !folder => Module::Unread(u, Some(i)),
                        _ => Module::Parsed(i),
                    };
                }
                At::Unread if unread.is_none() => unread = Some(id),
                At::Parsed(_) | At::Unread | At::Nowhere => {}
            }
        }
        match unread {
            Some(u) => Module::Unread(self.modules.path(u).to_vec(), None),
            None => Module::Missing,
        }
    }
}

/// What a file's imports reach (see [`Resolver::reaches`]).
#[derive(Default)]
pub(crate) struct Reach<'r> {
    pub(crate) sure: Vec<usize>,
    /// A Go file's package: the parsed files of its folder, itself among them,
    /// each reaching the others. Shared rather than copied into `sure`, so that a
    /// package of n files costs n, not n squared.
    pub(crate) package: &'r [usize],
    /// A parsed file reached only if the unread file before it holds nothing.
    pub(crate) unsure: Vec<(usize, Vec<u8>)>,
}

/// Where a relative module is (see [`Resolver::module_at`]).
enum Module {
    Parsed(usize),
    Unread(Vec<u8>, Option<usize>),
    Missing,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cycle_of_references_ends_unresolved() {
        let mut f = FileSummary {
            path: b"a.ts".to_vec(),
            ..FileSummary::default()
        };
        f.bind("A", Val::name_ref("B"));
        f.bind("B", Val::name_ref("A"));
        let files = [f];
        let modules = Modules::default();
        let r = Resolver::new(&files, &modules);
        assert_eq!(r.resolve(0, &Val::name_ref("A"), 0).1, Val::Other);
    }
}
