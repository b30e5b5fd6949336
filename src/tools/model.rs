//! The finder's rows: how a tool sets a hint ([`HintState`]), the SDK family it was
//! recognised as, what a row stands for, one definition ([`ToolDef`]) and a tree's
//! definitions ([`FoundTools`]) (docs/method.md, "Tools"). The bottom of the
//! finder: every other module of it fills or reads these, and this one imports only
//! the roles and name classes a row carries. It reads no file.

use super::names::NameClass;
use super::roles::Role;

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
