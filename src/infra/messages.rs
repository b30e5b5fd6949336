//! Every line this program writes on stderr, all under one prefix: the error that
//! ends a command, a tree's failure, warnings, hints, what was written, and the plain
//! progress lines of a log.
//!
//! Results go to stdout (see `out`), never through here, and nothing here writes to
//! stdout: a script that reads the results never reads an error as a result, and a
//! person who sends stdout to a file still sees why something failed. Each line is
//! written whole under the stderr lock, so parallel workers do not interleave. A
//! failed write to stderr is ignored: there is nowhere left to say it. The callers
//! escape text from outside (`sanitize`) before handing it here.

use std::fmt::Display;
use std::io::{self, Write};

/// The prefix of every line on stderr: the program's name.
pub const PREFIX: &str = "mcp-hint-census";

/// What a line on stderr is; it decides the word after the prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// What happened: a count started, a file written, progress, a tree's failure.
    Note,
    /// Something the user may want to look at; the command goes on.
    Warning,
    /// What the user can do about the line before it.
    Hint,
}

/// Returns one line as it is written on stderr, without its newline.
fn line(kind: Kind, text: &str) -> String {
    match kind {
        Kind::Note => format!("{PREFIX}: {text}"),
        Kind::Warning => format!("{PREFIX}: warning: {text}"),
        Kind::Hint => format!("{PREFIX}: hint: {text}"),
    }
}

fn emit(kind: Kind, text: &str) {
    let mut text = line(kind, text);
    text.push('\n');
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

/// Writes the error that ends the command: its chain of contexts joined by `: `.
pub fn error(err: &anyhow::Error) {
    emit(Kind::Note, &format!("{err:#}"));
}

/// Writes why the tree, path or server named `name` failed; the others went on.
/// `name` and `why` must already be escaped and on one line.
pub fn failure(name: &str, why: &str) {
    emit(Kind::Note, &format!("'{name}': {why}"));
}

/// Writes what happened (a count started, a file written, a summary, progress).
pub fn note(text: impl Display) {
    emit(Kind::Note, &text.to_string());
}

/// Writes a warning: something worth a look that did not stop the command.
pub fn warning(text: impl Display) {
    emit(Kind::Warning, &text.to_string());
}

/// Writes a hint: what the user can do about what was just said.
pub fn hint(text: impl Display) {
    emit(Kind::Hint, &text.to_string());
}

/// Returns `n` and the noun, singular for exactly one: `1 tree`, `0 trees`. The
/// number is written as `Display` writes it (no thousands separator).
pub fn count<N: Copy + Display + PartialEq + From<u8>>(n: N, one: &str, many: &str) -> String {
    format!("{n} {}", noun(n, one, many))
}

/// Returns the form of a word that agrees with `n`: `one` for exactly one, else
/// `many` (`1 file`, `12 files`; `1 tool breaks`, `2 break`). The one pluraliser of
/// every message, so that no message spells the rule its own way.
pub fn noun<'a, N: PartialEq + From<u8>>(n: N, one: &'a str, many: &'a str) -> &'a str {
    if n == N::from(1) {
        one
    } else {
        many
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_starts_with_the_prefix() {
        assert_eq!(line(Kind::Note, "wrote x"), "mcp-hint-census: wrote x");
        assert_eq!(line(Kind::Warning, "odd"), "mcp-hint-census: warning: odd");
        assert_eq!(line(Kind::Hint, "try -q"), "mcp-hint-census: hint: try -q");
    }

    #[test]
    fn one_is_singular() {
        assert_eq!(count(1u64, "entry", "entries"), "1 entry");
        assert_eq!(count(0u64, "entry", "entries"), "0 entries");
        assert_eq!(count(2u32, "tree", "trees"), "2 trees");
        assert_eq!(count(1usize, "line", "lines"), "1 line");
        assert_eq!(count(1234usize, "line", "lines"), "1234 lines");
        assert_eq!(noun(1u64, "breaks", "break"), "breaks");
        assert_eq!(noun(0usize, "breaks", "break"), "break");
    }
}
