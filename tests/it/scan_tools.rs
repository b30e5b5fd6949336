//! `scan`'s tool outputs: the `tools` and `tools_annotated` columns, `--tools`,
//! `--tools-csv`, `--json`, `--github-warnings`, `--require-hints=tools` and
//! `--no-tools`, on trees generated from hand-written tool lists (the generator in
//! `common` is the oracle: it knows which tool sits on which line with which hints).

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::common::*;

const SPECS: [ToolSpec; 5] = [
    ToolSpec {
        name: "list",
        hints: ["true", "", "", "false"],
    },
    ToolSpec {
        name: "remove",
        hints: ["false", "true", "false", "true"],
    },
    ToolSpec {
        name: "plain",
        hints: ["", "", "", ""],
    },
    ToolSpec {
        name: "partial",
        hints: ["", "true", "", ""],
    },
    ToolSpec {
        name: "dynamic",
        hints: ["?", "", "", "false"],
    },
];

const EXTRA: [ToolSpec; 1] = [ToolSpec {
    name: "extra",
    hints: ["true", "", "", ""],
}];

/// Writes the fixture tree under `root`; returns the lines of SPECS in
/// `src/server.ts` and of EXTRA in `lib/extra.js`.
fn write_fixture(root: &Path) -> (Vec<u32>, Vec<u32>) {
    let (server, lines) = ts_server(&SPECS);
    let (extra, extra_lines) = ts_server(&EXTRA);
    fs::create_dir_all(root.join("src")).unwrap();
    fs::create_dir_all(root.join("lib")).unwrap();
    fs::write(root.join("src/server.ts"), server).unwrap();
    fs::write(root.join("lib/extra.js"), extra).unwrap();
    // Not a source file of a family: never parsed, whatever it spells.
    fs::write(root.join("README.md"), ts_server(&EXTRA).0).unwrap();
    // Over the parse bound (2 MiB): counted as skipped, never parsed.
    let mut big = ts_server(&EXTRA).0;
    big.resize(2 * 1024 * 1024 + 1, b' ');
    fs::write(root.join("src/bundle.ts"), big).unwrap();
    (lines, extra_lines)
}

/// Returns the whole tools table the fixture gives, `repo` as given.
fn fixture_tools(repo: &str, lines: &[u32], extra_lines: &[u32]) -> String {
    format!(
        "{TOOLS_HEADER}{}{}",
        tools_rows([repo, "", ""], "lib/extra.js", &EXTRA, extra_lines),
        tools_rows([repo, "", ""], "src/server.ts", &SPECS, lines)
    )
}

/// Returns how many of `specs` set a hint `true` or `false` (a `?` alone is declared,
/// not annotated).
fn annotated(specs: &[ToolSpec]) -> usize {
    specs
        .iter()
        .filter(|s| s.hints.iter().any(|h| *h == "true" || *h == "false"))
        .count()
}

#[test]
fn the_tools_table_and_columns_hold_each_generated_tool() {
    let tmp = tempfile::tempdir().unwrap();
    let (lines, extra_lines) = write_fixture(&tmp.path().join("tree"));
    let out = run(
        tmp.path(),
        &[
            "scan",
            "--tools",
            "--tools-csv",
            "tools.csv",
            "--csv",
            "rows.csv",
            "tree",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let got = fs::read_to_string(tmp.path().join("tools.csv")).unwrap();
    assert_eq!(got, fixture_tools("tree", &lines, &extra_lines));

    let rows = read_csv(&tmp.path().join("rows.csv"));
    let cell = |name: &str| {
        let i = rows[0].iter().position(|h| h == name).unwrap();
        rows[1][i].clone()
    };
    assert_eq!(cell("tools"), (SPECS.len() + EXTRA.len()).to_string());
    assert_eq!(
        cell("tools_annotated"),
        (annotated(&SPECS) + annotated(&EXTRA)).to_string()
    );
    assert_eq!(cell("tools_skipped"), "1", "bundle.ts is over the bound");

    // One line per tool under the table, with what it omits.
    let text = stdout(&out);
    assert!(
        text.contains("tools in tree: 6 found, 5 annotated, 0 unresolved, 1 file not parsed"),
        "{text}"
    );
    for (spec, line) in SPECS.iter().zip(&lines) {
        let at = format!("tree/src/server.ts:{line}");
        let shown = text
            .lines()
            .find(|l| l.starts_with(&at))
            .unwrap_or_else(|| panic!("no line for {at} in\n{text}"));
        assert!(shown.contains(spec.name), "{shown}");
        let omits = spec_omits(spec);
        match omits.is_empty() {
            true => assert!(shown.trim_end().ends_with(" -"), "{shown}"),
            false => assert!(shown.trim_end().ends_with(&omits.join(", ")), "{shown}"),
        }
    }
    // An absent hint shows what a client resolves, as probe prints it.
    let squeeze = |l: &str| l.split_whitespace().collect::<Vec<_>>().join(" ");
    let plain = squeeze(text.lines().find(|l| l.contains(" plain ")).unwrap());
    assert!(
        plain.contains(
            "plain absent -> false absent -> true absent -> false absent -> true readOnlyHint"
        ),
        "{plain}"
    );
    let list = text.lines().find(|l| l.contains(" list ")).unwrap();
    assert!(list.contains("absent -> n/a"), "{list}");
}

#[test]
fn an_archive_gives_the_same_tools_with_paths_inside_its_top_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, lines) = ts_server(&SPECS);
    let items = vec![
        Item::Dir("src".into()),
        Item::File("src/server.ts".into(), server),
        Item::File("notes.txt".into(), b"readOnlyHint".to_vec()),
    ];
    fs::write(
        tmp.path().join("t.tar.gz"),
        targz("octo-srv-abc1234", None, &items),
    )
    .unwrap();
    let out = run(
        tmp.path(),
        &["scan", "--tools-csv", "tools.csv", "t.tar.gz"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let got = fs::read_to_string(tmp.path().join("tools.csv")).unwrap();
    let want = format!(
        "{TOOLS_HEADER}{}",
        tools_rows(["t.tar.gz", "", ""], "src/server.ts", &SPECS, &lines)
    );
    assert_eq!(got, want);
}

#[test]
fn the_tool_gate_names_each_tool_that_omits_a_meaningful_hint() {
    let tmp = tempfile::tempdir().unwrap();
    let (lines, extra_lines) = write_fixture(&tmp.path().join("tree"));
    let out = run(tmp.path(), &["scan", "--require-hints=tools", "tree"]);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    let err = stderr(&out);
    let mut want: Vec<String> = Vec::new();
    for (path, specs, at) in [
        ("lib/extra.js", &EXTRA[..], &extra_lines),
        ("src/server.ts", &SPECS[..], &lines),
    ] {
        for (spec, line) in specs.iter().zip(at.iter()) {
            for (id, message) in spec_findings(spec) {
                want.push(format!(
                    "mcp-hint-census: tree/{path}:{line}: {id}: {message} (suggested: "
                ));
            }
        }
    }
    let got: Vec<&str> = err.lines().filter(|l| l.contains(": MHC")).collect();
    assert_eq!(got.len(), want.len(), "{err}");
    for (got, want) in got.iter().zip(&want) {
        assert!(got.starts_with(want), "{got}\nwant {want}...");
    }
    assert!(
        err.contains("hint: a hint left out is read as its default"),
        "{err}"
    );

    // The literal gate is unchanged: the tree spells hints, so it passes.
    let out = run(tmp.path(), &["scan", "--require-hints", "tree"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));

    // A tree whose every tool sets its meaningful hints passes the tool gate.
    let complete: Vec<ToolSpec> = SPECS
        .iter()
        .copied()
        .filter(|s| spec_omits(s).is_empty())
        .collect();
    assert_eq!(complete.len(), 2);
    fs::create_dir_all(tmp.path().join("good")).unwrap();
    fs::write(tmp.path().join("good/s.ts"), ts_server(&complete).0).unwrap();
    let out = run(tmp.path(), &["scan", "--require-hints=tools", "good"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));

    // The tool gate needs the finder.
    let out = run(
        tmp.path(),
        &["scan", "--require-hints=tools", "--no-tools", "good"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
}

#[test]
fn json_carries_each_definition_with_its_hints_and_omissions() {
    let tmp = tempfile::tempdir().unwrap();
    let (lines, _) = write_fixture(&tmp.path().join("tree"));
    let out = run(tmp.path(), &["scan", "--json", "tree"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let rows: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let row = &rows[0];
    assert_eq!(row["tools"], 6);
    assert_eq!(row["tools_annotated"], 5);
    assert_eq!(row["tools_unresolved"], 0);
    assert_eq!(row["tool_sites_dynamic"], 0);
    assert_eq!(row["tools_skipped"], 1);
    let defs = row["tool_definitions"].as_array().unwrap();
    let server: Vec<&Value> = defs
        .iter()
        .filter(|d| d["path"] == "src/server.ts")
        .collect();
    assert_eq!(server.len(), SPECS.len());
    for ((def, spec), line) in server.iter().zip(&SPECS).zip(&lines) {
        assert_eq!(def["line"], *line);
        assert_eq!(def["sdk"], "typescript");
        assert_eq!(def["tool"], spec.name);
        for (hint, cell) in HINTS.iter().zip(spec.hints) {
            let want = match cell {
                "" => Value::Null,
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                other => Value::String(other.into()),
            };
            assert_eq!(def["hints"][hint], want, "{spec:?}");
        }
        let omits: Vec<Value> = spec_omits(spec).into_iter().map(Value::from).collect();
        assert_eq!(def["omits"], Value::Array(omits), "{spec:?}");
        assert_eq!(def["name_class"], fixture_name_class(spec.name));
        let findings: Vec<(String, String)> = def["lint"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["rule"].as_str().unwrap().into(),
                    f["message"].as_str().unwrap().into(),
                )
            })
            .collect();
        let want: Vec<(String, String)> = spec_findings(spec)
            .into_iter()
            .map(|(id, message)| (id.to_string(), message))
            .collect();
        assert_eq!(findings, want, "{spec:?}");
    }

    // With the finder off, the tool fields are null and the columns empty.
    let out = run(
        tmp.path(),
        &["scan", "--json", "--no-tools", "--csv", "off.csv", "tree"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let rows: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(rows[0]["tools"], Value::Null);
    assert_eq!(rows[0]["tool_definitions"], Value::Null);
    let csv = read_csv(&tmp.path().join("off.csv"));
    let i = csv[0].iter().position(|h| h == "tools").unwrap();
    assert_eq!(csv[1][i], "");
}

#[test]
fn github_warnings_are_workflow_commands_at_each_line() {
    let tmp = tempfile::tempdir().unwrap();
    let (lines, _) = write_fixture(&tmp.path().join("tree"));
    let out = run(
        tmp.path(),
        &["scan", "--github-warnings", "w.txt", "tree/src/server.ts"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let text = fs::read_to_string(tmp.path().join("w.txt")).unwrap();
    let titles = [
        ("MHC001", "DeclaresNoHint"),
        ("MHC002", "NameContradictsReadOnly"),
        ("MHC003", "ReadOnlyAndDestructive"),
        ("MHC004", "OmitsMeaningfulHint"),
    ];
    let want: Vec<String> = SPECS
        .iter()
        .zip(&lines)
        .flat_map(|(s, line)| {
            spec_findings(s).into_iter().map(move |(id, message)| {
                let title = titles.iter().find(|t| t.0 == id).unwrap().1;
                let command = if id == "MHC003" { "error" } else { "warning" };
                format!(
                    "::{command} file=tree/src/server.ts,line={line},title={id} {title}::{message}. Suggested: "
                )
            })
        })
        .collect();
    let got: Vec<&str> = text.lines().collect();
    assert_eq!(got.len(), want.len(), "{text}");
    for (got, want) in got.iter().zip(&want) {
        assert!(got.starts_with(want), "{got}\nwant {want}...");
    }
}

/// The official Go SDK's `mcp.Tool` literal passed to a project's own `NewTool`
/// helper, as github-mcp-server writes all of its tools, and FastMCP 2's tool objects
/// passed to `add_tool`, as keboola/mcp-server writes its own: each row carries the
/// tool's name, its hints and its family, and the tree's row counts them annotated.
#[test]
fn sdk_tool_objects_outside_a_registration_keep_their_names_and_hints() {
    let tmp = tempfile::tempdir().unwrap();
    let tree = tmp.path().join("tree");
    fs::create_dir_all(tree.join("pkg/github")).unwrap();
    fs::create_dir_all(tree.join("src/app")).unwrap();
    fs::write(
        tree.join("go.mod"),
        "module github.com/acme/server\n\ngo 1.24\n",
    )
    .unwrap();
    fs::write(
        tree.join("pkg/github/tools.go"),
        r#"package github

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func NewTool(toolset ToolsetMetadata, tool mcp.Tool, handler any) ServerTool {
	return ServerTool{Tool: tool}
}

func ListIssues(t Translator) ServerTool {
	return NewTool(ToolsetIssues, mcp.Tool{
		Name:        "list_issues",
		Annotations: &mcp.ToolAnnotations{Title: t("LIST"), ReadOnlyHint: true},
	}, listIssues)
}

func DeleteFile(t Translator) ServerTool {
	return NewTool(ToolsetRepos, mcp.Tool{
		Name: "delete_file",
		Annotations: &mcp.ToolAnnotations{
			DestructiveHint: jsonschema.Ptr(true),
			OpenWorldHint:   jsonschema.Ptr(false),
		},
	}, deleteFile)
}
"#,
    )
    .unwrap();
    fs::write(
        tree.join("src/app/tools.py"),
        r#"from fastmcp.tools import FunctionTool
from mcp.types import ToolAnnotations


def add_tools(mcp) -> None:
    mcp.add_tool(
        FunctionTool.from_function(
            get_buckets,
            annotations=ToolAnnotations(readOnlyHint=True),
        )
    )
    mcp.add_tool(FunctionTool.from_function(drop, name='drop_bucket', annotations={'destructiveHint': True}))
"#,
    )
    .unwrap();
    let out = run(
        tmp.path(),
        &[
            "scan",
            "--tools-csv",
            "tools.csv",
            "--csv",
            "rows.csv",
            "tree",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let got = fs::read_to_string(tmp.path().join("tools.csv")).unwrap();
    let expected = format!(
        "{TOOLS_HEADER}\
         tree,,,pkg/github/tools.go,13,tool,source,go,list_issues,read,true,,,\n\
         tree,,,pkg/github/tools.go,20,tool,source,go,delete_file,destructive,,true,,false\n\
         tree,,,src/app/tools.py,6,tool,source,python,get_buckets,read,true,,,\n\
         tree,,,src/app/tools.py,12,tool,source,python,drop_bucket,destructive,,true,,\n"
    );
    assert_eq!(got, expected, "\nexpected:\n{expected}\ngot:\n{got}");
    let rows = read_csv(&tmp.path().join("rows.csv"));
    let cell = |name: &str| {
        let i = rows[0].iter().position(|h| h == name).unwrap();
        rows[1][i].clone()
    };
    assert_eq!(
        (cell("tools"), cell("tools_annotated")),
        ("4".into(), "4".into())
    );
}
