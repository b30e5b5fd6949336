//! Random well-formed sources, registrations nested in callbacks, functions and
//! blocks among strings, regular expressions, templates and comments that hold
//! brackets: reading them with bodies left out finds what parsing every byte finds
//! (`find` checks it), and no lexer panics on any bytes.

use super::super::filter::skim;
use super::*;
use proptest::prelude::*;

/// TypeScript statements, nested up to four deep.
fn typescript() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("const s = \"}\";".to_string()),
        Just("const r = /[}{]\\//g;".to_string()),
        Just("const t = `${ { a: 1 }.a } }`;".to_string()),
        Just("// } {\n".to_string()),
        Just("/* { */ const n = a / 2;".to_string()),
        Just("const c = { name: \"c\", inputSchema: s, execute: e };".to_string()),
        Just("return { content: [] };".to_string()),
        // `var` is hoisted out of a block: a registration outside may read it.
        Just("var VA = { readOnlyHint: true };".to_string()),
        Just("server.tool(\"v\", VA, cb);".to_string()),
        Just("const w = \"import { x } from './y'\"; // var require(exports)".to_string()),
        Just("interface I<T extends { a: 1 }> extends B { name: string; annotations: { readOnlyHint: true } }".to_string()),
        Just("export type T = { f: () => { name: \"t\" } };".to_string()),
        Just(
            "return (\n  <T>{ name: \"n\", annotations: { readOnlyHint: true } }\n);"
                .to_string()
        ),
        Just("return (a ?? { name: \"m\" });".to_string()),
        // Anchors in comments register nothing; in a template's substitution, code.
        Just("// server.tool(\"hid\", { readOnlyHint: true }, cb);\n".to_string()),
        Just("/* server.registerTool(\"hid2\", {}, cb) */ const h = 1;".to_string()),
        Just("const q = `${ server.tool(\"th\", { readOnlyHint: true }, cb) }`;".to_string()),
        (0u8..3)
            .prop_map(|i| format!("server.tool(\"leaf{i}\", {{ readOnlyHint: true }}, cb);")),
        // A list-tools handler's tools, a schema's inside left out of the parse.
        Just("server.setRequestHandler(ListToolsRequestSchema, async () => {\n  return { tools: [{ name: \"lt\", inputSchema: { type: \"object\", properties: { q: { type: \"string\" } } }, annotations: { readOnlyHint: true } }] };\n});".to_string()),
        // A factory's call: a top-level `function mk{i}` may return its config.
        (0u8..3).prop_map(|i| format!("server.registerTool(\"fx{i}\", mk{i}(), cb);")),
    ];
    leaf.prop_recursive(4, 48, 4, |inner| {
        let body = prop::collection::vec(inner, 0..4).prop_map(|b| b.join("\n"));
        (0u8..6, 0u8..4, body).prop_map(|(form, i, body)| match form {
            0 => format!("server.tool(\"t{i}\", {{ destructiveHint: false }}, async (a) => {{\n{body}\n}});"),
            1 => format!("server.registerTool(\"r{i}\", {{ annotations: {{ readOnlyHint: true }} }}, async () => {{\n{body}\n}});"),
            2 => format!("describe(\"d\", () => {{\n{body}\n}});"),
            3 => format!("if (x) {{\n{body}\n}}"),
            4 => format!("function f{i}(): Promise<void> {{\n{body}\n}}"),
            _ => format!("class C{i} {{\n  m(): T {{\n{body}\n  }}\n}}"),
        })
    })
}

/// JSX elements, their holes holding registrations, handlers and nested
/// elements, among text that spells anchors and brackets.
fn tsx() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("<p>server.tool(\"text\", {}, cb) don't {\"}\"}</p>".to_string()),
        Just("<br />".to_string()),
        Just(
            "<Input value={v} // why\n  onChange={(e) => { set(e.target.value); }} />".to_string()
        ),
        Just("<>{items.map((t) => { return <li key={t}>{t}</li>; })}</>".to_string()),
        Just("<b title='x'>{server.tool(\"hole\", { readOnlyHint: true }, cb)}</b>".to_string()),
        Just("<a.B c-d=\"e\">&amp; {/* } */}</a.B>".to_string()),
    ];
    leaf.prop_recursive(3, 24, 3, |inner| {
        prop::collection::vec(inner, 1..3).prop_map(|kids| {
            format!(
                "<section onClick={{() => {{ go(); }}}}>\n{}\n</section>",
                kids.join("\n")
            )
        })
    })
}

/// Python statements at an indentation, nested up to four deep.
fn python(depth: usize) -> BoxedStrategy<String> {
    let pad = "    ".repeat(depth);
    let leaf = prop_oneof![
        Just(format!("{pad}x = \"}}(\"\n")),
        Just(format!("{pad}y = [\n{pad}    1,\n{pad}]\n")),
        Just(format!("{pad}# ( {{\n")),
        Just(format!("{pad}return x\n")),
        (0u8..3).prop_map({
            let pad = pad.clone();
            move |i| format!("{pad}mcp.add_tool(f, name=\"leaf{i}\")\n")
        }),
        Just(format!("{pad}mcp.add_tool(f)\n")),
        // Anchors in a comment or a docstring register nothing; in an f-string's
        // field, code.
        Just(format!(
            "{pad}\"\"\"@mcp.tool\n{pad}mcp.add_tool(f, name=\"doc\")\"\"\"\n"
        )),
        Just(format!("{pad}# mcp.add_tool(f, name=\"hid\")\n")),
        Just(format!(
            "{pad}s = f\"{{mcp.add_tool(f, name='fs')}}\"  # Tool(\n"
        )),
        // A name made global in a body: a registration outside reads it.
        Just(format!(
            "{pad}global ANN\n{pad}ANN = {{\"readOnlyHint\": True}}\n"
        )),
        Just(format!(
            "{pad}mcp.add_tool(f, name=\"g\", annotations=ANN)\n"
        )),
        // One only read there binds nothing.
        Just(format!(
            "{pad}global ANN\n{pad}return ANN == ANN.get(ANN)\n"
        )),
        Just(format!(
            "{pad}s = \"global ANN; from .m import x\"  # nonlocal y\n"
        )),
    ]
    .boxed();
    if depth >= 3 {
        return leaf;
    }
    let body = prop::collection::vec(python(depth + 1), 1..4).prop_map(|b| b.concat());
    let nested = (0u8..7, 0u8..4, body).prop_map(move |(form, i, body)| {
        let inner = "    ".repeat(depth + 1);
        match form {
            0 => format!("{pad}@mcp.tool(annotations={{\"readOnlyHint\": True}})\n{pad}def t{i}(a):\n{body}"),
            1 => format!("{pad}def f{i}(a: int) -> str:\n{inner}\"\"\"Doc {{ (\n\n{inner}More.\"\"\"\n{body}"),
            2 => format!("{pad}async def g{i}():\n{body}"),
            3 => format!("{pad}def p{i}(a=[v for v in w], b=\")\", c=lambda: mcp.add_tool(f)): mcp.add_tool(g)\n{body}"),
            4 => format!("{pad}def q{i}(a: Annotated[str, Field(description=\"for a )\")] = \"#\",  # c)\n{inner}b=h(1)) -> int:\n{body}"),
            5 => format!("{pad}def r{i}(\n{inner}b=mcp.add_tool(h, name=\"p{i}\"),\n{pad}):\n{body}"),
            _ => format!("{pad}class K{i}:\n{body}"),
        }
    });
    prop_oneof![leaf, nested].boxed()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn typescript_sources(
        statements in prop::collection::vec(typescript(), 1..5),
        factories in prop::collection::vec((0u8..3, typescript()), 0..3),
    ) {
        // A name bound inside a function body is seen by no registration outside
        // it, so the factories the calls name are declared at the top level.
        let factories: Vec<String> = factories
            .into_iter()
            .map(|(i, body)| format!("function mk{i}(): T {{\n{body}\n}}"))
            .collect();
        let text = format!(
            "import {{ McpServer }} from \"@modelcontextprotocol/sdk/server/mcp.js\";\n{}\n{}\n",
            statements.join("\n"),
            factories.join("\n")
        );
        find(&[("src/index.ts", text.as_bytes())]);
    }

    #[test]
    fn tsx_sources(
        statements in prop::collection::vec(typescript(), 1..5),
        elements in prop::collection::vec(tsx(), 1..3),
    ) {
        let text = format!(
            "import {{ McpServer }} from \"@modelcontextprotocol/sdk/server/mcp.js\";\n{}\nexport function View() {{\n  return (\n    <main>\n{}\n    </main>\n  );\n}}\n",
            statements.join("\n"),
            elements.join("\n"),
        );
        find(&[("src/App.tsx", text.as_bytes())]);
    }

    #[test]
    fn python_sources(statements in prop::collection::vec(python(0), 1..5)) {
        let text = format!("from mcp.server.fastmcp import FastMCP\n{}", statements.concat());
        find(&[("pkg/server.py", text.as_bytes())]);
    }

    #[test]
    fn no_lexer_panics(bytes in prop::collection::vec(prop::sample::select(
        b"{}()[]\"'`/\\*\n #:=>|-r$@.,;abdefT".to_vec()), 0..120)) {
        for lang in [Lang::TypeScript, Lang::Tsx, Lang::Python, Lang::Go, Lang::Rust, Lang::Java, Lang::CSharp] {
            let skipped = skim::bodies(lang, &bytes);
            let mut end = 0;
            for r in &skipped {
                prop_assert!(r.start >= end && r.start < r.end && r.end <= bytes.len());
                end = r.end;
            }
            skim::included(&bytes, &skipped);
        }
        lex::typescript_forms(&bytes, false);
        lex::typescript_forms(&bytes, true);
    }
}
