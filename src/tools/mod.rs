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
//! [`PARSE_BUDGET`], is not read and is counted as skipped; a file that holds
//! neither `tool` nor `hint` (ASCII case-insensitively) cannot define a tool in any
//! recognised form and is not parsed. It reads bytes it is given and never runs,
//! prints or opens anything.

mod csharp;
mod golang;
mod java;
mod kotlin;
mod python;
mod rust;
mod syntax;
mod typescript;
pub(crate) mod value;

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use aho_corasick::AhoCorasick;
use tree_sitter::{Language, ParseOptions, ParseState, Parser, Tree};

use value::{FileSummary, Resolver};

/// Files larger than this many bytes are not parsed (they are counted in
/// `FoundTools::skipped_files`): a syntax tree takes some tens of bytes per byte of
/// source, and generated bundles this large hold no hand-written registration.
pub const MAX_PARSE_BYTES: usize = 2 * 1024 * 1024;

/// A parse that runs longer than this is abandoned and its file counted as skipped.
pub const PARSE_BUDGET: Duration = Duration::from_secs(4);

/// How one tool sets one hint. Absent is `None` in `ToolDef::hints`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HintState {
    True,
    False,
    /// Set by an expression or a preset the finder cannot resolve.
    Unresolved,
}

impl HintState {
    /// Returns the table cell: `true`, `false` or `?`.
    pub fn as_str(self) -> &'static str {
        match self {
            HintState::True => "true",
            HintState::False => "false",
            HintState::Unresolved => "?",
        }
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
}

impl Family {
    /// Lists the families in column order.
    pub const ALL: [Family; 8] = [
        Family::TypeScript,
        Family::Python,
        Family::Go,
        Family::McpGo,
        Family::Rmcp,
        Family::CSharp,
        Family::Java,
        Family::Kotlin,
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
        }
    }
}

/// One tool definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolDef {
    /// Raw bytes, relative to the tree's top folder (as the files table).
    pub path: Vec<u8>,
    /// 1-based line where the definition starts.
    pub line: u32,
    pub family: Family,
    /// The tool's name when it is a literal (or a constant bound to one).
    pub name: Option<String>,
    /// The four hints in `Hint::ALL` order; `None` is absent.
    pub hints: [Option<HintState>; 4],
}

impl ToolDef {
    /// Returns true when at least one of the four hints is set (`Unresolved` counts as set).
    pub fn is_annotated(&self) -> bool {
        self.hints.iter().any(Option::is_some)
    }
}

/// Every definition of one tree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FoundTools {
    /// Sorted by (path bytes, line, name).
    pub tools: Vec<ToolDef>,
    /// Wanted files not parsed because of a bound (size, time).
    pub skipped_files: u64,
}

/// Collects the tool definitions of one tree file by file, then resolves presets
/// across files of the same tree. Memory per file is bounded; see [`MAX_PARSE_BYTES`].
#[derive(Default)]
pub struct TreeTools {
    files: Vec<FileSummary>,
    skipped: u64,
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
}

impl Lang {
    fn of(path: &[u8]) -> Option<Lang> {
        Some(match value::extension(path).as_slice() {
            b"ts" | b"mts" | b"cts" => Lang::TypeScript,
            b"tsx" => Lang::Tsx,
            b"js" | b"mjs" | b"cjs" | b"jsx" => Lang::JavaScript,
            b"py" | b"pyi" => Lang::Python,
            b"go" => Lang::Go,
            b"rs" => Lang::Rust,
            b"cs" => Lang::CSharp,
            b"java" => Lang::Java,
            b"kt" | b"kts" => Lang::Kotlin,
            _ => return None,
        })
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
        }
    }
}

/// What reading one file came to.
#[derive(Debug)]
enum FileOutcome {
    /// Parsed (or known to hold nothing); the summary may be empty.
    Read(FileSummary),
    /// Stopped by a bound.
    Skipped,
}

impl TreeTools {
    /// Returns an empty collector.
    pub fn new() -> TreeTools {
        TreeTools::default()
    }

    /// Returns true when a file with this path may hold a definition (by its name alone:
    /// extension). Callers buffer the file's bytes only when this is true.
    pub fn wants(path: &[u8]) -> bool {
        Lang::of(path).is_some()
    }

    /// Reads one whole file. Files over MAX_PARSE_BYTES, or that a bound stops, are not
    /// parsed and are counted in `skipped`; a file holding no registration spelling is not parsed.
    pub fn add_file(&mut self, path: &[u8], bytes: &[u8]) {
        match read_file(path, bytes) {
            FileOutcome::Read(summary) => {
                if !summary.is_empty() {
                    self.files.push(summary);
                }
            }
            FileOutcome::Skipped => self.skipped += 1,
        }
    }

    /// Records a file that was wanted but not buffered because it is larger than MAX_PARSE_BYTES.
    pub fn skip_file(&mut self, path: &[u8]) {
        if Self::wants(path) {
            self.skipped += 1;
        }
    }

    /// Joins another collector of the same tree (parallel walks).
    pub fn merge(&mut self, other: TreeTools) {
        self.files.extend(other.files);
        self.skipped += other.skipped;
    }

    /// Resolves presets across files and returns every definition sorted by (path bytes, line).
    pub fn finish(mut self) -> FoundTools {
        // The order files arrive in (parallel walks) must not change the answer.
        self.files.sort_by(|a, b| a.path.cmp(&b.path));
        self.files.dedup_by(|a, b| a.path == b.path);
        let resolver = Resolver::new(&self.files);
        let mut tools = Vec::new();
        for file in 0..self.files.len() {
            for t in resolver.tools(file) {
                tools.push(ToolDef {
                    path: self.files[t.file].path.clone(),
                    line: t.line,
                    family: t.family,
                    name: t.name,
                    hints: t.hints,
                });
            }
        }
        tools.sort_by(|a, b| {
            (&a.path, a.line, &a.name, a.family, a.hints)
                .cmp(&(&b.path, b.line, &b.name, b.family, b.hints))
        });
        FoundTools {
            tools,
            skipped_files: self.skipped,
        }
    }
}

/// Returns true when the bytes hold `tool` or `hint` in any ASCII case: every
/// recognised registration and every preset spells one of them.
fn may_define(bytes: &[u8]) -> bool {
    static SPELLINGS: OnceLock<AhoCorasick> = OnceLock::new();
    SPELLINGS
        .get_or_init(|| {
            AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(["tool", "hint"])
                .expect("two literal patterns build")
        })
        .is_match(bytes)
}

fn read_file(path: &[u8], bytes: &[u8]) -> FileOutcome {
    let Some(lang) = Lang::of(path) else {
        return FileOutcome::Read(FileSummary::default());
    };
    if bytes.len() > MAX_PARSE_BYTES {
        return FileOutcome::Skipped;
    }
    if !may_define(bytes) {
        return FileOutcome::Read(FileSummary::default());
    }
    let Some(tree) = parse(lang, bytes, PARSE_BUDGET) else {
        return FileOutcome::Skipped;
    };
    let mut summary = FileSummary {
        path: path.to_vec(),
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
    }
    FileOutcome::Read(summary)
}

/// Parses a file within `budget` ([`PARSE_BUDGET`]); `None` when the budget ran out. A file
/// with syntax errors still parses: tree-sitter marks the errors and the
/// recognisers read what is well formed around them.
fn parse(lang: Lang, bytes: &[u8], budget: Duration) -> Option<Tree> {
    let mut parser = Parser::new();
    parser.set_language(&lang.grammar()).ok()?;
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
