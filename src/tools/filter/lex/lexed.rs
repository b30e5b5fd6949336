//! What a lexer reads of a file (see [`Lexed`]): the bodies and blocks the parse
//! may leave out, and where its quiet text is. Each family's lexer fills it; `skim`
//! and the prefilter read it.

use std::ops::Range;

use super::scan::past_comments;

/// At most this many bytes of candidate bodies are searched for anchors, as a
/// multiple of the file's length (nested candidates are searched again), and at
/// most this many Python lines walked, as a multiple of the file's: a file of many
/// nested bodies is bounded, and what is past the bound is parsed.
pub(in crate::tools) const SEARCH_FACTOR: usize = 4;

/// A description's text shorter than this stays in the parse: the range it would
/// take costs tree-sitter's lexer more than the bytes it saves.
pub(in crate::tools) const DESCRIPTION_MIN: usize = 48;

/// Returns `inside`, the inside of a description's string, when it may be left out
/// of the parse (see [`Lexed::texts`]): it is the key's whole value (`after`, the
/// text past its closing quote, holds a `,` or `}` first, white space and comments
/// aside) and at least [`DESCRIPTION_MIN`] bytes long.
pub(super) fn description_text(inside: Range<usize>, after: &[u8]) -> Option<Range<usize>> {
    (inside.len() >= DESCRIPTION_MIN && matches!(past_comments(after).first(), Some(b',' | b'}')))
        .then_some(inside)
}

/// What a lexer reads of a file: the bodies and blocks the parse may leave out when
/// their text allows it (see `skim::bodies`), and where its quiet text is.
pub(in crate::tools) struct Lexed {
    pub(in crate::tools) candidates: Vec<Candidate>,
    /// With `comments`, the file's quiet text: the string literals that cannot hold
    /// code, JSX text and attribute strings, and the comments between a JSX tag's
    /// attributes, disjoint. No recogniser reads a registration there. C#'s strings
    /// are not among them (an interpolation holds code), nor TypeScript's template
    /// literals and quoted keys (of a quoted string only its inside, on one line),
    /// nor Python's f- and t-strings.
    pub(in crate::tools) quiet: Vec<Range<usize>>,
    /// Its other comments, sorted and disjoint: no recogniser reads one, so the
    /// parse may leave them out (see `skim::bodies_of`).
    pub(in crate::tools) comments: Vec<Range<usize>>,
    /// TypeScript: the insides of the string literals that are a `description`
    /// key's whole value (see [`DESCRIPTION_MIN`]), sorted and disjoint; Go: those
    /// that are a composite literal's `Description` field's. The recogniser reads
    /// such a value as a string whose text it never reads (`values::object`,
    /// `golang::fields`), so the parse may leave them out.
    pub(in crate::tools) texts: Vec<Range<usize>>,
    /// TypeScript: the forms of object literals the file holds, as its
    /// [`Lexed::code`] reads. None for the other languages, whose anchors ask no such
    /// question.
    pub(in crate::tools) forms: Forms,
}

/// The forms the TypeScript lexer finds by brackets and keys, which the prefilter's
/// anchors ask about when their spellings stand somewhere in a file (see
/// `prefilter::anchored_with`). Each is an over-approximation of what the
/// recogniser reads.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub(in crate::tools) struct Forms {
    /// An object literal right inside parentheses (a call's argument) holds a `name`
    /// key beside an `annotations` object with a hint key, or beside a schema key and
    /// a handler key: the tool-shaped form (see `keys`).
    pub(in crate::tools) shaped: bool,
    /// An object literal given by a `=` at the top of the file (outside every
    /// bracket) holds a `name` key and a schema key: a tool constant's form.
    pub(in crate::tools) constant: bool,
    /// An object's key, a `:`, a name and `(` with an object literal first inside
    /// (`list_projects: tool({`), and no arrow function's parameters after all
    /// (`mutationFn: async ({ id }) =>`): the keyed call's form. The object holds
    /// what the recogniser needs of it: an `annotations` key, or a schema key
    /// beside a handler key, or a spread that may bring them (`style: css({ color
    /// })`, a bundle's thousand such calls, is none).
    pub(in crate::tools) keyed: bool,
}

impl Lexed {
    /// Returns the file's bytes with its quiet text blanked (each byte a space but
    /// line ends), for the anchors to be searched in its code only.
    pub(in crate::tools) fn code(&self, bytes: &[u8]) -> Vec<u8> {
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

/// A body the parse may leave out: `search` is the text that must hold no anchor,
/// `skip` the bytes left out (for Python, the body past its first statement).
pub(in crate::tools) struct Candidate {
    pub(in crate::tools) search: Range<usize>,
    pub(in crate::tools) skip: Range<usize>,
    /// Also left out: the inside of a Python docstring that is the first statement.
    pub(in crate::tools) doc: Option<Range<usize>>,
    /// A TypeScript body the recogniser may read as a factory: a declared
    /// function's (`function f() {`), or an arrow function's that is no call's
    /// argument (bound to a name, a class field's value). Methods and blocks are no
    /// factories.
    pub(in crate::tools) named: bool,
    /// Such a body one of whose own statements returns what may open an object
    /// literal (see [`opens_a_literal`]): the recogniser reads what the last
    /// `return` among a function's own statements gives, never one in a nested
    /// block or function.
    pub(in crate::tools) returns: bool,
    /// Its code (not its strings or comments) holds a spelling by which a name bound
    /// in it may be seen outside it, or a module be reached from it: TypeScript's
    /// and JavaScript's `import`, `require` and `exports`, and `var` (hoisted out of
    /// a block; in JavaScript not out of a function's body), Python's
    /// relative imports, `global` and `nonlocal`. Go, Rust, Java and C# have none.
    pub(in crate::tools) binds: bool,
}

impl Candidate {
    /// A brace's inside, searched and left out whole.
    pub(super) fn body(inside: Range<usize>, named: bool) -> Candidate {
        Candidate {
            search: inside.clone(),
            skip: inside,
            doc: None,
            named,
            returns: false,
            binds: false,
        }
    }
}

/// Returns true when the text after a `return` (`after`) may open an object
/// literal: past white space and opening parentheses, `{`, `<` (a type
/// assertion, `return <Tool>{...}`) or `/` (a comment, or a regular expression:
/// more is read, never less). `return (a ?? b)` opens none.
pub(super) fn opens_a_literal(after: &[u8]) -> bool {
    let mut rest = after;
    while let Some(inner) = rest.trim_ascii_start().strip_prefix(b"(") {
        rest = inner;
    }
    matches!(rest.trim_ascii_start().first(), Some(b'{' | b'<' | b'/'))
}

/// Marks the candidates whose searched text holds one of `binding` (the sorted
/// places of the code's binding spellings, see [`Candidate::binds`]).
pub(super) fn mark_binding(candidates: &mut [Candidate], binding: &[usize]) {
    for c in candidates {
        let first = binding.partition_point(|&at| at < c.search.start);
        c.binds = binding.get(first).is_some_and(|&at| at < c.search.end);
    }
}
