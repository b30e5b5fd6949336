//! Python's lexer: where the bodies of its `def`s are (by indentation, over
//! logical lines), its docstrings, and its quiet text (comments, and strings that
//! cannot hold code; f- and t-strings can). `None` for what it cannot follow.

use std::ops::Range;

use super::lexed::{mark_binding, Candidate, Forms, Lexed, SEARCH_FACTOR};
use super::scan::is_ident;

/// Python's `def` bodies that span more than one logical line: the body from its
/// first statement is searched, and left out past that statement's line. `None`
/// when the lexer cannot follow the file.
pub(super) fn python_bodies(bytes: &[u8]) -> Option<Lexed> {
    let PythonLines {
        lines,
        relative,
        globals,
        quiet,
        comments,
    } = python_logical_lines(bytes)?;
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
                returns: false,
                binds: false,
            });
        }
    }
    mark_binding(&mut out, &relative);
    for c in &mut out {
        c.binds = c.binds || assigns_a_global(bytes, &globals, c.search.clone());
    }
    Some(Lexed {
        candidates: out,
        quiet,
        comments,
        texts: Vec::new(),
        forms: Forms::default(),
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

/// Python source split into logical lines: a newline inside brackets or a string,
/// or after a backslash, continues the line.
struct PythonLines {
    lines: Vec<LogicalLine>,
    /// Where the code (not its strings or comments) spells a relative import's
    /// `from`, sorted.
    relative: Vec<usize>,
    /// Where it spells `global` or `nonlocal`, sorted.
    globals: Vec<usize>,
    /// Its quiet text and its comments (see [`Lexed`]).
    quiet: Vec<Range<usize>>,
    comments: Vec<Range<usize>>,
}

fn python_logical_lines(bytes: &[u8]) -> Option<PythonLines> {
    let n = bytes.len();
    let mut out = Vec::new();
    let mut relative = Vec::new();
    let mut globals = Vec::new();
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
                    let dotted = || bytes[i..].trim_ascii_start().first() == Some(&b'.');
                    match &bytes[start..i] {
                        b"global" | b"nonlocal" => globals.push(start),
                        b"from" if dotted() => relative.push(start),
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
    Some(PythonLines {
        lines: out,
        relative,
        globals,
        quiet,
        comments,
    })
}

/// Returns true when a `global` or `nonlocal` statement of `globals` stands in
/// `within` and one of the names it lists may be assigned there: the name as a
/// whole word followed by `=` (not `==`) or by `:` (an annotated assignment, or
/// any other colon: more is read, never less). A statement whose names cannot be
/// read counts as assigning. A body that only reads a global binds nothing the
/// recognisers read (docs/method.md, "What is parsed").
fn assigns_a_global(bytes: &[u8], globals: &[usize], within: Range<usize>) -> bool {
    let first = globals.partition_point(|&at| at < within.start);
    let text = &bytes[within.clone()];
    globals[first..]
        .iter()
        .take_while(|&&at| at < within.end)
        .any(|&at| match global_names(bytes, at) {
            Some(names) => names
                .iter()
                .any(|name| assigned(text, &bytes[name.clone()])),
            None => true,
        })
}

/// The names a `global` or `nonlocal` statement at `at` lists; `None` when none
/// can be read.
fn global_names(bytes: &[u8], at: usize) -> Option<Vec<Range<usize>>> {
    // Past spaces and backslash-continued line ends.
    let blanks = |mut i: usize| loop {
        match bytes.get(i..) {
            Some([b' ' | b'\t' | b'\r' | b'\x0c', ..]) => i += 1,
            Some([b'\\', b'\n', ..]) => i += 2,
            Some([b'\\', b'\r', b'\n', ..]) => i += 3,
            _ => return i,
        }
    };
    let mut i = at + bytes[at..].iter().take_while(|b| is_ident(**b)).count();
    let mut names = Vec::new();
    loop {
        let start = blanks(i);
        i = start + bytes[start..].iter().take_while(|b| is_ident(**b)).count();
        if start == i {
            break;
        }
        names.push(start..i);
        i = blanks(i);
        if bytes.get(i) != Some(&b',') {
            break;
        }
        i += 1;
    }
    (!names.is_empty()).then_some(names)
}

/// Returns true when `text` holds `name` as a whole word (not after a `.`)
/// followed, past spaces, by `=` but not `==`, or by `:`.
fn assigned(text: &[u8], name: &[u8]) -> bool {
    memchr::memmem::find_iter(text, name).any(|at| {
        let before = at.checked_sub(1).map(|b| text[b]);
        if before.is_some_and(|b| is_ident(b) || b == b'.') {
            return false;
        }
        let after = &text[at + name.len()..];
        if after.first().is_some_and(|b| is_ident(*b)) {
            return false;
        }
        let after = after.trim_ascii_start();
        match after {
            [b'=', b'=', ..] => false,
            [b'=', ..] | [b':', ..] => true,
            _ => false,
        }
    })
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
