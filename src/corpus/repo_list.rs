//! Reads a plain list of repositories, one a line, for `corpus list`.
//!
//! The syntax: `REPOSITORY [ref=REF] [subfolder=PATH] [name=NAME]`, where
//! REPOSITORY is `owner/name` (on GitHub) or a repository URL, REF is a tag, a
//! branch, a full ref or a 40-digit commit id, and a `#` at the start of a word
//! begins a comment. This module checks the syntax and names `file:line` in each
//! error; whether a repository or subfolder is usable is decided later, per entry.

use crate::corpus::pin::{self, Want};
use crate::infra::error::UsageError;

/// Holds one line of a list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListEntry {
    /// 1-based.
    pub line: usize,
    /// The repository as written.
    pub repository: String,
    pub want: Want,
    pub subfolder: Option<String>,
    pub name: Option<String>,
}

/// Parses list `text`; `file` is how errors name it.
pub fn parse(file: &str, text: &str) -> Result<Vec<ListEntry>, UsageError> {
    let mut entries = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        let err = |what: String| UsageError(format!("{file}:{number}: {what}"));
        let words: Vec<&str> = line
            .split_whitespace()
            .take_while(|w| !w.starts_with('#'))
            .collect();
        let Some((repository, options)) = words.split_first() else {
            continue;
        };
        if repository.contains('=') && !repository.contains('/') {
            return Err(err(format!(
                "'{}' comes before the repository; a line starts with owner/name or a URL",
                crate::infra::sanitize::excerpt(repository)
            )));
        }
        let mut entry = ListEntry {
            line: number,
            repository: repository.to_string(),
            want: Want::Version(None, Vec::new()),
            subfolder: None,
            name: None,
        };
        let mut seen: Vec<&str> = Vec::new();
        // A line whose first word is no repository and whose other words are no
        // options is not a list line at all: say so, rather than blame a word.
        let is_repository = repository.contains('/') || repository.contains(':');
        if !is_repository && options.iter().any(|o| !o.contains('=')) {
            return Err(err(format!(
                "'{}' is not a list line: it starts with owner/name or a repository URL, \
                 then optional ref=, subfolder= and name=",
                crate::infra::sanitize::excerpt(&words.join(" "))
            )));
        }
        for option in options {
            let Some((key, value)) = option.split_once('=') else {
                return Err(err(format!(
                    "'{}' is not KEY=VALUE (keys: ref, subfolder, name)",
                    crate::infra::sanitize::excerpt(option)
                )));
            };
            if seen.contains(&key) {
                return Err(err(format!("the key '{key}' is given twice")));
            }
            seen.push(key);
            if value.is_empty() {
                return Err(err(format!("the key '{key}' has an empty value")));
            }
            match key {
                "ref" if pin::is_commit_id(value) => entry.want = Want::Commit(value.to_string()),
                "ref" if pin::is_ref_name(value) => entry.want = Want::Ref(value.to_string()),
                "ref" => {
                    return Err(err(format!(
                        "ref '{}' is neither a 40-digit commit id nor a tag or branch name",
                        crate::infra::sanitize::excerpt(value)
                    )))
                }
                "subfolder" => entry.subfolder = Some(value.to_string()),
                "name" => entry.name = Some(value.to_string()),
                _ => {
                    return Err(err(format!(
                        "unknown key '{}' (keys: ref, subfolder, name)",
                        crate::infra::sanitize::excerpt(key)
                    )))
                }
            }
        }
        entries.push(entry);
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_give_entries() {
        let c = "1111111111111111111111111111111111111111";
        let text = format!(
            "# a comment\n\n  acme/tools   # trailing\nhttps://gitlab.com/g/p ref=v1.2.0 subfolder=src/x name=io.x/p\n\
             https://github.com/a/b#readme ref={c}\nc/d ref=release/2.x\n"
        );
        let e = parse("l.txt", &text).unwrap();
        assert_eq!(e.len(), 4);
        assert_eq!((e[0].line, e[0].repository.as_str()), (3, "acme/tools"));
        assert_eq!(e[0].want, Want::Version(None, Vec::new()));
        assert_eq!(e[1].want, Want::Ref("v1.2.0".into()));
        assert_eq!(e[1].subfolder.as_deref(), Some("src/x"));
        assert_eq!(e[1].name.as_deref(), Some("io.x/p"));
        assert_eq!(e[2].repository, "https://github.com/a/b#readme");
        assert_eq!(e[2].want, Want::Commit(c.into()));
        assert_eq!(e[3].want, Want::Ref("release/2.x".into()));
    }

    #[test]
    fn mistakes_name_the_file_and_line() {
        for (text, needle) in [
            ("a/b\na/b rev=x\n", "l.txt:2: unknown key 'rev'"),
            ("a/b ref=1 ref=2\n", "l.txt:1: the key 'ref' is given twice"),
            ("a/b ref=\n", "l.txt:1: the key 'ref' has an empty value"),
            ("a/b main\n", "l.txt:1: 'main' is not KEY=VALUE"),
            (
                "not a repo line!!\n",
                "l.txt:1: 'not a repo line!!' is not a list line: it starts with owner/name",
            ),
            ("a/b ref=1.*\n", "l.txt:1: ref '1.*' is neither"),
            (
                "ref=x a/b\n",
                "l.txt:1: 'ref=x' comes before the repository",
            ),
        ] {
            let e = parse("l.txt", text).unwrap_err().to_string();
            assert!(e.starts_with(needle), "{text:?}: {e}");
        }
    }
}
