//! The tool finder: the tool definitions a tree's source files hold, each with its
//! SDK family, its name when the name is a literal, and each of the four hints as
//! `true`, `false`, `?` (set by something the finder cannot resolve) or absent
//! (docs/method.md, "Tools").
//!
//! Files are parsed with tree-sitter and the official grammar of their language;
//! one module per SDK family turns a syntax tree into a [`value::FileSummary`]
//! (registrations, literal bindings, relative imports), and [`TreeTools::finish`]
//! resolves presets across the files of the tree. This module owns the bounds: a
//! file larger than [`MAX_PARSE_BYTES`], or whose parse runs past
//! [`PARSE_BUDGET`], is not read and is counted as skipped.
//!
//! It also decides which files are parsed at all. Parsing costs far more than
//! matching, so a file is parsed at once only when it holds one of its family's
//! anchors, the spellings a registration cannot do without (`server.tool`,
//! `registerTool`, `Tool(`, `#[tool]`...; see [`prefilter`]). Any other file may
//! still hold a preset, a name or a re-export that a registration uses, or stand
//! between a file using the SDK and a registration it imports: it is kept aside
//! (within [`MAX_DEFERRED_BYTES`]) and parsed when the tree is finished only if a
//! lookup meets it, or if its text may put it on such a chain of imports. The
//! answer is the one parsing every file would give. It reads bytes it is given and
//! never runs, prints or opens anything.
//!
//! Its modules, from the bottom up (each imports only those below it; `.ci/deps.py`
//! checks there is no circle): `model` (the rows), [`hints`], [`roles`](Role),
//! [`names`] and [`verbs`]; `lang` (languages and SDK markers) and `keys` (the one
//! table of tool-shaped keys); `paths`, `manifests` and `packages` (where a module
//! lands), `value` (the value language, the file summary) and `resolver`;
//! `filter/` (anchors, lexers, bodies left out) and `sdk/` (one recogniser per
//! family); `parse` (one file within its bounds), `aside` (files kept aside) and
//! `chains` (which files count, which unread ones a chain of imports may need);
//! this module on top, the collector.
//!
//! [`feed`] hands the finder a file's bytes from the counter's own read, and
//! [`hints`] holds the four hints and the MCP schema's rules for them (which are
//! meaningful, which a tool omits, what a client resolves), used for a definition
//! found here and by `probe` for a tool on the wire. The lowest stage: it imports
//! only `infra`, and `count`, `table`, `report`, `cli` and the commands import it.

pub mod feed;
pub mod hints;
pub mod names;
pub mod verbs;

mod aside;
mod chains;
mod elements;
mod filter;
mod keyed;
mod keys;
mod lang;
mod manifests;
mod model;
mod packages;
mod parse;
mod paths;
mod resolver;
mod roles;
mod sdk;
mod spellings;
mod substitute;
pub(crate) mod value;
mod wrappers;

pub use aside::MAX_DEFERRED_BYTES;
pub use model::{DefKind, Family, FoundTools, HintState, Standing, ToolDef};
pub use names::NameClass;
pub use parse::{PARSE_BUDGET, PROFILE_VAR};
pub use roles::{Role, Roles};

use std::collections::{BTreeMap, HashSet};
use std::time::Instant;

use aside::{mentions, Aside, Taken};
use chains::{mcp_files, unread_on_chains, UnreadTexts};
use filter::{lex, prefilter};
use lang::Lang;
use manifests::Manifest;
use packages::Modules;
use parse::{declarations_only, profiling, summarize, Reading, Why};
use resolver::{Resolved, Resolver, Via};
use value::FileSummary;

/// Files larger than this many bytes are not parsed (they are counted in
/// `FoundTools::skipped_files`): a syntax tree takes some tens of bytes per byte of
/// source, and generated bundles this large hold no hand-written registration.
pub const MAX_PARSE_BYTES: usize = 2 * 1024 * 1024;

/// Collects the tool definitions of one tree file by file, then resolves presets
/// across files of the same tree. Memory per file is bounded; see [`MAX_PARSE_BYTES`].
pub struct TreeTools {
    /// Whose files are read (see [`Roles`]).
    roles: Roles,
    files: Vec<FileSummary>,
    skipped: u64,
    /// Files without an anchor: read in [`TreeTools::finish`] when needed.
    aside: Aside,
    /// Whether the bodies [`skim::bodies`] finds are left out of each parse.
    reading: Reading,
    /// The manifests that say where the tree's own packages are (see [`packages`]),
    /// by path, at most [`manifests::MAX_MANIFESTS`].
    manifests: BTreeMap<Vec<u8>, Manifest>,
}

/// What reading one file gives a collector (see [`TreeTools::add_file_to_each`]).
#[derive(Clone)]
enum FileRead {
    /// Not a file the finder reads.
    Nothing,
    /// Past a bound: counted as skipped.
    Skipped,
    Parsed(FileSummary),
    /// Without an anchor: kept aside, `plain` when it holds neither `tool` nor `hint`.
    Aside {
        plain: bool,
    },
    /// A manifest (`go.mod`, `package.json`, `tsconfig.json`), what it says.
    Manifest(Manifest),
}

impl Default for TreeTools {
    fn default() -> TreeTools {
        TreeTools::with_roles(Roles::ALL)
    }
}

impl TreeTools {
    /// Returns an empty collector that reads the files of every role.
    pub fn new() -> TreeTools {
        TreeTools::default()
    }

    /// Returns an empty collector that reads the files of `roles` only.
    pub fn with_roles(roles: Roles) -> TreeTools {
        TreeTools {
            roles,
            files: Vec::new(),
            skipped: 0,
            aside: Aside::default(),
            reading: Reading::Skimmed,
            manifests: BTreeMap::new(),
        }
    }

    /// Returns true when a file with this path may hold a definition (by its name alone:
    /// extension), or say where the tree's own packages are (a manifest by its
    /// name: `go.mod`, `package.json`, `tsconfig.json`). Callers buffer the file's
    /// bytes only when this is true.
    pub fn wants(path: &[u8]) -> bool {
        Lang::of(path).is_some() || manifests::is_manifest(path)
    }

    /// Reads one whole file. Files over MAX_PARSE_BYTES, or that a bound stops, are not
    /// parsed and are counted in `skipped`; a file without an anchor is kept aside
    /// (see the module's documentation).
    pub fn add_file(&mut self, path: &[u8], bytes: &[u8]) {
        TreeTools::add_file_to_each([self], path, bytes);
    }

    /// Reads one whole file for several collectors of the same roles (a tree and its
    /// subfolder trees, which hold the same file at the same path): it is parsed once.
    pub fn add_file_to_each<'t>(
        collectors: impl IntoIterator<Item = &'t mut TreeTools>,
        path: &[u8],
        bytes: &[u8],
    ) {
        let mut collectors = collectors.into_iter().peekable();
        let mut shared: Option<(Roles, Reading, FileRead)> = None;
        while let Some(tools) = collectors.next() {
            let read = match shared.take() {
                Some((roles, reading, read))
                    if roles == tools.roles && reading == tools.reading =>
                {
                    read
                }
                _ => tools.read_file(path, bytes),
            };
            // Copied only for a collector that follows.
            if collectors.peek().is_some() {
                shared = Some((tools.roles, tools.reading, read.clone()));
            }
            tools.keep(read, path, bytes);
        }
    }

    /// What reading a file gives, before it is kept.
    fn read_file(&self, path: &[u8], bytes: &[u8]) -> FileRead {
        if !self.roles.contains(Role::of_path(path).0) {
            return FileRead::Nothing;
        }
        let Some(lang) = Lang::of(path) else {
            return match manifests::is_manifest(path) {
                true => manifests::read(path, bytes).map_or(FileRead::Nothing, FileRead::Manifest),
                false => FileRead::Nothing,
            };
        };
        if bytes.len() > MAX_PARSE_BYTES {
            return FileRead::Skipped;
        }
        // The lexer reads a file once: for the anchors when they ask whether an
        // object is tool-shaped, and for the bodies the parse leaves out.
        let mut lexed: Option<Option<lex::Lexed>> = None;
        let forms = || {
            lexed
                .get_or_insert_with(|| lex::lex(lang, bytes))
                .as_ref()
                .map(|l| l.forms)
        };
        if !declarations_only(path) && prefilter::anchored_with(lang, bytes, forms) {
            let lexed = match self.reading {
                Reading::Skimmed => lexed.unwrap_or_else(|| lex::lex(lang, bytes)).map(|lexed| {
                    let code = lexed.code(bytes);
                    (lexed, code)
                }),
                Reading::Whole => None,
            };
            // An anchor spelled only in comments, or in strings that cannot hold
            // code, registers nothing: the file is read as one without anchors.
            if lexed.as_ref().is_none_or(|(lexed, code)| {
                prefilter::anchored_with(lang, code, || Some(lexed.forms))
            }) {
                return match summarize(lang, path, bytes, Why::Anchor, self.reading, lexed) {
                    Some(summary) => FileRead::Parsed(summary),
                    None => FileRead::Skipped,
                };
            }
        }
        if lang.links_files() {
            FileRead::Aside {
                plain: !mentions(bytes),
            }
        } else {
            FileRead::Nothing
        }
    }

    /// Keeps what reading a file gave.
    fn keep(&mut self, read: FileRead, path: &[u8], bytes: &[u8]) {
        match read {
            FileRead::Nothing => {}
            FileRead::Skipped => self.skipped += 1,
            FileRead::Parsed(summary) if summary.is_empty() => {}
            FileRead::Parsed(summary) => self.files.push(summary),
            FileRead::Aside { plain } => self.aside.insert(plain, path.to_vec(), bytes.to_vec()),
            FileRead::Manifest(manifest) => self.keep_manifest(path.to_vec(), manifest),
        }
    }

    /// Keeps a manifest within the bound, the first in path order past it.
    fn keep_manifest(&mut self, path: Vec<u8>, manifest: Manifest) {
        self.manifests.insert(path, manifest);
        if self.manifests.len() > manifests::MAX_MANIFESTS {
            self.manifests.pop_last();
        }
    }

    /// Parses one file and keeps its summary when it holds anything.
    fn read(&mut self, lang: Lang, path: &[u8], bytes: &[u8], why: Why) {
        match summarize(lang, path, bytes, why, self.reading, None) {
            Some(summary) => self.keep(FileRead::Parsed(summary), path, bytes),
            None => self.skipped += 1,
        }
    }

    /// Records a file that was wanted but not buffered because it is larger than MAX_PARSE_BYTES.
    pub fn skip_file(&mut self, path: &[u8]) {
        if Lang::of(path).is_some() && self.roles.contains(Role::of_path(path).0) {
            self.skipped += 1;
        }
    }

    /// Joins another collector of the same tree (parallel walks).
    pub fn merge(&mut self, other: TreeTools) {
        self.files.extend(other.files);
        self.skipped += other.skipped;
        self.aside.merge(other.aside);
        for (path, manifest) in other.manifests {
            self.keep_manifest(path, manifest);
        }
    }

    /// Parses a file kept aside; one let go past the bound counts as skipped.
    fn read_aside(&mut self, path: &[u8]) {
        match self.aside.take(path) {
            Some(Taken::Kept(bytes)) => {
                let lang = Lang::of(path).expect("only wanted files are kept aside");
                self.read(lang, path, &bytes, Why::Needed);
            }
            Some(Taken::Dropped) => self.skipped += 1,
            None => {}
        }
    }

    /// Resolves presets across files and returns every definition sorted by (path
    /// bytes, line), each with its role. Files kept aside are parsed as the answer
    /// needs them: the tools are resolved, every unread file a lookup met or that
    /// may stand on a chain of imports into a registration is parsed, and the tools
    /// resolved again, until no unread file is needed.
    pub fn finish(mut self) -> FoundTools {
        let tools = self.resolve();
        FoundTools {
            tools,
            skipped_files: self.skipped,
        }
    }

    /// Parses what the answer needs (see [`TreeTools::finish`]) and returns it.
    fn resolve(&mut self) -> Vec<ToolDef> {
        self.resolve_in_rounds().0
    }

    /// [`TreeTools::resolve`], and how many rounds it took.
    fn resolve_in_rounds(&mut self) -> (Vec<ToolDef>, usize) {
        let started = Instant::now();
        let mut rounds = 0;
        let mut texts = UnreadTexts::new();
        let mut modules = None;
        loop {
            rounds += 1;
            // The order files arrive in (parallel walks) must not change the answer.
            self.files.sort_by(|a, b| a.path.cmp(&b.path));
            self.files.dedup_by(|a, b| a.path == b.path);
            let unread = self.aside.unread();
            // Every file the resolver may meet is known from the first round on.
            let modules: &Modules = modules.get_or_insert_with(|| {
                let paths = self.files.iter().map(|f| f.path.as_slice());
                Modules::new(&self.manifests, paths.chain(unread.keys().copied()))
            });
            let resolver = Resolver::with_unread(&self.files, &unread, modules);
            let mut tools = Vec::new();
            let (counted, waiting) = mcp_files(&self.files, &resolver);
            let mut needed =
                unread_on_chains(&self.files, &unread, modules, &mut texts, &counted, rounds);
            needed.extend(waiting);
            let resolved = counted.into_iter().flat_map(|file| resolver.tools(file));
            for t in once_each(resolved.collect(), &self.files) {
                tools.push(ToolDef {
                    path: self.files[t.file].path.clone(),
                    line: t.line,
                    kind: t.kind,
                    role: Role::Source,
                    family: t.family,
                    name_class: NameClass::of(t.name.as_deref(), t.title.as_deref()),
                    name: t.name,
                    hints: t.hints,
                });
            }
            needed.extend(resolver.pending());
            if needed.is_empty() {
                tools.sort_by(|a, b| {
                    (&a.path, a.line, &a.name, a.kind, a.family, a.hints)
                        .cmp(&(&b.path, b.line, &b.name, b.kind, b.family, b.hints))
                });
                assign_roles(&mut tools);
                if profiling() {
                    eprintln!(
                        "tool-finish\t{}\t{}\t{}\t{}",
                        started.elapsed().as_micros(),
                        rounds,
                        self.files.len(),
                        self.files
                            .first()
                            .map_or(String::new(), |f| crate::infra::sanitize::sanitize(&f.path))
                    );
                }
                return (tools, rounds);
            }
            for path in needed {
                self.read_aside(&path);
            }
        }
    }
}

/// Returns each tool once: a tool-shaped object that a registration of the same
/// role defines too (the same object, or a tool of the same family and name) is
/// that registration's tool, and an element two loops run over (a server started
/// over two transports) is one tool.
fn once_each(tools: Vec<Resolved>, files: &[FileSummary]) -> Vec<Resolved> {
    let role = |t: &Resolved| Role::of_path(&files[t.file].path).0;
    let registered = tools.iter().filter(|t| t.via != Via::Shaped);
    let origins: HashSet<(usize, u32)> = registered.clone().filter_map(|t| t.origin).collect();
    let names: HashSet<(Role, Family, &str)> = registered
        .filter_map(|t| Some((role(t), t.family, t.name.as_deref()?)))
        .collect();
    let mut elements = HashSet::new();
    let keep: Vec<bool> = tools
        .iter()
        .map(|t| match t.via {
            Via::Registration => true,
            Via::Element => {
                t.origin.is_none() || elements.insert((t.origin, t.family, t.name.clone()))
            }
            Via::Shaped => {
                !t.origin.is_some_and(|o| origins.contains(&o))
                    && !t
                        .name
                        .as_deref()
                        .is_some_and(|n| names.contains(&(role(t), t.family, n)))
            }
        })
        .collect();
    tools
        .into_iter()
        .zip(keep)
        .filter_map(|(t, keep)| keep.then_some(t))
        .collect()
}

/// Gives each definition its role (see `roles`): by its path, and for a definition
/// under a build output folder, `build` when a definition elsewhere, or an earlier
/// one under such a folder, has its family and name (a tool defined in `src/` and
/// again in `dist/` counts once).
fn assign_roles(tools: &mut [ToolDef]) {
    let mut outputs = Vec::new();
    let mut named: HashSet<(Family, String)> = HashSet::new();
    for (i, tool) in tools.iter_mut().enumerate() {
        let (role, in_output) = Role::of_path(&tool.path);
        tool.role = role;
        match (in_output, &tool.name) {
            (true, _) => outputs.push(i),
            (false, Some(name)) if role == Role::Source => {
                named.insert((tool.family, name.clone()));
            }
            _ => {}
        }
    }
    for i in outputs {
        let tool = &mut tools[i];
        if let Some(name) = &tool.name {
            if !named.insert((tool.family, name.clone())) {
                tool.role = Role::Build;
            }
        }
    }
}

#[cfg(test)]
mod tests;
