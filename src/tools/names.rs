//! Classes a tool by its name: `read`, `write`, `destructive` or `unknown`, from the
//! first verb-like word or two of the name, else of its title (docs/method.md, "Name
//! classes"). A name is a hint about a hint: `get_or_create_user` reads as `read`
//! and writes. The class is what the lint suggests and what "What silence costs"
//! counts by; its precision is measured where authors declared, never assumed.
//!
//! The words come from `verbs`, the one table every reader uses. This module only
//! reads text; it never prints.

use super::verbs::{ALSO_NOUNS, DESTRUCTIVE, READ, WRITE};

/// What a tool's name says it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NameClass {
    Read,
    Write,
    Destructive,
    /// No verb of the lists among the name's first two words, or no name.
    Unknown,
}

/// How many words of a name may decide: a leading namespace (`github_create_issue`)
/// is stepped over, a third word is not read.
const WORDS_READ: usize = 2;

/// How many words of a name are read in all: past the first two, only to find the
/// verb a word of [`ALSO_NOUNS`] yields to (`gitlab_deploy_token_list`).
const WORDS_SEEN: usize = 6;

impl NameClass {
    /// Lists the classes in the order tables show them.
    pub const ALL: [NameClass; 4] = [
        NameClass::Read,
        NameClass::Write,
        NameClass::Destructive,
        NameClass::Unknown,
    ];

    /// Returns the word of the `name_class` column.
    pub const fn as_str(self) -> &'static str {
        match self {
            NameClass::Read => "read",
            NameClass::Write => "write",
            NameClass::Destructive => "destructive",
            NameClass::Unknown => "unknown",
        }
    }

    /// Returns the class a `name_class` cell names.
    pub fn parse(cell: &[u8]) -> Option<NameClass> {
        NameClass::ALL
            .into_iter()
            .find(|c| c.as_str().as_bytes() == cell)
    }

    /// Returns the class of a tool named `name`, or, when the name is missing or
    /// empty, titled `title`.
    pub fn of(name: Option<&str>, title: Option<&str>) -> NameClass {
        let text = match name.filter(|n| !n.is_empty()) {
            Some(name) => name,
            None => title.unwrap_or_default(),
        };
        let words: Vec<String> = words(text).take(WORDS_SEEN).collect();
        let first = words
            .iter()
            .take(WORDS_READ)
            .enumerate()
            .find_map(|(at, word)| verb_class(word).map(|class| (at, class)));
        let Some((at, class)) = first else {
            return NameClass::Unknown;
        };
        if !also_noun(&words[at]) {
            return class;
        }
        words[at + 1..]
            .iter()
            .filter(|word| !also_noun(word))
            .find_map(|word| verb_class(word))
            .unwrap_or(class)
    }
}

/// Whether a word names a thing as often as an act ([`ALSO_NOUNS`]).
fn also_noun(word: &str) -> bool {
    ALSO_NOUNS.binary_search(&word).is_ok()
}

/// Returns the class of one lower-case word, when a list holds it.
fn verb_class(word: &str) -> Option<NameClass> {
    [
        (READ, NameClass::Read),
        (WRITE, NameClass::Write),
        (DESTRUCTIVE, NameClass::Destructive),
    ]
    .into_iter()
    .find(|(list, _)| list.binary_search(&word).is_ok())
    .map(|(_, class)| class)
}

/// Returns the words of a name, lower-cased (ASCII only): split at every character
/// that is not an ASCII letter (`_`, `-`, `.`, `/`, spaces, digits, any non-ASCII
/// letter), and inside a word at a change from lower to upper case (`getUser`) or
/// before the last capital of a run (`HTTPRequest`: `http`, `request`). Lazy, so a
/// name of any length costs only the words read.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_ascii_alphabetic())
        .filter(|part| !part.is_empty())
        .flat_map(camel_parts)
}

/// Splits one run of ASCII letters at its camel-case boundaries, lower-cased.
fn camel_parts(part: &str) -> Vec<String> {
    let bytes = part.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..bytes.len() {
        let (prev, here) = (bytes[i - 1], bytes[i]);
        let next_lower = bytes.get(i + 1).is_some_and(u8::is_ascii_lowercase);
        let lower_to_upper = prev.is_ascii_lowercase() && here.is_ascii_uppercase();
        let run_ends = prev.is_ascii_uppercase() && here.is_ascii_uppercase() && next_lower;
        if lower_to_upper || run_ends {
            out.push(part[start..i].to_ascii_lowercase());
            start = i;
        }
        // A long run is cut short: only the first words are ever read.
        if out.len() >= WORDS_SEEN {
            return out;
        }
    }
    out.push(part[start..].to_ascii_lowercase());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_list_is_sorted_lower_case_and_disjoint() {
        let lists = [READ, WRITE, DESTRUCTIVE];
        for list in lists {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "{list:?} sorted");
            assert!(list
                .iter()
                .all(|w| w.bytes().all(|b| b.is_ascii_lowercase())));
        }
        assert!(ALSO_NOUNS.windows(2).all(|w| w[0] < w[1]));
        assert!(
            ALSO_NOUNS.iter().all(|w| verb_class(w).is_some()),
            "in a list"
        );
        for (i, a) in lists.iter().enumerate() {
            for b in &lists[i + 1..] {
                assert!(a.iter().all(|w| !b.contains(w)), "{w:?} twice", w = a);
            }
        }
    }

    #[test]
    fn names_in_every_casing_are_classed_by_their_first_verb_or_two() {
        let cases = [
            ("get_user", NameClass::Read),
            ("list-issues", NameClass::Read),
            ("searchRepositories", NameClass::Read),
            ("files.read", NameClass::Read),
            ("CreateIssue", NameClass::Write),
            ("github_create_issue", NameClass::Write),
            ("HTTPDelete", NameClass::Destructive),
            ("delete", NameClass::Destructive),
            ("mcp__remove_file", NameClass::Destructive),
            ("get_or_create_user", NameClass::Read),
            ("weather", NameClass::Unknown),
            ("a_b_delete", NameClass::Unknown),
            ("Getter", NameClass::Unknown),
            ("", NameClass::Unknown),
            ("получить_данные", NameClass::Unknown),
            ("检索", NameClass::Unknown),
            ("über_delete", NameClass::Destructive),
            ("gitlab_tag_list_protected", NameClass::Read),
            ("gitlab_deploy_token_get_group", NameClass::Read),
            ("gitlab_deploy_key_delete", NameClass::Destructive),
            ("commitList", NameClass::Read),
            ("commit_changes", NameClass::Write),
            ("merge_commit_tag", NameClass::Write),
            ("tag_release", NameClass::Write),
            ("gitlab_commit_refs", NameClass::Write),
            ("label_a_b_c_d_e_list", NameClass::Write),
            ("label_a_b_c_d_list", NameClass::Read),
            ("create_label", NameClass::Write),
        ];
        for (name, class) in cases {
            assert_eq!(NameClass::of(Some(name), None), class, "{name}");
        }
    }

    #[test]
    fn a_missing_or_empty_name_is_classed_by_its_title() {
        assert_eq!(
            NameClass::of(None, Some("Delete a file")),
            NameClass::Destructive
        );
        assert_eq!(NameClass::of(Some(""), Some("List files")), NameClass::Read);
        assert_eq!(
            NameClass::of(Some("weather"), Some("Delete")),
            NameClass::Unknown
        );
        assert_eq!(NameClass::of(None, None), NameClass::Unknown);
    }

    #[test]
    fn a_name_of_ten_thousand_characters_is_classed_at_once() {
        let long = format!("delete{}", "A".repeat(10_000));
        assert_eq!(NameClass::of(Some(&long), None), NameClass::Destructive);
        let long = "x".repeat(10_000);
        assert_eq!(NameClass::of(Some(&long), None), NameClass::Unknown);
        let camel = "aB".repeat(5_000);
        assert_eq!(NameClass::of(Some(&camel), None), NameClass::Unknown);
    }

    #[test]
    fn the_lists_in_the_method_are_the_lists_read() {
        let method = include_str!("../../docs/method.md");
        for (class, list) in [
            ("read", READ),
            ("write", WRITE),
            ("destructive", DESTRUCTIVE),
        ] {
            let start = format!("- `{class}`: ");
            let line = method
                .split("\n- ")
                .map(|item| format!("- {item}"))
                .find(|item| item.starts_with(&start))
                .unwrap_or_else(|| panic!("docs/method.md lists no '{class}' words"));
            let items = line.split(".\n").next().unwrap_or_default();
            let listed: Vec<String> = items
                .split(';')
                .next()
                .unwrap_or_default()
                .split('`')
                .skip(3)
                .step_by(2)
                .map(str::to_string)
                .collect();
            assert_eq!(listed, list, "docs/method.md's '{class}' words");
        }
    }

    #[test]
    fn the_words_that_yield_in_the_method_are_the_words_read() {
        let method = include_str!("../../docs/method.md");
        let (_, after) = method
            .split_once("names a thing as often as an act (")
            .expect("docs/method.md names the words that yield");
        let listed: Vec<&str> = after
            .split(')')
            .next()
            .unwrap_or_default()
            .split(':')
            .next()
            .unwrap_or_default()
            .split('`')
            .skip(1)
            .step_by(2)
            .collect();
        assert_eq!(listed, ALSO_NOUNS);
    }

    #[test]
    fn every_class_reads_back_from_its_cell() {
        for class in NameClass::ALL {
            assert_eq!(NameClass::parse(class.as_str().as_bytes()), Some(class));
        }
        assert_eq!(NameClass::parse(b"Read"), None);
    }
}
