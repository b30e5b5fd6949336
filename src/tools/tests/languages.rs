//! Which files the finder wants and which use an SDK: extensions, spellings and
//! look-alikes, and the search for `tool` and `hint` in any case.

use super::super::spellings::Spellings;
use super::*;

#[test]
fn wants_goes_by_extension_alone() {
    for yes in [
        "a.ts",
        "b/c.mjs",
        "x.CJS",
        "d.tsx",
        "e.jsx",
        "go.mod",
        "go.work",
        "p/package.json",
        "tsconfig.base.json",
        "srv/pyproject.toml",
    ] {
        assert!(TreeTools::wants(yes.as_bytes()), "{yes}");
    }
    for no in [
        "README.md",
        "ts",
        "a.json",
        "Makefile",
        ".ts",
        "go.sum",
        "go.work.sum",
        "setup.cfg",
    ] {
        assert!(!TreeTools::wants(no.as_bytes()), "{no}");
    }
}

#[test]
fn every_sdk_is_recognised_by_its_spelling_and_look_alikes_are_not() {
    let uses: &[(&str, &[u8])] = &[
        (
            "a.ts",
            b"import { McpServer } from \"@modelcontextprotocol/sdk/server/mcp.js\";",
        ),
        (
            "a.ts",
            b"import { McpServer } from '@modelcontextprotocol/server';",
        ),
        (
            "a.js",
            b"const sdk = require(\"@modelcontextprotocol/sdk/server/index.js\");",
        ),
        ("a.ts", b"import { FastMCP } from \"fastmcp\";"),
        ("a.ts", b"import { FastMCP } from \"./FastMCP.js\";"),
        (
            "a.ts",
            b"context.registerTool('x', { annotations: {} }, cb);",
        ),
        (
            "a.js",
            b"server.setRequestHandler(types_js_1.ListToolsRequestSchema, h);",
        ),
        (
            "a.ts",
            b"import type { ToolArgs } from \"@mongodb-js/mcp-core\";",
        ),
        (
            "a.ts",
            b"import {\n  createApp,\n} from '@repo/mcp-common/src/mcp-app'",
        ),
        ("a.js", b"const core = require( \"acme-mcp-kit\" );"),
        ("a.mjs", b"const m = await import(`@x/mcp-utils`);"),
        ("a.py", b"from mcp.server.fastmcp import FastMCP"),
        ("a.py", b"import mcp.types as types"),
        ("a.py", b"from fastmcp import FastMCP"),
        ("a.py", b"from .server import mcp"),
        (
            "a.go",
            b"import \"github.com/modelcontextprotocol/go-sdk/mcp\"",
        ),
        ("a.go", b"import \"github.com/mark3labs/mcp-go/server\""),
        ("a.rs", b"use rmcp::{tool, tool_router};"),
        ("a.cs", b"using ModelContextProtocol.Server;"),
        ("a.cs", b"[McpServerToolType] public static class T {}"),
        ("a.java", b"import io.modelcontextprotocol.spec.McpSchema;"),
        (
            "a.kt",
            b"import io.modelcontextprotocol.kotlin.sdk.server.Server",
        ),
    ];
    for (path, bytes) in uses {
        let lang = Lang::of(path.as_bytes()).unwrap();
        assert!(lang.uses_sdk(bytes), "{}", String::from_utf8_lossy(bytes));
    }
    let others: &[(&str, &[u8])] = &[
        (
            "a.ts",
            b"import { tool } from \"ai\";\nconst t = tool({ description: 'x' });",
        ),
        (
            "a.py",
            b"from langchain_core.tools import tool\n@tool\ndef f(): ...",
        ),
        ("a.py", b"from pydantic_ai import Agent"),
        ("a.ts", b"import { x } from './mcp-helpers.js';"),
        ("a.ts", b"const s = \"uses mcp for tools\"; // from mcp"),
        (
            "a.ts",
            b"import { x } from \"y\"; const url = \"https://mcp.example\";",
        ),
        ("a.go", b"import \"github.com/other/mcp\""),
        ("a.cs", b"using Microsoft.SemanticKernel;"),
        (
            "a.java",
            b"import org.springframework.ai.tool.annotation.Tool;",
        ),
    ];
    for (path, bytes) in others {
        let lang = Lang::of(path.as_bytes()).unwrap();
        assert!(!lang.uses_sdk(bytes), "{}", String::from_utf8_lossy(bytes));
    }
    assert!(mentions(b"READ_ONLY_HINT = 1") && mentions(b"let toolbox = 1;"));
    assert!(!mentions(b"const x = { readOnly: true };") && !mentions(b""));
}

#[test]
fn a_language_is_told_by_its_extension_in_any_case() {
    let cases: [(&str, Option<Lang>); 9] = [
        ("src/a.ts", Some(Lang::TypeScript)),
        ("src/A.TSX", Some(Lang::Tsx)),
        ("x/b.Py", Some(Lang::Python)),
        ("c.swift", Some(Lang::Swift)),
        ("c.swiftx", None),
        ("src.ts/README", None),
        (".ts", None),
        ("a.", None),
        ("Makefile", None),
    ];
    for (path, want) in cases {
        assert_eq!(Lang::of(path.as_bytes()), want, "{path}");
    }
}

proptest::proptest! {
    /// `mentions` finds what comparing every four bytes, folded to lower case, finds:
    /// texts of the two words' letters in both cases, near misses among them
    /// (`tooL`, `hinT`, `thin`), any length around the search's block sizes.
    #[test]
    fn mentions_finds_either_word_in_any_case(text in "[toolhintTOOLHINTx .]{0,80}") {
        let bytes = text.as_bytes();
        let naive = bytes
            .windows(4)
            .any(|w| w.eq_ignore_ascii_case(b"tool") || w.eq_ignore_ascii_case(b"hint"));
        proptest::prop_assert_eq!(mentions(bytes), naive);
        // The search a CPU without a packed one makes, of the same spellings.
        let spellings = ["tool", "hint"].iter().flat_map(|w| {
            (0..16u8).map(move |upper| {
                w.bytes()
                    .enumerate()
                    .map(|(i, b)| if upper >> i & 1 == 1 { b.to_ascii_uppercase() } else { b })
                    .collect::<Vec<u8>>()
            })
        });
        let plain = Spellings { packed: None, spellings: spellings.collect() };
        proptest::prop_assert_eq!(plain.found_in(bytes), naive);
    }
}

#[test]
fn every_language_is_listed_at_its_own_index() {
    for (i, lang) in Lang::ALL.iter().enumerate() {
        assert_eq!(*lang as usize, i, "{lang:?}");
    }
    assert_eq!(Lang::ALL.len(), Lang::Swift as usize + 1);
}
