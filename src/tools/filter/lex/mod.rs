//! The lexers the finder reads source with before, or instead of, a parse: for
//! TypeScript, JavaScript, Python, Go, Rust, Java and C#, where the function bodies and blocks are
//! (see `skim`) and which of its text is quiet, comments and strings that cannot
//! hold code (the anchors are searched in the rest), and for TypeScript, whether an
//! object literal has the keys of the tool-shaped form (see `prefilter`). One lexer a
//! family of languages: [`typescript`], [`c_like`] (Go, Rust, Java, C#), [`python`].
//! Strings, comments, template literals, regular expressions and each language's
//! other literals are stepped over, brackets matched; whatever a lexer cannot follow
//! (an unterminated string, a bracket closed by the wrong kind) gives `None`, and the
//! caller reads the file as if there were no lexer.

mod c_like;
mod lexed;
mod python;
mod scan;
mod typescript;

pub(in crate::tools) use lexed::{Candidate, Forms, Lexed, SEARCH_FACTOR};
pub(in crate::tools) use scan::angle_close;
#[cfg(test)]
pub(in crate::tools) use typescript::typescript_forms;

use super::lang::Lang;
use c_like::{c_like_bodies, Dialect};
use python::python_bodies;
use typescript::typescript_lex;

/// Reads a file of `lang` (see [`Lexed`]); `None` when the language has no lexer or
/// the lexer cannot follow the file.
pub(in crate::tools) fn lex(lang: Lang, bytes: &[u8]) -> Option<Lexed> {
    match lang {
        Lang::TypeScript | Lang::Tsx => typescript_lex(bytes, lang == Lang::Tsx, true),
        // JavaScript may hold JSX (`.jsx`, and `.js` in many React trees); where
        // the JSX reader cannot follow a file (minified code), it is read as plain
        // JavaScript, where no `<` opens an element.
        Lang::JavaScript => {
            typescript_lex(bytes, true, false).or_else(|| typescript_lex(bytes, false, false))
        }
        Lang::Python => python_bodies(bytes),
        Lang::Go => c_like_bodies(bytes, Dialect::Go),
        Lang::Rust => c_like_bodies(bytes, Dialect::Rust),
        Lang::Java => c_like_bodies(bytes, Dialect::Java),
        Lang::CSharp => c_like_bodies(bytes, Dialect::CSharp),
        _ => None,
    }
}
