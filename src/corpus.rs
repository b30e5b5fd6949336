//! Reads and validates `corpus.toml`: the trees to count, where their archives are,
//! and the terms to count in them.
//!
//! Configuration is data: adding a tree or a term is an edit to the TOML file, never
//! to Rust. This module checks everything before anything is downloaded, and names
//! the file, the line and the key of each mistake. It does not fetch or count.

use std::path::Path;

use anyhow::Result;
use serde::Deserialize;
use toml::Spanned;

use crate::UsageError;

/// The four ToolAnnotations hint fields, the default terms.
pub const DEFAULT_TERMS: [&str; 4] = [
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

/// The default control term: counted like the terms, it shows the files were read.
pub const DEFAULT_CONTROLS: [&str; 1] = ["annotations"];

/// GitHub's tarball endpoint, the default archive location.
pub const DEFAULT_ARCHIVE_URL: &str = "https://codeload.github.com/{repo}/tar.gz/{commit}";

/// The corpus of the published census, built in so that the binary runs anywhere.
pub const PUBLISHED: &str = include_str!("../corpus.toml");

/// Holds a validated corpus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Corpus {
    pub terms: Vec<String>,
    pub controls: Vec<String>,
    pub trees: Vec<Tree>,
}

/// Holds one repository at a pinned commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tree {
    /// `owner/name`.
    pub repo: String,
    /// 4 to 40 hex digits, as written.
    pub commit: String,
    pub note: Option<String>,
    /// The archive's URL, its template filled in.
    pub archive_url: String,
}

impl Tree {
    /// Returns the repository's owner.
    pub fn owner(&self) -> &str {
        self.repo.split_once('/').map_or("", |(owner, _)| owner)
    }

    /// Returns the repository's name.
    pub fn name(&self) -> &str {
        self.repo.split_once('/').map_or("", |(_, name)| name)
    }

    /// Returns `owner/name@commit`, how errors name the tree.
    pub fn label(&self) -> String {
        format!("{}@{}", self.repo, self.commit)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCorpus {
    census: Option<RawCensus>,
    #[serde(default, rename = "tree")]
    trees: Vec<Spanned<RawTree>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCensus {
    archive_url: Option<Spanned<String>>,
    terms: Option<Vec<Spanned<String>>>,
    controls: Option<Vec<Spanned<String>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTree {
    repo: Spanned<String>,
    commit: Spanned<String>,
    note: Option<String>,
    archive_url: Option<Spanned<String>>,
}

/// Reads the corpus at `path`, or the built-in published corpus when `path` is
/// `None` and there is no `corpus.toml` in the current folder.
pub fn load(path: Option<&Path>) -> Result<Corpus> {
    let (name, text) = match path {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| UsageError(format!("reading corpus '{}': {e}", path.display())))?;
            (path.display().to_string(), text)
        }
        None if Path::new("corpus.toml").is_file() => {
            let text = std::fs::read_to_string("corpus.toml")
                .map_err(|e| UsageError(format!("reading corpus 'corpus.toml': {e}")))?;
            ("corpus.toml".to_string(), text)
        }
        None => ("<built-in corpus>".to_string(), PUBLISHED.to_string()),
    };
    Ok(parse(&name, &text)?)
}

/// Parses and validates corpus `text`; `name` is how errors name the file.
pub fn parse(name: &str, text: &str) -> std::result::Result<Corpus, UsageError> {
    let at = |span: std::ops::Range<usize>, what: String| {
        UsageError(format!("{name}:{}: {what}", line_of(text, span.start)))
    };
    let raw: RawCorpus = toml::from_str(text).map_err(|e| match e.span() {
        Some(span) => at(span, e.message().trim().to_string()),
        None => UsageError(format!("{name}: {}", e.message().trim())),
    })?;
    let census = raw.census.unwrap_or(RawCensus {
        archive_url: None,
        terms: None,
        controls: None,
    });
    let default_url = match &census.archive_url {
        Some(url) => {
            check_template(url.get_ref())
                .map_err(|why| at(url.span(), format!("key 'census.archive_url': {why}")))?;
            url.get_ref().clone()
        }
        None => DEFAULT_ARCHIVE_URL.to_string(),
    };
    let terms = term_list(census.terms, &DEFAULT_TERMS);
    let controls = term_list(census.controls, &DEFAULT_CONTROLS);
    let mut seen: Vec<(String, &'static str)> = Vec::new();
    for (key, list) in [("census.terms", &terms), ("census.controls", &controls)] {
        for term in list {
            if term.get_ref().is_empty() {
                return Err(at(term.span(), format!("key '{key}': a term is empty")));
            }
            let folded = term.get_ref().to_ascii_lowercase();
            if let Some((_, first)) = seen.iter().find(|(f, _)| *f == folded) {
                return Err(at(
                    term.span(),
                    format!(
                        "key '{key}': '{}' is already in '{first}' (terms compare ASCII case-insensitively)",
                        term.get_ref()
                    ),
                ));
            }
            seen.push((folded, key));
        }
    }
    if terms.is_empty() {
        return Err(UsageError(format!(
            "{name}: key 'census.terms': the list is empty"
        )));
    }

    let mut trees: Vec<Tree> = Vec::with_capacity(raw.trees.len());
    for (i, raw_tree) in raw.trees.iter().enumerate() {
        let whole = raw_tree.span();
        let raw_tree = raw_tree.get_ref();
        let number = i + 1;
        let repo = raw_tree.repo.get_ref();
        if !is_repo(repo) {
            return Err(at(
                raw_tree.repo.span(),
                format!("tree {number}: key 'repo': '{repo}' is not of the form 'owner/name'"),
            ));
        }
        let commit = raw_tree.commit.get_ref();
        if !(4..=40).contains(&commit.len()) || !commit.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(at(
                raw_tree.commit.span(),
                format!(
                    "tree {number} ('{repo}'): key 'commit': '{commit}' is not 4 to 40 hex digits"
                ),
            ));
        }
        if let Some(first) = trees.iter().position(|t| {
            t.repo.eq_ignore_ascii_case(repo) && t.commit.eq_ignore_ascii_case(commit)
        }) {
            return Err(at(
                whole,
                format!(
                    "tree {number}: '{repo}@{commit}' is already tree {}",
                    first + 1
                ),
            ));
        }
        let template = match &raw_tree.archive_url {
            Some(url) => {
                check_template(url.get_ref()).map_err(|why| {
                    at(
                        url.span(),
                        format!("tree {number} ('{repo}'): key 'archive_url': {why}"),
                    )
                })?;
                url.get_ref().as_str()
            }
            None => default_url.as_str(),
        };
        let (owner, short) = repo.split_once('/').unwrap_or((repo, ""));
        let archive_url = template
            .replace("{repo}", repo)
            .replace("{owner}", owner)
            .replace("{name}", short)
            .replace("{commit}", commit);
        trees.push(Tree {
            repo: repo.clone(),
            commit: commit.clone(),
            note: raw_tree.note.clone(),
            archive_url,
        });
    }
    if trees.is_empty() {
        return Err(UsageError(format!("{name}: the corpus has no [[tree]]")));
    }
    Ok(Corpus {
        terms: terms.into_iter().map(Spanned::into_inner).collect(),
        controls: controls.into_iter().map(Spanned::into_inner).collect(),
        trees,
    })
}

fn term_list(given: Option<Vec<Spanned<String>>>, default: &[&str]) -> Vec<Spanned<String>> {
    given.unwrap_or_else(|| {
        default
            .iter()
            .map(|t| Spanned::new(0..0, t.to_string()))
            .collect()
    })
}

/// Returns true for `owner/name` made of the characters GitHub allows.
fn is_repo(repo: &str) -> bool {
    let ok = |part: &str| {
        !part.is_empty()
            && part != "."
            && part != ".."
            && part
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
    };
    matches!(repo.split_once('/'), Some((owner, name)) if ok(owner) && ok(name))
}

/// Checks an archive URL template: http(s), and no placeholder but the four known.
fn check_template(url: &str) -> std::result::Result<(), String> {
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(format!("'{url}' is not an http:// or https:// URL"));
    }
    let mut rest = url;
    while let Some(open) = rest.find('{') {
        let close = rest[open..]
            .find('}')
            .ok_or_else(|| format!("'{url}' has a '{{' that is never closed"))?;
        let key = &rest[open + 1..open + close];
        if !["repo", "owner", "name", "commit"].contains(&key) {
            return Err(format!(
                "'{url}' has the unknown placeholder '{{{key}}}' (known: {{repo}}, {{owner}}, {{name}}, {{commit}})"
            ));
        }
        rest = &rest[open + close + 1..];
    }
    Ok(())
}

/// Returns the 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..offset.min(text.len())]).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse("c.toml", text).unwrap_err().to_string()
    }

    #[test]
    fn the_published_corpus_is_valid() {
        let corpus = parse("corpus.toml", PUBLISHED).unwrap();
        assert_eq!(corpus.terms, DEFAULT_TERMS);
        assert_eq!(corpus.controls, DEFAULT_CONTROLS);
        assert_eq!(corpus.trees.len(), 8);
        assert_eq!(corpus.trees[0].repo, "modelcontextprotocol/servers");
        assert_eq!(
            corpus.trees[0].archive_url,
            "https://codeload.github.com/modelcontextprotocol/servers/tar.gz/d73f99e"
        );
    }

    #[test]
    fn templates_are_filled_per_tree() {
        let c = parse(
            "c.toml",
            "[census]\narchive_url = \"http://127.0.0.1:9/{owner}/{name}/{commit}.tgz\"\n\
             [[tree]]\nrepo = \"a/b\"\ncommit = \"abcd\"\n\
             [[tree]]\nrepo = \"c/d\"\ncommit = \"ABCDEF\"\narchive_url = \"http://m/{repo}\"\n",
        )
        .unwrap();
        assert_eq!(c.trees[0].archive_url, "http://127.0.0.1:9/a/b/abcd.tgz");
        assert_eq!(c.trees[1].archive_url, "http://m/c/d");
    }

    #[test]
    fn mistakes_name_the_line_and_the_key() {
        let e = err("[[tree]]\nrepo = \"a/b\"\ncommit = \"abcd\"\ncomit = \"x\"\n");
        assert!(e.starts_with("c.toml:4:") && e.contains("comit"), "{e}");
        let e = err("[[tree]]\nrepo = \"a/b\"\ncommit = \"xyz1\"\n");
        assert!(
            e.starts_with("c.toml:3:") && e.contains("'commit'") && e.contains("xyz1"),
            "{e}"
        );
        let e = err("[[tree]]\nrepo = \"a/b\"\ncommit = \"abc\"\n");
        assert!(e.contains("4 to 40 hex digits"), "{e}");
        let e = err("[[tree]]\nrepo = \"ab\"\ncommit = \"abcd\"\n");
        assert!(
            e.starts_with("c.toml:2:") && e.contains("owner/name"),
            "{e}"
        );
        let e = err("[[tree]]\nrepo = \"a/b\"\ncommit = \"abcd\"\n[[tree]]\nrepo = \"a/b\"\ncommit = \"ABCD\"\n");
        assert!(
            e.starts_with("c.toml:4:") && e.contains("already tree 1"),
            "{e}"
        );
        let e =
            err("[census]\nterms = [\"x\", \"\"]\n[[tree]]\nrepo = \"a/b\"\ncommit = \"abcd\"\n");
        assert!(e.starts_with("c.toml:2:") && e.contains("empty"), "{e}");
        let e = err("[census]\nterms = [\"ReadOnlyHint\"]\ncontrols = [\"readonlyhint\"]\n[[tree]]\nrepo = \"a/b\"\ncommit = \"abcd\"\n");
        assert!(
            e.starts_with("c.toml:3:") && e.contains("census.controls"),
            "{e}"
        );
        let e = err("[census]\narchive_url = \"https://x/{sha}\"\n[[tree]]\nrepo = \"a/b\"\ncommit = \"abcd\"\n");
        assert!(e.starts_with("c.toml:2:") && e.contains("{sha}"), "{e}");
        let e = err("[census]\n");
        assert!(e.contains("no [[tree]]"), "{e}");
    }
}
