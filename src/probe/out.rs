//! Standard output for `probe` and `diff`, which may be closed early by the reader
//! (`probe ... | head -1`).
//!
//! A closed stdout is not an error: printing stops quietly and the command goes on to
//! finish its other work (files, exit status). Any other write error is reported.

use std::io::{self, Write};

use anyhow::{Context, Result};

/// Writes to stdout until the reader goes away.
#[derive(Debug, Default)]
pub struct Out {
    closed: bool,
}

impl Out {
    /// Returns a writer to stdout.
    pub fn new() -> Out {
        Out::default()
    }

    /// Writes `text` as is; does nothing once the reader has closed stdout.
    pub fn print(&mut self, text: &str) -> Result<()> {
        if self.closed {
            return Ok(());
        }
        let mut stdout = io::stdout().lock();
        match stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush())
        {
            Ok(()) => Ok(()),
            Err(err) if err.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
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
