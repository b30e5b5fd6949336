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

const TS_BASE: &str = r#"import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";

export function createApiAnnotations(annotations: ToolAnnotations): ToolAnnotations {
  return {
    openWorldHint: false,
    ...annotations,
  };
}

export const withDefaults = (a: ToolAnnotations, closed = true) => ({ destructiveHint: false, openWorldHint: !closed, ...a });

export abstract class BaseApiTool implements Tool {
  abstract name: string;
}
"#;

const TS_TOOL: &str = r#"import { BaseApiTool, createApiAnnotations } from "../base/base-api-tool";
import { withDefaults } from "@/base/base-api-tool";
import { READ_ONLY } from "@acme/presets";
import { CLOSED } from "@acme/presets/closed";

const DEFAULTS = { readOnlyHint: false, idempotentHint: false };

export class GetBoardTool extends BaseApiTool {
  name = "get_board";
  annotations = createApiAnnotations({ title: "Get board", readOnlyHint: true });
}

export class DeleteItemTool extends BaseApiTool {
  name = "delete_item";
  annotations = createApiAnnotations({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
}

export class PlainTool extends BaseApiTool {
  name = "plain";
  annotations = createApiAnnotations(computed());
}

export class AliasTool extends BaseApiTool {
  name = "alias";
  annotations = withDefaults({ idempotentHint: true });
}

export class AssignTool extends BaseApiTool {
  name = "assign";
  annotations = Object.assign({}, DEFAULTS, READ_ONLY, { idempotentHint: true });
}

export class WorkspaceTool extends BaseApiTool {
  name = "workspace";
  annotations = CLOSED;
}
"#;

const TS_PRESETS_PACKAGE: &str = r#"{
  "name": "@acme/presets",
  "exports": { ".": { "types": "./dist/index.d.ts", "import": "./dist/index.js" }, "./closed": "./dist/closed.js" }
}"#;

const TS_CONFIG: &str = r#"{
  // path aliases of the app
  "compilerOptions": { "baseUrl": ".", "paths": { "@/*": ["src/*"] }, },
}"#;

#[test]
fn typescript_factories_aliases_and_workspace_packages_resolve() {
    let found = find(&[
        ("packages/app/tsconfig.json", TS_CONFIG.as_bytes()),
        ("packages/app/package.json", br#"{"name": "@acme/app"}"#),
        ("packages/app/src/base/base-api-tool.ts", TS_BASE.as_bytes()),
        ("packages/app/src/tools/board.ts", TS_TOOL.as_bytes()),
        (
            "packages/app/src/index.ts",
            b"import { McpServer } from \"@modelcontextprotocol/sdk/server/mcp.js\";\nimport { GetBoardTool } from \"@/tools/board\";\n",
        ),
        ("packages/presets/package.json", TS_PRESETS_PACKAGE.as_bytes()),
        (
            "packages/presets/src/index.ts",
            b"export const READ_ONLY = { readOnlyHint: true };\n",
        ),
        (
            "packages/presets/src/closed.ts",
            b"export const CLOSED = { openWorldHint: false, destructiveHint: false };\n",
        ),
    ]);
    assert_rows(
        &found,
        &[
            "packages/app/src/tools/board.ts:8 get_board t--f",
            "packages/app/src/tools/board.ts:13 delete_item ft-t",
            // The argument is computed: the spread hides every hint but the default's.
            "packages/app/src/tools/board.ts:18 plain ????",
            // `!closed` is an operator: unresolved, the rest read.
            "packages/app/src/tools/board.ts:23 alias -ft?",
            "packages/app/src/tools/board.ts:28 assign t-t-",
            "packages/app/src/tools/board.ts:33 workspace -f-f",
        ],
    );
}

const PY_PRESETS: &str = r#"from mcp.types import ToolAnnotations

READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
DESTRUCTIVE = {"destructiveHint": True}
"#;

const PY_SERVER: &str = r#"from mcp.server.fastmcp import FastMCP
from app.tools.presets import READ_ONLY
from app.tools import presets
import app.tools.presets as p

mcp = FastMCP("demo")

@mcp.tool(annotations=READ_ONLY)
def search(q: str) -> str:
    return q

@mcp.tool(annotations=presets.DESTRUCTIVE)
def purge() -> None:
    pass

@mcp.tool(annotations=p.READ_ONLY)
def look() -> None:
    pass
"#;

#[test]
fn python_absolute_imports_of_the_trees_packages_resolve() {
    for root in ["", "src/"] {
        let server = format!("{root}app/server.py");
        let presets = format!("{root}app/tools/presets.py");
        let init = format!("{root}app/tools/__init__.py");
        let found = find(&[
            (server.as_str(), PY_SERVER.as_bytes()),
            (presets.as_str(), PY_PRESETS.as_bytes()),
            (init.as_str(), b""),
        ]);
        assert_rows(
            &found,
            &[
                &format!("{server}:8 search t--f"),
                &format!("{server}:12 purge -t--"),
                &format!("{server}:16 look t--f"),
            ],
        );
    }
}

#[test]
fn a_package_file_kept_aside_is_parsed_only_when_a_lookup_needs_it() {
    let mut tools = super::TreeTools::new();
    tools.add_file(b"go.mod", GO_MOD.as_bytes());
    tools.add_file(b"internal/toolutil/annotations.go", GO_PRESETS.as_bytes());
    tools.add_file(b"internal/toolutil/title.go", GO_OTHER.as_bytes());
    tools.add_file(b"internal/unused/unused.go", GO_LIB.as_bytes());
    tools.add_file(
        b"internal/tools/branches/register.go",
        GO_REGISTER.as_bytes(),
    );
    assert_eq!(tools.files.len(), 1, "only the registering file at once");
    let found = tools.finish();
    assert_eq!(found.tools[0].hints[0], Some(super::HintState::True));
    // The folder's files were parsed as the lookup met them; the unused package never.
    let mut tools = super::TreeTools::new();
    for (p, b) in [
        ("go.mod", GO_MOD),
        ("internal/toolutil/annotations.go", GO_PRESETS),
        ("internal/unused/unused.go", GO_LIB),
        ("internal/tools/branches/register.go", GO_REGISTER),
    ] {
        tools.add_file(p.as_bytes(), b.as_bytes());
    }
    let _ = tools.resolve();
    let parsed: Vec<String> = tools
        .files
        .iter()
        .map(|f| String::from_utf8_lossy(&f.path).to_string())
        .collect();
    assert_eq!(
        parsed,
        [
            "internal/tools/branches/register.go",
            "internal/toolutil/annotations.go"
        ]
    );
}

#[test]
fn a_replace_out_of_the_tree_is_never_followed() {
    // The module's own folder sits outside the tree; a file of the tree at the
    // path the replacement would name outside it must not be read for it.
    let go_mod = format!(
        "{GO_MOD}replace github.com/acme/lib => ../lib\nreplace github.com/acme/abs => /etc/lib\n"
    );
    let register = GO_REGISTER.replace(
        "\"github.com/acme/lib/presets\"",
        "presets \"github.com/acme/abs\"",
    );
    let found = find(&[
        ("srv/go.mod", go_mod.as_bytes()),
        (
            "srv/internal/toolutil/annotations.go",
            GO_PRESETS.as_bytes(),
        ),
        (
            "srv/internal/tools/branches/register.go",
            register.as_bytes(),
        ),
        ("lib/presets/presets.go", GO_LIB.as_bytes()),
        ("etc/lib/presets.go", GO_LIB.as_bytes()),
    ]);
    let rows = super::rows(&found);
    assert_eq!(
        rows[0],
        "srv/internal/tools/branches/register.go:11 branch_get tftt"
    );
    assert_eq!(
        rows[2],
        "srv/internal/tools/branches/register.go:13 replaced ????"
    );
}

#[test]
fn a_cycle_of_package_imports_terminates() {
    // Two packages import each other's presets, a TypeScript alias points at its
    // own file, and a Python module imports itself: every lookup ends.
    let a = r#"package a

import (
	"github.com/acme/srv/b"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var A = b.B

func R(s *mcp.Server) { mcp.AddTool(s, &mcp.Tool{Name: "cycle", Annotations: A}, h) }
"#;
    let b = "package b\n\nimport \"github.com/acme/srv/a\"\n\nvar B = a.A\n";
    let ts = "import { McpServer } from \"@modelcontextprotocol/sdk/server/mcp.js\";\nimport { X } from \"@/self\";\nexport const Y = X;\nserver.registerTool(\"loop\", { annotations: Y }, cb);\n";
    let self_ts = "export { X } from \"@/self\";\n";
    let py = "from mcp.server.fastmcp import FastMCP\nfrom app.server import P\nP = P\n@mcp.tool(annotations=P)\ndef f():\n    pass\n";
    let found = find(&[
        ("go.mod", GO_MOD.as_bytes()),
        ("a/a.go", a.as_bytes()),
        ("b/b.go", b.as_bytes()),
        (
            "tsconfig.json",
            br#"{"compilerOptions": {"paths": {"@/*": ["./web/*"]}}}"#,
        ),
        ("web/index.ts", ts.as_bytes()),
        ("web/self.ts", self_ts.as_bytes()),
        ("app/server.py", py.as_bytes()),
    ]);
    assert_rows(
        &found,
        &[
            "a/a.go:10 cycle ????",
            "app/server.py:4 f ????",
            "web/index.ts:4 loop ????",
        ],
    );
}

/// Compiled JavaScript as `tsc` emits a low-level server: the handler binds its
/// `tools` and answers `{ tools }`; a CLI function binds the same name again.
const JS_LOW_LEVEL: &str = r#""use strict";
const types_js_1 = require("@modelcontextprotocol/sdk/types.js");
class Server {
    setupToolHandlers() {
        this.server.setRequestHandler(types_js_1.ListToolsRequestSchema, async () => {
            const tools = [
                { name: "search", description: "Search", inputSchema: { type: "object" }, annotations: { readOnlyHint: true, openWorldHint: true } },
                { name: "extract", description: "Extract", inputSchema: { type: "object" } },
            ];
            return { tools };
        });
    }
}
function listTools() {
    const tools = [{ name: "search" }, { name: "extract" }];
    tools.forEach((t) => console.log(t.name));
}
"#;

#[test]
fn a_compiled_handler_answers_the_tools_it_binds_itself() {
    let found = find(&[("build/index.js", JS_LOW_LEVEL.as_bytes())]);
    assert_rows(
        &found,
        &[
            "build/index.js:7 search t--t",
            "build/index.js:8 extract ----",
        ],
    );
}

#[test]
fn manifests_kept_are_bounded_and_the_first_in_path_order_stay() {
    let mut tools = super::TreeTools::new();
    let limit = crate::tools::manifests::MAX_MANIFESTS;
    // Arriving from the last path back: what is kept does not depend on the order.
    for i in (0..limit + 5).rev() {
        let path = format!("packages/p{i:05}/package.json");
        let body = format!("{{\"name\": \"@m/p{i}\"}}");
        tools.add_file(path.as_bytes(), body.as_bytes());
    }
    tools.add_file(b"big/package.json", &vec![b' '; 2 * 1024 * 1024]);
    assert_eq!(tools.manifests.len(), limit);
    let last = tools.manifests.keys().last().unwrap();
    assert_eq!(
        last,
        format!("packages/p{:05}/package.json", limit - 1).as_bytes()
    );
    assert_eq!(
        tools.finish().skipped_files,
        0,
        "a manifest is never a skipped file"
    );
}

const GO_HELPERS: &str = r#"package toolutil

// Flag is a pointer helper whose name says nothing of it.
func Flag(b bool) *bool { return &b }

// Ptr is the generic spelling.
func Ptr[T any](v T) *T { return &v }

// boolPtr's name promises a pointer to its argument; its body negates it.
func boolPtr(b bool) *bool {
	v := !b
	return &v
}

func Closed() *bool { return new(false) }
"#;

const GO_HELPED: &str = r#"package toolutil

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func Register(server *mcp.Server) {
	mcp.AddTool(server, &mcp.Tool{Name: "flag", Annotations: &mcp.ToolAnnotations{DestructiveHint: Flag(true), OpenWorldHint: Ptr(false)}}, h)
	mcp.AddTool(server, &mcp.Tool{Name: "negated", Annotations: &mcp.ToolAnnotations{DestructiveHint: boolPtr(true), OpenWorldHint: Closed()}}, h)
	mcp.AddTool(server, &mcp.Tool{Name: "library", Annotations: &mcp.ToolAnnotations{DestructiveHint: jsonschema.Ptr(false), OpenWorldHint: unknownPtr(true)}}, h)
}
"#;

const GO_HELPED_ELSEWHERE: &str = r#"package tools

import (
	"github.com/acme/srv/internal/toolutil"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func Register(server *mcp.Server) {
	mcp.AddTool(server, &mcp.Tool{Name: "imported", Annotations: &mcp.ToolAnnotations{DestructiveHint: toolutil.Flag(false), OpenWorldHint: toolutil.BoolPtr(true)}}, h)
}
"#;

#[test]
fn go_pointer_helpers_of_the_tree_are_read_by_their_body_not_their_name() {
    let found = find(&[
        ("go.mod", GO_MOD.as_bytes()),
        ("internal/toolutil/annotations.go", GO_PRESETS.as_bytes()),
        ("internal/toolutil/helpers.go", GO_HELPERS.as_bytes()),
        ("internal/toolutil/register.go", GO_HELPED.as_bytes()),
        ("internal/tools/register.go", GO_HELPED_ELSEWHERE.as_bytes()),
    ]);
    assert_rows(
        &found,
        &[
            "internal/tools/register.go:9 imported -f-t",
            "internal/toolutil/register.go:9 flag -t-f",
            // The body negates: not read, whatever the name says.
            "internal/toolutil/register.go:10 negated -?-f",
            // Helpers the tree does not define: a library's pointer helper by name.
            "internal/toolutil/register.go:11 library -f-t",
        ],
    );
}

const PY_DOTTED: &str = r#"from mcp.server.fastmcp import FastMCP
import app.tools.presets
import app.tools.other, app.flags

mcp = FastMCP("demo")

@mcp.tool(annotations=app.tools.presets.READ_ONLY)
def search(q: str) -> str:
    return q

@mcp.tool(annotations={"destructiveHint": app.flags.YES, "openWorldHint": app.tools.presets.CLOSED})
def purge() -> None:
    pass

@mcp.tool(annotations=app.tools.presets.MISSING)
def missing() -> None:
    pass
"#;

#[test]
fn python_dotted_names_after_a_plain_import_resolve() {
    let found = find(&[
        ("app/server.py", PY_DOTTED.as_bytes()),
        ("app/__init__.py", b"YES = False\n"),
        ("app/flags.py", b"YES = True\n"),
        ("app/tools/__init__.py", b""),
        ("app/tools/other.py", b""),
        (
            "app/tools/presets.py",
            b"READ_ONLY = {\"readOnlyHint\": True}\nCLOSED = False\n",
        ),
    ]);
    assert_rows(
        &found,
        &[
            "app/server.py:7 search t---",
            // `app.flags` is the module, not `app/__init__.py`'s names.
            "app/server.py:11 purge -t-f",
            "app/server.py:15 missing ????",
        ],
    );
}

const PY_IMPORTER: &str = r#"from mcp.server.fastmcp import FastMCP
from acme.presets import READ_ONLY

mcp = FastMCP("demo")

@mcp.tool(annotations=READ_ONLY)
def search(q: str) -> str:
    return q
"#;

/// A wheel holds its packages at its top, beside `*.dist-info/` (which the finder
/// does not read) and without the `pyproject.toml` they were built from: an
/// absolute import of the wheel's own package is read at the top, where the
/// importing file's folders lead, as `scan` of a `.whl` gives it.
#[test]
fn a_wheels_packages_resolve_without_a_pyproject() {
    let found = find(&[
        ("acme/server.py", PY_WHEEL_SERVER.as_bytes()),
        ("acme/__init__.py", b""),
        ("acme/tools/__init__.py", b""),
        (
            "acme/tools/presets.py",
            b"from mcp.types import ToolAnnotations\nREAD_ONLY = ToolAnnotations(readOnlyHint=True)\n",
        ),
    ]);
    assert_rows(&found, &["acme/server.py:5 search t---"]);
}

const PY_WHEEL_SERVER: &str = r#"from mcp.server.fastmcp import FastMCP
from acme.tools.presets import READ_ONLY
mcp = FastMCP("acme")

@mcp.tool(annotations=READ_ONLY)
def search(q: str) -> str:
    return q
"#;

#[test]
fn python_package_roots_a_pyproject_declares_are_read() {
    // (pyproject.toml, where the package sits): each spelling places `acme` in a
    // folder neither the importing file's own nor a `src/` above it.
    let cases = [
        (
            "[tool.setuptools]\npackage-dir = {\"\" = \"lib\"}\n",
            "lib/acme",
        ),
        (
            "[tool.setuptools.package-dir]\nacme = \"code/acme\"\n",
            "code/acme",
        ),
        (
            "[tool.setuptools.packages.find]\nwhere = [\"python\"]\n",
            "python/acme",
        ),
        (
            "[tool.hatch.build.targets.wheel]\npackages = [\"pkgs/acme\"]\n",
            "pkgs/acme",
        ),
        (
            "[tool.poetry]\nname = \"x\"\npackages = [{ include = \"acme\", from = \"source\" }]\n",
            "source/acme",
        ),
    ];
    for (pyproject, package) in cases {
        let presets = format!("srv/{package}/presets.py");
        let init = format!("srv/{package}/__init__.py");
        let files: [(&str, &[u8]); 5] = [
            ("srv/pyproject.toml", pyproject.as_bytes()),
            ("srv/app/server.py", PY_IMPORTER.as_bytes()),
            (presets.as_str(), b"READ_ONLY = {\"readOnlyHint\": True}\n"),
            (init.as_str(), b""),
            // Another project's package of the same name is not this one's.
            (
                "other/lib/acme/presets.py",
                b"READ_ONLY = {\"readOnlyHint\": False}\n",
            ),
        ];
        assert_rows(&find(&files), &["srv/app/server.py:6 search t---"]);
        // Without the manifest the package is not found.
        assert_rows(&find(&files[1..]), &["srv/app/server.py:6 search ????"]);
    }
}

#[test]
fn go_work_modules_and_replacements_resolve() {
    let work = "go 1.23\n\nuse (\n\t./server\n\t./presets\n)\n\nreplace github.com/acme/lib => ./third_party/lib\n";
    let register = r#"package main

import (
	"github.com/acme/lib"
	"github.com/acme/presets/annotations"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	mcp.AddTool(s, &mcp.Tool{Name: "read", Annotations: annotations.Read}, h)
	mcp.AddTool(s, &mcp.Tool{Name: "closed", Annotations: lib.Closed}, h)
}
"#;
    let found = find(&[
        ("go.work", work.as_bytes()),
        ("server/go.mod", b"module github.com/acme/server\n"),
        ("server/main.go", register.as_bytes()),
        ("presets/go.mod", b"module github.com/acme/presets\n"),
        (
            "presets/annotations/a.go",
            b"package annotations\n\nvar Read = &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}\n",
        ),
        ("third_party/lib/lib.go", GO_LIB.replace("package presets", "package lib").as_bytes()),
    ]);
    assert_rows(
        &found,
        &[
            "server/main.go:10 read t--f",
            "server/main.go:11 closed ---f",
        ],
    );
}

#[test]
fn a_python_tool_model_of_another_library_is_no_tool() {
    // `import app.builtin` reaches the module; its `Tool` is the application's own
    // model, not the SDK's low-level `mcp.types.Tool`.
    let server = "from mcp.server.fastmcp import FastMCP\nimport app.builtin\n\nmcp = FastMCP(\"demo\")\n\n@mcp.tool(annotations=app.builtin.PRESET)\ndef search() -> None:\n    pass\n";
    let builtin = "from app.models import Tool\n\nPRESET = {\"readOnlyHint\": True}\nTOOL = Tool(name=\"load_skill\", annotations=PRESET)\n";
    let low_level = "from mcp.types import Tool\n\nTOOLS = [Tool(name=\"listed\", inputSchema={}, annotations={\"readOnlyHint\": False})]\n";
    let found = find(&[
        ("app/server.py", server.as_bytes()),
        ("app/builtin.py", builtin.as_bytes()),
        ("app/low.py", low_level.as_bytes()),
    ]);
    assert_rows(
        &found,
        &["app/low.py:3 listed f---", "app/server.py:6 search t---"],
    );
}

const PY_FACTORY: &str = r#"from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations

from .presets import closed

mcp = FastMCP("git")


def writes(*, destructive: bool, idempotent: bool = False) -> ToolAnnotations:
    return ToolAnnotations(
        read_only_hint=False,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=False,
    )


def computed(flag):
    value = not flag
    return ToolAnnotations(destructive_hint=value)


@mcp.tool(annotations=writes(destructive=False, idempotent=True))
def add() -> None:
    pass


@mcp.tool(annotations=writes(destructive=True))
def reset() -> None:
    pass


@mcp.tool(annotations=closed(True))
def status() -> None:
    pass


@mcp.tool(annotations=computed(True))
def other() -> None:
    pass
"#;

#[test]
fn python_factories_bind_keyword_and_positional_arguments() {
    let found = find(&[
        ("git/server.py", PY_FACTORY.as_bytes()),
        (
            "git/presets.py",
            b"def closed(read_only, open_world=False):\n    return {\"readOnlyHint\": read_only, \"openWorldHint\": open_world}\n",
        ),
        ("git/__init__.py", b""),
    ]);
    assert_rows(
        &found,
        &[
            "git/server.py:23 add fftf",
            // A missing keyword argument is the parameter's default.
            "git/server.py:28 reset ftff",
            "git/server.py:33 status t--f",
            // A body of more than one statement is not read.
            "git/server.py:38 other ????",
        ],
    );
}

#[test]
fn python_keywords_splatted_into_a_registration_are_read_or_unknown() {
    let server = r#"from mcp.server.fastmcp import FastMCP

mcp = FastMCP("demo")
READ = {"annotations": {"readOnlyHint": True}}
PLAIN = {"description": "x"}


def register(name, func, **tool_kwargs):
    mcp.tool(name=name, **tool_kwargs)(func)


mcp.tool(name="read", **READ)(f)
mcp.tool(name="plain", **PLAIN)(f)
"#;
    assert_rows(
        &find(&[("srv/server.py", server.as_bytes())]),
        &[
            // A parameter's keywords: whether they hold annotations is not known.
            "srv/server.py:9 <dynamic> uuuu",
            "srv/server.py:12 read t---",
            "srv/server.py:13 plain ----",
        ],
    );
}
