//! Standard output, where results go, and the one rule for a reader that closes it
//! early (`census | head`, `probe ... | head -1`): that is not an error.
//!
//! A command that writes through [`Out`] stops printing quietly and goes on to finish
//! its other work (files, exit status). A command that writes to stdout directly lets
//! the write error rise, and `main` asks [`is_closed_stdout`] whether to end quietly,
//! as ripgrep does. Lines on stderr go through `messages`, never through here.

use std::io::{self, Write};

use anyhow::{Context, Result};

/// Returns true when `err`, or any error it wraps, is a write to a closed pipe.
pub fn is_closed_stdout(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause.downcast_ref::<io::Error>().is_some_and(is_closed)
            || cause
                .downcast_ref::<csv::Error>()
                .is_some_and(|e| matches!(e.kind(), csv::ErrorKind::Io(io) if is_closed(io)))
            || cause
                .downcast_ref::<serde_json::Error>()
                .is_some_and(|e| e.io_error_kind() == Some(io::ErrorKind::BrokenPipe))
    })
}

/// Returns true when an I/O error says the reader went away.
fn is_closed(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::BrokenPipe
}

/// Writes to stdout until the reader goes away.
#[derive(Debug, Default)]
pub struct Out {
    is_closed: bool,
}

impl Out {
    /// Returns a writer to stdout.
    pub fn new() -> Out {
        Out::default()
    }

    /// Writes `text` as is; does nothing once the reader has closed stdout.
    pub fn print(&mut self, text: &str) -> Result<()> {
        if self.is_closed {
            return Ok(());
        }
        let mut stdout = io::stdout().lock();
        match stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush())
        {
            Ok(()) => Ok(()),
            Err(err) if is_closed(&err) => {
                self.is_closed = true;
                Ok(())
            }
            Err(err) => Err(err).context("writing to stdout"),
        }
    }

    /// Writes `text` and a newline.
    pub fn line(&mut self, text: &str) -> Result<()> {
        self.print(&format!("{text}\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_pipe_is_found_under_contexts() {
        let closed = anyhow::Error::new(io::Error::from(io::ErrorKind::BrokenPipe))
            .context("writing the table");
        assert!(is_closed_stdout(&closed));
        let csv_closed =
            anyhow::Error::new(csv::Error::from(io::Error::from(io::ErrorKind::BrokenPipe)));
        assert!(is_closed_stdout(&csv_closed));
        let other = anyhow::Error::new(io::Error::from(io::ErrorKind::NotFound));
        assert!(!is_closed_stdout(&other));
    }
}
