//! TypeScript's lexer (TSX's with JSX): where its function bodies and blocks are,
//! its quiet text (comments, JSX text and attribute strings), and whether an object
//! literal passed to a call has the keys of the tool-shaped form (see `prefilter`).
//! Strings, comments, template literals, regular expressions and JSX are stepped
//! over, brackets matched; `None` for what it cannot follow.

use std::ops::Range;

use super::super::keys;
use super::lexed::{mark_binding, Candidate, Lexed};
use super::scan::{block_comment_end, is_ident, string_end};

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

/// A `name` key (the keys are those of [`keys`]).
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
        _ if key == keys::NAME.as_bytes() => KEY_NAME,
        _ if keys::is_one_of(key, &keys::SCHEMA) => KEY_SCHEMA,
        _ if keys::is_one_of(key, &keys::HANDLER) => KEY_HANDLER,
        _ if keys::is_hint(key) => KEY_HINT,
        _ if key.contains(&b'\\') => KEY_NAME | KEY_SCHEMA | KEY_HANDLER | KEY_HINT,
        _ => 0,
    }
}

/// Returns true when what follows a word or a string at `at` makes it an object's
/// key: `:`, `,` or `}` (shorthand), `(` or `<` (a method), past white space,
/// comments and a `?`; a `/` there may be any of them. Comments are stepped over as
/// white space, as in the file's code (see [`Lexed::code`]): the form is the one the
/// code has, the text the prefilter searches for anchors (`prefilter::anchored`).
fn key_follows(bytes: &[u8], at: usize) -> bool {
    let rest = past_comments(&bytes[at..]);
    let rest = rest.strip_prefix(b"?").map_or(rest, past_comments);
    matches!(rest.first(), Some(b':' | b',' | b'}' | b'(' | b'<' | b'/'))
}

/// Returns `text` past its leading white space and comments; an unclosed block
/// comment is left in place.
fn past_comments(text: &[u8]) -> &[u8] {
    let mut rest = text.trim_ascii_start();
    loop {
        let past = match rest {
            [b'/', b'/', ..] => memchr::memchr(b'\n', rest).unwrap_or(rest.len()),
            [b'/', b'*', ..] => match block_comment_end(rest, 0, false) {
                Some(end) => end,
                None => return rest,
            },
            _ => return rest,
        };
        rest = rest[past..].trim_ascii_start();
    }
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

/// Returns whether TypeScript source (TSX with `jsx`) holds a tool-shaped object
/// literal (see [`Lexed::shaped`]); `None` when the lexer cannot follow it.
pub(in crate::tools) fn typescript_shaped(bytes: &[u8], jsx: bool) -> Option<bool> {
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
pub(super) fn typescript_lex(bytes: &[u8], jsx: bool) -> Option<Lexed> {
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
                    if key == keys::ANNOTATIONS.as_bytes() {
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
                        if word == keys::ANNOTATIONS.as_bytes() {
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
    Some(Lexed {
        candidates: out,
        quiet,
        comments,
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
