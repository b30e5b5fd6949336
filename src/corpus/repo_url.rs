//! Turns a repository URL as people write it into a forge, an `owner/name` and the
//! URLs a corpus needs: where `git ls-remote` asks and where the archive is.
//!
//! This module owns URL normalisation (scheme, `git+`, `www.`, the host's case, a
//! `.git` suffix, a trailing slash, a query or fragment, credentials) and the list
//! of forges whose archive URL is known. It runs no command and opens no
//! connection.

use std::fmt;

use crate::corpus::file::is_repo_part;

/// A forge whose archive URL scheme is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Forge {
    GitHub,
    GitLab,
    Codeberg,
    Bitbucket,
}

impl Forge {
    /// Returns the forge's host name.
    pub fn host(self) -> &'static str {
        match self {
            Forge::GitHub => "github.com",
            Forge::GitLab => "gitlab.com",
            Forge::Codeberg => "codeberg.org",
            Forge::Bitbucket => "bitbucket.org",
        }
    }

    /// Returns the per-tree `archive_url` template, or `None` for GitHub, whose
    /// archives are at the corpus's default `archive_url`.
    pub fn archive_template(self) -> Option<&'static str> {
        match self {
            Forge::GitHub => None,
            Forge::GitLab => {
                Some("https://gitlab.com/{owner}/{name}/-/archive/{commit}/{name}-{commit}.tar.gz")
            }
            // Codeberg runs Forgejo, which serves Gitea's archive route.
            Forge::Codeberg => Some("https://codeberg.org/{owner}/{name}/archive/{commit}.tar.gz"),
            Forge::Bitbucket => Some("https://bitbucket.org/{owner}/{name}/get/{commit}.tar.gz"),
        }
    }

    fn from_host(host: &str) -> Option<Forge> {
        [
            Forge::GitHub,
            Forge::GitLab,
            Forge::Codeberg,
            Forge::Bitbucket,
        ]
        .into_iter()
        .find(|f| f.host() == host)
    }
}

/// Holds a repository on a known forge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepoUrl {
    pub forge: Forge,
    /// `owner/name` as written, without `.git`.
    pub repo: String,
}

impl RepoUrl {
    /// Returns the key two spellings of one repository share: forges compare
    /// owner and name ASCII case-insensitively.
    pub fn key(&self) -> (Forge, String) {
        (self.forge, self.repo.to_ascii_lowercase())
    }

    /// Returns the URL `git ls-remote` is given: `https://HOST/owner/name`, which a
    /// user's `url.<base>.insteadOf` may rewrite to a mirror.
    pub fn remote_url(&self) -> String {
        format!("https://{}/{}", self.forge.host(), self.repo)
    }
}

/// Why a URL gives no repository on a known forge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UrlProblem {
    /// Not a URL of a repository at all.
    NotRepository(String),
    /// A repository on a host whose archive URL is not known.
    UnknownHost(String),
}

impl fmt::Display for UrlProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UrlProblem::NotRepository(why) => write!(f, "not a repository URL: {why}"),
            UrlProblem::UnknownHost(host) => {
                write!(f, "host '{host}' has no known archive URL")
            }
        }
    }
}

/// Parses a repository URL or a bare `owner/name` (taken to be on GitHub).
///
/// Accepts `https://`, `http://` (read as https), `git+https://`, `git://`,
/// `ssh://git@host/` and `git@host:owner/name`; drops `www.`, a `.git` suffix,
/// trailing slashes, a query, a fragment and any user or password. A path
/// below the repository (`/tree/main/src`) is refused rather than guessed at: its
/// branch and folder cannot be told apart when a branch name has a slash.
pub fn parse(text: &str) -> Result<RepoUrl, UrlProblem> {
    let not = |why: &str| Err(UrlProblem::NotRepository(why.to_string()));
    let text = text.trim();
    if text.is_empty() {
        return not("the URL is empty");
    }
    if text.starts_with('-') {
        return not("it starts with '-'");
    }
    if text.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return not("it contains white space or a control character");
    }
    let text = text.strip_prefix("git+").unwrap_or(text);
    let (authority, path) = if let Some((scheme, rest)) = text.split_once("://") {
        if !["https", "http", "git", "ssh"].contains(&scheme.to_ascii_lowercase().as_str()) {
            return not(&format!(
                "the scheme '{scheme}' is not https, http, git or ssh"
            ));
        }
        rest.split_once('/').unwrap_or((rest, ""))
    } else if let Some((authority, path)) = scp_like(text) {
        (authority, path)
    } else {
        // A bare owner/name, or HOST/owner/name without a scheme.
        match text.split_once('/') {
            Some((first, rest)) if is_forge_host(first) => (first, rest),
            _ => ("github.com", text),
        }
    };
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = host.to_ascii_lowercase();
    let host = host
        .strip_suffix(":443")
        .or_else(|| host.strip_suffix(":22"))
        .unwrap_or(&host);
    let host = host.strip_prefix("www.").unwrap_or(host);
    let host = host.strip_suffix('.').unwrap_or(host);
    if host.is_empty() || host.contains(':') {
        return not(&format!("the host '{host}' is not a plain host name"));
    }
    let path = path.split(['?', '#']).next().unwrap_or("");
    let path = path.trim_end_matches('/');
    let path = path.strip_suffix(".git").unwrap_or(path);
    let mut segments: Vec<&str> = path.split('/').collect();
    let Some(forge) = Forge::from_host(host) else {
        return Err(UrlProblem::UnknownHost(host.to_string()));
    };
    if forge == Forge::GitLab {
        // GitLab puts its own pages after '/-/'; the project path comes before.
        if let Some(i) = segments.iter().position(|s| *s == "-") {
            if i + 1 < segments.len() {
                return not("it points inside the repository (after '/-/'); give repository.subfolder instead");
            }
            segments.truncate(i);
        }
        if segments.len() > 2 {
            return not(&format!(
                "'{}' is in a nested GitLab group; a corpus repo is owner/name",
                segments.join("/")
            ));
        }
    }
    match segments.as_slice() {
        [owner, name] if is_repo_part(owner) && is_repo_part(name) => Ok(RepoUrl {
            forge,
            repo: format!("{owner}/{name}"),
        }),
        [_, _] => not("the owner or name has characters a repository name cannot have"),
        [_, _, ..] => not("it points inside the repository; give repository.subfolder instead"),
        _ => not("the path is not owner/name"),
    }
}

/// Returns true when `text` names a known forge, with or without `www.`.
fn is_forge_host(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    Forge::from_host(lower.strip_prefix("www.").unwrap_or(&lower)).is_some()
}

/// Splits `git@host:owner/name` into its authority and path.
fn scp_like(text: &str) -> Option<(&str, &str)> {
    let (authority, path) = text.split_once(':')?;
    let (_, host) = authority.split_once('@')?;
    (!host.is_empty() && !host.contains('/')).then_some((authority, path))
}

/// Returns `url` with any `user:password@` replaced by `***@`, for writing
/// a URL from a stranger into a file or a message.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let end = rest.find('/').unwrap_or(rest.len());
    match rest[..end].rfind('@') {
        Some(at) => format!("{scheme}://***{}", &rest[at..]),
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> (Forge, String) {
        let r = parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        (r.forge, r.repo)
    }

    #[test]
    fn spellings_of_one_repository_agree() {
        for text in [
            "acme/tools",
            "https://github.com/acme/tools",
            "https://github.com/acme/tools/",
            "https://github.com/acme/tools.git",
            "https://github.com/acme/tools.git/",
            "http://github.com/acme/tools",
            "https://www.github.com/acme/tools",
            "https://GitHub.COM/acme/tools",
            "git+https://github.com/acme/tools.git",
            "git://github.com/acme/tools.git",
            "ssh://git@github.com/acme/tools.git",
            "git@github.com:acme/tools.git",
            "https://github.com/acme/tools#readme",
            "https://github.com/acme/tools?tab=readme",
            "https://user:secret@github.com/acme/tools",
            "https://github.com:443/acme/tools",
            "github.com/acme/tools",
            "www.GitHub.com/acme/tools/",
        ] {
            assert_eq!(ok(text), (Forge::GitHub, "acme/tools".into()), "{text}");
        }
        assert_eq!(
            parse("https://github.com/Acme/Tools").unwrap().key(),
            parse("acme/tools").unwrap().key()
        );
    }

    #[test]
    fn other_forges_and_their_archives() {
        let r = parse("https://gitlab.com/group/proj.git").unwrap();
        assert_eq!((r.forge, r.repo.as_str()), (Forge::GitLab, "group/proj"));
        assert_eq!(r.remote_url(), "https://gitlab.com/group/proj");
        assert_eq!(
            ok("https://gitlab.com/group/proj/-/"),
            (Forge::GitLab, "group/proj".into())
        );
        let e = parse("https://gitlab.com/group/proj/-/tree/main").unwrap_err();
        assert!(e.to_string().contains("inside the repository"), "{e}");
        let e = parse("https://gitlab.com/a/b/c").unwrap_err().to_string();
        assert!(
            e.contains("nested GitLab group") && e.contains("a/b/c"),
            "{e}"
        );
        assert_eq!(
            ok("https://codeberg.org/o/n"),
            (Forge::Codeberg, "o/n".into())
        );
        assert_eq!(
            ok("https://bitbucket.org/o/n"),
            (Forge::Bitbucket, "o/n".into())
        );
        assert_eq!(
            parse("https://git.example.org/o/n").unwrap_err(),
            UrlProblem::UnknownHost("git.example.org".into())
        );
        assert_eq!(Forge::GitHub.archive_template(), None);
    }

    #[test]
    fn urls_that_are_not_repositories_are_refused() {
        for text in [
            "",
            "-oProxyCommand=x",
            "https://github.com/acme",
            "https://github.com/",
            "https://github.com/acme/tools/tree/main/src",
            "https://github.com/acme/to ols",
            "https://github.com/acme/to%6fls",
            "ftp://github.com/acme/tools",
            "https://github.com/../tools",
            "https://github.com:8080/acme/tools",
            "file:///etc/passwd",
        ] {
            assert!(
                matches!(parse(text), Err(UrlProblem::NotRepository(_))),
                "{text}: {:?}",
                parse(text)
            );
        }
    }

    #[test]
    fn credentials_are_redacted() {
        assert_eq!(
            redact("https://u:p@github.com/a/b"),
            "https://***@github.com/a/b"
        );
        assert_eq!(
            redact("https://github.com/a/b@c"),
            "https://github.com/a/b@c"
        );
        assert_eq!(redact("a/b"), "a/b");
    }
}
