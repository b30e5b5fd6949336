//! Hints the source declares are never read absent: the official Go SDK's `Tool`
//! literal wherever it stands, FastMCP 2's tool objects, and the guard that makes a
//! hint a definition's own bytes name `?` when no form the finder reads sets it.
//! Each tree is written the way the servers it stands for write theirs.

use super::{assert_rows, find};
use crate::tools::Family;

/// A project's own helper that takes an `mcp.Tool` literal, as github-mcp-server's
/// `pkg/github` writes every tool: the helper is no registration, and its name is
/// mcp-go's `NewTool`.
const GO_DEPENDENCIES: &str = r#"package github

import (
	"github.com/github/github-mcp-server/pkg/inventory"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// NewTool creates a ServerTool that retrieves ToolDependencies from context at call time.
func NewTool[In, Out any](
	toolset inventory.ToolsetMetadata,
	tool mcp.Tool,
	requiredScopes []scopes.Scope,
	handler func(ctx context.Context, deps ToolDependencies, req *mcp.CallToolRequest, args In) (*mcp.CallToolResult, Out, error),
) inventory.ServerTool {
	st := inventory.NewServerToolWithContextHandler(tool, toolset, handler)
	return st
}
"#;

const GO_ACTIONS: &str = r#"package github

import (
	ghErrors "github.com/github/github-mcp-server/pkg/errors"
	"github.com/google/go-github/v79/github"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ActionsList returns the tool and handler for listing GitHub Actions resources.
func ActionsList(t translations.TranslationHelperFunc) inventory.ServerTool {
	tool := NewTool(
		ToolsetMetadataActions,
		mcp.Tool{
			Name:        "actions_list",
			Description: t("TOOL_ACTIONS_LIST_DESCRIPTION", `Tools for listing GitHub Actions resources.`),
			Annotations: &mcp.ToolAnnotations{
				Title:        t("TOOL_ACTIONS_LIST_USER_TITLE", "List GitHub Actions workflows"),
				ReadOnlyHint: true,
			},
			InputSchema: &jsonschema.Schema{Type: "object"},
		},
		[]scopes.Scope{scopes.Repo},
		func(ctx context.Context, deps ToolDependencies, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			return nil, nil, nil
		},
	)
	return tool
}

func DeleteWorkflowRunLogs(t translations.TranslationHelperFunc) inventory.ServerTool {
	return NewTool(
		ToolsetMetadataActions,
		mcp.Tool{
			Name: "delete_workflow_run_logs",
			Annotations: &mcp.ToolAnnotations{
				ReadOnlyHint:    false,
				DestructiveHint: github.Ptr(true),
				OpenWorldHint:   jsonschema.Ptr(false),
			},
		},
		[]scopes.Scope{scopes.Repo},
		deleteLogs,
	)
}

// A granular tool whose name is a parameter: one tool, no name.
func granular(t translations.TranslationHelperFunc, name string) inventory.ServerTool {
	return NewTool(
		ToolsetMetadataIssues,
		mcp.Tool{
			Name: name,
			Annotations: &mcp.ToolAnnotations{
				ReadOnlyHint:    false,
				DestructiveHint: jsonschema.Ptr(false),
				OpenWorldHint:   jsonschema.Ptr(true),
			},
		},
		nil,
		handle,
	)
}

func CreateGist(t translations.TranslationHelperFunc) inventory.ServerTool {
	return NewTool(ToolsetMetadataGists, mcp.Tool{
		Name: "create_gist",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: false},
	}, nil, create)
}
"#;

#[test]
fn a_tool_literal_passed_to_a_project_helper_is_an_official_sdk_tool() {
    let found = find(&[
        ("pkg/github/dependencies.go", GO_DEPENDENCIES.as_bytes()),
        ("pkg/github/actions.go", GO_ACTIONS.as_bytes()),
    ]);
    assert_rows(
        &found,
        &[
            "pkg/github/actions.go:14 actions_list t---",
            "pkg/github/actions.go:34 delete_workflow_run_logs -t-f",
            "pkg/github/actions.go:51 <dynamic> -f-t",
            // The Go SDK's `ReadOnlyHint: false` is never sent: absent.
            "pkg/github/actions.go:65 create_gist ----",
        ],
    );
    assert!(found.tools.iter().all(|t| t.family == Family::Go));
    assert_eq!(found.columns(), [4, 3, 0, 0, 0]);
}

/// A `go.mod` requiring the official Go SDK at `version`, as github-mcp-server's does.
fn go_mod(version: &str) -> String {
    format!(
        "module github.com/github/github-mcp-server\n\ngo 1.24.0\n\nrequire (\n\
         \tgithub.com/google/go-github/v79 v79.0.0\n\
         \tgithub.com/modelcontextprotocol/go-sdk {version}\n)\n"
    )
}

/// The official Go SDK sends a `false` `ReadOnlyHint` from its 1.7.0 on (the
/// field lost `omitempty`, pre-releases included); before, it never did. The
/// nearest `go.mod` above a file says which version the tree builds with.
#[test]
fn a_false_read_only_hint_is_sent_from_go_sdk_1_7_on() {
    let rows_with = |version: &str| {
        let go_mod = go_mod(version);
        let found = find(&[
            ("go.mod", go_mod.as_bytes()),
            ("pkg/github/dependencies.go", GO_DEPENDENCIES.as_bytes()),
            ("pkg/github/actions.go", GO_ACTIONS.as_bytes()),
        ]);
        super::rows(&found)
    };
    let sent = [
        "pkg/github/actions.go:14 actions_list t---",
        "pkg/github/actions.go:34 delete_workflow_run_logs ft-f",
        "pkg/github/actions.go:51 <dynamic> ff-t",
        "pkg/github/actions.go:65 create_gist f---",
    ];
    for version in ["v1.7.0", "v1.7.0-pre.1", "v1.8.2", "v2.0.0"] {
        assert_eq!(rows_with(version), sent, "{version}");
    }
    let omitted = [
        "pkg/github/actions.go:14 actions_list t---",
        "pkg/github/actions.go:34 delete_workflow_run_logs -t-f",
        "pkg/github/actions.go:51 <dynamic> -f-t",
        "pkg/github/actions.go:65 create_gist ----",
    ];
    for version in ["v1.6.1", "v1.0.0", "v0.8.0"] {
        assert_eq!(rows_with(version), omitted, "{version}");
    }
}

/// A tree of two modules: each file reads the SDK version of its own `go.mod`.
#[test]
fn a_go_file_reads_the_sdk_version_of_its_nearest_go_mod() {
    let (old, new) = (go_mod("v1.4.1"), go_mod("v1.7.0"));
    let found = find(&[
        ("go.mod", new.as_bytes()),
        ("legacy/go.mod", old.as_bytes()),
        (
            "legacy/pkg/github/dependencies.go",
            GO_DEPENDENCIES.as_bytes(),
        ),
        ("legacy/pkg/github/actions.go", GO_ACTIONS.as_bytes()),
        ("pkg/github/dependencies.go", GO_DEPENDENCIES.as_bytes()),
        ("pkg/github/actions.go", GO_ACTIONS.as_bytes()),
    ]);
    let create_gist: Vec<String> = super::rows(&found)
        .into_iter()
        .filter(|r| r.contains("create_gist"))
        .collect();
    assert_eq!(
        create_gist,
        [
            "legacy/pkg/github/actions.go:65 create_gist ----",
            "pkg/github/actions.go:65 create_gist f---",
        ]
    );
}

/// The official SDK's tools made and registered apart, in the forms its users
/// write: a literal in `AddTool`, a variable bound to one in another file, the
/// elements of a `[]*mcp.Tool` list, and the pointer helpers of `*bool` hints.
const GO_REGISTER: &str = r#"package server

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func ptr[T any](v T) *T { return &v }

func Register(s *mcp.Server, open bool) {
	mcp.AddTool(s, &mcp.Tool{Name: "inline", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, h)
	mcp.AddTool(s, searchTool, h)
	f := false
	s.AddTool(&mcp.Tool{Name: "local", Annotations: &mcp.ToolAnnotations{DestructiveHint: &f, IdempotentHint: true}}, h)
	for _, t := range listed {
		s.AddTool(t, h)
	}
	_ = &mcp.Tool{Name: "flagged", Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(open), DestructiveHint: ptr(false)}}
	_ = mcp.Tool{}
}
"#;

const GO_TOOLS: &str = r#"package server

import sdk "github.com/modelcontextprotocol/go-sdk/mcp"

var searchTool = &sdk.Tool{
	Name:        "search",
	Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(bool)},
}

var listed = []*sdk.Tool{
	{Name: "first", Annotations: &sdk.ToolAnnotations{IdempotentHint: true}},
	{Name: "second"},
}

// Teamwork's way: a typed constant converted to `string`, in a wrapper's field.
const MethodProjectGet Method = "twprojects-get_project"

func ProjectGet() ToolWrapper {
	return ToolWrapper{Tool: &sdk.Tool{Name: string(MethodProjectGet), Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: new(false)}}}
}
"#;

/// mcp-go has a `Tool` struct too: its literal is an mcp-go tool.
const MCPGO_LITERAL: &str = r#"package main

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	s := server.NewMCPServer("demo", "1.0.0")
	s.AddTool(mcp.Tool{Name: "raw", Annotations: mcp.ToolAnnotation{ReadOnlyHint: mcp.ToBoolPtr(true)}}, h)
}
"#;

#[test]
fn a_tool_literal_a_registration_reads_counts_once() {
    let found = find(&[
        ("server/register.go", GO_REGISTER.as_bytes()),
        ("server/tools.go", GO_TOOLS.as_bytes()),
        ("mcpgo/main.go", MCPGO_LITERAL.as_bytes()),
    ]);
    assert_rows(
        &found,
        &[
            "mcpgo/main.go:10 raw t---",
            "server/register.go:10 inline t---",
            "server/register.go:13 local -ft-",
            // `ptr(open)`: a helper of the tree over a parameter.
            "server/register.go:17 flagged -f-?",
            "server/tools.go:5 search t--f",
            "server/tools.go:11 first --t-",
            "server/tools.go:12 second ----",
            "server/tools.go:19 twprojects-get_project tf--",
        ],
    );
    let family = |path: &str| {
        found
            .tools
            .iter()
            .filter(|t| t.path.starts_with(path.as_bytes()))
            .all(|t| {
                t.family
                    == if path == "mcpgo" {
                        Family::McpGo
                    } else {
                        Family::Go
                    }
            })
    };
    assert!(family("mcpgo") && family("server"));
}

/// keboola/mcp-server's way: FastMCP 2 tool objects made from functions and passed
/// to `add_tool`, named by the function unless `name=` says otherwise.
const FASTMCP_TOOLS: &str = r#"from fastmcp import FastMCP
from fastmcp.tools import FunctionTool, Tool
from mcp.types import ToolAnnotations

COMPONENT_TOOLS_TAG = 'components'


def add_component_tools(mcp: FastMCP) -> None:
    """Add tools to the MCP server."""
    mcp.add_tool(
        FunctionTool.from_function(
            get_components,
            tags={COMPONENT_TOOLS_TAG},
            annotations=ToolAnnotations(readOnlyHint=True),
        )
    )
    mcp.add_tool(
        FunctionTool.from_function(
            update_config,
            name='update_configuration',
            annotations=ToolAnnotations(destructiveHint=True),
        )
    )
    mcp.add_tool(Tool.from_function(fn=run_job, annotations={'readOnlyHint': False, 'openWorldHint': True}))
    search = Tool.from_function(search_docs, annotations={'idempotentHint': True})
    mcp.add_tool(search)
    mcp.add_tool(FunctionTool.from_function(plain))


EXTRA = [Tool.from_function(ping, annotations=ToolAnnotations(readOnlyHint=True))]


async def get_components(): ...
"#;

/// An override of `add_tool` passing its argument on, and LangChain's tools made
/// the same way in a file that also uses FastMCP: no tool of the server.
const FASTMCP_SERVER: &str = r#"from fastmcp import FastMCP
from fastmcp.tools import Tool
from langchain_core.tools import StructuredTool
from langchain_core.tools import Tool as LangTool


class KeboolaMcpServer(FastMCP):
    def add_tool(self, tool: Tool) -> None:
        """Applies `textwrap.dedent()` to the tool's docstring."""
        super().add_tool(tool)


AGENT_TOOLS = [StructuredTool.from_function(lookup, name='lookup'), LangTool.from_function(echo, name='echo', description='d')]
"#;

#[test]
fn a_fastmcp_tool_object_passed_to_add_tool_is_a_tool_with_its_hints() {
    let found = find(&[
        ("src/server/tools.py", FASTMCP_TOOLS.as_bytes()),
        ("src/server/mcp.py", FASTMCP_SERVER.as_bytes()),
    ]);
    assert_rows(
        &found,
        &[
            "src/server/tools.py:10 get_components t---",
            "src/server/tools.py:17 update_configuration -t--",
            "src/server/tools.py:24 run_job f--t",
            // Reported where `add_tool` registers it; the object is the same tool.
            "src/server/tools.py:26 search_docs --t-",
            "src/server/tools.py:27 plain ----",
            "src/server/tools.py:30 ping t---",
        ],
    );
    assert!(found.tools.iter().all(|t| t.family == Family::Python));
}

/// Forms the recognisers do not read, each spelling a hint inside the definition:
/// the hint is declared, so `?`; a hint read absent on purpose stays absent.
const TS_UNREAD: &str = r#"import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
server.registerTool("top_level", { description: "d", readOnlyHint: true }, cb);
server.registerTool("plain", { description: "d" }, cb);
server.registerTool("undefined", { annotations: { readOnlyHint: undefined } }, cb);
low.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    { name: "hinted", annotations: { destructiveHint: true } },
    { name: "silent", inputSchema: {} },
  ],
}));
"#;

const PY_UNREAD: &str = r#"from mcp.server.fastmcp import FastMCP
mcp = FastMCP("demo")

@mcp.tool(annotations={"READONLYHINT": True, "openWorldHint": None})
def shouted(): ...
"#;

const MCPGO_UNREAD: &str = r#"package main

import "github.com/mark3labs/mcp-go/mcp"

var tool = mcp.NewTool("wrapped", withOpenWorldHint(false), mcp.WithIdempotentHintAnnotation(true))
"#;

#[test]
fn a_hint_a_definition_spells_is_never_absent() {
    let found = find(&[
        ("src/index.ts", TS_UNREAD.as_bytes()),
        ("server.py", PY_UNREAD.as_bytes()),
        ("main.go", MCPGO_UNREAD.as_bytes()),
    ]);
    assert_rows(
        &found,
        &[
            "main.go:5 wrapped --t?",
            "server.py:4 shouted ?---",
            "src/index.ts:2 top_level ?---",
            "src/index.ts:3 plain ----",
            "src/index.ts:4 undefined ----",
            // A tools/list answer's elements: the handler's bytes are many tools'.
            "src/index.ts:7 hinted -t--",
            "src/index.ts:8 silent ----",
        ],
    );
}

/// A PHP builder chain holds every tool before it: a tool's own bytes start at
/// its `addTool`.
const PHP_CHAIN: &str = r#"<?php
use Mcp\Server;
use Mcp\Schema\ToolAnnotations;

$server = Server::builder()
    ->addTool([Calc::class, 'add'], 'add', annotations: new ToolAnnotations(readOnlyHint: true))
    ->addTool([Calc::class, 'wipe'], 'wipe')
    ->build();
"#;

#[test]
fn a_hint_of_an_earlier_tool_in_a_chain_is_not_the_next_ones() {
    let found = find(&[("server.php", PHP_CHAIN.as_bytes())]);
    assert_rows(&found, &["server.php:6 add t---", "server.php:7 wipe ----"]);
}

/// kubernetes-mcp-server's own `api.Tool`, a copy of MCP's with `*bool` hints set
/// through `ptr.To`, handed to mcp-go field by field elsewhere in the tree.
const GO_OWN_TOOLS: &str = r#"package full

import (
	"k8s.io/utils/ptr"

	"github.com/containers/kubernetes-mcp-server/pkg/api"
)

func initNamespaces() []api.ServerTool {
	ret := make([]api.ServerTool, 0)
	ret = append(ret, api.ServerTool{
		Tool: api.Tool{
			Name:        "namespaces_list",
			Description: "List all the Kubernetes namespaces",
			Annotations: api.ToolAnnotations{
				Title:           "Namespaces: List",
				ReadOnlyHint:    ptr.To(true),
				DestructiveHint: ptr.To(false),
				IdempotentHint:  ptr.To(false),
				OpenWorldHint:   ptr.To(true),
			},
		}, Handler: namespacesList,
	})
	ret = append(ret, api.ServerTool{Tool: api.Tool{
		Name:        "events_list",
		Description: "List events",
	}, Handler: eventsList})
	return ret
}

// Another type called Tool, with no annotations in the file: not an MCP tool.
var other = config.Tool{Name: "kubectl"}
"#;

/// A project's own `Tool` type written with `ToolAnnotations` is read as MCP tools,
/// annotated or not, its `ptr.To(false)` a `false` sent as written, its SDK the one
/// its `go.mod` requires.
#[test]
fn a_projects_own_tool_type_is_read_with_the_sdk_its_go_mod_requires() {
    let module = "module github.com/containers/kubernetes-mcp-server\n\ngo 1.24\n";
    let go_mod = format!(
        "{module}\nrequire (\n\tgithub.com/mark3labs/mcp-go v0.39.1\n\tk8s.io/utils v0.0.0\n)\n"
    );
    // The server's package uses the SDK and imports the toolsets'.
    let server = |sdk: &str| {
        format!(
            "package mcp\n\nimport (\n\t\"{sdk}\"\n\
             \t_ \"github.com/containers/kubernetes-mcp-server/pkg/toolsets/full\"\n)\n"
        )
    };
    let mcp_go = server("github.com/mark3labs/mcp-go/mcp");
    let found = find(&[
        ("go.mod", go_mod.as_bytes()),
        ("pkg/mcp/modules.go", mcp_go.as_bytes()),
        ("pkg/toolsets/full/namespaces.go", GO_OWN_TOOLS.as_bytes()),
    ]);
    assert_rows(
        &found,
        &[
            "pkg/toolsets/full/namespaces.go:12 namespaces_list tfft",
            "pkg/toolsets/full/namespaces.go:24 events_list ----",
        ],
    );
    assert!(found.tools.iter().all(|t| t.family == Family::McpGo));
    // A go.mod naming no SDK: the official one's family.
    let go_sdk = server("github.com/modelcontextprotocol/go-sdk/mcp");
    let unnamed = find(&[
        ("go.mod", module.as_bytes()),
        ("pkg/mcp/modules.go", go_sdk.as_bytes()),
        ("pkg/toolsets/full/namespaces.go", GO_OWN_TOOLS.as_bytes()),
    ]);
    assert!(unnamed.tools.iter().all(|t| t.family == Family::Go));
    assert_eq!(unnamed.tools.len(), 2);
    // No file using an SDK reaches the toolsets: no tool counts.
    let unreached = find(&[
        ("go.mod", go_mod.as_bytes()),
        ("pkg/toolsets/full/namespaces.go", GO_OWN_TOOLS.as_bytes()),
    ]);
    assert!(unreached.tools.is_empty(), "{:?}", unreached.tools);
}

/// A Go `Description` field's text is left out of the parse and read as a string
/// without its text: a name taken from a description reads the same in every parse.
#[test]
fn a_go_description_left_out_of_the_parse_is_still_a_string() {
    let server = r#"package server

import "github.com/modelcontextprotocol/go-sdk/mcp"

var info = Info{Description: "A name taken from a description is read as a whole parse reads it."}

func Register(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        "list_items",
		Description: "Lists the items of one project, newest first, fifty at a time at most.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, listItems)
	mcp.AddTool(s, &mcp.Tool{
		Name: info.Description,
		Description: `Drops one item for good. It cannot be undone, and its history goes.`, // why
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true)},
	}, dropItem)
}
"#;
    let go_mod = go_mod("v1.0.0");
    let found = find(&[
        ("go.mod", go_mod.as_bytes()),
        ("server/server.go", server.as_bytes()),
    ]);
    assert_rows(
        &found,
        &[
            "server/server.go:8 list_items t---",
            "server/server.go:13  -t--",
        ],
    );
}
