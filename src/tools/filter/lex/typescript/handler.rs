//! A function that is a handler key's value (`handler: async (args) => {`), as
//! TypeScript's lexer tells it: the recogniser never reads one as a factory
//! (`values::object`), so its body may be left out of the parse.

use super::super::scan::is_ident;

/// Where the tokens after the parameters of a function that is a handler key's
/// value are (see [`super::TypeScriptLexer::handler_colon`]): a body opening right after
/// them, after their return type or after the arrow is the handler's, which the
/// recogniser never reads as a factory (`values::object`).
#[derive(Clone, Copy, PartialEq)]
pub(super) enum After {
    None,
    /// Right after the `)`, at this depth of brackets.
    Params(usize),
    /// In the return type after its `:`, until a `,`, `;` or closing bracket at
    /// that depth.
    ReturnType(usize),
    /// Right after the `=>`.
    Arrow,
}

impl After {
    /// The state after a token starting with `b` (`then` the byte after it) is
    /// read, `depth` brackets open before it.
    pub(super) fn next(self, b: u8, then: Option<&u8>, depth: usize) -> After {
        let arrow = b == b'=' && then == Some(&b'>');
        match self {
            After::Params(at) if b == b':' => After::ReturnType(at),
            After::Params(_) | After::ReturnType(_) if arrow => After::Arrow,
            // The `{` of a body, which `open` reads.
            After::Params(_) | After::Arrow if b == b'{' => self,
            After::ReturnType(at)
                if depth == at && matches!(b, b',' | b';' | b')' | b']' | b'}') =>
            {
                After::None
            }
            After::ReturnType(at) if depth < at => After::None,
            After::ReturnType(_) => self,
            _ => After::None,
        }
    }
}

/// Returns true when `between`, the text from a handler key's `:` to a `(`, makes
/// that `(` open the parameters of a function that is the key's whole value:
/// nothing but `async`, `function` and the function's name stand there
/// (`handler: async (args) => {`, `execute: function run(args) {`).
pub(super) fn handler_function(between: &[u8]) -> bool {
    let mut words = between
        .split(u8::is_ascii_whitespace)
        .filter(|w| !w.is_empty());
    let mut next = words.next();
    if next == Some(b"async") {
        next = words.next();
    }
    match next {
        None => true,
        Some(b"function") => {
            words
                .next()
                .is_none_or(|name| name.iter().all(|&b| is_ident(b)))
                && words.next().is_none()
        }
        Some(_) => false,
    }
}
