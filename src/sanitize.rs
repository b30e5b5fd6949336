//! Makes text from strangers safe to print on a terminal.
//!
//! Archive paths, server names, tool names and stray server output are not ours:
//! an escape sequence in them must not move the cursor or recolour the screen, and
//! invalid UTF-8 must not garble the line. This module only rewrites text; it never
//! decides where the text goes. Tables written to files keep the raw bytes.

/// How many characters of a stray line an excerpt keeps.
const EXCERPT_CHARS: usize = 200;

/// Returns `text` with invalid UTF-8 replaced and control characters escaped
/// (`\n`, `\u{1b}`), so that it prints on one line and cannot drive the terminal.
/// Bidirectional overrides and isolates (U+202A to U+202E, U+2066 to U+2069), which
/// reorder what a reader sees, are escaped too.
pub fn sanitize(text: impl AsRef<[u8]>) -> String {
    let text = String::from_utf8_lossy(text.as_ref());
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        if is_unsafe(ch) {
            out.extend(ch.escape_default());
        } else {
            out.push(ch);
        }
    }
    out
}

/// Returns true for a character that must not reach a terminal as it is.
fn is_unsafe(ch: char) -> bool {
    ch.is_control() || matches!(ch, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Returns the first [`EXCERPT_CHARS`] characters of `text`, sanitized, with `…`
/// when it was cut.
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
        assert_eq!(sanitize(b"ok\xffname"), "ok\u{fffd}name");
        assert_eq!(sanitize("a\u{202e}b\u{2066}c"), "a\\u{202e}b\\u{2066}c");
        assert_eq!(sanitize("\u{9b}2J"), "\\u{9b}2J");
    }

    #[test]
    fn long_text_is_cut() {
        let long = "x".repeat(300);
        assert_eq!(excerpt(&long).chars().count(), EXCERPT_CHARS + 1);
        assert_eq!(excerpt("short"), "short");
    }
}
