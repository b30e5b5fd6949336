//! The languages the finder reads, each with its grammar, its extensions, and the
//! spellings that say a file uses an MCP SDK of its families. It decides nothing
//! about registrations: that is the recognisers' job.

use std::sync::OnceLock;

use memchr::memmem;
use tree_sitter::Language;

use super::spellings::Spellings;
use super::value;

/// The grammar a file is parsed with, chosen by its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Lang {
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
    pub(super) const ALL: [Lang; 12] = [
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

    pub(super) fn of(path: &[u8]) -> Option<Lang> {
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
    pub(super) fn sdk_markers(self) -> &'static [&'static [u8]] {
        match self {
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript => &[
                b"@modelcontextprotocol/",
                b"fastmcp",
                b"FastMCP",
                b"mcp-framework",
                b"agents/mcp",
                b"mcp-handler",
                b"\"xmcp\"",
                b"'xmcp'",
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
    pub(super) fn uses_sdk(self, bytes: &[u8]) -> bool {
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
    pub(super) fn links_files(self) -> bool {
        matches!(
            self,
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript | Lang::Python | Lang::Ruby | Lang::Go
        )
    }

    pub(super) fn grammar(self) -> Language {
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
