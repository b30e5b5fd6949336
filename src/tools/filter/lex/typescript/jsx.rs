//! JSX, as TypeScript's lexer steps through it (TSX): where an element opens, and
//! its text, attributes and `{...}` holes.

use std::ops::Range;

use super::super::scan::{block_comment_end, is_ident};
use super::frame::{Frame, Open};

/// Where a JSX element is being read: how many elements are open, and whether the
/// reader is inside a tag (its attributes) rather than among the children.
#[derive(Clone, Copy)]
pub(super) struct Jsx {
    pub(super) depth: usize,
    pub(super) in_tag: bool,
}

/// Returns true when the `<` at `at`, where an expression starts, opens a JSX
/// element: a fragment (`<>`) or a tag name not followed by `,` or `extends` (a
/// generic arrow function's type parameters, `<T,>(x) => x`).
pub(super) fn jsx_opens(bytes: &[u8], at: usize) -> bool {
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
pub(super) fn jsx_step(
    bytes: &[u8],
    mut i: usize,
    mut state: Jsx,
    stack: &mut Vec<Frame>,
    elements: &mut Vec<Jsx>,
    quiet: &mut Vec<Range<usize>>,
) -> Option<usize> {
    let n = bytes.len();
    let hole = |i: usize, state: Jsx, stack: &mut Vec<Frame>, elements: &mut Vec<Jsx>| {
        stack.push(Frame::hole(
            Open::JsxHole,
            i,
            stack.last().is_some_and(|f| f.kept),
        ));
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
