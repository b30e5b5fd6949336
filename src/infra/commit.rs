//! A commit id as a corpus pins a tree: checked once, where the corpus is read.
//!
//! It holds the id as written (any case, 4 to 40 hex digits, as git and the archive
//! host accept an abbreviation); it does not resolve an abbreviation or ask whether
//! the commit exists.

use std::fmt;

/// Holds a commit id of 4 to 40 hex digits, as written.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Commit(String);

impl Commit {
    /// Returns `text` as a commit id when it is 4 to 40 hex digits (any case).
    pub fn parse(text: &str) -> Option<Commit> {
        let is_hex = text.bytes().all(|b| b.is_ascii_hexdigit());
        ((4..=40).contains(&text.len()) && is_hex).then(|| Commit(text.to_string()))
    }

    /// Returns the id as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Returns the id in lower case: how the archive host compares ids, and how a
    /// full id from an archive is checked to start with it.
    pub fn folded(&self) -> String {
        self.0.to_ascii_lowercase()
    }
}

impl fmt::Display for Commit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_commit_is_4_to_40_hex_digits_of_any_case() {
        assert_eq!(Commit::parse("aBc1").unwrap().folded(), "abc1");
        assert_eq!(Commit::parse(&"f".repeat(40)).unwrap().as_str().len(), 40);
        for bad in ["abc", "", "abcg", &"f".repeat(41), "ab cd"] {
            assert_eq!(Commit::parse(bad), None, "{bad:?}");
        }
    }
}
