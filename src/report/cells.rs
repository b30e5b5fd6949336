//! Writes one value as the report's tables show it: a count with thousands
//! separators, a commit id cut short, the text of a Markdown cell.
//!
//! The formats of this folder all use these, so they sit at its bottom and import
//! nothing of it.

use crate::table::one_line;

/// Returns `n` with a comma between each group of three digits, as the published
/// table prints counts.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// Returns the short form of a commit id for tables a person reads: its first seven
/// characters (whole characters, whatever the text holds).
pub fn short(commit: &str) -> &str {
    match commit.char_indices().nth(7) {
        Some((end, _)) => &commit[..end],
        None => commit,
    }
}

/// Returns the text of a Markdown table cell: pipes escaped, on one line.
pub fn cell(text: &str) -> String {
    one_line(text).replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_groups_by_three() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1192), "1,192");
        assert_eq!(thousands(3_594_000), "3,594,000");
    }

    #[test]
    fn short_cuts_whole_characters() {
        assert_eq!(short("d73f99e0123"), "d73f99e");
        assert_eq!(short("abc"), "abc");
        assert_eq!(short("abcdeféééé"), "abcdefé");
    }
}
