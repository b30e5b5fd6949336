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
//! [`feed`] hands the finder a file's bytes from the counter's own read, and
//! [`hints`] holds the four hints and the MCP schema's rules for them (which are
//! meaningful, which a tool omits, what a client resolves), used for a definition
//! found here and by `probe` for a tool on the wire. The lowest stage: it imports
//! only `infra`, and `count`, `table`, `report`, `cli` and the commands import it.

pub mod feed;
pub mod hints;
pub mod names;
pub mod verbs;

mod csharp;
mod golang;
mod java;
mod kotlin;
mod lex;
mod packages;
mod php;
mod prefilter;
mod python;
mod roles;
mod ruby;
mod rust;
mod skim;
mod swift;
mod syntax;
mod typescript;
pub(crate) mod value;

pub use names::NameClass;
pub use roles::{Role, Roles};

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ops::Range;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use aho_corasick::packed;

use memchr::memmem;
use tree_sitter::{Language, ParseOptions, ParseState, Parser, Tree};

use packages::{module_paths, Manifest, Modules};
use value::{FileSummary, Resolver, Spec, Unread};

/// Files larger than this many bytes are not parsed (they are counted in
/// `FoundTools::skipped_files`): a syntax tree takes some tens of bytes per byte of
/// source, and generated bundles this large hold no hand-written registration.
pub const MAX_PARSE_BYTES: usize = 2 * 1024 * 1024;

/// A parse that runs longer than this is abandoned and its file counted as skipped.
pub const PARSE_BUDGET: Duration = Duration::from_secs(4);

/// At most this many bytes of files kept aside (files without an anchor)
/// are held per tree; past it files are let go (see `Aside`), and one that a
/// parsed file's imports then reach is counted as skipped.
pub const MAX_DEFERRED_BYTES: usize = 16 * 1024 * 1024;

/// How one tool sets one hint. Absent is `None` in `ToolDef::hints`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HintState {
    True,
    False,
    /// Declared, its value unreadable: the key is written, or an argument that can
    /// only hold annotations holds something the finder cannot resolve.
    Unresolved,
    /// Not known to be declared: the annotations stand in a position that could hold
    /// something else (a 1.x `tool(...)` argument that may be a schema), or come
    /// from a base class outside the tree. Never counted as a declaration; a
    /// definition sets all four hints to it or none.
    Unknown,
}

impl HintState {
    /// Returns the table cell: `true`, `false`, `?` or `unknown`.
    pub fn as_str(self) -> &'static str {
        match self {
            HintState::True => "true",
            HintState::False => "false",
            HintState::Unresolved => "?",
            HintState::Unknown => "unknown",
        }
    }

    /// Reads a table cell back: `Some(None)` for an empty cell, `None` for text that
    /// is no hint cell.
    pub fn parse(cell: &[u8]) -> Option<Option<HintState>> {
        Some(Some(match cell {
            b"" => return Some(None),
            b"true" => HintState::True,
            b"false" => HintState::False,
            b"?" => HintState::Unresolved,
            b"unknown" => HintState::Unknown,
            _ => return None,
        }))
    }

    /// Returns true for `true` and `false`: a value the source states.
    pub fn is_definite(self) -> bool {
        matches!(self, HintState::True | HintState::False)
    }
}

/// The SDK family a definition was recognised as; `as_str()` is the `sdk` column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// The TypeScript SDK, in TypeScript or in the JavaScript npm packages ship.
    TypeScript,
    /// The Python SDK (1.x and 2.x) and standalone FastMCP.
    Python,
    /// The official Go SDK (`github.com/modelcontextprotocol/go-sdk`).
    Go,
    /// mcp-go (`github.com/mark3labs/mcp-go`).
    McpGo,
    /// rmcp, the official Rust SDK.
    Rmcp,
    /// The official C# SDK.
    CSharp,
    /// The official Java SDK.
    Java,
    /// The official Kotlin SDK.
    Kotlin,
    /// The official PHP SDK (`mcp/sdk`, namespace `Mcp\`).
    Php,
    /// laravel/mcp (namespace `Laravel\Mcp\`).
    Laravel,
    /// The official Ruby SDK (the `mcp` gem).
    Ruby,
    /// The official Swift SDK (`import MCP`).
    Swift,
}

impl Family {
    /// Lists the families in column order.
    pub const ALL: [Family; 12] = [
        Family::TypeScript,
        Family::Python,
        Family::Go,
        Family::McpGo,
        Family::Rmcp,
        Family::CSharp,
        Family::Java,
        Family::Kotlin,
        Family::Php,
        Family::Laravel,
        Family::Ruby,
        Family::Swift,
    ];

    /// Returns the family's name as the `sdk` column spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::TypeScript => "typescript",
            Family::Python => "python",
            Family::Go => "go",
            Family::McpGo => "mcp-go",
            Family::Rmcp => "rmcp",
            Family::CSharp => "csharp",
            Family::Java => "java",
            Family::Kotlin => "kotlin",
            Family::Php => "php",
            Family::Laravel => "laravel",
            Family::Ruby => "ruby",
            Family::Swift => "swift",
        }
    }
}

/// What a definition row stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DefKind {
    /// One tool.
    Tool,
    /// A registration whose name is not resolvable, in a loop, a `map`/`forEach`
    /// callback or over a list the finder cannot read: it registers tools at run
    /// time, how many is not known. Never counted as a tool.
    Dynamic,
}

impl DefKind {
    /// Returns the tools table's `kind` cell.
    pub fn as_str(self) -> &'static str {
        match self {
            DefKind::Tool => "tool",
            DefKind::Dynamic => "dynamic",
        }
    }
}

/// How a definition reads, for the row columns and the summaries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    /// At least one hint `true` or `false`.
    Annotated,
    /// A `?` or `unknown`, and no hint definite.
    Unresolved,
    /// No hint declared.
    Silent,
}

/// One tool definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolDef {
    /// Raw bytes, relative to the tree's top folder (as the files table).
    pub path: Vec<u8>,
    /// 1-based line where the definition starts.
    pub line: u32,
    pub kind: DefKind,
    /// Where in the tree it stands (see `roles`).
    pub role: Role,
    pub family: Family,
    /// The tool's name when it is a literal (or a constant bound to one).
    pub name: Option<String>,
    /// What the name (else the literal title) says the tool does (see `names`).
    pub name_class: NameClass,
    /// The four hints in `Hint::ALL` order; `None` is absent.
    pub hints: [Option<HintState>; 4],
}

impl ToolDef {
    /// Returns how the definition reads: annotated (a hint `true`/`false`),
    /// unresolved (a `?` or `unknown`, none definite) or silent.
    pub fn standing(&self) -> Standing {
        let set = self.hints.iter().flatten();
        if set.clone().any(|h| h.is_definite()) {
            Standing::Annotated
        } else if set.count() > 0 {
            Standing::Unresolved
        } else {
            Standing::Silent
        }
    }

    /// Returns true when at least one hint is `true` or `false`.
    pub fn is_annotated(&self) -> bool {
        self.standing() == Standing::Annotated
    }
}

/// Every definition of one tree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FoundTools {
    /// Sorted by (path bytes, line, name); every kind and role.
    pub tools: Vec<ToolDef>,
    /// Wanted files not parsed because of a bound (size, time).
    pub skipped_files: u64,
}

impl FoundTools {
    /// Returns the tools the tree defines: definitions of kind `tool` in `source`.
    pub fn counted(&self) -> impl Iterator<Item = &ToolDef> + Clone {
        self.tools
            .iter()
            .filter(|t| t.kind == DefKind::Tool && t.role == Role::Source)
    }

    /// Returns the row's tool cells: the tools the tree defines (see
    /// [`FoundTools::counted`]), those annotated, those unresolved, the dynamic
    /// registration sites in source, and the files not parsed.
    pub fn columns(&self) -> [u64; 5] {
        let count = |standing| self.counted().filter(|t| t.standing() == standing).count() as u64;
        let dynamic = self
            .tools
            .iter()
            .filter(|t| t.kind == DefKind::Dynamic && t.role == Role::Source)
            .count() as u64;
        [
            self.counted().count() as u64,
            count(Standing::Annotated),
            count(Standing::Unresolved),
            dynamic,
            self.skipped_files,
        ]
    }
}

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
    /// by path, at most [`packages::MAX_MANIFESTS`].
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

/// How much of a file is parsed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// All but the function bodies no recogniser reads (see [`skim`]).
    Skimmed,
    /// Every byte: what the tests compare the skimmed reading with.
    #[cfg_attr(not(test), allow(dead_code))]
    Whole,
}

/// The files a collector keeps aside, at most [`MAX_DEFERRED_BYTES`] of them. Past
/// the bound the last files in a fixed order are let go: those that hold neither
/// `tool` nor `hint` before those that do, each group in path order. What is kept
/// is then the same whatever the order files arrive in and however a parallel walk
/// split them (each part keeps a subset of what the whole keeps).
#[derive(Default)]
struct Aside {
    /// (holds neither word, path) → bytes.
    kept: BTreeMap<(bool, Vec<u8>), Vec<u8>>,
    bytes: usize,
    /// Paths let go past the bound.
    dropped: BTreeSet<Vec<u8>>,
}

/// Where a file kept aside stands once it is asked for.
enum Taken {
    Kept(Vec<u8>),
    Dropped,
}

impl Aside {
    fn holds(&self, path: &[u8]) -> bool {
        let path = path.to_vec();
        self.dropped.contains(&path)
            || self.kept.contains_key(&(false, path.clone()))
            || self.kept.contains_key(&(true, path))
    }

    /// Keeps a file (the first arrival of a path) and holds the bound.
    fn insert(&mut self, plain: bool, path: Vec<u8>, bytes: Vec<u8>) {
        if self.holds(&path) {
            return;
        }
        self.bytes += bytes.len();
        self.kept.insert((plain, path), bytes);
        while self.bytes > MAX_DEFERRED_BYTES {
            let Some(((_, path), bytes)) = self.kept.pop_last() else {
                break;
            };
            self.bytes -= bytes.len();
            self.dropped.insert(path);
        }
    }

    fn merge(&mut self, other: Aside) {
        self.dropped.extend(other.dropped);
        for ((plain, path), bytes) in other.kept {
            self.insert(plain, path, bytes);
        }
    }

    /// Takes a file out: its bytes when kept, `Dropped` when let go.
    fn take(&mut self, path: &[u8]) -> Option<Taken> {
        if self.dropped.remove(path) {
            return Some(Taken::Dropped);
        }
        let path = path.to_vec();
        self.kept
            .remove(&(false, path.clone()))
            .or_else(|| self.kept.remove(&(true, path)))
            .map(Taken::Kept)
    }

    /// Returns every file kept (with its bytes) or let go.
    fn unread(&self) -> Unread<'_> {
        self.kept
            .iter()
            .map(|((_, p), bytes)| (p.as_slice(), Some(bytes.as_slice())))
            .chain(self.dropped.iter().map(|p| (p.as_slice(), None)))
            .collect()
    }
}

/// The grammar a file is parsed with, chosen by its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lang {
    TypeScript,
    Tsx,
    JavaScript,
    Python,
    Go,
    Rust,
    CSharp,
    Java,
    Kotlin,
    Php,
    Ruby,
    Swift,
}

impl Lang {
    /// Every language, in declaration order (`lang as usize` indexes it).
    const ALL: [Lang; 12] = [
        Lang::TypeScript,
        Lang::Tsx,
        Lang::JavaScript,
        Lang::Python,
        Lang::Go,
        Lang::Rust,
        Lang::CSharp,
        Lang::Java,
        Lang::Kotlin,
        Lang::Php,
        Lang::Ruby,
        Lang::Swift,
    ];

    fn of(path: &[u8]) -> Option<Lang> {
        // The extension in lower case, on the stack: this runs for every file.
        let ext = value::extension_as_written(path);
        let mut lower = [0u8; 5];
        lower.get_mut(..ext.len())?.copy_from_slice(ext);
        lower.make_ascii_lowercase();
        Some(match &lower[..ext.len()] {
            b"ts" | b"mts" | b"cts" => Lang::TypeScript,
            b"tsx" => Lang::Tsx,
            b"js" | b"mjs" | b"cjs" | b"jsx" => Lang::JavaScript,
            b"py" | b"pyi" => Lang::Python,
            b"go" => Lang::Go,
            b"rs" => Lang::Rust,
            b"cs" => Lang::CSharp,
            b"java" => Lang::Java,
            b"kt" | b"kts" => Lang::Kotlin,
            b"php" => Lang::Php,
            b"rb" => Lang::Ruby,
            b"swift" => Lang::Swift,
            _ => return None,
        })
    }

    /// Returns the spellings one of which a file using an MCP SDK of this language's
    /// families holds: the SDKs' package or module paths, and names only an SDK
    /// defines (the TypeScript SDK's `registerTool` and `ListToolsRequestSchema`,
    /// which a monorepo's own wrapper of the SDK passes on). Python's `import mcp`
    /// also matches `from .server import mcp`, the usual way a module reaches the
    /// server object another module made.
    fn sdk_markers(self) -> &'static [&'static [u8]] {
        match self {
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript => &[
                b"@modelcontextprotocol/",
                b"fastmcp",
                b"FastMCP",
                b"mcp-framework",
                b"agents/mcp",
                b"mcp-handler",
                b"registerTool",
                b"ListToolsRequestSchema",
            ],
            Lang::Python => &[b"from mcp", b"import mcp", b"fastmcp", b"FastMCP"],
            Lang::Go => &[b"modelcontextprotocol/go-sdk", b"mark3labs/mcp-go"],
            Lang::Rust => &[b"rmcp"],
            Lang::CSharp => &[b"ModelContextProtocol", b"McpServerTool"],
            Lang::Java => &[b"io.modelcontextprotocol", b"McpSchema"],
            Lang::Kotlin => &[b"io.modelcontextprotocol"],
            // `Mcp\` is in `use Mcp\...`, `\Mcp\...` and `Laravel\Mcp\...` alike.
            Lang::Php => &[b"Mcp\\"],
            Lang::Ruby => &[b"MCP::", b"require \"mcp\"", b"require 'mcp'"],
            Lang::Swift => &[b"import MCP", b"MCP."],
        }
    }

    /// Returns true when `bytes` hold one of the language's SDK spellings, or (in
    /// TypeScript and JavaScript) import a package whose name holds `mcp`: a
    /// monorepo's own wrapper of the SDK (`@repo/mcp-common`, `@acme/mcp-core`).
    fn uses_sdk(self, bytes: &[u8]) -> bool {
        self.holds_an_sdk_marker(bytes)
            || (matches!(self, Lang::TypeScript | Lang::Tsx | Lang::JavaScript)
                && imports_an_mcp_package(bytes))
    }

    /// Whether `bytes` hold one of [`Lang::sdk_markers`], searched for all at once
    /// (the searchers are built once, a language each).
    fn holds_an_sdk_marker(self, bytes: &[u8]) -> bool {
        static SEARCHERS: OnceLock<Vec<Spellings>> = OnceLock::new();
        let searchers = SEARCHERS.get_or_init(|| {
            Lang::ALL
                .iter()
                .map(|lang| Spellings::new(lang.sdk_markers().iter().map(|m| m.to_vec())))
                .collect()
        });
        searchers[self as usize].found_in(bytes)
    }

    /// Returns true for the languages whose files the resolver reads across: by
    /// relative imports (TypeScript, JavaScript, Python, Ruby) or by folder (Go).
    /// A file of any other language without an anchor can change no answer, so it
    /// is not kept aside.
    fn links_files(self) -> bool {
        matches!(
            self,
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript | Lang::Python | Lang::Ruby | Lang::Go
        )
    }

    fn grammar(self) -> Language {
        match self {
            Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::Go => tree_sitter_go::LANGUAGE.into(),
            Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
            Lang::CSharp => tree_sitter_c_sharp::LANGUAGE.into(),
            Lang::Java => tree_sitter_java::LANGUAGE.into(),
            Lang::Kotlin => tree_sitter_kotlin_ng::LANGUAGE.into(),
            Lang::Php => tree_sitter_php::LANGUAGE_PHP.into(),
            Lang::Ruby => tree_sitter_ruby::LANGUAGE.into(),
            Lang::Swift => tree_sitter_swift::LANGUAGE.into(),
        }
    }
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
        Lang::of(path).is_some() || packages::is_manifest(path)
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
            return match packages::is_manifest(path) {
                true => packages::read(path, bytes).map_or(FileRead::Nothing, FileRead::Manifest),
                false => FileRead::Nothing,
            };
        };
        if bytes.len() > MAX_PARSE_BYTES {
            return FileRead::Skipped;
        }
        if !declarations_only(path) && prefilter::anchored(lang, bytes) {
            let lexed = match self.reading {
                Reading::Skimmed => lex::lex(lang, bytes).map(|lexed| {
                    let code = lexed.code(bytes);
                    (lexed, code)
                }),
                Reading::Whole => None,
            };
            // An anchor spelled only in comments, or in strings that cannot hold
            // code, registers nothing: the file is read as one without anchors.
            if lexed
                .as_ref()
                .is_none_or(|(_, code)| prefilter::anchored(lang, code))
            {
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
        if self.manifests.len() > packages::MAX_MANIFESTS {
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
            for file in counted {
                for t in resolver.tools(file) {
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

/// Rounds of [`TreeTools::resolve`] in which only the first unread file of each
/// chain is parsed (see [`unread_on_chains`]); past them, every unread file on a
/// chain is, so that a long chain costs a bounded number of rounds.
const FRONTIER_ROUNDS: usize = 4;

/// Returns the unread files that may stand on a chain of imports from a file using
/// an MCP SDK to a parsed registration in a file that uses none: until they are
/// parsed, whether that registration counts is not known (see [`mcp_files`]). The
/// chains are drawn over every file of the tree, parsed files by their imports and
/// unread ones by what their text may name ([`prefilter::references`]), so every
/// chain parsing every file would find is among them.
///
/// A registration already `counted` (sorted; reached along imports that no unread
/// file can change) needs no chain. In the first [`FRONTIER_ROUNDS`] of `round`, only
/// the first unread file of each chain is returned (one using the SDK itself, or one
/// imported by a parsed file that a file using the SDK reaches through parsed files):
/// once it is parsed, its imports may count the registration, and the files further
/// along need not be read.
fn unread_on_chains(
    files: &[FileSummary],
    unread: &Unread,
    modules: &Modules,
    texts: &mut UnreadTexts,
    counted: &[usize],
    round: usize,
) -> BTreeSet<Vec<u8>> {
    let targets: Vec<usize> = (0..files.len())
        .filter(|&i| !files[i].sites.is_empty() && !files[i].sdk)
        .filter(|i| counted.binary_search(i).is_err())
        .collect();
    if targets.is_empty() || unread.is_empty() {
        return BTreeSet::new();
    }
    // Nodes: the parsed files, then the unread ones, each group in path order.
    let paths: Vec<&[u8]> = files
        .iter()
        .map(|f| f.path.as_slice())
        .chain(unread.keys().copied())
        .collect();
    let parsed = files.len();
    // A file's id (see `Modules`), and the node of each id: the last of a path.
    let ids: Vec<Option<usize>> = paths.iter().map(|p| modules.id(p)).collect();
    let mut node = vec![None; modules.len()];
    for (i, id) in ids.iter().enumerate() {
        if let Some(id) = *id {
            node[id] = Some(i);
        }
    }
    let mut folders: HashMap<&[u8], Vec<usize>> = HashMap::new();
    for (i, p) in paths.iter().enumerate() {
        if is_go(p) {
            folders.entry(value::parent(p)).or_default().push(i);
        }
    }
    for (&from, id) in paths[parsed..].iter().zip(&ids[parsed..]) {
        let Some(id) = *id else { continue };
        if texts.contains_key(&id) {
            continue;
        }
        if let (Some(Some(bytes)), Some(lang)) = (unread.get(from), Lang::of(from)) {
            let text = UnreadText {
                reaches: None,
                uses_sdk: lang.uses_sdk(bytes),
            };
            texts.insert(id, text);
        }
    }
    let uses_sdk: Vec<bool> = (0..paths.len())
        .map(|i| match i < parsed {
            true => files[i].sdk,
            false => ids[i]
                .and_then(|id| texts.get(&id))
                .is_some_and(|t| t.uses_sdk),
        })
        .collect();
    // Forward from the files using an SDK, each node's edges drawn as the walk
    // meets it: an unread file no such file reaches stands on no chain, and its
    // text is not searched for the modules it names.
    let graph = Graph {
        files,
        paths: &paths,
        ids: &ids,
        node: &node,
        folders: &folders,
        unread,
        modules,
    };
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); paths.len()];
    let mut forward = vec![false; paths.len()];
    let mut next: Vec<usize> = (0..paths.len()).filter(|&i| uses_sdk[i]).collect();
    while let Some(i) = next.pop() {
        if !std::mem::replace(&mut forward[i], true) {
            edges[i] = graph.edges(i, texts);
            next.extend(edges[i].iter().copied().filter(|&j| !forward[j]));
        }
    }
    let mut back: Vec<Vec<usize>> = vec![Vec::new(); paths.len()];
    for (i, out) in edges.iter().enumerate() {
        if forward[i] {
            for &j in out {
                back[j].push(i);
            }
        }
    }
    let backward = walk(targets.into_iter().filter(|&t| forward[t]), &back, |_| true);
    let on_chain = |i: usize| forward[i] && backward[i];
    let mut first = vec![round > FRONTIER_ROUNDS; paths.len()];
    if round <= FRONTIER_ROUNDS {
        // The first unread node of a chain starts it, or follows a parsed file that
        // a file using the SDK reaches through parsed files only.
        let reached = walk((0..parsed).filter(|&i| uses_sdk[i]), &edges, |j| j < parsed);
        for i in (0..parsed).filter(|&i| reached[i]) {
            for &j in &edges[i] {
                first[j] = true;
            }
        }
        for i in parsed..paths.len() {
            first[i] |= uses_sdk[i];
        }
    }
    (parsed..paths.len())
        .filter(|&i| on_chain(i) && first[i])
        .map(|i| paths[i].to_vec())
        .collect()
}

/// What [`unread_on_chains`] reads of the text of an unread file, by its id in
/// [`Modules`]: read once however many rounds ask.
type UnreadTexts = HashMap<usize, UnreadText>;

struct UnreadText {
    /// The ids of the files the modules it may name may be
    /// ([`prefilter::references`]), once a walk needs them.
    reaches: Option<Vec<usize>>,
    /// Whether it uses an MCP SDK ([`Lang::uses_sdk`]).
    uses_sdk: bool,
}

impl UnreadText {
    /// Returns the files the text of the file at `from` may reach: a module it
    /// names, and the modules under it (a named import may be one).
    fn reaches(from: &[u8], references: &[Spec], modules: &Modules) -> Vec<usize> {
        let mut out = Vec::new();
        for rel in references {
            // Asked once a file: not kept (see `Modules::of`).
            out.extend(modules.held(module_paths(from, rel, modules.layout())));
            // A module by package names the modules its names may be itself
            // (see `prefilter::references`).
            let under = match rel {
                Spec::Relative(rel) => value::join(value::parent(from), rel),
                Spec::Package(_) => None,
            };
            if let Some(mut folder) = under {
                folder.push(b'/');
                out.extend(modules.under(&folder));
            }
        }
        out
    }
}

/// The nodes of [`unread_on_chains`]: the parsed files, then the unread ones,
/// each group in path order.
struct Graph<'g> {
    files: &'g [FileSummary],
    paths: &'g [&'g [u8]],
    /// Each node's id in `modules`.
    ids: &'g [Option<usize>],
    /// The node of each id.
    node: &'g [Option<usize>],
    /// Go folder → its nodes.
    folders: &'g HashMap<&'g [u8], Vec<usize>>,
    unread: &'g Unread<'g>,
    modules: &'g Modules,
}

impl Graph<'_> {
    /// Returns the nodes node `i` may import: a parsed file's as the resolver reads
    /// them (and every unread file it could meet first), an unread file's as its
    /// text may name them (read once a tree, into `texts`), and in Go the other
    /// files of its folder.
    fn edges(&self, i: usize, texts: &mut UnreadTexts) -> Vec<usize> {
        let (from, parsed) = (self.paths[i], self.files.len());
        let mut out = Vec::new();
        if i < parsed {
            for rel in self.files[i].modules() {
                for &candidate in self.modules.of(from, &rel).iter() {
                    match self.node[candidate] {
                        Some(j) if j == i => {}
                        Some(j) if j < parsed => {
                            out.push(j);
                            break;
                        }
                        Some(j) => out.push(j),
                        None => {}
                    }
                }
            }
        } else if let Some(text) = self.ids[i].and_then(|id| texts.get_mut(&id)) {
            let reaches =
                text.reaches
                    .get_or_insert_with(|| match (self.unread.get(from), Lang::of(from)) {
                        (Some(Some(bytes)), Some(lang)) => {
                            let references = prefilter::references(lang, bytes);
                            UnreadText::reaches(from, &references, self.modules)
                        }
                        _ => Vec::new(),
                    });
            out.extend(reaches.iter().filter_map(|&id| self.node[id]));
        }
        if let Some(same) = self.folders.get(value::parent(from)) {
            if is_go(from) {
                out.extend(same.iter().copied());
            }
        }
        out.retain(|&j| j != i);
        out
    }
}

/// Returns true for a Go file (by its extension, in any case).
fn is_go(path: &[u8]) -> bool {
    value::extension_as_written(path).eq_ignore_ascii_case(b"go")
}

/// Marks every node reached from `starts` along `edges`, through nodes `within`
/// holds only.
fn walk(
    starts: impl Iterator<Item = usize>,
    edges: &[Vec<usize>],
    within: impl Fn(usize) -> bool,
) -> Vec<bool> {
    let mut seen = vec![false; edges.len()];
    let mut next: Vec<usize> = starts.collect();
    while let Some(i) = next.pop() {
        if !std::mem::replace(&mut seen[i], true) {
            next.extend(edges[i].iter().copied().filter(|&j| !seen[j] && within(j)));
        }
    }
    seen
}

/// Returns the files whose definitions count, in path order: those that use an MCP
/// SDK of their family, and those such a file reaches through relative imports (or,
/// in Go, by sharing its folder), transitively. A definition anywhere else belongs to
/// another framework (LangChain's `@tool`, an agent's own registry). A file whose
/// path gives it the role `source` counts only when reached from source files, so
/// that the tree's own tools do not depend on whether tests are read
/// (`--tool-roles`). Also returns the unread files the answer waits on: those
/// before a parsed module an import may reach (see [`value::Reach`]), when reaching
/// it or not changes which registrations count.
fn mcp_files(files: &[FileSummary], resolver: &Resolver) -> (Vec<usize>, BTreeSet<Vec<u8>>) {
    let is_source: Vec<bool> = files
        .iter()
        .map(|f| Role::of_path(&f.path).0 == Role::Source)
        .collect();
    let reach: Vec<value::Reach> = (0..files.len()).map(|i| resolver.reaches(i)).collect();
    let closure = |within: &dyn Fn(usize) -> bool, unsure: bool| {
        let mut reached: BTreeSet<usize> = BTreeSet::new();
        let mut next: Vec<usize> = (0..files.len())
            .filter(|&i| files[i].sdk && within(i))
            .collect();
        while let Some(file) = next.pop() {
            if reached.insert(file) {
                let r = &reach[file];
                let more = r.unsure.iter().map(|(i, _)| *i).filter(|_| unsure);
                next.extend(r.sure.iter().copied().chain(more).filter(|&i| within(i)));
            }
        }
        reached
    };
    let counted = |unsure: bool| -> Vec<usize> {
        let from_source = closure(&|i| is_source[i], unsure);
        let from_any = closure(&|_| true, unsure);
        (0..files.len())
            .filter(|&i| match is_source[i] {
                true => from_source.contains(&i),
                false => from_any.contains(&i),
            })
            .collect()
    };
    let sure = counted(false);
    let registering = |set: &[usize]| -> Vec<usize> {
        set.iter()
            .copied()
            .filter(|&i| !files[i].sites.is_empty())
            .collect()
    };
    let waits = reach.iter().any(|r| !r.unsure.is_empty())
        && registering(&sure) != registering(&counted(true));
    let waiting = match waits {
        true => reach
            .iter()
            .flat_map(|r| r.unsure.iter().map(|(_, p)| p.clone()))
            .collect(),
        false => BTreeSet::new(),
    };
    (sure, waiting)
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

/// Returns true when a JavaScript or TypeScript file imports a package (not a
/// relative path) whose name holds `mcp`: `from "@acme/mcp-core"`,
/// `require('mcp-kit/x')`, `import("@repo/mcp-common/src/app")`. Package names are
/// lower case (npm's rule), so `mcp` is searched as written; each hit is checked to
/// stand in a one-line string literal that an `import`, `from` or `require(` opens.
fn imports_an_mcp_package(bytes: &[u8]) -> bool {
    memmem::find_iter(bytes, b"mcp").any(|at| {
        let line_start = bytes[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let Some(open) = bytes[line_start..at]
            .iter()
            .rposition(|&b| matches!(b, b'"' | b'\'' | b'`'))
            .map(|i| line_start + i)
        else {
            return false;
        };
        let quote = bytes[open];
        let spec = &bytes[open + 1..at];
        if spec.contains(&quote) || spec.first() == Some(&b'.') || spec.contains(&b' ') {
            return false;
        }
        let before = bytes[line_start..open].trim_ascii_end();
        let before = before.strip_suffix(b"(").unwrap_or(before).trim_ascii_end();
        before.ends_with(b"from") || before.ends_with(b"import") || before.ends_with(b"require")
    })
}

/// Returns true for a TypeScript declaration file (`.d.ts`, `.d.mts`, `.d.cts`):
/// types only, no code that runs, so no registration; its constants may still be
/// looked up.
fn declarations_only(path: &[u8]) -> bool {
    let name = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
    [&b".d.ts"[..], b".d.mts", b".d.cts"]
        .iter()
        .any(|ext| name.len() > ext.len() && name.to_ascii_lowercase().ends_with(ext))
}

/// Returns true when a file holds `tool` or `hint` in any ASCII case: a preset or a
/// tool's name is likelier there, so past the bound it is kept over one that does
/// not (see `Aside`). Every file kept aside is read through, most to the end, so the
/// two words' 32 spellings are searched for at once, 2.5 times as fast as comparing
/// every four bytes.
fn mentions(bytes: &[u8]) -> bool {
    static WORDS: OnceLock<Spellings> = OnceLock::new();
    WORDS
        .get_or_init(|| {
            Spellings::new([b"tool", b"hint"].into_iter().flat_map(|word| {
                // Each subset of the letters in upper case.
                (0..16u8).map(move |upper| {
                    word.iter()
                        .enumerate()
                        .map(|(i, &b)| match upper >> i & 1 {
                            1 => b.to_ascii_uppercase(),
                            _ => b,
                        })
                        .collect()
                })
            }))
        })
        .found_in(bytes)
}

/// Fixed spellings searched for at once: one packed SIMD search (Teddy, as the
/// literal count's), or, on a CPU without one, one `memmem` pass a spelling.
/// (An `AhoCorasick` automaton of the same spellings gets no packed prefilter for
/// this many, and is ten times as slow.)
struct Spellings {
    packed: Option<packed::Searcher>,
    spellings: Vec<Vec<u8>>,
}

impl Spellings {
    fn new(spellings: impl IntoIterator<Item = Vec<u8>>) -> Spellings {
        let spellings: Vec<Vec<u8>> = spellings.into_iter().collect();
        let mut builder = packed::Config::new().builder();
        builder.extend(&spellings);
        Spellings {
            packed: builder.build(),
            spellings,
        }
    }

    fn found_in(&self, bytes: &[u8]) -> bool {
        match &self.packed {
            Some(searcher) => searcher.find(bytes).is_some(),
            None => self
                .spellings
                .iter()
                .any(|s| memmem::find(bytes, s).is_some()),
        }
    }
}

/// When this variable is set, every file parsed writes one line to stderr,
/// `tool-parse<TAB>microseconds<TAB>of which skimming and parsing<TAB>bytes<TAB>bytes parsed<TAB>sites<TAB>anchor|needed<TAB>path`,
/// and every tree once finished
/// `tool-finish<TAB>microseconds<TAB>rounds<TAB>files kept<TAB>first path`
/// (paths escaped), so that a benchmark shows where the finder's time goes.
pub const PROFILE_VAR: &str = "MCP_HINT_CENSUS_TOOL_PROFILE";

fn profiling() -> bool {
    static PROFILE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *PROFILE.get_or_init(|| std::env::var_os(PROFILE_VAR).is_some())
}

/// Why a file is parsed, for [`PROFILE_VAR`].
#[derive(Clone, Copy)]
enum Why {
    /// It holds an anchor.
    Anchor,
    /// A lookup or a chain of imports needs it.
    Needed,
}

/// Parses one file and fills its summary; `None` when a bound stopped the parse.
fn summarize(
    lang: Lang,
    path: &[u8],
    bytes: &[u8],
    why: Why,
    reading: Reading,
    lexed: Lexing,
) -> Option<FileSummary> {
    if profiling() {
        let started = Instant::now();
        let summary = summarize_now(lang, path, bytes, reading, lexed);
        eprintln!(
            "tool-parse\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            started.elapsed().as_micros(),
            PARSED.with(|p| p.get().0.as_micros()),
            bytes.len(),
            PARSED.with(|p| p.get().1),
            summary.as_ref().map_or(0, |s| s.sites.len()),
            match why {
                Why::Anchor => "anchor",
                Why::Needed => "needed",
            },
            crate::infra::sanitize::sanitize(path)
        );
        return summary;
    }
    summarize_now(lang, path, bytes, reading, lexed)
}

/// What the lexer read of a file, and the code it gives (see [`lex::Lexed::code`]),
/// when it was read before the parse.
type Lexing = Option<(lex::Lexed, Vec<u8>)>;

thread_local! {
    /// How long the last parse of this thread took, and how many bytes it read,
    /// for [`PROFILE_VAR`].
    static PARSED: std::cell::Cell<(Duration, usize)> =
        const { std::cell::Cell::new((Duration::ZERO, 0)) };
}

fn summarize_now(
    lang: Lang,
    path: &[u8],
    bytes: &[u8],
    reading: Reading,
    lexed: Lexing,
) -> Option<FileSummary> {
    let started = Instant::now();
    let skipped = match (reading, lexed) {
        (Reading::Skimmed, Some((lexed, code))) => skim::bodies_of(lang, bytes, lexed, &code),
        (Reading::Skimmed, None) => skim::bodies(lang, bytes),
        (Reading::Whole, _) => Vec::new(),
    };
    let tree = parse(lang, bytes, &skipped, PARSE_BUDGET);
    let left_out: usize = skipped.iter().map(|r| r.len()).sum();
    PARSED.with(|p| p.set((started.elapsed(), bytes.len() - left_out)));
    let tree = tree?;
    let mut summary = FileSummary {
        path: path.to_vec(),
        sdk: lang.uses_sdk(bytes),
        ..FileSummary::default()
    };
    let root = tree.root_node();
    match lang {
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => {
            typescript::collect(root, bytes, &mut summary)
        }
        Lang::Python => python::collect(root, bytes, &mut summary),
        Lang::Go => golang::collect(root, bytes, &mut summary),
        Lang::Rust => rust::collect(root, bytes, &mut summary),
        Lang::CSharp => csharp::collect(root, bytes, &mut summary),
        Lang::Java => java::collect(root, bytes, &mut summary),
        Lang::Kotlin => kotlin::collect(root, bytes, &mut summary),
        Lang::Php => php::collect(root, bytes, &mut summary),
        Lang::Ruby => ruby::collect(root, bytes, &mut summary),
        Lang::Swift => swift::collect(root, bytes, &mut summary),
    }
    if declarations_only(path) {
        summary.sites.clear();
    }
    // Whether a site repeats matters only where no literal names its tool (see
    // `Resolver::tools`): the walk for it is left out otherwise.
    let unnamed = |site: &value::Site| match &site.kind {
        value::SiteKind::Tool { name, .. } => !matches!(name, Some(value::Val::Str(_))),
        value::SiteKind::List { .. } => true,
    };
    if summary.sites.iter().any(unnamed) {
        let mut lines: Vec<u32> = summary.sites.iter().map(|s| s.line).collect();
        lines.sort_unstable();
        let ranges = syntax::repeated_lines(root, bytes, &lines);
        for site in &mut summary.sites {
            site.repeated = ranges
                .iter()
                .any(|&(start, end)| start <= site.line && site.line <= end);
        }
    }
    Some(summary)
}

/// Parses a file, `skipped` left out, within `budget` ([`PARSE_BUDGET`]); `None` when
/// the budget ran out. A file with syntax errors still parses: tree-sitter marks the
/// errors and the recognisers read what is well formed around them.
fn parse(lang: Lang, bytes: &[u8], skipped: &[Range<usize>], budget: Duration) -> Option<Tree> {
    let mut parser = Parser::new();
    parser.set_language(&lang.grammar()).ok()?;
    if !skipped.is_empty() {
        parser
            .set_included_ranges(&skim::included(bytes, skipped))
            .ok()?;
    }
    let started = Instant::now();
    // Returning true cancels the parse.
    let mut over_budget = |_: &ParseState| started.elapsed() > budget;
    let options = ParseOptions::new().progress_callback(&mut over_budget);
    let len = bytes.len();
    parser.parse_with_options(
        &mut |at, _| if at < len { &bytes[at..] } else { &[] },
        None,
        Some(options),
    )
}

#[cfg(test)]
mod tests;
