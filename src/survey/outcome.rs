//! How probing one server ended: the `outcome` of the servers table, the reason in
//! words, the line of its stderr that says why, and what the probe gave of a server
//! that listed. It reads errors; it probes nothing.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::install::Lock;
use crate::probe::http::{HttpError, HttpOutcome};
use crate::probe::session::Listing;
use crate::probe::stderr;
use crate::probe::stdio::{Ended, Ending};

/// Says how probing one server ended: the `outcome` column of the servers table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Listed,
    /// Listed, run with the placeholders its file gives for values the entry lacks.
    ListedWithPlaceholders,
    NeedsConfiguration,
    InstallFailed,
    NoWheel,
    /// The package needs a Python this machine does not have.
    NoPython,
    /// Its install took more than `--max-install-size`, and was removed.
    TooLarge,
    Exited,
    /// It exited or timed out, its stderr naming a failure to reach the network.
    NeedsNetwork,
    ToolsListError,
    TimedOut,
    SandboxRefused,
    /// Stopped: its sandbox held more processes than the bound.
    TooManyProcesses,
    /// Stopped: it wrote more than the bound on stderr, or of stdout that is not JSON.
    TooMuchOutput,
    /// A remote endpoint answered 401 or 403 with a `WWW-Authenticate` challenge.
    NeedsAuthorization,
    /// A remote endpoint answered another status that is not a success.
    HttpError,
    /// A remote endpoint could not be reached (name, connection, TLS).
    Unreachable,
    /// A remote endpoint answered neither JSON nor an event stream.
    NotMcp,
}

impl Kind {
    /// Every kind, in the order the Markdown's outcome table lists them.
    pub(super) const ALL: [Kind; 18] = [
        Kind::Listed,
        Kind::ListedWithPlaceholders,
        Kind::NeedsConfiguration,
        Kind::InstallFailed,
        Kind::NoWheel,
        Kind::NoPython,
        Kind::TooLarge,
        Kind::Exited,
        Kind::NeedsNetwork,
        Kind::ToolsListError,
        Kind::TimedOut,
        Kind::SandboxRefused,
        Kind::TooManyProcesses,
        Kind::TooMuchOutput,
        Kind::NeedsAuthorization,
        Kind::HttpError,
        Kind::Unreachable,
        Kind::NotMcp,
    ];

    /// Returns true for a server that listed its tools, with placeholders or without.
    pub(super) fn is_listed(self) -> bool {
        matches!(self, Kind::Listed | Kind::ListedWithPlaceholders)
    }

    /// Returns false for a server that could not be run as the file gives it: it
    /// needs configuration (or authorization) first.
    pub(super) fn could_run(self) -> bool {
        !matches!(self, Kind::NeedsConfiguration | Kind::NeedsAuthorization)
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Kind::Listed => "listed",
            Kind::ListedWithPlaceholders => "listed with placeholders",
            Kind::NeedsConfiguration => "needs configuration",
            Kind::InstallFailed => "install failed",
            Kind::NoWheel => "no wheel",
            Kind::NoPython => "no python",
            Kind::TooLarge => "too large",
            Kind::Exited => "exited",
            Kind::NeedsNetwork => "needs network",
            Kind::ToolsListError => "tools/list error",
            Kind::TimedOut => "timed out",
            Kind::SandboxRefused => "sandbox refused",
            Kind::TooManyProcesses => "too many processes",
            Kind::TooMuchOutput => "too much output",
            Kind::NeedsAuthorization => "needs authorization",
            Kind::HttpError => "http error",
            Kind::Unreachable => "unreachable",
            Kind::NotMcp => "not mcp",
        }
    }
}

/// Returns true for an `outcome` cell of a server that listed its tools, with
/// placeholders or without.
pub fn is_listed(outcome: &str) -> bool {
    Kind::ALL
        .iter()
        .any(|kind| kind.is_listed() && kind.name() == outcome)
}

/// Holds a server that gave no listing: how it ended, why in words, and the line of
/// its stderr that says why, when it wrote one.
pub(super) struct Failure {
    pub(super) kind: Kind,
    pub(super) reason: String,
    pub(super) cause: String,
    /// The HTTP status a remote endpoint answered, when it answered one.
    pub(super) http_status: Option<u16>,
    /// The protected resource metadata URL its challenge gave (RFC 9728).
    pub(super) resource_metadata: String,
    /// The options its argument parser's usage error named as required and missing.
    pub(super) asked: Vec<String>,
    /// The environment variables its last words named as missing.
    pub(super) asked_env: Vec<String>,
    /// The subcommand its command group's usage says serves MCP.
    pub(super) asked_command: Option<String>,
}

impl Failure {
    pub(super) fn new(kind: Kind, reason: String) -> Failure {
        Failure {
            kind,
            reason,
            cause: String::new(),
            http_status: None,
            resource_metadata: String::new(),
            asked: Vec::new(),
            asked_env: Vec::new(),
            asked_command: None,
        }
    }
}

/// What probing one server gave.
pub(super) struct Outcome {
    pub(super) name: String,
    pub(super) result: Result<Listing, Failure>,
    /// What identifies the bytes of a package server: npm's integrity, a wheel's sha256.
    pub(super) artifact: String,
    /// Lines of the server's stdout that were not JSON, skipped; `None` when it never ran.
    pub(super) skipped_lines: Option<usize>,
    /// The date the package's dependencies were resolved as of.
    pub(super) before: String,
    /// Why they were not resolved by date, when they were not.
    pub(super) before_note: String,
    /// What its install resolved to.
    pub(super) lock: Option<Lock>,
    /// The Python version a PyPI package ran on.
    pub(super) python: String,
    /// The placeholders the run gave beyond the file's (options a usage error asked
    /// for), as the servers table's `placeholders` names them.
    pub(super) filled: Vec<String>,
}

impl Outcome {
    /// Returns the lock's cell and file name: `sha256:HEX` and `HEX.EXT`.
    pub(super) fn lock_names(&self) -> Option<(String, String)> {
        use sha2::Digest as _;
        self.lock.as_ref().map(|lock| {
            let hex = format!("{:x}", sha2::Sha256::digest(&lock.bytes));
            (format!("sha256:{hex}"), format!("{hex}.{}", lock.extension))
        })
    }
}

/// Returns how a failed probe ended, from the kind of its error and, for a server
/// that stopped, from what its stderr says.
pub(super) fn failure(err: &anyhow::Error) -> Failure {
    if let Some(http) = err.chain().find_map(|e| e.downcast_ref::<HttpError>()) {
        let (kind, metadata) = match &http.outcome {
            HttpOutcome::NeedsAuthorization { resource_metadata } => (
                Kind::NeedsAuthorization,
                resource_metadata.clone().unwrap_or_default(),
            ),
            HttpOutcome::Status => (Kind::HttpError, String::new()),
            HttpOutcome::Unreachable => (Kind::Unreachable, String::new()),
            HttpOutcome::NotMcp => (Kind::NotMcp, String::new()),
            HttpOutcome::TimedOut => (Kind::TimedOut, String::new()),
        };
        return Failure {
            kind,
            reason: format!("{err:#}"),
            cause: String::new(),
            http_status: http.status,
            resource_metadata: metadata,
            asked: Vec::new(),
            asked_env: Vec::new(),
            asked_command: None,
        };
    }
    let ended = err.chain().find_map(|e| e.downcast_ref::<Ended>());
    let said = ended.map(|e| e.stderr.as_slice()).unwrap_or_default();
    let is_offline = said.iter().any(|l| stderr::is_network_failure(l));
    let kind = match ended.map(|e| e.kind) {
        Some(Ending::Exited | Ending::TimedOut) if is_offline => Kind::NeedsNetwork,
        Some(Ending::TimedOut) => Kind::TimedOut,
        Some(Ending::Exited) => Kind::Exited,
        Some(Ending::TooManyProcesses) => Kind::TooManyProcesses,
        Some(Ending::TooMuchOutput) => Kind::TooMuchOutput,
        None => Kind::ToolsListError,
    };
    Failure {
        kind,
        reason: format!("{err:#}"),
        cause: stderr::cause(said).unwrap_or_default().to_string(),
        http_status: None,
        resource_metadata: String::new(),
        asked: super::usage::required_options(said),
        asked_env: super::usage::missing_variables(said),
        asked_command: super::usage::mcp_command(said),
    }
}

/// Holds the folders of the machine that ran a survey which a row may quote (an
/// install's traceback, an installer's message), each with the word written in its
/// place, so that a table written on another machine, or from another cache folder,
/// has the same bytes (docs/probe.md, "Many servers, one table").
#[derive(Clone, Debug, Default)]
pub(super) struct Redaction {
    /// Each folder as text, longest first, and its word.
    folders: Vec<(String, &'static str)>,
}

impl Redaction {
    /// Returns the redaction of a run whose cache folder is `cache`: `{cache}` for it,
    /// `~` for the user's HOME.
    pub(super) fn of_run(cache: &Path) -> Redaction {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        Redaction::default()
            .with(cache, "{cache}")
            .with_all(home.iter(), "~")
    }

    /// Returns this redaction with `folder` written as `word`, in the forms it may be
    /// quoted in (as given, absolute, and with its links resolved).
    pub(super) fn with(mut self, folder: &Path, word: &'static str) -> Redaction {
        let mut forms = vec![folder.to_path_buf()];
        forms.extend(std::path::absolute(folder).ok());
        forms.extend(std::fs::canonicalize(folder).ok());
        for form in forms {
            let text = form.display().to_string();
            // The root, or a relative word, would replace more than a folder.
            if text.len() > 1 && form.is_absolute() && !self.folders.iter().any(|(f, _)| *f == text)
            {
                self.folders.push((text, word));
            }
        }
        self.folders
            .sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.0.cmp(&b.0)));
        self
    }

    /// Returns this redaction with each of `folders` written as `word`.
    pub(super) fn with_all<'p>(
        self,
        folders: impl IntoIterator<Item = &'p PathBuf>,
        word: &'static str,
    ) -> Redaction {
        folders
            .into_iter()
            .fold(self, |redaction, folder| redaction.with(folder, word))
    }

    /// Returns `text` with each folder written as its word, the longest first.
    pub(super) fn apply(&self, text: &str) -> String {
        let mut text = text.to_string();
        for (folder, word) in &self.folders {
            if text.contains(folder.as_str()) {
                text = text.replace(folder.as_str(), word);
            }
        }
        text
    }

    /// Writes the text of `outcome` that a table quotes through [`Redaction::apply`].
    pub(super) fn outcome(&self, outcome: &mut Outcome) {
        match &mut outcome.result {
            Ok(listing) => {
                for warning in &mut listing.warnings {
                    *warning = self.apply(warning);
                }
            }
            Err(failure) => {
                failure.reason = self.apply(&failure.reason);
                failure.cause = self.apply(&failure.cause);
            }
        }
        outcome.before_note = self.apply(&outcome.before_note);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_whose_stderr_names_a_network_failure_needs_network() {
        let ended = |kind, stderr: &[&str]| {
            anyhow::Error::new(Ended {
                kind,
                message: "the server exited".to_string(),
                stderr: stderr.iter().map(|l| l.to_string()).collect(),
            })
            .context("initialize")
        };
        let offline = failure(&ended(
            Ending::Exited,
            &[
                "Traceback (most recent call last):",
                "  File \"s.py\"",
                "httpx.ConnectError: [Errno -3] Temporary failure in name resolution",
            ],
        ));
        assert_eq!(offline.kind, Kind::NeedsNetwork);
        assert_eq!(
            offline.cause,
            "httpx.ConnectError: [Errno -3] Temporary failure in name resolution"
        );
        let hung = failure(&ended(
            Ending::TimedOut,
            &["Error: getaddrinfo ENOTFOUND api"],
        ));
        assert_eq!(hung.kind, Kind::NeedsNetwork);
        let refused = failure(&ended(Ending::Exited, &["connect failed: ECONNREFUSED"]));
        assert_eq!(refused.kind, Kind::Exited);
        assert_eq!(refused.cause, "connect failed: ECONNREFUSED");
        let other = failure(&anyhow::anyhow!("tools/list: error -32601"));
        assert_eq!(
            (other.kind, other.cause.as_str()),
            (Kind::ToolsListError, "")
        );
    }
}
