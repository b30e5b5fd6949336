//! Builds every git command line this crate starts, hardened once: what git may read
//! and what it may run (docs/archives.md, "What git reads and runs").
//!
//! This module owns the start of git: its working folder, its environment, the
//! settings that come before the subcommand and the transports it may use. It does not
//! run git (that is [`crate::infra::process`], with its process group, time and output
//! bounds) and does not choose the subcommand (`scan::git`, `corpus::history` and
//! `corpus::pin` do).
//!
//! # Why a neutral working folder
//!
//! A surveyor runs the tool from inside whatever checkout they stand in, and git reads
//! the configuration of the repository it finds from its working folder upwards: a
//! `credential.helper`, `core.sshCommand`, `url.*.insteadOf`, `http.proxy` or
//! `include.path` there would apply to a `git ls-remote` of somebody else's URL, and the
//! first two run programs. So git starts in an empty folder of the tool's own, with
//! `GIT_CEILING_DIRECTORIES` naming that folder's parent, and finds no repository at
//! all unless a caller names one with `-C` (scan and the history clone cache do, and
//! harden what that repository may run). The user's own configuration (global and
//! system: their mirrors, proxy and credential helper for private repositories)
//! still applies: it is theirs, not a tree's.
//!
//! # The environment
//!
//! git starts from the allow-list every host program starts from
//! ([`crate::infra::environment`]), which carries no `GIT_*` variable but the few that
//! name the user's own configuration or ssh ([`environment::GIT_KEPT`]): a hook or alias that runs the
//! tool sets `GIT_DIR`, `GIT_CONFIG_PARAMETERS` and the like for its own repository.
//! Then the tool sets its own: no prompt and no askpass program, no pager, no lazy fetch, no
//! replace refs, and the transports the job needs ([`Transport`]), narrowed further by
//! the user's `GIT_ALLOW_PROTOCOL` when they set one.

use std::fs;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::environment;

/// Which transports a git call may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// None: the call reads a repository on disk and must never fetch.
    None,
    /// The remote ones a repository address may use (`https`, `http`, `ssh`, `git`)
    /// and `file`, which a user's `insteadOf` mirror onto a local folder needs; never
    /// `ext`, which runs a command.
    Remote,
}

/// The transports [`Transport::Remote`] allows, as `GIT_ALLOW_PROTOCOL` lists them.
const REMOTE: [&str; 5] = ["https", "http", "ssh", "git", "file"];

/// Returns `git` started in a neutral folder, with the hardened environment and the
/// settings that keep hooks, fsmonitor, prompts and the `ext` transport from running
/// anything, allowed the transports of `transport` (see the module documentation).
pub fn command(transport: Transport) -> Command {
    let mut command = environment::command("git");
    command
        .arg("--no-pager")
        .args(["-c", "core.hooksPath=/dev/null"])
        .args(["-c", "core.fsmonitor=false"])
        .args(["-c", "credential.interactive=never"])
        .args(["-c", "protocol.ext.allow=never"]);
    if transport == Transport::None {
        command.args(["-c", "protocol.allow=never"]);
    }
    let user = std::env::var("GIT_ALLOW_PROTOCOL").ok();
    command
        .env("GIT_ALLOW_PROTOCOL", allowed(transport, user.as_deref()))
        .env("GIT_TERMINAL_PROMPT", "0")
        // An empty GIT_ASKPASS disables every askpass program, SSH_ASKPASS's too.
        .env("GIT_ASKPASS", "")
        .env("GIT_PAGER", "cat")
        .env("PAGER", "cat")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_NO_REPLACE_OBJECTS", "1")
        .env("GIT_NO_LAZY_FETCH", "1");
    let folder = neutral();
    command.current_dir(folder);
    if let Some(parent) = folder.parent() {
        command.env("GIT_CEILING_DIRECTORIES", parent);
    }
    command
}

/// Returns [`command`] pointed with `-C` at the repository `dir` is in. A relative
/// `dir` is made absolute first: git starts in the neutral folder, not where the
/// tool was started.
pub fn in_repository(transport: Transport, dir: &Path) -> Command {
    let mut command = command(transport);
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    command.arg("-C").arg(dir);
    command
}

/// Returns the `GIT_ALLOW_PROTOCOL` value for `transport`: the transports it needs,
/// less any the user's own `user` list leaves out. A list that names no transport
/// is `none`, which git reads as allowing none.
fn allowed(transport: Transport, user: Option<&str>) -> String {
    let needed: &[&str] = match transport {
        Transport::None => &[],
        Transport::Remote => &REMOTE,
    };
    let kept: Vec<&str> = needed
        .iter()
        .copied()
        .filter(|name| user.is_none_or(|list| list.split(':').any(|u| u == *name)))
        .collect();
    if kept.is_empty() {
        "none".to_string()
    } else {
        kept.join(":")
    }
}

/// Returns the empty folder git starts in, chosen once per process: the shared one
/// when it is safe ([`shared_folder`]), else a fresh private one, else `/`, which
/// only root can plant a repository in. Never the folder the tool was started in.
fn neutral() -> &'static Path {
    static FOLDER: OnceLock<PathBuf> = OnceLock::new();
    FOLDER.get_or_init(|| {
        shared_folder()
            .or_else(|| {
                let made = tempfile::Builder::new()
                    .prefix("mcp-hint-census-git-")
                    .tempdir()
                    .ok()?;
                // Kept for the process's git calls; an empty folder left behind.
                Some(made.keep())
            })
            .unwrap_or_else(|| PathBuf::from("/"))
    })
}

/// Makes or reuses `TMP/mcp-hint-census-UID/git`, checked to be the user's own,
/// written by nobody else and empty, so that another user of a shared temp folder
/// cannot plant a repository there.
fn shared_folder() -> Option<PathBuf> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let uid = unsafe { libc::geteuid() };
    let base = std::env::temp_dir().join(format!("mcp-hint-census-{uid}"));
    let folder = base.join("git");
    for dir in [&base, &folder] {
        let _ = fs::DirBuilder::new().mode(0o700).create(dir);
        let meta = fs::symlink_metadata(dir).ok()?;
        let is_own = meta.is_dir() && meta.uid() == uid;
        if !is_own || meta.permissions().mode() & 0o022 != 0 {
            return None;
        }
    }
    let mut entries = fs::read_dir(&folder).ok()?;
    if entries.next().is_some() {
        return None;
    }
    Some(folder)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_user_list_narrows_the_transports_and_never_widens_them() {
        assert_eq!(allowed(Transport::Remote, None), "https:http:ssh:git:file");
        assert_eq!(allowed(Transport::Remote, Some("file")), "file");
        assert_eq!(
            allowed(Transport::Remote, Some("ext:file:https")),
            "https:file"
        );
        assert_eq!(allowed(Transport::Remote, Some("ext")), "none");
        assert_eq!(allowed(Transport::None, None), "none");
        assert_eq!(allowed(Transport::None, Some("https:file")), "none");
    }

    #[test]
    fn git_starts_in_an_empty_folder_of_the_tools_own() {
        let command = command(Transport::Remote);
        let dir = command.get_current_dir().expect("a neutral folder");
        assert!(fs::read_dir(dir).unwrap().next().is_none());
        let ceiling = command
            .get_envs()
            .find(|(k, _)| *k == "GIT_CEILING_DIRECTORIES")
            .and_then(|(_, v)| v)
            .expect("a ceiling");
        assert_eq!(Path::new(ceiling), dir.parent().unwrap());
    }
}
