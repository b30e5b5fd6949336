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
/// Characters that hide or reorder what a reader sees are escaped too (see
/// [`is_unsafe`]), as fd escapes them.
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

/// Returns true for a character that must not reach a terminal as it is: a control
/// character (C0, DEL, C1), a zero-width space, joiner or direction mark (U+200B to
/// U+200F), the line and paragraph separators (U+2028, U+2029), a bidirectional
/// embedding or override (U+202A to U+202E), the invisible operators, isolates and
/// deprecated format characters (U+2060 to U+206F), the byte order mark (U+FEFF),
/// and the tag characters (U+E0000 to U+E007F), which spell text no one sees.
fn is_unsafe(ch: char) -> bool {
    ch.is_control()
        || matches!(
            ch,
            '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{2029}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2060}'..='\u{206f}'
                | '\u{feff}'
                | '\u{e0000}'..='\u{e007f}'
        )
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
    fn invisible_and_reordering_characters_are_escaped() {
        let cases = [
            ('\u{200b}', "\\u{200b}"),
            ('\u{200d}', "\\u{200d}"),
            ('\u{200f}', "\\u{200f}"),
            ('\u{2028}', "\\u{2028}"),
            ('\u{2029}', "\\u{2029}"),
            ('\u{2060}', "\\u{2060}"),
            ('\u{2064}', "\\u{2064}"),
            ('\u{206f}', "\\u{206f}"),
            ('\u{feff}', "\\u{feff}"),
            ('\u{e0000}', "\\u{e0000}"),
            ('\u{e0041}', "\\u{e0041}"),
            ('\u{e007f}', "\\u{e007f}"),
        ];
        for (ch, escaped) in cases {
            assert_eq!(
                sanitize(format!("a{ch}b")),
                format!("a{escaped}b"),
                "{ch:?}"
            );
        }
        // Their neighbours are ordinary text and pass as they are.
        for ch in [
            '\u{200a}',
            '\u{2010}',
            '\u{2027}',
            '\u{2070}',
            '\u{fefe}',
            '\u{e0080}',
        ] {
            assert_eq!(sanitize(format!("a{ch}b")), format!("a{ch}b"), "{ch:?}");
        }
    }

    /// Checks every code point against a list written out from the ranges, so that
    /// a range typed wrong in `is_unsafe` shows.
    #[test]
    fn the_escaped_set_is_exactly_the_listed_ranges() {
        let ranges: [(u32, u32); 8] = [
            (0x00, 0x1f),
            (0x7f, 0x9f),
            (0x200b, 0x200f),
            (0x2028, 0x2029),
            (0x202a, 0x202e),
            (0x2060, 0x206f),
            (0xfeff, 0xfeff),
            (0xe0000, 0xe007f),
        ];
        for ch in (0..=0x10ffffu32).filter_map(char::from_u32) {
            let listed = ranges
                .iter()
                .any(|&(lo, hi)| (lo..=hi).contains(&(ch as u32)));
            assert_eq!(is_unsafe(ch), listed, "U+{:04X}", ch as u32);
        }
    }

    #[test]
    fn long_text_is_cut() {
        let long = "x".repeat(300);
        assert_eq!(excerpt(&long).chars().count(), EXCERPT_CHARS + 1);
        assert_eq!(excerpt("short"), "short");
    }
}
