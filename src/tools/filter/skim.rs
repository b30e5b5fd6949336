//! Which function bodies of a file the parser may leave out: TypeScript's function
//! bodies and blocks (a handler passed to `server.tool(...)`, a `.map(...)`
//! callback, a method's body; a named function's only when it returns no object
//! literal, which the recogniser reads as a factory, nor only a name, a helper
//! that gives its argument back), Go's (but one opening with
//! `return &` or `return new(`, which may be a helper of one return), Rust's, Java's and C#'s
//! function bodies and blocks, and the bodies of Python's `def`s, when their code
//! (comments and strings that cannot hold code blanked, see [`lex::Lexed::code`])
//! holds no anchor (see [`prefilter::anchored`]).
//! A recogniser records nothing from such a body: no registration is spelled in it,
//! and a name bound in it is, by the language's scoping, seen by no registration
//! outside it. Leaving it out of the parse is most of what a registering file costs
//! (docs/method.md, "Tools": "What is parsed").
//!
//! The bodies are found by the lexers of `lex`, before any parse. Whatever a lexer
//! cannot follow (an unterminated string, a bracket closed by the wrong kind) leaves
//! the whole file to the parser.

use std::ops::Range;

use memchr::memchr_iter;
use tree_sitter::Point;

use super::keys;
use super::lang::Lang;
use super::lex::{self, SEARCH_FACTOR};
use super::prefilter;

/// Returns the byte ranges of `bytes` the parse may leave out, sorted and disjoint;
/// empty when the language is not skimmed or the lexer could not follow the file.
pub(in crate::tools) fn bodies(lang: Lang, bytes: &[u8]) -> Vec<Range<usize>> {
    match lex::lex(lang, bytes) {
        Some(lexed) => {
            let code = lexed.code(bytes);
            bodies_of(lang, bytes, lexed, &code)
        }
        None => Vec::new(),
    }
}

/// [`bodies`], from what the lexer read of `bytes` and the code it gives (see
/// [`lex::Lexed::code`]): a body is searched for anchors in its code only.
pub(in crate::tools) fn bodies_of(
    lang: Lang,
    bytes: &[u8],
    lexed: lex::Lexed,
    code: &[u8],
) -> Vec<Range<usize>> {
    let comments = lexed.comments;
    let texts = lexed.texts;
    let mut candidates = lexed.candidates;
    // Outermost first: a body left out takes every body inside it along.
    candidates.sort_by_key(|c| (c.search.start, std::cmp::Reverse(c.search.end)));
    let wanted: Vec<bool> = candidates
        .iter()
        .map(|c| {
            let body = &code[c.search.clone()];
            (c.named && (c.returns || returns_a_name(body)))
                || (lang == Lang::Go && returns_a_pointer(body))
                || (matches!(lang, Lang::TypeScript | Lang::Tsx)
                    && returns_tools(&code[..c.search.start]))
        })
        .collect();
    let holding = holding_wanted(&candidates, &wanted);
    let mut budget = bytes.len().saturating_mul(SEARCH_FACTOR);
    let mut out: Vec<Range<usize>> = Vec::new();
    for (k, c) in candidates.into_iter().enumerate() {
        if out.last().is_some_and(|last| c.search.start < last.end) {
            continue;
        }
        if wanted[k] || holding[k] {
            continue;
        }
        let text = &bytes[c.search.clone()];
        if text.len() > budget {
            continue;
        }
        budget -= text.len();
        if prefilter::anchored(lang, &code[c.search.clone()]) || c.binds {
            continue;
        }
        out.extend(c.doc.filter(|d| !d.is_empty()));
        if !c.skip.is_empty() {
            out.push(c.skip);
        }
    }
    with_comments(bytes, with_texts(out, &texts), &comments)
}

/// Returns, for each of `candidates` (outermost first), whether a body inside it
/// is `wanted` (one the recogniser reads for what it is: a factory, a function
/// typed as giving tools): left out, the outer body would take it along, so it
/// stays in the parse too.
fn holding_wanted(candidates: &[lex::Candidate], wanted: &[bool]) -> Vec<bool> {
    let mut holding = vec![false; candidates.len()];
    let mut open: Vec<usize> = Vec::new();
    let close = |open: &mut Vec<usize>, holding: &mut [bool]| {
        if let Some(inner) = open.pop() {
            if let Some(&outer) = open.last() {
                holding[outer] |= wanted[inner] || holding[inner];
            }
        }
    };
    for (k, c) in candidates.iter().enumerate() {
        while open
            .last()
            .is_some_and(|&o| candidates[o].search.end <= c.search.start)
        {
            close(&mut open, &mut holding);
        }
        open.push(k);
    }
    while !open.is_empty() {
        close(&mut open, &mut holding);
    }
    holding
}

/// Adds to `bodies` (sorted, disjoint) the texts outside them (see
/// [`lex::Lexed::texts`]).
fn with_texts(bodies: Vec<Range<usize>>, texts: &[Range<usize>]) -> Vec<Range<usize>> {
    if texts.is_empty() {
        return bodies;
    }
    let mut out = Vec::with_capacity(bodies.len() + texts.len());
    let mut next = bodies.into_iter().peekable();
    for t in texts {
        while let Some(b) = next.next_if(|b| b.end <= t.start) {
            out.push(b);
        }
        if next.peek().is_none_or(|b| t.end <= b.start) {
            out.push(t.clone());
        }
    }
    out.extend(next);
    out
}

/// Adds to `bodies` (sorted, disjoint) the comments outside them, which no
/// recogniser reads. A comment's line ends stay, since a comment holding one reads
/// as a line end (Go's semicolons, JavaScript's automatic ones); a comment on one
/// line is left out when white space stands on one side of it, so that the tokens
/// around it do not run together (`a/**/b`, `-/**/-`). Two ranges with only white
/// space between them, a line end among it, are left out as one when a line end
/// follows the later one (see [`push_joined`]).
fn with_comments(
    bytes: &[u8],
    bodies: Vec<Range<usize>>,
    comments: &[Range<usize>],
) -> Vec<Range<usize>> {
    let space = |at: Option<&u8>| at.is_none_or(|b| b.is_ascii_whitespace());
    let mut out = Vec::with_capacity(bodies.len() + comments.len());
    let mut next = bodies.into_iter().peekable();
    for c in comments {
        while let Some(b) = next.next_if(|b| b.end <= c.start) {
            push_joined(bytes, &mut out, b);
        }
        if next.peek().is_some_and(|b| b.start < c.end) {
            // Inside a body left out already.
            continue;
        }
        let text = &bytes[c.clone()];
        if memchr::memchr(b'\n', text).is_none() {
            let before = c.start.checked_sub(1).map(|i| &bytes[i]);
            if space(before) || space(bytes.get(c.end)) {
                push_joined(bytes, &mut out, c.clone());
            }
            continue;
        }
        // Each line's part, its line end kept.
        let mut from = c.start;
        for at in memchr::memchr_iter(b'\n', text)
            .map(|i| c.start + i)
            .chain([c.end])
        {
            let part = from..at;
            let part = part.start..part.start + bytes[part].trim_ascii_end().len();
            if !part.is_empty() {
                push_joined(bytes, &mut out, part);
            }
            from = at + 1;
        }
    }
    for b in next {
        push_joined(bytes, &mut out, b);
    }
    out
}

/// Pushes `r` onto `out` (sorted, disjoint, `r` after the last), or stretches the
/// last range over it when only white space holding a line end stands between them
/// and a line end follows `r`, past spaces and tabs (or the file ends): the parse
/// then reads one line end where it read several, which no grammar tells apart
/// (a blank line in Python, one automatic semicolon in Go and JavaScript), and
/// each line of a block comment or a run of line comments is not a range of its
/// own. tree-sitter's lexer looks for its place among the included ranges from the
/// first one at every token, so their number weighs on every token after them.
fn push_joined(bytes: &[u8], out: &mut Vec<Range<usize>>, r: Range<usize>) {
    if let Some(last) = out.last_mut() {
        let gap = &bytes[last.end..r.start];
        let after = bytes[r.end..].iter().find(|&&b| b != b' ' && b != b'\t');
        if gap.iter().all(u8::is_ascii_whitespace)
            && memchr::memchr2(b'\n', b'\r', gap).is_some()
            && matches!(after, None | Some(b'\n' | b'\r'))
        {
            last.end = r.end;
            return;
        }
    }
    out.push(r);
}

/// Returns true when the code before a body (`head`, up to its `{`, an arrow's
/// `=>` before it) ends with a return type the recogniser reads as a tool or a
/// list of tools ([`keys::tool_type`], after the last `:`): it reads the object or
/// list the body returns.
fn returns_tools(head: &[u8]) -> bool {
    let head = head.trim_ascii_end();
    let head = head.strip_suffix(b"{").unwrap_or(head).trim_ascii_end();
    let head = head.strip_suffix(b"=>").unwrap_or(head);
    // Asked of every candidate, nested ones too (see `holding_wanted`): a type
    // whose name holds no `Tool` is none, found without `tool_type`'s copy.
    memchr::memrchr(b':', head).is_some_and(|at| {
        let written = &head[at + 1..];
        memchr::memmem::find(written, b"Tool").is_some() && keys::tool_type(written).is_some()
    })
}

/// Returns true when a body's code opens with `return &` or `return new(`: a Go
/// function whose only statement returns a pointer is read as what it gives (a
/// pointer helper, a factory of annotations; see `golang`), so its body stays in
/// the parse.
fn returns_a_pointer(code: &[u8]) -> bool {
    let Some(rest) = code.trim_ascii_start().strip_prefix(b"return") else {
        return false;
    };
    let rest = rest.trim_ascii_start();
    rest.starts_with(b"&")
        || rest
            .strip_prefix(b"new")
            .is_some_and(|r| r.trim_ascii_start().starts_with(b"("))
}

/// Returns true when a body's code is one statement returning a name or a dotted
/// name, `return definition;`: a helper that gives its argument back
/// (`defineTool(t)`), which the TypeScript recogniser reads as what the call's
/// argument is, or `tsc`'s re-export getter (`get: function () { return
/// area_1.area; }`), read as the binding it gives.
fn returns_a_name(code: &[u8]) -> bool {
    let Some(rest) = code.trim_ascii().strip_prefix(b"return") else {
        return false;
    };
    let name = rest.strip_suffix(b";").unwrap_or(rest).trim_ascii();
    rest.first().is_some_and(u8::is_ascii_whitespace)
        && !name.is_empty()
        && name.split(|&b| b == b'.').all(|part| {
            !part.is_empty()
                && part
                    .iter()
                    .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
        })
}

/// Returns the ranges a parser includes when `skipped` (sorted, disjoint) are left
/// out of `bytes`, with the points tree-sitter needs (0-based rows, byte columns).
pub(in crate::tools) fn included(
    bytes: &[u8],
    skipped: &[Range<usize>],
) -> Vec<tree_sitter::Range> {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(memchr_iter(b'\n', bytes).map(|i| i + 1))
        .collect();
    let point = |at: usize| {
        let row = starts.partition_point(|&s| s <= at) - 1;
        Point {
            row,
            column: at - starts[row],
        }
    };
    let mut out = Vec::with_capacity(skipped.len() + 1);
    let mut from = 0;
    for gap in skipped
        .iter()
        .chain(std::iter::once(&(bytes.len()..bytes.len())))
    {
        if gap.start > from {
            out.push(tree_sitter::Range {
                start_byte: from,
                end_byte: gap.start,
                start_point: point(from),
                end_point: point(gap.start),
            });
        }
        from = gap.end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::lex::typescript_forms;

    /// The bodies left out, comments aside (see `comments_are_left_out_but_their_line_ends`).
    fn skipped(lang: Lang, src: &str) -> Vec<&str> {
        let comments = lex::lex(lang, src.as_bytes()).map_or(Vec::new(), |l| l.comments);
        bodies(lang, src.as_bytes())
            .into_iter()
            .filter(|r| {
                !comments
                    .iter()
                    .any(|c| c.start <= r.start && r.end <= c.end)
            })
            .map(|r| &src[r])
            .collect()
    }

    #[test]
    fn comments_are_left_out_but_their_line_ends() {
        let src = "/** Doc\n * more */\nconst a = 1; // c\nconst b = a /* x */ + 2;\nconst d = a-/**/-b;\n\
                   const e = 1 /* one\n two */ + 2; // f\n  // g\n\n// h\nreturn\n";
        let left: Vec<&str> = bodies(Lang::TypeScript, src.as_bytes())
            .into_iter()
            .map(|r| &src[r])
            .collect();
        // A block comment's lines, and a run of line comments, are one range when
        // a line end follows them; one followed by code keeps its line end apart.
        assert_eq!(
            left,
            [
                "/** Doc\n * more */",
                "// c",
                "/* x */",
                "/* one",
                " two */",
                "// f\n  // g\n\n// h"
            ]
        );
        let py = "# head\nx = 1  # tail\ndef f():\n    # inside\n    # more\n    return 1\n";
        let left: Vec<&str> = bodies(Lang::Python, py.as_bytes())
            .into_iter()
            .map(|r| &py[r])
            .collect();
        assert_eq!(left, ["# head", "# tail", "# inside\n    # more"]);
    }

    #[test]
    fn a_typescript_handler_is_left_out_and_its_registration_kept() {
        let src =
            "server.tool(\"a\", {}, async (x) => {\n  const r = await f(x);\n  return r;\n});\n";
        assert_eq!(
            skipped(Lang::TypeScript, src),
            ["\n  const r = await f(x);\n  return r;\n"]
        );
    }

    #[test]
    fn a_body_holding_a_registration_or_an_import_is_parsed() {
        let src =
            "describe(\"x\", () => {\n  server.tool(\"a\", async () => { return 1; });\n});\n\
                   load(() => { const m = require(\"./m\"); });\n";
        assert_eq!(skipped(Lang::TypeScript, src), [" return 1; "]);
    }

    #[test]
    fn braces_in_strings_templates_comments_and_regexes_are_stepped_over() {
        let src = "f(() => { const a = \"}\"; const b = `${ {x: 1}.x }}`; /* } */ // }\n\
                   const c = /[}]/g.test(a) ? 1 / 2 : 3; });\n";
        let got = skipped(Lang::TypeScript, src);
        assert_eq!(got.len(), 1);
        assert!(got[0].ends_with("3; "), "{got:?}");
    }

    #[test]
    fn a_non_null_assertion_leaves_an_operand_on_its_line() {
        // `x! / y` divides; a `!` opening a line is a negation, a regular
        // expression after it.
        let src = "function f() { const r = ranks.get(p)! / n; return r; }\n\
                   function g() { return a\n!/}/.test(s); }\n";
        assert_eq!(
            skipped(Lang::TypeScript, src),
            [
                " const r = ranks.get(p)! / n; return r; ",
                " return a\n!/}/.test(s); "
            ]
        );
    }

    #[test]
    fn tsx_elements_are_read_and_their_handlers_left_out() {
        let src = "export function App() {\n  const id = <T,>(x: T) => { return x ?? 0; };\n  return (\n    <div className=\"a\" // a comment\n      onClick={() => { setOpen(\"}\"); }}>\n      Don't {'{'} <b>stop</b> &amp; <></>\n      <Panel tools={tools.map((t) => { return t.name; })} />\n    </div>\n  );\n}\nserver.tool(\"t\", { readOnlyHint: true }, async () => { return <p>{x}</p>; });\n";
        assert_eq!(
            skipped(Lang::Tsx, src),
            [
                " return x ?? 0; ",
                " setOpen(\"}\"); ",
                " return t.name; ",
                " return <p>{x}</p>; ",
            ]
        );
        // The function's own body holds a JSX return, read as a literal it may return.
        assert!(!skipped(Lang::Tsx, src)
            .iter()
            .any(|b| b.contains("className")));
        // What the reader does not follow (an attribute holding an element) leaves
        // the file whole.
        assert!(skipped(Lang::Tsx, "f(() => { g(); });\nconst a = <A b=<B /> />;\n").is_empty());
    }

    #[test]
    fn a_list_tools_handler_is_parsed() {
        let src = "server.setRequestHandler(ListToolsRequestSchema, async () => {\n  return { tools: TOOLS.map((t) => { return t; }) };\n});\n";
        assert!(skipped(Lang::TypeScript, src).is_empty());
        // Its bodies stay, its tools' schemas do not.
        let listed = "server.setRequestHandler(ListToolsRequestSchema, async () => {\n  return { tools: [{ name: \"a\", inputSchema: { type: \"object\" } }] };\n});\n";
        assert_eq!(skipped(Lang::TypeScript, listed), [" type: \"object\" "]);
        // A bundler's suffixed name, in a bundle.
        let bundled = src.replace("ListToolsRequestSchema", "ListToolsRequestSchema2");
        assert!(skipped(Lang::TypeScript, &bundled).is_empty());
        assert!(skipped(Lang::JavaScript, &bundled).is_empty());
    }

    #[test]
    fn bodies_and_blocks_are_left_out_and_object_literals_kept() {
        let src =
            "if (x) { a(); }\nf({ name: 1 });\nfunction g() { b(); }\nclass C { m() { c(); } }\n";
        assert_eq!(
            skipped(Lang::TypeScript, src),
            [" a(); ", " b(); ", " c(); "]
        );
    }

    #[test]
    fn a_schema_object_is_left_out_unless_it_holds_an_anchor_or_a_binding() {
        let src = "server.registerTool(\"a\", { inputSchema: { q: z.string() }, outputSchema: { type: \"object\" }, annotations: { readOnlyHint: true } }, cb);\n\
                   const t = { name: \"b\", \"parameters\": { x: 1 }, schema: other, inputSchema: { f: require(\"./f\") } };\n\
                   const u = { inputSchema: { inner: server.registerTool(\"c\", {}, cb) } };\n\
                   const v = { schema : /* c */ { y: 2 }, input_schema: { z: 3 } };\n";
        assert_eq!(
            skipped(Lang::TypeScript, src),
            [" q: z.string() ", " type: \"object\" ", " x: 1 ", " y: 2 "]
        );
    }

    #[test]
    fn a_zod_object_s_shape_is_left_out() {
        let src = "export const S = z.object({ a: z.string(), b: zod.number() });\n\
                   const T = zod_1.z.strictObject(\n  { c: z.boolean() },\n);\n\
                   const U = other.object({ d: 1 }), V = z.object(shape), W = z.array(z.looseObject({ e: f(() => { g(); }) }));\n\
                   const X = z.object({ t: server.registerTool(\"x\", {}, cb) });\n";
        assert_eq!(
            skipped(Lang::TypeScript, src),
            [
                " a: z.string(), b: zod.number() ",
                " c: z.boolean() ",
                " e: f(() => { g(); }) ",
            ]
        );
    }

    #[test]
    fn a_description_text_is_left_out_when_it_is_the_whole_value() {
        let long = "Reads one page of the project's issues, newest first, at most fifty.";
        let src = format!(
            "server.registerTool(\"a\", {{ description: \"{long}\", annotations: {{ readOnlyHint: true }} }}, cb);\n\
             const t = {{ name: \"b\", 'description': /* c */ `{long}\n{long}`, inputSchema: s }};\n\
             const u = {{ description: \"short\", other: \"{long}\" }};\n\
             const v = {{ description: \"{long}\" + more, x: `{long}${{y}}`, description2: \"{long}\" }};\n\
             const w = {{ k: cond ? description : \"{long}\", description: `${{a}}{long}` }};\n"
        );
        let left: Vec<&str> = bodies(Lang::TypeScript, src.as_bytes())
            .into_iter()
            .map(|r| &src[r])
            .filter(|text| !text.starts_with("/*"))
            .collect();
        let two = format!("{long}\n{long}");
        assert_eq!(left, [long, two.as_str()]);
    }

    #[test]
    fn a_handler_key_s_function_body_is_left_out_though_it_returns_an_object() {
        let src = "const t = { name: \"a\", handler: async (args: A): Promise<{ content: R[] }> => { return { content: [] }; } };\n\
                   const u = { execute: function run(x) { return { ok: 1 }; }, \"handle\": async ({ a }) => { return { a }; } };\n\
                   const v = { make: () => { return { name: \"x\" }; }, run: wrap, callback: (a) => a, later: (b) => { return { b }; } };\n\
                   const w = { handler: (cond ? f : g), other: y => { return { y }; } };\n\
                   class C { handler = async () => { return { c: 1 }; }; }\n";
        assert_eq!(
            skipped(Lang::TypeScript, src),
            [
                " return { content: [] }; ",
                " return { ok: 1 }; ",
                " return { a }; ",
            ]
        );
        // JavaScript, whose handler's parameters take no types.
        let js = "module.exports = { handler: async function (event) { return { statusCode: 200 }; } };\n";
        assert_eq!(
            skipped(Lang::JavaScript, js),
            [" return { statusCode: 200 }; "]
        );
    }

    #[test]
    fn a_go_description_text_is_left_out_when_it_is_the_whole_value() {
        let long = "Lists the items of one project, newest first, fifty at a time.";
        let src = format!(
            "package s\n\nfunc register(s *mcp.Server) {{\n\
             \tmcp.AddTool(s, &mcp.Tool{{\n\t\tName: \"list_items\",\n\t\tDescription: \"{long}\",\n\t}}, h)\n\
             \tt := T{{Description:\n\t\t`{long}` /* c */ }}\n\
             \tu := T{{Description: \"{long}\" + more, x.Description: \"{long}\"}}\n\
             \tv := T{{Description: \"short\", Summary: \"{long}\"}}\n}}\n"
        );
        let left: Vec<&str> = bodies(Lang::Go, src.as_bytes())
            .into_iter()
            .map(|r| &src[r])
            .filter(|text| !text.starts_with("/*"))
            .collect();
        assert_eq!(left, [long, long]);
    }

    #[test]
    fn bodies_after_a_return_type_are_left_out() {
        let src = "class C {\n  async m(x: T): Promise<Map<string, R[]>> { return { a: 1 }; }\n  n(): { a: number } { return { a: 2 }; }\n}\n\
                   function g(a: string): string | undefined { h(); }\n\
                   function make(): Def { return { name: \"a\" }; }\n";
        assert_eq!(
            skipped(Lang::TypeScript, src),
            [" return { a: 1 }; ", " h(); "]
        );
    }

    #[test]
    fn javascript_bodies_are_left_out_a_var_kept_only_in_a_block() {
        // A bundle's module wrapper, a minified helper, JSX the reader cannot
        // follow in minified code read as plain JavaScript.
        let src = "var m = k((e) => { var a = 1; use(a); });\n\
                   function h(t) { var u = t < 2; return u; }\n\
                   if (x) { var kept = { readOnlyHint: true }; }\n\
                   server.tool(\"v\", kept, cb);\n";
        assert_eq!(
            skipped(Lang::JavaScript, src),
            [" var a = 1; use(a); ", " var u = t < 2; return u; "]
        );
        let minified = "for(let o=0;o<t.length;o++)f(()=>{g(o<t)});";
        assert_eq!(skipped(Lang::JavaScript, minified), ["g(o<t)"]);
    }

    #[test]
    fn a_helper_giving_its_argument_back_is_parsed() {
        let src = "function define<T extends Def<A>>(d: T): T {\n  return d;\n}\n\
                   const same = (d) => { return d; };\n\
                   function other(d) { return d.name; }\n\
                   function g<T>(d: T) { log(d); }\n\
                   tools.map((t) => { return t; });\n";
        assert_eq!(skipped(Lang::TypeScript, src), [" log(d); ", " return t; "]);
    }

    #[test]
    fn typescript_interfaces_and_object_type_aliases_are_left_out() {
        let src = "export interface I<T extends { a: 1 }> extends B<C>, D.E {\n  name: string;\n  run(): void;\n}\n\
                   type T<U = () => void> = { a: U };\n\
                   declare interface J { b: 1 }\n\
                   const type = { name: \"x\" };\n\
                   const t = { type: \"object\" };\n\
                   type Both = A & { c: 2 };\n\
                   type\nX = { d: 3 };\n";
        assert_eq!(
            skipped(Lang::TypeScript, src),
            ["\n  name: string;\n  run(): void;\n", " a: U ", " b: 1 "]
        );
    }

    #[test]
    fn a_named_function_returning_a_literal_is_parsed() {
        let src = "function make() { const d = 1; return { name: \"a\", d }; }\n\
                   const f = () => { return ({ x: 1 }); };\n\
                   g(() => { return { content: [] }; });\n\
                   if (y) { var hoisted = 1; }\n\
                   function cast() { return (\n <Tool>{ name: \"c\" }); }\n\
                   function noted() { return /* the tool */ { name: \"n\" }; }\n\
                   function either() { return (\n a ?? b\n ); }\n";
        assert_eq!(
            skipped(Lang::TypeScript, src),
            [" return { content: [] }; ", " return (\n a ?? b\n ); "]
        );
    }

    #[test]
    fn a_function_returning_a_literal_only_from_a_nested_block_is_left_out() {
        // The recogniser reads the last `return` among a function's own statements:
        // one in a `try`, an `if` or a callback makes no factory. A factory
        // declared inside a function keeps the function around it.
        let src = "async function handle(a): Promise<R> { try { return { content: [] }; } catch { return { isError: true }; } }
                   function pick(a) { if (a) { return { name: \"p\" }; } }
                   const each = () => { items.map((t) => { return { t }; }); };
                   function outer() { function inner() { return { name: \"i\" }; } go(); }
                   function last() { if (a) { go(); } return { name: \"l\" }; }
";
        assert_eq!(
            skipped(Lang::TypeScript, src),
            [
                " try { return { content: [] }; } catch { return { isError: true }; } ",
                " if (a) { return { name: \"p\" }; } ",
                " items.map((t) => { return { t }; }); ",
                " go(); ",
            ]
        );
    }

    #[test]
    fn what_the_lexer_cannot_follow_is_parsed_whole() {
        for src in [
            "f(() => { a(\"x); });\n",
            "f(() => { a(); ));\n",
            "f(() => { `${ });\n",
        ] {
            assert!(skipped(Lang::TypeScript, src).is_empty(), "{src}");
        }
    }

    #[test]
    fn go_bodies_after_a_result_type_are_left_out() {
        let src = "func a() error {\n\treturn f()\n}\nfunc b(x int) *mcp.CallToolResult { return nil }\nfunc c() mcp.Tool { return mcp.NewTool(\"c\") }\nfunc d() (int, error) { return 1, nil }\nfunc e(b bool) *bool { return &b }\nfunc g(b bool) *bool { return new (b) }\n";
        // A body returning a pointer may be a helper of one return: parsed.
        assert_eq!(
            skipped(Lang::Go, src),
            ["\n\treturn f()\n", " return nil ", " return 1, nil "]
        );
    }

    #[test]
    fn a_go_handler_is_left_out_and_its_registration_kept() {
        let src = "func T() (mcp.Tool, server.ToolHandlerFunc) {\n\treturn mcp.NewTool(\"t\"),\n\t\tfunc(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {\n\t\t\ts := `}{`\n\t\t\tif ok(s) { return nil, nil }\n\t\t\treturn f('}', \"{\")\n\t\t}\n}\n";
        assert_eq!(
            skipped(Lang::Go, src),
            ["\n\t\t\ts := `}{`\n\t\t\tif ok(s) { return nil, nil }\n\t\t\treturn f('}', \"{\")\n\t\t"]
        );
    }

    #[test]
    fn go_struct_and_interface_types_are_left_out_and_composite_literals_kept() {
        let src = "type In struct {\n\tQ string `json:\"q\" jsonschema:\"{\"`\n}\ntype H interface { Do() error }\nvar t = &mcp.Tool{Name: \"t\", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}\nvar rows = []struct{ n string }{{n: \"a\"}}\ntype R struct {\n\tX int `d:\"s.AddTool(t)\"`\n}\n";
        assert_eq!(
            skipped(Lang::Go, src),
            [
                "\n\tQ string `json:\"q\" jsonschema:\"{\"`\n",
                " Do() error ",
                " n string ",
                // An anchor in a tag, a string, is none.
                "\n\tX int `d:\"s.AddTool(t)\"`\n",
            ]
        );
    }

    #[test]
    fn rust_and_java_bodies_are_left_out_and_their_registrations_kept() {
        let rust = "#[tool_router]\nimpl S {\n    #[tool(description = \"x\")]\n    async fn a(&self, p: Parameters<R>) -> Result<CallToolResult, McpError> {\n        let s = r#\"}\"{\"#; let c = '}'; let l: &'a str = \"{\";\n        Ok(CallToolResult::success(vec![]))\n    }\n    fn b() -> Tool { Tool::new(\"b\", \"d\", s) }\n    fn c(x: u8) { match x { 1 => { f() } _ => {} } }\n}\n";
        assert_eq!(
            skipped(Lang::Rust, rust),
            [
                "\n        let s = r#\"}\"{\"#; let c = '}'; let l: &'a str = \"{\";\n        Ok(CallToolResult::success(vec![]))\n    ",
                " match x { 1 => { f() } _ => {} } ",
            ]
        );
        let java = "class T {\n  void a() throws IOException, X {\n    String s = \"}\"; char c = '{';\n    String t = \"\"\"\n    }\n    \"\"\";\n  }\n  Tool b() { return new Tool(\"b\", null); }\n  Runnable r = () -> { run(); };\n}\n";
        assert_eq!(
            skipped(Lang::Java, java),
            [
                "\n    String s = \"}\"; char c = '{';\n    String t = \"\"\"\n    }\n    \"\"\";\n  ",
                " run(); ",
            ]
        );
    }

    #[test]
    fn csharp_bodies_are_left_out_and_their_registrations_kept() {
        let src = "[McpServerToolType]\npublic static class T {\n    [McpServerTool(ReadOnly = true)]\n    public static string Echo(string m) {\n        var a = $\"{m} }} {{ {(m.Length > 1 ? \"}\" : \"{\")}\";\n        var b = @\"C:\\{\"\"}\";\n        return a + b + '}';\n    }\n    public static string Local() { [McpServerTool] static string L() => \"x\"; return L(); }\n    Func<int, int> f = (x) => { return x; };\n}\n";
        assert_eq!(
            skipped(Lang::CSharp, src),
            [
                "\n        var a = $\"{m} }} {{ {(m.Length > 1 ? \"}\" : \"{\")}\";\n        var b = @\"C:\\{\"\"}\";\n        return a + b + '}';\n    ",
                " return x; ",
            ]
        );
        assert_eq!(
            skipped(
                Lang::CSharp,
                "void M() { var s = \"\"\"\n{ \"\" }\n\"\"\"; }\n"
            ),
            [" var s = \"\"\"\n{ \"\" }\n\"\"\"; "]
        );
        assert!(skipped(Lang::CSharp, "void M() { var s = $\"\"\"{x}\"\"\"; }\n").is_empty());
    }

    #[test]
    fn a_python_body_past_its_first_statement_is_left_out() {
        let src = "@mcp.tool()\nasync def f(x: int) -> str:\n    \"\"\"Doc.\n\n    More.\"\"\"\n    y = g(x)\n\n    # note\n    return h(\n        y,\n    )\n\n\ndef short(): return 1\n";
        assert_eq!(
            skipped(Lang::Python, src),
            [
                "x: int",
                "Doc.\n\n    More.",
                "    y = g(x)\n\n    # note\n    return h(\n        y,\n    )\n"
            ]
        );
    }

    #[test]
    fn a_python_body_holding_an_anchor_or_a_global_is_parsed() {
        let src = "def register(mcp):\n    x = 1\n    @mcp.tool()\n    def a():\n        return x\n\ndef b():\n    global Y\n    Y = 2\n\ndef c():\n    x = 1\n    from .presets import P\n";
        // Only the parameter lists are left out.
        assert_eq!(skipped(Lang::Python, src), ["mcp"]);
        let absolute = "def d():\n    x = 1\n    import json\n    from typing import Any\n";
        assert_eq!(
            skipped(Lang::Python, absolute),
            ["    import json\n    from typing import Any\n"]
        );
        // A global assigned, even in a nested block or annotated, keeps its body
        // in the parse; one only read, or compared, does not.
        let assigned =
            "def e():\n    global Y, \\\n        Z\n    if Y == 1:\n        Z: int = 3\n";
        assert!(skipped(Lang::Python, assigned).is_empty());
        let read = "def f():\n    global Y\n    x = self.Y = YY = 1\n    return Y == Y.run(Y)\n";
        assert_eq!(
            skipped(Lang::Python, read),
            ["    x = self.Y = YY = 1\n    return Y == Y.run(Y)\n"]
        );
    }

    #[test]
    fn a_python_parameter_list_is_left_out_unless_it_may_hold_a_site_or_a_loop() {
        let src = "@mcp.tool(name=\"x\")\ndef f(a: Annotated[str, Field(description=\"for (a\")] = \"#\", # b)\n      c=d) -> int:\n    pass\n";
        assert_eq!(
            skipped(Lang::Python, src),
            ["a: Annotated[str, Field(description=\"for (a\")] = \"#\", # b)\n      c=d"]
        );
        for src in [
            "def f(a=[x for x in y]):\n    return 1\n",
            "def f(a=lambda: 1):\n    return 1\n",
            "def f(a=mcp.tool(g)):\n    return 1\n",
            "def f():\n    return 1\n",
            "def f(a=(\"unclosed):\n    return 1\n",
            // A body of one `return`: a factory whose parameters a call binds.
            "def f(a, *, b=2) -> T:\n    # c\n    return {\"readOnlyHint\": a}\n",
        ] {
            assert!(skipped(Lang::Python, src).is_empty(), "{src}");
        }
        assert_eq!(
            skipped(
                Lang::Python,
                "async def g [T] (a: T, /, *b) -> T:\n    await h()\n"
            ),
            ["a: T, /, *b"]
        );
    }

    #[test]
    fn binding_spellings_count_in_code_only() {
        let py = "def a():\n    \"\"\"Reads the global state, from . on.\"\"\"\n    x = 'nonlocal'  # global\n    return x\n\ndef b():\n    y = 1\n    if y: from .m import z\n";
        assert_eq!(
            skipped(Lang::Python, py),
            [
                "Reads the global state, from . on.",
                "    x = 'nonlocal'  # global\n    return x\n",
            ]
        );
        let ts = "f(() => {\n  // import the var\n  const s = \"require(exports)\";\n});\n\
                  g(() => {\n  const t = `${require(\"./m\")}`;\n});\n";
        assert_eq!(
            skipped(Lang::TypeScript, ts),
            ["\n  // import the var\n  const s = \"require(exports)\";\n"]
        );
    }

    #[test]
    fn a_tool_shaped_object_needs_its_keys_in_one_object() {
        let shaped = |src: &str| typescript_forms(src.as_bytes(), false).map(|f| f.shaped);
        // The loose reading finds these keys in the file; they are in different objects.
        assert_eq!(
            shaped("const a = { name: \"x\" };\nconst b = { inputSchema: s, execute: f };\n"),
            Some(false)
        );
        assert_eq!(
            shaped("f({ name: \"x\", annotations: { title: \"t\" } });\nconst readOnlyHint = 1;\n"),
            Some(false)
        );
        for src in [
            "defineTool({ name: \"x\", inputSchema: s, async execute(a) { return a; } });\n",
            "defineTool({ \"name\": \"x\", 'parameters': p, handler });\n",
            "t({ name, annotations: { readOnlyHint: true, ...rest } });\n",
            "t({ name: n, annotations: /* hints */ { \"openWorldHint\": false } });\n",
            "t({ name /* the tool */ : n, schema: s, run: r });\n",
        ] {
            assert_eq!(shaped(src), Some(true), "{src}");
        }
        assert_eq!(shaped("t({ name: \"x\", schema: s, run: r );\n"), None);
    }

    /// The file is lexed once: the form its lexer reads from the bytes is the one
    /// lexing its code (comments blanked) reads, which the prefilter's second look,
    /// in the code, asked of a second lex.
    #[test]
    fn a_file_lexed_once_reads_the_form_its_code_has() {
        for (src, tsx) in [
            (
                "t({ name /* the tool */ : n, schema: s, run: r });\n",
                false,
            ),
            ("t({ name // the tool\n , schema: s, run: r });\n", false),
            ("t({ name /* no key */ n2, schema: s, run: r });\n", false),
            (
                "t({ name, schema /* a */ /* b */ ? : s, run // r\n });\n",
                false,
            ),
            (
                "t({ name: n, annotations: /* hints */ { readOnlyHint /* x */ : true } });\n",
                false,
            ),
            (
                "t({ name: n, annotations: { readOnlyHint // x\n y } });\n",
                false,
            ),
            (
                "const a = <p title=\"name:\">{t({ name, schema: s, run })}</p>;\n",
                true,
            ),
            ("const a = <p>name: x, schema: s {/* c */} run</p>;\n", true),
            ("t({ name: \"x\", schema: s, run: r );\n", false),
        ] {
            let lexed = lex::lex(
                if tsx { Lang::Tsx } else { Lang::TypeScript },
                src.as_bytes(),
            );
            let code = lexed.as_ref().map(|l| l.code(src.as_bytes()));
            let code = code.as_deref().unwrap_or(src.as_bytes());
            assert_eq!(lexed.map(|l| l.forms), typescript_forms(code, tsx), "{src}");
        }
    }

    #[test]
    fn the_included_ranges_carry_rows_and_columns() {
        let src = b"ab\ncd{xx\nyy}ef\n";
        let got = included(src, &[Range { start: 6, end: 11 }]);
        assert_eq!(got.len(), 2);
        assert_eq!((got[0].start_byte, got[0].end_byte), (0, 6));
        assert_eq!(got[0].end_point, Point { row: 1, column: 3 });
        assert_eq!((got[1].start_byte, got[1].end_byte), (11, 15));
        assert_eq!(got[1].start_point, Point { row: 2, column: 2 });
    }
}
