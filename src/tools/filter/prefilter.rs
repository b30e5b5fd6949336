//! What the finder reads from a file's bytes without parsing it: whether the file
//! may hold a registration (its anchors), and which relative modules its text may
//! name. Both are over-approximations of what the recognisers and the import
//! readers find in a syntax tree, so that deciding from them what to parse never
//! changes the answer (docs/method.md, "Tools": "What is parsed").
//!
//! Each family's anchors are spellings without which its recogniser cannot record
//! a site (see each family's module): a method or decorator `tool` after a `.` or
//! `@`, a call of `Tool(...)`, `registerTool`, `AddTool`, `#[tool]`,
//! `McpServerTool` and the like. The tests check every fixture's registrations
//! against them.

use memchr::{memchr2_iter, memmem};

use super::hints::Hint;
use super::keys;
use super::lang::Lang;
use super::lex::{angle_close, Forms};
use super::packages::is_relative;
use super::value::{python_relative, Spec};

/// Returns true when a file of `lang` may hold a registration its recogniser
/// records; a file without any of its family's anchors holds none. TypeScript's
/// tool-shaped object, tool constant and keyed call are confirmed by lexing `bytes`
/// (see [`anchored_with`]).
pub(in crate::tools) fn anchored(lang: Lang, bytes: &[u8]) -> bool {
    let mut forms = None;
    anchored_with(lang, bytes, || {
        *forms.get_or_insert_with(|| super::lex::lex(lang, bytes).map(|l| l.forms))
    })
}

/// [`anchored`], with `forms` giving the forms of object literals the file's
/// TypeScript holds (see [`Forms`]; `None` when the lexer cannot follow it, and the
/// text's spellings stand alone). It is asked only when the spellings of a form
/// stand somewhere in `bytes` and no anchor before it holds, so that a caller which
/// lexes the file anyway lexes it once, and only when the answer needs it.
pub(in crate::tools) fn anchored_with(
    lang: Lang,
    bytes: &[u8],
    mut forms: impl FnMut() -> Option<Forms>,
) -> bool {
    match lang {
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => {
            member(bytes, b"registerTool", b".", typescript_call)
                || member(bytes, b"registerToolTask", b".", typescript_call)
                || member(bytes, b"addTool", b".", typescript_call)
                || (has(bytes, b"ListToolsRequestSchema")
                    && member(bytes, b"setRequestHandler", b".", typescript_call))
                || member(bytes, b"tool", b".", typescript_call)
                || tool_base(bytes)
                || declared_tool_type(bytes)
                || xmcp_metadata(bytes)
                || (keyed_call(bytes) && forms().is_none_or(|f| f.keyed))
                || (tool_constant(bytes) && forms().is_none_or(|f| f.constant))
                || (tool_shaped(bytes) && forms().is_none_or(|f| f.shaped))
        }
        Lang::Python => {
            member(bytes, b"tool", b".@", python_use)
                || has(bytes, b"add_tool")
                || called(bytes, b"Tool", b"(")
                || has(bytes, b"Tool.from_function")
        }
        Lang::Go => {
            ["AddTool", "NewTool", "NewToolWithRawSchema"]
                .iter()
                .any(|f| called(bytes, f.as_bytes(), b"(["))
                || go_tool_literal(bytes)
                || go_annotation_option(bytes)
        }
        Lang::Rust => has(bytes, b"Tool::new") || rust_tool_attribute(bytes),
        Lang::CSharp => csharp_tool(bytes),
        Lang::Java => called(bytes, b"Tool", b"(<") || java_tool_builder(bytes),
        Lang::Kotlin => has(bytes, b"addTool") || called(bytes, b"Tool", b"(<"),
        // A class name resolves to the SDK's only through text naming its
        // namespace: `Mcp\` (`use`, `namespace`, written in full) or `Laravel\Mcp\`.
        Lang::Php => has(bytes, b"Tool") && has(bytes, b"Mcp"),
        Lang::Ruby => has(bytes, b"MCP::Tool") || has(bytes, b"define_tool"),
        // `Tool(name:, inputSchema:)` counts in a file importing `MCP` or as `MCP.Tool`.
        Lang::Swift => has(bytes, b"Tool") && has(bytes, b"MCP") && has(bytes, b"inputSchema"),
    }
}

fn has(bytes: &[u8], needle: &[u8]) -> bool {
    memmem::find(bytes, needle).is_some()
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// Yields the positions of `word` standing alone: no identifier byte right before
/// or after it.
pub(super) fn words<'a>(bytes: &'a [u8], word: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    memmem::find_iter(bytes, word).filter(move |&at| {
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let after = bytes.get(at + word.len()).copied();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

/// Returns the last byte before `at` that is not white space, skipping a block
/// comment that ends right there (`server./* x */tool`).
fn last_before(bytes: &[u8], at: usize) -> Option<u8> {
    let head = bytes[..at].trim_ascii_end();
    match head.strip_suffix(b"*/") {
        Some(rest) => match memmem::rfind(rest, b"/*") {
            Some(open) => rest[..open].trim_ascii_end().last().copied(),
            None => Some(b'/'),
        },
        None => head.last().copied(),
    }
}

/// Returns true when `word` stands alone after one of `marks` across white space
/// (`server.tool`, `server\n  .tool`, `@tool`) and what follows it passes `then`.
fn member(bytes: &[u8], word: &[u8], marks: &[u8], then: fn(&[u8]) -> bool) -> bool {
    words(bytes, word).any(|at| {
        last_before(bytes, at).is_some_and(|b| marks.contains(&b))
            && then(&bytes[at + word.len()..])
    })
}

/// Returns true when `head` ends with a Go method's receiver, `func (s *Server)`:
/// a `)` whose `(` follows the word `func`. A call after another call's `)`
/// (`NewServer(impl, nil)` on the line before `AddTool(server, ...)`) is no receiver.
fn go_receiver(head: &[u8]) -> bool {
    if head.last() != Some(&b')') {
        return false;
    }
    let mut depth = 0usize;
    for (i, &b) in head.iter().enumerate().rev().take(512) {
        match b {
            b')' => depth += 1,
            b'(' => {
                depth -= 1;
                if depth == 0 {
                    let before = head[..i].trim_ascii_end();
                    return before.ends_with(b"func")
                        && !before[..before.len() - 4]
                            .last()
                            .is_some_and(|&b| is_ident(b) || b == b'.');
                }
            }
            _ => {}
        }
    }
    false
}

/// Go's composite literal of a `Tool` (`mcp.Tool{`, `[]*mcp.Tool{`), as gofmt
/// writes one: the `{` right after the type, where a function's result type
/// (`) Tool {`) stands apart from its body.
fn go_tool_literal(bytes: &[u8]) -> bool {
    words(bytes, b"Tool").any(|at| bytes.get(at + b"Tool".len()) == Some(&b'{'))
}

/// mcp-go's annotation options called through a package
/// (`mcp.WithReadOnlyHintAnnotation(`, `mcp.WithTitleAnnotation(`): a call passing
/// one may be a tool wrapper's (see `wrappers`).
fn go_annotation_option(bytes: &[u8]) -> bool {
    memmem::find_iter(bytes, b".With").any(|at| {
        let rest = &bytes[at + b".With".len()..];
        let len = rest
            .iter()
            .position(|&b| !is_ident(b))
            .unwrap_or(rest.len());
        rest[..len].ends_with(b"Annotation")
            && rest[len..].trim_ascii_start().first() == Some(&b'(')
    })
}

/// Java's `Tool.builder()` (`McpSchema.Tool.builder()`, `Tool\n    .builder()`): the
/// one chain the recogniser reads that starts from `Tool.`; a comment after the `.`
/// may hide it.
fn java_tool_builder(bytes: &[u8]) -> bool {
    words(bytes, b"Tool").any(|at| {
        let rest = bytes[at + b"Tool".len()..].trim_ascii_start();
        rest.strip_prefix(b".").is_some_and(|rest| {
            let rest = rest.trim_ascii_start();
            rest.starts_with(b"/")
                || rest
                    .strip_prefix(b"builder")
                    .is_some_and(|after| !after.first().is_some_and(|&b| is_ident(b)))
        })
    })
}

/// TypeScript's `server.tool` is called: `(`, type arguments or an optional call
/// (`?.(`) next, or a comment.
fn typescript_call(after: &[u8]) -> bool {
    matches!(
        after.trim_ascii_start().first(),
        Some(b'(' | b'<' | b'?' | b'/')
    )
}

/// Python's `.tool` and `@tool` are called, or end a decorator's line (a comment or
/// a continuation after it).
fn python_use(after: &[u8]) -> bool {
    match after.iter().find(|&&b| b != b' ' && b != b'\t') {
        None => true,
        Some(b) => matches!(b, b'(' | b'\n' | b'\r' | b'#' | b'\\'),
    }
}

/// The words that declare a name rather than call it: `class Tool(`, `def Tool(`,
/// `record Tool(`, `func NewTool(`.
const DECLARING: [&[u8]; 9] = [
    b"class",
    b"def",
    b"record",
    b"interface",
    b"struct",
    b"func",
    b"fun",
    b"fn",
    b"enum",
];

/// Returns true when `word` stands alone (a `.` before it allowed), is not being
/// declared (after a declaring word, or after a Go method's receiver), and
/// the next byte that is not white space is one of `next`: `Tool(`, `types.Tool (`,
/// `Tool<T>`.
fn called(bytes: &[u8], word: &[u8], next: &[u8]) -> bool {
    words(bytes, word).any(|at| {
        let head = bytes[..at].trim_ascii_end();
        let declared = go_receiver(head)
            || DECLARING.iter().any(|d| {
                head.ends_with(d)
                    && !head[..head.len() - d.len()]
                        .last()
                        .is_some_and(|&b| is_ident(b) || b == b'.')
            });
        !declared
            && bytes[at + word.len()..]
                .iter()
                .find(|b| !b.is_ascii_whitespace())
                .is_some_and(|b| next.contains(b))
    })
}

/// Returns true when the text holds `key: f({`, the value of an object's key a
/// call of a name with an object literal first (supabase-mcp's `list_projects:
/// tool({ ... })`, which the recogniser reads when `f` gives its argument back):
/// a `(` between a name after a `:` and a `{`, white space around each.
fn keyed_call(bytes: &[u8]) -> bool {
    memchr::memchr_iter(b'(', bytes).any(|at| {
        let head = bytes[..at].trim_ascii_end();
        let name = head.iter().rev().take_while(|&&b| is_ident(b)).count();
        name > 0
            && head[..head.len() - name].trim_ascii_end().last() == Some(&b':')
            && bytes[at + 1..].trim_ascii_start().first() == Some(&b'{')
    })
}

/// Returns `head` without the qualified name it ends with, white space around each
/// `.` allowed (`types . Tool`).
fn before_name(mut head: &[u8]) -> &[u8] {
    loop {
        head = head[..head.len() - head.iter().rev().take_while(|&&b| is_ident(b)).count()]
            .trim_ascii_end();
        match head.strip_suffix(b".") {
            Some(rest) => head = rest.trim_ascii_end(),
            None => return head,
        }
    }
}

/// Returns true when a constant or a function is declared with a tool type (see
/// `keys::tool_type`, which the recogniser reads): a `:`, the type, then `=` or
/// `{` (`const t: Tool = {`, `: types . Tool`, `getTools(): Promise<Tool[]> {`, `():
/// ToolDefinition => (`), or an array or object literal typed after it (`] as
/// Tool[]`, `} satisfies Tool`); a project's own type only in a file that spells
/// `inputSchema`.
fn declared_tool_type(bytes: &[u8]) -> bool {
    let spells_input = has(bytes, b"inputSchema");
    let part = |b: u8| is_ident(b) || b == b'.';
    memmem::find_iter(bytes, b"Tool").any(|at| {
        // Back over the name, then any `Array<` and `Promise<` around it.
        let mut head = before_name(&bytes[..at]);
        while let Some(rest) = head.strip_suffix(b"<") {
            head = before_name(rest.trim_ascii_end());
        }
        let after_literal = typed_after_literal(head);
        if head.last() != Some(&b':') && !after_literal {
            return false;
        }
        // On past the name, its type arguments (a project's own type, `ToolDefinition<
        // typeof In, typeof Out>`), and the list's and the wrappers' closers.
        let mut end = at;
        while end < bytes.len() && part(bytes[end]) {
            end += 1;
        }
        end = angle_close(bytes, end, b"").map_or(end, |close| close + 1);
        while end < bytes.len()
            && (matches!(bytes[end], b'[' | b']' | b'>') || bytes[end].is_ascii_whitespace())
        {
            end += 1;
        }
        if !after_literal && !matches!(bytes.get(end), Some(b'=' | b'{')) {
            return false;
        }
        keys::tool_type(&bytes[head.len()..end]).is_some_and(|t| !t.is_own || spells_input)
    })
}

/// Returns true when `head`, the text before a type's name, types an array or object
/// literal after it: `] as`, `} satisfies`, `] as const satisfies readonly`.
fn typed_after_literal(head: &[u8]) -> bool {
    let word = |head: &[u8], word: &[u8]| -> Option<usize> {
        let rest = head.strip_suffix(word)?;
        (rest.is_empty() || rest.last().is_some_and(u8::is_ascii_whitespace))
            .then(|| rest.trim_ascii_end().len())
    };
    let mut head = head;
    if let Some(len) = word(head, b"readonly") {
        head = &head[..len];
    }
    let Some(len) = word(head, b"as").or_else(|| word(head, b"satisfies")) else {
        return false;
    };
    head = &head[..len];
    if let Some(len) = word(head, b"const").and_then(|len| word(&head[..len], b"as")) {
        head = &head[..len];
    }
    matches!(head.last(), Some(b']' | b'}'))
}

/// A constant written as the protocol's tool (`const t = { name, description,
/// inputSchema }`): a declaring word, the key `inputSchema`, and a `description` or
/// an `annotations` beside it.
fn tool_constant(bytes: &[u8]) -> bool {
    has(bytes, b"inputSchema")
        && (has(bytes, b"description") || has(bytes, b"annotations"))
        && (has(bytes, b"const") || has(bytes, b"let") || has(bytes, b"var"))
}

/// xmcp's file-routed tool: `export const metadata` in a file that imports (the
/// module it imports from, `xmcp`, is a string, which the code a lexer keeps blanks).
fn xmcp_metadata(bytes: &[u8]) -> bool {
    has(bytes, b"export const metadata") && has(bytes, b"import")
}

/// TypeScript's tool classes: a class whose base, the first name after its
/// `extends` or `implements`, holds `Tool` (`class T extends MCPTool<I> {`,
/// `class extends (BaseTool) {`). A class header with type parameters, which may
/// hold anything, is read by [`tool_base_loosely`].
fn tool_base(bytes: &[u8]) -> bool {
    words(bytes, b"class").any(|at| {
        let header = &bytes[at..];
        let header = &header[..memchr::memchr(b'{', header).unwrap_or(header.len())];
        if header.contains(&b'<') || header.contains(&b'/') {
            return tool_base_loosely(header);
        }
        let Some(heritage) = ["extends", "implements"]
            .iter()
            .filter_map(|w| words(header, w.as_bytes()).next().map(|h| h + w.len()))
            .min()
        else {
            return false;
        };
        let base = &header[heritage..];
        let start = base
            .iter()
            .position(|&b| !(b.is_ascii_whitespace() || b == b'('))
            .unwrap_or(base.len());
        let base = &base[start..];
        let len = base
            .iter()
            .position(|&b| !(is_ident(b) || b == b'.'))
            .unwrap_or(base.len());
        has(&base[..len], b"Tool")
    })
}

/// `Tool` between an `extends` or `implements` and the next `{`. One pass: the
/// next `Tool` and the next `{` only move forward.
fn tool_base_loosely(bytes: &[u8]) -> bool {
    let mut heritage: Vec<usize> = words(bytes, b"extends")
        .chain(words(bytes, b"implements"))
        .collect();
    heritage.sort_unstable();
    let tools: Vec<usize> = memmem::find_iter(bytes, b"Tool").collect();
    let mut t = 0;
    let mut brace = None::<Option<usize>>;
    for at in heritage {
        while t < tools.len() && tools[t] < at {
            t += 1;
        }
        let Some(&tool) = tools.get(t) else {
            return false;
        };
        let next_brace = match brace {
            Some(Some(b)) if b >= at => Some(b),
            Some(None) => None,
            _ => {
                let found = memchr::memchr(b'{', &bytes[at..]).map(|i| at + i);
                brace = Some(found);
                found
            }
        };
        if next_brace.is_none_or(|b| tool < b) {
            return true;
        }
    }
    false
}

/// A tool-shaped object literal needs a `name` key beside an `annotations` key
/// holding a hint, or beside a schema key and a handler key (see
/// `typescript::tool_shaped`). This reads the keys anywhere in the file; in
/// TypeScript and JavaScript, where the lexer of `lex` can follow the file, they
/// must then also be keys of one object literal. A key is a word followed, past a closing quote, a
/// `?` and white space, by `:`, or by `,` or `}` (shorthand) or `(` (a method).
fn tool_shaped(bytes: &[u8]) -> bool {
    let any = |keys: &[&str]| keys.iter().any(|k| keys_of(bytes, k.as_bytes()));
    any(&[keys::NAME])
        && ((any(&[keys::ANNOTATIONS])
            && Hint::ALL.iter().any(|h| has(bytes, h.name().as_bytes())))
            || (any(&keys::SCHEMA) && any(&keys::HANDLER)))
}

/// Returns true when `key` stands somewhere as an object's key (see `tool_shaped`).
fn keys_of(bytes: &[u8], key: &[u8]) -> bool {
    words(bytes, key).any(|at| {
        let rest = &bytes[at + key.len()..];
        let rest = rest
            .strip_prefix(b"\"")
            .or_else(|| rest.strip_prefix(b"'"))
            .unwrap_or(rest);
        let rest = rest.strip_prefix(b"?").unwrap_or(rest).trim_ascii_start();
        matches!(rest.first(), Some(b':' | b',' | b'}' | b'('))
    })
}

/// The C# SDK's `[McpServerTool]` attribute (also qualified, in a list after `,`,
/// or after a target `method:`) and `new McpServerToolCreateOptions`.
fn csharp_tool(bytes: &[u8]) -> bool {
    let attribute = |word: &[u8]| {
        words(bytes, word)
            .any(|at| matches!(last_before(bytes, at), Some(b'[' | b',' | b'.' | b':')))
    };
    attribute(b"McpServerTool")
        || attribute(b"McpServerToolAttribute")
        || words(bytes, b"McpServerToolCreateOptions").any(|at| {
            let head = bytes[..at].trim_ascii_end();
            head.ends_with(b".") || head.ends_with(b"new")
        })
}

/// rmcp's `#[tool(...)]` and `#[rmcp::tool]`: `tool` after `[` across white space, or
/// right after `::`.
fn rust_tool_attribute(bytes: &[u8]) -> bool {
    words(bytes, b"tool")
        .any(|at| bytes[..at].ends_with(b"::") || last_before(bytes, at) == Some(b'['))
}

/// What a file's text may name as a module: a spec as the resolver's
/// `module_paths` takes it. For every import the recognisers read there is one
/// here; the list may hold more (a relative string that is no import, a package
/// the tree does not hold).
pub(in crate::tools) fn references(lang: Lang, bytes: &[u8]) -> Vec<Spec> {
    let (relative, packages) = match lang {
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => {
            (relative_strings(bytes), script_packages(bytes))
        }
        Lang::Python => (python_relative_modules(bytes), python_packages(bytes)),
        Lang::Ruby => (ruby_required(bytes), Vec::new()),
        Lang::Go => (Vec::new(), go_imports(bytes)),
        _ => (Vec::new(), Vec::new()),
    };
    let mut out: Vec<Spec> = relative.into_iter().map(Spec::Relative).collect();
    out.extend(packages.into_iter().map(Spec::Package));
    out.sort_unstable();
    out.dedup();
    out
}

/// Returns the one-line quoted strings of `bytes` (`"`, `'` or `` ` ``) that
/// `after` accepts (given the bytes before the opening quote): a superset of the
/// module specifiers an import names.
fn quoted(bytes: &[u8], quotes: &[u8], after: impl Fn(&[u8]) -> bool) -> Vec<String> {
    let next_quote = |hay: &[u8]| match *quotes {
        [a, b] => memchr::memchr2(a, b, hay),
        [a, b, c] => memchr::memchr3(a, b, c, hay),
        _ => hay.iter().position(|b| quotes.contains(b)),
    };
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(i) = next_quote(&bytes[at..]) {
        let open = at + i;
        let quote = bytes[open];
        let rest = &bytes[open + 1..];
        match memchr::memchr2(quote, b'\n', rest) {
            Some(end) if rest[end] == quote => {
                if let Ok(spec) = std::str::from_utf8(&rest[..end]) {
                    if !spec.is_empty()
                        && !spec.contains(char::is_whitespace)
                        && after(&bytes[..open])
                    {
                        out.push(spec.to_string());
                    }
                }
                at = open + 1 + end + 1;
            }
            Some(end) => at = open + 1 + end,
            None => break,
        }
    }
    out
}

/// The bare specifiers a script may import (`from "@acme/core"`, `require("x")`,
/// `import("x")`, `import "x"`): strings not starting with `.` after one of those.
fn script_packages(bytes: &[u8]) -> Vec<String> {
    let mut out = quoted(bytes, b"'\"`", |before| {
        let before = before.trim_ascii_end();
        let before = before.strip_suffix(b"(").unwrap_or(before).trim_ascii_end();
        [&b"from"[..], b"import", b"require"]
            .iter()
            .any(|w| before.ends_with(w))
    });
    out.retain(|s| !s.starts_with('.'));
    out
}

/// The import paths of a Go file: every one-line interpreted or raw string
/// holding a `/` (a package of the tree's own module has one).
fn go_imports(bytes: &[u8]) -> Vec<String> {
    let mut out = quoted(bytes, b"\"`", |_| true);
    out.retain(|s| s.contains('/'));
    out
}

/// Python's absolute imports, `from a.b import x, y` and `import a.b as p`: the
/// module as the resolver spells it (`a/b`), and each name imported from it as a
/// module under it (`a/b/x`: `from a.b import x` may name one).
fn python_packages(bytes: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    for word in [&b"from"[..], b"import"] {
        for at in words(bytes, word) {
            // `import` starts its line; after `from m` it names no module.
            let line = bytes[..at].rsplit(|&b| b == b'\n').next().unwrap_or(b"");
            if word == b"import" && !line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let rest = &bytes[at + word.len()..];
            let start = rest.len() - rest.trim_ascii_start().len();
            let rest = &rest[start..];
            let len = rest
                .iter()
                .take_while(|&&b| b == b'.' || is_ident(b))
                .count();
            if start == 0 || len == 0 || rest[0] == b'.' {
                continue;
            }
            let Ok(module) = std::str::from_utf8(&rest[..len]) else {
                continue;
            };
            let module = module.trim_end_matches('.').replace('.', "/");
            if word == b"from" {
                for name in imported_names(&rest[len..]) {
                    out.push(format!("{module}/{name}"));
                }
            }
            out.push(module);
        }
    }
    out
}

/// Returns the names of `import x, y as z` or `import (x,\n y)` that follow a
/// `from` module.
fn imported_names(rest: &[u8]) -> Vec<String> {
    let rest = rest.trim_ascii_start();
    let Some(rest) = rest.strip_prefix(b"import") else {
        return Vec::new();
    };
    let rest = rest.trim_ascii_start();
    let list = match rest.strip_prefix(b"(") {
        Some(inner) => &inner[..inner.iter().position(|&b| b == b')').unwrap_or(inner.len())],
        None => &rest[..rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len())],
    };
    list.split(|&b| b == b',')
        .filter_map(|item| {
            let item = item.trim_ascii();
            let len = item.iter().take_while(|&&b| is_ident(b)).count();
            std::str::from_utf8(&item[..len])
                .ok()
                .filter(|n| !n.is_empty())
        })
        .map(str::to_string)
        .collect()
}

/// Every one-line string literal in quotes that starts with `./` or `../`, or is
/// `.` or `..`: the specifiers of `import`, `export ... from` and `require`.
fn relative_strings(bytes: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    for at in memchr2_iter(b'\'', b'"', bytes) {
        let rest = &bytes[at + 1..];
        if rest.first() != Some(&b'.') {
            continue;
        }
        let quote = bytes[at];
        let Some(end) = rest.iter().position(|&b| b == quote || b == b'\n') else {
            continue;
        };
        if rest[end] != quote {
            continue;
        }
        if let Ok(spec) = std::str::from_utf8(&rest[..end]) {
            if is_relative(spec) {
                out.push(spec.to_string());
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Yields the module of each of Python's relative imports, `from .module import x`,
/// `from .. import x`, as spelled (`.module`, `..`).
pub(super) fn python_relative_imports(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    words(bytes, b"from").filter_map(|at| {
        let rest = &bytes[at + 4..];
        let start = rest.len() - rest.trim_ascii_start().len();
        let rest = &rest[start..];
        let len = rest
            .iter()
            .take_while(|&&b| b == b'.' || is_ident(b))
            .count();
        (start > 0 && rest.first() == Some(&b'.')).then_some(&rest[..len])
    })
}

/// Python's `from .module import ...`, `from .. import x`: the module as the
/// resolver spells it (`./module`, `..`); the names imported from it are modules
/// under it, which the caller reaches by prefix.
fn python_relative_modules(bytes: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    for module in python_relative_imports(bytes) {
        if let Ok(module) = std::str::from_utf8(module) {
            out.push(python_relative(module));
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Ruby's `require_relative "x"` (also with parentheses or single quotes).
fn ruby_required(bytes: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    for at in words(bytes, b"require_relative") {
        let rest = bytes[at + b"require_relative".len()..].trim_ascii_start();
        let rest = rest.strip_prefix(b"(").unwrap_or(rest).trim_ascii_start();
        let Some(&quote) = rest.first().filter(|q| matches!(q, b'"' | b'\'')) else {
            continue;
        };
        let Some(end) = rest[1..].iter().position(|&b| b == quote || b == b'\n') else {
            continue;
        };
        if rest[1 + end] == quote {
            if let Ok(spec) = std::str::from_utf8(&rest[1..1 + end]) {
                out.push(spec.to_string());
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_see_registrations_and_not_their_neighbours() {
        let yes: &[(Lang, &str)] = &[
            (Lang::TypeScript, "server.tool('x', cb)"),
            (Lang::TypeScript, "server\n  .tool('x', cb)"),
            (Lang::TypeScript, "server?.tool('x', cb)"),
            (Lang::TypeScript, "server./* c */tool('x', cb)"),
            (Lang::TypeScript, "class A extends MCPTool<I> {}"),
            (Lang::TypeScript, "class A extends base.ToolBase {}"),
            (
                Lang::TypeScript,
                "f({ name: 'x', annotations: { readOnlyHint: true } })",
            ),
            (Lang::TypeScript, "f({ name, schema, run })"),
            (
                Lang::TypeScript,
                "f({ \"name\": 'x', inputSchema: s, async execute(a) {} })",
            ),
            (Lang::TypeScript, "server.tool<T>('x', cb)"),
            (Lang::TypeScript, "server.tool?.('x', cb)"),
            (
                Lang::TypeScript,
                "this.server\n  .registerToolTask('x', {}, cb)",
            ),
            (
                Lang::TypeScript,
                "server.setRequestHandler(ListToolsRequestSchema, h)",
            ),
            (Lang::TypeScript, "export class T extends (BaseTool) {}"),
            (Lang::TypeScript, "class T<I> extends MCPTool<I> {}"),
            (Lang::TypeScript, "class T implements Tool {}"),
            (Lang::Python, "@mcp.tool  # read only\ndef f(): ..."),
            (Lang::Python, "mcp.tool(name='x')(self.f)"),
            (Lang::Go, "s.AddTool(mcp.NewTool(\"x\"), h)"),
            (
                Lang::CSharp,
                "[Description(\"x\"), McpServerTool(ReadOnly = true)]",
            ),
            (
                Lang::CSharp,
                "new McpServerToolCreateOptions { Name = \"x\" }",
            ),
            (Lang::Python, "@mcp.tool()\ndef f(): ..."),
            (Lang::Python, "@tool\ndef f(): ..."),
            (Lang::Python, "types.Tool (name='x')"),
            (Lang::Python, "server.add_tool(f)"),
            (Lang::Python, "tool = Tool.from_function(f, name='x')"),
            (Lang::Go, "t := mcp.Tool{Name: \"x\"}"),
            (Lang::Go, "tools := []*mcp.Tool{{Name: \"x\"}}"),
            (Lang::Go, "mcp.AddTool(s, &mcp.Tool{}, h)"),
            (
                Lang::Go,
                "server := NewServer(impl, nil)\n\tAddTool(server, &Tool{Name: \"x\"}, h)",
            ),
            (Lang::Rust, "#[tool(name = \"x\")]"),
            (Lang::Rust, "#[ rmcp::tool ]"),
            (Lang::Rust, "Tool::new(\"x\", \"d\", s)"),
            (Lang::CSharp, "[McpServerTool(Name = \"x\")]"),
            (Lang::Java, "new McpSchema.Tool(\"x\", null)"),
            (Lang::Java, "McpSchema.Tool\n  .builder()"),
            (Lang::Kotlin, "server.addTool(name = \"x\")"),
            (Lang::Kotlin, "Tool(name = \"x\")"),
            (Lang::Ruby, "class A < MCP::Tool\nend"),
        ];
        for (lang, text) in yes {
            assert!(anchored(*lang, text.as_bytes()), "{lang:?}: {text}");
        }
        let no: &[(Lang, &str)] = &[
            (
                Lang::TypeScript,
                "import { CallToolResult } from '@modelcontextprotocol/sdk';",
            ),
            (Lang::TypeScript, "const tools = server.tools; x.toolName;"),
            (Lang::TypeScript, "class A extends Base { t: Tool }"),
            (Lang::TypeScript, "f({ name: 'x', schema })"),
            (Lang::Python, "from mcp.types import CallToolResult, Tool"),
            (Lang::Python, "def tool(): ...\nx = mytool(1)"),
            (Lang::Go, "var t mcp.Tool"),
            (
                Lang::Go,
                "func (s *MCPServer) AddTool(tool Tool, h ToolHandlerFunc) {}",
            ),
            (
                Lang::Go,
                "func NewTool(name string, opts ...ToolOption) Tool {}",
            ),
            (Lang::Python, "class Tool(BaseModel):\n    name: str"),
            (Lang::Python, "x = self.tool.name"),
            (
                Lang::TypeScript,
                "const t = this.tool; f(name, schema.parse(x), run.id)",
            ),
            (Lang::TypeScript, "{ name: 'x', readOnlyHint: true }"),
            (
                Lang::TypeScript,
                "import { ListToolsRequestSchema } from 'sdk'; type R = typeof registerTool;",
            ),
            (
                Lang::TypeScript,
                "interface T extends BaseTool {}\nfunction f<U extends Tool>() {}\nclass C extends Base implements Tool {}",
            ),
            (
                Lang::TypeScript,
                "const fixture = { name: 'x', inputSchema: s, execute: f };",
            ),
            (
                Lang::Java,
                "public record Tool(String name, String title) {}",
            ),
            (
                Lang::CSharp,
                "public sealed class McpServerToolAttribute : Attribute {}",
            ),
            (Lang::Rust, "use rmcp::model::Tool; fn tool() {}"),
            (Lang::CSharp, "using ModelContextProtocol;"),
            (Lang::Java, "List<Tool> tools;"),
            (
                Lang::Java,
                "McpSchema.Tool t = (McpSchema.Tool) x; Tool.Builder b; f(Tool.class);",
            ),
            (Lang::Kotlin, "val t: Tool = x"),
            // `Tool` in a file that names no SDK: an application's own class.
            (Lang::Php, "<?php\nnamespace App;\nclass Tool extends Base { public function tool() {} }"),
            (Lang::Ruby, "class Search < Tool\n  tool_name \"search\"\nend"),
            (Lang::Swift, "let t = Tool(name: \"x\", inputSchema: s)"),
            (
                Lang::TypeScript,
                "const a = { name: 'x' }; const b = { inputSchema: s, execute: f };",
            ),
        ];
        for (lang, text) in no {
            assert!(!anchored(*lang, text.as_bytes()), "{lang:?}: {text}");
        }
    }

    #[test]
    fn a_tool_constant_and_a_keyed_call_are_confirmed_by_the_lexer() {
        for text in [
            "export const t = { name: 'x', description: 'd', inputSchema: {} };",
            "const t: T = {\n  // the tool\n  \"name\": 'x', description: d, inputSchema: s };",
            "const tools = { list_projects: tool({ description: 'd', annotations, execute }) };",
            "const tools = { 'list-projects': tool( {\n description, ...base }, ) };",
            "export default { read: defineTool({ description: `d`, inputSchema: s, run() {} }) }",
            "const t = { a: p({ \"annotations\": { readOnlyHint: true } }) };",
            // The lexer cannot follow the file: the text's spellings stand.
            "const t = { name: 'x', description: 'd', inputSchema: s }; }",
        ] {
            assert!(anchored(Lang::TypeScript, text.as_bytes()), "{text}");
        }
        for text in [
            // Not at the top of the file, or not given by `=`.
            "function f() { const t = { name: 'x', description: 'd', inputSchema: {} }; }",
            "const s = z.object({ name: z.string(), description: z.string(), inputSchema: z.any() });",
            "if (a == { name, description, inputSchema }) {}",
            // An arrow function's parameters, a ternary's branch, a second argument.
            "useMutation({ mutationFn: async ({ id }) => f(id) });",
            "const v = c ? a : f({ y });",
            "const o = { k: f(x, { y }) };",
            // An object the recogniser would not read as a tool: no annotations, and
            // a schema without a handler or none (a bundle's `style: css({...})`).
            "const o = { k: f({ description: 'd', execute }) };",
            "const o = { k: f({ inputSchema: s, other: { annotations, execute } }) };",
            "const styles = { root: css({ color: 'red', fontSize: 12 }) };",
        ] {
            assert!(!anchored(Lang::TypeScript, text.as_bytes()), "{text}");
        }
    }

    #[test]
    fn a_constant_or_function_declared_with_a_tool_type_is_an_anchor() {
        for text in [
            "getTools(): Promise< Array<types.Tool> >\n{",
            "export const t: Tool[] = [",
            "export const tool: types . Tool = {",
            "function t(a: A): ToolDefinition { return { inputSchema } }",
            "const t = (): McpTool[] => [{ inputSchema: s }]",
            "const all = [\n  { name: 'a' },\n] as Tool[];",
            "const one = { name: 'a' } satisfies types.Tool;",
            "const all = [{ inputSchema: s }] as const satisfies readonly McpTool[];",
            "export const t: ToolDefinition<\n  typeof In,\n  typeof Out\n> = { inputSchema };",
            "const ts: Array<McpTool<(a: A) => B>> = [{ inputSchema }];",
        ] {
            assert!(anchored(Lang::TypeScript, text.as_bytes()), "{text}");
        }
        // A project's own tool type in a file that never spells `inputSchema`, and
        // tool types that declare nothing.
        for text in [
            "function f(): ToolDefinition { return { parameters } }",
            "function f(t: Tool[], u: ToolDefinition) {}",
            "let t: Tool; type L = Tool[];",
            "const ts = result.tools as Tool[]; const u = (await f()) as Tool;",
            "const k = [] asTool[];",
            "const m: Map<string, ToolDefinition> = new Map(); // inputSchema",
            "const t: Tool<any, any>[] = []; // inputSchema",
        ] {
            assert!(!anchored(Lang::TypeScript, text.as_bytes()), "{text}");
        }
    }

    #[test]
    fn references_list_every_relative_import() {
        let rel = |specs: Vec<Spec>| -> Vec<String> {
            specs
                .into_iter()
                .map(|s| match s {
                    Spec::Relative(r) => format!("rel {r}"),
                    Spec::Package(p) => format!("pkg {p}"),
                })
                .collect()
        };
        let ts = b"import { a } from './a.js';\nexport * from \"../b\";\nconst c = require('./c');\nimport './d';\nimport x from 'pkg';\nconst s = '.hidden';";
        assert_eq!(
            rel(references(Lang::TypeScript, ts)),
            ["rel ../b", "rel ./a.js", "rel ./c", "rel ./d", "pkg pkg"]
        );
        let py = b"from . import presets\nfrom .tools.read import R\nfrom ..common import C\nfrom .. import up\nfrom mcp import x\nfrom\t.a import b\nimport app.presets as p";
        assert_eq!(
            rel(references(Lang::Python, py)),
            [
                "rel .",
                "rel ..",
                "rel ../common",
                "rel ./a",
                "rel ./tools/read",
                "pkg app/presets",
                "pkg mcp",
                "pkg mcp/x"
            ]
        );
        let rb = b"require_relative \"presets\"\nrequire_relative('lib/x')\nrequire 'json'";
        assert_eq!(
            rel(references(Lang::Ruby, rb)),
            ["rel lib/x", "rel presets"]
        );
        let go =
            b"import (\n\t\"fmt\"\n\tu \"github.com/me/srv/internal/toolutil\"\n)\nvar s = `a/b`";
        assert_eq!(
            rel(references(Lang::Go, go)),
            ["pkg a/b", "pkg github.com/me/srv/internal/toolutil"]
        );
    }
}
