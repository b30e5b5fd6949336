//! The small value language the family recognisers translate source into, and the
//! per-file summary they fill (docs/method.md, "Tools"); the
//! [`resolver`](super::resolver) follows it across the files of one tree.
//!
//! A recogniser never resolves anything itself: it records literals, references to
//! names and the registrations it saw. Resolution happens once every file of the
//! tree is summarised, so that a preset defined in one file and imported by another
//! reads the same as one defined beside its tools. Everything here is bounded: the
//! depth of a value, its size and the number of bindings per file.

use std::collections::HashMap;
use std::ops::Range;

use super::model::Family;
pub(crate) use super::packages::{extension, extension_as_written, join, parent, Spec};
use crate::tools::hints::Hint;

/// Values deeper than this are recorded as `Other` (an expression the finder does not read).
pub(crate) const MAX_VALUE_DEPTH: usize = 24;
/// A binding whose value has more nodes than this is not kept.
const MAX_BINDING_NODES: usize = 512;
/// At most this many bindings are kept per file.
const MAX_BINDINGS: usize = 4096;
/// A literal string longer than this is not kept as a name.
pub(crate) const MAX_STRING_BYTES: usize = 256;

/// A value as far as the finder reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Val {
    Bool(bool),
    Str(String),
    /// `null`, `None`, `undefined`, `nil`: the hint is not sent.
    Null,
    /// An object, dict, struct or constructor call read as named fields, in source order.
    Obj {
        line: u32,
        props: Vec<Prop>,
    },
    Arr(Vec<Val>),
    /// A name, or a dotted path of names (`presets.READ_ONLY`).
    Ref(Vec<String>),
    /// A boolean the SDK leaves out of the wire when it is false (the Go SDK's
    /// `ReadOnlyHint bool` with `omitempty`).
    OmitFalse(Box<Val>),
    /// A module reached through a namespace import; only made while resolving.
    Module(usize),
    /// The arguments between a TypeScript 1.x `tool(name, ..., cb)` call's name and
    /// its callback: which of them is the annotations is decided once they resolve,
    /// as the SDK's overloads decide it at run time (see [`Resolver::overload`]).
    ToolArgs(Vec<Val>),
    /// A middle argument of a 1.x `tool(...)` call spelt `<value>.shape`
    /// (`schema.shape`, `z.object({...}).shape`): a Zod object's shape, a raw shape of
    /// parameters, unless the value it holds resolves to an object literal.
    Shape(Box<Val>),
    /// A member of an enumeration (`Tools.STATUS`): its value where a string is
    /// read, `.value` and `.name` as Python's `Enum` gives them.
    Member {
        name: String,
        value: Box<Val>,
    },
    /// A function whose body returns this value (a factory of a tool object), and
    /// its parameters' names in order, each with its default value.
    Returns(Vec<Param>, Box<Val>),
    /// A call of the function this value names, with its arguments: what that
    /// function returns, its parameters bound to the arguments.
    Call(Box<Val>, Vec<Val>),
    /// A call (a [`Val::Call`]) of a function a library may define under that name
    /// (Go's `jsonschema.Ptr(true)`): what the tree's function returns when the tree
    /// defines the name, else the second value, what the library's helper is known to
    /// give (its argument).
    Helper(Box<Val>, Box<Val>),
    /// A keyword argument of a [`Val::Call`] (Python's `f(destructive=True)`): bound
    /// to the factory's parameter of that name.
    Keyword(String, Box<Val>),
    /// A value read in the file of this index rather than where it is met: an
    /// argument a call binds to a factory's parameter. Only made while resolving.
    At(usize, Box<Val>),
    /// The annotations a class inherits from the base class this value names: read
    /// when the base class is in the tree, unknown when it is not.
    Inherited(Box<Val>),
    /// The values of an object's fields or a module's bindings, in the order they
    /// are read (JavaScript's `Object.values(x)`).
    Values(Box<Val>),
    /// Each field of an object or binding of a module as a `[key, value]` pair
    /// (JavaScript's `Object.entries(x)`).
    Entries(Box<Val>),
    /// A field of a value, by a path of field names (a pair's `0` and `1`): what an
    /// element of a list gives a loop's variable (`tool.annotations`).
    Field(Box<Val>, Vec<String>),
    /// A value with a literal fallback (`name || "status"`, `name ?? "status"`):
    /// the first when it resolves to a string, else the fallback.
    Fallback(Box<Val>, Box<Val>),
    /// Anything else: a call, an operator, a parameter.
    Other,
}

/// A parameter of a factory: its name (empty for a pattern, which binds nothing
/// the finder reads) and its default value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Param {
    pub(crate) name: String,
    pub(crate) default: Option<Val>,
}

/// Returns the value of the first field called `key` among `props`.
pub(crate) fn field<'p>(props: &'p [Prop], key: &str) -> Option<&'p Val> {
    props.iter().find_map(|p| match p {
        Prop::Field(k, v) if k == key => Some(v),
        _ => None,
    })
}

/// One field of an object value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Prop {
    /// A named field; hint fields carry the hint's schema name (`readOnlyHint`), the
    /// two fields the resolver asks for are `name` and `annotations`.
    Field(String, Val),
    /// A spread (`...PRESET`, `**PRESET`, `..Default::default()`).
    Spread(Val),
}

impl Val {
    /// Returns an object value with these fields.
    pub(crate) fn obj(line: u32, props: Vec<Prop>) -> Val {
        Val::Obj { line, props }
    }

    /// Returns a definition whose only field is `annotations`, when there are any:
    /// what a registration that gives its hints apart from the tool object defines.
    pub(crate) fn annotated(line: u32, annotations: Option<Val>) -> Val {
        let props = annotations
            .map(|a| vec![Prop::Field("annotations".to_string(), a)])
            .unwrap_or_default();
        Val::obj(line, props)
    }

    /// Returns a reference to one name.
    pub(crate) fn name_ref(name: &str) -> Val {
        Val::Ref(vec![name.to_string()])
    }

    /// Returns the number of nodes in the value.
    fn size(&self) -> usize {
        match self {
            Val::Obj { props, .. } => {
                1 + props
                    .iter()
                    .map(|p| match p {
                        Prop::Field(_, v) | Prop::Spread(v) => v.size(),
                    })
                    .sum::<usize>()
            }
            Val::Arr(items) => 1 + items.iter().map(Val::size).sum::<usize>(),
            Val::OmitFalse(v)
            | Val::Inherited(v)
            | Val::At(_, v)
            | Val::Shape(v)
            | Val::Values(v)
            | Val::Entries(v)
            | Val::Field(v, _) => 1 + v.size(),
            Val::Fallback(v, fallback) => 1 + v.size() + fallback.size(),
            Val::Returns(params, v) => {
                1 + v.size()
                    + params
                        .iter()
                        .map(|p| p.default.as_ref().map_or(1, Val::size))
                        .sum::<usize>()
            }
            Val::Call(f, args) => 1 + f.size() + args.iter().map(Val::size).sum::<usize>(),
            Val::Helper(call, library) => 1 + call.size() + library.size(),
            Val::Keyword(_, v) => 1 + v.size(),
            Val::Member { value, .. } => 1 + value.size(),
            Val::ToolArgs(items) => 1 + items.iter().map(Val::size).sum::<usize>(),
            _ => 1,
        }
    }

    /// Returns true for a value worth binding to a name: a literal or a reference.
    fn is_bindable(&self) -> bool {
        !matches!(self, Val::Other | Val::Module(_))
    }
}

/// Returns the hint whose schema name is `key`, exactly.
pub(crate) fn hint_of_key(key: &str) -> Option<Hint> {
    Hint::ALL.into_iter().find(|h| h.name() == key)
}

/// Returns the position of a hint in `Hint::ALL`.
pub(crate) fn hint_index(hint: Hint) -> usize {
    Hint::ALL
        .iter()
        .position(|h| *h == hint)
        .expect("every hint is in Hint::ALL")
}

/// Returns the schema name of the hint a key spells in camelCase (`readOnlyHint`)
/// or snake_case (`read_only_hint`), or the key itself.
pub(crate) fn canonical_key(key: &str) -> String {
    match key {
        "read_only_hint" => "readOnlyHint".to_string(),
        "destructive_hint" => "destructiveHint".to_string(),
        "idempotent_hint" => "idempotentHint".to_string(),
        "open_world_hint" => "openWorldHint".to_string(),
        _ => key.to_string(),
    }
}

/// A registration: where a tool is defined, and what defines it.
#[derive(Clone, Debug)]
pub(crate) struct Site {
    pub(crate) line: u32,
    pub(crate) family: Family,
    pub(crate) kind: SiteKind,
    /// True when the registration runs once per element of something: it sits in a
    /// loop, a comprehension, or a callback passed to `forEach`/`map` and the like.
    pub(crate) repeated: bool,
    /// The bytes of the file the definition spans: the call, attribute, literal or
    /// class that defines the tool.
    pub(crate) extent: Range<usize>,
    /// The hints whose names those bytes spell (see `hints::spelled`), in
    /// `Hint::ALL` order: filled once the file is read, for every family alike.
    pub(crate) spelled: [bool; 4],
    /// True for a Go project's own `Tool` type, whose SDK is the one its `go.mod`
    /// requires (`family` where it requires none).
    pub(crate) of_module: bool,
}

impl Site {
    /// Returns a site that is not repeated, spanning `extent`.
    pub(crate) fn new(line: u32, extent: Range<usize>, family: Family, kind: SiteKind) -> Site {
        Site {
            line,
            family,
            kind,
            repeated: false,
            extent,
            spelled: [false; 4],
            of_module: false,
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) enum SiteKind {
    /// One tool. `name` is the name given apart from the definition (`server.tool("x", ...)`),
    /// or `None` when the definition's own `name` field gives it; `def` is an object
    /// whose `annotations` field holds the hints (absent: no hints).
    Tool { name: Option<Val>, def: Val },
    /// A list of tool objects (a low-level `tools/list` answer). Each element is a
    /// tool; an element the finder cannot resolve is a tool of unknown name and
    /// hints, unless `strict`, when only elements that resolve to objects count.
    List { items: Val, strict: bool },
    /// A registration run once per element of `items` (`for (const t of tools)`,
    /// `tools.forEach((t) => ...)`): `site` read once per element, each name of
    /// `pattern` standing for the element's field at its path (an empty path: the
    /// element itself). When `items` does not resolve to a list, `site` is read as
    /// it is, once (see [`Site::repeated`]).
    Each {
        items: Val,
        pattern: Pattern,
        site: Box<SiteKind>,
    },
    /// A tool-shaped object passed to a call that is no registration (a project's
    /// own `defineTool({...})`): one tool, unless a registration of the tree defines
    /// the same tool (the same object or the same name).
    Shaped(Val),
    /// A call that passes SDK options to a function of the tree: one tool when the
    /// function is a tool wrapper (see `wrappers`), else none.
    Wrapped(Val),
    /// A call of a function of one object without a `name`, the value of a key
    /// (`list_projects: tool({ annotations, execute })`): one tool named `key`
    /// when the function gives its argument back and the object is tool-shaped
    /// (see `keyed`), else none. `call` is the [`Val::Call`].
    Keyed { key: String, call: Val },
}

/// The names a loop's variable binds, each with its path of fields in the element
/// (`for (const { name } of tools)`: `name` at `["name"]`).
pub(crate) type Pattern = Vec<(String, Vec<String>)>;

/// How a name is imported into a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Import {
    /// The module it is imported from.
    pub(crate) rel: Spec,
    /// The imported name; `None` for a namespace import (`import * as p`, `require`, `from . import p`).
    pub(crate) name: Option<String>,
}

/// What one file contributes: its registrations, the names it binds to literal
/// values, and the names it imports from relative modules.
#[derive(Clone, Debug, Default)]
pub(crate) struct FileSummary {
    pub(crate) path: Vec<u8>,
    pub(crate) sites: Vec<Site>,
    /// Name → value; `None` when the name is bound twice (the finder does not guess which).
    pub(crate) bindings: HashMap<String, Option<Val>>,
    pub(crate) imports: HashMap<String, Import>,
    /// Relative modules re-exported whole (`export * from './x'`).
    pub(crate) star_exports: Vec<String>,
    /// Relative modules imported for their effect alone (`import "./tools.js"`,
    /// a bare `require("./x")`): reached, though no name is taken from them.
    pub(crate) reaches: Vec<String>,
    /// True when the file holds a spelling of an MCP SDK of its family.
    pub(crate) sdk: bool,
}

impl FileSummary {
    /// Binds `name` to `val`, forgetting values too large to keep; a second binding of
    /// the same name makes it unresolvable.
    pub(crate) fn bind(&mut self, name: &str, val: Val) {
        if let Some(slot) = self.bindings.get_mut(name) {
            *slot = None;
            return;
        }
        if self.bindings.len() >= MAX_BINDINGS {
            return;
        }
        let kept = (val.is_bindable() && val.size() <= MAX_BINDING_NODES).then_some(val);
        self.bindings.insert(name.to_string(), kept);
    }

    /// Records that `local` names `import` (the first import of a name wins).
    pub(crate) fn import(&mut self, local: &str, import: Import) {
        if self.imports.len() < MAX_BINDINGS {
            self.imports.entry(local.to_string()).or_insert(import);
        }
    }

    /// Records a module imported for its effect alone.
    pub(crate) fn reach(&mut self, rel: String) {
        if self.reaches.len() < MAX_BINDINGS {
            self.reaches.push(rel);
        }
    }

    /// Returns every relative module the file's imports name, as the resolver
    /// follows them: each import's module (a named import also as a module of its
    /// own, `from . import presets`), star re-exports and effect imports.
    pub(crate) fn modules(&self) -> Vec<Spec> {
        let mut out = Vec::new();
        for import in self.imports.values() {
            out.push(import.rel.clone());
            if let Some(name) = &import.name {
                out.push(import.rel.child(name));
            }
        }
        out.extend(self.star_exports.iter().cloned().map(Spec::Relative));
        out.extend(self.reaches.iter().cloned().map(Spec::Relative));
        out
    }

    /// Returns true when the summary holds nothing another file could use, and
    /// reaches no file.
    pub(crate) fn is_empty(&self) -> bool {
        self.sites.is_empty()
            && self.bindings.is_empty()
            && self.imports.is_empty()
            && self.star_exports.is_empty()
            && self.reaches.is_empty()
    }
}

/// Returns the relative module a Python relative import names, as
/// [`module_paths`] takes it: `.a.b` is `./a/b`, `..` is `..`, `...c` is `../../c`.
pub(crate) fn python_relative(module: &str) -> String {
    let dots = module.bytes().take_while(|&b| b == b'.').count();
    let rest = &module[dots..];
    let mut rel = if dots <= 1 {
        ".".to_string()
    } else {
        vec![".."; dots - 1].join("/")
    };
    if !rest.is_empty() {
        rel.push('/');
        rel.push_str(&rest.replace('.', "/"));
    }
    rel
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_folds_dots_and_refuses_to_climb_out() {
        assert_eq!(join(b"src/tools", "../presets").unwrap(), b"src/presets");
        assert_eq!(join(b"", "./a/b").unwrap(), b"a/b");
        assert_eq!(join(b"src", "."), Some(b"src".to_vec()));
        assert_eq!(join(b"src", "../../x"), None);
    }

    #[test]
    fn a_name_bound_twice_is_unresolved() {
        let mut f = FileSummary::default();
        f.bind("A", Val::Bool(true));
        f.bind("A", Val::Bool(false));
        assert_eq!(f.bindings.get("A"), Some(&None));
    }
}
