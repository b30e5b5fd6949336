//! The lexers the finder reads source with before, or instead of, a parse: for
//! TypeScript, Python, Go, Rust, Java and C#, where the function bodies and blocks are
//! (see `skim`) and which of its text is quiet, comments and strings that cannot
//! hold code (the anchors are searched in the rest), and for TypeScript, whether an
//! object literal has the keys of the tool-shaped form (see `prefilter`). Strings, comments, template literals, regular
//! expressions and each language's other literals are stepped over, brackets
//! matched; whatever a lexer cannot follow (an unterminated string, a bracket closed
//! by the wrong kind) gives `None`, and the caller reads the file as if there were
//! no lexer.

use std::ops::Range;

use super::Lang;

/// At most this many bytes of candidate bodies are searched for anchors, as a
/// multiple of the file's length (nested candidates are searched again), and at
/// most this many Python lines walked, as a multiple of the file's: a file of many
/// nested bodies is bounded, and what is past the bound is parsed.
pub(super) const SEARCH_FACTOR: usize = 4;

/// What a lexer reads of a file: the bodies and blocks the parse may leave out when
/// their text allows it (see `skim::bodies`), and where its quiet text is.
pub(super) struct Lexed {
    pub(super) candidates: Vec<Candidate>,
    /// With `comments`, the file's quiet text: the string literals that cannot hold
    /// code, JSX text and attribute strings, and the comments between a JSX tag's
    /// attributes, sorted and disjoint. No recogniser reads a registration there.
    /// TypeScript's and C#'s strings are not among them (a key may be quoted, an
    /// interpolation holds code), nor Python's f- and t-strings.
    pub(super) quiet: Vec<Range<usize>>,
    /// Its other comments, sorted and disjoint: no recogniser reads one, so the
    /// parse may leave them out (see `skim::bodies_of`).
    pub(super) comments: Vec<Range<usize>>,
}

impl Lexed {
    /// Returns the file's bytes with its quiet text blanked (each byte a space but
    /// line ends), for the anchors to be searched in its code only.
    pub(super) fn code(&self, bytes: &[u8]) -> Vec<u8> {
        let mut code = bytes.to_vec();
        for r in self.quiet.iter().chain(&self.comments) {
            for b in &mut code[r.clone()] {
                if !matches!(*b, b'\n' | b'\r') {
                    *b = b' ';
                }
            }
        }
        code
    }
}

/// Reads a file of `lang` (see [`Lexed`]); `None` when the language has no lexer or
/// the lexer cannot follow the file.
pub(super) fn lex(lang: Lang, bytes: &[u8]) -> Option<Lexed> {
    match lang {
        Lang::TypeScript | Lang::Tsx => {
            typescript_lex(bytes, lang == Lang::Tsx).map(|read| read.lexed)
        }
        Lang::Python => python_bodies(bytes),
        Lang::Go => c_like_bodies(bytes, Dialect::Go),
        Lang::Rust => c_like_bodies(bytes, Dialect::Rust),
        Lang::Java => c_like_bodies(bytes, Dialect::Java),
        Lang::CSharp => c_like_bodies(bytes, Dialect::CSharp),
        _ => None,
    }
}

/// A body the parse may leave out: `search` is the text that must hold no anchor,
/// `skip` the bytes left out (for Python, the body past its first statement).
pub(super) struct Candidate {
    pub(super) search: Range<usize>,
    pub(super) skip: Range<usize>,
    /// Also left out: the inside of a Python docstring that is the first statement.
    pub(super) doc: Option<Range<usize>>,
    /// A TypeScript body the recogniser may read as a factory: a declared
    /// function's (`function f() {`), or an arrow function's that is no call's
    /// argument (bound to a name, a class field's value). It must not return an
    /// object literal (see [`returns_a_literal`]). Methods and blocks are no
    /// factories.
    pub(super) named: bool,
    /// Its code (not its strings or comments) holds a spelling by which a name bound
    /// in it may be seen outside it, or a module be reached from it: TypeScript's
    /// `import`, `require`, `exports` and `var` (hoisted out of a block), Python's
    /// relative imports, `global` and `nonlocal`. Go, Rust, Java and C# have none.
    pub(super) binds: bool,
}

impl Candidate {
    /// A brace's inside, searched and left out whole.
    fn body(inside: Range<usize>, named: bool) -> Candidate {
        Candidate {
            search: inside.clone(),
            skip: inside,
            doc: None,
            named,
            binds: false,
        }
    }
}

/// Marks the candidates whose searched text holds one of `binding` (the sorted
/// places of the code's binding spellings, see [`Candidate::binds`]).
fn mark_binding(candidates: &mut [Candidate], binding: &[usize]) {
    for c in candidates {
        let first = binding.partition_point(|&at| at < c.search.start);
        c.binds = binding.get(first).is_some_and(|&at| at < c.search.end);
    }
}

pub(super) fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// What came before, as far as telling a regular expression from a division and
/// a callback's body from a block needs it.
#[derive(Clone, Copy, PartialEq)]
enum Prev {
    /// The file's start, or punctuation after which an expression starts.
    Operator,
    /// A name, a number, a literal, or `)`/`]`: a `/` next divides.
    Operand,
    /// A keyword after which an expression starts (`return`, `typeof`).
    Keyword,
    /// `)`: a `{` next may open a function's body.
    CloseParen,
    /// `=>`: a `{` next opens an arrow function's body.
    Arrow,
}

#[derive(Clone, Copy, PartialEq)]
enum Open {
    Paren,
    Bracket,
    Brace,
    /// `${` in a template literal: its `}` goes back into the template.
    Template,
    /// `{` in a JSX element: its `}` goes back into the element.
    JsxHole,
}

struct Frame {
    open: Open,
    at: usize,
    /// A body or block: a `{` right after `)` or `=>`.
    body: bool,
    /// Such a body that the recogniser may read as a factory (see [`Candidate`]).
    named: bool,
    /// A `(` opening a declared or bound function's parameters (`function f(`).
    function: bool,
    /// Inside the arguments of a call naming `ListToolsRequestSchema`, whose
    /// handler a recogniser searches.
    kept: bool,
    /// The keys of an object literal that make it tool-shaped, seen right inside
    /// this brace ([`KEY_NAME`] and the others).
    keys: u8,
    /// The brace is the value of an `annotations` key.
    annotations: bool,
}

/// A `name` key.
const KEY_NAME: u8 = 1;
/// An `annotations` key whose value is an object literal with a hint key.
const KEY_HINTED: u8 = 2;
/// A schema key: `inputSchema`, `schema`, `parameters`.
const KEY_SCHEMA: u8 = 4;
/// A handler key: `handler`, `handle`, `execute`, `run`, `callback`.
const KEY_HANDLER: u8 = 8;
/// A hint key (`readOnlyHint`), in an `annotations` object.
const KEY_HINT: u8 = 16;

/// Returns the flag of a key the tool-shaped form reads, 0 for any other; a key
/// with an escape may be any of them.
fn key_flag(key: &[u8]) -> u8 {
    match key {
        b"name" => KEY_NAME,
        b"inputSchema" | b"schema" | b"parameters" => KEY_SCHEMA,
        b"handler" | b"handle" | b"execute" | b"run" | b"callback" => KEY_HANDLER,
        b"readOnlyHint" | b"destructiveHint" | b"idempotentHint" | b"openWorldHint" => KEY_HINT,
        _ if key.contains(&b'\\') => KEY_NAME | KEY_SCHEMA | KEY_HANDLER | KEY_HINT,
        _ => 0,
    }
}

/// Returns true when what follows a word or a string at `at` makes it an object's
/// key: `:`, `,` or `}` (shorthand), `(` or `<` (a method), past white space and a
/// `?`; a comment there may hide any of them.
fn key_follows(bytes: &[u8], at: usize) -> bool {
    let rest = bytes[at..].trim_ascii_start();
    let rest = rest
        .strip_prefix(b"?")
        .map_or(rest, <[u8]>::trim_ascii_start);
    matches!(rest.first(), Some(b':' | b',' | b'}' | b'(' | b'<' | b'/'))
}

/// Where an `annotations` key's value is being read.
#[derive(Clone, Copy, PartialEq)]
enum Annotations {
    None,
    /// The key was read.
    Key,
    /// Its `:` was read: a `{` next is its value.
    Colon,
}

/// What the TypeScript lexer reads of a file.
struct TypeScriptLexed {
    /// The bodies and blocks the parse may leave out, and the quiet text.
    lexed: Lexed,
    /// An object literal right inside parentheses (a call's argument) holds a `name`
    /// key beside an `annotations` object with a hint key, or beside a schema key and
    /// a handler key: the tool-shaped form.
    shaped: bool,
}

/// Returns whether TypeScript source (TSX with `jsx`) holds a tool-shaped object
/// literal (see [`TypeScriptLexed::shaped`]); `None` when the lexer cannot follow it.
pub(super) fn typescript_shaped(bytes: &[u8], jsx: bool) -> Option<bool> {
    typescript_lex(bytes, jsx).map(|read| read.shaped)
}

/// Keywords after which a `/` starts a regular expression.
const EXPRESSION_KEYWORDS: [&[u8]; 13] = [
    b"return",
    b"typeof",
    b"case",
    b"do",
    b"else",
    b"in",
    b"of",
    b"new",
    b"delete",
    b"void",
    b"throw",
    b"instanceof",
    b"yield",
];

/// TypeScript's bodies and blocks: a `{` right after `=>`, after `)`, or after a
/// return type that follows `)`. With `jsx` (TSX), a `<` where an expression starts
/// opens a JSX element (see [`jsx_step`]). `None` when the lexer cannot follow the
/// file.
fn typescript_lex(bytes: &[u8], jsx: bool) -> Option<TypeScriptLexed> {
    let mut out = Vec::new();
    let mut quiet = Vec::new();
    let mut comments = Vec::new();
    // The state of each JSX element a `{...}` hole was opened in, innermost last.
    let mut elements: Vec<Jsx> = Vec::new();
    let mut shaped = false;
    let mut annotations = Annotations::None;
    let mut stack: Vec<Frame> = Vec::new();
    let mut prev = Prev::Operator;
    // `function`, `function*` or `function name` was just read: a `(` next opens
    // a declared or bound function's parameters.
    let mut function_pending = false;
    // The last `)` closed such parameters.
    let mut closed_function = false;
    // Where the body after a return type (`): Promise<void> {`) opens.
    let mut typed_body = None;
    let mut last_was_function = false;
    // The last word was `export` or `declare`, and nothing came after it.
    let mut last_was_modifier = false;
    let mut binding = Vec::new();
    let mut i = 0;
    let n = bytes.len();
    while i < n {
        let b = bytes[i];
        if !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'*' | b'(') && !is_ident(b) {
            function_pending = false;
        }
        if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') && !is_ident(b) {
            last_was_modifier = false;
        }
        let comment = b == b'/' && matches!(bytes.get(i + 1), Some(b'/' | b'*'));
        if !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b':' | b'{') && !comment {
            annotations = Annotations::None;
        }
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                let start = i;
                i = memchr::memchr(b'\n', &bytes[i..]).map_or(n, |e| i + e);
                comments.push(start..i);
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let start = i;
                i = block_comment_end(bytes, i, false)?;
                comments.push(start..i);
            }
            b'/' if matches!(prev, Prev::Operand | Prev::CloseParen) => {
                i += 1;
                prev = Prev::Operator;
            }
            b'/' => {
                i = regex_end(bytes, i)?;
                prev = Prev::Operand;
            }
            b'\'' | b'"' => {
                let start = i;
                i = string_end(bytes, i)?;
                if stack.last().is_some_and(|f| f.open == Open::Brace) && key_follows(bytes, i) {
                    let key = &bytes[start + 1..i - 1];
                    let top = stack.last_mut().expect("a brace is open");
                    top.keys |= key_flag(key);
                    if key == b"annotations" {
                        annotations = Annotations::Key;
                    }
                }
                prev = Prev::Operand;
            }
            b'`' => {
                i = template_end(bytes, i + 1, &mut stack)?;
                prev = Prev::Operand;
            }
            b'<' if jsx
                && matches!(prev, Prev::Operator | Prev::Keyword | Prev::Arrow)
                && jsx_opens(bytes, i) =>
            {
                let state = Jsx {
                    depth: 1,
                    in_tag: true,
                };
                i = jsx_step(bytes, i + 1, state, &mut stack, &mut elements, &mut quiet)?;
                prev = Prev::Operand;
            }
            b'(' | b'[' | b'{' => {
                let kept = stack.last().is_some_and(|f| f.kept);
                let body = b == b'{'
                    && (matches!(prev, Prev::Arrow | Prev::CloseParen) || typed_body == Some(i));
                // A callback's body: right inside a call's parentheses.
                let callback = body && stack.last().is_some_and(|f| f.open == Open::Paren);
                // A factory the recogniser may read: a declared function, or an
                // arrow function that is no call's argument (bound to a name, a
                // class field's value).
                let named = !callback && (prev == Prev::Arrow || closed_function);
                stack.push(Frame {
                    open: match b {
                        b'(' => Open::Paren,
                        b'[' => Open::Bracket,
                        _ => Open::Brace,
                    },
                    at: i,
                    body,
                    named,
                    function: b == b'(' && function_pending,
                    kept,
                    keys: 0,
                    annotations: b == b'{' && annotations == Annotations::Colon,
                });
                function_pending = false;
                annotations = Annotations::None;
                i += 1;
                prev = Prev::Operator;
            }
            b')' | b']' => {
                let frame = stack.pop()?;
                let want = if b == b')' {
                    Open::Paren
                } else {
                    Open::Bracket
                };
                if frame.open != want {
                    return None;
                }
                closed_function = frame.function;
                i += 1;
                prev = if b == b')' {
                    // Unless inside a declaration's type parameters, whose body is ahead.
                    if typed_body.is_none_or(|at| at < i) {
                        typed_body = return_type_body(bytes, i);
                    }
                    Prev::CloseParen
                } else {
                    Prev::Operand
                };
            }
            b'}' => {
                let frame = stack.pop()?;
                match frame.open {
                    Open::Brace => {
                        let k = frame.keys;
                        // The recogniser reads an object passed to a call.
                        let argument = stack.last().is_some_and(|f| f.open == Open::Paren);
                        shaped |= argument
                            && k & KEY_NAME != 0
                            && (k & KEY_HINTED != 0
                                || (k & KEY_SCHEMA != 0 && k & KEY_HANDLER != 0));
                        if frame.annotations && k & KEY_HINT != 0 {
                            if let Some(parent) = stack.last_mut() {
                                parent.keys |= KEY_HINTED;
                            }
                        }
                        if frame.body && !frame.kept {
                            out.push(Candidate::body(frame.at + 1..i, frame.named));
                        }
                        i += 1;
                        prev = Prev::Operator;
                    }
                    Open::Template => {
                        i = template_end(bytes, i + 1, &mut stack)?;
                        prev = Prev::Operand;
                    }
                    Open::JsxHole => {
                        let state = elements.pop()?;
                        i = jsx_step(bytes, i + 1, state, &mut stack, &mut elements, &mut quiet)?;
                        prev = Prev::Operand;
                    }
                    _ => return None,
                }
            }
            b'=' if bytes.get(i + 1) == Some(&b'>') => {
                i += 2;
                prev = Prev::Arrow;
            }
            _ if is_ident(b) => {
                let start = i;
                while i < n && is_ident(bytes[i]) {
                    i += 1;
                }
                let word = &bytes[start..i];
                if matches!(word, b"import" | b"require" | b"exports" | b"var") {
                    binding.push(start);
                }
                // `function name (`: the name is the one word allowed in between.
                function_pending = word == b"function" || (function_pending && last_was_function);
                last_was_function = word == b"function";
                // A declaration of types only: `interface I {`, `type T = {`.
                let declares = prev == Prev::Operator || last_was_modifier;
                last_was_modifier = matches!(word, b"export" | b"declare");
                if declares && matches!(word, b"interface" | b"type") {
                    if let Some(at) = type_declaration_body(bytes, i, word == b"type") {
                        typed_body = Some(at);
                    }
                }
                if word == b"ListToolsRequestSchema" {
                    if let Some(top) = stack.last_mut() {
                        top.kept = true;
                    }
                }
                if let Some(top) = stack.last_mut().filter(|f| f.open == Open::Brace) {
                    if key_follows(bytes, i) {
                        top.keys |= key_flag(word);
                        if word == b"annotations" {
                            annotations = Annotations::Key;
                        }
                    }
                }
                prev = if EXPRESSION_KEYWORDS.contains(&word)
                    || word == b"await"
                    || word == b"function"
                {
                    Prev::Keyword
                } else {
                    Prev::Operand
                };
            }
            _ => {
                if b == b':' {
                    annotations = match annotations {
                        Annotations::Key => Annotations::Colon,
                        _ => Annotations::None,
                    };
                }
                i += 1;
                prev = Prev::Operator;
            }
        }
    }
    if !stack.is_empty() {
        return None;
    }
    mark_binding(&mut out, &binding);
    Some(TypeScriptLexed {
        lexed: Lexed {
            candidates: out,
            quiet,
            comments,
        },
        shaped,
    })
}

/// Returns where the body of a declaration of types opens, `from` being just past
/// its `interface` or `type`: `interface I<T> extends A<B>, C.D {` or
/// `type T<U> = {`, the name on the keyword's line. Type parameters are read as
/// balanced `<>` (an arrow's `=>` inside stepped over, quotes as strings), an
/// interface's heritage as names, `.`, `,` and balanced `<>`; anything else is no
/// declaration this reads.
fn type_declaration_body(bytes: &[u8], from: usize, alias: bool) -> Option<usize> {
    let end = bytes.len().min(from + 512);
    let mut i = from;
    while i < end && matches!(bytes[i], b' ' | b'\t') {
        i += 1;
    }
    let name = i;
    while i < end && is_ident(bytes[i]) {
        i += 1;
    }
    if i == name {
        return None;
    }
    let mut angle = 0usize;
    let mut heritage = false;
    while i < end {
        match bytes[i] {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'<' => {
                angle += 1;
                i += 1;
            }
            b'=' if angle > 0 && bytes.get(i + 1) == Some(&b'>') => i += 2,
            b'>' => {
                angle = angle.checked_sub(1)?;
                i += 1;
            }
            b'\'' | b'"' if angle > 0 => i = string_end(bytes, i)?,
            b'{' if angle == 0 => return (!alias || heritage).then_some(i),
            b'=' if angle == 0 && alias && !heritage => {
                heritage = true;
                i += 1;
            }
            b'.' | b',' if angle == 0 && !alias => i += 1,
            b if is_ident(b) && angle == 0 && !alias => {
                while i < end && is_ident(bytes[i]) {
                    i += 1;
                }
            }
            b'{' | b'}' | b'(' | b')' | b'[' | b']' | b';' | b':' | b'.' | b',' | b'|' | b'&'
            | b'?' | b'='
                if angle > 0 =>
            {
                i += 1
            }
            b if is_ident(b) && angle > 0 => i += 1,
            _ => return None,
        }
    }
    None
}

/// Returns where a function's body opens after a return type, `from` being just
/// past its parameters' `)`: `): Promise<Result> {`, `): string | undefined {`. A
/// type is read as names, `.`, `|`, `&`, `,`, `[]`, balanced `<>` and quoted
/// literals; anything else (an object type, a function type, `||`, `?`) is no return
/// type this reads, and the body is then not left out.
fn return_type_body(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from + bytes.get(from..)?.len() - bytes[from..].trim_ascii_start().len();
    if bytes.get(i) != Some(&b':') {
        return None;
    }
    i += 1;
    let mut angle = 0usize;
    let mut words = 0;
    let end = bytes.len().min(i + 512);
    while i < end {
        match bytes[i] {
            b' ' | b'\t' | b'\n' | b'\r' | b'.' | b',' | b'[' | b']' => i += 1,
            b'|' | b'&' if bytes.get(i + 1) != Some(&bytes[i]) => i += 1,
            b'<' => {
                angle += 1;
                i += 1;
            }
            b'>' => {
                angle = angle.checked_sub(1)?;
                i += 1;
            }
            b'\'' | b'"' => {
                i = string_end(bytes, i)?;
                words += 1;
            }
            b'{' => return (angle == 0 && words > 0).then_some(i),
            b if is_ident(b) => {
                while i < end && is_ident(bytes[i]) {
                    i += 1;
                }
                words += 1;
            }
            _ => return None,
        }
    }
    None
}

/// The languages [`c_like_bodies`] reads.
#[derive(Clone, Copy, PartialEq)]
enum Dialect {
    Go,
    Rust,
    Java,
    CSharp,
}

/// Go's, Rust's, Java's and C#'s function bodies and blocks: a `{` right after `)` (a
/// method's, a Go handler literal's `func(ctx, req) (*Result, error) {`, an
/// `if f(x) {`), after a return type (Go's `) error {`, Rust's `) -> Result<T, E> {`),
/// after Java's `->` and `throws X, Y`, after C#'s `=>`, or after Rust's `=>` and
/// closure `|x|`.
/// `None` when the lexer cannot follow the file.
fn c_like_bodies(bytes: &[u8], dialect: Dialect) -> Option<Lexed> {
    let mut out = Vec::new();
    let mut quiet = Vec::new();
    let mut comments = Vec::new();
    // C#'s interpolated strings hold code.
    let quiet_strings = dialect != Dialect::CSharp;
    // (the opening byte, where it is, whether it is a body's brace)
    let mut stack: Vec<(u8, usize, bool)> = Vec::new();
    let mut opens_body = false;
    let mut typed_body = None;
    let mut i = 0;
    let n = bytes.len();
    while i < n {
        let b = bytes[i];
        let mut next_opens_body = false;
        let start = i;
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => {
                i += 1;
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = memchr::memchr(b'\n', &bytes[i..]).map_or(n, |e| i + e);
                comments.push(start..i);
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = block_comment_end(bytes, i, dialect == Dialect::Rust)?;
                comments.push(start..i);
                continue;
            }
            b'"' if dialect == Dialect::Java && bytes.get(i..i + 3) == Some(b"\"\"\"") => {
                i = i + 3 + memchr::memmem::find(&bytes[i + 3..], b"\"\"\"")? + 3;
                quiet.push(start..i);
            }
            b'"' if dialect == Dialect::Rust => {
                i = quoted_end(bytes, i, true)?;
                quiet.push(start..i);
            }
            b'"' if dialect == Dialect::CSharp => i = csharp_string_end(bytes, i)?,
            b'"' => {
                i = string_end(bytes, i)?;
                quiet.push(start..i);
            }
            b'`' if dialect == Dialect::Go => {
                i = i + 2 + memchr::memchr(b'`', &bytes[i + 1..])?;
                quiet.push(start..i);
            }
            b'\'' => {
                match dialect {
                    Dialect::Go | Dialect::Java | Dialect::CSharp => i = string_end(bytes, i)?,
                    Dialect::Rust => i = rust_quote_end(bytes, i)?,
                }
                if quiet_strings {
                    quiet.push(start..i);
                }
            }
            b'(' | b'[' | b'{' => {
                let body = b == b'{' && (opens_body || typed_body == Some(i));
                stack.push((b, i, body));
                i += 1;
            }
            b')' | b']' | b'}' => {
                let (open, at, body) = stack.pop()?;
                let want = match b {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                if open != want {
                    return None;
                }
                if body {
                    out.push(Candidate::body(at + 1..i, false));
                }
                i += 1;
                if b == b')' {
                    next_opens_body = true;
                    typed_body = match dialect {
                        Dialect::Go => go_result_body(bytes, i),
                        Dialect::CSharp => None,
                        Dialect::Rust => rust_return_type_body(bytes, i),
                        Dialect::Java => java_throws_body(bytes, i),
                    };
                }
            }
            b'-' | b'=' if dialect != Dialect::Go && bytes.get(i + 1) == Some(&b'>') => {
                i += 2;
                // Java's lambda `->`, Rust's match arm `=>` and C#'s lambda `=>`;
                // Rust's `->` is a return type, read ahead at the `)`.
                next_opens_body = match dialect {
                    Dialect::Java => b == b'-',
                    _ => b == b'=',
                };
            }
            b'|' if dialect == Dialect::Rust => {
                i += 1;
                next_opens_body = true;
            }
            _ if is_ident(b) => {
                let start = i;
                while i < n && is_ident(bytes[i]) {
                    i += 1;
                }
                let word = &bytes[start..i];
                if dialect == Dialect::Rust && matches!(word, b"r" | b"br" | b"b" | b"rb") {
                    if let Some(end) = rust_prefixed_literal(bytes, i, word) {
                        quiet.push(i..end);
                        i = end;
                    }
                }
                // A Go struct or interface type's fields and methods: names, types
                // and tags, no values.
                if dialect == Dialect::Go && matches!(word, b"struct" | b"interface") {
                    let brace = i + bytes[i..]
                        .iter()
                        .take_while(|b| b.is_ascii_whitespace())
                        .count();
                    if bytes.get(brace) == Some(&b'{') {
                        typed_body = Some(brace);
                    }
                }
            }
            _ => i += 1,
        }
        opens_body = next_opens_body;
    }
    stack.is_empty().then_some(Lexed {
        candidates: out,
        quiet,
        comments,
    })
}

/// Returns the index past a C# string whose `"` is at `at`, its prefix read from
/// the bytes before it: regular (`"..."`, escapes, one line), verbatim (`@"..."`,
/// `""` for a quote, lines allowed) and interpolated (`$"{x}"`, `{{` for a brace),
/// a hole's strings stepped over, and raw (`"""..."""`, as many quotes closing as
/// opened). `None` for an interpolated raw string, or a hole holding another
/// interpolated or verbatim string.
fn csharp_string_end(bytes: &[u8], at: usize) -> Option<usize> {
    let prefix = &bytes[at.saturating_sub(2)..at];
    let verbatim = prefix.contains(&b'@');
    let interpolated = prefix.contains(&b'$');
    let quotes = bytes[at..].iter().take_while(|&&b| b == b'"').count();
    if quotes >= 3 {
        // A raw string literal ends at as many quotes as it opened with; an
        // interpolated one is not read.
        if interpolated {
            return None;
        }
        let close = vec![b'"'; quotes];
        let body = at + quotes;
        return Some(body + memchr::memmem::find(&bytes[body..], &close)? + quotes);
    }
    let mut i = at + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if !verbatim => i += 2,
            b'\n' if !verbatim => return None,
            b'"' if verbatim && bytes.get(i + 1) == Some(&b'"') => i += 2,
            b'"' => return Some(i + 1),
            b'{' if interpolated && bytes.get(i + 1) == Some(&b'{') => i += 2,
            b'{' if interpolated => i = csharp_hole_end(bytes, i + 1)?,
            _ => i += 1,
        }
    }
    None
}

/// Returns the index past the `}` that closes an interpolation hole whose inside
/// starts at `from`.
fn csharp_hole_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut depth = 1usize;
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b'"' if matches!(bytes.get(i.wrapping_sub(1)), Some(b'@' | b'$')) => return None,
            b'"' | b'\'' => i = string_end(bytes, i)?,
            b'{' => {
                depth += 1;
                i += 1;
            }
            b'}' => {
                depth -= 1;
                i += 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            b'\n' => return None,
            _ => i += 1,
        }
    }
    None
}

/// Returns the index past a block comment starting at `at`, nested ones counted
/// where the language nests them (Rust).
fn block_comment_end(bytes: &[u8], at: usize, nests: bool) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = at;
    while i + 1 < bytes.len() {
        match &bytes[i..i + 2] {
            b"/*" if nests || depth == 0 => {
                depth += 1;
                i += 2;
            }
            b"*/" => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// Rust's `'`: a character literal (`'x'`, `'\n'`, `'é'`) or a lifetime (`'a`),
/// which is stepped over as the quote alone.
fn rust_quote_end(bytes: &[u8], at: usize) -> Option<usize> {
    if bytes.get(at + 1) == Some(&b'\\') {
        let close = memchr::memchr(b'\'', bytes.get(at + 3..)?)?;
        return Some(at + 3 + close + 1);
    }
    // One character, of one to four bytes, then the closing quote.
    let width = match *bytes.get(at + 1)? {
        b if b < 0x80 => 1,
        b if b >= 0xf0 => 4,
        b if b >= 0xe0 => 3,
        _ => 2,
    };
    Some(match bytes.get(at + 1 + width) {
        Some(b'\'') => at + 2 + width,
        _ => at + 1,
    })
}

/// Rust's prefixed literals after the prefix `word` ending at `at`: raw strings
/// (`r"..."`, `r#"..."#`, `br##"..."##`), byte strings and byte characters.
fn rust_prefixed_literal(bytes: &[u8], at: usize, word: &[u8]) -> Option<usize> {
    if word.contains(&b'r') {
        let hashes = bytes[at..].iter().take_while(|&&b| b == b'#').count();
        if bytes.get(at + hashes) != Some(&b'"') {
            return None;
        }
        let mut close = vec![b'"'];
        close.extend(std::iter::repeat_n(b'#', hashes));
        let body = at + hashes + 1;
        return Some(body + memchr::memmem::find(&bytes[body..], &close)? + close.len());
    }
    match bytes.get(at)? {
        b'"' => quoted_end(bytes, at, true),
        b'\'' => rust_quote_end(bytes, at),
        _ => None,
    }
}

/// Returns where a Rust function's body opens after its return type, `from` being
/// just past the parameters' `)`: `-> Result<CallToolResult, McpError> {`, a
/// `where` clause included. `None` for a declaration without a body (`;`), or a
/// type this does not read.
fn rust_return_type_body(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from + bytes.get(from..)?.len() - bytes[from..].trim_ascii_start().len();
    if bytes.get(i..i + 2) != Some(b"->") {
        return None;
    }
    i += 2;
    let mut depth = 0usize;
    let end = bytes.len().min(i + 1024);
    while i < end {
        match bytes[i] {
            b'-' | b'=' if bytes.get(i + 1) == Some(&b'>') => i += 2,
            b'<' | b'(' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'>' | b')' | b']' => {
                depth = depth.checked_sub(1)?;
                i += 1;
            }
            b'{' => return (depth == 0).then_some(i),
            b';' | b'"' | b'/' | b'}' => return None,
            _ => i += 1,
        }
    }
    None
}

/// Returns where a Go function's body opens after an unparenthesised result,
/// `from` being just past the parameters' `)`: `) error {`, `) *mcp.CallToolResult {`,
/// `) []string {`. A parenthesised result's own `)` opens the body directly.
fn go_result_body(bytes: &[u8], from: usize) -> Option<usize> {
    let rest = bytes.get(from..)?;
    let start = rest.len() - rest.trim_ascii_start().len();
    let len = rest[start..]
        .iter()
        .position(|&b| !(is_ident(b) || matches!(b, b'.' | b'*' | b'[' | b']' | b' ' | b'\t')))?;
    let at = from + start + len;
    (len > 0 && bytes[at] == b'{').then_some(at)
}

/// Returns where a Java method's body opens after `throws A, B`, `from` being just
/// past the parameters' `)`.
fn java_throws_body(bytes: &[u8], from: usize) -> Option<usize> {
    let rest = bytes.get(from..)?.trim_ascii_start();
    let rest = rest.strip_prefix(b"throws")?;
    let start = bytes.len() - rest.len();
    let stop = rest
        .iter()
        .position(|&b| !(is_ident(b) || b.is_ascii_whitespace() || b == b'.' || b == b','))?;
    (rest[stop] == b'{').then_some(start + stop)
}

/// Returns the index past a quoted string that starts at `at`; `None` when it is
/// not closed on its line.
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    quoted_end(bytes, at, false)
}

/// Returns the index past a string quoted by the byte at `at`, escapes stepped over;
/// with `lines`, new lines are allowed in it (Rust), else it must close on its line.
fn quoted_end(bytes: &[u8], at: usize, lines: bool) -> Option<usize> {
    let quote = bytes[at];
    let mut i = at + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'\n' if !lines => return None,
            c if c == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// Where a JSX element is being read: how many elements are open, and whether the
/// reader is inside a tag (its attributes) rather than among the children.
#[derive(Clone, Copy)]
struct Jsx {
    depth: usize,
    in_tag: bool,
}

/// Returns true when the `<` at `at`, where an expression starts, opens a JSX
/// element: a fragment (`<>`) or a tag name not followed by `,` or `extends` (a
/// generic arrow function's type parameters, `<T,>(x) => x`).
fn jsx_opens(bytes: &[u8], at: usize) -> bool {
    let rest = &bytes[at + 1..];
    match rest.first() {
        Some(b'>') => true,
        Some(&b) if is_ident(b) => {
            let name = rest
                .iter()
                .take_while(|&&b| is_ident(b) || matches!(b, b'.' | b':' | b'-'))
                .count();
            let after = rest[name..].trim_ascii_start();
            !(after.starts_with(b",")
                || after.starts_with(b"extends") && !after.get(7).is_some_and(|&b| is_ident(b)))
        }
        _ => false,
    }
}

/// Reads JSX from `i` in `state` up to the end of its outermost element (returning
/// the index past it) or up to a `{` hole (pushing a frame for it and the element's
/// state, and returning the index past the `{`). Text and attribute strings are
/// quiet. `None` for what this reader does not follow.
fn jsx_step(
    bytes: &[u8],
    mut i: usize,
    mut state: Jsx,
    stack: &mut Vec<Frame>,
    elements: &mut Vec<Jsx>,
    quiet: &mut Vec<Range<usize>>,
) -> Option<usize> {
    let n = bytes.len();
    let hole = |i: usize, state: Jsx, stack: &mut Vec<Frame>, elements: &mut Vec<Jsx>| {
        stack.push(Frame {
            open: Open::JsxHole,
            at: i,
            body: false,
            named: false,
            function: false,
            keys: 0,
            annotations: false,
            kept: stack.last().is_some_and(|f| f.kept),
        });
        elements.push(state);
        i + 1
    };
    while i < n {
        if state.in_tag {
            match bytes[i] {
                b' ' | b'\t' | b'\n' | b'\r' => i += 1,
                b'/' if bytes.get(i + 1) == Some(&b'>') => {
                    i += 2;
                    state.in_tag = false;
                    state.depth -= 1;
                    if state.depth == 0 {
                        return Some(i);
                    }
                }
                b'>' => {
                    i += 1;
                    state.in_tag = false;
                }
                // Comments between attributes.
                b'/' if bytes.get(i + 1) == Some(&b'/') => {
                    let end = memchr::memchr(b'\n', &bytes[i..]).map_or(n, |e| i + e);
                    quiet.push(i..end);
                    i = end;
                }
                b'/' if bytes.get(i + 1) == Some(&b'*') => {
                    let end = block_comment_end(bytes, i, false)?;
                    quiet.push(i..end);
                    i = end;
                }
                q @ (b'"' | b'\'') => {
                    let end = i + 1 + memchr::memchr(q, &bytes[i + 1..])? + 1;
                    quiet.push(i..end);
                    i = end;
                }
                b'{' => return Some(hole(i, state, stack, elements)),
                b'=' | b'.' | b':' | b'-' => i += 1,
                b if is_ident(b) => i += 1,
                _ => return None,
            }
            continue;
        }
        // Children: text up to a tag or a hole.
        let next = i + memchr::memchr2(b'<', b'{', &bytes[i..])?;
        if next > i {
            quiet.push(i..next);
        }
        i = next;
        if bytes[i] == b'{' {
            return Some(hole(i, state, stack, elements));
        }
        if bytes.get(i + 1) == Some(&b'/') {
            // A closing tag, `</name>` or `</>`.
            let close = i + memchr::memchr(b'>', &bytes[i..])?;
            let name = &bytes[i + 2..close];
            if !name
                .iter()
                .all(|&b| is_ident(b) || b.is_ascii_whitespace() || matches!(b, b'.' | b':' | b'-'))
            {
                return None;
            }
            i = close + 1;
            state.depth -= 1;
            if state.depth == 0 {
                return Some(i);
            }
        } else {
            i += 1;
            state.depth += 1;
            state.in_tag = true;
        }
    }
    None
}

/// Steps through a template literal from `i` (past its opening backtick or a
/// `}` closing a substitution): returns the index past its closing backtick, or
/// past a `${`, pushing a frame for it.
fn template_end(bytes: &[u8], mut i: usize, stack: &mut Vec<Frame>) -> Option<usize> {
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'`' => return Some(i + 1),
            b'$' if bytes.get(i + 1) == Some(&b'{') => {
                stack.push(Frame {
                    open: Open::Template,
                    at: i + 1,
                    body: false,
                    named: false,
                    function: false,
                    keys: 0,
                    annotations: false,
                    kept: stack.last().is_some_and(|f| f.kept),
                });
                return Some(i + 2);
            }
            _ => i += 1,
        }
    }
    None
}

/// Returns the index past a regular expression literal that starts at `at`
/// (its flags included); `None` when it is not closed on its line.
fn regex_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    let mut class = false;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'\n' => return None,
            b'[' => {
                class = true;
                i += 1;
            }
            b']' => {
                class = false;
                i += 1;
            }
            b'/' if !class => {
                i += 1;
                while i < bytes.len() && is_ident(bytes[i]) {
                    i += 1;
                }
                return Some(i);
            }
            _ => i += 1,
        }
    }
    None
}

/// Python's `def` bodies that span more than one logical line: the body from its
/// first statement is searched, and left out past that statement's line. `None`
/// when the lexer cannot follow the file.
fn python_bodies(bytes: &[u8]) -> Option<Lexed> {
    let (lines, binding, quiet, comments) = python_logical_lines(bytes)?;
    let mut out = Vec::new();
    // Nested bodies are walked again; past this many lines walked, the rest is parsed.
    let mut budget = lines.len().saturating_mul(SEARCH_FACTOR);
    for (k, line) in lines.iter().enumerate() {
        if !line.opens_body {
            continue;
        }
        // A body of one `return` may be a factory, whose parameters a call binds
        // (see `python`): its parameter list stays in the parse.
        if let Some(inside) = python_parameters(bytes, line) {
            if !returns_alone(bytes, &lines, k) {
                out.push(Candidate::body(inside, false));
            }
        }
        let Some(first) = lines.get(k + 1) else {
            continue;
        };
        if !deeper(first.indent(bytes), line.indent(bytes))? {
            continue;
        }
        let mut last = k + 1;
        for (j, next) in lines.iter().enumerate().skip(k + 2) {
            if !deeper(next.indent(bytes), line.indent(bytes))? {
                break;
            }
            last = j;
        }
        budget = match budget.checked_sub(last - k) {
            Some(left) => left,
            None => break,
        };
        let doc = docstring(bytes, first);
        if last > k + 1 || doc.is_some() {
            out.push(Candidate {
                search: first.start..lines[last].end,
                skip: first.end..lines[last].end,
                doc,
                named: false,
                binds: false,
            });
        }
    }
    mark_binding(&mut out, &binding);
    Some(Lexed {
        candidates: out,
        quiet,
        comments,
    })
}

/// Returns true when the body of the `def` on line `k` is one logical line that
/// opens with `return`.
fn returns_alone(bytes: &[u8], lines: &[LogicalLine], k: usize) -> bool {
    let outer = lines[k].indent(bytes);
    let inside = |l: &LogicalLine| deeper(l.indent(bytes), outer) == Some(true);
    let Some(first) = lines.get(k + 1).filter(|l| inside(l)) else {
        return false;
    };
    let code = &bytes[first.code..first.end];
    !lines.get(k + 2).is_some_and(inside)
        && code.starts_with(b"return")
        && code.get(b"return".len()).is_none_or(|b| !is_ident(*b))
}

/// Returns the inside of a `def`'s parameter list, `def f(` to `)`, when it holds
/// neither `for` nor `lambda`: no recogniser reads a parameter, a default or an
/// annotation, and without those two words no comprehension or function in it
/// can mark the def's line as run per element (`syntax::repeated_lines`). `None`
/// when the list is empty or the lexer cannot follow it.
fn python_parameters(bytes: &[u8], line: &LogicalLine) -> Option<Range<usize>> {
    let mut at = line.code;
    let head = &bytes[at..line.end];
    if head.starts_with(b"async") {
        at += b"async".len();
    }
    at = skip_python_space(bytes, at, line.end);
    at += b"def".len();
    at = skip_python_space(bytes, at, line.end);
    while at < line.end && is_ident(bytes[at]) {
        at += 1;
    }
    at = skip_python_space(bytes, at, line.end);
    // Type parameters, `def f[T](...)` (3.12), are stepped over as a bracket.
    if bytes.get(at) == Some(&b'[') {
        at = python_bracket_end(bytes, at, line.end, None)?;
        at = skip_python_space(bytes, at, line.end);
    }
    if bytes.get(at) != Some(&b'(') {
        return None;
    }
    let mut code_words = Vec::new();
    let end = python_bracket_end(bytes, at, line.end, Some(&mut code_words))?;
    let inside = at + 1..end - 1;
    let clear = !code_words.iter().any(|w| *w == b"for" || *w == b"lambda");
    (clear && !bytes[inside.clone()].trim_ascii().is_empty()).then_some(inside)
}

/// Returns the index past white space, comments and line continuations from `at`,
/// within `end`.
fn skip_python_space(bytes: &[u8], mut at: usize, end: usize) -> usize {
    while at < end {
        match bytes[at] {
            b' ' | b'\t' | b'\r' | b'\n' | b'\x0c' => at += 1,
            b'\\' => at += 2,
            b'#' => at = memchr::memchr(b'\n', &bytes[at..end]).map_or(end, |e| at + e),
            _ => break,
        }
    }
    at.min(end)
}

/// Returns the index past the bracket that closes the one at `at`, within `end`,
/// stepping over strings and comments, and gives `words` the words of the code
/// between; `None` when it is not closed there.
fn python_bracket_end<'a>(
    bytes: &'a [u8],
    at: usize,
    end: usize,
    mut words: Option<&mut Vec<&'a [u8]>>,
) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = at;
    while i < end {
        match bytes[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b'\'' | b'"' => {
                i = python_string_end(bytes, i)?;
                continue;
            }
            b'#' => {
                i = memchr::memchr(b'\n', &bytes[i..end]).map_or(end, |e| i + e);
                continue;
            }
            b'\\' => i += 1,
            c if is_ident(c) => {
                let from = i;
                while i < end && is_ident(bytes[i]) {
                    i += 1;
                }
                if let Some(words) = words.as_deref_mut() {
                    words.push(&bytes[from..i]);
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Returns the inside of a docstring that is the whole of a body's first logical
/// line (`"""Says what."""`, a comment after it allowed), which no recogniser reads:
/// leaving it out leaves the empty string `""""""` in its place.
fn docstring(bytes: &[u8], first: &LogicalLine) -> Option<Range<usize>> {
    let mut at = first.code;
    if matches!(bytes.get(at), Some(b'r' | b'R' | b'u' | b'U')) {
        at += 1;
    }
    let quote = *bytes.get(at)?;
    if !matches!(quote, b'"' | b'\'') || bytes.get(at..at + 3) != Some(&[quote; 3][..]) {
        return None;
    }
    let end = python_string_end(bytes, at)?;
    let rest = bytes.get(end..first.end)?.trim_ascii();
    if !(rest.is_empty() || rest.starts_with(b"#")) {
        return None;
    }
    (end - 3 > at + 3).then_some(at + 3..end - 3)
}

/// Returns whether indentation `inner` is deeper than `outer`; `None` when the two
/// are not one a prefix of the other (tabs and spaces mixed differently).
fn deeper(inner: &[u8], outer: &[u8]) -> Option<bool> {
    if inner.len() > outer.len() {
        inner.starts_with(outer).then_some(true)
    } else {
        outer.starts_with(inner).then_some(false)
    }
}

/// One logical line of Python code (blank and comment-only lines are not listed):
/// from its first byte (its indentation included) to past its newline.
struct LogicalLine {
    start: usize,
    /// Where the indentation ends.
    code: usize,
    end: usize,
    /// A `def` (or `async def`) whose line ends with `:`, its body on the next lines.
    opens_body: bool,
}

impl LogicalLine {
    fn indent<'a>(&self, bytes: &'a [u8]) -> &'a [u8] {
        &bytes[self.start..self.code]
    }
}

/// Splits Python source into logical lines: a newline inside brackets or a string,
/// or after a backslash, continues the line. Also returns where the code (not its
/// strings or comments) spells `global`, `nonlocal` or a relative import's `from`,
/// its quiet text and its comments (see [`Lexed`]).
type PythonLines = (
    Vec<LogicalLine>,
    Vec<usize>,
    Vec<Range<usize>>,
    Vec<Range<usize>>,
);

fn python_logical_lines(bytes: &[u8]) -> Option<PythonLines> {
    let n = bytes.len();
    let mut out = Vec::new();
    let mut binding = Vec::new();
    let mut quiet = Vec::new();
    let mut comments = Vec::new();
    let mut i = 0;
    while i < n {
        let start = i;
        while i < n && matches!(bytes[i], b' ' | b'\t' | b'\x0c') {
            i += 1;
        }
        let code = i;
        if i >= n {
            break;
        }
        if matches!(bytes[i], b'\n' | b'\r' | b'#') {
            let comment = i;
            i = memchr::memchr(b'\n', &bytes[i..]).map_or(n, |e| i + e + 1);
            if bytes[comment] == b'#' {
                comments.push(comment..i);
            }
            continue;
        }
        let mut depth = 0usize;
        let mut last_code = None;
        loop {
            if i >= n {
                break;
            }
            match bytes[i] {
                b'\n' if depth == 0 => {
                    i += 1;
                    break;
                }
                b'#' => {
                    let comment = i;
                    i = memchr::memchr(b'\n', &bytes[i..]).map_or(n, |e| i + e);
                    comments.push(comment..i);
                }
                b'\\' => i += 2,
                b'\'' | b'"' => {
                    let quote = i;
                    i = python_string_end(bytes, i)?;
                    if !holds_code(&bytes[..quote]) {
                        quiet.push(quote..i);
                    }
                    last_code = Some(b'"');
                }
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    last_code = Some(bytes[i]);
                    i += 1;
                }
                b')' | b']' | b'}' => {
                    depth = depth.checked_sub(1)?;
                    last_code = Some(bytes[i]);
                    i += 1;
                }
                b' ' | b'\t' | b'\r' | b'\n' | b'\x0c' => i += 1,
                c if is_ident(c) => {
                    let start = i;
                    while i < n && is_ident(bytes[i]) {
                        i += 1;
                    }
                    let relative = || bytes[i..].trim_ascii_start().first() == Some(&b'.');
                    match &bytes[start..i] {
                        b"global" | b"nonlocal" => binding.push(start),
                        b"from" if relative() => binding.push(start),
                        _ => {}
                    }
                    last_code = Some(bytes[i - 1]);
                }
                c => {
                    last_code = Some(c);
                    i += 1;
                }
            }
        }
        if depth != 0 {
            return None;
        }
        let head = &bytes[code..i.min(n)];
        let head = head
            .strip_prefix(b"async")
            .map_or(head, <[u8]>::trim_ascii_start);
        let opens_body = head.starts_with(b"def")
            && head.get(3).is_some_and(|b| b.is_ascii_whitespace())
            && last_code == Some(b':');
        out.push(LogicalLine {
            start,
            code,
            end: i.min(n),
            opens_body,
        });
    }
    Some((out, binding, quiet, comments))
}

/// Returns true when the Python string whose quote ends `head` may hold code: its
/// prefix, the letters right before the quote, holds `f` or `t` (an f-string's or
/// a template string's fields are expressions). Any word ending in such a letter
/// counts (`if"x"` is read as if it were one).
fn holds_code(head: &[u8]) -> bool {
    head.iter()
        .rev()
        .take_while(|b| is_ident(**b))
        .any(|b| matches!(b, b'f' | b'F' | b't' | b'T'))
}

/// Returns the index past a Python string literal starting at its quote `at`
/// (single or triple quoted); `None` when it is not closed.
fn python_string_end(bytes: &[u8], at: usize) -> Option<usize> {
    let quote = bytes[at];
    let triple = bytes.get(at..at + 3) == Some(&[quote, quote, quote][..]);
    let mut i = at + if triple { 3 } else { 1 };
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'\n' if !triple => return None,
            c if c == quote => {
                if !triple {
                    return Some(i + 1);
                }
                if bytes.get(i..i + 3) == Some(&[quote, quote, quote][..]) {
                    return Some(i + 3);
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    None
}
