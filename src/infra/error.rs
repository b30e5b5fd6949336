//! The process's exit codes and the error that marks a user's input as wrong.
//!
//! Every command returns an [`ExitStatus`]; `main` maps an error to one. Nothing here
//! prints: `main` prints an error once.

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
