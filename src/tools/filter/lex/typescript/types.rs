//! Where TypeScript's type syntax ends, as the lexer steps over it: a declaration
//! of types, a function's return type, a declared function's type parameters.

use super::super::scan::{angle_close, is_ident, string_end};

/// Returns where the body of a declaration of types opens, `from` being just past
/// its `interface` or `type`: `interface I<T> extends A<B>, C.D {` or
/// `type T<U> = {`, the name on the keyword's line. Type parameters are read as
/// balanced `<>` (an arrow's `=>` inside stepped over, quotes as strings), an
/// interface's heritage as names, `.`, `,` and balanced `<>`; anything else is no
/// declaration this reads.
pub(super) fn type_declaration_body(bytes: &[u8], from: usize, alias: bool) -> Option<usize> {
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
pub(super) fn return_type_body(bytes: &[u8], from: usize) -> Option<usize> {
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

/// Returns where a declaration's type parameters that open at `at` (`<T extends
/// Def>`) end, when a `(` follows them: brackets `<>` nested, an arrow's `=>` not
/// closing one, and `None` at anything a list of type parameters does not hold
/// (a parenthesis, a brace, a string, a line of more than 512 bytes).
pub(super) fn type_parameters_end(bytes: &[u8], at: usize) -> Option<usize> {
    let close = angle_close(bytes, at, b"(){};\"'`/")?;
    let rest = &bytes[close + 1..];
    let next = rest.iter().position(|b| !b.is_ascii_whitespace())?;
    (rest[next] == b'(').then_some(close + 1 + next)
}
