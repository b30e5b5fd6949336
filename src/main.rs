//! The binary: parses the command line, runs the command, prints an error once and
//! exits with the status the README documents.

use std::io::{self, Write};
use std::process;

use clap::Parser;

use mcp_hint_census::cli::{self, Cli};
use mcp_hint_census::error::{ExitStatus, UsageError};
use mcp_hint_census::{census, compare, corpus, merge, probe, scan};

fn main() {
    let cli = Cli::parse();
    let status = match run(cli) {
        Ok(status) => status,
        // A reader that went away (`... | head`) wants no more: stop quietly, as
        // ripgrep does, rather than complain about a pipe nobody reads.
        Err(err) if is_broken_pipe(&err) => ExitStatus::Ok,
        Err(err) => {
            // Printed once, here: the chain of contexts joined by ': '.
            let _ = writeln!(io::stderr(), "mcp-hint-census: {err:#}");
            if err.downcast_ref::<UsageError>().is_some() {
                ExitStatus::Usage
            } else {
                ExitStatus::Failed
            }
        }
    };
    process::exit(status as i32);
}

/// Returns true when the error, or any error it wraps, is a write to a closed pipe.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
            || cause
                .downcast_ref::<csv::Error>()
                .is_some_and(|e| matches!(e.kind(), csv::ErrorKind::Io(io) if io.kind() == io::ErrorKind::BrokenPipe))
            || cause
                .downcast_ref::<serde_json::Error>()
                .is_some_and(|e| e.io_error_kind() == Some(io::ErrorKind::BrokenPipe))
    })
}

/// Runs the parsed command line and returns the exit status.
fn run(cli: Cli) -> anyhow::Result<ExitStatus> {
    match cli.command {
        cli::Command::Census(args) => census::run(&args),
        cli::Command::Scan(args) => scan::run(&args),
        cli::Command::Probe(args) => probe::run(&args),
        cli::Command::Diff(args) => probe::diff(&args),
        cli::Command::Compare(args) => compare::run(&args),
        cli::Command::Merge(args) => merge::run(&args),
        cli::Command::Corpus(args) => corpus::build::run(&args),
    }
}
