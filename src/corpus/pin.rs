//! Pins a repository to a full commit id with `git ls-remote`, without cloning:
//! the release tag of a version, a named ref, or the default branch's HEAD.
//!
//! This module owns the `git` invocation and its hardening (no prompts, stdin
//! closed, `--` before the URL, a time limit that ends git and every helper it
//! started, a cap on what is read; `crate::infra::process` runs it) and the choice among
//! the refs a listing names. Because it runs plain
//! `git`, the user's `url.<base>.insteadOf` rewrites apply, so a mirror can stand in
//! for a forge. It does not know about registries or corpus files.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use anyhow::Context;

use crate::fetch::http::{self, Breaker};
use crate::infra::git::{self, Transport};
use crate::infra::mirrors::Mirrors;
use crate::infra::process::{self, Cause, Failure, Limits};

/// How many bytes of `git ls-remote` output are read before the listing is
/// refused: far more than the few refs asked for.
const MAX_LISTING: usize = 4 << 20;

/// How many bytes of a command's stderr are kept.
const MAX_STDERR: usize = 64 << 10;

/// The longest pause between two retries.
const MAX_BACKOFF: Duration = Duration::from_secs(8);

/// Holds how `git ls-remote` is run.
#[derive(Clone, Debug)]
pub struct GitOptions {
    /// The time one call may take before it is killed.
    pub timeout: Duration,
    /// How many times a failure that may pass (a timeout, a network error) is retried.
    pub retries: u32,
    /// The first pause before a retry; each retry doubles it.
    pub backoff: Duration,
    /// Local mirrors asked in place of the forges.
    pub mirrors: Option<Arc<Mirrors>>,
}

/// Names what a tree should be pinned to.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Want {
    /// The release tag of this version, else HEAD: the tags [`release_tags`] names,
    /// from the version and the identifiers of the server's packages.
    Version(Option<String>, Vec<String>),
    /// A tag, a branch or a full ref name; nothing else will do.
    Ref(String),
    /// A full commit id, taken as given.
    Commit(String),
}

/// Holds a pinned commit and how it was chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pin {
    /// 40 lower-case hex digits.
    pub commit: String,
    /// Says which ref gave the commit, for the tree's note.
    pub how: String,
    /// The commit's committer time, Unix seconds, when it was read (a dated pin).
    pub committed: Option<i64>,
    /// For a version pinned at the default branch's HEAD, why no release tag was
    /// taken (`version 1.2.0: no tag 'v1.2.0' or '1.2.0', so `, or empty without a
    /// version): such a pin may be moved to the day the version was published.
    pub head_because: Option<String>,
}

/// Holds the refs a remote listed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    /// The branch HEAD points to, when the remote says.
    pub head_branch: Option<String>,
    /// Ref name (and `HEAD`) → object id.
    pub refs: BTreeMap<String, String>,
    /// Tag name → the commit an annotated tag peels to (`^{}` lines).
    pub peeled: BTreeMap<String, String>,
}

impl Listing {
    /// Parses `git ls-remote --symref` output.
    pub fn parse(text: &str) -> Listing {
        let mut listing = Listing::default();
        for line in text.lines() {
            let Some((left, name)) = line.split_once('\t') else {
                continue;
            };
            if let Some(target) = left.strip_prefix("ref: ") {
                if name == "HEAD" {
                    let branch = target.strip_prefix("refs/heads/").unwrap_or(target);
                    listing.head_branch = Some(branch.to_string());
                }
            } else if let Some(tag) = name.strip_suffix("^{}") {
                listing.peeled.insert(tag.to_string(), left.to_string());
            } else {
                listing.refs.insert(name.to_string(), left.to_string());
            }
        }
        listing
    }

    /// Returns the commit `name` names: peeled for an annotated tag.
    fn commit_of(&self, name: &str) -> Option<&str> {
        self.peeled
            .get(name)
            .or_else(|| self.refs.get(name))
            .map(String::as_str)
    }
}

/// Returns the ref patterns `git ls-remote` needs to answer `wants`; empty when
/// every want is a commit id.
pub fn patterns<'a>(wants: impl IntoIterator<Item = &'a Want>) -> Vec<String> {
    let mut out = Vec::new();
    let tag = |name: String, out: &mut Vec<String>| {
        out.push(format!("refs/tags/{name}^{{}}"));
        out.push(format!("refs/tags/{name}"));
    };
    for want in wants {
        match want {
            Want::Version(version, packages) => {
                out.push("HEAD".to_string());
                if let Some(v) = version.as_deref().filter(|v| is_tag_name(v)) {
                    for name in release_tags(v, packages) {
                        tag(name, &mut out);
                    }
                }
            }
            Want::Ref(name) if name.starts_with("refs/") => {
                out.push(format!("{name}^{{}}"));
                out.push(name.clone());
            }
            Want::Ref(name) => {
                tag(name.clone(), &mut out);
                out.push(format!("refs/heads/{name}"));
            }
            Want::Commit(_) => {}
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Chooses the commit for `want` from `listing`; the error says why none fits.
pub fn choose(listing: &Listing, want: &Want) -> Result<Pin, String> {
    let pin = |commit: &str, how: String| {
        if is_commit_id(commit) {
            Ok(Pin {
                commit: commit.to_ascii_lowercase(),
                how,
                committed: None,
                head_because: None,
            })
        } else {
            Err(format!(
                "the remote named object '{commit}', not a 40-digit SHA-1 commit id"
            ))
        }
    };
    match want {
        Want::Commit(commit) => pin(commit, "commit given".to_string()),
        Want::Ref(name) if name.starts_with("refs/") => match listing.commit_of(name) {
            Some(commit) => pin(commit, format!("ref '{name}'")),
            None => Err(format!("ref '{name}' not found")),
        },
        Want::Ref(name) => {
            if let Some(commit) = listing.commit_of(&format!("refs/tags/{name}")) {
                pin(commit, format!("tag '{name}'"))
            } else if let Some(commit) = listing.commit_of(&format!("refs/heads/{name}")) {
                pin(commit, format!("branch '{name}'"))
            } else {
                Err(format!("ref '{name}' not found as a tag or a branch"))
            }
        }
        Want::Version(version, packages) => {
            let mut why = String::new();
            if let Some(v) = version.as_deref() {
                if is_tag_name(v) {
                    let tags = release_tags(v, packages);
                    for tag in &tags {
                        if let Some(commit) = listing.commit_of(&format!("refs/tags/{tag}")) {
                            return pin(commit, format!("version {v}: tag '{tag}'"));
                        }
                    }
                    why = if tags.len() == 2 {
                        format!("version {v}: no tag 'v{v}' or '{v}', so ")
                    } else {
                        format!(
                            "version {v}: no tag 'v{v}', '{v}' or one named after its packages, so "
                        )
                    };
                } else {
                    why = format!("version '{v}' is not a tag name, so ");
                }
            }
            let Some(head) = listing.refs.get("HEAD") else {
                return Err(format!("{why}HEAD, but the remote lists no HEAD"));
            };
            let branch = match &listing.head_branch {
                Some(b) => format!("default branch '{b}'"),
                None => "the default branch".to_string(),
            };
            let mut head = pin(head, format!("{why}{branch} at HEAD"))?;
            head.head_because = Some(why);
            Ok(head)
        }
    }
}

/// Returns the tags a release of `version` may carry, in the order they are tried:
/// `v{version}`, `{version}`, then for each package identifier in the entry's
/// order (`@scope/pkg`, `pkg`, `Name.Of.Package`, `ghcr.io/owner/image`), with
/// NAME its last `/` segment and no `:tag`: `{identifier}@{version}`,
/// `{NAME}@{version}`, `{NAME}-v{version}`, `{NAME}-{version}`. Tags that cannot
/// be a ref (or would be a pattern) are left out; none repeats.
pub fn release_tags(version: &str, packages: &[String]) -> Vec<String> {
    let mut tags = vec![format!("v{version}"), version.to_string()];
    for identifier in packages {
        let bare = identifier.split(':').next().unwrap_or("");
        let name = bare.rsplit('/').next().unwrap_or("");
        for tag in [
            format!("{bare}@{version}"),
            format!("{name}@{version}"),
            format!("{name}-v{version}"),
            format!("{name}-{version}"),
        ] {
            if is_tag_ref(&tag) && !tags.contains(&tag) {
                tags.push(tag);
            }
        }
    }
    tags
}

/// Returns true for a tag name with `/` segments and `@` that `git ls-remote` may
/// be asked for: each segment a tag name once `@` is allowed, and not `@` alone.
fn is_tag_ref(text: &str) -> bool {
    text != "@"
        && text.len() <= 255
        && text
            .split('/')
            .all(|segment| is_tag_name(&segment.replace('@', "a")))
}

/// Returns true for a version that may stand in a tag name and a ref pattern:
/// ASCII letters, digits, `.`, `_`, `+` and `-`, no `..`, not starting with `-`
/// or `.`, not ending with `.` or `.lock`. Glob characters never pass.
pub fn is_tag_name(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 200
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._+-".contains(&b))
        && !text.starts_with(['-', '.'])
        && !text.ends_with('.')
        && !text.ends_with(".lock")
        && !text.contains("..")
}

/// Returns true for a ref a list may name: tag-name characters and `/`, no
/// empty segment, and each segment a valid tag name.
pub fn is_ref_name(text: &str) -> bool {
    text.len() <= 255 && text.split('/').all(is_tag_name)
}

/// Returns true for 40 hex digits.
pub fn is_commit_id(text: &str) -> bool {
    text.len() == 40 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Lists `patterns` of the repository at `url`, retrying failures that may pass
/// ([`may_pass`]); a failure that lasted through every retry says how many tries it
/// took.
///
/// Every try's outcome is counted by `breaker` (an answer, even a refusal, is a
/// success); once it has tripped nothing is run.
pub fn ls_remote(
    url: &str,
    patterns: &[String],
    options: &GitOptions,
    breaker: &Breaker,
) -> Result<Listing, Failure> {
    refuse_option_url(LS_REMOTE, url)?;
    retrying(options.retries, options.backoff, || {
        if let Some(stopped) = breaker.not_tried() {
            return Err(Failure::new(LS_REMOTE, Cause::Output(stopped.to_string())));
        }
        let tried = ls_remote_once(url, patterns, options.timeout);
        match &tried {
            Err(failure) if may_pass(failure) => {
                breaker.failure(&format!("{LS_REMOTE} '{url}': {failure}"))
            }
            _ => breaker.success(),
        }
        tried
    })
}

/// Refuses a URL that git would read as an option.
pub fn refuse_option_url(command: &str, url: &str) -> Result<(), Failure> {
    if url.starts_with('-') {
        return Err(Failure::new(
            command,
            Cause::Output(format!("refusing the URL '{url}', which starts with '-'")),
        ));
    }
    Ok(())
}

/// Runs `try_once` until it succeeds, fails in a way that will not pass
/// ([`may_pass`]), or has failed `retries + 1` times, pausing `backoff` doubled after
/// each try (at most [`MAX_BACKOFF`]); a failure that lasted through every retry
/// says how many tries it took.
pub fn retrying<T>(
    retries: u32,
    backoff: Duration,
    mut try_once: impl FnMut() -> Result<T, Failure>,
) -> Result<T, Failure> {
    let mut attempt = 0;
    loop {
        match try_once() {
            Ok(value) => return Ok(value),
            Err(failure) if !may_pass(&failure) => return Err(failure),
            Err(mut failure) if attempt >= retries => {
                failure.tries = Some(attempt + 1);
                return Err(failure);
            }
            Err(_) => {
                thread::sleep(http::doubled(backoff, attempt, MAX_BACKOFF));
                attempt += 1;
            }
        }
    }
}

/// How messages name the command.
const LS_REMOTE: &str = "git ls-remote";

fn ls_remote_once(url: &str, patterns: &[String], timeout: Duration) -> Result<Listing, Failure> {
    // git runs in a process group of its own, which is ended with it, so the
    // transport helper it started (git-remote-https) cannot outlive the limit.
    let mut command = git::command(Transport::Remote);
    command
        .args(["ls-remote", "--symref", "--", url])
        .args(patterns);
    let limits = Limits {
        time: Some(timeout),
        idle: None,
        max_stderr: MAX_STDERR,
    };
    let ran = process::output(command, &limits, MAX_LISTING)
        .map_err(|e| Failure::new(LS_REMOTE, Cause::Start(e)))?;
    if let Some(stop) = ran.stop {
        return Err(Failure::new(LS_REMOTE, Cause::Stopped(stop)));
    }
    if ran.is_truncated {
        return Err(Failure::new(
            LS_REMOTE,
            Cause::Output(format!(
                "git ls-remote printed more than {MAX_LISTING} bytes"
            )),
        ));
    }
    match ran.status {
        Some(status) if status.success() => {
            Ok(Listing::parse(&String::from_utf8_lossy(&ran.stdout)))
        }
        Some(status) => Err(Failure::new(
            LS_REMOTE,
            Cause::Exited {
                status,
                stderr: String::from_utf8_lossy(&ran.stderr).into_owned(),
            },
        )),
        None => Err(Failure::new(
            LS_REMOTE,
            Cause::Output("git ls-remote vanished".into()),
        )),
    }
}

/// Returns true when a failure of `git ls-remote` may pass on another try: it ran
/// out of time, or git's stderr names a network error, an HTTP 5xx or 429; false
/// when the remote answered that the repository is missing or unreadable, or git
/// could not run at all.
pub fn may_pass(failure: &Failure) -> bool {
    match &failure.cause {
        Cause::Stopped(_) => true,
        Cause::Exited { stderr, .. } => !is_answer(stderr),
        Cause::Start(_) | Cause::Output(_) => false,
    }
}

/// Returns true when git's `stderr` says the remote answered that the repository
/// is missing, unreadable or refuses us, or that it lacks an object it should
/// serve (a corrupt repository), which no retry will change; false for network
/// errors, timeouts and HTTP 5xx or 429, which may pass.
pub fn is_answer(stderr: &str) -> bool {
    let lower = stderr.to_ascii_lowercase();
    [
        "not found",
        "does not appear to be a git repository",
        "repository corruption",
        "missing object",
        "bad object",
        "did not send all necessary objects",
        "could not read username",
        "could not read password",
        // credential.interactive=never: the remote asked for a password, none may
        // be typed.
        "unable to get password",
        "terminal prompts disabled",
        "authentication failed",
        "access denied",
        "not allowed",
    ]
    .iter()
    .any(|needle| lower.contains(needle))
}

/// Fails with a clear message when `git` cannot be run.
pub fn check_git() -> anyhow::Result<()> {
    let mut command = git::command(Transport::None);
    command.arg("--version");
    let limits = Limits {
        time: Some(Duration::from_secs(30)),
        idle: None,
        max_stderr: 4096,
    };
    let ran = process::output(command, &limits, 4096)
        .context("running 'git --version' (building a corpus needs git on the PATH)")?;
    if !ran.status.is_some_and(|s| s.success()) {
        anyhow::bail!("'git --version' failed (building a corpus needs git on the PATH)");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";
    const T: &str = "3333333333333333333333333333333333333333";
    const H: &str = "4444444444444444444444444444444444444444";

    fn listing() -> Listing {
        Listing::parse(&format!(
            "ref: refs/heads/main\tHEAD\n{H}\tHEAD\n{T}\trefs/tags/v1.2.0\n{A}\trefs/tags/v1.2.0^{{}}\n\
             {B}\trefs/tags/0.9.0\n{B}\trefs/heads/dev\n"
        ))
    }

    #[test]
    fn versions_prefer_the_peeled_v_tag_then_the_bare_tag_then_head() {
        let l = listing();
        let p = choose(&l, &Want::Version(Some("1.2.0".into()), vec![])).unwrap();
        assert_eq!(p.commit, A, "the annotated tag is peeled to its commit");
        assert_eq!(p.how, "version 1.2.0: tag 'v1.2.0'");
        let p = choose(&l, &Want::Version(Some("0.9.0".into()), vec![])).unwrap();
        assert_eq!(
            (p.commit.as_str(), p.how.as_str()),
            (B, "version 0.9.0: tag '0.9.0'")
        );
        let p = choose(&l, &Want::Version(Some("2.0.0".into()), vec![])).unwrap();
        assert_eq!(p.commit, H);
        assert_eq!(
            p.how,
            "version 2.0.0: no tag 'v2.0.0' or '2.0.0', so default branch 'main' at HEAD"
        );
        let p = choose(&l, &Want::Version(Some("1.*".into()), vec![])).unwrap();
        assert_eq!(p.commit, H);
        assert!(p.how.contains("not a tag name"), "{}", p.how);
        let p = choose(&l, &Want::Version(None, vec![])).unwrap();
        assert_eq!(p.how, "default branch 'main' at HEAD");
        assert!(choose(&Listing::default(), &Want::Version(None, vec![])).is_err());
    }

    #[test]
    fn release_tags_named_after_packages_come_after_the_plain_ones() {
        let packages = [
            "@upstash/context7-mcp".to_string(),
            "Azure.Mcp.Server".to_string(),
            "ghcr.io/acme/img:latest".to_string(),
            "bad name*".to_string(),
        ];
        assert_eq!(
            release_tags("1.0.31", &packages),
            [
                "v1.0.31",
                "1.0.31",
                "@upstash/context7-mcp@1.0.31",
                "context7-mcp@1.0.31",
                "context7-mcp-v1.0.31",
                "context7-mcp-1.0.31",
                "Azure.Mcp.Server@1.0.31",
                "Azure.Mcp.Server-v1.0.31",
                "Azure.Mcp.Server-1.0.31",
                "ghcr.io/acme/img@1.0.31",
                "img@1.0.31",
                "img-v1.0.31",
                "img-1.0.31",
            ]
        );
        let l = Listing::parse(&format!(
            "{H}\tHEAD\n{A}\trefs/tags/context7-mcp-v2.0.0\n{B}\trefs/tags/@upstash/context7-mcp@2.0.0\n"
        ));
        let p = choose(&l, &Want::Version(Some("2.0.0".into()), packages.to_vec())).unwrap();
        assert_eq!(
            (p.commit.as_str(), p.how.as_str()),
            (B, "version 2.0.0: tag '@upstash/context7-mcp@2.0.0'"),
            "the scoped tag comes before NAME-vVERSION"
        );
        let p = choose(&l, &Want::Version(Some("3.0.0".into()), packages.to_vec())).unwrap();
        assert_eq!(p.commit, H);
        assert!(p.how.contains("named after its packages"), "{}", p.how);
    }

    #[test]
    fn named_refs_must_exist() {
        let l = listing();
        assert_eq!(choose(&l, &Want::Ref("v1.2.0".into())).unwrap().commit, A);
        let p = choose(&l, &Want::Ref("dev".into())).unwrap();
        assert_eq!((p.commit.as_str(), p.how.as_str()), (B, "branch 'dev'"));
        assert_eq!(
            choose(&l, &Want::Ref("refs/tags/v1.2.0".into()))
                .unwrap()
                .commit,
            A
        );
        let e = choose(&l, &Want::Ref("nope".into())).unwrap_err();
        assert!(e.contains("'nope' not found"), "{e}");
        let up = A.to_ascii_uppercase();
        assert_eq!(choose(&l, &Want::Commit(up)).unwrap().commit, A);
    }

    #[test]
    fn patterns_ask_for_peeled_tags_and_skip_glob_characters() {
        let p = patterns(&[
            Want::Version(Some("1.2.0".into()), vec![]),
            Want::Version(Some("1.*".into()), vec![]),
            Want::Commit(A.into()),
        ]);
        assert_eq!(
            p,
            [
                "HEAD",
                "refs/tags/1.2.0",
                "refs/tags/1.2.0^{}",
                "refs/tags/v1.2.0",
                "refs/tags/v1.2.0^{}"
            ]
        );
        assert!(patterns(&[Want::Commit(A.into())]).is_empty());
    }

    #[test]
    fn tag_and_ref_names_are_checked() {
        for good in ["1.2.0", "v1.0.0-rc.1+build.5", "2024_01"] {
            assert!(is_tag_name(good), "{good}");
        }
        for bad in [
            "", "-x", ".x", "x.", "a..b", "x.lock", "1.*", "a b", "[a]", "a?", "a/b",
        ] {
            assert!(!is_tag_name(bad), "{bad}");
        }
        assert!(is_ref_name("release/2.x") && is_ref_name("refs/tags/v1"));
        assert!(!is_ref_name("a//b") && !is_ref_name("/a") && !is_ref_name("a/"));
    }

    #[test]
    fn missing_repositories_are_answers_and_network_errors_are_not() {
        for answer in [
            "remote: Repository not found.\nfatal: repository 'https://github.com/a/b/' not found",
            "fatal: could not read Username for 'https://github.com': terminal prompts disabled",
            "fatal: '/srv/a/b' does not appear to be a git repository",
            "fatal: transport 'https' not allowed",
            "fatal: Authentication failed for 'https://gitlab.com/a/b/'",
            // What git 2.47 says when the remote lacks a commit of its history.
            "warning: filtering not recognized by server, ignoring\n\
             remote: error: Could not read 8911d6ece87f554cde8c489f3bf75cd6b567f7db\n\
             error: git upload-pack: git-pack-objects died with error.\n\
             fatal: git upload-pack: aborting due to possible repository corruption on the \
             remote side.\n\
             fatal: early EOF",
            "fatal: remote did not send all necessary objects",
            // An HTTP 401 under credential.interactive=never (git 2.47).
            "fatal: unable to get password from user",
        ] {
            assert!(is_answer(answer), "{answer}");
        }
        for passing in [
            "fatal: unable to access 'https://github.com/a/b/': Could not resolve host: github.com",
            "fatal: unable to access 'https://github.com/a/b/': The requested URL returned error: 503",
            "error: RPC failed; HTTP 429 curl 22 The requested URL returned error: 429",
            "fatal: unable to access 'https://x/': Failed to connect to x port 443: Connection refused",
        ] {
            assert!(!is_answer(passing), "{passing}");
        }
    }

    #[test]
    fn urls_starting_with_a_dash_never_reach_git() {
        let options = GitOptions {
            timeout: Duration::from_secs(5),
            retries: 0,
            backoff: Duration::ZERO,
            mirrors: None,
        };
        let e = ls_remote(
            "--upload-pack=touch /tmp/x",
            &[],
            &options,
            &Breaker::new(0),
        )
        .unwrap_err();
        assert!(
            !may_pass(&e) && e.to_string().contains("starts with '-'"),
            "{e:?}"
        );
    }
}
