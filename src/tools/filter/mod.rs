//! The filter: what the finder reads of a file's bytes before, or instead of, a
//! parse. Its anchors ([`prefilter`]) say whether a file may hold a registration
//! and which modules its text may name, its lexers ([`lex`], one a family of
//! languages) where the bodies and the quiet text are, and [`skim`] which bodies the
//! parse may leave out (docs/method.md, "Tools": "What is parsed"). Each answer
//! over-approximates what the recognisers read in a syntax tree, so filtering never
//! changes the answer.
//!
//! It reads the languages, the one table of tool-shaped keys, the hints and the
//! module paths below it, named here for its files; it never parses and never
//! imports a recogniser.

pub(super) mod lex;
pub(super) mod prefilter;
pub(super) mod skim;

use super::{hints, keys, lang, packages, value};
