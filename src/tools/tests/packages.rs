//! Presets in the tree's own packages, imported by package rather than by relative
//! path (Go import paths under the tree's module, Python absolute imports,
//! TypeScript path aliases and workspace packages), and values the language
//! computes (a factory's parameters, `Object.assign`, Go's `new(expr)`): each
//! fixture tree with its tools written by hand.

use super::{assert_rows, find};

const GO_MOD: &str = "module github.com/acme/srv\n\ngo 1.26\n\nrequire github.com/modelcontextprotocol/go-sdk v1.2.0\n";

const GO_PRESETS: &str = r#"package toolutil

import "github.com/modelcontextprotocol/go-sdk/mcp"

func BoolPtr(b bool) *bool { return new(b) }

var (
	ReadAnnotations = &mcp.ToolAnnotations{
		ReadOnlyHint:    true,
		DestructiveHint: new(false),
		IdempotentHint:  true,
		OpenWorldHint:   new(true),
	}
	CreateAnnotations = &mcp.ToolAnnotations{
		ReadOnlyHint:    false,
		DestructiveHint: BoolPtr(false),
		OpenWorldHint:   new(true),
	}
)
"#;

const GO_OTHER: &str = r#"package toolutil

func TitleFromName(name string) string { return name }
"#;

const GO_REGISTER: &str = r#"package branches

import (
	"github.com/acme/srv/internal/toolutil"
	tu "github.com/acme/srv/internal/toolutil"
	"github.com/acme/lib/presets"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func Register(server *mcp.Server) {
	mcp.AddTool(server, &mcp.Tool{Name: "branch_get", Title: toolutil.TitleFromName("x"), Annotations: toolutil.ReadAnnotations}, h)
	mcp.AddTool(server, &mcp.Tool{Name: "branch_create", Annotations: tu.CreateAnnotations}, h)
	mcp.AddTool(server, &mcp.Tool{Name: "replaced", Annotations: presets.Closed}, h)
	mcp.AddTool(server, &mcp.Tool{Name: "derived", Annotations: toolutil.Derive(routes)}, h)
	mcp.AddTool(server, &mcp.Tool{Name: "missing", Annotations: toolutil.Missing}, h)
}
"#;

const GO_LIB: &str = r#"package presets

import "github.com/modelcontextprotocol/go-sdk/mcp"

var Closed = &mcp.ToolAnnotations{OpenWorldHint: new(false)}
"#;

#[test]
fn go_presets_of_the_trees_own_packages_are_read_by_import_path() {
    let go_mod = format!("{GO_MOD}replace github.com/acme/lib => ./third_party/lib\n");
    let found = find(&[
        ("go.mod", go_mod.as_bytes()),
        ("internal/toolutil/annotations.go", GO_PRESETS.as_bytes()),
        ("internal/toolutil/title.go", GO_OTHER.as_bytes()),
        (
            "internal/tools/branches/register.go",
            GO_REGISTER.as_bytes(),
        ),
        ("third_party/lib/presets/presets.go", GO_LIB.as_bytes()),
    ]);
    assert_rows(
        &found,
        &[
            // ReadOnlyHint and IdempotentHint are plain bools: false is absent.
            "internal/tools/branches/register.go:11 branch_get tftt",
            "internal/tools/branches/register.go:12 branch_create -f-t",
            "internal/tools/branches/register.go:13 replaced ---f",
            "internal/tools/branches/register.go:14 derived ????",
            "internal/tools/branches/register.go:15 missing ????",
        ],
    );
}
