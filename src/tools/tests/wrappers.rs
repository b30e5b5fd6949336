//! Tool wrappers: a function of the tree that takes a tool's name and forwards SDK
//! options, written the way mcp-grafana writes its tools (`MustTool` in the
//! module's root package, every tool a call of it in a sibling package).

use super::*;

const GO_MOD: &str = "module github.com/grafana/mcp-grafana\n\ngo 1.24\n";

const WRAPPER: &str = r#"package mcpgrafana

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

type Tool struct {
	Tool    mcp.Tool
	Handler server.ToolHandlerFunc
}

func (t *Tool) Register(s *server.MCPServer) {
	s.AddTool(t.Tool, t.Handler)
}

func MustTool[T any, R any](
	name, description string,
	toolHandler ToolHandlerFunc[T, R],
	options ...mcp.ToolOption,
) Tool {
	tool, handler, err := ConvertTool(name, description, toolHandler, options...)
	if err != nil {
		panic(err)
	}
	return Tool{Tool: tool, Handler: handler}
}

func ConvertTool[T any, R any](name, description string, toolHandler ToolHandlerFunc[T, R], options ...mcp.ToolOption) (mcp.Tool, server.ToolHandlerFunc, error) {
	t := mcp.Tool{
		Name:        name,
		Description: description,
	}
	for _, option := range options {
		option(&t)
	}
	return t, nil, nil
}

// Describe takes options but no tool's name: no wrapper.
func Describe(options ...mcp.ToolOption) string { return "" }
"#;

const ADMIN: &str = r#"package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	mcpgrafana "github.com/grafana/mcp-grafana"
)

const updateName = "update_dashboard"

var ListTeams = mcpgrafana.MustTool(
	"list_teams",
	"Search for Grafana teams by a query string.",
	listTeams,
	mcp.WithTitleAnnotation("List teams"),
	mcp.WithIdempotentHintAnnotation(true),
	mcp.WithReadOnlyHintAnnotation(true),
	mcp.WithDestructiveHintAnnotation(false),
	mcp.WithOpenWorldHintAnnotation(false),
)

var UpdateDashboard = mcpgrafana.MustTool(updateName, "Update a dashboard.", updateDashboard,
	mcp.WithTitleAnnotation("Update dashboard"),
	mcp.WithDestructiveHintAnnotation(destructive()),
)

var RenderPanel = mcpgrafana.MustTool("render_panel", "Render a panel.", renderPanel,
	mcp.WithTitleAnnotation("Render panel"),
)

var described = mcpgrafana.Describe(mcp.WithReadOnlyHintAnnotation(true))

func AddAdminTools(s *server.MCPServer) {
	ListTeams.Register(s)
	UpdateDashboard.Register(s)
}
"#;

#[test]
fn a_go_wrapper_forwarding_mcp_go_options_defines_a_tool_at_each_call() {
    let found = find(&[
        ("go.mod", GO_MOD.as_bytes()),
        ("tools.go", WRAPPER.as_bytes()),
        ("tools/admin.go", ADMIN.as_bytes()),
    ]);
    assert_rows(
        &found,
        &[
            "tools/admin.go:12 list_teams tftf",
            "tools/admin.go:23 update_dashboard -?--",
            "tools/admin.go:28 render_panel ----",
        ],
    );
    assert!(found.tools.iter().all(|t| t.family == Family::McpGo));
}

/// The same call, with `MustTool` a function of no wrapper's shape: no tool.
#[test]
fn a_call_passing_options_to_a_function_that_is_no_wrapper_is_no_tool() {
    let plain = WRAPPER.replace(
        "options ...mcp.ToolOption,\n) Tool {",
        "options []string,\n) Tool {",
    );
    let found = find(&[
        ("go.mod", GO_MOD.as_bytes()),
        ("tools.go", plain.as_bytes()),
        ("tools/admin.go", ADMIN.as_bytes()),
    ]);
    assert_rows(&found, &[]);
}
