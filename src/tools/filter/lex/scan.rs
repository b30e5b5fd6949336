//! The steps every lexer shares: identifier bytes, quoted strings and block
//! comments, each returning the index past what it stepped over.

pub(in crate::tools) fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// Returns the index past a block comment starting at `at`, nested ones counted
/// where the language nests them (Rust).
pub(super) fn block_comment_end(bytes: &[u8], at: usize, nests: bool) -> Option<usize> {
    if !nests {
        let from = at + 2;
        return memchr::memmem::find(bytes.get(from..)?, b"*/").map(|end| from + end + 2);
    }
    let mut depth = 0usize;
    let mut i = at;
    while i + 1 < bytes.len() {
        match &bytes[i..i + 2] {
            b"/*" => {
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

/// Returns the index past a quoted string that starts at `at`; `None` when it is
/// not closed on its line.
pub(super) fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    quoted_end(bytes, at, false)
}

/// Returns the index past a string quoted by the byte at `at`, escapes stepped over;
/// with `lines`, new lines are allowed in it (Rust), else it must close on its line.
pub(super) fn quoted_end(bytes: &[u8], at: usize, lines: bool) -> Option<usize> {
    let quote = bytes[at];
    let mut i = at + 1;
    loop {
        let rest = bytes.get(i..)?;
        // The next byte that ends the string or needs a look: a run of others at once.
        let next = match lines {
            true => memchr::memchr2(b'\\', quote, rest),
            false => memchr::memchr3(b'\\', b'\n', quote, rest),
        }?;
        i += next;
        match bytes[i] {
            b'\\' => i += 2,
            b'\n' if !lines => return None,
            _ => return Some(i + 1),
        }
    }
}

/// Returns the index of the `>` closing the angle brackets that open at `at` (a `<`):
/// brackets nested, an arrow's `=>` closing none, within 512 bytes; `None` when they
/// do not close there, or at one of `stops` first.
pub(in crate::tools) fn angle_close(bytes: &[u8], at: usize, stops: &[u8]) -> Option<usize> {
    if bytes.get(at) != Some(&b'<') {
        return None;
    }
    let mut depth = 0usize;
    for (i, &b) in bytes.iter().enumerate().skip(at).take(512) {
        match b {
            b'<' => depth += 1,
            b'>' if bytes[i - 1] == b'=' => {}
            b'>' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ if stops.contains(&b) => return None,
            _ => {}
        }
    }
    None
}

/// Returns `text` past its leading white space and comments; an unclosed block
/// comment is left in place.
pub(super) fn past_comments(text: &[u8]) -> &[u8] {
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
