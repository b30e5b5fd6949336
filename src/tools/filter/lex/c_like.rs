//! The lexer of Go, Rust, Java and C#: where their function bodies and blocks are,
//! and their quiet text (comments, and strings that cannot hold code). Strings,
//! raw strings, character literals and comments are stepped over, brackets matched;
//! `None` for what it cannot follow.

use super::lexed::{description_text, Candidate, Forms, Lexed};
use super::scan::{block_comment_end, is_ident, quoted_end, string_end};

/// The languages [`c_like_bodies`] reads.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Dialect {
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
pub(super) fn c_like_bodies(bytes: &[u8], dialect: Dialect) -> Option<Lexed> {
    let mut out = Vec::new();
    let mut quiet = Vec::new();
    let mut comments = Vec::new();
    let mut texts = Vec::new();
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
                if dialect == Dialect::Go {
                    texts.extend(go_description(bytes, start..i));
                }
            }
            b'`' if dialect == Dialect::Go => {
                i = i + 2 + memchr::memchr(b'`', &bytes[i + 1..])?;
                quiet.push(start..i);
                texts.extend(go_description(bytes, start..i));
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
        texts,
        forms: Forms::default(),
    })
}

/// Returns the inside of `string` (its quotes in the range) when it is a
/// composite literal's `Description` field's (`{` or `,` before the key) and may
/// be left out of the parse as a description (see [`description_text`]): the
/// recogniser reads such a value as a string whose text it never reads
/// (`golang::fields`).
fn go_description(bytes: &[u8], string: std::ops::Range<usize>) -> Option<std::ops::Range<usize>> {
    let before = bytes[..string.start].trim_ascii_end().strip_suffix(b":")?;
    let key = before.trim_ascii_end().strip_suffix(b"Description")?;
    if !matches!(key.trim_ascii_end().last(), Some(b'{' | b',')) {
        return None;
    }
    description_text(string.start + 1..string.end - 1, &bytes[string.end..])
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
