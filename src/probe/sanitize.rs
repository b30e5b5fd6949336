//! Makes text from a server safe and short enough to print on a terminal.
//!
//! Tool names, stderr lines and stray stdout come from strangers: escape sequences in
//! them must not reach the terminal. This module only rewrites text; it decides
//! nothing about where the text goes.

/// How many characters of a stray line an excerpt keeps.
const EXCERPT_CHARS: usize = 200;

/// Returns `text` with control characters escaped (`\n`, `\u{1b}`), so that it prints
/// on one line and cannot drive the terminal.
pub fn sanitize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Returns the first [`EXCERPT_CHARS`] characters of `text`, sanitized, with `…` when cut.
pub fn excerpt(text: &str) -> String {
    let mut cut: String = text.chars().take(EXCERPT_CHARS).collect();
    if cut.len() < text.len() {
        cut.push('…');
    }
    sanitize(&cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(sanitize("a\u{1b}[31mb\nc"), "a\\u{1b}[31mb\\nc");
        assert_eq!(sanitize("plain ü"), "plain ü");
    }

    #[test]
    fn long_text_is_cut() {
        let long = "x".repeat(300);
        assert_eq!(excerpt(&long).chars().count(), EXCERPT_CHARS + 1);
        assert_eq!(excerpt("short"), "short");
    }
}
