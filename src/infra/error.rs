//! The process's exit codes, the error that marks a user's input as wrong, and the
//! kind a failed row carries.
//!
//! Every command returns an [`ExitStatus`]; `main` maps an error to one. A failure
//! tagged with its [`FailureKind`] where it happens (`fetch`, `scan`) keeps that kind
//! on its way to the row, so that callers branch on the kind, never on the message.
//! Nothing here prints: `main` prints an error once.

use std::fmt;

/// The process exit codes, documented in the README.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    /// Everything asked for was done and every check passed.
    Ok = 0,
    /// Something failed (a tree, a file, a server); the rest was still done.
    Failed = 1,
    /// The command line or a configuration file is wrong; nothing was done.
    Usage = 2,
    /// A gate (`--require-hints`, `--require`) found what it guards against.
    Gate = 3,
}

/// Marks an error as the user's input being wrong, which exits with status 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// What kind of failure left a row without counts: what a caller branches on (the
/// network hint of `census`), never the words of the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// The archive could not be downloaded for the network's sake: no connection,
    /// a timeout, a download that broke off, or a server that kept answering 5xx or
    /// 429 until the retries ran out.
    Network,
    /// The server answered with an HTTP status another try would not change (404).
    Refused,
    /// The archive is not in the cache and `--offline` allows nothing else.
    NotCached,
    /// The bytes arrived but are not the tree asked for: not an archive, cut short,
    /// over a limit, of another commit than the pin, or unreadable in the cache.
    Archive,
    /// Anything else, and every failed row read back from a table: the CSV keeps
    /// only the message.
    Other,
}

/// Marks an error with the [`FailureKind`] it is, where the failure happens and no
/// HTTP answer says it (an archive missing from the cache offline), so that the command that turns it into a
/// row finds the kind with `anyhow::Error::downcast_ref::<Tagged>()`. It shows as
/// its message alone: tagging an error does not change what a person reads.
#[derive(Debug)]
pub struct Tagged {
    pub kind: FailureKind,
    pub message: String,
}

impl fmt::Display for Tagged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Tagged {}

/// Returns the kind `err` was tagged with where it happened (the outermost tag),
/// else `otherwise`.
pub fn kind_of(err: &anyhow::Error, otherwise: FailureKind) -> FailureKind {
    err.downcast_ref::<Tagged>().map_or(otherwise, |t| t.kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_outermost_tag_is_the_kind() {
        let refused = anyhow::Error::new(Tagged {
            kind: FailureKind::Refused,
            message: "HTTP 503".into(),
        });
        assert_eq!(kind_of(&refused, FailureKind::Other), FailureKind::Refused);
        let gave_up = refused.context(Tagged {
            kind: FailureKind::Network,
            message: "GET u (gave up after 2 tries)".into(),
        });
        assert_eq!(kind_of(&gave_up, FailureKind::Other), FailureKind::Network);
        // A tag shows as its message: the text a person reads is unchanged.
        assert_eq!(
            format!("{gave_up:#}"),
            "GET u (gave up after 2 tries): HTTP 503"
        );
        let plain = anyhow::anyhow!("not a tar").context("GET u");
        assert_eq!(kind_of(&plain, FailureKind::Archive), FailureKind::Archive);
    }
}
