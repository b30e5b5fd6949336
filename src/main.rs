//! The binary: parses the command line, runs the command, prints an error once and
//! exits with the status the README documents.

use std::process;

use clap::Parser;

use mcp_hint_census::cli::{self, Cli};
use mcp_hint_census::infra::error::{ExitStatus, UsageError};
use mcp_hint_census::infra::{messages, out};
use mcp_hint_census::{census, compare, corpus, merge, probe, scan, survey};

fn main() {
    // tree-sitter's parse allocates and frees a node at a time, from two threads at
    // once; mimalloc serves that with less work than the system allocator. Only the
    // parse's allocations go to it: the rest of the program keeps the system's, which
    // hands large freed buffers (an archive's files) back at once, so the peak memory
    // stays what it was. Set before any parser exists, so that nothing tree-sitter
    // frees came from elsewhere.
    // SAFETY: nothing has been allocated by tree-sitter yet, and the four functions
    // are mimalloc's drop-in equivalents of malloc, calloc, realloc and free.
    unsafe {
        tree_sitter::set_allocator(
            Some(libmimalloc_sys::mi_malloc),
            Some(libmimalloc_sys::mi_calloc),
            Some(libmimalloc_sys::mi_realloc),
            Some(libmimalloc_sys::mi_free),
        );
    }
    let cli = Cli::parse();
    let status = match run(cli) {
        Ok(status) => status,
        // A reader that went away (`... | head`) wants no more: stop quietly, as
        // ripgrep does, rather than complain about a pipe nobody reads.
        Err(err) if out::is_closed_stdout(&err) => ExitStatus::Ok,
        Err(err) => {
            // Printed once, here: the chain of contexts joined by ': '.
            messages::error(&err);
            if err.downcast_ref::<UsageError>().is_some() {
                ExitStatus::Usage
            } else {
                ExitStatus::Failed
            }
        }
    };
    process::exit(status as i32);
}

/// Runs the parsed command line and returns the exit status.
fn run(cli: Cli) -> anyhow::Result<ExitStatus> {
    match cli.command {
        cli::Command::Census(args) => census::run(&args),
        cli::Command::Scan(args) => scan::run(&args),
        cli::Command::Probe(args) if args.servers.is_some() => survey::run(&args),
        cli::Command::Probe(args) => probe::run(&args),
        cli::Command::Diff(args) => probe::diff(&args),
        cli::Command::Compare(args) => compare::run(&args),
        cli::Command::Merge(args) => merge::run(&args),
        cli::Command::Join(args) => survey::join(&args),
        cli::Command::Survey(args) => survey::entries::run(&args),
        cli::Command::RegistrySurvey(args) => survey::whole::run(&args),
        cli::Command::Corpus(args) => corpus::command::run(&args),
    }
}
