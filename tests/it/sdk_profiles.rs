//! Evidence that the `sdk` spelling profile (docs/method.md, "Spelling profiles")
//! counts what each MCP SDK makes authors write.
//!
//! One fixture tree per SDK, its code modelled on that SDK's own documented examples
//! (each names its source), declares known hints. `scan --profile sdk` must read, in
//! every column, what a naive counter written here reads (insensitive spellings as
//! `data.lower().count(s.lower())`, exact ones as `data.count(s)`, a column the sum
//! over its spellings), and in the hint columns what the fixture is known to declare.
//! Traps show what the profile does not count, and what it counts that it should not.
//!
//! Every tree is built in code in a fresh temp dir.

use std::fs;
use std::path::Path;

use crate::common::{assert_code, naive, naive_exact, read_csv, run, show, targz, Item};
use serde_json::Value;
use tempfile::TempDir;

// ---------------------------------------------------------------------------
// The contract, written out from docs/method.md

/// The four literal hint names, as the default columns count them.
const LITERAL: [&str; 4] = [
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

/// One column of the `sdk` profile: its name and its spellings.
struct SdkColumn {
    name: &'static str,
    /// Counted ASCII case-insensitively.
    insensitive: [&'static str; 2],
    /// Counted byte for byte.
    exact: [&'static str; 6],
}

/// The `sdk` profile's columns, in the order the table prints them.
const SDK: [SdkColumn; 4] = [
    SdkColumn {
        name: "readOnlyHint_sdk",
        insensitive: ["readOnlyHint", "read_only_hint"],
        exact: [
            "ReadOnly = true",
            "ReadOnly = false",
            "ReadOnly=true",
            "ReadOnly=false",
            ".read_only(",
            "#[IsReadOnly",
        ],
    },
    SdkColumn {
        name: "destructiveHint_sdk",
        insensitive: ["destructiveHint", "destructive_hint"],
        exact: [
            "Destructive = true",
            "Destructive = false",
            "Destructive=true",
            "Destructive=false",
            ".destructive(",
            "#[IsDestructive",
        ],
    },
    SdkColumn {
        name: "idempotentHint_sdk",
        insensitive: ["idempotentHint", "idempotent_hint"],
        exact: [
            "Idempotent = true",
            "Idempotent = false",
            "Idempotent=true",
            "Idempotent=false",
            ".idempotent(",
            "#[IsIdempotent",
        ],
    },
    SdkColumn {
        name: "openWorldHint_sdk",
        insensitive: ["openWorldHint", "open_world_hint"],
        exact: [
            "OpenWorld = true",
            "OpenWorld = false",
            "OpenWorld=true",
            "OpenWorld=false",
            ".open_world(",
            "#[IsOpenWorld",
        ],
    },
];

/// The control column, last.
const CONTROL: &str = "annotations";

/// Every column of `scan --profile sdk`, in order: the literal terms, the profile's
/// columns, the control.
const COLUMNS: [&str; 9] = [
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
    "readOnlyHint_sdk",
    "destructiveHint_sdk",
    "idempotentHint_sdk",
    "openWorldHint_sdk",
    "annotations",
];

// ---------------------------------------------------------------------------
// The oracle

/// Counts `needle` in `hay` byte for byte, non-overlapping, left to right: Python's
/// `data.count(needle)` on bytes.
fn exact(hay: &[u8], needle: &str) -> u64 {
    naive_exact(hay, needle.as_bytes())
}

/// Returns what the oracle reads in one file, in [`COLUMNS`] order.
fn oracle_file(data: &[u8]) -> [u64; 9] {
    let mut counts = [0; 9];
    for (i, term) in LITERAL.iter().enumerate() {
        counts[i] = naive(data, term);
    }
    for (i, column) in SDK.iter().enumerate() {
        counts[4 + i] = column
            .insensitive
            .iter()
            .map(|s| naive(data, s))
            .sum::<u64>()
            + column.exact.iter().map(|s| exact(data, s)).sum::<u64>();
    }
    counts[8] = naive(data, CONTROL);
    counts
}

/// Returns what the oracle reads in a tree of `(path, content)` files.
fn oracle_tree(files: &[(&str, &str)]) -> [u64; 9] {
    let mut total = [0; 9];
    for (_, content) in files {
        for (t, n) in total.iter_mut().zip(oracle_file(content.as_bytes())) {
            *t += n;
        }
    }
    total
}

/// Returns the hint columns of `counts`: the four literal ones, then the four sdk ones.
fn hints_of(counts: &[u64; 9]) -> [u64; 8] {
    counts[..8].try_into().expect("eight hint columns")
}

// ---------------------------------------------------------------------------
// Fixtures: one tree per SDK

/// A tree of source files and the hints it is known to declare.
struct Fixture {
    /// The directory the tree is written to (and the row's name).
    name: &'static str,
    files: &'static [(&'static str, &'static str)],
    /// Known counts, in [`COLUMNS`] order without the control: the literal
    /// `readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`, then the
    /// same four `_sdk` columns.
    hints: [u64; 8],
}

/// TypeScript SDK: modelled on modelcontextprotocol/typescript-sdk
/// `docs/servers/tools.md` ("Annotate the tool", `registerTool` with
/// `annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true }`)
/// and its catalog example. Its `readonly` properties count nothing.
const TYPESCRIPT: Fixture = Fixture {
    name: "typescript",
    files: &[(
        "src/server.ts",
        r#"import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

interface Product {
    readonly name: string;
    readonly price: number;
}

const catalog: Product[] = [
    { name: 'Espresso cup', price: 12 },
    { name: 'Travel mug', price: 24 }
];

const server = new McpServer({ name: 'catalog', version: '1.0.0' });

server.registerTool(
    'search',
    {
        description: 'Search the product catalog',
        inputSchema: z.object({ query: z.string() }),
        annotations: { readOnlyHint: true, openWorldHint: false }
    },
    async ({ query }) => {
        const hits = catalog.filter(product => product.name.includes(query));
        return { content: [{ type: 'text', text: hits.map(product => product.name).join('\n') }] };
    }
);

server.registerTool(
    'clear-catalog',
    {
        title: 'Clear the catalog',
        description: 'Remove every product from the catalog',
        annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true }
    },
    async () => {
        catalog.length = 0;
        return { content: [{ type: 'text', text: 'Catalog cleared' }] };
    }
);
"#,
    )],
    hints: [2, 1, 1, 1, 2, 1, 1, 1],
};

/// Python SDK 1.x: modelled on modelcontextprotocol/python-sdk (v1.x) FastMCP servers,
/// `@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True, ...))` with
/// `from mcp.types import ToolAnnotations` (camelCase fields).
const PYTHON_1: Fixture = Fixture {
    name: "python-1",
    files: &[(
        "server.py",
        r#"from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations

mcp = FastMCP("Catalog")
CATALOG = ["Espresso cup", "Travel mug"]


@mcp.tool(annotations=ToolAnnotations(title="Search", readOnlyHint=True, openWorldHint=False))
def search(query: str) -> list[str]:
    """Search the product catalog."""
    return [name for name in CATALOG if query in name]


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=True))
def clear_catalog() -> str:
    """Remove every product from the catalog."""
    CATALOG.clear()
    return "Catalog cleared"
"#,
    )],
    hints: [2, 1, 1, 1, 2, 1, 1, 1],
};

/// Python SDK 2.x: modelled on modelcontextprotocol/python-sdk main, where
/// `src/mcp/types/_types.py` declares `ToolAnnotations.read_only_hint` (snake_case
/// fields, camelCase only on the wire) and `docs/migration.md` renames `FastMCP` to
/// `MCPServer`. A `read_only` parameter without `_hint` counts nothing.
const PYTHON_2: Fixture = Fixture {
    name: "python-2",
    files: &[(
        "server.py",
        r#"from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

mcp = MCPServer("Catalog")
CATALOG = ["Espresso cup", "Travel mug"]


def open_store(path: str, read_only: bool = True) -> list[str]:
    return CATALOG


@mcp.tool(annotations=ToolAnnotations(title="Search", read_only_hint=True, open_world_hint=False))
def search(query: str) -> list[str]:
    """Search the product catalog."""
    return [name for name in open_store("catalog.db", read_only=True) if query in name]


@mcp.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True))
def clear_catalog() -> str:
    """Remove every product from the catalog."""
    CATALOG.clear()
    return "Catalog cleared"
"#,
    )],
    hints: [0, 0, 0, 0, 2, 1, 1, 1],
};

/// Go SDK: modelled on modelcontextprotocol/go-sdk `examples/server` (`mcp.AddTool`
/// with an `&mcp.Tool{...}`) and `mcp/protocol.go`'s `ToolAnnotations`, whose
/// `DestructiveHint` and `OpenWorldHint` are `*bool`.
const GO_SDK: Fixture = Fixture {
    name: "go-sdk",
    files: &[(
        "main.go",
        r#"package main

import (
	"context"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type searchArgs struct {
	Query string `json:"query" jsonschema:"the text to look for"`
}

func search(ctx context.Context, req *mcp.CallToolRequest, args searchArgs) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: args.Query}}}, nil, nil
}

func clearCatalog(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Catalog cleared"}}}, nil, nil
}

func main() {
	server := mcp.NewServer(&mcp.Implementation{Name: "catalog", Version: "v1.0.0"}, nil)
	closed := false
	mcp.AddTool(server, &mcp.Tool{
		Name:        "search",
		Description: "search the product catalog",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &closed},
	}, search)
	destructive := true
	mcp.AddTool(server, &mcp.Tool{
		Name:        "clear_catalog",
		Description: "remove every product from the catalog",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &destructive, IdempotentHint: true},
	}, clearCatalog)
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
"#,
    )],
    hints: [1, 1, 1, 1, 1, 1, 1, 1],
};

/// mcp-go: modelled on mark3labs/mcp-go `mcp/tools.go` (`WithReadOnlyHintAnnotation`
/// and its siblings; `NewTool` fills every hint it is not given with a default) and
/// its README's `NewTool` examples. The `ping` tool names no hint in the source yet
/// goes out with all four: the count sees only what the source spells.
const MCP_GO: Fixture = Fixture {
    name: "mcp-go",
    files: &[(
        "main.go",
        r#"package main

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	s := server.NewMCPServer("Catalog", "1.0.0", server.WithToolCapabilities(false))

	searchTool := mcp.NewTool("search",
		mcp.WithDescription("Search the product catalog"),
		mcp.WithString("query", mcp.Required(), mcp.Description("The text to look for")),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
	)
	s.AddTool(searchTool, searchHandler)

	clearTool := mcp.NewTool("clear_catalog",
		mcp.WithDescription("Remove every product from the catalog"),
		mcp.WithDestructiveHintAnnotation(true),
		mcp.WithIdempotentHintAnnotation(true),
	)
	s.AddTool(clearTool, clearHandler)

	pingTool := mcp.NewTool("ping", mcp.WithDescription("Answer pong"))
	s.AddTool(pingTool, pingHandler)

	if err := server.ServeStdio(s); err != nil {
		fmt.Printf("Server error: %v\n", err)
	}
}

func searchHandler(ctx context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	query, err := request.RequireString("query")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	return mcp.NewToolResultText(query), nil
}

func clearHandler(ctx context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText("Catalog cleared"), nil
}

func pingHandler(ctx context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText("pong"), nil
}
"#,
    )],
    hints: [1, 1, 1, 1, 1, 1, 1, 1],
};

/// rmcp: modelled on modelcontextprotocol/rust-sdk, the `#[tool(annotations(...))]`
/// attribute of `crates/rmcp-macros/src/tool.rs` inside a `#[tool_router]` impl, and
/// the `ToolAnnotations::new().read_only(..)` builder of the `rmcp::model` types for
/// tools built at run time. Neither names a literal hint.
const RMCP: Fixture = Fixture {
    name: "rmcp",
    files: &[
        (
            "src/catalog.rs",
            r#"use rmcp::{
    ErrorData as McpError, ServerHandler,
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{CallToolResult, Content},
    schemars, tool, tool_handler, tool_router,
};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct SearchArgs {
    pub query: String,
}

#[derive(Clone)]
pub struct Catalog {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Catalog {
    #[tool(
        description = "Search the product catalog",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn search(&self, Parameters(args): Parameters<SearchArgs>) -> Result<CallToolResult, McpError> {
        Ok(CallToolResult::success(vec![Content::text(args.query)]))
    }

    #[tool(
        description = "Remove every product from the catalog",
        annotations(destructive_hint = true, idempotent_hint = true)
    )]
    async fn clear_catalog(&self) -> Result<CallToolResult, McpError> {
        Ok(CallToolResult::success(vec![Content::text("Catalog cleared")]))
    }
}

#[tool_handler]
impl ServerHandler for Catalog {}
"#,
        ),
        (
            "src/plugins.rs",
            r#"use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};

/// Builds the tools a plugin declares at run time.
pub fn plugin_tools(schema: Arc<JsonObject>) -> Vec<Tool> {
    vec![
        Tool::new("lookup", "Look one product up", schema.clone())
            .with_annotations(ToolAnnotations::new().read_only(true).open_world(false)),
        Tool::new("purge", "Delete every product", schema)
            .with_annotations(
                ToolAnnotations::new()
                    .read_only(false)
                    .destructive(true)
                    .idempotent(true),
            ),
    ]
}
"#,
        ),
    ],
    hints: [0, 0, 0, 0, 3, 2, 2, 2],
};

/// C# SDK: modelled on modelcontextprotocol/csharp-sdk, `[McpServerToolType]` classes
/// whose methods carry `[McpServerTool(ReadOnly = true, ...)]`, and
/// `McpServerTool.Create(..., new() { ..., ReadOnly = true })` options as its tests
/// write them. Neither names a literal hint.
const CSHARP: Fixture = Fixture {
    name: "csharp",
    files: &[
        (
            "CatalogTools.cs",
            r#"using System.ComponentModel;
using ModelContextProtocol.Server;

[McpServerToolType]
public static class CatalogTools
{
    [McpServerTool(Name = "search", ReadOnly = true, OpenWorld = false), Description("Search the product catalog.")]
    public static string Search([Description("The text to look for")] string query) => query;

    [McpServerTool(Name = "clear_catalog", Destructive = true, Idempotent = true)]
    [Description("Remove every product from the catalog.")]
    public static string ClearCatalog() => "Catalog cleared";
}
"#,
        ),
        (
            "Program.cs",
            r#"using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using ModelContextProtocol.Server;

var builder = Host.CreateApplicationBuilder(args);
builder.Services
    .AddMcpServer()
    .WithStdioServerTransport()
    .WithToolsFromAssembly()
    .WithTools([McpServerTool.Create(() => "pong", new() { Name = "ping", ReadOnly = true, Idempotent = true })]);
await builder.Build().RunAsync();
"#,
        ),
    ],
    hints: [0, 0, 0, 0, 2, 1, 2, 1],
};

/// Java SDK: modelled on modelcontextprotocol/java-sdk `McpSchema.ToolAnnotations`,
/// whose `builder()` has `readOnlyHint(..)`, `destructiveHint(..)` and so on, passed
/// to `McpSchema.Tool.builder().annotations(..)`.
const JAVA: Fixture = Fixture {
    name: "java",
    files: &[(
        "src/main/java/example/CatalogTools.java",
        r#"package example;

import io.modelcontextprotocol.spec.McpSchema;

final class CatalogTools {

    static McpSchema.Tool search(McpSchema.JsonSchema input) {
        return McpSchema.Tool.builder()
            .name("search")
            .description("Search the product catalog")
            .inputSchema(input)
            .annotations(McpSchema.ToolAnnotations.builder()
                .readOnlyHint(true)
                .openWorldHint(false)
                .build())
            .build();
    }

    static McpSchema.Tool clearCatalog(McpSchema.JsonSchema input) {
        return McpSchema.Tool.builder()
            .name("clear_catalog")
            .description("Remove every product from the catalog")
            .inputSchema(input)
            .annotations(McpSchema.ToolAnnotations.builder()
                .destructiveHint(true)
                .idempotentHint(true)
                .build())
            .build();
    }
}
"#,
    )],
    hints: [1, 1, 1, 1, 1, 1, 1, 1],
};

/// Kotlin SDK: modelled on modelcontextprotocol/kotlin-sdk `Server.addTool(name = ...,
/// toolAnnotations = ToolAnnotations(readOnlyHint = true, ...))` with named arguments.
const KOTLIN: Fixture = Fixture {
    name: "kotlin",
    files: &[(
        "src/main/kotlin/CatalogTools.kt",
        r#"import io.modelcontextprotocol.kotlin.sdk.server.Server
import io.modelcontextprotocol.kotlin.sdk.types.CallToolResult
import io.modelcontextprotocol.kotlin.sdk.types.TextContent
import io.modelcontextprotocol.kotlin.sdk.types.ToolAnnotations
import io.modelcontextprotocol.kotlin.sdk.types.ToolSchema

fun Server.registerCatalogTools() {
    addTool(
        name = "search",
        description = "Search the product catalog",
        inputSchema = ToolSchema(),
        toolAnnotations = ToolAnnotations(readOnlyHint = true, openWorldHint = false),
    ) { request ->
        CallToolResult(content = listOf(TextContent("found")))
    }
    addTool(
        name = "clear_catalog",
        description = "Remove every product from the catalog",
        inputSchema = ToolSchema(),
        toolAnnotations = ToolAnnotations(destructiveHint = true, idempotentHint = true),
    ) { _ ->
        CallToolResult(content = listOf(TextContent("Catalog cleared")))
    }
}
"#,
    )],
    hints: [1, 1, 1, 1, 1, 1, 1, 1],
};

/// Swift SDK: modelled on modelcontextprotocol/swift-sdk `Sources/MCP/Server/Tools.swift`
/// (`Tool.Annotations.init(title:readOnlyHint:destructiveHint:idempotentHint:
/// openWorldHint:)`), the tools listed from a `ListTools` method handler as its README
/// lists them.
const SWIFT: Fixture = Fixture {
    name: "swift",
    files: &[(
        "Sources/Catalog/main.swift",
        r#"import MCP

let server = Server(name: "Catalog", version: "1.0.0", capabilities: .init(tools: .init(listChanged: false)))

let tools = [
    Tool(
        name: "search",
        description: "Search the product catalog",
        inputSchema: .object(["type": .string("object")]),
        annotations: .init(title: "Search", readOnlyHint: true, openWorldHint: false)
    ),
    Tool(
        name: "clear_catalog",
        description: "Remove every product from the catalog",
        inputSchema: .object(["type": .string("object")]),
        annotations: .init(title: "Clear the catalog", destructiveHint: true, idempotentHint: true)
    ),
]

await server.withMethodHandler(ListTools.self) { _ in
    .init(tools: tools)
}
"#,
    )],
    hints: [1, 1, 1, 1, 1, 1, 1, 1],
};

/// Ruby SDK: modelled on modelcontextprotocol/ruby-sdk, an `MCP::Tool` subclass with
/// `annotations read_only_hint: true, ...` and `MCP::Tool.define(annotations: {...})`.
const RUBY: Fixture = Fixture {
    name: "ruby",
    files: &[(
        "lib/catalog_tools.rb",
        r#"require "mcp"

class SearchTool < MCP::Tool
  tool_name "search"
  description "Search the product catalog"
  input_schema(properties: { query: { type: "string" } }, required: ["query"])
  annotations read_only_hint: true, open_world_hint: false

  class << self
    def call(query:, server_context:)
      MCP::Tool::Response.new([{ type: "text", text: query }])
    end
  end
end

clear_catalog = MCP::Tool.define(
  name: "clear_catalog",
  description: "Remove every product from the catalog",
  annotations: { destructive_hint: true, idempotent_hint: true }
) do |server_context:|
  MCP::Tool::Response.new([{ type: "text", text: "Catalog cleared" }])
end

server = MCP::Server.new(name: "catalog", tools: [SearchTool, clear_catalog])
"#,
    )],
    hints: [0, 0, 0, 0, 1, 1, 1, 1],
};

/// PHP SDK: modelled on modelcontextprotocol/php-sdk
/// `examples/discovery-calculator/McpElements.php` (`#[McpTool(...)]` from
/// `Mcp\Capability\Attribute`, a `private readonly` logger) with
/// `annotations: new ToolAnnotations(readOnlyHint: true)` named arguments.
const PHP: Fixture = Fixture {
    name: "php",
    files: &[(
        "src/CatalogTools.php",
        r#"<?php

namespace App\Catalog;

use Mcp\Capability\Attribute\McpTool;
use Mcp\Schema\ToolAnnotations;
use Psr\Log\LoggerInterface;
use Psr\Log\NullLogger;

final class CatalogTools
{
    public function __construct(
        private readonly LoggerInterface $logger = new NullLogger(),
    ) {
    }

    #[McpTool(
        name: 'search',
        description: 'Search the product catalog',
        annotations: new ToolAnnotations(readOnlyHint: true, openWorldHint: false),
    )]
    public function search(string $query): string
    {
        $this->logger->info('search: '.$query);

        return $query;
    }

    #[McpTool(name: 'clear_catalog', annotations: new ToolAnnotations(destructiveHint: true, idempotentHint: true))]
    public function clearCatalog(): string
    {
        return 'Catalog cleared';
    }
}
"#,
    )],
    hints: [1, 1, 1, 1, 1, 1, 1, 1],
};

/// Every SDK fixture, in the order they are scanned.
/// laravel/mcp declares hints as PHP attributes on the tool class; the `use` lines
/// name the attribute classes without `#[` and are not counted.
const LARAVEL: Fixture = Fixture {
    name: "laravel",
    files: &[(
        "app/Mcp/Tools/WeatherTools.php",
        r#"<?php

namespace App\Mcp\Tools;

use Laravel\Mcp\Server\Tool;
use Laravel\Mcp\Server\Tools\Annotations\IsDestructive;
use Laravel\Mcp\Server\Tools\Annotations\IsIdempotent;
use Laravel\Mcp\Server\Tools\Annotations\IsOpenWorld;
use Laravel\Mcp\Server\Tools\Annotations\IsReadOnly;

#[IsReadOnly]
#[IsIdempotent]
class CurrentWeatherTool extends Tool
{
    protected string $description = 'Fetches the current weather forecast.';
}

#[IsDestructive]
#[IsOpenWorld(false)]
class ForgetLocationTool extends Tool
{
    protected string $description = 'Forgets a saved location.';
}
"#,
    )],
    hints: [0, 0, 0, 0, 1, 1, 1, 1],
};

const FIXTURES: [&Fixture; 13] = [
    &TYPESCRIPT,
    &PYTHON_1,
    &PYTHON_2,
    &GO_SDK,
    &MCP_GO,
    &RMCP,
    &CSHARP,
    &JAVA,
    &KOTLIN,
    &SWIFT,
    &RUBY,
    &PHP,
    &LARAVEL,
];

// ---------------------------------------------------------------------------
// Traps: one file each, and what the profile reads in it

/// TypeScript `readonly` properties and the `Readonly<T>` type: no hint.
const TRAP_TS_READONLY: Fixture = Fixture {
    name: "trap-ts-readonly",
    files: &[(
        "model.ts",
        "interface Product {\n    readonly name: string;\n    readonly price: number;\n}\n\
         const frozen: Readonly<Product> = { name: 'mug', price: 24 };\n",
    )],
    hints: [0; 8],
};

/// Python's `ReadOnly = True` (capital T) is not the C# spelling: the exact spellings
/// are case-sensitive.
const TRAP_PY_CAPITAL_TRUE: Fixture = Fixture {
    name: "trap-py-capital-true",
    files: &[(
        "modes.py",
        "class Mode:\n    ReadOnly = True\n    Destructive = False\n    Idempotent=True\n    OpenWorld=False\n",
    )],
    hints: [0; 8],
};

/// A C# object initializer of the protocol's `ToolAnnotations` spells the literal
/// name (`ReadOnlyHint`, found case-insensitively): counted once, not twice, as
/// `ReadOnly = true` is not inside `ReadOnlyHint = true`.
const TRAP_INITIALIZER: Fixture = Fixture {
    name: "trap-cs-initializer",
    files: &[(
        "Annotations.cs",
        "var annotations = new ToolAnnotations { ReadOnlyHint = true, DestructiveHint = false };\n",
    )],
    hints: [1, 1, 0, 0, 1, 1, 0, 0],
};

/// Java's positional constructor (title, the four hints, returnDirect) names no hint.
const TRAP_JAVA_POSITIONAL: Fixture = Fixture {
    name: "trap-java-positional",
    files: &[(
        "Purge.java",
        "static final McpSchema.ToolAnnotations PURGE =\n    new McpSchema.ToolAnnotations(\"Purge\", false, true, false, false, null);\n",
    )],
    hints: [0; 8],
};

/// Kotlin's positional constructor names no hint.
const TRAP_KOTLIN_POSITIONAL: Fixture = Fixture {
    name: "trap-kotlin-positional",
    files: &[(
        "Purge.kt",
        "val purge = ToolAnnotations(\"Purge\", false, true, false, false)\n",
    )],
    hints: [0; 8],
};

/// PHP's positional constructor names no hint.
const TRAP_PHP_POSITIONAL: Fixture = Fixture {
    name: "trap-php-positional",
    files: &[(
        "Purge.php",
        "<?php\n$purge = new ToolAnnotations('Purge', false, true, false, false);\n",
    )],
    hints: [0; 8],
};

/// `read_only` without `_hint`, and not called as a method: no hint.
const TRAP_READ_ONLY: Fixture = Fixture {
    name: "trap-read-only",
    files: &[
        (
            "store.py",
            "def open_store(path, read_only=True):\n    return Store(path, read_only=read_only)\n",
        ),
        (
            "store.rs",
            "struct Config { read_only: bool }\nfn mode(config: &Config) -> bool { let read_only = config.read_only; read_only }\n",
        ),
    ],
    hints: [0; 8],
};

/// rmcp's builder methods are counted wherever they are called, over several lines
/// too.
const TRAP_RUST_BUILDER: Fixture = Fixture {
    name: "trap-rust-builder",
    files: &[(
        "tools.rs",
        "let ro = ToolAnnotations::new().read_only(true);\nlet rw = ToolAnnotations::new()\n    .read_only(false)\n    .open_world(true);\n",
    )],
    hints: [0, 0, 0, 0, 2, 0, 0, 1],
};

/// A limit: `ReadOnly = true` of something that is no tool (a WinForms text box, a
/// JavaScript `isReadOnly` flag) is counted all the same.
const TRAP_UNRELATED: Fixture = Fixture {
    name: "trap-unrelated",
    files: &[
        (
            "Form1.cs",
            "textBox1.ReadOnly = true;\ndataGridView1.ReadOnly = false;\n",
        ),
        ("editor.js", "this.isReadOnly = true;\n"),
    ],
    hints: [0, 0, 0, 0, 3, 0, 0, 0],
};

/// A limit: spacing other than none or one space each side of `=`, a value that is no
/// literal, and camelCase builders without `Hint` are not spellings the profile knows.
const TRAP_NEAR_MISSES: Fixture = Fixture {
    name: "trap-near-misses",
    files: &[(
        "Near.cs",
        "[McpServerTool(ReadOnly  = true, Destructive =false, Idempotent= true, OpenWorld = isOpen)]\n\
         var a = McpToolAnnotations.builder().readOnly(true).destructive_(false).build();\n",
    )],
    hints: [0; 8],
};

/// Every trap, in the order they are scanned.
const TRAPS: [&Fixture; 10] = [
    &TRAP_TS_READONLY,
    &TRAP_PY_CAPITAL_TRUE,
    &TRAP_INITIALIZER,
    &TRAP_JAVA_POSITIONAL,
    &TRAP_KOTLIN_POSITIONAL,
    &TRAP_PHP_POSITIONAL,
    &TRAP_READ_ONLY,
    &TRAP_RUST_BUILDER,
    &TRAP_UNRELATED,
    &TRAP_NEAR_MISSES,
];

// ---------------------------------------------------------------------------
// Running the binary

/// Writes each fixture's tree under `root/<name>`.
fn write_fixtures(root: &Path, fixtures: &[&Fixture]) {
    for fixture in fixtures {
        for (path, content) in fixture.files {
            let path = root.join(fixture.name).join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, content).unwrap();
        }
    }
}

/// Runs `scan --json --files ARGS` in `dir`, expecting exit `code`, and returns the
/// rows.
fn json_rows(dir: &Path, args: &[&str], code: i32) -> Vec<Value> {
    let mut all = vec!["scan", "--json", "--files"];
    all.extend_from_slice(args);
    let out = run(dir, &all);
    assert_code(&out, code);
    let value: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON: {e}\n{}", show(&out)));
    value.as_array().expect("an array of rows").clone()
}

/// Returns a row's `counts` object as (column, count) pairs in the order given.
fn counts_in_order(counts: &Value) -> Vec<(String, u64)> {
    counts
        .as_object()
        .unwrap_or_else(|| panic!("counts is not an object: {counts}"))
        .iter()
        .map(|(k, v)| {
            let n = v
                .as_u64()
                .unwrap_or_else(|| panic!("count of {k} is not a number: {v}"));
            (k.clone(), n)
        })
        .collect()
}

/// Returns the nine counts of a `--profile sdk` row, checking the columns' names and
/// order.
fn sdk_counts(counts: &Value) -> [u64; 9] {
    let pairs = counts_in_order(counts);
    let names: Vec<&str> = pairs.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(names, COLUMNS, "columns of a --profile sdk row");
    let numbers: Vec<u64> = pairs.iter().map(|(_, n)| *n).collect();
    numbers.try_into().expect("nine counts")
}

/// Checks one `--profile sdk` row of `fixture` against the oracle, file by file and in
/// total, and against the hints the fixture declares.
fn check_row(row: &Value, fixture: &Fixture) {
    assert_eq!(row["status"], "ok", "{row:#}");
    assert_eq!(row["repo"], fixture.name, "rows follow the command line");
    let got = sdk_counts(&row["counts"]);
    let want = oracle_tree(fixture.files);
    assert_eq!(
        got, want,
        "{}: the binary against the naive counter ({COLUMNS:?})",
        fixture.name
    );
    assert_eq!(
        hints_of(&got),
        fixture.hints,
        "{}: the binary against the hints the fixture declares",
        fixture.name
    );
    assert_eq!(row["files_walked"], fixture.files.len() as u64, "{row:#}");

    // Per file: each file with a nonzero count, sorted by path, with its counts.
    let mut want_files: Vec<(String, [u64; 9])> = fixture
        .files
        .iter()
        .map(|(path, content)| (path.to_string(), oracle_file(content.as_bytes())))
        .filter(|(_, counts)| counts.iter().any(|&n| n > 0))
        .collect();
    want_files.sort();
    let got_files: Vec<(String, [u64; 9])> = row["files"]
        .as_array()
        .unwrap_or_else(|| panic!("no files in {row:#}"))
        .iter()
        .map(|f| {
            (
                f["path"].as_str().expect("a path").to_string(),
                sdk_counts(&f["counts"]),
            )
        })
        .collect();
    assert_eq!(got_files, want_files, "{}: per-file counts", fixture.name);
}

/// Returns the columns a gate failure names for `tree`: the list between
/// `said nothing: zero ` and ` in `.
fn gate_columns(stderr: &str, tree: &str) -> Vec<String> {
    let lead = format!("'{tree}' said nothing: zero ");
    let line = stderr
        .lines()
        .find(|l| l.contains(&lead))
        .unwrap_or_else(|| panic!("no gate message for '{tree}' in:\n{stderr}"));
    let rest = &line[line.find(&lead).unwrap() + lead.len()..];
    let list = &rest[..rest.find(" in ").expect("the message names the files")];
    list.split(", ").map(str::to_string).collect()
}

// ---------------------------------------------------------------------------
// Tests

/// The hand-known numbers agree with the naive counter before the binary is asked:
/// a fixture whose text does not declare what it says would make every other test
/// here meaningless.
#[test]
fn fixtures_declare_the_hints_they_claim() {
    for fixture in FIXTURES.iter().chain(TRAPS.iter()) {
        assert_eq!(
            hints_of(&oracle_tree(fixture.files)),
            fixture.hints,
            "{}: the naive counter against the hints the fixture claims",
            fixture.name
        );
    }
    // The oracle itself: exact spellings are case-sensitive and non-overlapping,
    // insensitive ones are not case-sensitive.
    assert_eq!(
        exact(b"ReadOnly = true ReadOnly = True", "ReadOnly = true"),
        1
    );
    assert_eq!(exact(b"aaaa", "aa"), 2);
    assert_eq!(oracle_file(b"READ_ONLY_HINT ReadOnlyHint")[4], 2);
    assert_eq!(oracle_file(b"READ_ONLY_HINT ReadOnlyHint")[0], 1);
    let names: Vec<&str> = SDK.iter().map(|c| c.name).collect();
    assert_eq!(names, COLUMNS[4..8], "the oracle's columns");
}

/// Every SDK's documented spelling lands in its hint's `_sdk` column, and only there.
#[test]
fn sdk_profile_counts_each_sdk_fixture() {
    let tmp = TempDir::new().unwrap();
    write_fixtures(tmp.path(), &FIXTURES);
    let mut args = vec!["--profile", "sdk", "--csv", "sdks.csv"];
    args.extend(FIXTURES.iter().map(|f| f.name));
    let rows = json_rows(tmp.path(), &args, 0);
    assert_eq!(rows.len(), FIXTURES.len());
    for (row, fixture) in rows.iter().zip(FIXTURES) {
        check_row(row, fixture);
    }

    // The CSV has the same columns in the same order, and the same counts.
    let csv = read_csv(&tmp.path().join("sdks.csv"));
    let header = &csv[0];
    let first = header
        .iter()
        .position(|h| h == COLUMNS[0])
        .unwrap_or_else(|| panic!("no {} in {header:?}", COLUMNS[0]));
    assert_eq!(header[first..first + 9], COLUMNS, "{header:?}");
    for (record, fixture) in csv[1..].iter().zip(FIXTURES) {
        let got: Vec<u64> = record[first..first + 9]
            .iter()
            .map(|c| c.parse().unwrap_or_else(|e| panic!("{c:?}: {e}")))
            .collect();
        assert_eq!(got, oracle_tree(fixture.files), "{}: CSV", fixture.name);
    }
    assert_eq!(csv.len(), FIXTURES.len() + 1);

    // Each SDK family in one line: where the camelCase SDKs read the same in both
    // columns, the snake_case and C# ones read only in the profile's.
    for fixture in FIXTURES {
        let (literal, sdk) = fixture.hints.split_at(4);
        match fixture.name {
            "python-2" | "rmcp" | "csharp" | "ruby" | "laravel" => {
                assert_eq!(literal, [0; 4], "{}", fixture.name);
                assert!(sdk.iter().all(|&n| n > 0), "{}", fixture.name);
            }
            _ => {
                assert_eq!(literal, sdk, "{}", fixture.name);
                assert_eq!(literal, [literal[0], 1, 1, 1], "{}", fixture.name);
            }
        }
    }
}

/// Each trap reads what docs/profiles.md says it reads.
#[test]
fn sdk_profile_traps() {
    let tmp = TempDir::new().unwrap();
    write_fixtures(tmp.path(), &TRAPS);
    let mut args = vec!["--profile", "sdk"];
    args.extend(TRAPS.iter().map(|f| f.name));
    let rows = json_rows(tmp.path(), &args, 0);
    assert_eq!(rows.len(), TRAPS.len());
    for (row, trap) in rows.iter().zip(TRAPS) {
        check_row(row, trap);
    }
}

/// The four literal columns keep their meaning: without `--profile` the table has
/// the default columns only, with the same literal counts as with it.
#[test]
fn literal_columns_are_the_same_with_and_without_the_profile() {
    let tmp = TempDir::new().unwrap();
    let all: Vec<&Fixture> = FIXTURES.iter().chain(TRAPS.iter()).copied().collect();
    write_fixtures(tmp.path(), &all);
    let names: Vec<&str> = all.iter().map(|f| f.name).collect();
    let rows = json_rows(tmp.path(), &names, 0);
    assert_eq!(rows.len(), all.len());
    for (row, fixture) in rows.iter().zip(&all) {
        let pairs = counts_in_order(&row["counts"]);
        let columns: Vec<&str> = pairs.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(columns, [&LITERAL[..], &[CONTROL]].concat(), "{row:#}");
        let got: Vec<u64> = pairs.iter().map(|(_, n)| *n).collect();
        let oracle = oracle_tree(fixture.files);
        let want: Vec<u64> = oracle[..4].iter().chain(&oracle[8..]).copied().collect();
        assert_eq!(got, want, "{}: the default columns", fixture.name);
        assert_eq!(got[..4], fixture.hints[..4], "{}", fixture.name);
    }
}

/// The gate: a C# or rmcp tree says nothing in the literal columns but passes with
/// the profile; a tree that spells no hint in any known way fails either way, and
/// the message names the columns it looked at.
#[test]
fn require_hints_passes_csharp_and_rmcp_only_with_the_profile() {
    let tmp = TempDir::new().unwrap();
    write_fixtures(tmp.path(), &[&CSHARP, &RMCP, &TRAP_JAVA_POSITIONAL]);
    let literal: Vec<String> = LITERAL.iter().map(|s| s.to_string()).collect();
    let every: Vec<String> = COLUMNS[..8].iter().map(|s| s.to_string()).collect();

    for fixture in [&CSHARP, &RMCP] {
        let out = run(
            tmp.path(),
            &["scan", "--profile", "sdk", "--require-hints", fixture.name],
        );
        assert_code(&out, 0);
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("said nothing"),
            "{}",
            show(&out)
        );

        let out = run(tmp.path(), &["scan", "--require-hints", fixture.name]);
        assert_code(&out, 3);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(gate_columns(&err, fixture.name), literal, "{}", show(&out));
        assert!(err.contains("--profile sdk"), "{}", show(&out));
    }

    // Both at once pass; the positional constructor fails even with the profile,
    // and the message names all eight columns it looked at.
    let out = run(
        tmp.path(),
        &[
            "scan",
            "--profile",
            "sdk",
            "--require-hints",
            CSHARP.name,
            RMCP.name,
        ],
    );
    assert_code(&out, 0);
    let out = run(
        tmp.path(),
        &[
            "scan",
            "--profile",
            "sdk",
            "--require-hints",
            CSHARP.name,
            TRAP_JAVA_POSITIONAL.name,
        ],
    );
    assert_code(&out, 3);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        gate_columns(&err, TRAP_JAVA_POSITIONAL.name),
        every,
        "{}",
        show(&out)
    );
    assert!(!err.contains("'csharp' said nothing"), "{}", show(&out));
}

/// The profile counts an archive as it counts a directory: the fixtures packed as one
/// tar.gz read the sum of their trees.
#[test]
fn sdk_profile_counts_an_archive_like_a_directory() {
    let tmp = TempDir::new().unwrap();
    let items: Vec<Item> = FIXTURES
        .iter()
        .flat_map(|f| {
            f.files.iter().map(move |(path, content)| {
                Item::File(format!("{}/{path}", f.name), content.as_bytes().to_vec())
            })
        })
        .collect();
    fs::write(
        tmp.path().join("sdks.tar.gz"),
        targz("owner-sdks-1234567", None, &items),
    )
    .unwrap();
    let rows = json_rows(tmp.path(), &["--profile", "sdk", "sdks.tar.gz"], 0);
    assert_eq!(rows.len(), 1);
    let mut want = [0; 9];
    for fixture in FIXTURES {
        for (w, n) in want.iter_mut().zip(oracle_tree(fixture.files)) {
            *w += n;
        }
    }
    assert_eq!(sdk_counts(&rows[0]["counts"]), want, "{:#}", rows[0]);
}

/// Exact and insensitive spellings are counted alike wherever a file's bytes fall
/// across the reader's chunks: a file of a few MiB with spellings and near-misses at
/// every offset, checked against the naive counter.
#[test]
fn sdk_spellings_across_read_boundaries() {
    let pieces: [&[u8]; 8] = [
        b"[McpServerTool(ReadOnly = true, Destructive=false)]",
        b"ReadOnly = True",
        b"READ_ONLY_HINT",
        b".read_only(.open_world(",
        b"OpenWorld=trueIdempotent = false",
        b"readOnly = true",
        b"DestructiveHint",
        b".Read_Only(",
    ];
    let mut data = Vec::new();
    let mut filler = 0usize;
    while data.len() < 3 * 1024 * 1024 {
        for piece in pieces {
            data.extend_from_slice(piece);
            // Filler of every length from 0 to 96 moves the next piece through
            // every alignment.
            data.extend(std::iter::repeat_n(b' ', filler % 97));
            filler += 1;
        }
    }
    let tmp = TempDir::new().unwrap();
    fs::create_dir(tmp.path().join("big")).unwrap();
    fs::write(tmp.path().join("big/Tools.cs"), &data).unwrap();
    let rows = json_rows(tmp.path(), &["--profile", "sdk", "big"], 0);
    let want = oracle_file(&data);
    assert!(want[4] > 1000 && want[5] > 1000, "the file holds spellings");
    assert_eq!(sdk_counts(&rows[0]["counts"]), want);
}
