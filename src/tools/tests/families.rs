//! Fixture trees of the Python, Go (both SDKs), Rust, C#, Java and Kotlin families,
//! built after each SDK's documented examples, with the tools and hints known by
//! hand.

use super::*;

const PY_PRESETS: &str = r#"from mcp.types import ToolAnnotations

READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
DESTRUCTIVE = {"readOnlyHint": False, "destructiveHint": True}
"#;

const PY_SERVER: &str = r#"from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations
from .presets import READ_ONLY, DESTRUCTIVE as D
from . import presets

mcp = FastMCP("demo")
LOCAL = {"idempotentHint": True}

# @mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))
# def commented_out(): ...
@mcp.tool()
def plain(x: int) -> int:
    return x

@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True, destructiveHint=False))
def literal(): ...

@mcp.tool(name="renamed", annotations=READ_ONLY)
def f1(): ...

@mcp.tool(annotations={**LOCAL, "openWorldHint": False})
def spread(): ...

@mcp.tool(annotations=D)
def imported_dict(): ...

@mcp.tool(annotations=presets.READ_ONLY)
def module_attr(): ...

@mcp.tool(annotations=ToolAnnotations(read_only_hint=flag, idempotent_hint=True))
def variable(): ...

@mcp.tool(f"dyn_{x}")
def dynamic(): ...

@mcp.tool
def bare(): ...

def later(): ...
mcp.add_tool(later, annotations=ToolAnnotations(openWorldHint=True))
mcp.tool(later, name="call_form", annotations=None)
"#;

const PY_LOWLEVEL: &str = r#"import mcp.types as types
from mcp.server.lowlevel import Server

server = Server("ll")

@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return [
        types.Tool(name="ll_one", inputSchema={}, annotations=types.ToolAnnotations(destructiveHint=False)),
        types.Tool(name="ll_two", inputSchema={}),
    ]
"#;

const PY_TEST: &str = r#"from fastmcp import FastMCP
mcp = FastMCP("t")
@mcp.tool(annotations={"readOnlyHint": True})
def in_test(): ...
"#;

/// Other libraries decorate tools with the same word.
const PY_NOT_MCP: &str = r#"from langchain_core.tools import tool
@tool
def not_mcp(): ...
@agent.tool
def also_not(): ...
"#;

#[test]
fn python_fixture_tree_is_exact() {
    let big = too_large();
    let found = find(&[
        ("pkg/__init__.py", b"" as &[u8]),
        ("pkg/presets.py", PY_PRESETS.as_bytes()),
        ("pkg/server.py", PY_SERVER.as_bytes()),
        ("pkg/lowlevel.py", PY_LOWLEVEL.as_bytes()),
        ("tests/test_server.py", PY_TEST.as_bytes()),
        ("pkg/agent.py", PY_NOT_MCP.as_bytes()),
        ("pkg/generated.py", &big),
    ]);
    assert_rows(
        &found,
        &[
            "pkg/lowlevel.py:9 ll_one -f--",
            "pkg/lowlevel.py:10 ll_two ----",
            "pkg/server.py:11 plain ----",
            "pkg/server.py:15 literal tf--",
            "pkg/server.py:18 renamed t--f",
            "pkg/server.py:21 spread --tf",
            "pkg/server.py:24 imported_dict ft--",
            "pkg/server.py:27 module_attr t--f",
            "pkg/server.py:30 variable ?-t-",
            "pkg/server.py:33 <dynamic> ----",
            "pkg/server.py:36 bare ----",
            "pkg/server.py:40 later ---t",
            "pkg/server.py:41 call_form ----",
            "tests/test_server.py:3 in_test t--- [test]",
        ],
    );
    assert_eq!(found.skipped_files, 1);
    assert!(found.tools.iter().all(|t| t.family == Family::Python));
}

const GO_PRESETS: &str = r#"package tools

import "github.com/modelcontextprotocol/go-sdk/mcp"

var ReadOnly = &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: jsonschema.Ptr(false)}
"#;

const GO_SERVER: &str = r#"package tools

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcp.AddTool(server, &mcp.Tool{Name: "commented"}, h)
func Register(server *mcp.Server, flag bool, name string) {
	mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "say hi"}, SayHi)
	mcp.AddTool(server, &mcp.Tool{
		Name:        "lookup",
		Annotations: ReadOnly,
	}, Lookup)
	f := false
	server.AddTool(&mcp.Tool{Name: "writer", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: &f, IdempotentHint: true}}, Write)
	mcp.AddTool(server, &mcp.Tool{Name: "flagged", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: flag, OpenWorldHint: new(bool)}}, H)
	deleteTool := &mcp.Tool{Name: "delete", Annotations: &mcp.ToolAnnotations{DestructiveHint: jsonschema.Ptr(true)}}
	mcp.AddTool(server, deleteTool, Delete)
	mcp.AddTool(server, &mcp.Tool{Name: name}, H)
}
"#;

const MCPGO_MAIN: &str = r#"package main

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	s := server.NewMCPServer("demo", "1.0.0")
	s.AddTool(mcp.NewTool("hello", mcp.WithDescription("hi")), helloHandler)
	tool := mcp.NewTool("calc",
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
	)
	s.AddTool(tool, calcHandler)
	s.AddTool(mcp.NewTool("struct", mcp.WithToolAnnotation(mcp.ToolAnnotation{ReadOnlyHint: mcp.ToBoolPtr(false), DestructiveHint: mcp.ToBoolPtr(true)})), h)
}
"#;

const MCPGO_TEST: &str = r#"package main
import "github.com/mark3labs/mcp-go/mcp"
func TestTool(t *testing.T) {
	tool := mcp.NewTool("in_test", mcp.WithIdempotentHintAnnotation(readOnly))
	_ = tool
}
"#;

#[test]
fn go_fixture_tree_is_exact() {
    let big = too_large();
    let found = find(&[
        ("tools/presets.go", GO_PRESETS.as_bytes()),
        ("tools/server.go", GO_SERVER.as_bytes()),
        ("mcpgo/main.go", MCPGO_MAIN.as_bytes()),
        ("mcpgo/main_test.go", MCPGO_TEST.as_bytes()),
        ("tools/zz_generated.go", &big),
    ]);
    assert_rows(
        &found,
        &[
            "mcpgo/main.go:10 hello ----",
            "mcpgo/main.go:11 calc t--f",
            "mcpgo/main.go:16 struct ft--",
            "mcpgo/main_test.go:4 in_test --?- [test]",
            "tools/server.go:10 greet ----",
            "tools/server.go:11 lookup t--f",
            "tools/server.go:16 writer -ft-",
            "tools/server.go:17 flagged ?--f",
            "tools/server.go:18 delete -t--",
            "tools/server.go:20 <dynamic> ----",
        ],
    );
    assert_eq!(found.skipped_files, 1);
    let families: Vec<Family> = found.tools.iter().map(|t| t.family).collect();
    assert_eq!(&families[..4], &[Family::McpGo; 4]);
    assert_eq!(&families[4..], &[Family::Go; 6]);
}

const RMCP_SERVER: &str = r#"use rmcp::{tool, tool_router, model::*};

const READ_ONLY: bool = true;

#[tool_router]
impl Counter {
    #[tool(description = "Increment the counter by 1")]
    async fn increment(&self) -> Result<CallToolResult, McpError> { todo!() }

    #[tool(name = "get_value", description = "Get", annotations(read_only_hint = true, open_world_hint = false))]
    async fn get(&self) -> String { String::new() }

    // #[tool(name = "commented", annotations(read_only_hint = true))]
    #[tool(annotations(title = "Reset", destructive_hint = true, idempotent_hint = READ_ONLY))]
    async fn reset(&self) {}

    #[tool(annotations(read_only_hint = flag()))]
    async fn dynamic_hint(&self) {}
}

fn builder() -> Tool {
    Tool::new("built", "desc", schema()).annotate(ToolAnnotations::new().read_only(true).destructive(false))
}
fn literal() -> Tool {
    let ann = ToolAnnotations { read_only_hint: Some(false), open_world_hint: None, ..Default::default() };
    Tool::new("literal".to_string(), "d", s).with_annotations(ann)
}
"#;

#[test]
fn rmcp_fixture_tree_is_exact() {
    let big = too_large();
    let found = find(&[
        ("src/server.rs", RMCP_SERVER.as_bytes()),
        ("tests/it.rs", b"#[tool]\nfn in_test() {}\n"),
        ("src/generated.rs", &big),
    ]);
    assert_rows(
        &found,
        &[
            "src/server.rs:7 increment ----",
            "src/server.rs:10 get_value t--f",
            "src/server.rs:14 reset -tt-",
            "src/server.rs:17 dynamic_hint ?---",
            "src/server.rs:22 built tf--",
            "src/server.rs:26 literal f---",
        ],
    );
    assert_eq!(found.skipped_files, 1);
    assert!(found.tools.iter().all(|t| t.family == Family::Rmcp));
}

const CS_TOOLS: &str = r#"using ModelContextProtocol.Server;
using System.ComponentModel;

[McpServerToolType]
public static class EchoTool
{
    [McpServerTool, Description("Echoes the message back to the client.")]
    public static string Echo(string message) => $"hello {message}";

    [McpServerTool(Name = "get_weather", ReadOnly = true, OpenWorld = false)]
    public static string Weather(string city) => city;

    // [McpServerTool(Name = "commented", ReadOnly = true)]
    [McpServerTool(Name = "delete_file", Destructive = true, Idempotent = Flags.Idem, ReadOnly = false)]
    public static void Delete(string path) { }

    /* [McpServerTool(Name = "block")] */
    [ModelContextProtocol.Server.McpServerToolAttribute(Name = "qualified")]
    public static void Q() { }
}

public class Setup {
    void Configure() {
        var tool = McpServerTool.Create(Handler, new McpServerToolCreateOptions { Name = "created", Idempotent = true });
    }
}
"#;

#[test]
fn csharp_fixture_tree_is_exact() {
    let big = too_large();
    let found = find(&[
        ("src/Tools.cs", CS_TOOLS.as_bytes()),
        (
            "tests/ToolTests.cs",
            b"class T { [McpServerTool(Name = \"in_test\", Destructive = true)] void M() {} }\n",
        ),
        ("src/Generated.cs", &big),
    ]);
    assert_rows(
        &found,
        &[
            "src/Tools.cs:7 echo ----",
            "src/Tools.cs:10 get_weather t--f",
            "src/Tools.cs:14 delete_file ft?-",
            "src/Tools.cs:18 qualified ----",
            "src/Tools.cs:24 created --t-",
            "tests/ToolTests.cs:1 in_test -t-- [test]",
        ],
    );
    assert_eq!(found.skipped_files, 1);
    assert!(found.tools.iter().all(|t| t.family == Family::CSharp));
}

const JAVA_TOOLS: &str = r#"package demo;

import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.Tool;

public class Tools {
    static final McpSchema.ToolAnnotations READ_ONLY = new McpSchema.ToolAnnotations("Read", true, false, true, false, false);

    // new Tool("commented", "c", schema)
    SyncToolSpecification a = new McpServerFeatures.SyncToolSpecification(new Tool("calculator", "Basic calculator", schema), handler);
    Tool b = McpSchema.Tool.builder()
        .name("search")
        .annotations(new McpSchema.ToolAnnotations("Search", true, null, null, false, null))
        .build();
    Tool c = Tool.builder().name("preset").annotations(READ_ONLY).build();
    Tool d = new McpSchema.Tool("full", "Full", "desc", schema, null, new McpSchema.ToolAnnotations(null, false, true, flag, true, null), null);
    Tool e = Tool.builder().name(dynamicName()).annotations(McpSchema.ToolAnnotations.builder().readOnlyHint(Boolean.FALSE).openWorldHint(true).build()).build();
}
"#;

#[test]
fn java_fixture_tree_is_exact() {
    let big = too_large();
    let found = find(&[
        ("src/main/java/demo/Tools.java", JAVA_TOOLS.as_bytes()),
        (
            "src/test/java/demo/ToolsTest.java",
            b"class T { Tool t = new Tool(\"in_test\", \"d\", \"{}\"); }\n",
        ),
        ("src/main/java/demo/Generated.java", &big),
    ]);
    assert_rows(
        &found,
        &[
            "src/main/java/demo/Tools.java:10 calculator ----",
            "src/main/java/demo/Tools.java:11 search t--f",
            "src/main/java/demo/Tools.java:15 preset tftf",
            "src/main/java/demo/Tools.java:16 full ft?t",
            "src/main/java/demo/Tools.java:17 <dynamic> f--t",
        ],
    );
    assert_eq!(found.skipped_files, 1);
    assert!(found.tools.iter().all(|t| t.family == Family::Java));
}

const KOTLIN_SERVER: &str = r#"import io.modelcontextprotocol.kotlin.sdk.*

val READ_ONLY = ToolAnnotations("Read", true, openWorldHint = false)

fun configure(server: Server, flag: Boolean) {
    // server.addTool(name = "commented", description = "c") { r -> r }
    server.addTool(name = "plain", description = "No hints") { request -> result() }
    server.addTool(
        name = "weather",
        description = "Weather",
        toolAnnotations = ToolAnnotations(readOnlyHint = true, destructiveHint = false, idempotentHint = null),
    ) { request -> result() }
    server.addTool(name = "preset", description = "d", toolAnnotations = READ_ONLY) { r -> r }
    server.addTool(name = "variable", description = "d", toolAnnotations = ToolAnnotations(readOnlyHint = flag)) { r -> r }
    val tool = Tool(name = "constructed", annotations = ToolAnnotations(null, false, true, true, true))
    server.addTool(tool) { r -> r }
    server.addTool(name = "tool_$flag", description = "dynamic") { r -> r }
}
"#;

#[test]
fn kotlin_fixture_tree_is_exact() {
    let big = too_large();
    let found = find(&[
        ("src/main/kotlin/Server.kt", KOTLIN_SERVER.as_bytes()),
        (
            "src/test/kotlin/ServerTest.kt",
            b"fun t() { server.addTool(name = \"in_test\", description = \"d\", toolAnnotations = ToolAnnotations(openWorldHint = true)) { r -> r } }\n",
        ),
        ("build.gradle.kts", &big),
    ]);
    assert_rows(
        &found,
        &[
            "src/main/kotlin/Server.kt:7 plain ----",
            "src/main/kotlin/Server.kt:8 weather tf--",
            "src/main/kotlin/Server.kt:13 preset t--f",
            "src/main/kotlin/Server.kt:14 variable ?---",
            "src/main/kotlin/Server.kt:15 constructed fttt",
            "src/main/kotlin/Server.kt:17 <dynamic> ----",
        ],
    );
    assert_eq!(found.skipped_files, 1);
    assert!(found.tools.iter().all(|t| t.family == Family::Kotlin));
}
